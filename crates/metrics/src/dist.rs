//! [`Distribution`]: the one latency (or any value) distribution of loadlab:
//! an HdrHistogram plus the exact count, sum, sum of squares, min and max.
//! Every report uses it — vegeta's text and JSON, the ab and wrk layouts,
//! the study's runs, the live progress line — and distributions from many
//! files or workers merge exactly: their histograms and sums add, so no
//! percentile is ever averaged.
//!
//! The unit is part of the type ([`Nanos`], the default, or [`Micros`] for
//! the ab and wrk faces, whose histogram shape wrk2 prints), so values of
//! different units cannot be mixed by mistake.

use std::fmt;
use std::marker::PhantomData;

use hdrhistogram::Histogram;

/// A distribution's unit and trackable range.
pub trait Unit: Clone + Send + Sync + 'static {
    /// Highest value the histogram tracks; larger values are counted at it
    /// (their exact max, sum and count are still kept).
    const HIGHEST: u64;
}

/// Nanoseconds, 1 ns to 24 h.
#[derive(Debug, Clone, Copy, Default)]
pub struct Nanos;
impl Unit for Nanos {
    const HIGHEST: u64 = 24 * 3_600_000_000_000;
}

/// Microseconds, 1 µs to one day: wrk2's bounds, which give its footer's
/// shape (27 buckets of 2048 sub-buckets).
#[derive(Debug, Clone, Copy, Default)]
pub struct Micros;
impl Unit for Micros {
    const HIGHEST: u64 = 86_400_000_000;
}

/// Significant digits of every distribution unless asked otherwise.
pub const SIGFIG: u8 = 3;

/// One distribution of values in unit `U`.
#[derive(Clone)]
pub struct Distribution<U: Unit = Nanos> {
    hist: Histogram<u64>,
    count: u64,
    sum: u128,
    sum_sq: u128,
    min: u64,
    max: u64,
    /// The values themselves, in the order recorded, while there are at most
    /// `exact_cap` of them (0: none kept); see [`Distribution::keep_exact`].
    exact: Vec<u64>,
    exact_cap: u32,
    unit: PhantomData<U>,
}

impl<U: Unit> fmt::Debug for Distribution<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Distribution")
            .field("count", &self.count)
            .field("min", &self.min())
            .field("max", &self.max)
            .field("sum", &self.sum)
            .finish()
    }
}

impl<U: Unit> Default for Distribution<U> {
    fn default() -> Self {
        Self::new()
    }
}

impl<U: Unit> Distribution<U> {
    /// 3 significant digits, the unit's range.
    pub fn new() -> Self {
        Self::with_sigfig(SIGFIG)
    }

    /// `sigfig` (1–5) significant digits (2 for the small per-interval
    /// histograms of a time series).
    pub fn with_sigfig(sigfig: u8) -> Self {
        Distribution {
            hist: Histogram::new_with_bounds(1, U::HIGHEST, sigfig.clamp(1, 5))
                .expect("static histogram bounds are valid"),
            count: 0,
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
            exact: Vec::new(),
            exact_cap: 0,
            unit: PhantomData,
        }
    }

    /// Also keeps the values themselves while there are at most `cap` of
    /// them (merges included), so [`Distribution::interpolated_percentile`]
    /// is exact for small samples. Off by default: attacks record millions.
    pub fn keep_exact(mut self, cap: u32) -> Self {
        self.exact_cap = cap;
        self
    }

    /// True when every value recorded is kept in `exact`.
    fn exact_complete(&self) -> bool {
        self.exact.len() as u64 == self.count
    }

    /// Like [`new`](Self::new) (the same buckets, so the same figures), but
    /// the histogram covers only the values seen so far and grows as larger
    /// ones arrive (up to the unit's highest). A histogram of the whole
    /// range is ~300 KiB of counters, all resident from the start (they are
    /// written as zeros): fine for a report's few distributions, a lot for
    /// the dozens a k6 script's tagged series make, most of which only ever
    /// hold small values (or none).
    pub fn growing() -> Self {
        let mut hist =
            Histogram::new_with_bounds(1, 2, SIGFIG).expect("static histogram bounds are valid");
        hist.auto(true);
        Distribution {
            hist,
            count: 0,
            sum: 0,
            sum_sq: 0,
            min: u64::MAX,
            max: 0,
            exact: Vec::new(),
            exact_cap: 0,
            unit: PhantomData,
        }
    }

