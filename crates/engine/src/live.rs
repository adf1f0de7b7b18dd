//! Counters the engine updates while it runs (read by the live progress
//! view), and the summary it returns.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::targets::TargetError;

/// Running totals, updated with relaxed atomics on every request. Share it
/// with [`crate::attack_with_live`] and read it from another task or thread.
#[derive(Debug, Default)]
pub struct LiveStats {
    /// Requests sent so far.
    pub sent: AtomicU64,
    /// Requests completed (with a response or a failure).
    pub completed: AtomicU64,
    /// Completed with 200 ≤ status < 400.
    pub successes: AtomicU64,
    /// Sent but not completed yet.
    pub in_flight: AtomicU64,
    /// Sent later than [`crate::LATE_THRESHOLD`] after their intended time.
    pub late: AtomicU64,
}

impl LiveStats {
    pub fn new() -> std::sync::Arc<LiveStats> {
        std::sync::Arc::new(LiveStats::default())
    }
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }
    pub fn completed(&self) -> u64 {
        self.completed.load(Ordering::Relaxed)
    }
    pub fn successes(&self) -> u64 {
        self.successes.load(Ordering::Relaxed)
    }
    pub fn in_flight(&self) -> u64 {
        self.in_flight.load(Ordering::Relaxed)
    }
    pub fn late(&self) -> u64 {
        self.late.load(Ordering::Relaxed)
    }
}

/// Why sending stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopReason {
    /// `duration` elapsed.
    #[default]
    Duration,
    /// `max_requests` were sent.
    MaxRequests,
    /// The pacer's plan ended, or lazy targets or a replay's records ran out.
    Exhausted,
    /// The shutdown future resolved (Ctrl-C).
    Interrupted,
    /// Reading lazy targets failed (see [`AttackSummary::target_error`]).
    TargetError,
}

/// What the attack did, beyond the samples the sink received.
#[derive(Debug, Default)]
pub struct AttackSummary {
    /// Wall-clock start (offset 0 of every sample), ns since the Unix epoch.
    pub start_unix_ns: u64,
    /// Requests sent (each produced exactly one sample).
    pub requests: u64,
    /// Completed with 200 ≤ status < 400.
    pub successes: u64,
    /// From the first send to the last send.
    pub attack_duration: Duration,
    /// From the last send to the last completion.
    pub wait: Duration,
    /// True when the shutdown future stopped the attack.
    pub interrupted: bool,
    pub stop_reason: StopReason,
    /// Requests sent more than [`crate::LATE_THRESHOLD`] after their intended time.
    pub late: u64,
    /// The largest send lag seen.
    pub max_send_lag: Duration,
    /// Requests the schedule called for before sending stopped that never
    /// went out because every worker was busy: the schedule's shortfall.
    pub unsent: u64,
    /// Requests still in flight after the grace period, recorded as `Canceled`.
    pub canceled: u64,
    /// Samples the sink never received (always 0: the channel applies
    /// backpressure instead of dropping; kept so reports can say so).
    pub dropped_samples: u64,
    /// Workers started (grows up to `max_workers` when the schedule needs it).
    pub workers: u64,
    /// Set when reading `-lazy` targets failed mid-attack; the samples before
    /// the failure were delivered and the sink finished normally.
    pub target_error: Option<TargetError>,
}
