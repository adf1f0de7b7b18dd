//! A precise sleep for the schedule.
//!
//! tokio's timer wheel has a 1 ms resolution (and the reactor's `epoll_wait`
//! timeout is in milliseconds), so `sleep_until` fires up to ~1 ms late. At
//! 5,000 requests/s that lateness would be most of a loopback latency, and it
//! would show in every corrected latency. Each worker therefore owns a Linux
//! `timerfd` (nanosecond resolution) registered with the reactor; if one
//! cannot be created, the worker falls back to tokio's timer.

use rustix::time::{Itimerspec, TimerfdClockId, TimerfdFlags, TimerfdTimerFlags, Timespec};
use std::os::fd::OwnedFd;
use tokio::io::unix::AsyncFd;
use tokio::time::Instant;

pub struct PreciseSleep {
    fd: Option<AsyncFd<OwnedFd>>,
}

impl Default for PreciseSleep {
    fn default() -> Self {
        Self::new()
    }
}

impl PreciseSleep {
    pub fn new() -> Self {
        PreciseSleep { fd: timerfd() }
    }

    /// Sleeps until `deadline` (returns at once if it has passed).
    pub async fn until(&mut self, deadline: Instant) {
        let Some(fd) = &self.fd else {
            tokio::time::sleep_until(deadline).await;
            return;
        };
        loop {
            let now = Instant::now();
            if now >= deadline {
                return;
            }
            // One precise timer for the whole wait: going through tokio's
            // timer first would cost a second wake-up (a context switch) per
            // request, which is most of the CPU a paced request costs.
            if arm(fd, deadline - now).is_err() {
                tokio::time::sleep_until(deadline).await;
                return;
            }
            let Ok(mut guard) = fd.readable().await else {
                tokio::time::sleep_until(deadline).await;
                return;
            };
            let mut buf = [0u8; 8];
            // Edge-triggered: clear in both cases; the next arming fires anew.
            let _ = rustix::io::read(fd.get_ref(), &mut buf);
            guard.clear_ready();
        }
    }
}

/// A non-blocking monotonic timerfd registered with the reactor (`None`
/// where one cannot be made).
fn timerfd() -> Option<AsyncFd<OwnedFd>> {
    let fd = rustix::time::timerfd_create(
        TimerfdClockId::Monotonic,
        TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
    )
    .ok()?;
    // `AsyncFd::new` is deprecated because a borrowed descriptor could be
    // closed while registered; here the AsyncFd owns the `OwnedFd`, so
    // that cannot happen (and the safe constructor is the only one
    // available without `unsafe`).
    #[allow(deprecated)]
    AsyncFd::new(fd).ok()
}

/// Arms `fd` to fire once, `wait` from now (a zero `wait` disarms it).
fn arm(fd: &AsyncFd<OwnedFd>, wait: std::time::Duration) -> rustix::io::Result<()> {
    let spec = Itimerspec {
        it_interval: Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        },
        it_value: Timespec {
            tv_sec: wait.as_secs() as _,
            tv_nsec: wait.subsec_nanos() as _,
        },
    };
    rustix::time::timerfd_settime(fd.get_ref(), TimerfdTimerFlags::empty(), &spec).map(|_| ())
}

/// A timer a loop moves from turn to turn: armed for one deadline at a
/// time, waited on between turns.
///
/// tokio's `Sleep::reset` to a deadline earlier than its wheel's next one
/// (and to any deadline once the wheel is empty, as it is after the timer
/// fired) writes to the reactor's eventfd so a parked thread would notice,
/// even on the thread that is about to park: a `write`, an `epoll_wait` that
/// returns at once and an empty loop turn, about once for every two
/// requests of a k6 script. A `timerfd` costs one `timerfd_settime` when
/// the deadline moves, and nothing when it fires (edge-triggered; arming it
/// again clears it, so it is never read). Without one, tokio's timer.
pub struct WakeTimer {
    fd: Option<AsyncFd<OwnedFd>>,
    /// The deadline the timer is armed for, until it is seen to pass.
    armed: Option<Instant>,
    fallback: std::pin::Pin<Box<tokio::time::Sleep>>,
}

impl Default for WakeTimer {
    fn default() -> Self {
        Self::new()
    }
}

impl WakeTimer {
    pub fn new() -> Self {
        WakeTimer {
            fd: timerfd(),
            armed: None,
            fallback: Box::pin(tokio::time::sleep_until(Instant::now())),
        }
    }

    /// The deadline the timer is armed for (`None` once it has fired).
    pub fn deadline(&self) -> Option<Instant> {
        self.armed
    }

    /// Arms the timer for `deadline` (in place of any other); nothing to do
    /// when it is armed for it already.
    pub fn set(&mut self, deadline: Instant) {
        if self.armed == Some(deadline) {
            return;
        }
        self.armed = Some(deadline);
        let Some(fd) = &self.fd else {
            self.fallback.as_mut().reset(deadline);
            return;
        };
        // A zero it_value disarms a timerfd: a deadline already passed is
        // 1 ns away.
        let wait = deadline
            .saturating_duration_since(Instant::now())
            .max(std::time::Duration::from_nanos(1));
        if arm(fd, wait).is_err() {
            self.fd = None;
            self.fallback.as_mut().reset(deadline);
        }
    }

    /// Waits until the armed deadline has passed (for ever when unarmed).
    pub async fn fired(&mut self) {
        loop {
            let Some(deadline) = self.armed else {
                return std::future::pending().await;
            };
            match &self.fd {
                Some(fd) => {
                    if Instant::now() < deadline {
                        // A readiness left from an earlier arming is
                        // cleared here and waited past.
                        match fd.readable().await {
                            Ok(mut guard) => {
                                if Instant::now() < deadline {
                                    guard.clear_ready();
                                    continue;
                                }
                            }
                            Err(_) => {
                                self.fd = None;
                                self.fallback.as_mut().reset(deadline);
                                continue;
                            }
                        }
                    }
                }
                None => self.fallback.as_mut().await,
            }
            self.armed = None;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn wake_timer_fires_at_each_deadline_it_is_moved_to() {
        let mut t = WakeTimer::new();
        assert!(t.fd.is_some(), "a timerfd on Linux");
        // Moved earlier before it fires: the earlier deadline counts.
        let start = Instant::now();
        t.set(start + Duration::from_secs(30));
        t.set(start + Duration::from_millis(20));
        tokio::time::timeout(Duration::from_secs(10), t.fired())
            .await
            .expect("fires at the earlier deadline");
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(20), "{took:?}");
        assert_eq!(t.deadline(), None);
        // Armed again after firing (never read): fires again, not at once.
        for _ in 0..3 {
            let at = Instant::now() + Duration::from_millis(15);
            t.set(at);
            tokio::time::timeout(Duration::from_secs(10), t.fired())
                .await
                .expect("fires again");
            assert!(Instant::now() >= at);
        }
        // Moved later: not before the later one.
        let at = Instant::now() + Duration::from_millis(10);
        t.set(at);
        t.set(at + Duration::from_millis(30));
        t.fired().await;
        assert!(Instant::now() >= at + Duration::from_millis(30));
        // A deadline already passed fires at once; unarmed never does.
        t.set(Instant::now() - Duration::from_millis(5));
        tokio::time::timeout(Duration::from_secs(10), t.fired())
            .await
            .expect("a past deadline fires");
        assert!(
            tokio::time::timeout(Duration::from_millis(50), t.fired())
                .await
                .is_err()
        );
    }
}
