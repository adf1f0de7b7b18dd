//! Turns the engine's samples into wrk2's figures, on the engine's sink thread.
//!
//! loadlab has one pacer for the whole run, not one per thread, so "threads"
//! are a reporting partition: request *n* belongs to thread `n % threads`.
//! That is what keeps a rate below the thread count honoured (wrk2 divides
//! the rate per thread and rounds it to zero) while the per-thread lines keep
//! their meaning.

use loadlab_core::{ErrorKind, Sample, Sink};

use super::report::{Calibration, RowStats, SocketErrors};
use crate::hist::Dist;

/// The window whose latency the `Thread calibration` line reports.
const CALIBRATION_NS: u64 = 1_000_000_000;
/// Req/Sec is sampled per second.
pub const SAMPLE_INTERVAL_MS: u64 = 1000;

#[derive(Debug, Default, Clone)]
struct PerThread {
    /// Completed responses per second of the run (by completion time).
    per_second: Vec<u32>,
    calib_sum_us: f64,
    calib_n: u64,
    all_sum_us: f64,
    all_n: u64,
}

/// wrk's figures, accumulated sample by sample.
#[derive(Debug)]
pub struct WrkState {
    threads: Vec<PerThread>,
    /// From the intended send time (the schedule).
    pub latency: Dist,
    /// From the actual send.
    pub uncorrected: Dist,
    pub complete: u64,
    pub body_bytes: u64,
    pub errors: SocketErrors,
    pub non_2xx_3xx: u64,
    pub last_done_ns: u64,
}

impl WrkState {
    pub fn new(threads: u64) -> WrkState {
        WrkState {
            threads: vec![PerThread::default(); threads.max(1) as usize],
            latency: Dist::new(),
            uncorrected: Dist::new(),
            complete: 0,
            body_bytes: 0,
            errors: SocketErrors::default(),
            non_2xx_3xx: 0,
            last_done_ns: 0,
        }
    }

    pub fn record(&mut self, s: &Sample) {
        match s.error {
            ErrorKind::None => {}
            // In flight when the run ended: wrk does not count those.
            ErrorKind::Canceled => return,
            ErrorKind::Timeout | ErrorKind::BodyTimeout => {
                self.errors.timeout += 1;
                return;
            }
            ErrorKind::ConnectRefused
            | ErrorKind::ConnectTimeout
            | ErrorKind::Dns
            | ErrorKind::AddressUnavailable => {
                self.errors.connect += 1;
                return;
            }
            k if k.is_tls() => {
                self.errors.connect += 1;
                return;
            }
            _ => {
                self.errors.read += 1;
                return;
            }
        }
        self.complete += 1;
        self.body_bytes += s.bytes_in;
        self.last_done_ns = self.last_done_ns.max(s.done_ns);
        if !(200..400).contains(&s.status) {
            self.non_2xx_3xx += 1;
        }
        let lat = s.latency_ns() / 1000;
        self.latency.record(lat);
        self.uncorrected.record(s.service_ns() / 1000);
        let n = self.threads.len() as u64;
        let t = &mut self.threads[(s.seq % n) as usize];
        let sec = (s.done_ns / 1_000_000_000) as usize;
        if t.per_second.len() <= sec {
            t.per_second.resize(sec + 1, 0);
        }
        t.per_second[sec] += 1;
        t.all_sum_us += lat as f64;
        t.all_n += 1;
        if s.intended_ns < CALIBRATION_NS {
            t.calib_sum_us += lat as f64;
            t.calib_n += 1;
        }
    }

    /// Req/Sec over every thread's whole seconds within `runtime_ns` (the
    /// partial last second would read as a dip); a run shorter than a second
    /// gives one value per thread, scaled to a second.
    pub fn req_per_sec(&self, runtime_ns: u64) -> RowStats {
        let whole = (runtime_ns / 1_000_000_000) as usize;
        let mut values = Vec::with_capacity(self.threads.len() * whole.max(1));
        for t in &self.threads {
            if whole == 0 {
                let n: u64 = t.per_second.iter().map(|&c| c as u64).sum();
                if runtime_ns > 0 {
                    values.push(n as f64 * 1e9 / runtime_ns as f64);
                }
            } else {
                values.extend((0..whole).map(|s| t.per_second.get(s).copied().unwrap_or(0) as f64));
            }
        }
        RowStats::from_values(&values)
    }

    /// One `Thread calibration` line per thread: the mean latency of its
    /// requests scheduled in the first second (all of them if none were) and
    /// the Req/Sec sampling interval actually used.
    pub fn calibration(&self) -> Vec<Calibration> {
        self.threads
            .iter()
            .map(|t| {
                let mean_us = if t.calib_n > 0 {
                    t.calib_sum_us / t.calib_n as f64
                } else if t.all_n > 0 {
                    t.all_sum_us / t.all_n as f64
                } else {
                    0.0
                };
                Calibration {
                    mean_latency_ms: mean_us / 1000.0,
                    interval_ms: SAMPLE_INTERVAL_MS,
                }
            })
            .collect()
    }
}

/// The [`Sink`] side; the runner reads the state of the collector the
/// engine hands back.
pub struct WrkCollector(pub WrkState);

impl WrkCollector {
    pub fn new(threads: u64) -> WrkCollector {
        WrkCollector(WrkState::new(threads))
    }
}

impl Sink for WrkCollector {
    fn record(&mut self, sample: &Sample) {
        self.0.record(sample);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_seconds_errors() {
        let mut st = WrkState::new(2);
        for seq in 0..40u64 {
            // 10/s for 4 s (one per 100 ms), 1 ms service time, 1 ms send lag.
            let intended = seq * 100_000_000;
            st.record(&Sample {
                seq,
                intended_ns: intended,
                sent_ns: intended + 1_000_000,
                first_byte_ns: intended + 1_500_000,
                done_ns: intended + 2_000_000,
                status: if seq == 7 { 500 } else { 200 },
                bytes_in: 10,
                ..Default::default()
            });
        }
        st.record(&Sample {
            seq: 40,
            error: ErrorKind::Timeout,
            ..Default::default()
        });
        st.record(&Sample {
            seq: 41,
            error: ErrorKind::ConnectRefused,
            ..Default::default()
        });
        st.record(&Sample {
            seq: 42,
            error: ErrorKind::ConnectionReset,
            ..Default::default()
        });
        st.record(&Sample {
            seq: 43,
            error: ErrorKind::Canceled,
            ..Default::default()
        });
        assert_eq!((st.complete, st.body_bytes, st.non_2xx_3xx), (40, 400, 1));
        assert_eq!(
            st.errors,
            SocketErrors {
                connect: 1,
                read: 1,
                write: 0,
                timeout: 1
            }
        );
        assert_eq!(st.latency.max(), 2000);
        assert_eq!(st.uncorrected.max(), 1000);
        let r = st.req_per_sec(4_002_000_000);
        assert_eq!((r.mean, r.max, r.stdev), (5.0, 5.0, 0.0));
        let c = st.calibration();
        assert_eq!(c.len(), 2);
        assert!((c[0].mean_latency_ms - 2.0).abs() < 1e-9);
        // Shorter than a second: scaled per-thread totals.
        let mut short = WrkState::new(1);
        short.record(&Sample {
            seq: 0,
            done_ns: 100_000_000,
            status: 200,
            ..Default::default()
        });
        assert!((short.req_per_sec(500_000_000).mean - 2.0).abs() < 1e-9);
    }
}
