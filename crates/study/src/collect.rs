//! The study's sink: turns the sample stream of one run into HdrHistograms,
//! a time series and a vegeta-style summary, without keeping samples.
//!
//! Samples whose *intended* send time falls inside the warm-up are counted
//! separately and excluded from every statistic (they still appear, marked,
//! in the time series so the report can show them).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use hdrhistogram::Histogram;
use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo};
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

fn new_hist(sig: u8) -> Histogram<u64> {
    let mut h = Histogram::new(sig).expect("valid sigfig");
    h.auto(true);
    h
}

/// Accumulates one run. Created by [`collector`], filled on the engine's sink thread.
pub struct Collector {
    warmup_ns: u64,
    bucket_ns: u64,
    offered_rate: u64,
    targets: Vec<TargetInfo>,
    latency: Histogram<u64>,
    service: Histogram<u64>,
    lag: Histogram<u64>,
    buckets: Vec<(u64, u64, Histogram<u64>, bool)>,
    codes: BTreeMap<u16, u64>,
    errors: BTreeMap<(u16, u8, u32), u64>,
    warmup_requests: u64,
    ok: u64,
    bytes_in: u64,
    bytes_out: u64,
    first_sent: u64,
    last_sent: u64,
    last_done: u64,
    sum_ns: u128,
}

impl Collector {
    pub fn new(offered_rate: u64, warmup_ns: u64, bucket_ns: u64) -> Collector {
        Collector {
            warmup_ns,
            bucket_ns: bucket_ns.max(1),
            offered_rate,
            targets: Vec::new(),
            latency: new_hist(3),
            service: new_hist(3),
            lag: new_hist(2),
            buckets: Vec::new(),
            codes: BTreeMap::new(),
            errors: BTreeMap::new(),
            warmup_requests: 0,
            ok: 0,
            bytes_in: 0,
            bytes_out: 0,
            first_sent: u64::MAX,
            last_sent: 0,
            last_done: 0,
            sum_ns: 0,
        }
    }

    pub fn record(&mut self, s: &Sample) {
        let lat = s.latency_ns().max(1);
        let b = (s.intended_ns / self.bucket_ns) as usize;
        if b >= self.buckets.len() && b < 100_000 {
            self.buckets
                .resize_with(b + 1, || (0, 0, new_hist(2), false));
        }
        let warm = s.intended_ns < self.warmup_ns;
        if let Some(bucket) = self.buckets.get_mut(b) {
            bucket.0 += 1;
            bucket.1 += s.is_success() as u64;
            let _ = bucket.2.record(lat);
            bucket.3 |= warm;
        }
        if warm {
            self.warmup_requests += 1;
            return;
        }
        let _ = self.latency.record(lat);
        let _ = self.service.record(s.service_ns().max(1));
        let _ = self.lag.record(s.send_lag_ns().max(1));
        self.sum_ns += lat as u128;
        *self.codes.entry(s.status).or_default() += 1;
        if s.is_success() {
            self.ok += 1;
        } else {
            // A compact key per failure; the text is built once, in `finish`
            // (no allocation per failed request).
            *self
                .errors
                .entry((s.status, s.error as u8, s.target))
                .or_default() += 1;
        }
        self.bytes_in += s.bytes_in;
        self.bytes_out += s.bytes_out;
        self.first_sent = self.first_sent.min(s.sent_ns);
        if s.sent_ns >= self.last_sent {
            self.last_sent = s.sent_ns;
            self.last_done = s.done_ns;
        }
    }

