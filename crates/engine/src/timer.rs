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
        let fd = rustix::time::timerfd_create(
            TimerfdClockId::Monotonic,
            TimerfdFlags::NONBLOCK | TimerfdFlags::CLOEXEC,
        )
        .ok()
        .and_then(|fd| {
            // `AsyncFd::new` is deprecated because a borrowed descriptor could be
            // closed while registered; here the AsyncFd owns the `OwnedFd`, so
            // that cannot happen (and the safe constructor is the only one
            // available without `unsafe`).
            #[allow(deprecated)]
            AsyncFd::new(fd).ok()
        });
        PreciseSleep { fd }
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
            let wait = deadline - now;
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
            if rustix::time::timerfd_settime(fd.get_ref(), TimerfdTimerFlags::empty(), &spec)
                .is_err()
            {
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
