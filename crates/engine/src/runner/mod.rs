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

mod cancel;
mod lazy;
mod replay;
mod shared;
mod supervisor;
mod worker;

pub use supervisor::attack_with_live;
