//! The k6 executors: when a scenario's VUs start their iterations.

pub mod schedule;
