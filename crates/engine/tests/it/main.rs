//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod arbitrary_targets;
mod client;
mod clock;
mod closed_loop;
mod common;
mod connect_to;
mod constant_rate;
mod credentials;
mod failures;
mod framing;
mod fuzz_corpus;
mod gzip;
mod http2;
mod keepalive;
mod lazy;
mod live;
mod order;
mod replay_logs;
mod requests;
mod segments;
mod sink_back;
mod spiral;
mod stall;
mod starve;
mod stopping;
mod targets;
mod tls;
mod unix_socket;
