//! The request path, independent of the wire: route lookup, stage, capacity,
//! latency, faults, and the decision of what to send. The HTTP/1.1 writer
//! (`http1`) and the h2c glue (`h2`) turn a [`Reply`] into bytes.
//!
//! Per request: one `ArcSwap` load of the route table, a hash lookup (or a
//! short scan of wildcard prefixes), the active stage computed from the clock,
//! a sleep for the latency. Counters are the route's own atomics. No lock is
//! shared by all requests.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode, header};
use rand::Rng;

use crate::recipe::{FaultKind, Stage};
use crate::state::State;
use crate::stats::{FaultCount, Gauge, RouteStats};
use crate::table::{Limiter, Route};

/// What to do with one request.
pub(crate) enum Reply {
    Send(Send),
    /// Reset the connection (RST), no response.
    Reset,
    /// Close the connection (FIN), no response.
    Close,
}

/// How the body is delivered when a fault shapes it.
#[derive(Clone, Copy)]
pub(crate) struct Shape {
    /// Send only this share, then cut the connection.
    pub keep: Option<f64>,
    /// Trickle at this rate.
    pub bytes_per_sec: Option<u64>,
}

/// A response to send.
pub(crate) struct Send {
    pub status: StatusCode,
    /// The route answered; None when no route matched.
    pub route: Option<Arc<Route>>,
    /// Send the route's payload (and its headers), else `text` with the error headers.
    pub with_payload: bool,
    pub text: Bytes,
    pub shape: Option<Shape>,
}

static TEXT_HTML: HeaderValue = HeaderValue::from_static("text/html; charset=utf-8");

impl Send {
    pub fn body(&self) -> &Bytes {
        match (&self.route, self.with_payload) {
            (Some(r), true) => &r.payload.body,
            _ => &self.text,
        }
    }

    /// The payload's file copy (for sendfile), when it has one.
    pub fn file(&self) -> Option<&std::fs::File> {
        match (&self.route, self.with_payload) {
            (Some(r), true) => r.payload.file.as_deref(),
            _ => None,
        }
    }

    /// Calls `f` for each header, recipe headers last so they win.
    pub fn each_header<'a>(&'a self, mut f: impl FnMut(&'a HeaderName, &'a HeaderValue)) {
        match (&self.route, self.with_payload) {
            (Some(r), true) => r.payload.headers.iter().for_each(|(k, v)| f(k, v)),
            (route, _) => {
                let extra = route
                    .as_ref()
                    .map_or(&[][..], |r| &r.payload.error_headers[..]);
                if !extra.iter().any(|(k, _)| k == header::CONTENT_TYPE) {
                    f(&header::CONTENT_TYPE, &TEXT_HTML);
                }
                extra.iter().for_each(|(k, v)| f(k, v));
            }
        }
    }
}

