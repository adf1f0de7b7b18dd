//! The worker loop: claim, wait for the intended instant, send, measure,
//! hand the sample to the sink thread in batches; and the pool that grows
//! by one worker whenever a send would leave none free.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::Duration;

use loadlab_core::{ErrorKind, Sample};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::shared::{Claim, Shared, Targets};
use crate::LATE_THRESHOLD;
use crate::behind::BEHIND_LAG;
use crate::clock::Slot;
use crate::collector::{BATCH, Hold, Msg};
use crate::live::StopReason;
use crate::request::{Outcome, execute};
use crate::timer::PreciseSleep;

/// A worker hands its batch to the sink thread at least this often (each
/// hand-over may wake the sink thread: a futex call and a context switch).
const FLUSH_EVERY: Duration = Duration::from_millis(200);

impl Shared {
    /// Starts one more worker if the cap allows (atomically: concurrent
    /// claims on a multi-thread runtime must not overshoot `max_workers`).
    fn grow(self: &Arc<Self>) {
        let mut w = self.workers.load(Ordering::Relaxed);
        while w < self.cap {
            match self
                .workers
                .compare_exchange_weak(w, w + 1, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return self.spawn_counted(),
                Err(now) => w = now,
            }
        }
    }

    /// Grows the pool to keep workers free beside `sending` in flight:
    /// one, plus one per 16 busy. Late requests waiting for a connection
    /// the client holds (see behind.rs) are not busy: a worker for each
    /// would only add tasks for a client already short of CPU. When one
    /// stops waiting it is busy again, and the supervisor calls this anew.
    pub(super) fn keep_free(self: &Arc<Self>, sending: u64) {
        let busy = sending.saturating_sub(self.transport.waiting_behind());
        let want = busy + 1 + busy / 16;
        let have = self.workers.load(Ordering::Acquire);
        for _ in have..want {
            self.grow();
        }
    }

    pub(super) fn spawn_counted(self: &Arc<Self>) {
        let Some(tx) = self.tx.lock().expect("tx lock").clone() else {
            return;
        };
        self.running.fetch_add(1, Ordering::AcqRel);
        let exit = Exit(self.clone());
        tokio::spawn(async move {
            worker(&exit.0, tx).await;
            drop(exit);
        });
    }
}

/// Reports a worker's exit even if it panicked, so the attack cannot hang
/// waiting for it.
struct Exit(Arc<Shared>);

impl Drop for Exit {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.all_done.notify_one();
        }
    }
}

/// Samples a worker's batch holds: [`BATCH`], less when there are thousands of
/// workers (10,000 connections × 64 samples would be 46 MB of idle buffers).
fn batch_capacity(workers: u64) -> usize {
    (BATCH * 64 / workers.max(1) as usize).clamp(8, BATCH)
}

async fn flush(tx: &mpsc::Sender<Msg>, batch: &mut Vec<Sample>, hold: &Hold) {
    if !batch.is_empty() {
        let cap = batch.capacity();
        let full = std::mem::replace(batch, Vec::with_capacity(cap));
        let _ = tx.send(Msg::Batch(full)).await;
        hold.clear();
    }
}

