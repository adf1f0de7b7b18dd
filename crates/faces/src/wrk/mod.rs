//! `loadlab wrk`: wrk2's command line and report on loadlab's engine.

pub mod collect;
pub mod flags;
pub mod report;
pub mod run;

pub use flags::{USAGE, WrkCommand, WrkFlagError, WrkOptions, parse};
pub use report::{Calibration, RowStats, SocketErrors, WrkReport};
pub use run::{WrkError, WrkRun, run, version};
