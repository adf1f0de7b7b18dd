//! Serves `attack -prometheus-addr` while the attack runs: every path
//! answers with the current figures in Prometheus' text format, as vegeta's
//! exporter does. The server stops with the attack.

use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response};
use loadlab_metrics::PromMetrics;

use crate::exit::{self, CliError};

pub struct PromServer {
    pub addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// `HOST:PORT` (an address or a name such as `localhost`), or `:PORT` for
/// every interface (Go's form, as vegeta takes it).
fn parse_addr(s: &str) -> Result<SocketAddr, CliError> {
    use std::net::ToSocketAddrs;
    let full = if s.starts_with(':') {
        format!("0.0.0.0{s}")
    } else {
        s.to_string()
    };
    full.parse()
        .ok()
        .or_else(|| full.to_socket_addrs().ok()?.next())
        .ok_or_else(|| {
            CliError::usage(format!(
                "invalid -prometheus-addr {s:?}: expected HOST:PORT, e.g. 127.0.0.1:8880 or :8880"
            ))
        })
}

/// Listens on `addr` (synchronously, so a busy port is reported before the
/// attack starts) and serves `metrics` on a thread of its own.
pub fn start(addr: &str, metrics: Arc<PromMetrics>) -> Result<PromServer, CliError> {
    let want = parse_addr(addr)?;
    let listener = TcpListener::bind(want).map_err(|e| {
        CliError::new(
            exit::NETWORK,
            format!("cannot listen on -prometheus-addr {addr}: {e}"),
        )
    })?;
    let bound = listener.local_addr().unwrap_or(want);
    listener
        .set_nonblocking(true)
        .map_err(|e| CliError::io(format!("-prometheus-addr: {e}")))?;
    let (tx, mut rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::Builder::new()
        .name("loadlab-prometheus".into())
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
                        _ = &mut rx => return,
                        s = listener.accept() => match s {
                            Ok((sock, _)) => sock,
                            Err(_) => continue,
                        },
                    };
                    let m = metrics.clone();
                    tokio::spawn(async move {
                        let svc = hyper::service::service_fn(
                            move |_req: Request<hyper::body::Incoming>| {
                                let body = m.render();
                                async move {
                                    Ok::<_, Infallible>(
                                        Response::builder()
                                            .header(
                                                "content-type",
                                                "text/plain; version=0.0.4; charset=utf-8",
                                            )
                                            .body(Full::new(Bytes::from(body)))
                                            .unwrap_or_default(),
                                    )
                                }
                            },
                        );
                        let io = hyper_util::rt::TokioIo::new(sock);
                        let _ = hyper::server::conn::http1::Builder::new()
                            .serve_connection(io, svc)
                            .await;
                    });
                }
            });
        })
        .map_err(|e| CliError::internal(format!("cannot start the Prometheus server: {e}")))?;
    Ok(PromServer {
        addr: bound,
        stop: Some(tx),
        thread: Some(thread),
    })
}

impl Drop for PromServer {
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
        assert_eq!(
            parse_addr(":8880").unwrap(),
            "0.0.0.0:8880".parse().unwrap()
        );
        assert_eq!(
            parse_addr("127.0.0.1:9").unwrap(),
            "127.0.0.1:9".parse().unwrap()
        );
        assert!(parse_addr("localhost:9").unwrap().ip().is_loopback());
        assert!(parse_addr("nowhere").is_err());
        assert!(parse_addr("127.0.0.1").is_err());
    }
}
