//! The run's metrics: k6's built-in and custom metrics, each split into
//! series by tags, aggregated with `loadlab_metrics::Distribution` (trends)
//! or plain counts; thresholds evaluated over them.
//!
//! Trend values are kept in the distribution as millionths of the value
//! (so a time trend in milliseconds is held in nanoseconds, and a custom
//! trend keeps six decimals); negative values count as 0.

use crate::tags::Tags;
use std::collections::HashMap;

use loadlab_core::SeriesKind;
use loadlab_metrics::Distribution;

/// One metric's type (k6's four).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Counter,
    Gauge,
    Rate,
    Trend,
}

impl Kind {
    pub fn series_kind(self) -> SeriesKind {
        match self {
            Kind::Counter => SeriesKind::Counter,
            Kind::Gauge => SeriesKind::Gauge,
            Kind::Rate => SeriesKind::Rate,
            Kind::Trend => SeriesKind::Trend,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::Counter => "counter",
            Kind::Gauge => "gauge",
            Kind::Rate => "rate",
            Kind::Trend => "trend",
        }
    }
}

/// The figures of one series (or of several merged).
#[derive(Debug, Clone)]
pub enum Agg {
    Counter {
        sum: f64,
        n: u64,
    },
    Gauge {
        last: f64,
        min: f64,
        max: f64,
        n: u64,
    },
    Rate {
        hits: u64,
        total: u64,
    },
    Trend(Box<Trend>),
}

/// A trend's distribution, and the values added since it last took them.
///
/// A request adds about ten trend values, each to a distribution of its
/// own whose histogram is rarely still in the CPU's cache: recorded one by
/// one, each cost a few cache misses. Values wait here (one line, written
/// in order) and go into the distribution `PENDING` at a time; every figure
/// read counts them.
#[derive(Debug, Clone)]
pub struct Trend {
    d: Distribution,
    pending: Vec<u64>,
}

const PENDING: usize = 32;

impl Trend {
    fn new() -> Trend {
        Trend {
            d: Distribution::growing().keep_exact(EXACT),
            pending: Vec::new(),
        }
    }

    fn add(&mut self, v: u64) {
        if self.pending.capacity() == 0 {
            self.pending.reserve_exact(PENDING);
        }
        self.pending.push(v);
        if self.pending.len() == PENDING {
            self.settle();
        }
    }

    fn settle(&mut self) {
        for v in self.pending.drain(..) {
            self.d.record(v);
        }
    }

    fn merge(&mut self, o: &Trend) {
        self.settle();
        self.d.merge(&o.d);
        for &v in &o.pending {
            self.d.record(v);
        }
    }

    fn count(&self) -> u64 {
        self.d.count() + self.pending.len() as u64
    }

    /// The distribution of every value added.
    fn whole(&self) -> std::borrow::Cow<'_, Distribution> {
        if self.pending.is_empty() {
            std::borrow::Cow::Borrowed(&self.d)
        } else {
            let mut d = self.d.clone();
            for &v in &self.pending {
                d.record(v);
            }
            std::borrow::Cow::Owned(d)
        }
    }
}

const SCALE: f64 = 1e6;

/// Values a trend series keeps exactly (so `med` and `p(N)` are k6's
/// interpolated figures to the digit on small samples); beyond, they come
/// from the histogram, within its 3 significant digits.
const EXACT: u32 = 1000;

impl Agg {
    pub fn new(kind: Kind) -> Agg {
        match kind {
            Kind::Counter => Agg::Counter { sum: 0.0, n: 0 },
            Kind::Gauge => Agg::Gauge {
                last: 0.0,
                min: f64::INFINITY,
                max: f64::NEG_INFINITY,
                n: 0,
            },
            Kind::Rate => Agg::Rate { hits: 0, total: 0 },
            // Growing: a script makes dozens of trend series.
            Kind::Trend => Agg::Trend(Box::new(Trend::new())),
        }
    }

    pub fn add(&mut self, v: f64) {
        match self {
            Agg::Counter { sum, n } => {
                *sum += v;
                *n += 1;
            }
            Agg::Gauge { last, min, max, n } => {
                *last = v;
                *min = min.min(v);
                *max = max.max(v);
                *n += 1;
            }
            Agg::Rate { hits, total } => {
                *total += 1;
                *hits += u64::from(v != 0.0);
            }
            Agg::Trend(t) => t.add((v.max(0.0) * SCALE).round() as u64),
        }
    }

