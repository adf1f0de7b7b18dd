//! The cancel registry: at the end of an interrupt's grace every request in
//! flight is cancelled at once, each worker woken through its own waker.

use std::sync::{Arc, Mutex};

use atomic_waker::AtomicWaker;

use crate::stop::StopSignal;

/// Cancels every request in flight (the end of an interrupt's grace).
#[derive(Default)]
pub(super) struct Cancel {
    /// Checked by each worker as its request is polled; the workers' own
    /// wakers below, not the signal's, wake them (two atomic operations per
    /// request instead of a lock on a waiter list).
    pub(super) signal: StopSignal,
    /// One per worker ever started; an exited worker leaves an empty slot.
    wakers: Mutex<Vec<Arc<AtomicWaker>>>,
}

impl Cancel {
    pub(super) fn register(&self) -> Arc<AtomicWaker> {
        let w = Arc::new(AtomicWaker::new());
        self.wakers.lock().expect("cancel lock").push(w.clone());
        w
    }

    pub(super) fn fire(&self) {
        self.signal.fire();
        for w in self.wakers.lock().expect("cancel lock").iter() {
            w.wake();
        }
    }
}
