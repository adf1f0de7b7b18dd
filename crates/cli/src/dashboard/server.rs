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
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::body::{Body, Frame};
use hyper::{Method, Request, Response, StatusCode};
use tokio::sync::mpsc;

use super::hub::Hub;
use crate::exit::CliError;

pub struct Server {
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// `HOST:PORT`, `:PORT` (every interface), or a bare `PORT` (loopback).
pub fn parse_addr(s: &str) -> Result<SocketAddr, CliError> {
    use std::net::ToSocketAddrs;
    let full = if s.starts_with(':') {
        format!("0.0.0.0{s}")
    } else if s.parse::<u16>().is_ok() {
        format!("127.0.0.1:{s}")
    } else {
        s.to_string()
    };
    full.parse()
        .ok()
        .or_else(|| full.to_socket_addrs().ok()?.next())
        .ok_or_else(|| {
            CliError::usage(format!(
                "invalid -dashboard address {s:?}: expected HOST:PORT, :PORT or PORT, e.g. 127.0.0.1:5665"
            ))
        })
}

/// Binds now (a busy port is a usage error before the run starts) and
/// serves on a thread of its own.
pub fn start(addr: &str, token: Option<String>, hub: Arc<Hub>) -> Result<Server, CliError> {
    let want = parse_addr(addr)?;
    let token = token.filter(|t| !t.is_empty());
    if !want.ip().is_loopback() && token.is_none() {
        return Err(CliError::usage(format!(
            "refusing to serve the dashboard on non-loopback address {want} without a token (give -dashboard-token, or use 127.0.0.1)"
        )));
    }
    let listener = TcpListener::bind(want)
        .map_err(|e| CliError::usage(format!("cannot serve the dashboard on {want}: {e}")))?;
    let bound = listener.local_addr().unwrap_or(want);
    listener
        .set_nonblocking(true)
        .map_err(|e| CliError::io(format!("-dashboard: {e}")))?;
    let shown = if bound.ip().is_unspecified() {
        SocketAddr::new([127, 0, 0, 1].into(), bound.port())
    } else {
        bound
    };
    let url = match &token {
        Some(_) => format!("http://{shown}/?token=<the -dashboard-token>"),
        None => format!("http://{shown}/"),
    };
    let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
    let token: Option<Arc<str>> = token.map(Arc::from);
    let thread = std::thread::Builder::new()
        .name("loadlab-dashboard-http".into())
        .spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                let open = Arc::new(std::sync::atomic::AtomicUsize::new(0));
                loop {
                    let sock = tokio::select! {
                        _ = &mut rx => break,
                        s = listener.accept() => match s {
                            Ok((sock, _)) => sock,
                            Err(_) => continue,
                        },
                    };
                    let (hub, token, open) = (hub.clone(), token.clone(), open.clone());
                    tokio::spawn(async move {
                        let svc = hyper::service::service_fn(move |req| {
                            let r = answer(req, &hub, token.as_deref(), &open);
                            async move { Ok::<_, Infallible>(r) }
                        });
                        let io = hyper_util::rt::TokioIo::new(sock);
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, svc)
                            .await;
                    });
                }
                // The run ended and the hub sent its last event: let the
                // open streams write it (at most a second), then close.
                let until = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
                while open.load(Ordering::Relaxed) > 0 && tokio::time::Instant::now() < until {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                }
            });
        })
        .map_err(|e| CliError::internal(format!("cannot start the dashboard server: {e}")))?;
    Ok(Server {
        url,
        stop: Some(tx),
        thread: Some(thread),
    })
}

type Resp = Response<BoxBody<Bytes, Infallible>>;

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

fn answer(
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

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses() {
        assert_eq!(
            parse_addr("5665").unwrap(),
            "127.0.0.1:5665".parse().unwrap()
        );
        assert_eq!(
            parse_addr(":5665").unwrap(),
            "0.0.0.0:5665".parse().unwrap()
        );
        assert!(parse_addr("nowhere").is_err());
    }
}
