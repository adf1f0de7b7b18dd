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

/// The report's sentences on the margins its verdicts used: equivalences
/// (`≈`) and relative margins (`within 5%`), at one-sided level `alpha`.
pub fn method_text(equivalence: bool, relative: bool, alpha: f64) -> String {
    let level = 100.0 * (1.0 - 2.0 * alpha);
    let mut s = String::new();
    if equivalence {
        s.push_str(&format!(
            "An equivalence (≈) is two one-sided tests, each at {alpha}: it is EQUIVALENT when \
             the runs show the shift both above the lower end of the margin and below the upper \
             (the {level:.0} % interval inside the margin), NOT EQUIVALENT when they show it \
             beyond one end, and inconclusive otherwise. "
        ));
    }
    if relative {
        s.push_str(
            "A margin in % of latency, throughput or cpu bounds the ratio A/B at each rate: it \
             is tested with the same test on the logarithms of the runs' values, against \
             ln(1 − margin) and ln(1 + margin), and its shift and interval are shown as ratios.",
        );
    }
    s.trim_end().to_string()
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
    use crate::hypothesis::Hypothesis;
    use crate::stats::{ALPHA, Verdict};
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    /// Per-run p99 values (ns) of one cell: lognormal around `median`,
    /// `sd` the run-to-run spread of ln p99 (0.04: about 4 %).
    fn p99s(rng: &mut SmallRng, median: f64, sd: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                // Box–Muller.
                let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                median * (sd * z).exp()
            })
            .collect()
    }

    /// How many of `sets` simulated studies (3 rates, `runs` per cell, A's
    /// p99 `ratio` times B's) the hypothesis calls each verdict:
    /// (supported, rejected, inconclusive).
    fn simulate(h: &str, seed: u64, sets: usize, runs: usize, ratio: f64) -> [usize; 3] {
        let h = Hypothesis::parse(h, &["a", "b"]).unwrap();
        let r = h.margin_relative.expect("a relative margin");
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut counts = [0; 3];
        for _ in 0..sets {
            // p99 grows with the rate, as it does towards saturation.
            let strata: Vec<Stratum> = [(100, 8e6), (200, 12e6), (400, 30e6)]
                .iter()
                .map(|&(rate, median)| Stratum {
                    label: format!("{rate} req/s"),
                    a: p99s(&mut rng, median * ratio, 0.04, runs),
                    b: p99s(&mut rng, median, 0.04, runs),
                })
                .collect();
            let ev = compare(&strata, ALPHA).unwrap();
            let j = judge(h.op, r, &ev, ALPHA);
            assert_eq!(j.underpowered, None, "{j:?}");
            counts[match j.verdict {
                Verdict::Supported => 0,
                Verdict::Rejected => 1,
                Verdict::Inconclusive => 2,
            }] += 1;
        }
        counts
    }

    /// The test of the test: on simulated studies whose answer is known,
    /// the equivalence verdict must say EQUIVALENT when the two origins
    /// are the same, and almost never when they are 10 % apart. 3 rates,
    /// 10 runs per cell and a run-to-run spread of 4 % give the exact
    /// test the power to tell a 5 % margin.
    #[test]
    fn equivalence_is_found_between_twins_and_not_across_a_ten_percent_gap() {
        let h = "a.p99 ≈ b.p99 within 5%";
        let [same, ..] = simulate(h, 1, 40, 10, 1.0);
        assert!(same >= 38, "equivalent in only {same}/40 sets of twins");
        for (seed, ratio) in [(2, 1.10), (3, 0.90)] {
            let [equivalent, not, _] = simulate(h, seed, 40, 10, ratio);
            assert!(
                equivalent <= 2,
                "equivalent in {equivalent}/40 sets {ratio} apart"
            );
            assert!(
                not >= 30,
                "not equivalent in only {not}/40 sets {ratio} apart"
            );
        }
        // At the margin itself (exactly 5 % apart), "equivalent" is the
        // error the level bounds: at most 5 % of the time (4.2 % over 8000
        // sets; 7 % here is more than 3 standard errors above that, where
        // a test at 10 % would be far beyond).
        let [at_margin, ..] = simulate(h, 4, 600, 10, 1.05);
        assert!(
            at_margin <= 42,
            "equivalent in {at_margin}/600 sets at the margin"
        );
    }

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
        assert!(method_text(true, false, ALPHA).contains("each at 0.05"));
        assert!(method_text(false, true, ALPHA).starts_with("A margin in %"));
        assert_eq!(
            (fmt_margin(0.05), fmt_margin(0.025)),
            ("5%".into(), "2.5%".into())
        );
        assert_eq!(fmt_pct(0.126), "+13%");
    }
}