    pub fn merge(&mut self, o: &Agg) {
        match (self, o) {
            (Agg::Counter { sum, n }, Agg::Counter { sum: s2, n: n2 }) => {
                *sum += s2;
                *n += n2;
            }
            (
                Agg::Gauge { last, min, max, n },
                Agg::Gauge {
                    last: l2,
                    min: mi2,
                    max: ma2,
                    n: n2,
                },
            ) => {
                if *n2 > 0 {
                    *last = *l2;
                }
                *min = min.min(*mi2);
                *max = max.max(*ma2);
                *n += n2;
            }
            (
                Agg::Rate { hits, total },
                Agg::Rate {
                    hits: h2,
                    total: t2,
                },
            ) => {
                *hits += h2;
                *total += t2;
            }
            (Agg::Trend(a), Agg::Trend(b)) => a.merge(b),
            _ => {}
        }
    }

    pub fn count(&self) -> u64 {
        match self {
            Agg::Counter { n, .. } | Agg::Gauge { n, .. } => *n,
            Agg::Rate { total, .. } => *total,
            Agg::Trend(t) => t.count(),
        }
    }

    /// A trend's percentiles (`ps` in 0..=100, in the metric's unit) of
    /// the values added since `earlier`, a copy of it taken before; `None`
    /// when none were, or for another kind of metric.
    pub fn percentiles_since(&self, earlier: &Agg, ps: &[f64]) -> Option<Vec<f64>> {
        let (Agg::Trend(now), Agg::Trend(then)) = (self, earlier) else {
            return None;
        };
        let v = now.whole().percentiles_since(&then.whole(), ps)?;
        Some(v.into_iter().map(|x| x as f64 / SCALE).collect())
    }

    /// A trend statistic (`avg`, `min`, `med`, `max`, `p(N)`, `count`) in
    /// the metric's unit.
    pub fn stat(&self, name: &str) -> Option<f64> {
        let Agg::Trend(t) = self else {
            return None;
        };
        let d = t.whole();
        if d.is_empty() {
            return Some(0.0);
        }
        let v = |x: u64| x as f64 / SCALE;
        // k6's percentiles: linear between the sorted values (see
        // `Distribution::interpolated_percentile`).
        Some(match name {
            "avg" => d.mean() / SCALE,
            "min" => v(d.min()),
            "max" => v(d.max()),
            "med" => d.interpolated_percentile_in(50.0, SCALE),
            "count" => d.count() as f64,
            p => {
                let n: f64 = p
                    .strip_prefix("p(")
                    .and_then(|r| r.strip_suffix(')'))
                    .and_then(|n| n.trim().parse().ok())?;
                d.interpolated_percentile_in(n, SCALE)
            }
        })
    }
}

pub fn check_stat(s: &str) -> Result<(), String> {
    let ok = matches!(s, "avg" | "min" | "med" | "max" | "count")
        || s.strip_prefix("p(")
            .and_then(|r| r.strip_suffix(')'))
            .and_then(|n| n.trim().parse::<f64>().ok())
            .is_some_and(|n| (0.0..=100.0).contains(&n));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{s:?} is not a trend statistic (avg, min, med, max, count, p(N))"
        ))
    }
}

/// A metric known to the run.
#[derive(Debug, Clone)]
pub struct MetricDef {
    pub name: String,
    pub kind: Kind,
    /// Values are milliseconds (shown as durations).
    pub time: bool,
    /// Data sizes in bytes (shown as kB, MB).
    pub data: bool,
    pub builtin: bool,
}

/// One series: a metric with tags, its figures and its id in the results file.
#[derive(Debug)]
pub struct SeriesEntry {
    pub metric: usize,
    pub tags: Tags,
    pub agg: Agg,
    pub file_id: u32,
}

/// Every metric and series of the run.
#[derive(Debug, Default)]
pub struct Registry {
    pub metrics: Vec<MetricDef>,
    by_name: HashMap<String, usize>,
    pub series: Vec<SeriesEntry>,
    by_key: HashMap<(usize, Tags), usize>,
    /// Tag-filtered metrics kept on their own ([`Registry::add_sub`]).
    pub subs: Vec<SubMetric>,
}

