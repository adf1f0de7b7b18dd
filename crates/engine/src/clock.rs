//! The send clock: one timer for the whole attack, waking the engine at most
//! about once per *resolution* window (`-resolution`, default 1 ms).
//!
//! In a virtual machine every wake-up from idle costs tens of microseconds of
//! CPU, more than a whole request on loopback. A client that woke once to
//! send each request and once more to read each response would spend most of
//! its time waking up. The clock therefore:
//!
//! * **groups sends**: the requests whose intended times fall within one
//!   window of the group's first request form a *gate*; the gate opens at
//!   that first intended time and all of them go out together. A request may
//!   thus leave up to one window *early* (1¼ at most: the timer is aimed
//!   early by the wake-up delay it has measured, capped at a quarter window),
//!   never late by design; it is then measured from its actual send, so no
//!   latency is shortened. When the rate
//!   is below one request per window every request has its own gate and goes
//!   out at its own instant.
//! * **collects responses in step**: while requests are in flight and
//!   responses are coming in, the runtime thread sleeps until the next gate or
//!   the end of the window, then handles every response that arrived in one
//!   pass. Each response is timed by the kernel's receive stamp (`rxtime.rs`),
//!   so the wait adds nothing to its latency. This needs a current-thread
//!   runtime (the thread that sleeps is the one that polls the sockets) and
//!   stamped connections (plain or TLS HTTP/1.1 over TCP); elsewhere
//!   responses are handled as they arrive.
//!
//! A resolution of zero turns both off: every request waits for its own
//! instant, on its worker's own precise timer (the clock's task does not run).

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::live::LiveStats;
use crate::stop::StopSignal;
use crate::timer::PreciseSleep;
use crate::transport::Transport;

/// A group of requests released together.
pub(crate) struct Gate {
    at: Instant,
    open: AtomicBool,
    notify: Notify,
}

impl Gate {
    pub fn at(&self) -> Instant {
        self.at
    }

    /// Waits until the clock opens the gate.
    pub async fn wait(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.open.load(Ordering::Acquire) {
                return;
            }
            notified.await;
        }
    }

    fn release(&self) {
        self.open.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }
}

struct Queue {
    /// Gates not yet opened, in time order.
    pending: VecDeque<std::sync::Arc<Gate>>,
    /// The newest gate (open or not) and when it opened or will open.
    last: Option<std::sync::Arc<Gate>>,
}

/// Groups the schedule into gates and opens them on time.
pub(crate) struct Clock {
    resolution: Duration,
    queue: Mutex<Queue>,
    /// A gate was queued while the clock may be waiting for none.
    queued: Notify,
    /// Estimated lateness of a wake-up from idle (EWMA, ns): the timer is
    /// armed this much early so that gates open on time.
    advance_ns: AtomicU64,
    /// The attack was interrupted: every gate is open, and requests that
    /// pass one are not to be sent. The attack's interrupt signal: fired
    /// here, in step with opening the gates, and waited for by workers.
    aborted: StopSignal,
}

/// What a claim of the next request returns.
pub(crate) enum Slot {
    /// Due now (or in an already open gate): send at once.
    Now,
    /// Wait for this gate.
    Wait(std::sync::Arc<Gate>),
    /// Resolution zero: wait for this instant on the worker's own timer
    /// (one timer per worker wakes exactly the worker that is due, with no
    /// hop through the clock's task).
    Own(Instant),
}

impl Slot {
    /// The instant the request waits for, if it waits at all.
    pub fn until(&self) -> Option<Instant> {
        match self {
            Slot::Now => None,
            Slot::Wait(gate) => Some(gate.at()),
            Slot::Own(at) => Some(*at),
        }
    }
}

impl Clock {
    pub fn new(resolution: Duration) -> Self {
        Clock {
            resolution,
            queue: Mutex::new(Queue {
                pending: VecDeque::new(),
                last: None,
            }),
            queued: Notify::new(),
            advance_ns: AtomicU64::new(0),
            aborted: StopSignal::new(),
        }
    }

    /// Interrupt: opens every gate at once, and every later claim is due at
    /// once; callers check [`Clock::aborted`] after their wait and give up
    /// the request. (One flag read per request instead of one more waiter
    /// registered on a channel for every wait.)
    pub fn abort(&self) {
        let mut q = self.queue.lock().expect("clock lock");
        self.aborted.fire();
        for g in q.pending.drain(..) {
            g.release();
        }
        q.last = None;
    }

    pub fn aborted(&self) -> bool {
        self.aborted.is_set()
    }

    /// The interrupt signal [`Clock::abort`] fires, for tasks that wait.
    pub fn abort_signal(&self) -> &StopSignal {
        &self.aborted
    }

    /// Places a request intended for `intended` in a gate. Callers must call
    /// this in schedule order (the runner holds the claim lock).
    pub fn slot(&self, intended: Instant, now: Instant) -> Slot {
        if self.resolution.is_zero() {
            return if intended > now {
                Slot::Own(intended)
            } else {
                Slot::Now
            };
        }
        let mut q = self.queue.lock().expect("clock lock");
        if self.aborted.is_set() {
            return Slot::Now;
        }
        if let Some(last) = &q.last
            && intended < last.at + self.resolution
            && intended >= last.at
        {
            return if last.open.load(Ordering::Acquire) {
                Slot::Now
            } else {
                Slot::Wait(last.clone())
            };
        }
        if intended <= now {
            q.last = None;
            return Slot::Now;
        }
        let gate = std::sync::Arc::new(Gate {
            at: intended,
            open: AtomicBool::new(false),
            notify: Notify::new(),
        });
        q.last = Some(gate.clone());
        let was_empty = q.pending.is_empty();
        q.pending.push_back(gate.clone());
        drop(q);
        if was_empty {
            self.queued.notify_one();
        }
        Slot::Wait(gate)
    }

