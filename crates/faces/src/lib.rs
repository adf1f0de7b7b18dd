//! loadlab's familiar faces: the command lines and report layouts people
//! already know, on loadlab's one engine.
//!
//! * [`ab`]: ApacheBench (`loadlab ab -c 10 -n 1000 -g out.data URL`): closed
//!   model at fixed concurrency, ab's report line for line, `-g` TSV, `-e` CSV.
//! * [`wrk`]: wrk2 (`loadlab wrk -t2 -c10 -d30s -R1000 URL`): open model at
//!   `-R` with latency from the intended send time, or wrk's closed loop
//!   without `-R`; wrk2's report including `-L`/`-U` HdrHistogram blocks.
//! * [`plot`]: vegeta-style `plot`: a self-contained HTML page of latency over
//!   time, downsampled with LTTB.
//!
//! Each face is split the same way: a flag model (parse once into a validated
//! struct), a collector (a [`loadlab_core::Sink`] turning samples into the
//! face's figures), a pure renderer (figures in, text out; golden-tested) and
//! a runner that wires them to the engine. [`results`] lets a face also keep
//! every sample in a loadlab results file.

pub mod ab;
pub mod getopt;
pub mod hist;
pub mod plot;
pub mod probe;
pub mod results;
pub mod units;
pub mod wrk;
