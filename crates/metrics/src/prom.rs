//! Prometheus exposition of an attack in progress (`attack -prometheus-addr`).
//!
//! The metric names, help texts, labels (`method`, `url`, `status`, and
//! `message` for failures) and latency buckets are vegeta's, so dashboards
//! built for vegeta's exporter work unchanged. Two differences, both on
//! purpose: `request_seconds` observes the latency loadlab reports (from the
//! intended send time), and `request_fail_count` counts every failure
//! (vegeta's creates the series but never increments it). The text is
//! Prometheus' text format 0.0.4.
//!
//! [`PromSink`] feeds the figures from the engine's sink thread; whoever
//! serves HTTP calls [`PromMetrics::render`].

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo};

use crate::buckets::Buckets;
use crate::record::write_attack_error_string;

/// The latency buckets, in seconds (Prometheus' default buckets, as vegeta uses).
pub const BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Bucket upper bounds in ns.
const BOUNDS_NS: [u64; BUCKETS.len()] = [
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
];

struct Series {
    /// Latencies per `le` bucket (the shared bucket counter of
    /// loadlab-metrics, with Prometheus' inclusive upper bounds).
    buckets: Buckets,
    sum_ns: u128,
    bytes_in: u64,
    bytes_out: u64,
}

impl Default for Series {
    fn default() -> Self {
        Series {
            buckets: Buckets::with_upper_bounds(&BOUNDS_NS),
            sum_ns: 0,
            bytes_in: 0,
            bytes_out: 0,
        }
    }
}

#[derive(Default)]
struct State {
    /// The attack's settings, for the failure messages.
    info: AttackInfo,
    targets: Vec<Option<TargetInfo>>,
    /// By (target index, status code).
    series: BTreeMap<(u32, u16), Series>,
    /// By (target index, status code, error kind): the message label is
    /// made from these when the metrics are read, not for every failure.
    fails: BTreeMap<(u32, u16, ErrorKind), u64>,
}

/// The figures of one attack, shared between its sink and an HTTP server.
#[derive(Default)]
pub struct PromMetrics {
    state: Mutex<State>,
}

/// Feeds a [`PromMetrics`] from the engine's sample stream.
pub struct PromSink(Arc<PromMetrics>);

impl PromMetrics {
    pub fn new() -> Arc<Self> {
        Arc::new(PromMetrics::default())
    }

    pub fn sink(self: &Arc<Self>) -> PromSink {
        PromSink(self.clone())
    }

    /// The current figures in Prometheus' text format.
    pub fn render(&self) -> String {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let labels = |target: u32, status: u16| {
            let (method, url) = method_url(&st.targets, target);
            format!(
                "method=\"{}\",url=\"{}\",status=\"{status}\"",
                escape(method),
                escape(url)
            )
        };
        let mut out = String::new();
        out.push_str(
            "# HELP request_bytes_in Bytes received from servers as response to requests\n",
        );
        out.push_str("# TYPE request_bytes_in counter\n");
        for ((t, s), v) in &st.series {
            let _ = writeln!(out, "request_bytes_in{{{}}} {}", labels(*t, *s), v.bytes_in);
        }
        out.push_str("# HELP request_bytes_out Bytes sent to servers during requests\n");
        out.push_str("# TYPE request_bytes_out counter\n");
        for ((t, s), v) in &st.series {
            let _ = writeln!(
                out,
                "request_bytes_out{{{}}} {}",
                labels(*t, *s),
                v.bytes_out
            );
        }
        out.push_str("# HELP request_fail_count Count of failed requests\n");
        out.push_str("# TYPE request_fail_count counter\n");
        for ((t, s, kind), n) in &st.fails {
            let (method, url) = method_url(&st.targets, *t);
            let mut msg = String::new();
            write_attack_error_string(&mut msg, method, url, *kind, *s, &st.info);
            let _ = writeln!(
                out,
                "request_fail_count{{{},message=\"{}\"}} {n}",
                labels(*t, *s),
                escape(&msg)
            );
        }
        out.push_str("# HELP request_seconds Request latency\n");
        out.push_str("# TYPE request_seconds histogram\n");
        for ((t, s), v) in &st.series {
            let l = labels(*t, *s);
            let cumulative = v.buckets.cumulative();
            for (bound, n) in BUCKETS.iter().zip(&cumulative) {
                let _ = writeln!(out, "request_seconds_bucket{{{l},le=\"{bound}\"}} {n}");
            }
            let count = cumulative.last().copied().unwrap_or(0);
            let _ = writeln!(out, "request_seconds_bucket{{{l},le=\"+Inf\"}} {count}");
            let _ = writeln!(out, "request_seconds_sum{{{l}}} {}", v.sum_ns as f64 / 1e9);
            let _ = writeln!(out, "request_seconds_count{{{l}}} {count}");
        }
        out
    }
}