/// A metric's values whose tags match `filter`, aggregated as they come:
/// what a threshold (or summary row) on a request tag such as `name` or
/// `url` reads, where the series leave those tags out so that a URL with
/// ids in it does not make a series each.
#[derive(Debug)]
pub struct SubMetric {
    pub metric: usize,
    pub filter: Vec<(String, String)>,
    pub agg: Agg,
}

/// Whether `filter` and `other` hold the same tags (in any order).
fn same_filter(filter: &[(String, String)], other: &[(String, String)]) -> bool {
    filter.len() == other.len() && filter.iter().all(|f| other.contains(f))
}

pub const BUILTINS: &[(&str, Kind, bool, bool)] = &[
    ("checks", Kind::Rate, false, false),
    ("data_received", Kind::Counter, false, true),
    ("data_sent", Kind::Counter, false, true),
    ("dropped_iterations", Kind::Counter, false, false),
    ("group_duration", Kind::Trend, true, false),
    // k6/net/grpc's.
    ("grpc_req_duration", Kind::Trend, true, false),
    ("grpc_streams", Kind::Counter, false, false),
    ("grpc_streams_msgs_received", Kind::Counter, false, false),
    ("grpc_streams_msgs_sent", Kind::Counter, false, false),
    ("http_req_blocked", Kind::Trend, true, false),
    ("http_req_connecting", Kind::Trend, true, false),
    ("http_req_duration", Kind::Trend, true, false),
    ("http_req_failed", Kind::Rate, false, false),
    ("http_req_receiving", Kind::Trend, true, false),
    ("http_req_sending", Kind::Trend, true, false),
    ("http_req_tls_handshaking", Kind::Trend, true, false),
    ("http_req_waiting", Kind::Trend, true, false),
    ("http_reqs", Kind::Counter, false, false),
    ("iteration_duration", Kind::Trend, true, false),
    ("iteration_duration_corrected", Kind::Trend, true, false),
    ("iterations", Kind::Counter, false, false),
    ("vus", Kind::Gauge, false, false),
    ("vus_max", Kind::Gauge, false, false),
    // k6/ws's (shown, like the others, once they have samples).
    ("ws_connecting", Kind::Trend, true, false),
    ("ws_msgs_received", Kind::Counter, false, false),
    ("ws_msgs_sent", Kind::Counter, false, false),
    ("ws_ping", Kind::Trend, true, false),
    ("ws_session_duration", Kind::Trend, true, false),
    ("ws_sessions", Kind::Counter, false, false),
];

impl Registry {
    pub fn new() -> Registry {
        let mut r = Registry::default();
        for (name, kind, time, data) in BUILTINS {
            r.define(name, *kind, *time, true).ok();
            let i = r.by_name[*name];
            r.metrics[i].data = *data;
        }
        r
    }

