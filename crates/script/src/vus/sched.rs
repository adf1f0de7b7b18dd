//! The scheduler: the VUs' coroutines, their requests, sleeps and
//! deadlines, an iteration's start, end and abort.

use std::cell::Cell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Poll, Waker};
use std::time::Duration;

use loadlab_engine::client::{Client, Owner};
use rquickjs::Object;
use tokio::time::Instant;

use crate::config::Options;
use crate::inflight::{Boxes, InFlight};
use crate::js::error::with_stack_end;
use crate::js::vu::{self, Op, Resume, VuCoroutine};
use crate::log::Level;

use crate::http_result::ms;
use crate::state::run_state::RunState;
use crate::vus::wake::*;
use crate::vus::watchdog;

/// One VU: its context and coroutine.
pub(crate) struct Slot<'js> {
    /// The VU's own values: `ns` (its instance of the script's module),
    /// `data` (its copy of setup()'s result), `result` and `phase` (VU 0);
    /// its `ctx()` is the run's context.
    pub(crate) holder: Object<'js>,
    pub(crate) co: Option<VuCoroutine>,
    /// Waiting on an op (HTTP or sleep) or running an iteration.
    pub(crate) busy: bool,
    pub(crate) scenario: usize,
    pub(crate) intended: Instant,
    pub(crate) started: Instant,
    /// When the iteration's function returned, if the VU then waited out
    /// `minIterationDuration` (the wait is not the iteration's, as in k6).
    pub(crate) exec_end: Rc<Cell<Option<Instant>>>,
    pub(crate) iters: u64,
    /// Counts ops, so a late answer to an aborted one is ignored.
    pub(crate) op_gen: u64,
}

