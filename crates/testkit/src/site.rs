//! A small web site with a login, for recording a browser's visit: a page
//! with a style sheet, a script, an image and a login form; the script
//! posts the form's JSON to `/login`, which answers a fresh token, then
//! reads `/api/me` with `Authorization: Bearer <token>` and marks the page
//! done (`document.body.dataset.done`). `/api/me` answers 401 to a token
//! `/login` did not hand out, and, while [`Stats::strict`] is set (the
//! default), to any but the latest one: a replay that logs in again must
//! carry the new token over.

use std::collections::HashSet;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

const PAGE: &str = r#"<!doctype html>
<html><head><title>Sign in</title><link rel="stylesheet" href="/static/site.css">
<script src="/static/app.js" defer></script></head>
<body><img src="/static/logo.png" alt="logo">
<form id="login"><input name="user" value="ann"><input name="password" type="password" value="open sesame"></form>
</body></html>"#;

const SCRIPT: &str = r#"window.addEventListener('load', async () => {
  const f = new FormData(document.getElementById('login'));
  const r = await fetch('/login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ user: f.get('user'), password: f.get('password') }) });
  const { session } = await r.json();
  const me = await fetch('/api/me?view=full', { headers: { 'Authorization': 'Bearer ' + session.token } });
  document.body.dataset.done = me.status === 200 ? (await me.json()).user : 'refused ' + me.status;
});"#;

/// Counters of what the site answered, and its one switch.
#[derive(Debug, Default)]
pub struct Stats {
    /// Only the latest token opens `/api/me` (else any token handed out).
    pub strict: AtomicBool,
    pub logins: AtomicU64,
    /// `/api/me` answered 200 (with a token from `/login`).
    pub authorized: AtomicU64,
    /// `/api/me` answered 401.
    pub refused: AtomicU64,
}

/// The running site; stopped on drop.
pub struct Site {
    pub addr: SocketAddr,
    pub stats: Arc<Stats>,
    _stop: oneshot::Sender<()>,
}

struct State {
    tokens: Mutex<HashSet<String>>,
    latest: Mutex<String>,
    stats: Arc<Stats>,
    seed: u64,
}

/// Starts the site on 127.0.0.1:0, on a thread of its own.
pub fn serve() -> Site {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let l = rt.block_on(TcpListener::bind("127.0.0.1:0")).expect("bind");
    let addr = l.local_addr().expect("addr");
    let stats = Arc::new(Stats::default());
    stats.strict.store(true, Ordering::Relaxed);
    let st = Arc::new(State {
        tokens: Mutex::new(HashSet::new()),
        latest: Mutex::new(String::new()),
        stats: stats.clone(),
        seed: u64::from(addr.port()) * 0x9e37_79b9,
    });
    let (stop, stopped) = oneshot::channel::<()>();
    std::thread::spawn(move || {
        rt.block_on(async move {
            tokio::select! {
                _ = stopped => {}
                _ = accept(l, st) => {}
            }
        });
    });
    Site {
        addr,
        stats,
        _stop: stop,
    }
}

async fn accept(l: TcpListener, st: Arc<State>) {
    while let Ok((c, _)) = l.accept().await {
        let st = st.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req| {
                let st = st.clone();
                async move { Ok::<_, Infallible>(handle(&st, req).await) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(c), svc)
                .await;
        });
    }
}

fn reply(status: u16, mime: &str, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    Response::builder()
        .status(status)
        .header("content-type", mime)
        .header("cache-control", "no-store")
        .body(Full::new(body.into()))
        .expect("response")
}

async fn handle(st: &State, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let (head, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    match (&head.method, head.uri.path()) {
        (&Method::GET, "/") => reply(200, "text/html; charset=utf-8", PAGE),
        (&Method::GET, "/static/site.css") => reply(200, "text/css", "body { margin: 2em }"),
        (&Method::GET, "/static/app.js") => reply(200, "text/javascript", SCRIPT),
        (&Method::GET, "/static/logo.png" | "/favicon.ico") => {
            reply(200, "image/png", &b"\x89PNG\r\n\x1a\n"[..])
        }
        (&Method::POST, "/login") => {
            let ok = serde_json::from_slice::<serde_json::Value>(&body)
                .is_ok_and(|v| v["user"].is_string());
            if !ok {
                return reply(400, "application/json", r#"{"error":"user missing"}"#);
            }
            let n = st.stats.logins.fetch_add(1, Ordering::Relaxed) + 1;
            let token = format!(
                "tk{:016x}",
                (st.seed ^ n).wrapping_mul(0x2545_f491_4f6c_dd1d)
            );
            st.tokens.lock().unwrap().insert(token.clone());
            *st.latest.lock().unwrap() = token.clone();
            reply(
                200,
                "application/json",
                format!(r#"{{"session":{{"token":"{token}","expires_in":3600}},"user":"ann"}}"#),
            )
        }
        (&Method::GET, "/api/me") => {
            let auth = head
                .headers
                .get("authorization")
                .and_then(|v| v.to_str().ok());
            let token = auth.and_then(|a| a.strip_prefix("Bearer ")).unwrap_or("");
            let ok = if st.stats.strict.load(Ordering::Relaxed) {
                *st.latest.lock().unwrap() == token && !token.is_empty()
            } else {
                st.tokens.lock().unwrap().contains(token)
            };
            if ok {
                st.stats.authorized.fetch_add(1, Ordering::Relaxed);
                reply(200, "application/json", r#"{"user":"ann"}"#)
            } else {
                st.stats.refused.fetch_add(1, Ordering::Relaxed);
                reply(401, "application/json", r#"{"error":"no valid token"}"#)
            }
        }
        _ => reply(404, "text/plain", "not found"),
    }
}
