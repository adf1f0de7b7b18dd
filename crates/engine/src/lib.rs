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
//! * **Segments and a common start** (`segment`, `start_at_unix_ns`; see
//!   `loadlab_core::segment` and `docs/distributed.md`): worker `i` of `n`
//!   claims only global request numbers `k = j·n + i`, at their global
//!   intended times, counted from the `-start-at` instant it waited for;
//!   `-workers`, `-max-workers` and `-max-connections` are split the same
//!   way ([`AttackConfig::for_segment`]). The results header then carries a
//!   [`loadlab_core::WorkerInfo`].
//! * **Replays** (`TargetSource::Replay`, [`replay`]): each record brings
//!   its own offset and target; a paced claim takes the next record
//!   instead of asking the pacer, and the rest is the open model above.
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
//! byte is read and counted in `bytes_in`; none is stored. A gzip body the
//! engine asked for counts what it decodes to, as vegeta (Go's client)
//! does, and its bytes as they came go in the sample's `wire_in`
//! (`gunzip.rs`). `bytes_out` is the request body size. Failures are data: status 0 and an
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
//! plan (or lazy targets, or a replay's records) ends, or the `shutdown` future resolves. After a
//! normal stop, in-flight requests run to completion (each is bounded by
//! `timeout`). After shutdown (Ctrl-C), they get [`INTERRUPT_GRACE`] (or
//! `timeout` if shorter), then are recorded as `ErrorKind::Canceled`. Then the
//! sink is finished and handed back with the [`AttackSummary`].
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
//!
//! # Shared state and shutdown: the rules
//!
//! Every part of the engine follows these (and `loadlab-study` with them).
//!
//! * **One state per attack, shared by `Arc`.** The supervisor
//!   (`runner/supervisor.rs`) builds one `Shared` (`runner/shared.rs`) and
//!   hands it to each worker and to the clock's task. Nothing is global;
//!   what a caller shares ([`LiveStats`]) it passes in.
//! * **What is set at the start stays as it is**: the configuration, the
//!   templates, the start instant. Counters and maxima are atomics updated
//!   with `Relaxed` ordering (they publish nothing else); a value that
//!   publishes other memory (a worker's hold, a gate) is stored with
//!   `Release` and read with `Acquire`. A `std::sync::Mutex` is held for a
//!   few instructions (a pool's idle list, the paced claim, the lazy
//!   targets' index) and never across an `.await`; the one
//!   `tokio::sync::Mutex` is the lazy targets' receiver, held while it waits.
//! * **Every stop is a [`StopSignal`]**: fired once by whoever decides
//!   (firing again does nothing), never reset; checked with `is_set()` (one
//!   atomic load, for the per-request checks), waited for with `wait()` in a
//!   `select!` or, on a thread, `wait_timeout()`. No bare `AtomicBool` stop
//!   flags, no `watch<bool>` channels, no sleep-and-poll loops. The one
//!   refinement: the cancel of requests in flight sits on every request's
//!   poll, so each worker registers its own `AtomicWaker` and the cancel
//!   wakes them (`runner/cancel.rs`); its flag is still a `StopSignal`.
//! * **Events are not stops.** Something that can happen again (a worker
//!   exited, a connection was freed, a gate was queued or opened) is
//!   announced through a `tokio::sync::Notify` next to the state it is
//!   about, and the waiter checks that state again when woken.
//! * **Shutdown goes in this order**, each step a signal fired by the
//!   supervisor (or by a worker that meets a stop condition):
//!   1. `stopping`: no request past this one is claimed (`duration`,
//!      `max_requests`, the end of the plan or of the targets);
//!   2. `stopped`: the attack is over; a wait for a lazy target gives up;
//!   3. on an interrupt only, the clock's abort signal (`Clock::abort`, which
//!      opens every gate in the same step): waiting workers give up their
//!      claims; after [`INTERRUPT_GRACE`] (or `timeout`, if shorter)
//!   4. the cancel: requests still in flight are recorded as canceled.
//!
//!   Each worker then flushes its batch and exits; its `Exit` guard counts
//!   it out even if it panicked, and the last one wakes the supervisor. The
//!   supervisor aborts the clock's task (it holds nothing), drops the last
//!   sample sender, and waits for the sink thread, which ends when that
//!   channel is closed and drained: a thread or task fed by a channel ends
//!   when the senders are gone, never by a flag. The lazy targets' reader
//!   thread ends when its receiver is dropped (or stays blocked on a
//!   reader such as stdin; it holds no samples and nothing waits for it).
//! * **From outside**, the caller's `shutdown` future is the interrupt. To
//!   stop an attack from another thread, share a [`StopSignal`], pass
//!   `async move { signal.wait().await }` and fire it.
//!
//! # Layout
//!
//! `runner/`: `supervisor.rs` (the attack's main loop), `worker.rs` (the
//! worker loop and the pool's growth), `shared.rs` (the shared state and the
//! claims), `lazy.rs` (lazy target feeding), `cancel.rs` (the cancel
//! registry). `clock.rs` groups sends; `collector.rs` is the sink thread.
//! `request.rs` runs one request over `transport.rs` (dialling, pools), which
//! speaks HTTP/1.1 (`h1.rs`) or HTTP/2 (`h2.rs`) over a `stream.rs` byte
//! stream, whose TCP sockets (`rxtime.rs`) count their bytes (`wire.rs`).
//! Modules import each other without cycles (checked for every crate
//! by testkit's `tests/it/module_graph.rs`).

mod behind;
pub mod blocklist;
pub mod client;
mod clock;
mod collector;
pub mod config;
pub mod dns_pick;
pub mod fdlimit;
#[doc(hidden)]
pub mod fuzzing;
mod gunzip;
mod h1;
mod h2;
pub mod header_list;
pub mod host;
pub mod hosts;
pub mod live;
pub mod replay;
mod request;
mod runner;
mod rxtime;
mod stop;
mod stream;
pub mod targets;
mod timer;
mod tls;
mod transport;
mod wire;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use config::{
    AttackConfig, DnsCache, START_AT_MAX_AHEAD, START_AT_MAX_PAST, TlsOptions, check_start_at,
};
pub use live::{AttackSummary, LiveStats, StopReason};
pub use request::url_credentials;
pub use runner::attack_with_live;
pub use stop::StopSignal;
pub use targets::{
    Target, TargetError, TargetFormat, TargetReader, TargetSource, Timed, lazy_targets,
    parse_targets, redact_url,
};
/// A sleep on a `timerfd` (ns resolution), for a common start instant.
pub use timer::{PreciseSleep, WakeTimer};
pub use tls::client_config as tls_client_config;
pub use tls::{check_client_cert, tls12_suite_names};

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

/// Runs an attack on the current tokio runtime. The sink is handed back,
/// finished, with the summary: `let (summary, sink) = attack(…, sink, …)`
/// (a pair of sinks, `(a, b)`, comes back as a pair, each of its own type).
pub async fn attack<S: loadlab_core::Sink + 'static>(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: S,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(AttackSummary, S), EngineError> {
    attack_with_live(cfg, targets, sink, shutdown, LiveStats::new()).await
}

/// Builds a current-thread runtime and runs the attack on it. `shutdown` is
/// polled inside the runtime, so it may use `tokio::signal::ctrl_c()`.
pub fn run_blocking<S: loadlab_core::Sink + 'static>(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: S,
    shutdown: impl Future<Output = ()> + Send,
    live: Arc<LiveStats>,
) -> Result<(AttackSummary, S), EngineError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(EngineError::Runtime)?;
    rt.block_on(attack_with_live(cfg, targets, sink, shutdown, live))
}
