//! The study's sink: turns the sample stream of one run into loadlab-metrics'
//! figures (HdrHistograms, counters), a time series and the stored summary,
//! without keeping samples.
//!
//! Samples whose *intended* send time falls inside the warm-up are counted
//! separately and excluded from every statistic (they still appear, marked,
//! in the time series so the report can show them).

use std::collections::BTreeMap;

use hdrhistogram::Histogram;
use std::sync::Arc;

use loadlab_core::{AttackInfo, ErrorKind, MetricSample, Sample, SeriesInfo, Sink, TargetInfo};
use loadlab_metrics::figures::{MetricFigures, MetricSet};
use loadlab_metrics::{Distribution, MetricRecord, Metrics, SeriesDef};

mod summary;
pub use summary::{
    BEHIND_LAG_P99_NS, BEHIND_NOTE, GroupNote, MetricRow, Queries, RunPart, RunSummary,
    SeriesPoint, ThresholdVerdict, unreachable_words,
};

/// Everything one run produced.
#[derive(Debug, Clone)]
pub struct RunData {
    pub summary: RunSummary,
    /// Corrected latency (from the intended send time), measured part only.
    pub latency: Histogram<u64>,
    /// Uncorrected service time.
    pub service: Histogram<u64>,
    pub series: Vec<SeriesPoint>,
}

/// One interval of the latency-over-time series.
struct Interval {
    count: u64,
    ok: u64,
    latency: Distribution,
    warmup: bool,
}

/// Accumulates one run: the sink handed to the engine, filled on its sink
/// thread and handed back when the run ends. The figures come from loadlab-metrics ([`Metrics`] for the
/// measured part, a [`Distribution`] per interval of the time series), so a
/// run's figures are the ones `loadlab report` prints for its samples.
pub struct Collector {
    warmup_ns: u64,
    bucket_ns: u64,
    offered_rate: u64,
    targets: Vec<TargetInfo>,
    /// The measured part (warm-up excluded).
    measured: Metrics,
    intervals: Vec<Interval>,
    /// Failures by (status, error kind, target): the study's error texts
    /// are made once per key, in `finish`.
    errors: BTreeMap<(u16, u8, u32), u64>,
    warmup_requests: u64,
    /// Metric series by id, as the sink was told of them.
    metric_series: std::collections::HashMap<u32, Arc<SeriesDef>>,
    /// Latest metric timestamp seen (ns from the start), for per-second figures
    /// of runs without requests.
    last_metric_ns: u64,
    /// What the engine said of the attack before its first sample.
    info: Option<AttackInfo>,
    /// Keep a [`RunPart`] (a split study's worker run).
    part: bool,
    /// Measured requests that failed to connect.
    connect_errors: u64,
    /// A database test's sample series: its transactions' (`sql_tx`,
    /// the run's samples) and its statements' (`sql_stmt`, counted as
    /// queries beside them).
    database: bool,
    statement_series: std::collections::HashSet<u32>,
    queries: u64,
}

impl Collector {
    pub fn new(offered_rate: u64, warmup_ns: u64, bucket_ns: u64) -> Collector {
        Collector {
            warmup_ns,
            bucket_ns: bucket_ns.max(1),
            offered_rate,
            targets: Vec::new(),
            measured: Metrics::new(),
            intervals: Vec::new(),
            errors: BTreeMap::new(),
            warmup_requests: 0,
            metric_series: std::collections::HashMap::new(),
            last_metric_ns: 0,
            info: None,
            part: false,
            connect_errors: 0,
            database: false,
            statement_series: std::collections::HashSet::new(),
            queries: 0,
        }
    }

    /// Makes [`finish`](Self::finish) keep the run's [`RunPart`] (a worker
    /// of a split study).
    pub fn keep_part(mut self) -> Collector {
        self.part = true;
        self
    }

