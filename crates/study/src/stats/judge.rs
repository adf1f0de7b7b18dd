//! Verdicts from the evidence: which one-sided tests a hypothesis needs, at
//! which shifts, and whether the design could reach the level at all.
//!
//! A margin is a pair of shifts `(lo, hi)` with `lo <= 0 <= hi`: `A >= B`
//! tests `A − B > lo`, `A <= B` tests `A − B < hi`, and the equivalence
//! `A ≈ B` needs both (two one-sided tests, each at α: the `1 − 2α`
//! interval lies inside `(lo, hi)`). A margin in the metric's unit is
//! symmetric (`-δ, +δ`); a relative margin tested on `ln A − ln B` is
//! `(ln(1 − r), ln(1 + r))`.

use super::{Evidence, Test, Verdict, choose};
use crate::hypothesis::Cmp;

/// The smallest number of runs per cell with which the test could reach
/// `alpha` over `strata` strata (at most 50).
pub fn runs_needed(test: Test, strata: usize, alpha: f64) -> usize {
    let strata = strata.max(1) as i32;
    (1..=50)
        .find(|&r| {
            let one = match test {
                Test::RankSum => 1.0 / choose(2 * r, r),
                Test::Sign => 0.5f64.powi(r as i32),
            };
            one.powi(strata) <= alpha * (1.0 + 1e-9)
        })
        .unwrap_or(50)
}

/// A verdict with the p-value it rests on.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// The one-sided p of the claim (or, when rejected, of its opposite).
    /// For an equivalence: the larger of its two one-sided p-values.
    pub p: f64,
    /// The tested statement, e.g. "A − B > −0.005" (for `==`: the upper
    /// shift; `bounds` has both).
    pub tested: (Cmp, f64),
    /// The margin's shifts (lo, hi): the claim is about `A − B` against them.
    pub bounds: (f64, f64),
    /// The smallest p the tested claim could have had with these runs
    /// (for an equivalence: the larger of its two sides' floors).
    pub floor: f64,
    /// Set when the design cannot reach α at all: (runs per cell, runs needed).
    pub underpowered: Option<(usize, usize)>,
    /// Every run of both sides gave the same value at every rate.
    pub no_variation: bool,
}

/// Reads the verdict of `A op B` within `margin` (≥ 0) at level `alpha`.
pub fn judge(op: Cmp, margin: f64, ev: &Evidence, alpha: f64) -> Judgement {
    let m = margin.abs();
    judge_between(op, (-m, m), ev, alpha)
}

