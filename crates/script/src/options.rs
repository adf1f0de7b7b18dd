//! `ramp_level`'s old path (it lives in [`crate::config`]), for the run's
//! code in `sched.rs` that still names it so.

pub(crate) use crate::config::ramp_level;
