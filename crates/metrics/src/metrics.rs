//! [`Metrics`]: everything the reports need, accumulated one [`Record`] at a
//! time in constant memory (HdrHistograms, counters, a per-second series).
//!
//! The vegeta fields are computed exactly as vegeta defines them, from the
//! instants vegeta has: `earliest`/`latest` are the first and last **actual**
//! sends and `end` the last completion, so `rate` = requests ÷ (last send −
//! first send), `attack` = last send − first send and `wait` = last
//! completion − last send, even when the generator fell behind its schedule.
//! The latencies are the **corrected** latency (completion − intended send).
//! Merging several files (even of different formats) is just adding all
//! their records: the time span covers them all, as in vegeta.
//!
//! On top of vegeta's fields: the schedule the sends were meant to keep (the
//! first and last **intended** send, and the rate between them), the
//! uncorrected service time (from the actual send) and the send lag, each as
//! an HdrHistogram, and the number of requests sent later than
//! [`DEFAULT_LATE_THRESHOLD_NS`] after their intended time.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use loadlab_core::{ErrorKind, Sample};

use crate::buckets::Buckets;
use crate::figures::MetricSet;
use crate::record::{MetricRecord, Record, status_text, write_error_string};
use crate::series::Series;

/// A request whose send lag exceeds this (1 ms) counts as *late*. 1 ms is
/// well above the scheduling jitter of a healthy generator (tens of µs) and
/// matches the accuracy wrk2 claims for its schedule, so a late count > 0
/// means the generator or the connection pool really fell behind.
pub const DEFAULT_LATE_THRESHOLD_NS: u64 = 1_000_000;

pub use crate::dist::{Distribution, LatencySummary};

/// The intended send times of the requests that were sent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ScheduleSummary {
    /// First and last intended send time; `None` when there were no requests.
    pub earliest_unix_ns: Option<u64>,
    pub latest_unix_ns: Option<u64>,
    /// Last intended − first intended.
    pub duration_ns: u64,
    /// Requests ÷ duration, as vegeta computes its rate.
    pub rate: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ByteSummary {
    pub total: u64,
    pub mean: f64,
}

/// The derived figures of a [`Metrics`], as vegeta's `Metrics.Close` computes
/// them, plus ours. Times are ns; instants are ns since the Unix epoch.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub requests: u64,
    pub rate: f64,
    pub throughput: f64,
    pub success: f64,
    /// First and last actual send, last completion; `None` when there
    /// were no requests.
    pub earliest_unix_ns: Option<u64>,
    pub latest_unix_ns: Option<u64>,
    pub end_unix_ns: Option<u64>,
    /// Last send − first send.
    pub duration_ns: u64,
    /// Last completion − last send.
    pub wait_ns: u64,
    /// The schedule of the requests sent: first and last intended send
    /// time, and the rate between them.
    pub schedule: ScheduleSummary,
    /// Corrected latency (from the intended send time).
    pub latencies: LatencySummary,
    /// Uncorrected service time (from the actual send).
    pub uncorrected: LatencySummary,
    pub send_lag: LatencySummary,
    pub late: u64,
    pub late_threshold_ns: u64,
    /// Requests the schedule called for that were never sent (the
    /// generator fell behind and the attack ended first).
    pub unsent: u64,
    /// True when `unsent` is the count of the whole attack(s) these records
    /// came from, not of these records alone (`report -by=target`).
    pub unsent_attack_wide: bool,
    /// Response body bytes as vegeta counts them: a gzip body the engine
    /// asked for (as Go's client does) counts what it decoded to.
    pub bytes_in: ByteSummary,
    pub bytes_out: ByteSummary,
    /// Response body bytes as they came over the wire: `bytes_in` with
    /// decoded gzip bodies counted compressed ([`Sample::wire_bytes_in`]).
    pub wire_in: ByteSummary,
    /// `(code, count)` ordered as strings, as vegeta prints them.
    pub status_codes: Vec<(String, u64)>,
    /// Distinct error texts in order of first appearance.
    pub errors: Vec<String>,
    /// `hist[...]` buckets: `(lower bound ns, count)`; empty unless configured.
    pub buckets: Vec<(u64, u64)>,
}

