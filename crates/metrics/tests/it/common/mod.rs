//! Shared helpers: deterministic, realistic sample streams.
#![allow(dead_code)]

use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo};
use loadlab_metrics::ResultsWriter;

/// xorshift64*: deterministic noise without a dependency.
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` samples of a constant-rate attack at `rate_per_s`, 100-byte bodies,
/// status 200, latencies ~0.2–3 ms, send lags of a few µs, delivered in
/// completion order (as the engine delivers them).
pub fn realistic(n: u64, rate_per_s: u64, seed: u64) -> Vec<Sample> {
    let mut rng = Rng(seed | 1);
    let interval = 1_000_000_000 / rate_per_s;
    let mut v: Vec<Sample> = (0..n)
        .map(|seq| {
            let intended = seq * interval;
            let sent = intended + 2_000 + rng.below(40_000);
            let ttfb = 150_000 + rng.below(2_500_000);
            let first = sent + ttfb;
            let done = first + 5_000 + rng.below(30_000);
            Sample {
                seq,
                target: 0,
                intended_ns: intended,
                sent_ns: sent,
                first_byte_ns: first,
                done_ns: done,
                connect_ns: if seq < 50 {
                    80_000 + rng.below(20_000) as u32
                } else {
                    0
                },
                status: 200,
                error: ErrorKind::None,
                bytes_out: 0,
                bytes_in: 100,
                wire_in: 0,
            }
        })
        .collect();
    v.sort_by_key(|s| s.done_ns);
    v
}

pub const START: u64 = 1_700_000_000_000_000_000;

/// Writes one attack into a byte vector.
pub fn write_file(name: &str, start: u64, targets: &[(&str, &str)], samples: &[Sample]) -> Vec<u8> {
    let mut w = ResultsWriter::new(Vec::new());
    w.begin(&AttackInfo {
        name: name.to_string(),
        start_unix_ns: start,
        ..Default::default()
    });
    for (i, (m, u)) in targets.iter().enumerate() {
        w.register_target(
            i as u32,
            &TargetInfo {
                method: m.to_string(),
                url: u.to_string(),
            },
        );
    }
    for s in samples {
        w.record(s);
    }
    w.into_inner().expect("write to Vec")
}