    pub fn record(&mut self, s: &Sample) {
        // A database test's statements are counted, not measured: the
        // run's unit is the transaction.
        if self.statement_series.contains(&s.target) {
            if s.intended_ns >= self.warmup_ns {
                self.queries += 1;
            }
            return;
        }
        let lat = s.latency_ns();
        let b = (s.intended_ns / self.bucket_ns) as usize;
        if b >= self.intervals.len() && b < 100_000 {
            self.intervals.resize_with(b + 1, || Interval {
                count: 0,
                ok: 0,
                latency: Distribution::with_sigfig(2),
                warmup: false,
            });
        }
        let warm = s.intended_ns < self.warmup_ns;
        if let Some(i) = self.intervals.get_mut(b) {
            i.count += 1;
            i.ok += u64::from(s.is_success());
            i.latency.record(lat);
            i.warmup |= warm;
        }
        if warm {
            self.warmup_requests += 1;
            return;
        }
        self.measured.add_sample(0, s);
        if matches!(
            s.error,
            ErrorKind::ConnectRefused | ErrorKind::ConnectTimeout | ErrorKind::Dns
        ) {
            self.connect_errors += 1;
        }
        if !s.is_success() {
            // A compact key per failure; the text is built once, in `finish`
            // (no allocation per failed request).
            *self
                .errors
                .entry((s.status, s.error as u8, s.target))
                .or_default() += 1;
        }
    }

    pub fn finish(self) -> RunData {
        let m = &self.measured;
        let v = m.summary();
        let lat = m.latency();
        let mut status_codes = BTreeMap::new();
        for (code, n) in &v.status_codes {
            if let Ok(c) = code.parse::<u16>() {
                status_codes.insert(c, *n);
            }
        }
        let summary = RunSummary {
            offered_rate: self.offered_rate,
            requests: v.requests,
            rate: v.rate,
            throughput: v.throughput,
            duration_ns: v.duration_ns + v.wait_ns,
            attack_ns: v.duration_ns,
            wait_ns: v.wait_ns,
            min_ns: v.latencies.min,
            mean_ns: lat.mean(),
            p50_ns: v.latencies.p50,
            p90_ns: v.latencies.p90,
            p95_ns: v.latencies.p95,
            p99_ns: v.latencies.p99,
            max_ns: v.latencies.max,
            bytes_in: v.bytes_in.total,
            bytes_out: v.bytes_out.total,
            success: v.success,
            status_codes,
            errors: error_texts(&self.errors, &self.targets),
            warmup_requests: self.warmup_requests,
            service_p99_ns: v.uncorrected.p99,
            send_lag_p99_ns: v.send_lag.p99,
            cpu_mean: None,
            cpu_max: None,
            rss_max: None,
            unsent: 0,
            late: v.late,
            metrics: Vec::new(),
            part: None,
            workers: None,
            replay: Vec::new(),
            thresholds: Vec::new(),
            connect_errors: self.connect_errors,
            queries: None,
            group: None,
        };
        let span_ns = if v.requests > 0 {
            v.duration_ns + v.wait_ns
        } else {
            self.last_metric_ns.saturating_sub(self.warmup_ns)
        };
        let mut summary = summary;
        if self.database {
            let secs = span_ns as f64 / 1e9;
            summary.queries = Some(Queries {
                count: self.queries,
                per_second: if secs > 0.0 {
                    self.queries as f64 / secs
                } else {
                    0.0
                },
            });
        }
        summary.metrics = metric_rows(m.metric_figures(), span_ns);
        let bucket_ns = self.bucket_ns;
        let series = self
            .intervals
            .into_iter()
            .enumerate()
            .filter(|(_, i)| i.count > 0)
            .map(|(k, i)| SeriesPoint {
                t: (k as u64 * bucket_ns) as f64 / 1e9,
                count: i.count,
                ok: i.ok,
                p50_ns: i.latency.percentile(50.0),
                p99_ns: i.latency.percentile(99.0),
                max_ns: i.latency.max(),
                warmup: i.warmup,
            })
            .collect();
        let Collector { measured, .. } = self;
        if self.part {
            let w = self.info.as_ref().and_then(|i| i.worker.as_ref());
            let start = self.info.as_ref().map_or(0, |i| i.start_unix_ns);
            let mut lag = Vec::new();
            use hdrhistogram::serialization::Serializer as _;
            let _ = hdrhistogram::serialization::V2Serializer::new()
                .serialize(measured.send_lag().histogram(), &mut lag);
            use base64::Engine as _;
            summary.part = Some(RunPart {
                segment: w.map_or(0, |w| w.index),
                segments: w.map_or(1, |w| w.count),
                slot_unix_ns: w.map_or(start, |w| w.start_at_unix_ns),
                start_unix_ns: start,
                began_unix_ns: w.map_or(start, |w| w.began_unix_ns),
                scheduled_total: w.and_then(|w| w.scheduled_total),
                successes: (v.success * v.requests as f64).round() as u64,
                earliest_ns: v.earliest_unix_ns,
                latest_ns: v.latest_unix_ns,
                end_ns: v.end_unix_ns,
                latency_sum_ns: measured.latency().sum(),
                service_min_ns: measured.service().min(),
                service_max_ns: measured.service().max(),
                lag_min_ns: measured.send_lag().min(),
                lag_max_ns: measured.send_lag().max(),
                lag_hdr: base64::engine::general_purpose::STANDARD.encode(lag),
            });
        }
        RunData {
            summary,
            latency: measured.latency().clone().into_histogram(),
            service: measured.service().clone().into_histogram(),
            series,
        }
    }
}