impl Summary {
    /// True when the corrected and uncorrected latencies differ by more
    /// than the measurement's resolution: some request went out more than
    /// the late threshold (1 ms, the send clock's default window) after
    /// its intended time. Below that, the two differ only by scheduling
    /// jitter, whatever the ratio (a 100 µs response sent 30 µs late).
    pub fn corrections_matter(&self) -> bool {
        self.late > 0
    }
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum ErrKey {
    Text(Arc<str>),
    Status(u16),
    Transport(Arc<str>, Arc<str>, ErrorKind),
}

/// Accumulates records; see the module docs for the definitions.
#[derive(Clone)]
pub struct Metrics {
    requests: u64,
    successes: u64,
    /// Counts for status 0..=999; anything else in `other_status`.
    status: Vec<u64>,
    other_status: BTreeMap<u16, u64>,
    bytes_in: u64,
    bytes_out: u64,
    wire_in: u64,
    earliest: u64,
    latest: u64,
    end: u64,
    intended_earliest: u64,
    intended_latest: u64,
    latency: Distribution,
    service: Distribution,
    lag: Distribution,
    late: u64,
    late_threshold_ns: u64,
    /// Each distinct error, with the earliest completion (ns since the
    /// epoch) of a request that had it, in order of first reading.
    error_first: HashMap<ErrKey, usize>,
    errors: Vec<(ErrKey, u64)>,
    buckets: Option<Buckets>,
    series: Series,
    unsent: u64,
    unsent_attack_wide: bool,
    /// The worker records of a split run's files (`-segment`, `-start-at`).
    workers: Vec<crate::distributed::WorkerSegment>,
    /// Figures of the metric records (counters, trends, rates, gauges).
    metric_set: MetricSet,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        Metrics {
            requests: 0,
            successes: 0,
            status: vec![0; 1000],
            other_status: BTreeMap::new(),
            bytes_in: 0,
            bytes_out: 0,
            wire_in: 0,
            earliest: u64::MAX,
            latest: 0,
            end: 0,
            intended_earliest: u64::MAX,
            intended_latest: 0,
            latency: Distribution::new(),
            service: Distribution::new(),
            lag: Distribution::new(),
            late: 0,
            late_threshold_ns: DEFAULT_LATE_THRESHOLD_NS,
            error_first: HashMap::new(),
            errors: Vec::new(),
            buckets: None,
            series: Series::default(),
            unsent: 0,
            unsent_attack_wide: false,
            workers: Vec::new(),
            metric_set: MetricSet::default(),
        }
    }

    /// Adds a metric record (a counter increment, trend value, rate hit or
    /// gauge value) to its series' figures.
    pub fn add_metric(&mut self, m: &MetricRecord) {
        self.metric_set.add(m);
    }

    /// The figures of the metric records, per series.
    pub fn metric_figures(&self) -> &MetricSet {
        &self.metric_set
    }

    /// Adds requests an attack's schedule called for that were never sent
    /// (a results file records them per attack, see
    /// [`crate::Results::unsent`]).
    pub fn add_unsent(&mut self, n: u64) {
        self.unsent = self.unsent.saturating_add(n);
    }

    /// Adds a worker's record (from [`crate::Results::workers`]): the report
    /// then checks that every segment of the split run is there, whole, and
    /// that the workers started together (see [`crate::distributed`]).
    pub fn add_worker(&mut self, w: crate::distributed::WorkerSegment) {
        self.workers.push(w);
    }

    /// The checks of the split runs these records came from (empty for
    /// plain attacks).
    pub fn worker_checks(&self) -> Vec<crate::distributed::RunCheck> {
        crate::distributed::check(&self.workers)
    }

    /// Marks the unsent count as the whole attack's rather than these
    /// records' own (a report split by target cannot attribute unsent
    /// requests to one target).
    pub fn set_unsent_attack_wide(&mut self) {
        self.unsent_attack_wide = true;
    }

    /// Counts corrected latencies into `hist[...]` buckets (lower bounds in
    /// ns, ascending; a request below the first or above the last bound falls
    /// into the last bucket, as in vegeta).
    pub fn with_buckets(mut self, bounds: Vec<u64>) -> Self {
        self.buckets = Some(Buckets::with_lower_bounds(bounds));
        self
    }

    /// Changes what counts as a late send (default 1 ms).
    pub fn with_late_threshold(mut self, ns: u64) -> Self {
        self.late_threshold_ns = ns;
        self
    }

    pub fn requests(&self) -> u64 {
        self.requests
    }

    pub fn add(&mut self, r: &Record) {
        self.add_sample(r.start_unix_ns, &r.sample);
        self.add_error(r);
    }

