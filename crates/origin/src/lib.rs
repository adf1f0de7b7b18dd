//! `loadlab origin`: a programmable simulated upstream.
//!
//! It accepts OriginSimulator's JSON recipes (origin fetch, bodies with
//! `<<256kb>>` placeholders, random content, timed stages of status and
//! latency, routes with `*` wildcards, gzip) and its admin API, fixes its
//! defects (stages count from acceptance and are cancelled by a re-post,
//! deterministic route precedence, bad recipes refused with a 400 that loses
//! nothing), and adds per-stage faults, latency distributions, a capacity
//! model and statistics.
//!
//! Layout: [`recipe`] parses and validates; [`payload`] builds bodies once;
//! [`table`] holds the immutable route snapshot; [`state`] changes it;
//! `respond` is the request path, `http1` (by hand, with sendfile) and `h2`
//! (hyper) put it on the wire; `admin` is the admin API; [`stats`] the
//! lock-free counters.
//!
//! ```no_run
//! # async fn demo() -> Result<(), loadlab_origin::OriginError> {
//! let recipes = loadlab_origin::parse_recipes(r#"{"random_content":"50kb","stages":[{"at":0,"status":200,"latency":0}]}"#)?;
//! let config = loadlab_origin::OriginConfig { recipes, ..Default::default() };
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! loadlab_origin::serve(listener, config, async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```

mod admin;
mod body;
#[doc(hidden)]
pub mod fuzzing;
mod h2;
mod http1;
pub mod payload;
pub mod recipe;
mod respond;
mod server;
pub mod state;
pub mod stats;
pub mod table;
pub mod timing;

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

pub use recipe::{
    Capacity, ErrorMix, Fault, FaultKind, Recipe, RecipeError, Source, Stage, parse_recipes,
};
pub use state::DEFAULT_RECIPE;
pub use timing::Latency;

/// Everything `serve` needs besides the listener.
#[derive(Debug, Clone)]
pub struct OriginConfig {
    /// Recipes loaded at start. Empty: the default route (see `default_page`).
    pub recipes: Vec<Recipe>,
    /// With a token the admin API answers any client that sends it; without one,
    /// only loopback clients, and `serve` refuses a non-loopback listener.
    pub admin_token: Option<String>,
    /// With no recipe, serve OriginSimulator v1.1's default (a gzip HTML page,
    /// 200 after 100 ms). When false, unmatched paths answer 406 "Recipe not set"
    /// as OriginSimulator ≤ v1.0 did.
    pub default_page: bool,
    /// Largest accepted admin request body, in bytes.
    pub admin_body_limit: usize,
    /// How long shutdown waits for in-flight requests.
    pub shutdown_grace: Duration,
    /// Worker threads of the runtime `spawn` builds (None: one per available CPU).
    pub workers: Option<usize>,
    /// How long a client may keep a connection without making progress.
    pub timeouts: Timeouts,
}

/// How long the origin waits on an HTTP/1.x client before it closes the
/// connection, so that slow or idle clients cannot hold every file
/// descriptor (a slowloris). Each is a limit on waiting, not on work: a
/// response the origin is delaying on purpose (a recipe's latency) is never
/// cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// From the first byte of a request head to its end.
    pub header: Duration,
    /// Between two reads of a request body.
    pub body: Duration,
    /// A connection with no request under way: a new connection's first byte,
    /// and the next request on a keep-alive connection.
    pub idle: Duration,
}

impl Default for Timeouts {
    /// nginx's order of magnitude (its `client_header_timeout`,
    /// `client_body_timeout` 60 s, `keepalive_timeout` 75 s), shorter for the
    /// head: 30 s, 30 s, 60 s.
    fn default() -> Self {
        Timeouts {
            header: Duration::from_secs(30),
            body: Duration::from_secs(30),
            idle: Duration::from_secs(60),
        }
    }
}

impl Default for OriginConfig {
    fn default() -> Self {
        OriginConfig {
            recipes: Vec::new(),
            admin_token: None,
            default_page: true,
            admin_body_limit: 1024 * 1024,
            shutdown_grace: Duration::from_secs(2),
            workers: None,
            timeouts: Timeouts::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OriginError {
    #[error(
        "refusing to serve the admin API on non-loopback address {0} without an admin token (set one, or listen on 127.0.0.1)"
    )]
    UnsafeAdmin(SocketAddr),
    #[error("recipe: {0}")]
    Recipe(#[from] RecipeError),
    #[error("recipe {0}")]
    Ingest(String),
    #[error("network: {0}")]
    Io(#[from] std::io::Error),
}

impl From<state::IngestError> for OriginError {
    fn from(e: state::IngestError) -> Self {
        match e {
            state::IngestError::Recipe(r) => OriginError::Recipe(r),
            other => OriginError::Ingest(other.to_string()),
        }
    }
}

fn check_safe(addr: SocketAddr, config: &OriginConfig) -> Result<(), OriginError> {
    if config.admin_token.is_none() && !addr.ip().is_loopback() {
        return Err(OriginError::UnsafeAdmin(addr));
    }
    Ok(())
}

/// Serves on `listener` until `shutdown` resolves, then drains in-flight
/// requests for at most `config.shutdown_grace`.
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: OriginConfig,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), OriginError> {
    check_safe(listener.local_addr()?, &config)?;
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let state = state::State::build(config, stop_rx).await?;
    server::accept_loop(listener, state, stop_tx, shutdown).await;
    Ok(())
}

/// Listen backlog requested (the kernel caps it at `net.core.somaxconn`).
/// Thousands of clients connecting at once overflow a short queue, and a
/// dropped handshake costs its first request a retransmission (1 s or more).
pub const LISTEN_BACKLOG: i32 = 65_535;

/// Binds a non-blocking listener with a long accept queue ([`LISTEN_BACKLOG`]);
/// convert it with `tokio::net::TcpListener::from_std` to pass to [`serve`].
pub fn bind_listener(addr: SocketAddr) -> std::io::Result<std::net::TcpListener> {
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(addr),
        socket2::Type::STREAM,
        None,
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    socket.set_nonblocking(true)?;
    Ok(socket.into())
}

/// An origin running on its own thread and runtime; stops when dropped.
pub struct OriginHandle {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl OriginHandle {
    /// `http://addr` with no trailing slash.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, drains, and waits for the thread to end.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for OriginHandle {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// Starts an origin in-process on a background thread with its own runtime.
/// Returns once it is listening and its start-up recipes are loaded.
pub fn spawn(addr: SocketAddr, config: OriginConfig) -> Result<OriginHandle, OriginError> {
    let std_listener = bind_listener(addr)?;
    let addr = std_listener.local_addr()?;
    check_safe(addr, &config)?;
    let workers = config
        .workers
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .thread_name("loadlab-origin")
        .enable_all()
        .build()?;
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<(), OriginError>>();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("loadlab-origin-main".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(std_listener) {
                    Ok(l) => l,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.into()));
                        return;
                    }
                };
                let (watch_tx, watch_rx) = tokio::sync::watch::channel(false);
                let state = match state::State::build(config, watch_rx).await {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e.into()));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                server::accept_loop(listener, state, watch_tx, async {
                    let _ = stop_rx.await;
                })
                .await;
            });
            // Dropping the runtime here cancels any request still hanging.
        })?;
    match ready_rx.recv() {
        Ok(Ok(())) => Ok(OriginHandle {
            addr,
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        Ok(Err(e)) => {
            let _ = thread.join();
            Err(e)
        }
        Err(_) => {
            let _ = thread.join();
            Err(OriginError::Ingest(
                "the origin thread ended during start-up".into(),
            ))
        }
    }
}
