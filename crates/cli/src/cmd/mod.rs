//! One module per subcommand.

pub mod ab;
pub mod attack;
mod attack_args;
pub mod compare;
pub mod demo;
pub mod encode;
pub mod history;
pub mod import;
#[cfg(feature = "k6")]
pub mod k6;
#[cfg(feature = "cluster")]
pub mod k8s;
pub mod origin;
pub mod plot;
pub mod replay;
pub mod report;
pub mod runs;
pub mod study;
#[cfg(feature = "sysbench")]
pub mod sysbench;
pub mod wrk;
