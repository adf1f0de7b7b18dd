//! `with_flags`' old path (it lives in [`crate::config::layer`]), for the
//! run's code in `sched.rs` that still names it so.

pub(crate) use crate::config::layer::with_flags;
