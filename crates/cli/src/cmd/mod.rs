//! One module per subcommand.

pub mod ab;
pub mod attack;
mod attack_args;
pub mod compare;
pub mod demo;
pub mod encode;
pub mod k6;
pub mod k8s;
mod k8s_plan;
pub mod origin;
pub mod plot;
pub mod report;
pub mod runs;
pub mod study;
pub mod sysbench;
pub mod wrk;