/// The owner of VU `i`'s connections under `noVUConnectionReuse`.
pub(crate) fn owner_of(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

pub(crate) struct Sched<'a, 'js> {
    pub(crate) shared: &'a Rc<RunState>,
    pub(crate) slots: &'a mut Vec<Slot<'js>>,
    pub(crate) client: &'a Rc<Client>,
    /// Each VU's request in flight, polled by the scheduler when its
    /// waker (`wakers`) queues it in `ready`.
    pub(crate) http: Vec<InFlight>,
    /// The single requests' boxes, reused (see [`Boxes`]).
    pub(crate) boxes: Boxes,
    pub(crate) wakers: Vec<(Arc<VuWaker>, Waker)>,
    pub(crate) ready: Arc<Ready>,
    /// The VUs taken off `ready` for a pass (kept to reuse its memory).
    pub(crate) polling: Vec<usize>,
    pub(crate) script_errors: u64,
    /// Sleeping VUs: (wake-up, VU, op generation), the earliest on top.
    /// The scheduler's one timer wakes for the first, instead of a task
    /// and a timer per sleep (CPU per request).
    pub(crate) sleepers: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    /// The deadlines of the requests in flight: (deadline, VU, op
    /// generation), the earliest on top. The requests have no timer of
    /// their own ([`Client::send_polled`]): at its deadline a request is
    /// polled once more, and times out.
    pub(crate) deadlines: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    /// `noVUConnectionReuse` or `--local-ips`: VU `i`'s requests take and
    /// open owner `i + 1`'s keep-alive connections (see [`Sched::owner`]).
    pub(crate) own_conns: bool,
    /// `noVUConnectionReuse`: a VU's connections are closed when its
    /// iteration ends.
    pub(crate) close_conns: bool,
    /// `--local-ips`: the addresses VUs dial from.
    pub(crate) local_ips: Option<std::sync::Arc<crate::local_ips::IpPool>>,
    /// Each scenario's graceful stop's end: a VU of it still running its
    /// JavaScript then is interrupted (`vus::watchdog`).
    pub(crate) hard_ends: Vec<Instant>,
    /// setup()'s or teardown()'s deadline, likewise.
    pub(crate) special_deadline: Option<Instant>,
    /// The caller's stop (Ctrl-C) that interrupts the VUs' JavaScript.
    pub(crate) stop: crate::StopSwitch,
    /// How long sleeping VUs waited past their wake-up for the JS thread
    /// (beyond the timer's 1 ms grid): in all, and the longest wait.
    pub(crate) js_wait: (Duration, Duration),
}

impl<'a, 'js> Sched<'a, 'js> {
    /// The scheduler of the run's VUs.
    pub(crate) fn new(
        shared: &'a Rc<RunState>,
        options: &Options,
        slots: &'a mut Vec<Slot<'js>>,
        client: &'a Rc<Client>,
    ) -> Self {
        let ready = Arc::new(Ready::default());
        let wakers = (0..slots.len())
            .map(|vu| {
                let w = Arc::new(VuWaker {
                    vu,
                    queued: AtomicBool::new(false),
                    ready: ready.clone(),
                });
                (w.clone(), Waker::from(w))
            })
            .collect();
        Sched {
            shared,
            http: (0..slots.len()).map(|_| InFlight::default()).collect(),
            boxes: Boxes::default(),
            slots,
            client,
            wakers,
            ready,
            polling: Vec::new(),
            script_errors: 0,
            sleepers: BinaryHeap::new(),
            deadlines: BinaryHeap::new(),
            own_conns: shared.http.request.no_vu_connection_reuse || options.local_ips.is_some(),
            close_conns: shared.http.request.no_vu_connection_reuse,
            local_ips: options.local_ips.clone(),
            hard_ends: Vec::new(),
            special_deadline: None,
            stop: crate::StopSwitch::default(),
            js_wait: (Duration::ZERO, Duration::ZERO),
        }
    }

    /// Whose connections VU `i`'s requests take and open: shared ones
    /// unless its connections are its own (`noVUConnectionReuse`,
    /// `--local-ips`); then owner `i + 1`'s and, with `--local-ips`, from
    /// its address (VU n dials from the pool's address n - 1, as in k6).
    pub(crate) fn owner(&self, i: usize) -> Owner {
        if !self.own_conns {
            return Owner::default();
        }
        let laddr = self
            .local_ips
            .as_ref()
            .map(|p| p.get(i.saturating_sub(1) as u64));
        Owner {
            id: owner_of(i),
            laddr,
        }
    }

    /// When the first sleeping VU wakes up, or a request's deadline passes.
    pub(crate) fn next_wake(&self) -> Option<Instant> {
        let s = self.sleepers.peek().map(|r| r.0.0);
        let d = self.deadlines.peek().map(|r| r.0.0);
        match (s, d) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True while VU `i` still waits for the request of generation `g`.
    pub(crate) fn in_flight(&self, i: usize, g: u64) -> bool {
        self.slots[i].op_gen == g && self.http[i].is_busy()
    }

    /// Queues for a poll the requests whose deadline passed by `now` (the
    /// poll ends them with a timeout).
    pub(crate) fn expire_requests(&mut self, now: Instant) {
        while let Some(&Reverse((t, i, g))) = self.deadlines.peek() {
            if t > now {
                break;
            }
            self.deadlines.pop();
            if self.in_flight(i, g) {
                self.wakers[i].0.queue();
            }
        }
    }

    /// Keeps a request's deadline. Entries of requests that ended are
    /// dropped when they come up, or here once they outnumber the VUs (so
    /// the queue stays as small as the VUs, not as the requests of the
    /// last minute).
    pub(crate) fn add_deadline(&mut self, at: Instant, i: usize, g: u64) {
        if self.deadlines.len() >= 2 * self.slots.len() + 64 {
            let live: Vec<_> = std::mem::take(&mut self.deadlines)
                .into_iter()
                .filter(|&Reverse((_, i, g))| self.in_flight(i, g))
                .collect();
            self.deadlines = live.into();
        }
        self.deadlines.push(Reverse((at, i, g)));
    }

    /// Resumes the VUs whose sleep is over by `now`; the iterations that
    /// thereby ended go to `done`.
    pub(crate) fn wake_sleepers(
        &mut self,
        now: Instant,
        done: &mut Vec<(usize, Result<(), String>)>,
    ) {
        while let Some(&Reverse((t, i, g))) = self.sleepers.peek() {
            if t > now {
                break;
            }
            self.sleepers.pop();
            // Late: another VU's JavaScript held the thread.
            let late = now - t;
            if late > Duration::from_millis(2) {
                self.js_wait.0 += late;
                self.js_wait.1 = self.js_wait.1.max(late);
            }
            // A VU aborted meanwhile has a newer generation.
            if self.slots[i].op_gen == g
                && let Some(r) = self.resume(i, Resume::Slept)
            {
                done.push((i, r));
            }
        }
    }

    /// Handles what a VU yielded; returns the iteration's end if it ended.
    pub(crate) fn handle(&mut self, i: usize, op: Option<Op>) -> Option<Result<(), String>> {
        let slot = &mut self.slots[i];
        match op {
            None => {
                slot.co = None;
                slot.busy = false;
                Some(Err("the VU ended".into()))
            }
            Some(Op::Done(r)) => {
                slot.busy = false;
                Some(r)
            }
            Some(Op::Sleep(d)) => {
                slot.op_gen += 1;
                self.sleepers
                    .push(Reverse((Instant::now() + d, i, slot.op_gen)));
                None
            }
            Some(Op::Wait(make, at)) => {
                slot.op_gen += 1;
                let g = slot.op_gen;
                let fut = make(self.client.clone(), self.owner(i));
                let inflight = &mut self.http[i];
                inflight.start_batch(
                    &mut self.boxes,
                    Box::pin(async move {
                        fut.await;
                        Vec::new()
                    }),
                );
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let boxes = &mut self.boxes;
                if inflight.poll_started(&mut cx, boxes) {
                    self.wakers[i].0.queue();
                }
                if let Some(at) = at {
                    self.add_deadline(at, i, g);
                }
                None
            }
            Some(Op::Http(mut reqs)) => {
                slot.op_gen += 1;
                let g = slot.op_gen;
                let client = self.client.clone();
                let owner = self.owner(i);
                for r in &mut reqs {
                    r.owner = owner;
                }
                let begin = Instant::now();
                // Each request is polled at its deadline (a batch's may differ).
                let first = reqs.first().map_or(Duration::ZERO, |r| r.timeout);
                let mut others: Vec<Duration> = reqs
                    .iter()
                    .skip(1)
                    .map(|r| r.timeout)
                    .filter(|&t| t != first)
                    .collect();
                let inflight = &mut self.http[i];
                if reqs.len() == 1 {
                    let r = reqs.pop().expect("one request");
                    inflight.start_one(&mut self.boxes, client, r, begin);
                } else {
                    // Unconstrained: see `inflight::one_request`.
                    inflight.start_batch(
                        &mut self.boxes,
                        Box::pin(tokio::task::unconstrained(send_all(
                            client,
                            reqs,
                            begin,
                            self.shared.http.request.batch_limits(),
                        ))),
                    );
                }
                // Polled at once: the request is written before any other
                // VU runs (and finds the URL the VU just checked parsed).
                // A request that ends here (a bad URL) is handed over by
                // the next pass, not by a resume from inside this one.
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let boxes = &mut self.boxes;
                if inflight.poll_started(&mut cx, boxes) {
                    self.wakers[i].0.queue();
                }
                self.add_deadline(begin + first, i, g);
                others.sort_unstable();
                others.dedup();
                for t in others {
                    self.add_deadline(begin + t, i, g);
                }
                None
            }
        }
    }

    /// Polls the requests whose wakers fired (and those just made);
    /// resumes the VUs whose responses are complete. Iterations that
    /// thereby ended go to `done`. Returns after a bounded number of
    /// passes so that the runtime's other tasks (HTTP/2 connections) run.
    pub(crate) fn poll_ready(&mut self, done: &mut Vec<(usize, Result<(), String>)>) {
        for _ in 0..16 {
            {
                let mut list = self.ready.list.lock().expect("ready lock");
                if list.is_empty() {
                    return;
                }
                std::mem::swap(&mut *list, &mut self.polling);
            }
            let mut batch = std::mem::take(&mut self.polling);
            for &i in &batch {
                self.wakers[i].0.queued.store(false, Ordering::Release);
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let (http, boxes) = (&mut self.http[i], &mut self.boxes);
                let polled = http.poll(&mut cx, boxes);
                if let Poll::Ready(resps) = polled
                    && let Some(r) = self.resume(i, Resume::Http(resps))
                {
                    done.push((i, r));
                }
            }
            batch.clear();
            self.polling = batch;
        }
    }

    /// True when a VU's request made progress and awaits a poll.
    pub(crate) fn has_ready(&self) -> bool {
        !self.ready.list.lock().expect("ready lock").is_empty()
    }

    /// Waits until some VU's request made progress (see [`Ready`]).
    pub(crate) fn wait_ready(&self) -> impl Future<Output = ()> + use<> {
        let ready = self.ready.clone();
        std::future::poll_fn(move |cx| {
            // The waker first, then the check: a wake from another thread
            // (a DNS look-up's) in between still finds the waker.
            {
                let mut w = ready.waker.lock().expect("ready lock");
                match &*w {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    _ => *w = Some(cx.waker().clone()),
                }
            }
            if ready.list.lock().expect("ready lock").is_empty() {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
    }

    pub(crate) fn resume(&mut self, i: usize, input: Resume) -> Option<Result<(), String>> {
        let sc = self.slots[i].scenario;
        let deadline = match self.hard_ends.get(sc) {
            Some(t) => Some(*t),
            None => self.special_deadline,
        };
        watchdog::set_deadline(deadline.map(Instant::into_std));
        let op = match self.slots[i].co.as_mut() {
            Some(co) => vu::resume(co, input),
            None => None,
        };
        watchdog::set_deadline(None);
        let fired = watchdog::take_fired();
        match self.handle(i, op) {
            // Its JavaScript was stopped (past its deadline, or Ctrl-C).
            Some(Err(_)) if fired => Some(Err(INTERRUPTED.to_string())),
            r => r,
        }
    }

    pub(crate) fn start_iteration(
        &mut self,
        i: usize,
        intended: Instant,
    ) -> Option<Result<(), String>> {
        let now = Instant::now();
        let slot = &mut self.slots[i];
        slot.busy = true;
        slot.intended = intended;
        slot.started = now;
        self.shared.active.set(self.shared.active.get() + 1);
        self.resume(i, Resume::Start)
    }

    /// Books a finished iteration.
    pub(crate) fn finished(&mut self, i: usize, r: Result<(), String>, arrival: bool) {
        let shared = self.shared;
        if matches!(&r, Err(e) if e == INTERRUPTED) {
            self.interrupted_now(i);
            return;
        }
        // As k6 closes a VU's idle connections after each iteration.
        if self.close_conns {
            self.client.close_idle_of(owner_of(i));
        }
        shared.active.set(shared.active.get().saturating_sub(1));
        let slot = &mut self.slots[i];
        slot.iters += 1;
        {
            let mut vus = shared.vus.borrow_mut();
            let m = &mut vus[i];
            m.group.clear();
            m.group_starts.clear();
        }
        // The exception of `exec.test.abort()` ends the test: its reason is
        // the run's error (as in k6), not an iteration's.
        if let Err(e) = &r
            && shared.abort.borrow().is_none()
        {
            self.script_errors += 1;
            if self.script_errors <= 20 {
                // k6's line: the stack, then the VU's executor and scenario.
                let vus = shared.vus.borrow();
                let (name, executor) = vus[i]
                    .scenario
                    .map(|s| {
                        (
                            shared.scenarios[s].name.as_str(),
                            shared.scenarios[s].executor.as_str(),
                        )
                    })
                    .unwrap_or(("", ""));
                // A rejected promise's line has no `source` field in k6.
                let fields = [
                    ("executor", executor),
                    ("scenario", name),
                    ("source", "stacktrace"),
                ];
                let in_promise = e.starts_with(crate::js::exec::IN_PROMISE);
                shared.log(
                    Level::Error,
                    &with_stack_end(e.clone()),
                    &fields[..if in_promise { 2 } else { 3 }],
                );
            } else if self.script_errors == 21 {
                shared.log(
                    Level::Error,
                    "more exceptions in iterations; only the count is shown from now on",
                    &[],
                );
            }
        }
        shared.completed.set(shared.completed.get() + 1);
        let now = slot.exec_end.take().unwrap_or_else(Instant::now);
        let d = ms(now.saturating_duration_since(slot.started));
        shared.add_vu(i, shared.ids.iteration_duration, d);
        if arrival {
            let c = ms(now.saturating_duration_since(slot.intended.min(slot.started)));
            shared.add_vu(i, shared.ids.iteration_duration_corrected, c);
        }
        shared.add_vu(i, shared.ids.iterations, 1.0);
        // Counted after its samples (their `iter` metadata is its number).
        let mut vus = shared.vus.borrow_mut();
        let m = &mut vus[i];
        m.iter_in_scenario += 1;
        m.iter_in_instance += 1;
    }

    /// Stops a busy VU now.
    pub(crate) fn abort(&mut self, i: usize) {
        // Dropping a request in flight closes its connection.
        self.http[i].clear(&mut self.boxes);
        if self.close_conns {
            self.client.close_idle_of(owner_of(i));
        }
        self.slots[i].op_gen += 1;
        vu::ABORTING.with(|a| a.set(true));
        let mut r = self.resume(i, Resume::Abort);
        let mut guard = 0;
        while r.is_none() && self.slots[i].busy && guard < 1000 {
            // It asked for more (a catch around the call): keep refusing.
            self.http[i].clear(&mut self.boxes);
            self.slots[i].op_gen += 1;
            r = self.resume(i, Resume::Abort);
            guard += 1;
        }
        vu::ABORTING.with(|a| a.set(false));
        self.interrupted_now(i);
    }

    /// Books VU `i`'s iteration as interrupted.
    fn interrupted_now(&mut self, i: usize) {
        self.slots[i].busy = false;
        {
            let mut vus = self.shared.vus.borrow_mut();
            vus[i].group.clear();
            vus[i].group_starts.clear();
        }
        self.shared
            .active
            .set(self.shared.active.get().saturating_sub(1));
        self.shared
            .interrupted
            .set(self.shared.interrupted.get() + 1);
    }
}

/// The outcome of an iteration whose JavaScript the interrupt handler
/// stopped (see `vus::watchdog`): booked as interrupted, not as an error.
pub(crate) const INTERRUPTED: &str = "\u{0}interrupted";

/// How [`run_special`]'s error for a phase past its timeout begins.
pub(crate) const TIMED_OUT: &str = "timed out after";

/// Runs setup() or teardown() on VU 0; `None` when interrupted.
pub(crate) async fn run_special<'js>(
    s: &mut Sched<'_, 'js>,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
    timeout: Duration,
    phase: &str,
) -> Option<Result<(), String>> {
    s.slots[0].holder.set("phase", phase).ok();
    s.slots[0].busy = true;
    s.shared.active.set(s.shared.active.get() + 1);
    let deadline = Instant::now() + timeout;
    s.special_deadline = Some(deadline);
    let r = run_special_until(s, shutdown.as_mut(), timeout, deadline).await;
    s.special_deadline = None;
    match r {
        // Stopped by the interrupt handler: past its timeout, or Ctrl-C.
        Some(Err(e)) if e == INTERRUPTED => {
            if Instant::now() >= deadline {
                Some(Err(format!("{TIMED_OUT} {timeout:?}")))
            } else {
                s.stop.take_request();
                None
            }
        }
        r => r,
    }
}

async fn run_special_until<'js>(
    s: &mut Sched<'_, 'js>,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
    timeout: Duration,
    deadline: Instant,
) -> Option<Result<(), String>> {
    let mut r = s.resume(0, Resume::Start);
    loop {
        if r.is_none() {
            let mut ended = Vec::new();
            s.expire_requests(Instant::now());
            s.poll_ready(&mut ended);
            s.wake_sleepers(Instant::now(), &mut ended);
            r = ended.into_iter().find(|(i, _)| *i == 0).map(|(_, d)| d);
        }
        if let Some(done) = r {
            s.shared.active.set(s.shared.active.get().saturating_sub(1));
            // Make the next call (teardown) possible: swap the body.
            return Some(done);
        }
        if s.has_ready() {
            continue;
        }
        let next = s.next_wake().map_or(deadline, |t| t.min(deadline));
        tokio::select! {
            _ = s.wait_ready() => {
                r = None;
            }
            _ = tokio::time::sleep_until(next) => {
                r = None;
                if Instant::now() >= deadline {
                    s.abort(0);
                    return Some(Err(format!("{TIMED_OUT} {timeout:?}")));
                }
            }
            _ = shutdown.as_mut() => {
                s.abort(0);
                return None;
            }
        }
    }
}
