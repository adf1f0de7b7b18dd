//! Replays (`TargetSource::Replay`): a thread reads the records into a
//! bounded channel; a paced worker's claim takes the next record, whose
//! offset is the request's intended instant and whose target is what it
//! sends. The schedule and the target come from the same record, so the
//! pacer is not asked; everything after the claim (the send clock's gates,
//! the send, the measurement from the intended instant) is the same as for
//! any paced attack.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::shared::{Shared, Targets};
use crate::EngineError;
use crate::clock::Slot;
use crate::collector::Msg;
use crate::live::StopReason;
use crate::request::Template;
use crate::targets::{TargetError, Timed};

/// A replayed request claimed: its number, intended instant, place in the
/// send clock, and target.
pub(super) struct ReplayClaim {
    pub(super) n: u64,
    pub(super) intended: Instant,
    pub(super) slot: Slot,
    pub(super) target: (u32, Arc<Template>),
}

impl Shared {
    /// Claims the next record of a replay, or `None` when the claims stop
    /// (the records ended, a limit, an interrupt, a record that cannot be
    /// sent).
    pub(super) async fn claim_replay(&self, tx: &mpsc::Sender<Msg>) -> Option<ReplayClaim> {
        let Targets::Replay { rx, .. } = &self.targets else {
            return None;
        };
        // The receiver's lock is held from the record to its gate, so that
        // requests join the clock's gates in schedule order.
        let mut rx = tokio::select! {
            biased;
            _ = self.clock.abort_signal().wait() => return None,
            _ = self.stopping.wait() => return None,
            rx = rx.lock() => rx,
        };
        if self.stopping.is_set() {
            return None;
        }
        let item = tokio::select! {
            biased;
            item = rx.recv() => item,
            _ = self.clock.abort_signal().wait() => return None,
            _ = self.stopping.wait() => return None,
        };
        let timed = match item {
            None => {
                self.stop(StopReason::Exhausted);
                return None;
            }
            Some(Err(e)) => {
                self.target_error.lock().expect("lock").get_or_insert(e);
                self.stop(StopReason::TargetError);
                return None;
            }
            Some(Ok(t)) => t,
        };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        if self.past_limit(n) {
            return None;
        }
        if self.cfg.duration.is_some_and(|d| timed.at >= d) {
            self.stop_claims(StopReason::Duration);
            return None;
        }
        let target = self.admit(&timed.target, "replay", tx).await?;
        let intended = self.start + timed.at;
        let slot = {
            let _order = self.claim_lock.lock().expect("claim lock");
            self.clock.slot(intended, Instant::now())
        };
        drop(rx);
        Some(ReplayClaim {
            n,
            intended,
            slot,
            target,
        })
    }
}

/// Records the reader keeps ready ahead of the claims.
const FEED_AHEAD: usize = 32;

/// Starts the thread that reads a replay's records into a bounded channel.
/// The first record is read here, before the schedule starts: filling the
/// reorder window takes a moment that must not make the first sends late.
pub(super) fn feed(
    mut iter: Box<dyn Iterator<Item = Result<Timed, TargetError>> + Send>,
) -> Result<Targets, EngineError> {
    // A short channel: the reader parses a few records at a time, so on a
    // busy core it never holds the CPU long enough to make a send late.
    let (tx, rx) = mpsc::channel(FEED_AHEAD);
    let first = iter.next();
    std::thread::Builder::new()
        .name("loadlab-replay".into())
        .spawn(move || {
            for t in first.into_iter().chain(iter) {
                let stop = t.is_err();
                if tx.blocking_send(t).is_err() || stop {
                    break;
                }
            }
        })
        .map_err(EngineError::Runtime)?;
    Ok(Targets::Replay {
        rx: tokio::sync::Mutex::new(rx),
        index: Mutex::new(HashMap::new()),
    })
}