    /// Opens every gate due by `now` (with the wake-up advance); returns how
    /// many opened and when the next one is due.
    fn release_due(&self, now: Instant) -> (usize, Option<Instant>) {
        let advance = Duration::from_nanos(self.advance_ns.load(Ordering::Relaxed));
        let mut q = self.queue.lock().expect("clock lock");
        let mut opened = 0;
        while let Some(g) = q.pending.front() {
            if g.at > now + advance {
                break;
            }
            g.release();
            q.pending.pop_front();
            opened += 1;
        }
        (opened, q.pending.front().map(|g| g.at))
    }

    /// The instant to arm a timer for so that it fires at `at`.
    fn arm_for(&self, at: Instant) -> Instant {
        let advance = Duration::from_nanos(self.advance_ns.load(Ordering::Relaxed));
        at.checked_sub(advance).unwrap_or(at)
    }

    /// Learns how late wake-ups from idle are. The advance is kept below a
    /// quarter window, so a request leaves at most 1¼ windows early.
    fn observe_wake(&self, armed: Instant, woke: Instant) {
        let late = woke.saturating_duration_since(armed).as_nanos() as u64;
        let cap = (self.resolution / 4).as_nanos() as u64;
        let old = self.advance_ns.load(Ordering::Relaxed);
        let new = (old * 7 + late.min(cap)) / 8;
        self.advance_ns.store(new.min(cap), Ordering::Relaxed);
    }

    /// The clock's task: runs until aborted by the runner.
    pub async fn run(&self, live: &LiveStats, collect_in_step: bool, transport: &Transport) {
        let mut sleeper = PreciseSleep::new();
        let mut last_wake = Instant::now();
        let mut seen_completed = live.completed();
        let mut fresh = false;
        loop {
            let now = Instant::now();
            let (opened, next) = self.release_due(now);
            if opened > 0 {
                // Let the released requests go out before deciding how to wait.
                fresh = true;
                tokio::task::yield_now().await;
                continue;
            }
            let completed = live.completed();
            let progress = completed != seen_completed;
            seen_completed = completed;
            if collect_in_step
                && transport.all_stamped()
                && live.in_flight() > 0
                && (fresh || progress)
            {
                fresh = false;
                // Sleep the whole thread: responses wait in the socket
                // buffers (stamped on arrival) and are all handled in the
                // next pass, instead of one wake-up each.
                let end = last_wake + self.resolution;
                let until = next.map_or(end, |t| self.arm_for(t).min(end));
                if until > now {
                    std::thread::sleep(until - now);
                    let woke = Instant::now();
                    if next.is_some_and(|t| self.arm_for(t) <= end) {
                        self.observe_wake(until, woke);
                    }
                }
                last_wake = Instant::now();
                // One pass of the reactor: every response that arrived completes.
                tokio::task::yield_now().await;
                continue;
            }
            fresh = false;
            match next {
                Some(at) => {
                    let armed = self.arm_for(at);
                    tokio::select! {
                        _ = sleeper.until(armed) => self.observe_wake(armed, Instant::now()),
                        _ = self.queued.notified() => {}
                    }
                }
                None => self.queued.notified().await,
            }
            last_wake = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[tokio::test]
    async fn requests_within_a_window_share_a_gate() {
        let c = Clock::new(ms(1));
        let t0 = Instant::now();
        let gate = |s: Slot| match s {
            Slot::Wait(g) => g.at(),
            _ => panic!("expected a gate"),
        };
        // 5,000/s: 200 µs apart; windows of 1 ms hold five requests.
        let us = Duration::from_micros;
        let ats: Vec<Instant> = (0..11)
            .map(|i| gate(c.slot(t0 + ms(10) + us(200 * i), t0)))
            .collect();
        assert!(ats[..5].iter().all(|a| *a == t0 + ms(10)));
        assert!(ats[5..10].iter().all(|a| *a == t0 + ms(11)));
        assert_eq!(ats[10], t0 + ms(12));
        // Due already: no gate.
        assert!(matches!(c.slot(t0, t0 + ms(20)), Slot::Now));
    }

    #[tokio::test]
    async fn zero_resolution_leaves_every_request_its_own_instant() {
        let c = Clock::new(Duration::ZERO);
        let t0 = Instant::now();
        let at = t0 + ms(1);
        assert!(matches!(c.slot(at, t0), Slot::Own(t) if t == at));
        assert!(matches!(c.slot(t0, t0 + ms(2)), Slot::Now));
        assert!(c.queue.lock().unwrap().pending.is_empty());
    }

    #[tokio::test]
    async fn gates_open_in_order_and_late_joiners_go_at_once() {
        let c = Clock::new(ms(1));
        let t0 = Instant::now();
        let Slot::Wait(g1) = c.slot(t0 + ms(5), t0) else {
            panic!()
        };
        let Slot::Wait(g2) = c.slot(t0 + ms(7), t0) else {
            panic!()
        };
        assert_eq!(c.release_due(t0 + ms(5)), (1, Some(g2.at())));
        g1.wait().await;
        assert!(!g2.open.load(Ordering::Acquire));
        // A request in the open gate's window is sent at once.
        assert!(matches!(
            c.slot(t0 + ms(7) + Duration::from_micros(500), t0 + ms(6)),
            Slot::Wait(_)
        ));
        assert_eq!(c.release_due(t0 + ms(7)).0, 1);
        assert!(matches!(
            c.slot(t0 + ms(7) + Duration::from_micros(600), t0 + ms(7)),
            Slot::Now
        ));
        assert_eq!(c.release_due(t0 + ms(100)), (0, None));
    }
}
