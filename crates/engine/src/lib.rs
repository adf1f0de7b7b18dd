//! The loadlab load engine: sends HTTP requests on a schedule and measures
//! each one into a [`loadlab_core::Sample`].
//!
//! # Model
//!
//! * **Open model (default).** A [`loadlab_core::Pacer`] says when request
//!   *n* is due, as an offset from the start. Workers claim request numbers
//!   in order from a shared counter and wait for the absolute instant
//!   `start + send_at(n)` (never a relative sleep, so there is no drift).
//!   One send clock per attack (`clock.rs`, `resolution`, default 1 ms)
//!   groups the requests due within one window into a gate that opens at
//!   the first one's instant, and on a current-thread runtime collects
//!   responses once per window, each timed by the kernel's receive stamp
//!   (`rxtime.rs`): about one wake-up per window instead of two per request.
//!   A request of a group may thus leave up to a window early, and is then
//!   measured from its actual send. With `resolution` zero each worker
//!   sleeps on its own `timerfd` until its exact instant. Latency is
//!   measured from the **intended** instant (`Sample::intended_ns`), so a
//!   stalled server or a busy generator cannot hide (no coordinated
//!   omission); the actual send (`sent_ns`) is recorded too, giving the
//!   uncorrected service time and the send lag. Workers start at
//!   `workers`; whenever a send would leave no worker free to claim the next
//!   slot, one more is added, up to `max_workers`. At the cap the next
//!   request waits and goes out late — it is never silently skipped.
//!   Requests sent more than [`LATE_THRESHOLD`] after their intended time are
//!   counted as late; requests the schedule called for that could not be sent
//!   before the attack stopped are counted as `unsent` in the summary.
//! * **Unlimited rate** (`Rate::UNLIMITED`, `-rate=0`/`infinity`) and the
//!   **closed model** (`closed_loop`, for ab and wrk): exactly `max_workers`
//!   (else `max_connections`) workers, each sending its next request as soon
//!   as the previous one completes; intended time = actual send.
//!
//! # Measurement points (offsets from the attack's start)
//!
//! `intended_ns` (schedule) → `sent_ns` (connection taken from the pool, or
//! dialling began; `connect_ns` = dial + TLS time) → `first_byte_ns` (first
//! response byte) → `done_ns` (body fully read, or the failure). Over TCP
//! (HTTP/1.1, plain or TLS) the last two are the kernel's receive stamps of
//! the data (`SO_TIMESTAMPNS`), not when the client read it. Every body
//! byte is read and counted in `bytes_in`; none is stored. `bytes_out` is the
//! request body size. Failures are data: status 0 and an
//! [`loadlab_core::ErrorKind`].
//!
//! # Transport
//!
//! HTTP/1.1 is a lean client of our own (pre-rendered request bytes, one
//! reused read buffer per connection, `httparse`), over TCP (`TCP_NODELAY`),
//! Unix sockets, or rustls. HTTP/2 (ALPN `h2`, or `h2c` prior knowledge) goes
//! through hyper. Connections are pooled per `scheme://host:port` (at most
//! `connections` idle, `max_connections` open). A request on a reused
//! connection that the server had already closed is retried on a new one.
//!
//! # Stopping
//!
//! Sending stops when `duration` passes, `max_requests` were sent, the pacer's
//! plan (or lazy targets) ends, or the `shutdown` future resolves. After a
//! normal stop, in-flight requests run to completion (each is bounded by
//! `timeout`). After shutdown (Ctrl-C), they get [`INTERRUPT_GRACE`] (or
//! `timeout` if shorter), then are recorded as `ErrorKind::Canceled`. Then the
//! sink is finished and the [`AttackSummary`] returned.
//!
//! # Cost
//!
//! No allocation per request on the HTTP/1.1 path (checked with a `malloc`
//! uprobe: ~1,400 calls for 43,000 requests, all start-up and sample
//! batches). Idle connections cost a 4 KiB read buffer; 10,000 concurrent
//! keep-alive connections ran at ~100 MB RSS. `examples/blast.rs` is the
//! quick benchmark (`taskset -c 1 blast URL RATE SECONDS CONCURRENCY`).
//!
//! # Threads
//!
//! The async part runs on the caller's runtime ([`run_blocking`] builds a
//! current-thread runtime, the lightest choice when the client is pinned to
//! one CPU). Every [`loadlab_core::Sink`] call happens on one dedicated
//! thread, fed by a bounded channel of per-worker sample batches; when it is
//! full, workers wait rather than drop samples. `-lazy` targets are read on
//! their own thread.

mod clock;
mod collector;
pub mod config;
#[doc(hidden)]
pub mod fuzzing;
mod h1;
mod h2;
pub mod live;
mod request;
mod runner;
mod rxtime;
pub mod targets;
mod timer;
mod tls;
mod transport;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use config::{AttackConfig, DnsCache, TlsOptions};
pub use live::{AttackSummary, LiveStats, StopReason};
pub use runner::attack_with_live;
pub use targets::{
    Target, TargetError, TargetFormat, TargetReader, TargetSource, lazy_targets, parse_targets,
    redact_url,
};
pub use tls::client_config as tls_client_config;

/// A request sent later than this after its intended time counts as late.
pub const LATE_THRESHOLD: Duration = Duration::from_millis(1);

/// After a shutdown (Ctrl-C), in-flight requests get this long (or the
/// request timeout, if shorter) before they are recorded as canceled.
pub const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// Why an attack could not run. (Failed requests are not errors: they are samples.)
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("invalid attack configuration: {0}")]
    Config(String),
    #[error("TLS setup failed: {0}")]
    Tls(String),
    #[error("target #{} is unusable: {reason}", index + 1)]
    Target { index: usize, reason: String },
    #[error("no targets to attack")]
    NoTargets,
    #[error("writing results failed: {0}")]
    Sink(std::io::Error),
    #[error("cannot start the engine: {0}")]
    Runtime(std::io::Error),
}

/// Runs an attack on the current tokio runtime.
pub async fn attack(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: Box<dyn loadlab_core::Sink>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<AttackSummary, EngineError> {
    attack_with_live(cfg, targets, sink, shutdown, LiveStats::new()).await
}

/// Builds a current-thread runtime and runs the attack on it. `shutdown` is
/// polled inside the runtime, so it may use `tokio::signal::ctrl_c()`.
pub fn run_blocking(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: Box<dyn loadlab_core::Sink>,
    shutdown: impl Future<Output = ()> + Send,
    live: Arc<LiveStats>,
) -> Result<AttackSummary, EngineError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(EngineError::Runtime)?;
    rt.block_on(attack_with_live(cfg, targets, sink, shutdown, live))
}
