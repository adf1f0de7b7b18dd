//! The k6 executors: when a scenario's VUs start their iterations.

mod plan;
pub mod schedule;
