//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod common;
mod fidelity;
mod jslib;
mod layout;
mod memory;
mod own_golden;
mod seed;
mod segments;
mod transport;
mod url_series;
mod vus;
mod websockets;
mod ws;