/// The method and URL of target `i` (empty if it was never registered).
fn method_url(targets: &[Option<TargetInfo>], i: u32) -> (&str, &str) {
    targets
        .get(i as usize)
        .and_then(Option::as_ref)
        .map_or(("", ""), |t| (t.method.as_str(), t.url.as_str()))
}

/// A label value in the text format: backslash, double quote and newline escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Sink for PromSink {
    fn begin(&mut self, info: &AttackInfo) {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner()).info = info.clone();
    }

    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        let i = index as usize;
        if st.targets.len() <= i {
            st.targets.resize(i + 1, None);
        }
        st.targets[i] = Some(target.clone());
    }

    fn record(&mut self, s: &Sample) {
        let mut st = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
        let latency = s.latency_ns();
        let v = st.series.entry((s.target, s.status)).or_default();
        v.buckets.record(latency);
        v.sum_ns += u128::from(latency);
        v.bytes_in += s.bytes_in;
        v.bytes_out += s.bytes_out;
        if !s.is_success() {
            *st.fails.entry((s.target, s.status, s.error)).or_default() += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadlab_core::ErrorKind;

    fn sample(target: u32, status: u16, latency_ms: u64, error: ErrorKind) -> Sample {
        Sample {
            target,
            status,
            error,
            intended_ns: 1_000,
            sent_ns: 1_000,
            done_ns: 1_000 + latency_ms * 1_000_000,
            bytes_in: 10,
            bytes_out: 3,
            ..Default::default()
        }
    }

    #[test]
    fn renders_vegetas_metrics_in_the_text_format() {
        let m = PromMetrics::new();
        let mut s = m.sink();
        s.register_target(
            0,
            &TargetInfo {
                method: "GET".into(),
                url: "http://h/a\"b".into(),
            },
        );
        s.record(&sample(0, 200, 3, ErrorKind::None));
        // Exactly on a bound: counted at or below it (`le`).
        s.record(&sample(0, 200, 5, ErrorKind::None));
        s.record(&sample(0, 200, 30, ErrorKind::None));
        s.record(&sample(0, 200, 20_000, ErrorKind::None));
        s.record(&sample(0, 0, 1, ErrorKind::ConnectRefused));
        let text = m.render();
        let l = r#"method="GET",url="http://h/a\"b",status="200""#;
        for line in [
            format!("request_seconds_bucket{{{l},le=\"0.005\"}} 2"),
            format!("request_seconds_bucket{{{l},le=\"0.05\"}} 3"),
            format!("request_seconds_bucket{{{l},le=\"10\"}} 3"),
            format!("request_seconds_bucket{{{l},le=\"+Inf\"}} 4"),
            format!("request_seconds_count{{{l}}} 4"),
            format!("request_seconds_sum{{{l}}} 20.038"),
            format!("request_bytes_in{{{l}}} 40"),
            format!("request_bytes_out{{{l}}} 12"),
        ] {
            assert!(text.lines().any(|x| x == line), "no {line:?} in\n{text}");
        }
        assert!(text.contains("# TYPE request_seconds histogram"));
        let fail = text
            .lines()
            .find(|x| x.starts_with("request_fail_count{"))
            .unwrap();
        assert!(fail.contains("status=\"0\""), "{fail}");
        assert!(fail.contains("connection refused"), "{fail}");
        assert!(fail.ends_with(" 1"), "{fail}");
    }
}