/// The figures of each metric series, per second over `span_ns`.
/// Series of one metric (its tags aside: k6's group, scenario, check name)
/// are added together, as the top line of k6's summary does.
fn metric_rows(set: &MetricSet, span_ns: u64) -> Vec<MetricRow> {
    let secs = span_ns as f64 / 1e9;
    let mut merged: Vec<(Arc<SeriesDef>, MetricFigures)> = Vec::new();
    for (s, f) in set.series() {
        match merged
            .iter_mut()
            .find(|(m, _)| m.name == s.name && m.kind == s.kind && m.time == s.time)
        {
            Some((_, acc)) => acc.merge(f),
            None => {
                let bare = SeriesDef {
                    tags: Vec::new(),
                    ..(**s).clone()
                };
                merged.push((Arc::new(bare), f.clone()));
            }
        }
    }
    merged
        .iter()
        .map(|(s, f)| {
            // Time trends are kept in ns: shown in ms, as k6 shows them.
            let unit = if s.time { 1e-6 } else { 1.0 };
            let mut row = MetricRow {
                label: s.label(),
                ..MetricRow::default()
            };
            match f {
                MetricFigures::Counter { count, .. } => {
                    row.kind = "counter".into();
                    row.count = *count;
                    row.value = f.total();
                    row.per_second = if secs > 0.0 { f.total() / secs } else { 0.0 };
                }
                MetricFigures::Trend { dist, sum, max, .. } => {
                    let q =
                        |p: f64| loadlab_metrics::figures::trend_quantile(s.time, dist, p) * unit;
                    row.kind = "trend".into();
                    row.count = dist.count();
                    row.value = if dist.count() > 0 {
                        sum / dist.count() as f64 * unit
                    } else {
                        0.0
                    };
                    row.p50 = q(0.50);
                    row.p90 = q(0.90);
                    row.p95 = q(0.95);
                    row.p99 = q(0.99);
                    row.max = max * unit;
                }
                MetricFigures::Rate { hits, total } => {
                    row.kind = "rate".into();
                    row.count = *total;
                    row.value = if *total > 0 {
                        *hits as f64 / *total as f64
                    } else {
                        0.0
                    };
                }
                MetricFigures::Gauge { last, max, .. } => {
                    row.kind = "gauge".into();
                    row.value = *last;
                    row.max = *max;
                }
            }
            row
        })
        .collect()
}

/// vegeta's error-set texts: `METHOD URL: reason` for transport failures,
/// `500 Internal Server Error` for failing statuses.
fn error_texts(
    errors: &BTreeMap<(u16, u8, u32), u64>,
    targets: &[TargetInfo],
) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (&(status, kind, target), &n) in errors {
        let kind = ErrorKind::from_u8(kind).unwrap_or(ErrorKind::Io);
        let msg = if kind != ErrorKind::None {
            match targets.get(target as usize) {
                Some(t) => format!("{} {}: {}", t.method, t.url, kind.message()),
                None => kind.message().to_string(),
            }
        } else {
            let reason = http::StatusCode::from_u16(status)
                .ok()
                .and_then(|c| c.canonical_reason());
            format!("{status} {}", reason.unwrap_or(""))
        };
        *out.entry(msg).or_insert(0) += n;
    }
    out
}

