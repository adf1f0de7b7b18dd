//! Statistics for hypotheses and comparisons, on per-repetition values.
//!
//! **Method.** The unit of evidence is one *run* (one repetition of one target
//! at one rate): its p99, success ratio, etc. Runs at the same rate form a
//! stratum. The effect is
//!
//! `D = mean over strata of (mean(A runs) − mean(B runs))`
//!
//! and its 95 % confidence interval comes from a stratified percentile
//! bootstrap: 2 000 resamples, each drawing A's and B's runs with replacement
//! *within* each stratum (so a rate never borrows another rate's values), with a
//! fixed seed so a report is reproducible. The verdict of `A OP B` reads the
//! interval: for `<`, *supported* when the whole interval is below 0,
//! *rejected* when it is entirely at or above 0, otherwise *inconclusive*
//! (and symmetrically for `<=`, `>`, `>=`). Fewer than two runs per side cannot
//! estimate noise, so the verdict is then *inconclusive* whatever the numbers.
//!
//! As a cross-check that does not assume anything about the shape of the
//! distribution, a stratified Mann–Whitney U test (sum of per-stratum U,
//! normal approximation with tie correction) gives a two-sided p-value and
//! Cliff's δ (the rank effect size: +1 means every A run is above every B run).
//! With very few runs the bootstrap interval is optimistic; the report always
//! shows n next to the verdict.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::hypothesis::Cmp;

/// Values of one stratum (one rate): A's runs and B's runs (or one constant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stratum {
    pub label: String,
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    Supported,
    Rejected,
    Inconclusive,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Supported => "supported",
            Verdict::Rejected => "rejected",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The evidence for one comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// D = mean(A) − mean(B), averaged over strata.
    pub diff: f64,
    /// D relative to mean(B) (e.g. −0.12 = A is 12 % lower), when B ≠ 0.
    pub relative: Option<f64>,
    /// 95 % bootstrap confidence interval of D.
    pub ci: (f64, f64),
    pub n_a: usize,
    pub n_b: usize,
    /// Stratified Mann–Whitney two-sided p-value (None without variation to rank).
    pub p_value: Option<f64>,
    /// Cliff's δ of A vs B (rank effect size, −1..1).
    pub cliffs_delta: f64,
    pub mean_a: f64,
    pub mean_b: f64,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Resamples used by [`compare`].
pub const RESAMPLES: usize = 2_000;

/// Computes D, its bootstrap CI and the rank statistics. Strata where either
/// side is empty are ignored. Returns None when no stratum is usable.
pub fn compare(strata: &[Stratum], seed: u64) -> Option<Evidence> {
    let strata: Vec<&Stratum> = strata
        .iter()
        .filter(|s| !s.a.is_empty() && !s.b.is_empty())
        .collect();
    if strata.is_empty() {
        return None;
    }
    let k = strata.len() as f64;
    let diff = strata.iter().map(|s| mean(&s.a) - mean(&s.b)).sum::<f64>() / k;
    let mean_a = strata.iter().map(|s| mean(&s.a)).sum::<f64>() / k;
    let mean_b = strata.iter().map(|s| mean(&s.b)).sum::<f64>() / k;

    let mut rng = SmallRng::seed_from_u64(seed);
    let mut boots = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let mut d = 0.0;
        for s in &strata {
            let ra: f64 = (0..s.a.len())
                .map(|_| s.a[rng.random_range(0..s.a.len())])
                .sum::<f64>()
                / s.a.len() as f64;
            let rb: f64 = (0..s.b.len())
                .map(|_| s.b[rng.random_range(0..s.b.len())])
                .sum::<f64>()
                / s.b.len() as f64;
            d += ra - rb;
        }
        boots.push(d / k);
    }
    boots.sort_by(f64::total_cmp);
    let at = |q: f64| boots[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    let ci = (at(0.025), at(0.975));

    let (p_value, cliffs_delta) = mann_whitney(&strata);
    Some(Evidence {
        diff,
        relative: (mean_b != 0.0).then(|| diff / mean_b.abs()),
        ci,
        n_a: strata.iter().map(|s| s.a.len()).sum(),
        n_b: strata.iter().map(|s| s.b.len()).sum(),
        p_value,
        cliffs_delta,
        mean_a,
        mean_b,
    })
}

/// Stratified Mann–Whitney U: (two-sided p, Cliff's δ).
fn mann_whitney(strata: &[&Stratum]) -> (Option<f64>, f64) {
    let (mut u, mut e, mut var, mut pairs) = (0.0, 0.0, 0.0, 0.0);
    for s in strata {
        let (na, nb) = (s.a.len() as f64, s.b.len() as f64);
        let mut us = 0.0;
        for x in &s.a {
            for y in &s.b {
                us += if x > y {
                    1.0
                } else if x == y {
                    0.5
                } else {
                    0.0
                };
            }
        }
        // Tie correction: Σ(t³ − t) over groups of equal values in the pooled sample.
        let mut pooled: Vec<f64> = s.a.iter().chain(&s.b).copied().collect();
        pooled.sort_by(f64::total_cmp);
        let mut ties = 0.0;
        let mut i = 0;
        while i < pooled.len() {
            let mut j = i;
            while j + 1 < pooled.len() && pooled[j + 1] == pooled[i] {
                j += 1;
            }
            let t = (j - i + 1) as f64;
            ties += t * t * t - t;
            i = j + 1;
        }
        let n = na + nb;
        u += us;
        e += na * nb / 2.0;
        if n > 1.0 {
            var += na * nb / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
        }
        pairs += na * nb;
    }
    let delta = if pairs > 0.0 {
        (2.0 * u - pairs) / pairs
    } else {
        0.0
    };
    if var <= 0.0 {
        return (None, delta);
    }
    let z = ((u - e).abs() - 0.5).max(0.0) / var.sqrt();
    (Some((2.0 * (1.0 - normal_cdf(z))).clamp(0.0, 1.0)), delta)
}

