//! The figures of metric records (results format version 2): one
//! [`MetricFigures`] per series, so a k6 `Counter`, `Trend`, `Rate` or
//! `Gauge` (or an SQL reconnect count) is reported beside the requests.
//! Like everything in [`crate::Metrics`], they merge exactly: counts and
//! integer sums add, trend histograms add bucket by bucket, a gauge keeps
//! its latest value.

use std::collections::HashMap;
use std::sync::Arc;

use loadlab_core::SeriesKind;

use crate::dist::Distribution;
use crate::record::{MetricRecord, SeriesDef};

/// A trend's values are kept to this resolution in its histogram when they
/// are not durations: 1/1000 of the unit (durations are kept in ns).
const TREND_SCALE: f64 = 1000.0;

/// What one metric series adds up to.
#[derive(Debug, Clone)]
pub enum MetricFigures {
    /// Increments: their count and sum (integers exactly; fractions as
    /// floating-point).
    Counter {
        count: u64,
        int_sum: i128,
        frac_sum: f64,
    },
    /// Values: exact count, sum, min and max, percentiles from a
    /// 3-digit HdrHistogram (of ns for durations, of thousandths otherwise;
    /// values below 0 count as 0 there).
    Trend {
        dist: Distribution,
        sum: f64,
        min: f64,
        max: f64,
    },
    /// Hits (non-zero values) out of all values.
    Rate { hits: u64, total: u64 },
    /// The latest value (by timestamp), and the smallest and largest.
    Gauge {
        last_t: u64,
        last: f64,
        min: f64,
        max: f64,
    },
}

impl MetricFigures {
    fn new(kind: SeriesKind) -> MetricFigures {
        match kind {
            SeriesKind::Counter | SeriesKind::Sample => MetricFigures::Counter {
                count: 0,
                int_sum: 0,
                frac_sum: 0.0,
            },
            SeriesKind::Trend => MetricFigures::Trend {
                dist: Distribution::new(),
                sum: 0.0,
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
            },
            SeriesKind::Rate => MetricFigures::Rate { hits: 0, total: 0 },
            SeriesKind::Gauge => MetricFigures::Gauge {
                last_t: 0,
                last: f64::NAN,
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
            },
        }
    }

    fn add(&mut self, time: bool, t: u64, v: f64) {
        match self {
            MetricFigures::Counter {
                count,
                int_sum,
                frac_sum,
            } => {
                *count += 1;
                if v.trunc() == v && v.abs() < 9.2e18 {
                    *int_sum += v as i64 as i128;
                } else {
                    *frac_sum += v;
                }
            }
            MetricFigures::Trend {
                dist,
                sum,
                min,
                max,
            } => {
                let scaled = if time { v } else { v * TREND_SCALE };
                dist.record(if scaled > 0.0 {
                    scaled.round() as u64
                } else {
                    0
                });
                *sum += v;
                *min = min.min(v);
                *max = max.max(v);
            }
            MetricFigures::Rate { hits, total } => {
                *total += 1;
                *hits += u64::from(v != 0.0 && !v.is_nan());
            }
            MetricFigures::Gauge {
                last_t,
                last,
                min,
                max,
            } => gauge(last_t, last, min, max, t, v, v, v),
        }
    }

    /// Adds `o` (of the same kind) exactly.
    pub fn merge(&mut self, o: &MetricFigures) {
        match (self, o) {
            (
                MetricFigures::Counter {
                    count,
                    int_sum,
                    frac_sum,
                },
                MetricFigures::Counter {
                    count: c,
                    int_sum: i,
                    frac_sum: f,
                },
            ) => {
                *count += c;
                *int_sum += i;
                *frac_sum += f;
            }
            (
                MetricFigures::Trend {
                    dist,
                    sum,
                    min,
                    max,
                },
                MetricFigures::Trend {
                    dist: d,
                    sum: s,
                    min: lo,
                    max: hi,
                },
            ) => {
                dist.merge(d);
                *sum += s;
                *min = min.min(*lo);
                *max = max.max(*hi);
            }
            (MetricFigures::Rate { hits, total }, MetricFigures::Rate { hits: h, total: t }) => {
                *hits += h;
                *total += t;
            }
            (
                MetricFigures::Gauge {
                    last_t,
                    last,
                    min,
                    max,
                },
                MetricFigures::Gauge {
                    last_t: t,
                    last: v,
                    min: lo,
                    max: hi,
                },
            ) => gauge(last_t, last, min, max, *t, *v, *lo, *hi),
            _ => {} // one series, one kind
        }
    }