/// The [`Sink`] handed to the engine, which hands it back when the run ends.
impl Sink for Collector {
    fn begin(&mut self, info: &AttackInfo) {
        self.info = Some(info.clone());
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        let i = index as usize;
        if self.targets.len() <= i {
            self.targets.resize(
                i + 1,
                TargetInfo {
                    method: String::new(),
                    url: String::new(),
                },
            );
        }
        self.targets[i] = target.clone();
    }
    fn record(&mut self, sample: &Sample) {
        Collector::record(self, sample);
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        if let Some(t) = series.http_target() {
            self.register_target(id, &t);
            return;
        }
        if series.kind == loadlab_core::SeriesKind::Sample {
            match series.name.as_str() {
                "sql_tx" => self.database = true,
                "sql_stmt" => {
                    self.database = true;
                    self.statement_series.insert(id);
                }
                _ => {}
            }
        }
        self.metric_series
            .insert(id, Arc::new(SeriesDef::from_info(series)));
    }
    fn metric(&mut self, m: &MetricSample) {
        self.last_metric_ns = self.last_metric_ns.max(m.t_ns);
        // The warm-up is excluded here as for requests.
        if m.t_ns < self.warmup_ns {
            return;
        }
        if let Some(series) = self.metric_series.get(&m.series) {
            self.measured.add_metric(&MetricRecord {
                attack: Arc::from(""),
                start_unix_ns: 0,
                series: series.clone(),
                t_ns: m.t_ns,
                value: m.value,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(seq: u64, at_ms: u64, lat_ms: u64, status: u16) -> Sample {
        let i = at_ms * 1_000_000;
        Sample {
            seq,
            intended_ns: i,
            sent_ns: i,
            done_ns: i + lat_ms * 1_000_000,
            status,
            bytes_in: 10,
            ..Default::default()
        }
    }

    #[test]
    fn a_database_test_counts_transactions_and_its_statements_as_queries() {
        use loadlab_core::SeriesKind;
        let mut c = Collector::new(0, 0, 500_000_000);
        let sample = |name: &str| SeriesInfo {
            kind: SeriesKind::Sample,
            name: name.into(),
            time: true,
            tags: vec![("statement".into(), "x".into())],
        };
        c.register_series(0, &sample("sql_tx"));
        c.register_series(1, &sample("sql_stmt"));
        for i in 0..10u64 {
            c.record(&s(i, i * 100, 5, 200));
            for _ in 0..3 {
                c.record(&Sample {
                    target: 1,
                    ..s(i, i * 100, 1, 200)
                });
            }
        }
        let sum = c.finish().summary;
        assert_eq!(sum.requests, 10, "transactions only");
        let q = sum.queries.expect("a database test");
        assert_eq!(q.count, 30);
        assert!((q.per_second / sum.throughput - 3.0).abs() < 0.01, "{q:?}");
        // An HTTP run has no queries.
        let mut h = Collector::new(10, 0, 500_000_000);
        h.record(&s(0, 0, 1, 200));
        assert!(h.finish().summary.queries.is_none());
    }

    #[test]
    fn every_request_refused_is_an_unreachable_target() {
        let mut c = Collector::new(10, 0, 500_000_000);
        for i in 0..5u64 {
            c.record(&Sample {
                error: ErrorKind::ConnectRefused,
                ..s(i, i * 100, 1, 0)
            });
        }
        let sum = c.finish().summary;
        assert_eq!(sum.connect_errors, 5);
        assert!(sum.unreachable());
        let mut c = Collector::new(10, 0, 500_000_000);
        c.record(&s(0, 0, 1, 200));
        c.record(&Sample {
            error: ErrorKind::ConnectRefused,
            ..s(1, 100, 1, 0)
        });
        assert!(!c.finish().summary.unreachable(), "one answer: it is up");
    }

    #[test]
    fn a_generator_that_fell_behind_is_told() {
        let mut s = RunSummary::default();
        assert!(!s.generator_behind());
        s.send_lag_p99_ns = BEHIND_LAG_P99_NS;
        assert!(!s.generator_behind(), "at the threshold: kept");
        s.send_lag_p99_ns = BEHIND_LAG_P99_NS + 1;
        assert!(s.generator_behind());
        s.send_lag_p99_ns = 0;
        s.unsent = 1;
        assert!(s.generator_behind());
    }

    #[test]
    fn metric_records_become_rows_warmup_excluded() {
        use loadlab_core::SeriesKind;
        let mut c = Collector::new(10, 1_000_000_000, 500_000_000);
        let series = |kind, name: &str, time| SeriesInfo {
            kind,
            name: name.into(),
            time,
            tags: vec![("endpoint".into(), "poll".into())],
        };
        c.register_series(1 << 24, &series(SeriesKind::Trend, "msg_delay", true));
        c.register_series((1 << 24) + 1, &series(SeriesKind::Counter, "msgs", false));
        let m = |series, t_ms: u64, value| MetricSample {
            series,
            t_ns: t_ms * 1_000_000,
            value,
        };
        // In the warm-up: ignored.
        c.metric(&m(1 << 24, 500, 9e9));
        c.metric(&m((1 << 24) + 1, 500, 1000.0));
        for i in 0..100u64 {
            c.metric(&m(1 << 24, 1_000 + i * 10, (i + 1) as f64 * 1e6));
            c.metric(&m((1 << 24) + 1, 1_000 + i * 10, 2.0));
        }
        // Requests over 1 s measured, for the per-second figure.
        c.record(&s(0, 1_000, 1, 200));
        c.record(&s(1, 1_999, 1, 200));
        let rows = c.finish().summary.metrics;
        assert_eq!(rows.len(), 2, "{rows:?}");
        let t = &rows[0];
        assert_eq!(
            (t.label.as_str(), t.kind.as_str(), t.count),
            ("msg_delay", "trend", 100)
        );
        assert!((t.p50 - 50.0).abs() < 0.1, "{t:?}");
        assert!((t.p99 - 99.0).abs() < 0.1, "{t:?}");
        assert!((t.max - 100.0).abs() < 1e-9, "{t:?}");
        let n = &rows[1];
        assert_eq!((n.kind.as_str(), n.value), ("counter", 200.0));
        assert!((n.per_second - 200.0).abs() < 1.0, "{n:?}");
    }

    #[test]
    fn warmup_is_excluded_and_figures_add_up() {
        let mut c = Collector::new(10, 1_000_000_000, 500_000_000);
        // 10 warm-up samples with huge latency, then 100 measured ones.
        for i in 0..10 {
            c.record(&s(i, i * 100, 5_000, 200));
        }
        for i in 0..100 {
            let status = if i % 10 == 0 { 500 } else { 200 };
            c.record(&s(10 + i, 1_000 + i * 10, 10, status));
        }
        let d = c.finish();
        let m = &d.summary;
        assert_eq!(m.warmup_requests, 10);
        assert_eq!(m.requests, 100);
        assert!((m.success - 0.9).abs() < 1e-9);
        assert_eq!(m.status_codes[&500], 10);
        assert_eq!(m.errors["500 Internal Server Error"], 10);
        assert!(
            m.max_ns < 11_000_000,
            "warm-up leaked into max: {}",
            m.max_ns
        );
        assert!(d.series.iter().any(|p| p.warmup) && d.series.iter().any(|p| !p.warmup));
        assert_eq!(d.series.iter().map(|p| p.count).sum::<u64>(), 110);
    }

    /// A run's figures are the ones `loadlab report` prints for the same
    /// (measured) requests: both come from loadlab-metrics.
    #[test]
    fn figures_are_loadlab_reports() {
        let mut c = Collector::new(100, 0, 100_000_000);
        let mut m = Metrics::new();
        for i in 0..1000u64 {
            let mut x = s(
                i,
                i * 7,
                1 + (i * 7919) % 97,
                if i % 13 == 0 { 503 } else { 200 },
            );
            x.sent_ns += i % 5 * 100_000;
            x.done_ns += i % 3 * 1_000;
            c.record(&x);
            m.add_sample(0, &x);
        }
        let r = c.finish().summary;
        let v = m.summary();
        assert_eq!(r.requests, v.requests);
        assert_eq!(
            (r.rate, r.throughput, r.success),
            (v.rate, v.throughput, v.success)
        );
        assert_eq!((r.attack_ns, r.wait_ns), (v.duration_ns, v.wait_ns));
        let l = &v.latencies;
        assert_eq!(
            (r.min_ns, r.p50_ns, r.p90_ns, r.p95_ns, r.p99_ns, r.max_ns),
            (l.min, l.p50, l.p90, l.p95, l.p99, l.max)
        );
        assert_eq!(r.mean_ns as u64, l.mean);
        assert_eq!(r.service_p99_ns, v.uncorrected.p99);
        assert_eq!(r.send_lag_p99_ns, v.send_lag.p99);
        assert_eq!(r.status_codes[&503], 77);
        assert_eq!(r.errors["503 Service Unavailable"], 77);
    }

    #[test]
    fn the_collector_is_the_sink() {
        let mut sink = Collector::new(1, 0, 1_000_000_000);
        Sink::register_target(
            &mut sink,
            0,
            &TargetInfo {
                method: "GET".into(),
                url: "http://h/".into(),
            },
        );
        Sink::record(&mut sink, &s(0, 0, 1, 200));
        Sink::record(&mut sink, &s(1, 1, 1, 503));
        let d = sink.finish().summary;
        assert_eq!(d.requests, 2);
        assert_eq!(d.errors["503 Service Unavailable"], 1);
    }
}
