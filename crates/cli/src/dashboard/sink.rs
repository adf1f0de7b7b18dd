//! What the page shows, accumulated from the run's samples with loadlab's
//! one aggregation layer ([`Metrics`]): the whole run, and the current
//! second, which the ticker takes once a second. Recording a sample is the
//! same work the report does, on the run's sink thread; the current
//! second is only recorded, and the figures (percentiles, JSON) only
//! computed, while a page is connected or an export is due.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use loadlab_core::{ErrorKind, Sample, Sink};
use loadlab_metrics::{Metrics, Summary};
use serde_json::{Value, json};

use super::hub::Hub;

/// The figures recorded so far.
pub struct Acc {
    start_unix_ns: u64,
    /// Samples intended before this (from the run's start) are left out of
    /// the whole run's figures (a study run's warm-up); 0 otherwise.
    pub(super) warmup_ns: u64,
    whole: Metrics,
    second: Metrics,
    /// Failures by (status, transport error), over the whole run.
    failures: HashMap<(u16, ErrorKind), u64>,
}

impl Default for Acc {
    fn default() -> Self {
        Acc {
            start_unix_ns: 0,
            warmup_ns: 0,
            whole: Metrics::new(),
            second: Metrics::new(),
            failures: HashMap::new(),
        }
    }
}

impl Acc {
    /// Records a sample: in the whole run always, in the current second
    /// only when someone will see it (`watched`).
    fn add(&mut self, s: &Sample, watched: bool) {
        if watched {
            self.second.add_sample(self.start_unix_ns, s);
        }
        if s.intended_ns < self.warmup_ns {
            return;
        }
        self.whole.add_sample(self.start_unix_ns, s);
        if !s.is_success() {
            *self.failures.entry((s.status, s.error)).or_default() += 1;
        }
    }

    /// Takes the current second's figures (a fresh second starts) and
    /// returns them with the whole run's totals.
    pub fn take_second(&mut self) -> (Summary, Value) {
        // (`Summary` and `Value` are computed here, once a second, only
        // while someone watches: see `drop_second`.)
        let second = std::mem::take(&mut self.second).summary();
        (second, self.totals())
    }

    /// Forgets the current second unseen: nobody watches.
    pub fn drop_second(&mut self) {
        self.second = Metrics::new();
    }

    /// The whole run's figures as the page shows them.
    pub fn totals(&self) -> Value {
        let s = self.whole.summary();
        let mut errors: Vec<(String, u64)> = self
            .failures
            .iter()
            .map(|(&(status, error), &n)| (failure_text(status, error), n))
            .collect();
        errors.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        errors.truncate(5);
        json!({
            "requests": s.requests,
            "rate": s.rate,
            "throughput": s.throughput,
            "success": s.success,
            "lat": latencies(&s.latencies),
            "svc": latencies(&s.uncorrected),
            "lag": latencies(&s.send_lag),
            "late": s.late,
            "status": s.status_codes,
            "errors": errors,
        })
    }
}

/// p50, p90, p95, p99, max in milliseconds.
pub fn latencies(l: &loadlab_metrics::metrics::LatencySummary) -> Value {
    let ms = |ns: u64| ns as f64 / 1e6;
    json!({ "p50": ms(l.p50), "p90": ms(l.p90), "p95": ms(l.p95), "p99": ms(l.p99), "max": ms(l.max) })
}

/// A failure as the page names it: the status and its reason, or the
/// transport error. Never a header, a URL or a body: nothing secret.
fn failure_text(status: u16, error: ErrorKind) -> String {
    if error != ErrorKind::None {
        return error.code().to_string();
    }
    match hyper::StatusCode::from_u16(status)
        .ok()
        .and_then(|c| c.canonical_reason())
    {
        Some(r) => format!("{status} {r}"),
        None => status.to_string(),
    }
}

/// The run's sink for the dashboard.
pub struct DashSink {
    pub(super) acc: Arc<Mutex<Acc>>,
    pub(super) hub: Arc<Hub>,
}

impl Sink for DashSink {
    fn begin(&mut self, info: &loadlab_core::AttackInfo) {
        if let Ok(mut a) = self.acc.lock() {
            a.start_unix_ns = info.start_unix_ns;
        }
    }
    fn record(&mut self, s: &Sample) {
        let watched = self.hub.wanted();
        if let Ok(mut a) = self.acc.lock() {
            a.add(s, watched);
        }
    }
}
