//! A per-second series of the corrected latency and outcome counts, keyed by
//! the intended send second (Unix seconds): small (one entry per second of
//! the attack), enough for `-every` windows and time plots.

use std::collections::BTreeMap;

/// Figures of one second of intended send times.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Second {
    pub requests: u64,
    pub successes: u64,
    pub latency_sum_ns: u128,
    pub latency_max_ns: u64,
}

impl Second {
    pub fn mean_latency_ns(&self) -> u64 {
        if self.requests == 0 {
            0
        } else {
            (self.latency_sum_ns / u128::from(self.requests)) as u64
        }
    }

    fn merge(&mut self, o: &Second) {
        self.requests += o.requests;
        self.successes += o.successes;
        self.latency_sum_ns += o.latency_sum_ns;
        self.latency_max_ns = self.latency_max_ns.max(o.latency_max_ns);
    }
}

/// Results arrive roughly in time order, so the current second is
/// accumulated apart and folded into the map only when the second changes.
#[derive(Debug, Clone, Default)]
pub struct Series {
    map: BTreeMap<u64, Second>,
    cur_sec: Option<u64>,
    cur: Second,
}

impl Series {
    pub fn add(&mut self, unix_ns: u64, latency_ns: u64, success: bool) {
        let sec = unix_ns / 1_000_000_000;
        if self.cur_sec != Some(sec) {
            self.fold();
            self.cur_sec = Some(sec);
        }
        let c = &mut self.cur;
        c.requests += 1;
        c.successes += u64::from(success);
        c.latency_sum_ns += u128::from(latency_ns);
        c.latency_max_ns = c.latency_max_ns.max(latency_ns);
    }

    fn fold(&mut self) {
        if let Some(s) = self.cur_sec.take() {
            self.map.entry(s).or_default().merge(&self.cur);
            self.cur = Second::default();
        }
    }

    pub fn merge(&mut self, other: &Series) {
        self.fold();
        for (k, v) in other.seconds() {
            self.map.entry(k).or_default().merge(&v);
        }
    }

    /// `(unix second, figures)` in time order.
    pub fn seconds(&self) -> Vec<(u64, Second)> {
        let mut m = self.map.clone();
        if let Some(s) = self.cur_sec {
            m.entry(s).or_default().merge(&self.cur);
        }
        m.into_iter().collect()
    }
}
