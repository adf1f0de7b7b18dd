//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod arbitrary_input;
mod bench;
mod codec;
mod common;
mod fuzz_corpus;
mod fuzz_regressions;
mod golden;
mod metric_records;
mod sinks;
mod vegeta_interop;
mod workers;
