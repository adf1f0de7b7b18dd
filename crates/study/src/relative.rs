//! Relative margins: `A ≈ B within 5%`, `A <= B within 5%` on latency,
//! throughput or cpu.
//!
//! **The claim.** `within 5%` bounds the ratio A/B at each rate: `A ≈ B`
//! claims `0.95 < A/B < 1.05`, `A <= B` claims `A/B < 1.05`, `A >= B`
//! claims `A/B > 0.95`.
//!
//! **The test.** The same exact stratified Wilcoxon–Mann–Whitney test as
//! every comparison of two targets, on the logarithms of the runs' values:
//! a ratio is a shift of logarithms, so the claim is `ln A − ln B` within
//! `(ln 0.95, ln 1.05)`. The margin is thus a constant set by the plan, not
//! estimated from the runs, and each rate is held to its own level: 5 % of
//! a p99 of 2 ms at a low rate and of 40 ms near saturation alike (a margin
//! of 5 % of B's overall mean would be 50 % of the low rate's p99 and let
//! that rate support any claim). The Hodges–Lehmann shift of the
//! logarithms and its `1 − 2α` interval read back as ratios: `exp(s) − 1`,
//! "A is 1.8 % above B". The verdict, its p-values and that interval come
//! from one test, so they cannot disagree.
//!
//! A value of 0 or below has no logarithm: a rate where a run measured
//! none (no throughput, an idle CPU) is left out, and the answer says so.

use crate::hypothesis::Cmp;
use crate::stats::{self, Evidence, Judgement, Stratum};

/// The shifts of `ln A − ln B` that bound `1 − r < A/B < 1 + r`.
pub fn bounds(r: f64) -> (f64, f64) {
    ((1.0 - r).ln(), (1.0 + r).ln())
}

/// A shift of logarithms as a relative difference: `exp(s) − 1`.
pub fn as_ratio(shift: f64) -> f64 {
    shift.exp() - 1.0
}

/// The evidence a relative margin is judged on.
#[derive(Debug, Clone, PartialEq)]
pub struct RelativeEvidence {
    /// The test on `ln A − ln B` (its shifts are logarithms of ratios).
    pub evidence: Evidence,
    /// Labels of the rates left out: a run there had no positive value.
    pub left_out: Vec<String>,
}

/// The strata in logarithms, and the labels of those that have a value
/// of 0 or below on either side (left out).
pub fn log_strata(strata: &[Stratum]) -> (Vec<Stratum>, Vec<String>) {
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for s in strata {
        if s.a.iter().chain(&s.b).all(|v| *v > 0.0 && v.is_finite()) {
            kept.push(Stratum {
                label: s.label.clone(),
                a: s.a.iter().map(|v| v.ln()).collect(),
                b: s.b.iter().map(|v| v.ln()).collect(),
            });
        } else {
            left_out.push(s.label.clone());
        }
    }
    (kept, left_out)
}

/// Compares A with B on the ratio scale; None when no rate is left.
pub fn compare(strata: &[Stratum], alpha: f64) -> Option<RelativeEvidence> {
    let (logs, left_out) = log_strata(strata);
    stats::compare(&logs, alpha).map(|evidence| RelativeEvidence { evidence, left_out })
}

/// The verdict of `A op B within r` (r a fraction of B, below 1).
pub fn judge(op: Cmp, r: f64, ev: &RelativeEvidence, alpha: f64) -> Judgement {
    stats::judge_between(op, bounds(r), &ev.evidence, alpha)
}

/// A relative difference for people: `+1.8%`, `-0.4%`, `+13%`.
pub fn fmt_pct(x: f64) -> String {
    let v = 100.0 * x;
    let digits = if v.abs() < 10.0 { 1 } else { 0 };
    format!("{v:+.digits$}%")
}

/// A margin as its user wrote it: `5%`, `2.5%`.
pub fn fmt_margin(r: f64) -> String {
    let v = format!("{:.2}", 100.0 * r);
    format!("{}%", v.trim_end_matches('0').trim_end_matches('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{ALPHA, Verdict};

    #[test]
    fn the_margin_is_a_ratio_at_each_rate() {
        let (lo, hi) = bounds(0.05);
        assert!((as_ratio(lo) + 0.05).abs() < 1e-12 && (as_ratio(hi) - 0.05).abs() < 1e-12);
        // A is exactly 3 % above B at a low and a high level: equivalent
        // within 5 %, not within 2 %, whatever the levels.
        let s: Vec<Stratum> = [2e6, 40e6]
            .iter()
            .map(|level| Stratum {
                label: format!("{level}"),
                a: [1.0, 1.002, 0.998]
                    .iter()
                    .map(|k| k * level * 1.03)
                    .collect(),
                b: [1.0, 1.002, 0.998].iter().map(|k| k * level).collect(),
            })
            .collect();
        let ev = compare(&s, ALPHA).unwrap();
        assert!((as_ratio(ev.evidence.diff) - 0.03).abs() < 1e-9, "{ev:?}");
        assert_eq!(judge(Cmp::Eq, 0.05, &ev, ALPHA).verdict, Verdict::Supported);
        assert_eq!(judge(Cmp::Eq, 0.02, &ev, ALPHA).verdict, Verdict::Rejected);
        assert_eq!(judge(Cmp::Le, 0.05, &ev, ALPHA).verdict, Verdict::Supported);
        assert_eq!(judge(Cmp::Le, 0.02, &ev, ALPHA).verdict, Verdict::Rejected);
        assert_eq!(judge(Cmp::Ge, 0.02, &ev, ALPHA).verdict, Verdict::Supported);
        // A rate where a run measured nothing has no ratio.
        let mut s = s;
        s[0].a[1] = 0.0;
        let ev = compare(&s, ALPHA).unwrap();
        assert_eq!(ev.left_out, vec!["2000000".to_string()]);
        assert_eq!(ev.evidence.strata, 1);
        assert_eq!(fmt_pct(-0.0042), "-0.4%");
        assert_eq!(
            (fmt_margin(0.05), fmt_margin(0.025)),
            ("5%".into(), "2.5%".into())
        );
        assert_eq!(fmt_pct(0.126), "+13%");
    }
}
