//! The cancel registry: at the end of an interrupt's grace every request in
//! flight is cancelled at once, each worker woken through its own waker.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use atomic_waker::AtomicWaker;

/// Cancels every request in flight (the end of an interrupt's grace).
#[derive(Default)]
pub(super) struct Cancel {
    pub(super) flag: AtomicBool,
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
        self.flag.store(true, Ordering::Release);
        for w in self.wakers.lock().expect("cancel lock").iter() {
            w.wake();
        }
    }
}