    /// Adds one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        // Larger values count at the highest (a growing histogram grows
        // to it, a fixed one already covers it).
        let h = v.min(U::HIGHEST);
        if self.hist.record(h).is_err() {
            self.hist.saturating_record(h);
        }
        self.count += 1;
        self.sum += u128::from(v);
        self.sum_sq += u128::from(v) * u128::from(v);
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        if self.exact_cap != 0 {
            self.keep(v);
        }
    }

    fn keep(&mut self, v: u64) {
        // `count` already counts `v`.
        if self.exact.len() as u64 + 1 == self.count && self.count <= u64::from(self.exact_cap) {
            self.exact.push(v);
        } else if !self.exact.is_empty() {
            self.exact = Vec::new();
        }
    }

    /// Adds everything `other` holds: exact (counts, sums, min and max add
    /// up; the histograms add bucket by bucket).
    pub fn merge(&mut self, other: &Distribution<U>) {
        // Same unit, so every value of `other` fits; a different precision
        // is re-recorded value by value by the histogram itself.
        let _ = self.hist.add(&other.hist);
        if self.exact_cap != 0 {
            if self.exact_complete()
                && other.exact_complete()
                && self.count + other.count <= u64::from(self.exact_cap)
            {
                self.exact.extend_from_slice(&other.exact);
            } else if !self.exact.is_empty() {
                self.exact = Vec::new();
            }
        }
        self.count += other.count;
        self.sum += other.sum;
        self.sum_sq += other.sum_sq;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    pub fn count(&self) -> u64 {
        self.count
    }
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
    /// Exact sum of the values.
    pub fn sum(&self) -> u128 {
        self.sum
    }
    /// Exact smallest value (0 when empty).
    pub fn min(&self) -> u64 {
        if self.count == 0 { 0 } else { self.min }
    }
    /// Exact largest value (0 when empty).
    pub fn max(&self) -> u64 {
        self.max
    }
    /// Exact arithmetic mean (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }
    /// Sample standard deviation (divides by n − 1, as ab does), from the
    /// exact sums.
    pub fn sample_stdev(&self) -> f64 {
        if self.count < 2 {
            return 0.0;
        }
        let n = self.count as f64;
        let (s, sq) = (self.sum as f64, self.sum_sq as f64);
        ((sq - s * s / n) / (n - 1.0)).max(0.0).sqrt()
    }

    /// Value at quantile `q` (0..=1): the highest value equivalent to its
    /// bucket (so within 10^-sigfig), clamped to the exact min and max. 0 when
    /// empty. What vegeta-style reports print.
    pub fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        self.hist.value_at_quantile(q).clamp(self.min, self.max)
    }

    /// The histogram's own value at percentile `p` (0..=100), not clamped
    /// to the exact min and max, as HdrHistogram (and so wrk2, and ab's
    /// layout here) reports it. 0 when empty.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.hist.value_at_percentile(p)
        }
    }

    /// k6's percentile (its `TrendSink.P`): the values sorted, rank
    /// `i = p/100 × (count − 1)`, and the value linearly interpolated
    /// between the `⌊i⌋`-th and the `⌈i⌉`-th (0-based), so `p(50)` of
    /// `1, 2, 3, 4` is 2.5 and `p(90)` of `1…10` is 9.1. Exact while the
    /// values are kept ([`Distribution::keep_exact`]); beyond, the two
    /// ranked values come from the histogram (within 10^-sigfig, clamped to
    /// the exact min and max). 0 when empty; the one value when there is one.
    pub fn interpolated_percentile(&self, p: f64) -> f64 {
        self.interpolated_percentile_in(p, 1.0)
    }

    /// [`Distribution::interpolated_percentile`] in units of `unit` recorded
    /// values (a trend held in millionths asks with `unit` 1e6): the two
    /// values are divided before they are interpolated, so the result is
    /// the very float k6 figures from the same values.
    pub fn interpolated_percentile_in(&self, p: f64, unit: f64) -> f64 {
        match self.count {
            0 => return 0.0,
            1 => return self.max as f64 / unit,
            _ => {}
        }
        let rank = (p.clamp(0.0, 100.0) / 100.0) * (self.count - 1) as f64;
        let (lo, hi) = (rank.floor() as u64, rank.ceil() as u64);
        let (a, b) = if self.exact_complete() {
            let mut sorted = self.exact.clone();
            sorted.sort_unstable();
            (sorted[lo as usize], sorted[hi as usize])
        } else {
            (self.value_at_rank(lo), self.value_at_rank(hi))
        };
        let (a, b) = (a as f64 / unit, b as f64 / unit);
        a + (b - a) * (rank - rank.floor())
    }

    /// The `k`-th smallest value (0-based) as the histogram knows it.
    fn value_at_rank(&self, k: u64) -> u64 {
        if k == 0 {
            return self.min();
        }
        if k + 1 >= self.count {
            return self.max;
        }
        let mut seen = 0u64;
        for v in self.hist.iter_recorded() {
            seen += v.count_at_value();
            if seen > k {
                return self
                    .hist
                    .highest_equivalent(v.value_iterated_to())
                    .clamp(self.min, self.max);
            }
        }
        self.max
    }

    /// Percentiles (`ps` in 0..=100) of the values recorded since
    /// `earlier`, a copy of this distribution taken before: from the
    /// difference of the histograms, so within their precision. `None`
    /// when nothing was recorded since, or `earlier` is no past copy.
    pub fn percentiles_since(&self, earlier: &Distribution<U>, ps: &[f64]) -> Option<Vec<u64>> {
        let mut h = self.hist.clone();
        h.subtract(&earlier.hist).ok()?;
        if h.is_empty() {
            return None;
        }
        Some(ps.iter().map(|p| h.value_at_quantile(p / 100.0)).collect())
    }

    /// The underlying histogram (for plots, spectra and exports).
    pub fn histogram(&self) -> &Histogram<u64> {
        &self.hist
    }

    /// The histogram alone (what the study stores).
    pub fn into_histogram(self) -> Histogram<u64> {
        self.hist
    }

    /// vegeta's latency block: total, mean, 50th, 90th, 95th, 99th, max, min.
    pub fn summary(&self) -> LatencySummary {
        if self.count == 0 {
            return LatencySummary::default();
        }
        LatencySummary {
            total: u64::try_from(self.sum).unwrap_or(u64::MAX),
            // vegeta: time.Duration(float64(total) / float64(requests)).
            mean: (self.sum as f64 / self.count as f64) as u64,
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p95: self.quantile(0.95),
            p99: self.quantile(0.99),
            max: self.max,
            min: self.min,
        }
    }
}