    pub fn finish(self) -> RunData {
        let n = self.latency.len();
        let attack_ns = if n > 0 {
            self.last_sent.saturating_sub(self.first_sent)
        } else {
            0
        };
        let wait_ns = self.last_done.saturating_sub(self.last_sent);
        let duration_ns = attack_ns + wait_ns;
        let q = |h: &Histogram<u64>, p: f64| {
            if h.is_empty() {
                0
            } else {
                h.value_at_quantile(p)
            }
        };
        let summary = RunSummary {
            offered_rate: self.offered_rate,
            requests: n,
            rate: if attack_ns > 0 {
                (n.saturating_sub(1)) as f64 / (attack_ns as f64 / 1e9)
            } else {
                0.0
            },
            throughput: if duration_ns > 0 {
                self.ok as f64 / (duration_ns as f64 / 1e9)
            } else {
                0.0
            },
            duration_ns,
            attack_ns,
            wait_ns,
            min_ns: if n > 0 { self.latency.min() } else { 0 },
            mean_ns: if n > 0 {
                self.sum_ns as f64 / n as f64
            } else {
                0.0
            },
            p50_ns: q(&self.latency, 0.5),
            p90_ns: q(&self.latency, 0.9),
            p95_ns: q(&self.latency, 0.95),
            p99_ns: q(&self.latency, 0.99),
            max_ns: if n > 0 { self.latency.max() } else { 0 },
            bytes_in: self.bytes_in,
            bytes_out: self.bytes_out,
            success: if n > 0 {
                self.ok as f64 / n as f64
            } else {
                0.0
            },
            status_codes: self.codes,
            errors: error_texts(&self.errors, &self.targets),
            warmup_requests: self.warmup_requests,
            service_p99_ns: q(&self.service, 0.99),
            send_lag_p99_ns: q(&self.lag, 0.99),
            cpu_mean: None,
            cpu_max: None,
            rss_max: None,
            unsent: 0,
            late: 0,
        };
        let series = self
            .buckets
            .into_iter()
            .enumerate()
            .filter(|(_, b)| b.0 > 0)
            .map(|(i, (count, ok, h, warmup))| SeriesPoint {
                t: (i as u64 * self.bucket_ns) as f64 / 1e9,
                count,
                ok,
                p50_ns: h.value_at_quantile(0.5),
                p99_ns: h.value_at_quantile(0.99),
                max_ns: h.max(),
                warmup,
            })
            .collect();
        RunData {
            summary,
            latency: self.latency,
            service: self.service,
            series,
        }
    }
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

/// Where a [`CollectorSink`] leaves its collector when the engine is done with it.
pub type Slot = Arc<Mutex<Option<Collector>>>;

/// The [`Sink`] handed to the engine. It owns its collector (no lock per
/// sample) and deposits it into the shared slot when finished or dropped.
pub struct CollectorSink {
    inner: Option<Collector>,
    slot: Slot,
}

/// A sink and the slot it will fill.
pub fn collector(c: Collector) -> (CollectorSink, Slot) {
    let slot: Slot = Arc::new(Mutex::new(None));
    (
        CollectorSink {
            inner: Some(c),
            slot: slot.clone(),
        },
        slot,
    )
}

impl CollectorSink {
    fn deposit(&mut self) {
        if let Some(c) = self.inner.take()
            && let Ok(mut g) = self.slot.lock()
        {
            *g = Some(c);
        }
    }
}

impl Sink for CollectorSink {
    fn begin(&mut self, _info: &AttackInfo) {}
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        if let Some(c) = &mut self.inner {
            let i = index as usize;
            if c.targets.len() <= i {
                c.targets.resize(
                    i + 1,
                    TargetInfo {
                        method: String::new(),
                        url: String::new(),
                    },
                );
            }
            c.targets[i] = target.clone();
        }
    }
    fn record(&mut self, sample: &Sample) {
        if let Some(c) = &mut self.inner {
            c.record(sample);
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.deposit();
        Ok(())
    }
}

impl Drop for CollectorSink {
    fn drop(&mut self) {
        self.deposit();
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

    #[test]
    fn sink_deposits_on_drop() {
        let (mut sink, slot) = collector(Collector::new(1, 0, 1_000_000_000));
        sink.record(&s(0, 0, 1, 200));
        drop(sink);
        let c = slot.lock().unwrap().take().unwrap();
        assert_eq!(c.finish().summary.requests, 1);
    }
}
