//! The dashboard's HTTP server: `GET /` the page, `GET /events` the
//! server-sent events, `POST /stop` the Stop button. Loopback unless an
//! address says otherwise, and then every request must carry the token
//! (`?token=…` or `Authorization: Bearer …`).

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Frame};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::mpsc;

use super::hub::Hub;
use crate::exit::CliError;
use crate::local_server::{self, LocalServer, Resp};

/// Binds now (a busy port is a usage error before the run starts) and
/// serves on a thread of its own. Returns the server and the page's URL.
pub fn start(
    addr: &str,
    token: Option<String>,
    hub: Arc<Hub>,
) -> Result<(LocalServer, String), CliError> {
    let want = local_server::parse_addr(addr, true, "-dashboard address", "127.0.0.1:5665")?;
    let token = token.filter(|t| !t.is_empty());
    if !want.ip().is_loopback() && token.is_none() {
        return Err(CliError::usage(format!(
            "refusing to serve the dashboard on non-loopback address {want} without a token (give -dashboard-token, or use 127.0.0.1)"
        )));
    }
    let listener = TcpListener::bind(want)
        .map_err(|e| CliError::usage(format!("cannot serve the dashboard on {want}: {e}")))?;
    let token: Option<Arc<str>> = token.map(Arc::from);
    let with_token = token.is_some();
    // Event streams still open when the run ends get their last event out.
    let open = Arc::new(AtomicUsize::new(0));
    let linger = open.clone();
    let answer = move |req| page_answer(req, &hub, token.as_deref(), &open);
    let server = local_server::serve(listener, "loadlab-dashboard-http", answer, Some(linger))?;
    let bound = server.addr;
    let shown = if bound.ip().is_unspecified() {
        SocketAddr::new([127, 0, 0, 1].into(), bound.port())
    } else {
        bound
    };
    let url = if with_token {
        format!("http://{shown}/?token=<the -dashboard-token>")
    } else {
        format!("http://{shown}/")
    };
    Ok((server, url))
}

fn simple(status: StatusCode, ctype: &str, body: impl Into<Bytes>) -> Resp {
    Response::builder()
        .status(status)
        .header("content-type", ctype)
        .header("cache-control", "no-store")
        .body(Full::new(body.into()).boxed())
        .unwrap_or_default()
}

/// The token, from `?token=` or `Authorization: Bearer`.
fn authorized(req: &Request<hyper::body::Incoming>, token: Option<&str>) -> bool {
    let Some(want) = token else {
        return true;
    };
    let from_query = req
        .uri()
        .query()
        .into_iter()
        .flat_map(|q| q.split('&'))
        .find_map(|kv| kv.strip_prefix("token="));
    let from_header = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    from_query
        .or(from_header)
        .is_some_and(|given| constant_time_eq(given.as_bytes(), want.as_bytes()))
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn page_answer(
    req: Request<hyper::body::Incoming>,
    hub: &Arc<Hub>,
    token: Option<&str>,
    open: &Arc<AtomicUsize>,
) -> Resp {
    if !authorized(&req, token) {
        return simple(
            StatusCode::UNAUTHORIZED,
            "text/plain; charset=utf-8",
            "dashboard token required\n",
        );
    }
    match (req.method(), req.uri().path()) {
        (&Method::GET, "/") => simple(
            StatusCode::OK,
            "text/html; charset=utf-8",
            super::page::render(None),
        ),
        (&Method::GET, "/events") => Response::builder()
            .header("content-type", "text/event-stream")
            .header("cache-control", "no-store")
            .body(Events::new(hub.subscribe(), open.clone()).boxed())
            .unwrap_or_default(),
        (&Method::POST, "/stop") => {
            hub.request_stop();
            simple(StatusCode::OK, "text/plain; charset=utf-8", "stopping\n")
        }
        _ => simple(
            StatusCode::NOT_FOUND,
            "text/plain; charset=utf-8",
            "not found\n",
        ),
    }
}

/// An event stream: what the hub sends, until the run ends or the client
/// goes away (then the hub's next send fails and it forgets the client).
struct Events {
    rx: mpsc::UnboundedReceiver<Bytes>,
    /// Streams still open (this one is counted until dropped).
    open: Arc<AtomicUsize>,
}

impl Events {
    fn new(rx: mpsc::UnboundedReceiver<Bytes>, open: Arc<AtomicUsize>) -> Events {
        open.fetch_add(1, Ordering::Relaxed);
        Events { rx, open }
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Body for Events {
    type Data = Bytes;
    type Error = Infallible;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.rx.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}
