//! A small HTTP server that lives beside a run on a thread of its own (the
//! Prometheus exporter, the dashboard): bound before the run starts, so a
//! busy port is an error then, and stopped and joined when dropped.
//!
//! Rules: the listener is bound synchronously by the caller's thread; the
//! server's thread runs a current-thread runtime that answers every
//! connection with `answer`; dropping [`LocalServer`] stops the accept loop,
//! gives still-open streams (counted in `linger`) at most a second to
//! finish, and joins the thread.

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::{Request, Response};

use crate::exit::CliError;

/// A response with any body.
pub type Resp = Response<BoxBody<Bytes, Infallible>>;

/// How long open streams may take to finish once the server stops.
const LINGER: Duration = Duration::from_secs(1);

/// A running server; stops when dropped.
pub struct LocalServer {
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// How an address may be written for a flag: `HOST:PORT` (an address or a
/// name such as `localhost`), `:PORT` for every interface (Go's form), and,
/// when `bare_port` is set, a bare `PORT` for loopback. `flag` and
/// `example` word the error.
pub fn parse_addr(
    s: &str,
    bare_port: bool,
    flag: &str,
    example: &str,
) -> Result<SocketAddr, CliError> {
    use std::net::ToSocketAddrs;
    let full = if s.starts_with(':') {
        format!("0.0.0.0{s}")
    } else if bare_port && s.parse::<u16>().is_ok() {
        format!("127.0.0.1:{s}")
    } else {
        s.to_string()
    };
    let forms = if bare_port {
        "HOST:PORT, :PORT or PORT"
    } else {
        "HOST:PORT"
    };
    full.parse()
        .ok()
        .or_else(|| full.to_socket_addrs().ok()?.next())
        .ok_or_else(|| {
            CliError::usage(format!(
                "invalid {flag} {s:?}: expected {forms}, e.g. {example}"
            ))
        })
}

/// Serves `listener` (already bound, by the caller) on a thread named
/// `name`, answering each request with `answer`. Streams counted in
/// `linger` are given [`LINGER`] to end after the server is told to stop.
pub fn serve<F>(
    listener: TcpListener,
    name: &str,
    answer: F,
    linger: Option<Arc<AtomicUsize>>,
) -> Result<LocalServer, CliError>
where
    F: Fn(Request<hyper::body::Incoming>) -> Resp + Send + Sync + 'static,
{
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::io(format!("{name}: {e}")))?;
    listener
        .set_nonblocking(true)
        .map_err(|e| CliError::io(format!("{name}: {e}")))?;
    let answer = Arc::new(answer);
    let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name(name.into())
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
                loop {
                    let sock = tokio::select! {
                        _ = &mut rx => break,
                        s = listener.accept() => match s {
                            Ok((sock, _)) => sock,
                            Err(_) => continue,
                        },
                    };
                    let answer = answer.clone();
                    tokio::spawn(async move {
                        let svc = hyper::service::service_fn(move |req| {
                            let r = answer(req);
                            async move { Ok::<_, Infallible>(r) }
                        });
                        let io = hyper_util::rt::TokioIo::new(sock);
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, svc)
                            .await;
                    });
                }
                if let Some(open) = linger {
                    let until = tokio::time::Instant::now() + LINGER;
                    while open.load(Ordering::Relaxed) > 0 && tokio::time::Instant::now() < until {
                        tokio::time::sleep(Duration::from_millis(10)).await;
                    }
                }
            });
        })
        .map_err(|e| CliError::internal(format!("cannot start the {name} thread: {e}")))?;
    Ok(LocalServer {
        addr,
        stop: Some(tx),
        thread: Some(thread),
    })
}

impl Drop for LocalServer {
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
    fn addresses_take_gos_forms() {
        let p = |s| parse_addr(s, false, "-prometheus-addr", "127.0.0.1:8880");
        assert_eq!(p(":8880").unwrap(), "0.0.0.0:8880".parse().unwrap());
        assert_eq!(p("127.0.0.1:9").unwrap(), "127.0.0.1:9".parse().unwrap());
        assert!(p("localhost:9").unwrap().ip().is_loopback());
        assert!(p("nowhere").is_err());
        assert!(p("127.0.0.1").is_err());
        assert!(p("5665").is_err());
    }

    #[test]
    fn a_bare_port_is_loopback_where_allowed() {
        let p = |s| parse_addr(s, true, "-dashboard address", "127.0.0.1:5665");
        assert_eq!(p("5665").unwrap(), "127.0.0.1:5665".parse().unwrap());
        assert_eq!(p(":5665").unwrap(), "0.0.0.0:5665".parse().unwrap());
        let e = p("nowhere").unwrap_err().message;
        assert!(
            e.contains("-dashboard address") && e.contains("PORT"),
            "{e}"
        );
    }
}