    /// Adds one request's figures, its error text aside (a caller with
    /// its own error labels, such as the study, keeps those itself).
    /// `start_unix_ns` is the attack's start, which the sample's instants
    /// count from.
    pub fn add_sample(&mut self, start_unix_ns: u64, s: &Sample) {
        self.requests += 1;
        match self.status.get_mut(s.status as usize) {
            Some(c) => *c += 1,
            None => *self.other_status.entry(s.status).or_default() += 1,
        }
        self.bytes_in = self.bytes_in.saturating_add(s.bytes_in);
        self.bytes_out = self.bytes_out.saturating_add(s.bytes_out);
        self.wire_in = self.wire_in.saturating_add(s.wire_bytes_in());
        let ts = start_unix_ns.saturating_add(s.intended_ns);
        let sent = start_unix_ns.saturating_add(s.sent_ns);
        let lat = s.latency_ns();
        self.earliest = self.earliest.min(sent);
        self.latest = self.latest.max(sent);
        self.end = self.end.max(start_unix_ns.saturating_add(s.done_ns));
        self.intended_earliest = self.intended_earliest.min(ts);
        self.intended_latest = self.intended_latest.max(ts);
        let ok = s.is_success();
        if ok {
            self.successes += 1;
        }
        self.latency.record(lat);
        self.service.record(s.service_ns());
        let lag = s.send_lag_ns();
        self.lag.record(lag);
        if lag > self.late_threshold_ns {
            self.late += 1;
        }
        if let Some(b) = &mut self.buckets {
            b.record(lat);
        }
        self.series.add(ts, lat, ok);
    }

    fn add_error(&mut self, r: &Record) {
        let s = &r.sample;
        let key = if let Some(t) = &r.error_text {
            if t.is_empty() {
                return;
            }
            ErrKey::Text(t.clone())
        } else if s.error != ErrorKind::None {
            ErrKey::Transport(r.method.clone(), r.url.clone(), s.error)
        } else if s.status != 0 && !s.is_success() {
            ErrKey::Status(s.status)
        } else {
            return;
        };
        self.note_error(key, r.abs_done_ns());
    }

    fn note_error(&mut self, key: ErrKey, at: u64) {
        match self.error_first.get(&key) {
            Some(&i) => self.errors[i].1 = self.errors[i].1.min(at),
            None => {
                self.error_first.insert(key.clone(), self.errors.len());
                self.errors.push((key, at));
            }
        }
    }

    /// Adds everything `other` accumulated (e.g. per-file or per-worker
    /// metrics). Bucket counts merge only if both use the same bounds.
    pub fn merge(&mut self, other: &Metrics) {
        self.requests += other.requests;
        self.successes += other.successes;
        for (a, b) in self.status.iter_mut().zip(&other.status) {
            *a += b;
        }
        for (k, v) in &other.other_status {
            *self.other_status.entry(*k).or_default() += v;
        }
        self.bytes_in = self.bytes_in.saturating_add(other.bytes_in);
        self.bytes_out = self.bytes_out.saturating_add(other.bytes_out);
        self.wire_in = self.wire_in.saturating_add(other.wire_in);
        self.earliest = self.earliest.min(other.earliest);
        self.latest = self.latest.max(other.latest);
        self.end = self.end.max(other.end);
        self.intended_earliest = self.intended_earliest.min(other.intended_earliest);
        self.intended_latest = self.intended_latest.max(other.intended_latest);
        self.latency.merge(&other.latency);
        self.service.merge(&other.service);
        self.lag.merge(&other.lag);
        self.late += other.late;
        for (k, at) in &other.errors {
            self.note_error(k.clone(), *at);
        }
        if let (Some(a), Some(b)) = (&mut self.buckets, &other.buckets) {
            a.merge(b);
        }
        self.series.merge(&other.series);
        self.unsent = self.unsent.saturating_add(other.unsent);
        self.unsent_attack_wide |= other.unsent_attack_wide;
        self.workers.extend(other.workers.iter().cloned());
        self.metric_set.merge(&other.metric_set);
    }

    /// Corrected latency distribution.
    pub fn latency(&self) -> &Distribution {
        &self.latency
    }
    /// Uncorrected service time distribution.
    pub fn service(&self) -> &Distribution {
        &self.service
    }
    /// Send lag distribution.
    pub fn send_lag(&self) -> &Distribution {
        &self.lag
    }
    /// Per-second series (keyed by the intended send second).
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// vegeta's `Close`: the derived figures. Non-destructive, so it can be
    /// called periodically (`report -every`) while records keep arriving.
    pub fn close(&self) -> Summary {
        self.summary()
    }

