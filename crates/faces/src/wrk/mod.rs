//! `loadlab wrk`: wrk2's command line and report on loadlab's engine.

pub mod collect;
pub mod flags;
pub mod report;
pub mod run;

pub use flags::{parse, WrkCommand, WrkFlagError, WrkOptions, USAGE};
pub use report::{Calibration, RowStats, SocketErrors, WrkReport};
pub use run::{run, version, WrkError, WrkRun};
