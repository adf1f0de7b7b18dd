//! The attack loop: one loop for every mode, parameterised by the pacer, the
//! stop conditions and the concurrency cap.
//!
//! Workers claim request numbers from a shared counter, in order. A worker
//! that claims request *n* sleeps until `start + pacer.send_at(n)` (an
//! absolute instant), sends, measures, and claims again. When every worker is
//! busy the next request waits for one to free up: it goes out late and the
//! lateness is recorded as send lag (the schedule is never silently thinned).
//! Workers start at `workers`; below the `max_workers` cap a new one is
//! started whenever a send would leave no worker out of flight to claim the
//! next slot, as vegeta grows its pool.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use atomic_waker::AtomicWaker;
use loadlab_core::{ErrorKind, Pacer, Sample, Sink, TargetInfo};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use crate::clock::{Clock, Slot};
use crate::collector::{self, BATCH, Hold, Holds, Msg};
use crate::config::AttackConfig;
use crate::live::{AttackSummary, LiveStats, StopReason};
use crate::request::{Outcome, Template, execute};
use crate::targets::{Target, TargetError, TargetSource};
use crate::timer::PreciseSleep;
use crate::transport::Transport;
use crate::{EngineError, INTERRUPT_GRACE, LATE_THRESHOLD};

/// A worker hands its batch to the sink thread at least this often (each
/// hand-over may wake the sink thread: a futex call and a context switch).
const FLUSH_EVERY: Duration = Duration::from_millis(200);

enum Targets {
    Static(Vec<Arc<Template>>),
    Lazy {
        rx: tokio::sync::Mutex<mpsc::Receiver<Result<Target, TargetError>>>,
        index: Mutex<HashMap<(http::Method, String), u32>>,
    },
}

struct Shared {
    cfg: AttackConfig,
    pacer: Box<dyn Pacer>,
    paced: bool,
    start: Instant,
    cap: u64,
    next: AtomicU64,
    /// Paced claims take this lock so that requests join the clock's gates in
    /// schedule order.
    claim_lock: Mutex<()>,
    clock: Clock,
    /// Workers with a request in flight (paced mode).
    sending: AtomicU64,
    workers: AtomicU64,
    stopping: AtomicBool,
    /// The same as `stopping`, for tasks that wait (lazy target reads).
    stopped: watch::Sender<bool>,
    reason: Mutex<Option<StopReason>>,
    target_error: Mutex<Option<TargetError>>,
    /// Interrupt: sleeping workers give up their claims.
    abort: watch::Receiver<bool>,
    /// End of the grace period: in-flight requests are recorded as canceled.
    cancel: Cancel,
    targets: Targets,
    transport: Transport,
    /// Cloned into each worker; taken at the end so the sink thread sees the channel close.
    tx: Mutex<Option<mpsc::Sender<Msg>>>,
    live: Arc<LiveStats>,
    /// Workers still running, and the signal that the last one exited.
    running: AtomicU64,
    all_done: tokio::sync::Notify,
    first_sent: AtomicU64,
    last_sent: AtomicU64,
    last_done: AtomicU64,
    max_lag: AtomicU64,
    canceled: AtomicU64,
    /// Each worker's earliest unflushed completion (the sink thread writes
    /// samples in completion order with them).
    holds: Arc<Holds>,
}

impl Shared {
    /// No request past this point is claimed. Requests already claimed still
    /// go out: a worker may hold a claim up to a pool's worth of requests
    /// ahead of the clock, and those are part of the schedule.
    fn stop_claims(&self, why: StopReason) {
        let mut r = self.reason.lock().expect("reason lock");
        r.get_or_insert(why);
        self.stopping.store(true, Ordering::Release);
    }

    /// The attack is over: claims stop and waits for lazy targets give up.
    fn stop(&self, why: StopReason) {
        self.stop_claims(why);
        self.stopped.send_replace(true);
    }

    /// True (and claims stop) when request `n` is past `max_requests`.
    fn past_limit(&self, n: u64) -> bool {
        let past = self.cfg.max_requests.is_some_and(|m| n >= m);
        if past {
            self.stop_claims(StopReason::MaxRequests);
        }
        past
    }

