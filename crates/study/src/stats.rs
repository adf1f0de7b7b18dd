//! Statistics for hypotheses and comparisons, on per-repetition values.
//!
//! **Unit of evidence.** One *run* (one repetition of one target at one
//! rate): its p99, success ratio, etc. Runs at the same rate form a
//! *stratum*; a stratum never borrows another rate's values.
//!
//! **Test (two targets).** An exact stratified Wilcoxon–Mann–Whitney
//! permutation test (van Elteren style, equal weights). Within each stratum,
//! `U` counts the pairs (A run, B run) where A is higher; the statistic is the
//! sum of `U` over strata, and its null distribution (A and B exchangeable
//! within each stratum) is the convolution of the exact per-stratum
//! distributions. Its level holds at any n: with `n` runs a side in `k`
//! strata the smallest one-sided p it can give is `(1 / C(2n, n))^k`, e.g.
//! 1/6 for 2 vs 2 at one rate, 1/36 at two rates, 1/20 for 3 vs 3 at one
//! rate. Ties count against the claim being tested (a conservative, still
//! valid, treatment), except that a stratum where every difference is the same
//! carries no information and is left out, as the exact conditional test does.
//! Past 400 pairs in a stratum the normal approximation is used.
//!
//! **Test (a target against a constant).** An exact sign test over all runs:
//! the claim `A > c` means "the median run is above c"; ties with `c` are
//! dropped. The smallest one-sided p with `n` runs is `2^-n`.
//!
//! **Interval.** The confidence interval of the shift `A − B` is the set of
//! shifts the same test does not reject in either direction at level α, i.e.
//! a `1 − 2α` two-sided interval (90 % for the hypotheses' α = 0.05). The
//! point estimate is the Hodges–Lehmann shift: the median of the
//! within-stratum differences `a − b`. A hypothesis is *supported* exactly
//! when its one-sided p is at most α, which is exactly when the interval
//! lies on the claimed side of 0 (or of the margin): the p-value, the interval
//! and the verdict cannot disagree. An end can be unbounded: with too few runs
//! the test rejects no shift at all.
//!
//! **Verdicts.** For `A OP B` with margin `δ` (`within δ`, default 0):
//!
//! | OP   | supported when (one-sided, level α) | rejected when          |
//! |------|-------------------------------------|------------------------|
//! | `>`  | A − B > 0                           | A − B < 0              |
//! | `>=` | A − B > −δ (non-inferiority)        | A − B < −δ             |
//! | `<`  | A − B < 0                           | A − B > 0              |
//! | `<=` | A − B < +δ                          | A − B > +δ             |
//! | `==` | −δ < A − B < +δ (both tests)        | A − B < −δ or > +δ     |
//!
//! otherwise *inconclusive*, and when even the most extreme outcome could not
//! reach α the answer says so: "n = 2 per cell, at least 3 needed".

use serde::{Deserialize, Serialize};

mod judge;

pub use judge::{Judgement, judge, judge_between, runs_needed};

/// The one-sided level of hypotheses' tests (their intervals are 1 − 2α = 90 %).
pub const ALPHA: f64 = 0.05;

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

/// Which test the evidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum Test {
    /// Two targets: stratified Wilcoxon–Mann–Whitney.
    #[default]
    RankSum,
    /// A target against a constant: sign test.
    Sign,
}

/// The report's "Method" paragraph for verdicts computed from `tests` at
/// one-sided level `alpha`: written here, beside the code that computes
/// them, from the same values, so the two cannot drift apart.
pub fn method_text(tests: &[Test], alpha: f64) -> String {
    let level = 100.0 * (1.0 - 2.0 * alpha);
    let level = if level.fract() == 0.0 {
        format!("{level:.0}")
    } else {
        format!("{level:.1}")
    };
    let mut s = String::from(
        "Method: each run (one repetition of one target at one rate) gives one value of the metric;          runs at the same rate form a stratum, and no stratum borrows another rate's values. ",
    );
    if tests.contains(&Test::RankSum) {
        s.push_str(&format!(
            "Two targets are compared with an exact stratified Wilcoxon–Mann–Whitney permutation test              (within each rate, the pairs of runs where A is higher; exact at any number of runs);              the effect is the Hodges–Lehmann shift A − B (the median of the within-rate differences),              with the {level} % interval of the shifts that test does not reject. "
        ));
    }
    if tests.contains(&Test::Sign) {
        s.push_str(&format!(
            "A target against a constant is judged with an exact sign test over its runs (the median run),              with a {level} % interval. "
        ));
    }
    s.push_str(&format!(
        "A hypothesis is supported when its one-sided p is at most {alpha} — exactly when the interval          lies on its side of zero (or of its margin) — rejected when the opposite claim is, and inconclusive          otherwise; the p-value, the interval and the verdict cannot disagree."
    ));
    s
}