    /// Declares a metric (again: must be of the same kind).
    pub fn define(
        &mut self,
        name: &str,
        kind: Kind,
        time: bool,
        builtin: bool,
    ) -> Result<usize, String> {
        if let Some(&i) = self.by_name.get(name) {
            let m = &self.metrics[i];
            if m.kind != kind {
                return Err(format!(
                    "metric {name:?} is already a {}, not a {}",
                    m.kind.name(),
                    kind.name()
                ));
            }
            return Ok(i);
        }
        let valid = !name.is_empty()
            && name.len() <= 128
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "invalid metric name {name:?}: use letters, digits and '_' (at most 128)"
            ));
        }
        self.metrics.push(MetricDef {
            name: name.to_string(),
            kind,
            time,
            data: false,
            builtin,
        });
        self.by_name
            .insert(name.to_string(), self.metrics.len() - 1);
        Ok(self.metrics.len() - 1)
    }

    pub fn metric(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// The series of `metric` with `tags` (sorted here); `new_id` gives a
    /// fresh results-file id when the series is new (returned as `true`).
    pub fn series(
        &mut self,
        metric: usize,
        mut tags: Tags,
        new_id: impl FnOnce() -> u32,
    ) -> (usize, bool) {
        tags.sort();
        let key = (metric, tags);
        if let Some(&i) = self.by_key.get(&key) {
            return (i, false);
        }
        let kind = self.metrics[metric].kind;
        self.series.push(SeriesEntry {
            metric,
            tags: key.1.clone(),
            agg: Agg::new(kind),
            file_id: new_id(),
        });
        self.by_key.insert(key, self.series.len() - 1);
        (self.series.len() - 1, true)
    }

    /// Keeps the values of `metric` whose tags match `filter` apart from
    /// now on: [`Registry::merged`] reads them there.
    pub fn add_sub(&mut self, metric: usize, filter: Vec<(String, String)>) {
        if self
            .subs
            .iter()
            .any(|s| s.metric == metric && same_filter(&s.filter, &filter))
        {
            return;
        }
        let agg = Agg::new(self.metrics[metric].kind);
        self.subs.push(SubMetric {
            metric,
            filter,
            agg,
        });
    }

    /// How many series and tag-filtered metrics the run keeps.
    pub fn kept(&self) -> usize {
        self.series.len() + self.subs.len()
    }

    /// The figures of a metric over every value whose tags include
    /// `filter`: its sub-metric's when it has one, else over the series.
    pub fn merged(&self, metric: usize, filter: &[(String, String)]) -> Agg {
        if !filter.is_empty()
            && let Some(sub) = self
                .subs
                .iter()
                .find(|s| s.metric == metric && same_filter(&s.filter, filter))
        {
            return sub.agg.clone();
        }
        let mut agg = Agg::new(self.metrics[metric].kind);
        for s in &self.series {
            if s.metric == metric
                && filter
                    .iter()
                    .all(|(k, v)| s.tags.iter().any(|(a, b)| a == k && b == v))
            {
                agg.merge(&s.agg);
            }
        }
        agg
    }

    /// Metrics that have at least one value.
    pub fn used(&self) -> Vec<usize> {
        let mut seen = vec![false; self.metrics.len()];
        for s in &self.series {
            if s.agg.count() > 0 {
                seen[s.metric] = true;
            }
        }
        (0..self.metrics.len()).filter(|&i| seen[i]).collect()
    }
}

/// A parsed threshold expression: `p(95) < 200`, `rate>=0.99`, `count>10`.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub agg: String,
    pub op: String,
    pub value: f64,
}

pub fn parse_threshold(src: &str) -> Result<Expr, String> {
    let s = src.trim();
    let ops = ["<=", ">=", "===", "==", "!=", "<", ">"];
    let (pos, op) = ops
        .iter()
        .filter_map(|op| s.find(op).map(|p| (p, *op)))
        .min_by_key(|(p, op)| (*p, std::cmp::Reverse(op.len())))
        .ok_or_else(|| format!("{src:?}: expected AGGREGATION OPERATOR VALUE, e.g. p(95)<200"))?;
    let agg = s[..pos].trim().replace(' ', "");
    let value: f64 = s[pos + op.len()..]
        .trim()
        .parse()
        .map_err(|_| format!("{src:?}: {:?} is not a number", s[pos + op.len()..].trim()))?;
    let agg_ok = matches!(
        agg.as_str(),
        "count" | "rate" | "value" | "avg" | "min" | "max" | "med"
    ) || check_stat(&agg).is_ok();
    if !agg_ok {
        return Err(format!("{src:?}: unknown aggregation {agg:?}"));
    }
    Ok(Expr {
        agg,
        op: op.to_string(),
        value,
    })
}

/// Whether aggregation `agg` applies to a metric of `kind` (k6's rules; a
/// gauge's `min` and `max` are loadlab's too); [`threshold_methods`] says
/// the same in words.
pub fn threshold_fits(kind: Kind, agg: &str) -> bool {
    match kind {
        Kind::Counter => matches!(agg, "count" | "rate"),
        Kind::Gauge => matches!(agg, "value" | "min" | "max"),
        Kind::Rate => agg == "rate",
        Kind::Trend => agg != "count" && agg != "rate" && agg != "value",
    }
}

