//! `loadlab ab`: ApacheBench's command line and report on loadlab's engine.

pub mod collect;
pub mod flags;
pub mod report;
pub mod run;

pub use flags::{AbCommand, AbFlagError, AbOptions, USAGE, parse};
pub use report::{AbReport, Failures, GnuplotRow, Phases};
pub use run::{AbError, AbRun, banner, run};
