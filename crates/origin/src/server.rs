//! The accept loop and the request path.
//!
//! Per request: one `ArcSwap` load of the route table, a hash lookup (or a
//! short scan of wildcard prefixes), the active stage computed from the clock,
//! a sleep for the latency, and a response whose body is a clone of shared
//! `Bytes`. Counters are the route's own atomics. No lock is shared by all requests.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use rand::Rng;
use tokio::net::{TcpListener, TcpStream};

use crate::admin;
use crate::body::{Aborted, OriginBody};
use crate::recipe::{FaultKind, Stage};
use crate::state::State;
use crate::stats::{FaultCount, Gauge, RouteStats};
use crate::table::{Limiter, Route};

/// Per-connection context, shared by that connection's requests only.
pub struct Conn {
    pub state: Arc<State>,
    pub peer: SocketAddr,
    /// Set by a `reset` fault: the socket is closed with an RST instead of a FIN.
    reset: Arc<AtomicBool>,
}

/// The connection's socket, wrapped so a `reset` fault can turn its close into an RST.
struct ConnIo {
    inner: TokioIo<TcpStream>,
    reset: Arc<AtomicBool>,
}

impl Drop for ConnIo {
    fn drop(&mut self) {
        if self.reset.load(Ordering::Relaxed) {
            // Linger 0 makes close() send RST; failure only means a FIN instead.
            let _ = socket2::SockRef::from(self.inner.inner()).set_linger(Some(Duration::ZERO));
        }
    }
}

impl hyper::rt::Read for ConnIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for ConnIo {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.reset.load(Ordering::Relaxed) {
            // Skip the FIN: the drop that follows sends the RST.
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
}

/// Serves connections until `shutdown` resolves, then drains them (bounded by the grace period).
pub(crate) async fn accept_loop(
    listener: TcpListener,
    state: Arc<State>,
    stop_tx: tokio::sync::watch::Sender<bool>,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder.http1().keep_alive(true).half_close(false);
    builder.http2().max_concurrent_streams(1024);
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(_) => {
                // Usually EMFILE under a flood of connections: back off briefly, keep serving.
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let reset = Arc::new(AtomicBool::new(false));
        let conn = Arc::new(Conn { state: state.clone(), peer, reset: reset.clone() });
        let io = ConnIo { inner: TokioIo::new(stream), reset };
        let svc = service_fn(move |req| handle(req, conn.clone()));
        let fut = graceful.watch(builder.serve_connection(io, svc).into_owned());
        tokio::spawn(async move {
            let _ = fut.await;
        });
    }
    drop(listener);
    // Wake hanging requests so that draining can finish.
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(state.config.shutdown_grace, graceful.shutdown()).await;
}

fn is_admin(path: &str) -> bool {
    path.strip_prefix("/_admin").is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

async fn handle(req: Request<Incoming>, conn: Arc<Conn>) -> Result<Response<OriginBody>, Aborted> {
    if is_admin(req.uri().path()) {
        return Ok(admin::handle(req, &conn).await);
    }
    let arrived = Instant::now();
    let head = req.method() == Method::HEAD;
    let route = conn.state.table.load().lookup(req.uri().path()).cloned();
    let Some(route) = route else {
        let unmatched = conn.state.unmatched.load_full();
        return Ok(not_set(req.uri().path(), head, &unmatched, arrived));
    };
    let stats = &route.stats;
    let _in_flight = Gauge::enter(&stats.in_flight);
    let Some(stage) = route.current_stage() else {
        return Ok(not_set(req.uri().path(), head, stats, arrived));
    };
    let path = req.uri().path();

    let _permit = match &route.limiter {
        None => None,
        Some(lim) => match admit(lim, stats).await {
            Some(p) => Some(p),
            None => {
                stats.rejected.fetch_add(1, Ordering::Relaxed);
                return Ok(finish(&route, path, lim.reject_status, head, None, arrived));
            }
        },
    };

    let (latency, fault, status) = match (&stage.latency, stage.faults.is_empty() && stage.errors.is_none()) {
        // The common case draws no random numbers at all.
        (crate::Latency::Fixed(d), true) => (*d, None, stage.status),
        _ => {
            let mut rng = rand::rng();
            let latency = stage.latency.sample(1.0 - rng.random::<f64>(), rng.random::<f64>());
            let (fault, status) = roll(stage, &mut rng);
            (latency, fault, status)
        }
    };
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    match fault {
        None => Ok(finish(&route, path, status, head, None, arrived)),
        Some(FaultKind::Reset) => {
            stats.count_fault(FaultCount::Reset);
            conn.reset.store(true, Ordering::Relaxed);
            Err(Aborted)
        }
        Some(FaultKind::Close) => {
            stats.count_fault(FaultCount::Close);
            Err(Aborted)
        }
        Some(FaultKind::Hang(limit)) => {
            stats.count_fault(FaultCount::Hang);
            let mut stop = conn.state.stop.clone();
            let limit = limit.unwrap_or(Duration::from_secs(24 * 3600));
            tokio::select! {
                _ = tokio::time::sleep(limit) => {}
                _ = stop.wait_for(|s| *s) => {}
            }
            Err(Aborted)
        }
        Some(kind @ (FaultKind::Slow(_) | FaultKind::Truncate(_))) => {
            let shape = match kind {
                FaultKind::Slow(bps) => {
                    stats.count_fault(FaultCount::Slow);
                    Shape { keep: None, bytes_per_sec: Some(bps) }
                }
                FaultKind::Truncate(keep) => {
                    stats.count_fault(FaultCount::Truncate);
                    Shape { keep: Some(keep), bytes_per_sec: None }
                }
                _ => unreachable!("matched above"),
            };
            Ok(finish(&route, path, status, head, Some(shape), arrived))
        }
    }
}

/// Waits for a capacity permit; None = rejected (queue full or waited too long).
async fn admit<'a>(lim: &'a Limiter, stats: &RouteStats) -> Option<tokio::sync::SemaphorePermit<'a>> {
    if let Ok(p) = lim.permits.try_acquire() {
        return Some(p);
    }
    let _queued = Gauge::enter(&stats.queued);
    if stats.queued.load(Ordering::Relaxed) > lim.queue as i64 {
        return None;
    }
    match lim.queue_timeout {
        None => lim.permits.acquire().await.ok(),
        Some(t) => tokio::time::timeout(t, lim.permits.acquire()).await.ok()?.ok(),
    }
}