/// Reads the verdict of `A op B` where the margin allows `A − B` down to
/// `lo` (for `>=`, `==`) and up to `hi` (for `<=`, `==`); `lo <= 0 <= hi`.
/// `>` and `<` test against 0 whatever the bounds.
pub fn judge_between(op: Cmp, bounds: (f64, f64), ev: &Evidence, alpha: f64) -> Judgement {
    let d = &ev.design;
    let (lo, hi) = (bounds.0.min(0.0), bounds.1.max(0.0));
    let ok = |p: f64| p <= alpha * (1.0 + 1e-9);
    // (support p, reject p, shift used for the support test, its direction)
    let (sup, rej, tested) = match op {
        Cmp::Gt => {
            let (g, l) = d.p(0.0);
            (g, l, (Cmp::Gt, 0.0))
        }
        Cmp::Ge => {
            let (g, l) = d.p(lo);
            (g, l, (Cmp::Gt, lo))
        }
        Cmp::Lt => {
            let (g, l) = d.p(0.0);
            (l, g, (Cmp::Lt, 0.0))
        }
        Cmp::Le => {
            let (g, l) = d.p(hi);
            (l, g, (Cmp::Lt, hi))
        }
        Cmp::Eq => {
            let (g_lo, l_lo) = d.p(lo);
            let (g_hi, l_hi) = d.p(hi);
            (g_lo.max(l_hi), l_lo.min(g_hi), (Cmp::Eq, hi))
        }
    };
    // The two one-sided tests of an equivalence must each be able to reach
    // α with the runs that count at their shift: the level holds only then.
    let floor = match op {
        Cmp::Eq => d.floor(Some(lo)).max(d.floor(Some(hi))),
        _ => d.floor(Some(tested.1)),
    };
    // Every stratum is a tie at the tested shift: the runs say nothing either way.
    let no_variation = match (d.test, op) {
        (Test::Sign, Cmp::Eq) => d.d.iter().all(|v| *v == lo || *v == hi),
        (Test::Sign, _) => d.d.iter().all(|v| *v == tested.1),
        (Test::RankSum, Cmp::Eq) => d.active(lo).count() + d.active(hi).count() == 0,
        (Test::RankSum, _) => d.active(tested.1).count() == 0,
    };
    let (verdict, p) = if ok(sup) {
        (Verdict::Supported, sup)
    } else if ok(rej) {
        (Verdict::Rejected, rej)
    } else {
        (Verdict::Inconclusive, sup)
    };
    let underpowered = (verdict == Verdict::Inconclusive && !ok(floor)).then(|| {
        // The side with the fewer informative strata sets what is needed.
        let strata = match op {
            Cmp::Eq => d.active(lo).count().min(d.active(hi).count()),
            _ => d.active(tested.1).count(),
        };
        (ev.per_cell, runs_needed(d.test, strata.max(1), alpha))
    });
    Judgement {
        verdict,
        p,
        tested,
        bounds: (lo, hi),
        floor,
        underpowered,
        no_variation,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ALPHA, Stratum, compare};
    use super::*;

    fn st(a: &[f64], b: &[f64]) -> Stratum {
        Stratum {
            label: "s".into(),
            a: a.to_vec(),
            b: b.to_vec(),
        }
    }

    #[test]
    fn an_equivalence_needs_both_sides_to_reach_the_level() {
        // 3 vs 3 at one rate: each side's floor is exactly 1/20.
        let ev = compare(&[st(&[10.0, 10.2, 9.9], &[10.1, 9.8, 10.05])], ALPHA).unwrap();
        let j = judge(Cmp::Eq, 1.0, &ev, ALPHA);
        assert_eq!(j.verdict, Verdict::Supported, "{j:?}");
        assert!((j.p - 0.05).abs() < 1e-12 && (j.floor - 0.05).abs() < 1e-12);
        assert_eq!(j.bounds, (-1.0, 1.0));
        // Two runs a side: 1/6 on each side whatever the numbers.
        let ev = compare(&[st(&[10.0, 10.2], &[10.1, 9.8])], ALPHA).unwrap();
        let j = judge(Cmp::Eq, 1.0, &ev, ALPHA);
        assert_eq!(
            (j.verdict, j.underpowered),
            (Verdict::Inconclusive, Some((2, 3)))
        );
        // Asymmetric bounds: every difference (1 to 3) is above +0.5.
        let ev = compare(&[st(&[13.0, 12.0, 12.5], &[10.0, 11.0, 10.5])], ALPHA).unwrap();
        let j = judge_between(Cmp::Eq, (-10.0, 0.5), &ev, ALPHA);
        assert_eq!(j.verdict, Verdict::Rejected, "{j:?}");
        assert_eq!(
            judge_between(Cmp::Eq, (-0.5, 10.0), &ev, ALPHA).verdict,
            Verdict::Supported
        );
    }

    #[test]
    fn the_runs_needed_count_the_strata_that_inform_the_weaker_side() {
        // Two rates of 2 vs 2: (1/6)^2 = 1/36 reaches 5 % on both sides...
        let s = [st(&[1.0, 1.2], &[1.1, 0.9]), st(&[2.0, 2.2], &[2.1, 1.9])];
        let ev = compare(&s, ALPHA).unwrap();
        let j = judge(Cmp::Eq, 5.0, &ev, ALPHA);
        assert_eq!((j.verdict, j.underpowered), (Verdict::Supported, None));
        // ...but a rate where every difference is exactly the upper margin
        // says nothing about it: that side has one informative rate, 1/6.
        let s = [st(&[1.0, 1.0], &[0.5, 0.5]), st(&[2.0, 2.2], &[2.1, 1.9])];
        let ev = compare(&s, ALPHA).unwrap();
        let j = judge(Cmp::Eq, 0.5, &ev, ALPHA);
        assert!((j.floor - 1.0 / 6.0).abs() < 1e-12, "{j:?}");
        assert_eq!(
            (j.verdict, j.underpowered),
            (Verdict::Inconclusive, Some((2, 3)))
        );
    }
}
