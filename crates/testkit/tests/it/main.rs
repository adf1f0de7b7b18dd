//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod bins;
mod kit;
mod module_graph;
mod pubsub;
mod workspace;