    pub fn summary(&self) -> Summary {
        let n = self.requests;
        let (earliest, latest, end) = if n == 0 {
            (None, None, None)
        } else {
            (Some(self.earliest), Some(self.latest), Some(self.end))
        };
        let duration_ns = latest.unwrap_or(0) - earliest.unwrap_or(0);
        // A request sent early (by the send clock) can complete before a
        // later one was sent: never a negative wait.
        let wait_ns = end.unwrap_or(0).saturating_sub(latest.unwrap_or(0));
        let secs = |ns: u64| (ns / 1_000_000_000) as f64 + (ns % 1_000_000_000) as f64 / 1e9;
        let (mut rate, mut throughput) = (n as f64, self.successes as f64);
        if duration_ns > 0 {
            rate /= secs(duration_ns);
            throughput /= secs(duration_ns + wait_ns);
        }
        if n == 0 {
            (rate, throughput) = (0.0, 0.0);
        }
        let schedule = if n == 0 {
            ScheduleSummary::default()
        } else {
            let d = self.intended_latest - self.intended_earliest;
            ScheduleSummary {
                earliest_unix_ns: Some(self.intended_earliest),
                latest_unix_ns: Some(self.intended_latest),
                duration_ns: d,
                rate: if d > 0 { n as f64 / secs(d) } else { n as f64 },
            }
        };
        let mean = |t: u64| if n == 0 { 0.0 } else { t as f64 / n as f64 };
        let mut codes: Vec<(String, u64)> = self
            .status
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(|(code, c)| (code.to_string(), *c))
            .chain(self.other_status.iter().map(|(k, v)| (k.to_string(), *v)))
            .collect();
        codes.sort();
        Summary {
            requests: n,
            rate,
            throughput,
            success: if n == 0 {
                0.0
            } else {
                self.successes as f64 / n as f64
            },
            earliest_unix_ns: earliest,
            latest_unix_ns: latest,
            end_unix_ns: end,
            duration_ns,
            wait_ns,
            schedule,
            latencies: self.latency.summary(),
            uncorrected: self.service.summary(),
            send_lag: self.lag.summary(),
            late: self.late,
            late_threshold_ns: self.late_threshold_ns,
            unsent: self.unsent,
            unsent_attack_wide: self.unsent_attack_wide,
            bytes_in: ByteSummary {
                total: self.bytes_in,
                mean: mean(self.bytes_in),
            },
            bytes_out: ByteSummary {
                total: self.bytes_out,
                mean: mean(self.bytes_out),
            },
            wire_in: ByteSummary {
                total: self.wire_in,
                mean: mean(self.wire_in),
            },
            status_codes: codes,
            errors: self.error_strings(),
            buckets: self
                .buckets
                .as_ref()
                .map(Buckets::pairs)
                .unwrap_or_default(),
        }
    }

    /// The distinct error texts in order of their first occurrence: the
    /// earliest completion of a request with that error (ties in order of
    /// reading). In a results file, which is in completion order, that is
    /// the order of first appearance (vegeta's); it does not depend on the
    /// order in which several files, or the metrics of several workers,
    /// are merged.
    fn error_strings(&self) -> Vec<String> {
        let mut order: Vec<usize> = (0..self.errors.len()).collect();
        order.sort_by_key(|&i| self.errors[i].1);
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for k in order.into_iter().map(|i| &self.errors[i].0) {
            let s = match k {
                ErrKey::Text(t) => t.to_string(),
                ErrKey::Status(code) => status_text(*code),
                ErrKey::Transport(m, u, kind) => {
                    let mut s = String::new();
                    write_error_string(&mut s, m, u, *kind, 0);
                    s
                }
            };
            if seen.insert(s.clone()) {
                out.push(s);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadlab_core::Sample;

    fn failed(done_ms: u64, status: u16) -> Record {
        Record {
            attack: "".into(),
            start_unix_ns: 1_000_000_000,
            sample: Sample {
                intended_ns: done_ms * 1_000_000 - 500_000,
                sent_ns: done_ms * 1_000_000 - 500_000,
                done_ns: done_ms * 1_000_000,
                status,
                ..Default::default()
            },
            method: "GET".into(),
            url: "http://h/".into(),
            error_text: None,
            series: None,
        }
    }

    /// Metrics merge exactly whatever the order: the error set lists
    /// errors by their earliest occurrence, not by which part was merged
    /// first.
    #[test]
    fn merging_in_any_order_gives_the_same_figures() {
        let recs: Vec<Record> = (1..=40u64)
            .map(|i| failed(i, [200, 500, 503, 404][(i % 7 % 4) as usize]))
            .collect();
        let mut whole = Metrics::new();
        let mut parts = [Metrics::new(), Metrics::new(), Metrics::new()];
        for (i, r) in recs.iter().enumerate() {
            whole.add(r);
            parts[i % 3].add(r);
        }
        let want = whole.summary();
        assert_eq!(
            want.errors,
            [
                "500 Internal Server Error",
                "503 Service Unavailable",
                "404 Not Found"
            ]
        );
        for order in [[0, 1, 2], [2, 1, 0], [1, 2, 0]] {
            let mut m = Metrics::new();
            for k in order {
                m.merge(&parts[k]);
            }
            assert_eq!(m.summary(), want, "merged in order {order:?}");
        }
    }
}
