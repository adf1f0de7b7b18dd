//! Latency distributions in microseconds: loadlab's one [`Distribution`]
//! (an HdrHistogram at 3 significant digits, as every loadlab report uses,
//! plus exact running sums), in microseconds, so a face prints exact
//! min/mean/max/standard deviation beside histogram percentiles; and the
//! wrk2 views of its histogram (shape, percentile spectrum).

use hdrhistogram::Histogram;
use loadlab_metrics::dist::{Distribution, Micros, Unit};

/// Highest trackable value: one day in microseconds, wrk2's bound, which makes
/// the histogram's shape (27 buckets of 2048 sub-buckets) match wrk2's footer.
pub const MAX_US: u64 = Micros::HIGHEST;
/// Significant digits kept by every histogram.
pub const SIGFIG: u8 = loadlab_metrics::dist::SIGFIG;

/// One distribution of microsecond values.
pub type Dist = Distribution<Micros>;

/// The histogram's shape as HdrHistogram's C library reports it
/// (`#[Buckets = 27, SubBuckets = 2048]` in wrk2's footer).
pub fn shape(h: &Histogram<u64>) -> (u32, u32) {
    let sub = 2u32.pow((2.0 * 10f64.powi(h.sigfig() as i32)).log2().ceil() as u32);
    (h.buckets() as u32, sub)
}

/// One line of a percentile spectrum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpectrumLine {
    /// Highest value equivalent to the bucket the percentile fell in.
    pub value: u64,
    /// The percentile level, 0–100.
    pub percentile: f64,
    /// Values at or below `value`.
    pub total_count: u64,
}

/// HdrHistogram's percentile spectrum with `ticks` reporting steps per halving
/// of the distance to 100%: the rows of wrk2's "Detailed Percentile spectrum".
/// The last row is always 100%.
pub fn spectrum(h: &Histogram<u64>, ticks: u32) -> Vec<SpectrumLine> {
    let total = h.len();
    let mut out = Vec::new();
    if total == 0 {
        return out;
    }
    let buckets: Vec<(u64, u64)> = h
        .iter_recorded()
        .map(|v| {
            (
                h.highest_equivalent(v.value_iterated_to()),
                v.count_at_value(),
            )
        })
        .collect();
    let mut level = 0.0f64;
    let mut i = 0usize;
    let mut cum = buckets[0].1;
    // A port of the C library's percentile iteration: each step emits at most
    // one row; a step that starts with every value already counted stops, so
    // the final bucket yields exactly one row before the closing 100% row.
    let mut first = true;
    'rows: while first || cum < total {
        first = false;
        loop {
            let current = 100.0 * cum as f64 / total as f64;
            if level <= current {
                out.push(SpectrumLine {
                    value: buckets[i].0,
                    percentile: level,
                    total_count: cum,
                });
                let half = 2f64.powi(((100.0 / (100.0 - level)).log2() as i64 + 1) as i32);
                level += 100.0 / (ticks as f64 * half);
                continue 'rows;
            }
            i += 1;
            if i >= buckets.len() {
                break 'rows;
            }
            cum += buckets[i].1;
        }
    }
    let last = buckets.last().map(|b| b.0).unwrap_or(0);
    out.push(SpectrumLine {
        value: last,
        percentile: 100.0,
        total_count: total,
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_moments() {
        let mut d = Dist::new();
        for v in [1000, 2000, 3000, 4000] {
            d.record(v);
        }
        assert_eq!(d.count(), 4);
        assert_eq!(d.min(), 1000);
        assert_eq!(d.max(), 4000);
        assert!((d.mean() - 2500.0).abs() < 1e-9);
        assert!((d.sample_stdev() - 1290.994).abs() < 1e-3);
        assert_eq!(shape(d.histogram()), (27, 2048));
    }

    #[test]
    fn spectrum_rows_follow_half_distances() {
        let mut d = Dist::new();
        for v in 1..=1000u64 {
            d.record(v);
        }
        let s = spectrum(d.histogram(), 5);
        // 0%, then 10%-steps to 50%, 5%-steps to 75%, 2.5%-steps to 87.5%...
        let levels: Vec<f64> = s.iter().take(8).map(|l| l.percentile).collect();
        assert_eq!(levels, [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 55.0, 60.0]);
        assert_eq!(s[0].value, 1);
        assert_eq!(s[0].total_count, 1);
        assert_eq!(s[5].total_count, 500);
        let last = s.last().unwrap();
        assert_eq!(last.percentile, 100.0);
        assert_eq!(last.total_count, 1000);
        assert_eq!(last.value, 1000);
        // The row before 100% is the single row emitted in the final bucket.
        let before = &s[s.len() - 2];
        assert_eq!(before.total_count, 1000);
        assert!(before.percentile < 100.0);
        assert!(s.windows(2).all(|w| w[0].percentile <= w[1].percentile));
    }

    #[test]
    fn spectrum_of_one_value() {
        let mut d = Dist::new();
        d.record(42);
        let s = spectrum(d.histogram(), 5);
        assert_eq!(s.len(), 2);
        assert_eq!((s[0].percentile, s[0].total_count), (0.0, 1));
        assert_eq!((s[1].percentile, s[1].total_count), (100.0, 1));
        assert!(spectrum(Dist::new().histogram(), 5).is_empty());
    }
}
