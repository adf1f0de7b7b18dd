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

/// The engine settings ab and wrk share: `connections` connections (and as
/// many requests in flight at most), HTTP/1.1 only, certificates not verified
/// and redirects not followed (neither tool verifies or follows).
pub(crate) fn face_config(
    name: &str,
    connections: u64,
    timeout: std::time::Duration,
    headers: &[(String, String)],
) -> loadlab_engine::AttackConfig {
    loadlab_engine::AttackConfig {
        name: name.to_string(),
        workers: connections,
        max_workers: Some(connections),
        max_connections: Some(connections as usize),
        connections: connections as usize,
        timeout,
        http2: false,
        h2c: false,
        // Neither tool asks for compressed responses.
        compression: false,
        redirects: -1,
        tls: loadlab_engine::TlsOptions {
            insecure: true,
            ..Default::default()
        },
        headers: headers.to_vec(),
        ..Default::default()
    }
}