    fn offset(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.start).as_nanos() as u64
    }

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

    fn spawn_counted(self: &Arc<Self>) {
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

    async fn next_lazy(
        &self,
        tx: &mpsc::Sender<Msg>,
        abort: &mut watch::Receiver<bool>,
    ) -> Option<(u32, Arc<Template>)> {
        let Targets::Lazy { rx, index } = &self.targets else {
            return None;
        };
        // A generator may block forever (stdin): the end of the attack must
        // not wait for it. A target already read is still taken first
        // (`biased`), so a claimed request is never dropped while its target
        // is at hand.
        let mut stopped = self.stopped.subscribe();
        let got = tokio::select! {
            biased;
            item = async { rx.lock().await.recv().await } => Some(item),
            _ = abort.wait_for(|v| *v) => return None,
            _ = stopped.wait_for(|v| *v) => None,
        };
        let item = match got {
            Some(item) => item,
            None => Some(rx.lock().await.try_recv().ok()?),
        };
        let target = match item {
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
        let tpl = match Template::build(
            &target,
            &self.cfg.headers,
            self.cfg.body.as_ref(),
            &self.transport,
        ) {
            Ok(t) => Arc::new(t),
            Err(reason) => {
                let e = TargetError::Syntax {
                    source_name: "lazy targets".into(),
                    line: 0,
                    reason,
                };
                self.target_error.lock().expect("lock").get_or_insert(e);
                self.stop(StopReason::TargetError);
                return None;
            }
        };
        let key = (target.method.clone(), target.url.clone());
        let (idx, new) = {
            let mut map = index.lock().expect("lock");
            let len = map.len() as u32;
            match map.get(&key) {
                Some(i) => (*i, false),
                None => {
                    map.insert(key, len);
                    (len, true)
                }
            }
        };
        if new {
            let info = TargetInfo {
                method: target.method.to_string(),
                url: crate::targets::redact_url(&target.url).into_owned(),
            };
            let _ = tx.send(Msg::Target(idx, info)).await;
        }
        Some((idx, tpl))
    }
}

/// Cancels every request in flight (the end of an interrupt's grace).
#[derive(Default)]
struct Cancel {
    flag: AtomicBool,
    /// One per worker ever started; an exited worker leaves an empty slot.
    wakers: Mutex<Vec<Arc<AtomicWaker>>>,
}

impl Cancel {
    fn register(&self) -> Arc<AtomicWaker> {
        let w = Arc::new(AtomicWaker::new());
        self.wakers.lock().expect("cancel lock").push(w.clone());
        w
    }

    fn fire(&self) {
        self.flag.store(true, Ordering::Release);
        for w in self.wakers.lock().expect("cancel lock").iter() {
            w.wake();
        }
    }
}

/// The next request a paced worker is to send.
enum Claim {
    Send(u64, Instant, Slot),
    Stop,
}

impl Shared {
    /// Claims the next request of the schedule and places it in a gate.
    fn claim_paced(&self) -> Claim {
        let _order = self.claim_lock.lock().expect("claim lock");
        let n = self.next.fetch_add(1, Ordering::Relaxed);
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
    let mut abort = sh.abort.clone();
    let waker = sh.cancel.register();
    let hold = sh.holds.register();
    let live = &*sh.live;
    loop {
        if sh.stopping.load(Ordering::Acquire) {
            break;
        }
        let (n, intended) = if sh.paced {
            let (n, intended, slot) = match sh.claim_paced() {
                Claim::Send(n, i, s) => (n, i, s),
                Claim::Stop => break,
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
                        _ = abort.wait_for(|v| *v) => break,
                    }
                }
            }
            if sh.clock.aborted() {
                break;
            }
            (n, Some(intended))
        } else {
            let n = sh.next.fetch_add(1, Ordering::Relaxed);
            if sh.past_limit(n) {
                break;
            }
            if sh.cfg.duration.is_some_and(|d| sh.start.elapsed() >= d) {
                sh.stop_claims(StopReason::Duration);
                break;
            }
            (n, None)
        };
        let (target, tpl) = match &sh.targets {
            Targets::Static(v) => {
                let i = (n % v.len() as u64) as usize;
                (i as u32, v[i].clone())
            }
            Targets::Lazy { .. } => match sh.next_lazy(&tx, &mut abort).await {
                Some(x) => x,
                None => {
                    break;
                }
            },
        };

        // Keep workers out of flight, free to claim the next slots: if this
        // send would leave fewer than one (plus one per 16 in flight) free,
        // add workers (up to the cap). A stalled server thus grows the pool
        // as in vegeta, and with a cap the schedule queues and shows as send
        // lag. The headroom matters on a busy runtime: a new worker runs
        // only when its turn comes, so growing one at a time would let only
        // one request out per turn of every busy task.
        if sh.paced {
            let busy = sh.sending.fetch_add(1, Ordering::AcqRel) + 1;
            let want = busy + 1 + busy / 16;
            let have = sh.workers.load(Ordering::Acquire);
            for _ in have..want {
                sh.grow();
            }
        }
        live.sent.fetch_add(1, Ordering::Relaxed);
        live.in_flight.fetch_add(1, Ordering::Relaxed);
        let begin = Instant::now();
        if batch.is_empty() {
            // No sample of this worker can complete before this request starts.
            hold.begin(sh.offset(begin));
        }
        let mut out = Outcome {
            status: 0,
            error: ErrorKind::None,
            bytes_in: 0,
            bytes_out: 0,
            sent: None,
            first_byte: None,
            done: None,
            connect_ns: 0,
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
                &mut out
            ));
            std::future::poll_fn(|cx| {
                waker.register(cx.waker());
                if sh.cancel.flag.load(Ordering::Acquire) {
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

/// Counts requests the schedule called for before `limit` that were not sent.
fn unsent(pacer: &dyn Pacer, sent: u64, limit: Duration, max: Option<u64>) -> u64 {
    let due = |n: u64| max.is_none_or(|m| n < m) && pacer.send_at(n).is_some_and(|t| t < limit);
    if !due(sent) {
        return 0;
    }
    let (mut lo, mut step) = (sent, 1u64);
    while due(lo.saturating_add(step)) && step < (1 << 40) {
        lo += step;
        step *= 2;
    }
    let mut hi = lo.saturating_add(step);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if due(mid) { lo = mid } else { hi = mid }
    }
    lo + 1 - sent
}

/// Runs an attack. See the crate docs for the model. The sink is handed
/// back, finished, with the summary.
pub async fn attack_with_live<S: Sink + 'static>(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: S,
    shutdown: impl Future<Output = ()> + Send,
    live: Arc<LiveStats>,
) -> Result<(AttackSummary, S), EngineError> {
    cfg.validate()?;
    let tls = crate::tls::client_config(&cfg.tls, cfg.http2)?;
    let transport = Transport::new(&cfg, Some(tls));
    let (targets, infos) = match targets {
        TargetSource::Static(ts) => {
            if ts.is_empty() {
                return Err(EngineError::NoTargets);
            }
            let mut tpls = Vec::with_capacity(ts.len());
            let mut infos = Vec::with_capacity(ts.len());
            for (i, t) in ts.iter().enumerate() {
                let tpl = Template::build(t, &cfg.headers, cfg.body.as_ref(), &transport)
                    .map_err(|reason| EngineError::Target { index: i, reason })?;
                tpls.push(Arc::new(tpl));
                infos.push(TargetInfo {
                    method: t.method.to_string(),
                    url: crate::targets::redact_url(&t.url).into_owned(),
                });
            }
            (Targets::Static(tpls), infos)
        }
        TargetSource::Lazy(iter) => {
            let (tx, rx) = mpsc::channel(1024);
            std::thread::Builder::new()
                .name("loadlab-targets".into())
                .spawn(move || {
                    for t in iter {
                        let stop = t.is_err();
                        if tx.blocking_send(t).is_err() || stop {
                            break;
                        }
                    }
                })
                .map_err(EngineError::Runtime)?;
            (
                Targets::Lazy {
                    rx: tokio::sync::Mutex::new(rx),
                    index: Mutex::new(HashMap::new()),
                },
                Vec::new(),
            )
        }
    };

    // The caller may share one LiveStats across attacks: report only ours.
    let base = (live.sent(), live.successes(), live.late());
    let start_unix_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let info = cfg.attack_info(start_unix_ns);
    let holds = Arc::new(Holds::default());
    let collector =
        collector::spawn(sink, info, infos, holds.clone()).map_err(EngineError::Runtime)?;
    let (abort_tx, abort_rx) = watch::channel(false);
    let paced = !cfg.unpaced();
    let cap = cfg.worker_cap().unwrap_or(u64::MAX);
    let initial = if paced {
        cfg.workers.clamp(1, cap)
    } else {
        cap
    };
    let duration = cfg.duration;
    let timeout = cfg.timeout;
    let resolution = cfg.resolution;
    // Collecting responses in step with the clock sleeps the thread that
    // polls the sockets: only on a current-thread runtime is that one thread.
    let in_step = !resolution.is_zero()
        && tokio::runtime::Handle::current().runtime_flavor()
            == tokio::runtime::RuntimeFlavor::CurrentThread;
    let start = Instant::now();
    let sh = Arc::new(Shared {
        pacer: cfg.pacer.build(),
        cfg,
        paced,
        start,
        cap,
        next: AtomicU64::new(0),
        claim_lock: Mutex::new(()),
        clock: Clock::new(resolution),
        sending: AtomicU64::new(0),
        // Counted before any starts, so early claims see the full initial pool.
        workers: AtomicU64::new(initial),
        stopping: AtomicBool::new(false),
        stopped: watch::channel(false).0,
        reason: Mutex::new(None),
        target_error: Mutex::new(None),
        abort: abort_rx,
        cancel: Cancel::default(),
        targets,
        transport,
        tx: Mutex::new(Some(collector.tx)),
        live,
        running: AtomicU64::new(0),
        all_done: tokio::sync::Notify::new(),
        first_sent: AtomicU64::new(u64::MAX),
        last_sent: AtomicU64::new(0),
        last_done: AtomicU64::new(0),
        max_lag: AtomicU64::new(0),
        canceled: AtomicU64::new(0),
        holds,
    });
    for _ in 0..initial {
        sh.spawn_counted();
    }
    let clock_task = (paced && !resolution.is_zero()).then(|| {
        let sh = sh.clone();
        tokio::spawn(async move { sh.clock.run(&sh.live, in_step, &sh.transport).await })
    });

    let mut shutdown = std::pin::pin!(shutdown);
    let far = start + Duration::from_secs(100 * 365 * 24 * 3600);
    let duration_end = tokio::time::sleep_until(duration.map_or(far, |d| start + d));
    let mut duration_end = std::pin::pin!(duration_end);
    let mut duration_armed = duration.is_some();
    let grace_end = tokio::time::sleep_until(far);
    let mut grace_end = std::pin::pin!(grace_end);
    let (mut interrupted, mut interrupt_at, mut cancel_sent) = (false, Duration::ZERO, false);
    loop {
        if sh.running.load(Ordering::Acquire) == 0 {
            break;
        }
        tokio::select! {
            _ = sh.all_done.notified() => continue,
            _ = &mut shutdown, if !interrupted => {
                interrupted = true;
                interrupt_at = start.elapsed();
                sh.stop(StopReason::Interrupted);
                let _ = abort_tx.send(true);
                sh.clock.abort();
                grace_end.as_mut().reset(Instant::now() + INTERRUPT_GRACE.min(timeout));
            }
            _ = &mut duration_end, if duration_armed => {
                duration_armed = false;
                sh.stop(StopReason::Duration);
            }
            _ = &mut grace_end, if interrupted && !cancel_sent => {
                cancel_sent = true;
                sh.cancel.fire();
            }
        }
    }
    if let Some(t) = clock_task {
        t.abort();
        let _ = t.await;
    }
    // Every worker is gone: close the channel so the sink thread drains and finishes.
    drop(sh.tx.lock().expect("tx lock").take());
    let sink = match collector.done.await {
        Ok((Ok(()), sink)) => sink,
        Ok((Err(e), _)) => return Err(EngineError::Sink(e)),
        Err(_) => {
            return Err(EngineError::Sink(std::io::Error::other(
                "the results sink panicked",
            )));
        }
    };
    let live = &sh.live;
    let requests = live.sent() - base.0;
    let stop_reason = sh.reason.lock().expect("reason lock").unwrap_or_default();
    let first = sh.first_sent.load(Ordering::Relaxed);
    let last = sh.last_sent.load(Ordering::Relaxed);
    let last_done = sh.last_done.load(Ordering::Relaxed);
    let (attack_duration, wait) = if requests == 0 {
        (Duration::ZERO, Duration::ZERO)
    } else {
        (
            Duration::from_nanos(last.saturating_sub(first)),
            Duration::from_nanos(last_done.saturating_sub(last)),
        )
    };
    let unsent = if !sh.paced {
        0
    } else {
        let limit = match (stop_reason, duration) {
            (StopReason::Interrupted, _) => Some(interrupt_at),
            (StopReason::Duration, Some(d)) => Some(d),
            _ => None,
        };
        limit.map_or(0, |l| {
            unsent(sh.pacer.as_ref(), requests, l, sh.cfg.max_requests)
        })
    };
    let target_error = sh.target_error.lock().expect("lock").take();
    let summary = AttackSummary {
        start_unix_ns,
        requests,
        successes: live.successes() - base.1,
        attack_duration,
        wait,
        interrupted,
        stop_reason,
        late: live.late() - base.2,
        max_send_lag: Duration::from_nanos(sh.max_lag.load(Ordering::Relaxed)),
        unsent,
        canceled: sh.canceled.load(Ordering::Relaxed),
        dropped_samples: 0,
        workers: sh.workers.load(Ordering::Relaxed),
        target_error,
    };
    Ok((summary, sink))
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadlab_core::Rate;
    use loadlab_core::pacer::ConstantPacer;

    #[test]
    fn unsent_counts_the_schedule_shortfall() {
        let p = ConstantPacer(Rate::per_second(100));
        // 1 s at 100/s schedules requests 0..=99.
        assert_eq!(unsent(&p, 100, Duration::from_secs(1), None), 0);
        assert_eq!(unsent(&p, 60, Duration::from_secs(1), None), 40);
        assert_eq!(unsent(&p, 0, Duration::from_secs(1), None), 100);
        assert_eq!(unsent(&p, 0, Duration::from_secs(1), Some(30)), 30);
        assert_eq!(unsent(&p, 0, Duration::from_secs(3600), None), 360_000);
        assert_eq!(unsent(&p, 10, Duration::ZERO, None), 0);
    }
}
