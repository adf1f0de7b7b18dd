//! What a run is, as stored: its figures ([`RunSummary`]) and what they
//! carry beside them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The vegeta-style figures of one run (measured part only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    /// The rate the pacer was asked for.
    pub offered_rate: u64,
    pub requests: u64,
    /// Requests per second actually sent (vegeta's `rate`).
    pub rate: f64,
    /// Successful responses per second (vegeta's `throughput`).
    pub throughput: f64,
    pub duration_ns: u64,
    pub attack_ns: u64,
    pub wait_ns: u64,
    pub min_ns: u64,
    pub mean_ns: f64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p95_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Success ratio 0..1.
    pub success: f64,
    pub status_codes: BTreeMap<u16, u64>,
    pub errors: BTreeMap<String, u64>,
    pub warmup_requests: u64,
    /// 99th percentile of the uncorrected service time (from the actual send).
    pub service_p99_ns: u64,
    /// 99th percentile of how late requests left compared with the schedule.
    pub send_lag_p99_ns: u64,
    pub cpu_mean: Option<f64>,
    pub cpu_max: Option<f64>,
    pub rss_max: Option<u64>,
    /// Requests the schedule called for that the engine could not send in time (shortfall).
    #[serde(default)]
    pub unsent: u64,
    /// Requests sent more than 1 ms after their intended time.
    #[serde(default)]
    pub late: u64,
    /// A script's or database test's own metrics (k6 Counters, Trends,
    /// Rates, Gauges; sysbench's statement counts), measured part only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<MetricRow>,
    /// A split study's worker run (`study --segment=i/n`): what its figures
    /// cannot say and the merge needs to add the workers' runs exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub part: Option<RunPart>,
    /// A merged run (`study merge`): its workers, and what is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workers: Option<crate::worker::WorkersNote>,
    /// A replayed log's lines skipped or reordered (`attack -replay`'s
    /// end-of-run lines), none when the log was clean.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replay: Vec<String>,
    /// A script's thresholds and whether each held in this run (a crossed
    /// threshold is recorded, not a failure of the run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<ThresholdVerdict>,
    /// Measured requests that failed to connect (refused, unreachable,
    /// no such host): when that is every request, the target is down.
    #[serde(default)]
    pub connect_errors: u64,
    /// A database test's statements (sysbench's "queries"): the run's
    /// samples are its transactions, these are counted beside them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queries: Option<Queries>,
    /// A concurrent group's run (its members' runs are stored beside it):
    /// the members, and how far apart they began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<GroupNote>,
}

/// What a concurrent group's combined run says of its members.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GroupNote {
    /// The members' target names (`group/member`).
    pub members: Vec<String>,
    /// The latest member's first send minus the earliest's, over the
    /// members that share the start instant (HTTP members); `None` when
    /// fewer than two do.
    pub start_spread_ns: Option<u64>,
}

/// A script threshold's verdict in one run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ThresholdVerdict {
    /// The metric it applies to (`http_req_duration`, `http_req_failed{status:500}`).
    pub metric: String,
    /// The threshold as written (`p(95)<50`).
    pub threshold: String,
    pub ok: bool,
}

/// The statements of a database test's run, measured part only.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Queries {
    pub count: u64,
    /// Statements per second (sysbench's qps).
    pub per_second: f64,
}

/// What a run where the load generator fell behind its schedule is
/// marked with (see [`RunSummary::generator_behind`]).
pub const BEHIND_NOTE: &str = "the generator fell behind: this run measures the client";

/// Send lag p99 above which a run is said to measure the load generator
/// rather than the target: one request in 100 left more than 100 ms after
/// its intended time, so the schedule was not kept (a machine that keeps
/// up sends within a millisecond or two).
pub const BEHIND_LAG_P99_NS: u64 = loadlab_metrics::selfcheck::BEHIND_LAG_P99_NS;

impl RunSummary {
    /// Whether every measured request failed to connect: the target was
    /// not there at all.
    pub fn unreachable(&self) -> bool {
        self.requests > 0 && self.connect_errors >= self.requests
    }

    /// Whether the load generator fell behind its schedule: requests it
    /// could not send at all (`unsent`), or a send lag p99 above
    /// [`BEHIND_LAG_P99_NS`]. Such a run measures the client.
    pub fn generator_behind(&self) -> bool {
        loadlab_metrics::selfcheck::fell_behind(self.send_lag_p99_ns, self.unsent)
    }

    /// A database test's run: its unit is the transaction.
    pub fn is_database(&self) -> bool {
        self.queries.is_some()
    }

    /// The thresholds that were crossed.
    pub fn crossed(&self) -> Vec<&ThresholdVerdict> {
        self.thresholds.iter().filter(|t| !t.ok).collect()
    }
}

/// What one worker's run of a split study keeps beyond its figures, so that
/// `study merge` adds the workers' runs exactly: the instants the rate,
/// throughput and wait are computed from, the exact sums behind the mean,
/// and the send-lag histogram (the store has columns only for the latency
/// and service histograms).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunPart {
    /// `segment/segments` of the run's schedule.
    pub segment: u64,
    pub segments: u64,
    /// The run's slot in the timetable (ns since the Unix epoch).
    pub slot_unix_ns: u64,
    /// Where this worker's schedule started: the slot, or later when the
    /// worker was too late for it (then its requests are shifted).
    pub start_unix_ns: u64,
    /// The worker's wall clock when it began sending.
    pub began_unix_ns: u64,
    /// Requests of the run's whole schedule (every segment), when known.
    pub scheduled_total: Option<u64>,
    pub successes: u64,
    /// First and last actual send, last completion: ns from `start_unix_ns`
    /// (measured part; none without requests).
    pub earliest_ns: Option<u64>,
    pub latest_ns: Option<u64>,
    pub end_ns: Option<u64>,
    /// Exact sum of the measured latencies.
    pub latency_sum_ns: u128,
    pub service_min_ns: u64,
    pub service_max_ns: u64,
    pub lag_min_ns: u64,
    pub lag_max_ns: u64,
    /// The send-lag HdrHistogram, V2 serialization, base64.
    pub lag_hdr: String,
}

/// One metric series of a run, in its own unit (ms for time trends).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MetricRow {
    /// The metric's name (its series of every tag added together).
    pub label: String,
    /// `counter`, `trend`, `rate` or `gauge`.
    pub kind: String,
    /// Values recorded.
    pub count: u64,
    /// Counter: total; rate: share of hits (0..1); gauge: last value;
    /// trend: mean.
    pub value: f64,
    /// Counter: total per second of the measured part.
    pub per_second: f64,
    /// Trend percentiles and max (0 for other kinds).
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
}

/// One bucket of the latency-over-time series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    /// Start of the bucket, seconds from the run's start.
    pub t: f64,
    pub count: u64,
    pub ok: u64,
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub max_ns: u64,
    pub warmup: bool,
}

/// "connection refused on every request: is the target up?" (or the
/// failure every request met, when it was another way of not connecting).
pub fn unreachable_words(s: &RunSummary) -> String {
    let refused = s
        .errors
        .keys()
        .all(|e| e.contains("connection refused") || e.contains("Connection refused"));
    if refused {
        "connection refused on every request: is the target up?".to_string()
    } else {
        let top = s
            .errors
            .iter()
            .max_by_key(|(_, n)| **n)
            .map_or(String::new(), |(e, _)| format!(" ({e})"));
        format!("no connection on any request{top}: is the target up?")
    }
}
