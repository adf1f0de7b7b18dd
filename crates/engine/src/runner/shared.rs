//! The state of one attack, shared by the supervisor and every worker behind
//! an `Arc`: the schedule's counters, the stop flags, the targets, the
//! transport and the channel to the sink thread; and the claims of the
//! schedule (`claim_paced`, the stop conditions).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use loadlab_core::Pacer;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::cancel::Cancel;
use crate::clock::{Clock, Slot};
use crate::collector::{Holds, Msg};
use crate::config::AttackConfig;
use crate::live::{LiveStats, StopReason};
use crate::request::Template;
use crate::stop::StopSignal;
use crate::targets::{Target, TargetError, Timed};
use crate::transport::Transport;

pub(super) enum Targets {
    /// The targets, and with a weighted mix one cycle of their order.
    Static(Vec<Arc<Template>>, Option<Box<[u32]>>),
    Lazy {
        rx: tokio::sync::Mutex<mpsc::Receiver<Result<Target, TargetError>>>,
        index: Mutex<HashMap<(http::Method, String), u32>>,
    },
    /// A replay's records, each with its own send offset (see `replay.rs`).
    Replay {
        rx: tokio::sync::Mutex<mpsc::Receiver<Result<Timed, TargetError>>>,
        index: Mutex<HashMap<(http::Method, String), u32>>,
    },
}

pub(super) struct Shared {
    pub(super) cfg: AttackConfig,
    pub(super) pacer: Box<dyn Pacer>,
    pub(super) paced: bool,
    pub(super) start: Instant,
    pub(super) cap: u64,
    /// The next request of this worker's segment to claim (local count; the
    /// global sequence number is `cfg.segment.global(next)`).
    pub(super) next: AtomicU64,
    /// Paced claims take this lock so that requests join the clock's gates in
    /// schedule order.
    pub(super) claim_lock: Mutex<()>,
    /// The send clock. Its abort signal is the interrupt: sleeping workers
    /// give up their claims.
    pub(super) clock: Clock,
    /// Workers with a request in flight (paced mode).
    pub(super) sending: AtomicU64,
    pub(super) workers: AtomicU64,
    /// No more claims (see `stop_claims`).
    pub(super) stopping: StopSignal,
    /// The attack is over (see `stop`): waits for lazy targets give up.
    pub(super) stopped: StopSignal,
    pub(super) reason: Mutex<Option<StopReason>>,
    pub(super) target_error: Mutex<Option<TargetError>>,
    /// End of the grace period: in-flight requests are recorded as canceled.
    pub(super) cancel: Cancel,
    pub(super) targets: Targets,
    pub(super) transport: Transport,
    /// Cloned into each worker; taken at the end so the sink thread sees the channel close.
    pub(super) tx: Mutex<Option<mpsc::Sender<Msg>>>,
    pub(super) live: Arc<LiveStats>,
    /// Workers still running, and the signal that the last one exited.
    pub(super) running: AtomicU64,
    pub(super) all_done: tokio::sync::Notify,
    pub(super) first_sent: AtomicU64,
    pub(super) last_sent: AtomicU64,
    pub(super) last_done: AtomicU64,
    pub(super) max_lag: AtomicU64,
    pub(super) canceled: AtomicU64,
    /// Each worker's earliest unflushed completion (the sink thread writes
    /// samples in completion order with them).
    pub(super) holds: Arc<Holds>,
}

impl Shared {
    /// No request past this point is claimed. Requests already claimed still
    /// go out: a worker may hold a claim up to a pool's worth of requests
    /// ahead of the clock, and those are part of the schedule.
    pub(super) fn stop_claims(&self, why: StopReason) {
        let mut r = self.reason.lock().expect("reason lock");
        r.get_or_insert(why);
        self.stopping.fire();
    }

    /// The attack is over: claims stop and waits for lazy targets give up.
    pub(super) fn stop(&self, why: StopReason) {
        self.stop_claims(why);
        self.stopped.fire();
    }

    /// True (and claims stop) when request `n` is past `max_requests`.
    pub(super) fn past_limit(&self, n: u64) -> bool {
        let past = self.cfg.max_requests.is_some_and(|m| n >= m);
        if past {
            self.stop_claims(StopReason::MaxRequests);
        }
        past
    }

    pub(super) fn offset(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.start).as_nanos() as u64
    }
}

/// The next request a paced worker is to send.
pub(super) enum Claim {
    Send(u64, Instant, Slot),
    Stop,
}

impl Shared {
    /// Claims the next request of the schedule and places it in a gate.
    pub(super) fn claim_paced(&self) -> Claim {
        let _order = self.claim_lock.lock().expect("claim lock");
        let j = self.next.fetch_add(1, Ordering::Relaxed);
        // A segment's j-th request is global request n = j·count + index.
        let Some(n) = self.cfg.segment.global(j) else {
            self.stop_claims(StopReason::Exhausted);
            return Claim::Stop;
        };
        if self.past_limit(n) {
            return Claim::Stop;
        }
        let Some(off) = self.pacer.send_at(n) else {
            self.stop_claims(StopReason::Exhausted);
            return Claim::Stop;
        };
        if self.cfg.duration.is_some_and(|d| off >= d) {
            self.stop_claims(StopReason::Duration);
            return Claim::Stop;
        }
        let intended = self.start + off;
        Claim::Send(n, intended, self.clock.slot(intended, Instant::now()))
    }
}