/// The evidence for one comparison of A with B (a target or a constant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub test: Test,
    /// The level the interval was built for (one-sided; the interval is 1 − 2α).
    pub alpha: f64,
    /// Hodges–Lehmann shift A − B: the median of the within-rate differences.
    pub diff: f64,
    /// `diff` relative to the mean of B (e.g. −0.12 = A is 12 % lower), when B ≠ 0.
    pub relative: Option<f64>,
    /// Confidence interval of the shift A − B (None: unbounded on that side).
    pub ci: (Option<f64>, Option<f64>),
    /// Whether each end of `ci` is excluded from the interval.
    pub ci_open: (bool, bool),
    pub n_a: usize,
    pub n_b: usize,
    /// Rates with runs on both sides.
    pub strata: usize,
    /// The fewest runs of one side at one rate (per cell = per target and rate).
    pub per_cell: usize,
    /// Exact one-sided p-values of "A > B" and "A < B" (no margin).
    pub p_greater: f64,
    pub p_less: f64,
    /// The smallest one-sided p this design can give (every A run above every B run).
    pub p_floor: f64,
    /// Cliff's δ of A vs B (rank effect size, −1..1).
    pub cliffs_delta: f64,
    /// Means of the per-rate means, for description.
    pub mean_a: f64,
    pub mean_b: f64,
    #[serde(skip)]
    design: Design,
}

/// What the tests need: the differences and the shape of each stratum.
#[derive(Debug, Clone, PartialEq, Default)]
struct Design {
    test: Test,
    /// a − b for every pair of runs in the same stratum (a − c for a constant), sorted.
    d: Vec<f64>,
    /// Per stratum: (runs of A, runs of B, Some(v) when every difference is v).
    strata: Vec<(usize, usize, Option<f64>)>,
    /// The exact null distribution of the rank statistic over every
    /// stratum (empty when the normal approximation is used): the shifts
    /// where no stratum is tied, nearly all of them, need no other.
    null: Vec<f64>,
}

fn mean(v: &[f64]) -> f64 {
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// Past this many pairs in one stratum the rank test uses the normal approximation.
const EXACT_PAIRS: usize = 400;

/// The exact null distribution of the Mann–Whitney U for `m` vs `n` runs
/// (no ties): P(U = u) for u in 0..=m·n. The generating function is the
/// Gaussian binomial coefficient Π_{i=1..m} (1 − q^(n+i)) / (1 − q^i).
pub fn mann_whitney_null(m: usize, n: usize) -> Vec<f64> {
    let top = m * n;
    let mut c = vec![0i128; top + 1];
    c[0] = 1;
    for i in 1..=m {
        let up = n + i;
        for u in (up..=top).rev() {
            c[u] -= c[u - up];
        }
        for u in i..=top {
            c[u] += c[u - i];
        }
    }
    let total: i128 = c.iter().sum();
    c.iter().map(|&x| x as f64 / total as f64).collect()
}

/// Distribution of a sum of independent variables on 0..len.
fn convolve(a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        if *x == 0.0 {
            continue;
        }
        for (j, y) in b.iter().enumerate() {
            out[i + j] += x * y;
        }
    }
    out
}

/// ln(n!) for the binomial tail.
fn ln_factorial(n: usize) -> f64 {
    (2..=n).map(|k| (k as f64).ln()).sum()
}

/// P(X ≥ k) for X ~ Binomial(n, ½), exact.
pub fn binomial_tail(n: usize, k: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    let ln_n = ln_factorial(n);
    let ln_half = n as f64 * 0.5f64.ln();
    let mut ln_k = ln_factorial(k);
    let mut ln_nk = ln_factorial(n - k);
    let mut p = 0.0;
    for j in k..=n {
        p += (ln_n - ln_k - ln_nk + ln_half).exp();
        if j < n {
            ln_k += ((j + 1) as f64).ln();
            ln_nk -= ((n - j) as f64).ln();
        }
    }
    p.min(1.0)
}

/// C(n, k) as a float (for the smallest attainable p).
fn choose(n: usize, k: usize) -> f64 {
    (ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k))
        .exp()
        .round()
}

/// The exact null distribution of the sum of the strata's U, None past
/// [`EXACT_PAIRS`] pairs in a stratum.
fn exact_null(shapes: &[(usize, usize)]) -> Option<Vec<f64>> {
    if shapes.iter().any(|(m, n)| m * n > EXACT_PAIRS) {
        return None;
    }
    let mut dist = vec![1.0];
    for &(m, n) in shapes {
        dist = convolve(&dist, &mann_whitney_null(m, n));
    }
    Some(dist)
}