    /// The counter's total.
    pub fn total(&self) -> f64 {
        match self {
            MetricFigures::Counter {
                int_sum, frac_sum, ..
            } => *int_sum as f64 + frac_sum,
            _ => 0.0,
        }
    }
}

/// A gauge takes value `v` at `t` (its range `lo..=hi`): the latest value
/// wins, and at the same instant the larger one (so the result does not
/// depend on the order of merging).
#[allow(clippy::too_many_arguments)]
fn gauge(
    last_t: &mut u64,
    last: &mut f64,
    min: &mut f64,
    max: &mut f64,
    t: u64,
    v: f64,
    lo: f64,
    hi: f64,
) {
    if v.is_nan() {
        return;
    }
    if last.is_nan() || t > *last_t || (t == *last_t && v > *last) {
        *last_t = t;
        *last = v;
    }
    *min = min.min(lo);
    *max = max.max(hi);
}

/// The figures of every metric series, in order of first appearance.
#[derive(Debug, Clone, Default)]
pub struct MetricSet {
    series: Vec<(Arc<SeriesDef>, MetricFigures)>,
    index: HashMap<Arc<SeriesDef>, usize>,
}

impl MetricSet {
    pub fn is_empty(&self) -> bool {
        self.series.is_empty()
    }

    pub fn add(&mut self, m: &MetricRecord) {
        let i = self.slot(&m.series);
        let time = m.series.time;
        self.series[i].1.add(time, m.abs_t_ns(), m.value);
    }

    fn slot(&mut self, s: &Arc<SeriesDef>) -> usize {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        // The workers of a split run (`worker` tag: `k6 run
        // --execution-segment`, `-tag=worker=…`) each write the same
        // series: their figures merge into one (a `-by=worker` report
        // still splits them, by the records' tags).
        if s.tag(loadlab_core::series::tag::WORKER).is_some() {
            let merged = Arc::new(SeriesDef {
                tags: s
                    .tags
                    .iter()
                    .filter(|(k, _)| &**k != loadlab_core::series::tag::WORKER)
                    .cloned()
                    .collect(),
                ..(**s).clone()
            });
            let i = self.slot(&merged);
            self.index.insert(s.clone(), i);
            return i;
        }
        self.series.push((s.clone(), MetricFigures::new(s.kind)));
        self.index.insert(s.clone(), self.series.len() - 1);
        self.series.len() - 1
    }

    pub fn merge(&mut self, other: &MetricSet) {
        for (s, f) in &other.series {
            let i = self.slot(s);
            self.series[i].1.merge(f);
        }
    }

    /// `(series, figures)` in order of first appearance.
    pub fn series(&self) -> &[(Arc<SeriesDef>, MetricFigures)] {
        &self.series
    }
}

/// A trend's value `v` (ns for durations, thousandths otherwise, as its
/// histogram holds it) in the series' unit.
pub(crate) fn trend_value(time: bool, v: u64) -> f64 {
    if time {
        v as f64
    } else {
        v as f64 / TREND_SCALE
    }
}

/// A trend's quantile `q` (0..=1) in the series' unit (ns for durations).
pub fn trend_quantile(time: bool, dist: &Distribution, q: f64) -> f64 {
    trend_value(time, dist.quantile(q))
}