/// Answers a (non-admin) request for `path`. `client_gone` resolves if the
/// client disconnects; only a hanging request listens to it, so that hangs
/// whose clients gave up do not pile up.
pub(crate) async fn handle(
    state: &State,
    path: &str,
    client_gone: impl Future<Output = ()>,
) -> Reply {
    let arrived = Instant::now();
    let route = state.table.load().lookup(path).cloned();
    let Some(route) = route else {
        let unmatched = state.unmatched.load_full();
        return not_set(None, path, &unmatched, arrived);
    };
    let stats = &route.stats;
    let _in_flight = Gauge::enter(&stats.in_flight);
    let Some(stage) = route.current_stage() else {
        return not_set(Some(route.clone()), path, stats, arrived);
    };

    let _permit = match &route.limiter {
        None => None,
        Some(lim) => match admit(lim, stats).await {
            Some(p) => Some(p),
            None => {
                stats.rejected.fetch_add(1, Ordering::Relaxed);
                return finish(&route, path, lim.reject_status, None, arrived);
            }
        },
    };

    let (latency, fault, status) = match (
        &stage.latency,
        stage.faults.is_empty() && stage.errors.is_none(),
    ) {
        // The common case draws no random numbers at all.
        (crate::Latency::Fixed(d), true) => (*d, None, stage.status),
        _ => {
            let mut rng = rand::rng();
            let latency = stage
                .latency
                .sample(1.0 - rng.random::<f64>(), rng.random::<f64>());
            let (fault, status) = roll(stage, &mut rng);
            (latency, fault, status)
        }
    };
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    match fault {
        None => finish(&route, path, status, None, arrived),
        Some(FaultKind::Reset) => {
            stats.count_fault(FaultCount::Reset);
            Reply::Reset
        }
        Some(FaultKind::Close) => {
            stats.count_fault(FaultCount::Close);
            Reply::Close
        }
        Some(FaultKind::Hang(limit)) => {
            stats.count_fault(FaultCount::Hang);
            let mut stop = state.stop.clone();
            let limit = limit.unwrap_or(Duration::from_secs(24 * 3600));
            tokio::select! {
                _ = tokio::time::sleep(limit) => {}
                _ = stop.wait_for(|s| *s) => {}
                _ = client_gone => {}
            }
            Reply::Close
        }
        Some(FaultKind::Slow(bps)) => {
            stats.count_fault(FaultCount::Slow);
            finish(
                &route,
                path,
                status,
                Some(Shape {
                    keep: None,
                    bytes_per_sec: Some(bps),
                }),
                arrived,
            )
        }
        Some(FaultKind::Truncate(keep)) => {
            stats.count_fault(FaultCount::Truncate);
            finish(
                &route,
                path,
                status,
                Some(Shape {
                    keep: Some(keep),
                    bytes_per_sec: None,
                }),
                arrived,
            )
        }
    }
}

/// Waits for a capacity permit; None = rejected (queue full or waited too long).
async fn admit<'a>(
    lim: &'a Limiter,
    stats: &RouteStats,
) -> Option<tokio::sync::SemaphorePermit<'a>> {
    if let Ok(p) = lim.permits.try_acquire() {
        return Some(p);
    }
    let _queued = Gauge::enter(&stats.queued);
    if stats.queued.load(Ordering::Relaxed) > lim.queue as i64 {
        return None;
    }
    match lim.queue_timeout {
        None => lim.permits.acquire().await.ok(),
        Some(t) => tokio::time::timeout(t, lim.permits.acquire())
            .await
            .ok()?
            .ok(),
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
    if let Some(e) = &stage.errors
        && rng.random::<f64>() < e.rate
    {
        return (None, e.status);
    }
    (None, stage.status)
}

/// Decides the response for `status` and records it.
fn finish(
    route: &Arc<Route>,
    path: &str,
    status: u16,
    shape: Option<Shape>,
    arrived: Instant,
) -> Reply {
    let with_payload = status == 200 || (route.recipe.body_on_error && status != 304);
    let code = match route.payload.origin_status {
        Some(s) if status == 200 => s,
        _ => StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
    };
    route.stats.count_status(code.as_u16());
    route
        .stats
        .latency
        .record(arrived.elapsed().as_micros() as u64);
    let text = if with_payload {
        Bytes::new()
    } else {
        error_text(status, path)
    };
    let shape = shape.filter(|_| with_payload || !text.is_empty());
    Reply::Send(Send {
        status: code,
        route: Some(route.clone()),
        with_payload,
        text,
        shape,
    })
}

/// OriginSimulator's bodies for statuses without the payload.
fn error_text(status: u16, path: &str) -> Bytes {
    match status {
        304 => Bytes::new(),
        404 => Bytes::from_static(b"Not found"),
        406 => Bytes::from(not_set_text(path)),
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
fn not_set(route: Option<Arc<Route>>, path: &str, stats: &RouteStats, arrived: Instant) -> Reply {
    stats.count_status(406);
    stats.latency.record(arrived.elapsed().as_micros() as u64);
    Reply::Send(Send {
        status: StatusCode::NOT_ACCEPTABLE,
        route,
        with_payload: false,
        text: Bytes::from(not_set_text(path)),
        shape: None,
    })
}