impl Design {
    fn two(strata: &[&Stratum]) -> Design {
        let mut d = Vec::new();
        let mut shape = Vec::new();
        for s in strata {
            let start = d.len();
            for x in &s.a {
                for y in &s.b {
                    d.push(x - y);
                }
            }
            let first = d[start];
            let tied = d[start..].iter().all(|v| *v == first).then_some(first);
            shape.push((s.a.len(), s.b.len(), tied));
        }
        d.sort_by(f64::total_cmp);
        let shapes: Vec<(usize, usize)> = shape.iter().map(|s| (s.0, s.1)).collect();
        Design {
            test: Test::RankSum,
            d,
            strata: shape,
            null: exact_null(&shapes).unwrap_or_default(),
        }
    }

    fn one(strata: &[&Stratum], c: f64) -> Design {
        let mut d: Vec<f64> = strata
            .iter()
            .flat_map(|s| s.a.iter())
            .map(|x| x - c)
            .collect();
        d.sort_by(f64::total_cmp);
        let shape = strata.iter().map(|s| (s.a.len(), 1, None)).collect();
        Design {
            test: Test::Sign,
            d,
            strata: shape,
            null: Vec::new(),
        }
    }

    /// Number of differences strictly above / below `delta`.
    fn counts(&self, delta: f64) -> (usize, usize) {
        let above = self.d.len() - self.d.partition_point(|v| *v <= delta);
        let below = self.d.partition_point(|v| *v < delta);
        (above, below)
    }

    /// The strata that carry information about the shift `delta`.
    fn active(&self, delta: f64) -> impl Iterator<Item = &(usize, usize, Option<f64>)> {
        self.strata.iter().filter(move |s| s.2 != Some(delta))
    }

    /// One-sided p-values of "A − B > delta" and "A − B < delta".
    fn p(&self, delta: f64) -> (f64, f64) {
        let (above, below) = self.counts(delta);
        match self.test {
            Test::Sign => {
                let n = above + below;
                (binomial_tail(n, above), binomial_tail(n, below))
            }
            Test::RankSum => {
                let shapes: Vec<(usize, usize)> = self.active(delta).map(|s| (s.0, s.1)).collect();
                let pairs: usize = shapes.iter().map(|(m, n)| m * n).sum();
                if pairs == 0 {
                    return (1.0, 1.0);
                }
                if shapes.iter().any(|(m, n)| m * n > EXACT_PAIRS) {
                    let var: f64 = shapes
                        .iter()
                        .map(|&(m, n)| (m * n) as f64 * (m + n + 1) as f64 / 12.0)
                        .sum();
                    let sd = var.sqrt();
                    let tail = |k: usize| {
                        if k == 0 {
                            1.0
                        } else {
                            1.0 - normal_cdf((k as f64 - 0.5 - pairs as f64 / 2.0) / sd)
                        }
                    };
                    return (tail(above), tail(below));
                }
                let computed;
                let dist = if shapes.len() == self.strata.len() && !self.null.is_empty() {
                    &self.null
                } else {
                    computed = exact_null(&shapes).unwrap_or_default();
                    &computed
                };
                // The null is symmetric, so P(U ≤ pairs − k) = P(U ≥ k).
                let tail = |k: usize| dist[k.min(dist.len())..].iter().sum::<f64>().min(1.0);
                (tail(above), tail(below))
            }
        }
    }

    /// The smallest one-sided p with the runs that count at the shift
    /// `delta` (all of them for None).
    fn floor(&self, delta: Option<f64>) -> f64 {
        match self.test {
            Test::Sign => {
                let n = self.d.iter().filter(|v| Some(**v) != delta).count();
                0.5f64.powi(n as i32)
            }
            Test::RankSum => self
                .strata
                .iter()
                .filter(|s| delta.is_none() || s.2 != delta)
                .map(|&(m, n, _)| 1.0 / choose(m + n, m))
                .product(),
        }
    }