/// Standard normal CDF via the Abramowitz–Stegun 7.1.26 erf approximation (|ε| < 1.5e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-x * x).exp();
    if z >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// Reads the verdict of `A op B` from the interval of D = A − B.
pub fn verdict(op: Cmp, ev: &Evidence) -> Verdict {
    if ev.n_a < 2 || ev.n_b < 2 {
        // A constant side (n = 1 by construction) is fine if the other side repeats.
        let one_const = (ev.n_a == 1) != (ev.n_b == 1) && ev.n_a.max(ev.n_b) >= 2;
        if !one_const {
            return Verdict::Inconclusive;
        }
    }
    let (lo, hi) = ev.ci;
    let (sup, rej) = match op {
        Cmp::Lt => (hi < 0.0, lo >= 0.0),
        Cmp::Le => (hi <= 0.0, lo > 0.0),
        Cmp::Gt => (lo > 0.0, hi <= 0.0),
        Cmp::Ge => (lo >= 0.0, hi < 0.0),
        Cmp::Eq => (false, lo > 0.0 || hi < 0.0),
    };
    if sup {
        Verdict::Supported
    } else if rej {
        Verdict::Rejected
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normal(rng: &mut SmallRng, mu: f64, sd: f64, n: usize) -> Vec<f64> {
        // Box–Muller.
        (0..n)
            .map(|_| {
                let (u1, u2): (f64, f64) = (rng.random::<f64>().max(1e-12), rng.random());
                mu + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
            })
            .collect()
    }

    #[test]
    fn clear_difference_is_supported_and_the_reverse_rejected() {
        let mut rng = SmallRng::seed_from_u64(7);
        let strata: Vec<Stratum> = (0..3)
            .map(|i| Stratum {
                label: format!("{}", 100 * (i + 1)),
                a: normal(&mut rng, 100.0 + i as f64 * 10.0, 5.0, 5),
                b: normal(&mut rng, 150.0 + i as f64 * 10.0, 5.0, 5),
            })
            .collect();
        let ev = compare(&strata, 1).unwrap();
        assert!(ev.ci.1 < -30.0 && ev.ci.0 > -70.0, "{ev:?}");
        assert!(ev.p_value.unwrap() < 0.001, "{ev:?}");
        assert!(ev.cliffs_delta < -0.99);
        assert_eq!(verdict(Cmp::Lt, &ev), Verdict::Supported);
        assert_eq!(verdict(Cmp::Le, &ev), Verdict::Supported);
        assert_eq!(verdict(Cmp::Gt, &ev), Verdict::Rejected);
        assert_eq!(verdict(Cmp::Ge, &ev), Verdict::Rejected);
        assert!((ev.relative.unwrap() + 50.0 / 160.0).abs() < 0.1);
    }

    #[test]
    fn identical_distributions_are_inconclusive() {
        // Many seeds: the 95 % interval must contain 0 in the large majority.
        let mut inconclusive = 0;
        for seed in 0..40 {
            let mut rng = SmallRng::seed_from_u64(1000 + seed);
            let strata = vec![Stratum {
                label: "x".into(),
                a: normal(&mut rng, 100.0, 10.0, 8),
                b: normal(&mut rng, 100.0, 10.0, 8),
            }];
            let ev = compare(&strata, seed).unwrap();
            if verdict(Cmp::Lt, &ev) == Verdict::Inconclusive
                && verdict(Cmp::Gt, &ev) == Verdict::Inconclusive
            {
                inconclusive += 1;
            }
        }
        assert!(inconclusive >= 32, "only {inconclusive}/40 inconclusive");
    }

    #[test]
    fn equal_constants_and_single_runs() {
        let s = vec![Stratum {
            label: "r".into(),
            a: vec![1.0, 1.0, 1.0],
            b: vec![1.0, 1.0, 1.0],
        }];
        let ev = compare(&s, 0).unwrap();
        assert_eq!(ev.ci, (0.0, 0.0));
        assert_eq!(ev.p_value, None);
        assert_eq!(verdict(Cmp::Ge, &ev), Verdict::Supported);
        assert_eq!(verdict(Cmp::Lt, &ev), Verdict::Rejected);
        // One run a side cannot say anything about noise.
        let s = vec![Stratum {
            label: "r".into(),
            a: vec![1.0],
            b: vec![5.0],
        }];
        assert_eq!(
            verdict(Cmp::Lt, &compare(&s, 0).unwrap()),
            Verdict::Inconclusive
        );
        // Against a constant, repetitions on one side are enough.
        let s = vec![Stratum {
            label: "r".into(),
            a: vec![1.0, 1.1, 0.9],
            b: vec![5.0],
        }];
        assert_eq!(
            verdict(Cmp::Lt, &compare(&s, 0).unwrap()),
            Verdict::Supported
        );
        assert!(
            compare(
                &[Stratum {
                    label: "e".into(),
                    a: vec![],
                    b: vec![1.0]
                }],
                0
            )
            .is_none()
        );
    }

    #[test]
    fn normal_cdf_known_values() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
        assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
        assert!((normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
    }
}
