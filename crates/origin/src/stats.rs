//! Per-route counters and latency histograms, updated without locks.
//!
//! Every request touches only its own route's atomics. The histogram is a
//! log-linear bucket array (64 sub-buckets per power of two, ≤1.6% error),
//! the same idea as HdrHistogram but with atomic buckets so that requests on
//! different workers never wait for each other.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};

const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS; // 64
/// Enough buckets for values up to 2^40 µs (about 12 days).
const BUCKETS: usize = ((40 - SUB_BITS as usize) + 2) * SUB as usize;

/// A lock-free latency histogram in microseconds.
pub struct AtomicHistogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    sum_us: AtomicU64,
    max_us: AtomicU64,
}

impl Default for AtomicHistogram {
    fn default() -> Self {
        AtomicHistogram {
            buckets: (0..BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_us: AtomicU64::new(0),
            max_us: AtomicU64::new(0),
        }
    }
}

fn index_of(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros();
    let shift = msb - SUB_BITS;
    ((shift as u64 * SUB) + (v >> shift)) as usize
}

fn lowest_of(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < 2 * SUB {
        return idx;
    }
    let shift = idx / SUB - 1;
    (idx - shift * SUB) << shift
}

impl AtomicHistogram {
    pub fn record(&self, us: u64) {
        let i = index_of(us).min(BUCKETS - 1);
        self.buckets[i].fetch_add(1, Relaxed);
        self.count.fetch_add(1, Relaxed);
        self.sum_us.fetch_add(us, Relaxed);
        self.max_us.fetch_max(us, Relaxed);
    }

    pub fn count(&self) -> u64 {
        self.count.load(Relaxed)
    }

    /// Value (µs) at quantile `q` in [0, 1], reported as the bucket's upper edge.
    pub fn quantile(&self, q: f64) -> u64 {
        let counts: Vec<u64> = self.buckets.iter().map(|b| b.load(Relaxed)).collect();
        let total: u64 = counts.iter().sum();
        if total == 0 {
            return 0;
        }
        let rank = ((q * total as f64).ceil() as u64).clamp(1, total);
        let mut seen = 0;
        for (i, c) in counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let hi = lowest_of(i + 1).saturating_sub(1);
                return hi.min(self.max_us.load(Relaxed)).max(lowest_of(i));
            }
        }
        self.max_us.load(Relaxed)
    }

    pub fn mean_us(&self) -> f64 {
        let c = self.count();
        if c == 0 {
            0.0
        } else {
            self.sum_us.load(Relaxed) as f64 / c as f64
        }
    }

    pub fn sum_us(&self) -> u64 {
        self.sum_us.load(Relaxed)
    }

    pub fn max_us(&self) -> u64 {
        self.max_us.load(Relaxed)
    }
}

/// What happened to requests that got no normal response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultCount {
    Reset = 0,
    Close = 1,
    Hang = 2,
    Slow = 3,
    Truncate = 4,
}

pub const FAULT_NAMES: [&str; 5] = ["reset", "close", "hang", "slow", "truncate"];

/// Counters of one route. Kept across re-posts of the same route; reset by `restart`.
pub struct RouteStats {
    pub route: String,
    by_status: Box<[AtomicU64]>, // index = status - 100
    faults: [AtomicU64; 5],
    pub in_flight: AtomicI64,
    pub queued: AtomicI64,
    pub rejected: AtomicU64,
    pub latency: AtomicHistogram,
}

impl RouteStats {
    pub fn new(route: &str) -> Self {
        RouteStats {
            route: route.to_string(),
            by_status: (0..500).map(|_| AtomicU64::new(0)).collect(),
            faults: Default::default(),
            in_flight: AtomicI64::new(0),
            queued: AtomicI64::new(0),
            rejected: AtomicU64::new(0),
            latency: AtomicHistogram::default(),
        }
    }

    pub fn count_status(&self, status: u16) {
        if let Some(c) = self.by_status.get((status as usize).wrapping_sub(100)) {
            c.fetch_add(1, Relaxed);
        }
    }

    pub fn count_fault(&self, f: FaultCount) {
        self.faults[f as usize].fetch_add(1, Relaxed);
    }

    /// (status, count) for every status seen.
    pub fn statuses(&self) -> Vec<(u16, u64)> {
        self.by_status
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let n = c.load(Relaxed);
                (n > 0).then_some((i as u16 + 100, n))
            })
            .collect()
    }

    pub fn faults(&self) -> [u64; 5] {
        std::array::from_fn(|i| self.faults[i].load(Relaxed))
    }
}

/// Decrements a counter when dropped (in-flight, queued), so early returns and
/// dropped futures (client gone) keep it right.
pub struct Gauge<'a>(&'a AtomicI64);

impl<'a> Gauge<'a> {
    pub fn enter(g: &'a AtomicI64) -> Self {
        g.fetch_add(1, Relaxed);
        Gauge(g)
    }
}

impl Drop for Gauge<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_tight() {
        for v in [0u64, 1, 127, 128, 129, 1000, 123_456, 10_000_000, 1 << 39] {
            let i = index_of(v);
            assert!(lowest_of(i) <= v && v < lowest_of(i + 1), "v={v} i={i}");
            assert!((lowest_of(i + 1) - lowest_of(i)) as f64 <= (v as f64 / 60.0).max(1.0));
        }
    }

    #[test]
    fn quantiles() {
        let h = AtomicHistogram::default();
        for v in 1..=1000u64 {
            h.record(v * 100);
        }
        let p50 = h.quantile(0.5) as f64;
        assert!((p50 - 50_000.0).abs() / 50_000.0 < 0.02, "{p50}");
        let p99 = h.quantile(0.99) as f64;
        assert!((p99 - 99_000.0).abs() / 99_000.0 < 0.02, "{p99}");
        assert_eq!(h.quantile(1.0), 100_000);
        assert_eq!(h.count(), 1000);
    }
}