/// vegeta's latency block, in ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LatencySummary {
    pub total: u64,
    pub mean: u64,
    pub p50: u64,
    pub p90: u64,
    pub p95: u64,
    pub p99: u64,
    pub max: u64,
    pub min: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_moments_and_clamped_quantiles() {
        let mut d = Distribution::<Micros>::new();
        for v in [1000, 2000, 3000, 4000] {
            d.record(v);
        }
        assert_eq!((d.count(), d.min(), d.max()), (4, 1000, 4000));
        assert!((d.mean() - 2500.0).abs() < 1e-9);
        assert!((d.sample_stdev() - 1290.994).abs() < 1e-3);
        // 4000 falls in a bucket 2 wide: the histogram says 4001, the
        // clamped quantile the exact max.
        assert_eq!(d.percentile(100.0), 4001);
        assert_eq!(d.quantile(1.0), 4000);
        let e = Distribution::<Nanos>::new();
        assert_eq!(
            (e.min(), e.max(), e.quantile(0.5), e.percentile(50.0)),
            (0, 0, 0, 0)
        );
    }

    #[test]
    fn merging_is_exact() {
        let mut whole = Distribution::<Nanos>::new();
        let mut parts = [
            Distribution::<Nanos>::new(),
            Distribution::new(),
            Distribution::new(),
        ];
        for i in 0..10_000u64 {
            let v = 1 + (i * 7919) % 3_000_000;
            whole.record(v);
            parts[(i % 3) as usize].record(v);
        }
        let mut merged = Distribution::<Nanos>::new();
        for p in &parts {
            merged.merge(p);
        }
        assert_eq!(merged.summary(), whole.summary());
        assert_eq!(merged.sample_stdev(), whole.sample_stdev());
        assert_eq!(merged.histogram(), whole.histogram());
        // A coarser histogram merges into a finer one value by value.
        let mut coarse = Distribution::<Nanos>::with_sigfig(2);
        coarse.record(1_234_567);
        merged.merge(&coarse);
        assert_eq!(merged.count(), 10_001);
    }

    #[test]
    fn interpolated_percentile_is_k6s() {
        // k6's TrendSink.P on 1..=10: rank p·(n−1), linear between neighbours.
        let mut d = Distribution::<Nanos>::new().keep_exact(100);
        for v in [7u64, 1, 10, 3, 2, 9, 4, 8, 6, 5] {
            d.record(v * 1_000_003);
        }
        let at = |d: &Distribution, p: f64| d.interpolated_percentile(p) / 1_000_003.0;
        assert!((at(&d, 90.0) - 9.1).abs() < 1e-9, "{}", at(&d, 90.0));
        assert!((at(&d, 95.0) - 9.55).abs() < 1e-9);
        assert!((at(&d, 50.0) - 5.5).abs() < 1e-9);
        assert_eq!(at(&d, 0.0), 1.0);
        assert_eq!(at(&d, 100.0), 10.0);
        // Merged halves are still exact; past the cap the histogram answers
        // within its precision.
        let (mut a, mut b) = (
            Distribution::<Nanos>::new().keep_exact(100),
            Distribution::<Nanos>::new().keep_exact(100),
        );
        for v in 1..=10u64 {
            if v % 2 == 0 {
                a.record(v * 1_000_003)
            } else {
                b.record(v * 1_000_003)
            }
        }
        a.merge(&b);
        assert!((at(&a, 90.0) - 9.1).abs() < 1e-9);
        let mut big = Distribution::<Nanos>::new().keep_exact(5);
        for v in 1..=10u64 {
            big.record(v * 1_000_003);
        }
        assert!((at(&big, 90.0) - 9.1).abs() < 0.01, "{}", at(&big, 90.0));
        let mut one = Distribution::<Nanos>::new();
        one.record(42);
        assert_eq!(one.interpolated_percentile(95.0), 42.0);
        assert_eq!(
            Distribution::<Nanos>::new().interpolated_percentile(95.0),
            0.0
        );
    }

    #[test]
    fn a_growing_distribution_has_the_same_figures_in_less_memory() {
        let mut fixed = Distribution::<Nanos>::new();
        let mut growing = Distribution::<Nanos>::growing();
        // Small values only: a few buckets, not the 24 h range.
        for i in 0..10_000u64 {
            let v = 1 + (i * 7919) % 3_000_000;
            fixed.record(v);
            growing.record(v);
        }
        assert_eq!(growing.summary(), fixed.summary());
        assert!(
            growing.histogram().distinct_values() * 2 < fixed.histogram().distinct_values(),
            "{} counters, against {}",
            growing.histogram().distinct_values(),
            fixed.histogram().distinct_values()
        );
        // Larger values grow it (up to the unit's highest, where the
        // fixed one saturates), and merges grow the one merged into.
        for v in [5_000_000_000u64, Nanos::HIGHEST * 2] {
            fixed.record(v);
            growing.record(v);
        }
        for q in [0.5, 0.9, 0.99, 0.9999, 1.0] {
            assert_eq!(growing.quantile(q), fixed.quantile(q), "q {q}");
        }
        assert_eq!(growing.percentile(100.0), fixed.percentile(100.0));
        let mut into = Distribution::<Nanos>::growing();
        into.record(3);
        into.merge(&growing);
        assert_eq!(into.count(), growing.count() + 1);
        assert_eq!(into.quantile(0.999), growing.quantile(0.999));
        let mut into_fixed = Distribution::<Nanos>::new();
        into_fixed.merge(&growing);
        assert_eq!(into_fixed.summary(), growing.summary());
    }
}
