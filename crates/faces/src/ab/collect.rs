//! Turns the engine's samples into ab's figures, on the engine's sink thread.

use std::io::Write;

use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink};

use super::report::{Failures, GnuplotRow, Phases};

/// ab's figures, accumulated sample by sample.
#[derive(Debug, Default)]
pub struct AbState {
    pub start_unix_ns: u64,
    /// Requests that ended (with a response or a failure), canceled ones excluded.
    pub complete: u64,
    /// Requests that got a whole response.
    pub responses: u64,
    pub failures: Failures,
    pub non_2xx: u64,
    /// Response body bytes.
    pub body_bytes: u64,
    /// Request body bytes.
    pub bytes_out: u64,
    /// Body length of the first response: the length every later one must have.
    pub document_length: Option<u64>,
    /// Connections opened (samples that paid a connect).
    pub connects: u64,
    /// Latest completion, ns from the start.
    pub last_done_ns: u64,
    pub phases: Phases,
    /// Kept only when `-g` asks for every request.
    pub gnuplot: Option<Vec<GnuplotRow>>,
    variable_length: bool,
}

/// The [`Sink`] side: owns its state, which the runner takes from the
/// collector the engine hands back.
pub struct AbCollector {
    pub state: AbState,
    heartbeat: u64,
    progress: Option<Box<dyn Write + Send>>,
}

impl AbCollector {
    /// `heartbeat`: print `Completed N requests` every this many requests (0 = never).
    pub fn new(
        keep_rows: bool,
        variable_length: bool,
        heartbeat: u64,
        progress: Option<Box<dyn Write + Send>>,
    ) -> AbCollector {
        AbCollector {
            state: AbState {
                gnuplot: keep_rows.then(Vec::new),
                variable_length,
                ..AbState::default()
            },
            heartbeat,
            progress,
        }
    }
}

fn us(ns: u64) -> u64 {
    ns / 1000
}

impl AbState {
    pub fn record(&mut self, s: &Sample) {
        if s.error == ErrorKind::Canceled {
            return;
        }
        self.complete += 1;
        self.last_done_ns = self.last_done_ns.max(s.done_ns);
        self.bytes_out += s.bytes_out;
        match s.error {
            ErrorKind::None => {}
            ErrorKind::ConnectRefused
            | ErrorKind::ConnectTimeout
            | ErrorKind::Dns
            | ErrorKind::AddressUnavailable => {
                self.failures.connect += 1;
                return;
            }
            k if k.is_tls() => {
                self.failures.connect += 1;
                return;
            }
            ErrorKind::ConnectionReset
            | ErrorKind::ConnectionClosed
            | ErrorKind::UnexpectedEof
            | ErrorKind::Protocol
            | ErrorKind::Io => {
                self.failures.receive += 1;
                return;
            }
            _ => {
                self.failures.exceptions += 1;
                return;
            }
        }
        self.responses += 1;
        self.body_bytes += s.bytes_in;
        if !(200..300).contains(&s.status) {
            self.non_2xx += 1;
        }
        match self.document_length {
            None => self.document_length = Some(s.bytes_in),
            Some(len) if len != s.bytes_in && !self.variable_length => self.failures.length += 1,
            _ => {}
        }
        if s.connect_ns > 0 {
            self.connects += 1;
        }
        let connect = us(s.connect_ns as u64);
        let total = us(s.done_ns.saturating_sub(s.sent_ns));
        // Waiting: from the request being written (after connecting) to the
        // first response byte.
        let waiting = if s.first_byte_ns == 0 {
            total.saturating_sub(connect)
        } else {
            us(s.first_byte_ns.saturating_sub(s.sent_ns)).saturating_sub(connect)
        };
        self.phases.record(connect, waiting, total);
        if let Some(rows) = &mut self.gnuplot {
            rows.push(GnuplotRow {
                start_unix_us: (self.start_unix_ns + s.sent_ns) / 1000,
                connect_us: connect.min(u32::MAX as u64) as u32,
                total_us: total.min(u32::MAX as u64) as u32,
                waiting_us: waiting.min(u32::MAX as u64) as u32,
            });
        }
    }
}

impl Sink for AbCollector {
    fn begin(&mut self, info: &AttackInfo) {
        self.state.start_unix_ns = info.start_unix_ns;
    }

    fn record(&mut self, sample: &Sample) {
        self.state.record(sample);
        let done = self.state.complete;
        if self.heartbeat > 0
            && done > 0
            && done.is_multiple_of(self.heartbeat)
            && let Some(w) = &mut self.progress
        {
            let _ = writeln!(w, "Completed {done} requests");
            let _ = w.flush();
        }
    }
}

/// ab's progress interval: every 10% of `-n` (at least 100 requests), only
/// when more than 150 requests are asked for and `-q` is not given.
pub fn heartbeat(requests: u64, quiet: bool) -> u64 {
    if quiet || requests <= 150 {
        0
    } else {
        (requests / 10).max(100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(seq: u64, sent: u64, connect: u32, first: u64, done: u64, len: u64) -> Sample {
        Sample {
            seq,
            sent_ns: sent,
            intended_ns: sent,
            connect_ns: connect,
            first_byte_ns: first,
            done_ns: done,
            status: 200,
            bytes_in: len,
            ..Default::default()
        }
    }

    #[test]
    fn phases_failures_and_progress() {
        let mut c = AbCollector::new(true, false, 2, Some(Box::new(std::io::sink())));
        c.begin(&AttackInfo {
            name: String::new(),
            start_unix_ns: 1_000_000_000_000,
            ..Default::default()
        });
        c.record(&ok(0, 0, 1_000_000, 3_000_000, 5_000_000, 100));
        c.record(&ok(1, 0, 0, 1_000_000, 2_000_000, 99));
        c.record(&Sample {
            seq: 2,
            error: ErrorKind::ConnectRefused,
            done_ns: 9_000_000,
            ..Default::default()
        });
        c.record(&Sample {
            seq: 3,
            error: ErrorKind::Canceled,
            done_ns: 10_000_000,
            ..Default::default()
        });
        c.record(&Sample {
            status: 404,
            ..ok(4, 0, 0, 1_000_000, 2_000_000, 100)
        });
        let st = &c.state;
        assert_eq!((st.complete, st.responses, st.non_2xx), (4, 3, 1));
        assert_eq!(
            st.failures,
            Failures {
                connect: 1,
                receive: 0,
                length: 1,
                exceptions: 0
            }
        );
        assert_eq!(st.document_length, Some(100));
        assert_eq!(st.last_done_ns, 9_000_000);
        assert_eq!(st.phases.total.max(), 5_000);
        assert_eq!(st.phases.connect.max(), 1_000);
        assert_eq!(st.phases.waiting.max(), 2_000);
        assert_eq!(st.phases.processing.max(), 4_000);
        let rows = st.gnuplot.as_ref().unwrap();
        assert_eq!(rows.len(), 3);
        assert_eq!(rows[0].start_unix_us, 1_000_000_000);
        assert_eq!(heartbeat(1000, false), 100);
        assert_eq!(heartbeat(150, false), 0);
        assert_eq!(heartbeat(5000, true), 0);
        assert_eq!(heartbeat(50_000, false), 5000);
    }
}