/// One worker: claims, waits for the intended instant, sends, records. The
/// sample channel sender is dropped before the worker reports its exit.
async fn worker(sh: &Arc<Shared>, tx: mpsc::Sender<Msg>) {
    // With `-resolution=0` each worker sleeps on its own precise timer.
    let mut own_timer: Option<PreciseSleep> = None;
    let mut batch: Vec<Sample> =
        Vec::with_capacity(batch_capacity(sh.workers.load(Ordering::Relaxed)));
    let mut batch_started = Instant::now();
    let waker = sh.cancel.register();
    let hold = sh.holds.register();
    let live = &*sh.live;
    loop {
        if sh.stopping.is_set() {
            break;
        }
        // A replay's claim brings its own target.
        let mut replayed = None;
        let (n, intended) = if sh.paced {
            let (n, intended, slot) = if matches!(sh.targets, Targets::Replay { .. }) {
                let Some(c) = sh.claim_replay(&tx).await else {
                    break;
                };
                replayed = Some(c.target);
                (c.n, c.intended, c.slot)
            } else {
                match sh.claim_paced() {
                    Claim::Send(n, i, s) => (n, i, s),
                    Claim::Stop => break,
                }
            };
            // Don't let a long wait hold samples past the flush interval.
            if slot
                .until()
                .is_some_and(|t| !batch.is_empty() && t > batch_started + FLUSH_EVERY)
            {
                flush(&tx, &mut batch, &hold).await;
            }
            match slot {
                Slot::Now => {}
                // An interrupt opens every gate (Clock::abort).
                Slot::Wait(gate) => gate.wait().await,
                Slot::Own(at) => {
                    let sleeper = own_timer.get_or_insert_with(PreciseSleep::new);
                    tokio::select! {
                        _ = sleeper.until(at) => {}
                        _ = sh.clock.abort_signal().wait() => break,
                    }
                }
            }
            if sh.clock.aborted() {
                break;
            }
            (n, Some(intended))
        } else {
            let j = sh.next.fetch_add(1, Ordering::Relaxed);
            let Some(n) = sh.cfg.segment.global(j) else {
                break;
            };
            if sh.past_limit(n) {
                break;
            }
            (n, None)
        };
        let (target, tpl) = match &sh.targets {
            Targets::Static(v, order) => {
                let i = match order {
                    None => (n % v.len() as u64) as usize,
                    Some(o) => o[(n % o.len() as u64) as usize] as usize,
                };
                (i as u32, v[i].clone())
            }
            Targets::Replay { .. } => match replayed.take() {
                Some(x) => x,
                None => break,
            },
            Targets::Lazy { .. } => match sh.next_lazy(&tx).await {
                Some(x) => x,
                None => {
                    break;
                }
            },
        };

        let begin = Instant::now();
        // An unpaced attack ends at its duration, read on the clock reading
        // that stamps the request (its sample's `sent` on a reused
        // connection): none of its requests goes out after the duration.
        if !sh.paced
            && sh
                .cfg
                .duration
                .is_some_and(|d| begin.saturating_duration_since(sh.start) >= d)
        {
            sh.stop_claims(StopReason::Duration);
            break;
        }

        // Keep workers out of flight, free to claim the next slots: if this
        // send would leave fewer than one (plus one per 16 in flight) free,
        // add workers (up to the cap). A stalled server thus grows the pool
        // as in vegeta, and with a cap the schedule queues and shows as send
        // lag. The headroom matters on a busy runtime: a new worker runs
        // only when its turn comes, so growing one at a time would let only
        // one request out per turn of every busy task.
        if sh.paced {
            sh.keep_free(sh.sending.fetch_add(1, Ordering::AcqRel) + 1);
        }
        live.sent.fetch_add(1, Ordering::Relaxed);
        live.in_flight.fetch_add(1, Ordering::Relaxed);
        if batch.is_empty() {
            // No sample of this worker can complete before this request starts.
            hold.begin(sh.offset(begin));
        }
        let mut out = Outcome {
            status: 0,
            error: ErrorKind::None,
            bytes_in: 0,
            body_wire: 0,
            bytes_out: 0,
            sent: None,
            first_byte: None,
            done: None,
            connect_ns: 0,
            // Late at dispatch: the client is behind its schedule.
            behind: intended.is_some_and(|i| begin.saturating_duration_since(i) > BEHIND_LAG),
        };
        let deadline = begin + sh.cfg.timeout;
        let canceled = {
            // Registering this worker's waker is two atomic operations; a
            // waiter on a channel would take and release a lock twice per
            // request.
            let mut run = std::pin::pin!(execute(
                &tpl,
                &sh.transport,
                sh.cfg.redirects,
                begin,
                deadline,
                n,
                &mut out
            ));
            std::future::poll_fn(|cx| {
                waker.register(cx.waker());
                if sh.cancel.signal.is_set() {
                    return Poll::Ready(true);
                }
                run.as_mut().poll(cx).map(|()| false)
            })
            .await
        };
        let now = Instant::now();
        // The kernel's receive stamp of the last byte where there is one: a
        // response is not later for having been read later.
        let done = out.done.filter(|d| *d <= now).unwrap_or(now);
        if canceled {
            out.status = 0;
            out.error = ErrorKind::Canceled;
            sh.canceled.fetch_add(1, Ordering::Relaxed);
        }
        let sent_ns = sh.offset(out.sent.unwrap_or(begin));
        // The schedule is kept as it was: a request of a group may have gone
        // out early (see clock.rs); its latency then counts from the send.
        let intended_ns = intended.map_or(sent_ns, |i| sh.offset(i));
        let lag = sent_ns.saturating_sub(intended_ns);
        if lag > LATE_THRESHOLD.as_nanos() as u64 {
            live.late.fetch_add(1, Ordering::Relaxed);
        }
        sh.max_lag.fetch_max(lag, Ordering::Relaxed);
        sh.first_sent.fetch_min(sent_ns, Ordering::Relaxed);
        sh.last_sent.fetch_max(sent_ns, Ordering::Relaxed);
        let done_ns = sh.offset(done).max(sent_ns);
        sh.last_done.fetch_max(done_ns, Ordering::Relaxed);
        let sample = Sample {
            seq: n,
            target,
            intended_ns,
            sent_ns,
            first_byte_ns: out.first_byte.map_or(0, |t| sh.offset(t).max(1)),
            done_ns,
            connect_ns: out.connect_ns,
            status: out.status,
            error: out.error,
            bytes_out: out.bytes_out,
            bytes_in: out.bytes_in,
            wire_in: Sample::wire_in_of(out.bytes_in, out.body_wire),
        };
        live.in_flight.fetch_sub(1, Ordering::Relaxed);
        live.completed.fetch_add(1, Ordering::Relaxed);
        if sample.is_success() {
            live.successes.fetch_add(1, Ordering::Relaxed);
        }
        if batch.is_empty() {
            batch_started = done;
        }
        batch.push(sample);
        if batch.len() >= batch.capacity() || done - batch_started >= FLUSH_EVERY {
            flush(&tx, &mut batch, &hold).await;
        }
        if sh.paced {
            sh.sending.fetch_sub(1, Ordering::AcqRel);
        }
        if canceled {
            break;
        }
    }
    flush(&tx, &mut batch, &hold).await;
    // The registry keeps the waker's slot; let go of this task's waker.
    drop(waker.take());
    drop(tx);
}
