//! Test servers on 127.0.0.1:0.
//!
//! `stub_pubsub` is the smallest stand-in for the 4 DSPS endpoints the seed
//! script uses. TO BE REPLACED by `loadlab_testkit::pubsub::serve()` (branch
//! h/k6kit) when it lands; the tests only need `serve() -> (SocketAddr, Server)`.

#![allow(dead_code)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::sync::Notify;

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

#[derive(Default)]
struct PubSub {
    /// channel → subscriber → pending messages.
    subs: Mutex<HashMap<String, HashMap<String, Vec<serde_json::Value>>>>,
    notify: Notify,
}

/// The 4 DSPS endpoints, in memory.
pub fn stub_pubsub() -> (SocketAddr, Server) {
    let st = Arc::new(PubSub::default());
    serve_with(Arc::new(move |req: Request<Bytes>| {
        let st = st.clone();
        Box::pin(async move {
            let path = req.uri().path().to_string();
            let query = req.uri().query().unwrap_or("").to_string();
            let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
            let method = req.method().clone();
            match (method.as_str(), parts.as_slice()) {
                ("PUT", ["channel", ch, "message", id]) => {
                    let content: serde_json::Value =
                        serde_json::from_slice(req.body()).unwrap_or(serde_json::Value::Null);
                    let msg =
                        serde_json::json!({"channelID": ch, "messageID": id, "content": content});
                    if let Some(subs) = st.subs.lock().unwrap().get_mut(*ch) {
                        for q in subs.values_mut() {
                            q.push(msg.clone());
                        }
                    }
                    st.notify.notify_waiters();
                    json(200, serde_json::json!({"channelID": ch, "messageID": id}))
                }
                ("PUT", ["channel", ch, "subscription", "polling", sid]) => {
                    st.subs
                        .lock()
                        .unwrap()
                        .entry(ch.to_string())
                        .or_default()
                        .entry(sid.to_string())
                        .or_default();
                    json(
                        200,
                        serde_json::json!({"channelID": ch, "subscriberID": sid}),
                    )
                }
                ("GET", ["channel", ch, "subscription", "polling", sid]) => {
                    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
                    loop {
                        let notified = st.notify.notified();
                        let msgs = st
                            .subs
                            .lock()
                            .unwrap()
                            .get(*ch)
                            .and_then(|s| s.get(*sid))
                            .cloned();
                        let Some(msgs) = msgs else {
                            return json(404, serde_json::json!({"error": "no subscription"}));
                        };
                        if !msgs.is_empty() {
                            return json(
                                200,
                                serde_json::json!({
                                    "channelID": ch, "messages": msgs, "ackHandle": format!("{}", msgs.len()),
                                }),
                            );
                        }
                        if tokio::time::timeout_at(deadline, notified).await.is_err() {
                            return json(200, serde_json::json!({"channelID": ch, "messages": []}));
                        }
                    }
                }
                ("DELETE", ["channel", ch, "subscription", "polling", sid, "message"]) => {
                    let n: usize = query
                        .split('&')
                        .find_map(|kv| kv.strip_prefix("ackHandle="))
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(0);
                    if let Some(q) = st
                        .subs
                        .lock()
                        .unwrap()
                        .get_mut(*ch)
                        .and_then(|s| s.get_mut(*sid))
                    {
                        let n = n.min(q.len());
                        q.drain(..n);
                    }
                    Response::builder()
                        .status(204)
                        .body(Full::new(Bytes::new()))
                        .unwrap()
                }
                _ => json(404, serde_json::json!({"error": "not found"})),
            }
        })
    }))
}