/// The aggregations [`threshold_fits`] lets a metric of `kind` have, for
/// an error message.
pub fn threshold_methods(kind: Kind) -> &'static str {
    match kind {
        Kind::Counter => "count, rate",
        Kind::Gauge => "value, min, max",
        Kind::Rate => "rate",
        Kind::Trend => "avg, min, max, med, p(N)",
    }
}

impl Expr {
    /// The aggregated value and whether it passes.
    pub fn eval(&self, agg: &Agg, elapsed_s: f64) -> Option<(f64, bool)> {
        let v = match (self.agg.as_str(), agg) {
            ("count", Agg::Counter { sum, .. }) => *sum,
            ("rate", Agg::Counter { sum, .. }) => sum / elapsed_s.max(1e-9),
            ("rate", Agg::Rate { hits, total }) => {
                if *total == 0 {
                    0.0
                } else {
                    *hits as f64 / *total as f64
                }
            }
            ("value", Agg::Gauge { last, .. }) => *last,
            ("min", Agg::Gauge { min, .. }) => *min,
            ("max", Agg::Gauge { max, .. }) => *max,
            (s, Agg::Trend(_)) => agg.stat(s)?,
            _ => return None,
        };
        let ok = match self.op.as_str() {
            "<" => v < self.value,
            "<=" => v <= self.value,
            ">" => v > self.value,
            ">=" => v >= self.value,
            "==" | "===" => v == self.value,
            "!=" => v != self.value,
            _ => false,
        };
        Some((v, ok))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trend_figures_count_the_values_still_waiting() {
        // 0..n values added one by one: every figure read at any point
        // counts them all, waiting or recorded, merged or not.
        let stats = ["avg", "min", "med", "max", "p(90)", "p(95)", "count"];
        for n in [0u32, 1, 5, PENDING as u32 - 1, PENDING as u32, 70, 1500] {
            let mut a = Agg::new(Kind::Trend);
            let mut want: Distribution = Distribution::growing().keep_exact(EXACT);
            for i in 0..n {
                let v = f64::from((i * 37) % 1000) / 7.0;
                a.add(v);
                want.record((v * SCALE).round() as u64);
            }
            assert_eq!(a.count(), u64::from(n));
            for st in stats {
                let expect = if n == 0 {
                    0.0
                } else {
                    match st {
                        "avg" => want.mean() / SCALE,
                        "min" => want.min() as f64 / SCALE,
                        "max" => want.max() as f64 / SCALE,
                        "count" => f64::from(n),
                        "med" => want.interpolated_percentile_in(50.0, SCALE),
                        "p(90)" => want.interpolated_percentile_in(90.0, SCALE),
                        _ => want.interpolated_percentile_in(95.0, SCALE),
                    }
                };
                assert_eq!(a.stat(st), Some(expect), "n={n} {st}");
            }
            // Merged into a total that has waiting values of its own.
            let mut total = Agg::new(Kind::Trend);
            for _ in 0..3 {
                total.add(2.5);
            }
            total.merge(&a);
            assert_eq!(total.count(), u64::from(n) + 3);
            want.record((2.5 * SCALE) as u64);
            want.record((2.5 * SCALE) as u64);
            want.record((2.5 * SCALE) as u64);
            assert_eq!(total.stat("max"), Some(want.max() as f64 / SCALE), "n={n}");
            assert_eq!(
                total.stat("p(95)"),
                Some(want.interpolated_percentile_in(95.0, SCALE)),
                "n={n}"
            );
        }
    }

    #[test]
    fn thresholds_parse_and_eval() {
        let e = parse_threshold("rate >= 0.9999").unwrap();
        assert_eq!(e.op, ">=");
        let mut a = Agg::new(Kind::Rate);
        a.add(1.0);
        a.add(1.0);
        assert_eq!(e.eval(&a, 1.0), Some((1.0, true)));
        a.add(0.0);
        assert!(!e.eval(&a, 1.0).unwrap().1);
        let p = parse_threshold("p(95)<200").unwrap();
        assert_eq!(p.agg, "p(95)");
        let mut t = Agg::new(Kind::Trend);
        for i in 0..100 {
            t.add(f64::from(i));
        }
        assert!(p.eval(&t, 1.0).unwrap().1);
        assert!(parse_threshold("p95 < 1").is_err());
        assert!(parse_threshold("count >= x").is_err());
    }
}
