//! The old paths of what the run's code in `sched.rs` still names through
//! `crate::api` (each lives in [`crate::modules`]); nothing else uses them.

pub(crate) use crate::modules::common::k6_helper;
pub(crate) use crate::modules::http::request::HttpDefaults;
pub(crate) use crate::modules::{MODULES, install};
