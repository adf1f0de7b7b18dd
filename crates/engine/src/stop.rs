//! The one stop signal of the engine (see the crate docs, "Shared state and
//! shutdown").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// A one-way signal: fired once by whoever decides to stop (firing again does
/// nothing), never reset. Check it with [`StopSignal::is_set`] (one atomic
/// load: cheap enough for a check per request), wait for it with
/// [`StopSignal::wait`] (async, e.g. in `tokio::select!`) or
/// [`StopSignal::wait_timeout`] (on a thread). Share it by reference inside
/// a shared state, or in an `Arc`.
#[derive(Debug, Default)]
pub struct StopSignal {
    set: AtomicBool,
    /// Wakes async waiters.
    notify: Notify,
    /// Wakes blocked threads.
    lock: Mutex<()>,
    cond: Condvar,
}

impl StopSignal {
    pub fn new() -> Self {
        Self::default()
    }

    /// Fires the signal and wakes every waiter. Returns false when it had
    /// been fired already (and then does nothing).
    pub fn fire(&self) -> bool {
        if self.set.swap(true, Ordering::AcqRel) {
            return false;
        }
        self.notify.notify_waiters();
        // A thread in `wait_timeout` checks the flag while it holds the lock
        // and releases it only inside `Condvar::wait`: taking the lock here
        // means it is either waiting (and is woken) or will see the flag.
        drop(self.lock.lock().unwrap_or_else(|e| e.into_inner()));
        self.cond.notify_all();
        true
    }

    /// True once fired.
    #[inline]
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Completes when the signal is fired (at once if it was).
    pub async fn wait(&self) {
        let notified = self.notify.notified();
        let mut notified = std::pin::pin!(notified);
        // Registered before the check: a fire between the check and the
        // await still wakes this waiter.
        notified.as_mut().enable();
        if self.is_set() {
            return;
        }
        notified.await;
    }

    /// Blocks the thread until the signal is fired or `timeout` passes;
    /// true when fired.
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        let end = Instant::now().checked_add(timeout);
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !self.is_set() {
            let left = match end {
                Some(end) => end.saturating_duration_since(Instant::now()),
                None => Duration::from_secs(3600),
            };
            if left.is_zero() {
                return false;
            }
            guard = self
                .cond
                .wait_timeout(guard, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[tokio::test]
    async fn fire_wakes_async_waiters_and_later_waits_end_at_once() {
        let s = Arc::new(StopSignal::new());
        assert!(!s.is_set());
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let s = s.clone();
                tokio::spawn(async move { s.wait().await })
            })
            .collect();
        tokio::task::yield_now().await;
        assert!(s.fire());
        assert!(!s.fire(), "a second fire does nothing");
        for w in waiters {
            tokio::time::timeout(Duration::from_secs(5), w)
                .await
                .expect("woken")
                .unwrap();
        }
        assert!(s.is_set());
        tokio::time::timeout(Duration::from_secs(5), s.wait())
            .await
            .expect("at once when already fired");
    }

    #[test]
    fn wait_timeout_blocks_until_fired_or_timed_out() {
        let s = Arc::new(StopSignal::new());
        let t = Instant::now();
        assert!(!s.wait_timeout(Duration::from_millis(30)));
        assert!(t.elapsed() >= Duration::from_millis(30));

        let s2 = s.clone();
        let firer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            s2.fire();
        });
        let t = Instant::now();
        assert!(s.wait_timeout(Duration::from_secs(60)));
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "woken, not timed out"
        );
        firer.join().unwrap();
        assert!(s.wait_timeout(Duration::ZERO), "already fired");
    }
}