/// Picks at most one fault (by its share), and the status (the error mix may replace it).
fn roll(stage: &Stage, rng: &mut impl Rng) -> (Option<FaultKind>, u16) {
    if !stage.faults.is_empty() {
        let x: f64 = rng.random();
        let mut acc = 0.0;
        for f in &stage.faults {
            acc += f.rate;
            if x < acc {
                return (Some(f.kind.clone()), stage.status);
            }
        }
    }
    if let Some(e) = &stage.errors {
        if rng.random::<f64>() < e.rate {
            return (None, e.status);
        }
    }
    (None, stage.status)
}

struct Shape {
    keep: Option<f64>,
    bytes_per_sec: Option<u64>,
}

/// Builds the response for `status` and records it.
fn finish(route: &Route, path: &str, status: u16, head: bool, shape: Option<Shape>, arrived: Instant) -> Response<OriginBody> {
    let payload = &route.payload;
    let with_payload = status == 200 || (route.recipe.body_on_error && status != 304);
    let status = match payload.origin_status {
        Some(s) if status == 200 => s,
        _ => StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    let mut resp = if with_payload {
        let mut resp = Response::new(OriginBody::empty());
        let h = resp.headers_mut();
        for (k, v) in &payload.headers {
            h.insert(k.clone(), v.clone());
        }
        let body = payload.body.clone();
        set_body(&mut resp, body, head, shape);
        resp
    } else {
        let mut resp = Response::new(OriginBody::empty());
        let h = resp.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        for (k, v) in &payload.error_headers {
            h.insert(k.clone(), v.clone());
        }
        set_body(&mut resp, error_text(status.as_u16(), path), head, shape);
        resp
    };
    *resp.status_mut() = status;
    route.stats.count_status(status.as_u16());
    route.stats.latency.record(arrived.elapsed().as_micros() as u64);
    resp
}

fn set_body(resp: &mut Response<OriginBody>, body: Bytes, head: bool, shape: Option<Shape>) {
    if head {
        resp.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        return;
    }
    *resp.body_mut() = match shape {
        Some(s) if !body.is_empty() => OriginBody::shaped(body, s.keep, s.bytes_per_sec),
        _ => OriginBody::full(body),
    };
}

/// OriginSimulator's bodies for statuses without the payload.
fn error_text(status: u16, path: &str) -> Bytes {
    match status {
        406 => Bytes::from(not_set_text(path)),
        304 => Bytes::new(),
        404 => Bytes::from_static(b"Not found"),
        500 => Bytes::from_static(b"Error 500"),
        502 => Bytes::from_static(b"Error 502"),
        503 => Bytes::from_static(b"Error 503"),
        504 => Bytes::from_static(b"Error 504"),
        s => Bytes::from(format!("Error {s}")),
    }
}

fn not_set_text(path: &str) -> String {
    format!("Recipe not set at {path}, please POST a recipe for this route to /_admin/add_recipe")
}

/// 406 for a path without a recipe (or before its first stage), as OriginSimulator words it.
fn not_set(path: &str, head: bool, stats: &RouteStats, arrived: Instant) -> Response<OriginBody> {
    let text = not_set_text(path);
    let mut resp = Response::new(OriginBody::empty());
    resp.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    set_body(&mut resp, Bytes::from(text), head, None);
    *resp.status_mut() = StatusCode::NOT_ACCEPTABLE;
    stats.count_status(406);
    stats.latency.record(arrived.elapsed().as_micros() as u64);
    resp
}