    /// The shifts not rejected by either one-sided test at `alpha`:
    /// ((lower, open), (upper, open)), None = unbounded.
    fn interval(&self, alpha: f64) -> ((Option<f64>, bool), (Option<f64>, bool)) {
        let mut values = self.d.clone();
        values.dedup();
        // p(A − B > Δ) grows with Δ: the lower end is the first shift it no longer rejects.
        let lower = {
            let below_all = values[0] - 1.0;
            if self.p(below_all).0 > alpha {
                (None, true)
            } else {
                let mut end = (values.last().copied(), true);
                for (i, v) in values.iter().enumerate() {
                    if self.p(*v).0 > alpha {
                        end = (Some(*v), false);
                        break;
                    }
                    let gap = values.get(i + 1).map_or(*v + 1.0, |w| v + (w - v) / 2.0);
                    if self.p(gap).0 > alpha {
                        end = (Some(*v), true);
                        break;
                    }
                }
                end
            }
        };
        let upper = {
            let above_all = values[values.len() - 1] + 1.0;
            if self.p(above_all).1 > alpha {
                (None, true)
            } else {
                let mut end = (values.first().copied(), true);
                for i in (0..values.len()).rev() {
                    let v = values[i];
                    if self.p(v).1 > alpha {
                        end = (Some(v), false);
                        break;
                    }
                    let gap = if i == 0 {
                        v - 1.0
                    } else {
                        v - (v - values[i - 1]) / 2.0
                    };
                    if self.p(gap).1 > alpha {
                        end = (Some(v), true);
                        break;
                    }
                }
                end
            }
        };
        (lower, upper)
    }
}

impl Evidence {
    /// The interval as text, e.g. `[+3.1ms, +5.0ms]`, `(0.00%, +∞)`, with
    /// each end formatted by `f` (which gets a signed value).
    pub fn fmt_ci(&self, f: impl Fn(f64) -> String) -> String {
        let lo = match self.ci.0 {
            None => "(−∞".to_string(),
            Some(v) => format!("{}{}", if self.ci_open.0 { "(" } else { "[" }, f(v)),
        };
        let hi = match self.ci.1 {
            None => "+∞)".to_string(),
            Some(v) => format!("{}{}", f(v), if self.ci_open.1 { ")" } else { "]" }),
        };
        format!("{lo}, {hi}")
    }

    /// The interval's confidence level in percent (e.g. 90 for α = 0.05).
    pub fn confidence_pct(&self) -> f64 {
        100.0 * (1.0 - 2.0 * self.alpha)
    }
}

fn evidence(strata: &[&Stratum], design: Design, alpha: f64, b_const: Option<f64>) -> Evidence {
    let k = strata.len() as f64;
    let mean_a = strata.iter().map(|s| mean(&s.a)).sum::<f64>() / k;
    let mean_b = b_const.unwrap_or_else(|| strata.iter().map(|s| mean(&s.b)).sum::<f64>() / k);
    let n = design.d.len();
    let diff = if n % 2 == 1 {
        design.d[n / 2]
    } else {
        (design.d[n / 2 - 1] + design.d[n / 2]) / 2.0
    };
    let (above, below) = design.counts(0.0);
    let (p_greater, p_less) = design.p(0.0);
    let ((lo, lo_open), (hi, hi_open)) = design.interval(alpha);
    let per_cell = strata
        .iter()
        .map(|s| match b_const {
            Some(_) => s.a.len(),
            None => s.a.len().min(s.b.len()),
        })
        .min()
        .unwrap_or(0);
    Evidence {
        test: design.test,
        alpha,
        diff,
        relative: (mean_b != 0.0).then(|| diff / mean_b.abs()),
        ci: (lo, hi),
        ci_open: (lo_open, hi_open),
        n_a: strata.iter().map(|s| s.a.len()).sum(),
        n_b: match b_const {
            Some(_) => 1,
            None => strata.iter().map(|s| s.b.len()).sum(),
        },
        strata: strata.len(),
        per_cell,
        p_greater,
        p_less,
        p_floor: design.floor(None),
        cliffs_delta: (above as f64 - below as f64) / n as f64,
        mean_a,
        mean_b,
        design,
    }
}

/// Compares A's runs with B's, stratum by stratum, with a `1 − 2·alpha`
/// interval. Strata where either side is empty are ignored. None when no
/// stratum is usable.
pub fn compare(strata: &[Stratum], alpha: f64) -> Option<Evidence> {
    let strata: Vec<&Stratum> = strata
        .iter()
        .filter(|s| !s.a.is_empty() && !s.b.is_empty())
        .collect();
    if strata.is_empty() {
        return None;
    }
    let design = Design::two(&strata);
    Some(evidence(&strata, design, alpha, None))
}

/// Compares A's runs (the `a` of each stratum) with the constant `c`.
pub fn compare_const(strata: &[Stratum], c: f64, alpha: f64) -> Option<Evidence> {
    let strata: Vec<&Stratum> = strata.iter().filter(|s| !s.a.is_empty()).collect();
    if strata.is_empty() {
        return None;
    }
    let design = Design::one(&strata, c);
    Some(evidence(&strata, design, alpha, Some(c)))
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

#[cfg(test)]
mod tests;
