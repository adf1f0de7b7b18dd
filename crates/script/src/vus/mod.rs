//! The VUs' slots, below the executors (k6's execution state): each VU's
//! coroutine, its request or sleep in flight and its wake-up
//! (`sched.rs`), and the wakers and sends of its requests (`wake.rs`).

pub(crate) mod sched;
pub(crate) mod wake;
pub(crate) mod watchdog;
