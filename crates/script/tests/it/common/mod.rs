//! Test servers on 127.0.0.1:0 (the seed script's pub/sub server is
//! `loadlab_testkit::pubsub`).

#![allow(dead_code)]

pub mod wsk;

use std::convert::Infallible;
use std::io::Read;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};

/// A running server; stops when dropped.
pub struct Server {
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Handler = Arc<dyn Fn(Request<Bytes>) -> futures_lite::BoxFut + Send + Sync>;

mod futures_lite {
    pub type BoxFut = std::pin::Pin<
        Box<
            dyn std::future::Future<Output = hyper::Response<http_body_util::Full<bytes::Bytes>>>
                + Send,
        >,
    >;
}

fn serve_with(h: Handler) -> (SocketAddr, Server) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, mut stop_rx) = tokio::sync::oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            loop {
                tokio::select! {
                    _ = &mut stop_rx => break,
                    a = l.accept() => {
                        let Ok((sock, _)) = a else { continue };
                        let h = h.clone();
                        tokio::spawn(async move {
                            let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                                let h = h.clone();
                                async move {
                                    let (parts, body) = req.into_parts();
                                    let body = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
                                    Ok::<_, Infallible>(h(Request::from_parts(parts, body)).await)
                                }
                            });
                            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                                .serve_connection(TokioIo::new(sock), svc)
                                .await;
                        });
                    }
                }
            }
        });
    });
    let addr = rx.recv().unwrap();
    (
        addr,
        Server {
            stop: Some(stop_tx),
            thread: Some(thread),
        },
    )
}

fn json(status: u16, v: serde_json::Value) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(v.to_string())))
        .unwrap()
}

/// Echoes the request: `{"method", "path", "query", "headers", "body"}`;
/// `/status/NNN` answers NNN; `/slow` waits 200 ms.
pub fn echo() -> (SocketAddr, Server) {
    serve_with(Arc::new(|req: Request<Bytes>| {
        Box::pin(async move {
            let path = req.uri().path().to_string();
            if let Some(code) = path.strip_prefix("/status/") {
                return json(code.parse().unwrap_or(500), serde_json::json!({}));
            }
            if path == "/slow" {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            let headers: serde_json::Map<String, serde_json::Value> = req
                .headers()
                .iter()
                .map(|(k, v)| (k.to_string(), serde_json::json!(v.to_str().unwrap_or(""))))
                .collect();
            json(
                200,
                serde_json::json!({
                    "method": req.method().as_str(),
                    "path": path,
                    "query": req.uri().query().unwrap_or(""),
                    "headers": headers,
                    "body": String::from_utf8_lossy(req.body()),
                }),
            )
        })
    }))
}

/// Runs `src` (written as `s.js` in `dir`) with `env` and `overrides`
/// (failing the test only if the run hangs: see
/// [`loadlab_testkit::proc::HANG`]); the outcome and the summary export
/// when asked for (`Value::Null` otherwise). Quiet (`-q`: no progress
/// lines at the end of the summary) unless `progress`.
pub fn run_script_with(
    dir: &Path,
    src: &str,
    env: Vec<(String, String)>,
    overrides: loadlab_script::Overrides,
    summary_export: bool,
) -> (loadlab_script::RunOutcome, serde_json::Value) {
    run_script_full(dir, src, env, overrides, summary_export, false)
}

/// [`run_script_with`], with the summary's progress lines when `progress`.
pub fn run_script_full(
    dir: &Path,
    src: &str,
    env: Vec<(String, String)>,
    overrides: loadlab_script::Overrides,
    summary_export: bool,
    progress: bool,
) -> (loadlab_script::RunOutcome, serde_json::Value) {
    let path = dir.join("s.js");
    std::fs::write(&path, src).unwrap();
    let export = dir.join("export.json");
    let cfg = loadlab_script::RunConfig {
        script: path,
        env,
        overrides,
        quiet: !progress,
        summary_export: summary_export.then(|| export.clone()),
        ..Default::default()
    };
    // A hang guard only: a debug build under other builds' load may take
    // minutes over a healthy run (500 HTML pages parsed, say).
    let what = format!("the script run of {}", dir.join("s.js").display());
    let out = loadlab_testkit::proc::finish_within(&what, loadlab_testkit::proc::HANG, move || {
        loadlab_script::run(cfg, std::future::pending()).unwrap()
    });
    let e = if summary_export {
        serde_json::from_str(&std::fs::read_to_string(export).unwrap()).unwrap()
    } else {
        serde_json::Value::Null
    };
    (out, e)
}

/// Reads one HTTP/1.1 request from `s` for the raw test servers: its head,
/// then as many body bytes as its Content-Length says. What follows stays
/// in `buf` for the next call. Returns the head as text, or `None` once the
/// peer closed or a read failed. `on_read` is told each read's byte count.
pub fn read_request(
    s: &mut impl Read,
    buf: &mut Vec<u8>,
    mut on_read: impl FnMut(usize),
) -> Option<String> {
    let mut chunk = [0u8; 4096];
    let mut fill = |buf: &mut Vec<u8>| match s.read(&mut chunk) {
        Ok(0) | Err(_) => false,
        Ok(n) => {
            on_read(n);
            buf.extend_from_slice(&chunk[..n]);
            true
        }
    };
    let (need, head) = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len: usize = head
                .to_ascii_lowercase()
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().unwrap_or(0));
            break (end + 4 + len, head);
        }
        if !fill(buf) {
            return None;
        }
    };
    while buf.len() < need {
        if !fill(buf) {
            return None;
        }
    }
    buf.drain(..need);
    Some(head)
}

/// The error of a script that is refused before any load (its options,
/// say), written to `bad.js` in `dir`.
pub fn refused(dir: &Path, options: &str) -> String {
    let path = dir.join("bad.js");
    std::fs::write(
        &path,
        format!("export const options = {{ {options} }};\nexport default function () {{}}\n"),
    )
    .unwrap();
    let cfg = loadlab_script::RunConfig {
        script: path,
        quiet: true,
        ..Default::default()
    };
    loadlab_script::run(cfg, std::future::pending())
        .unwrap_err()
        .to_string()
}
