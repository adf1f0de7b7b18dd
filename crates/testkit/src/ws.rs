//! A WebSocket server on 127.0.0.1:0 for k6/ws tests, its behaviour chosen
//! by the upgrade's path:
//!
//! * `/echo`: sends every text or binary message back (pings are answered
//!   with pongs by the protocol layer);
//! * `/push/N`: sends `msg-0` … `msg-{N-1}` as soon as it is open, then
//!   echoes;
//! * `/close/CODE`: on the first message, closes with CODE and reason
//!   `bye`;
//! * `/drop`: on the first message, drops the TCP connection (no close
//!   frame);
//! * `/ping`: sends a ping as soon as it is open, then echoes;
//! * `/deny`: refuses the upgrade with 403 and the body `denied`.
//!
//! A `Sec-WebSocket-Protocol` offer is accepted with its first name. It
//! keeps every upgrade request's path and header fields, and counts the
//! messages it received. Stops when the [`WsServer`] is dropped.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpListener;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::CloseFrame;

/// What the server saw.
#[derive(Default, Debug, Clone)]
pub struct Seen {
    /// Each upgrade request: its path and header fields (lower-case names).
    pub upgrades: Vec<(String, Vec<(String, String)>)>,
    /// Text and binary messages received, all sessions.
    pub messages: Vec<Message>,
    /// Close frames received: their codes.
    pub closes: Vec<u16>,
}

/// A running server; stops on drop.
pub struct WsServer {
    pub addr: SocketAddr,
    seen: Arc<Mutex<Seen>>,
    task: tokio::task::JoinHandle<()>,
}

impl WsServer {
    /// `ws://127.0.0.1:PORT` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("ws://{}{}", self.addr, path)
    }

    pub fn seen(&self) -> Seen {
        self.seen.lock().expect("seen lock").clone()
    }
}

impl Drop for WsServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts the server on the current tokio runtime.
pub async fn start() -> WsServer {
    start_with(None).await
}

/// Starts the server over TLS (`wss://`): a fresh self-signed certificate
/// for `localhost` offering ALPN `h2` and `http/1.1`, so a client that
/// offered `h2` would get it and fail its upgrade.
pub async fn start_tls() -> WsServer {
    start_with(Some(
        crate::tls::self_signed(&[b"h2", b"http/1.1"]).acceptor,
    ))
    .await
}

async fn start_with(tls: Option<crate::tls::TlsAcceptor>) -> WsServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let seen: Arc<Mutex<Seen>> = Arc::default();
    let s = seen.clone();
    let task = tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let s = s.clone();
            match &tls {
                None => {
                    tokio::spawn(serve(tcp, s));
                }
                Some(a) => {
                    let a = a.clone();
                    tokio::spawn(async move {
                        if let Ok(t) = a.accept(tcp).await {
                            if t.get_ref().1.alpn_protocol() == Some(b"h2") {
                                return;
                            }
                            serve(t, s).await;
                        }
                    });
                }
            }
        }
    });
    WsServer { addr, seen, task }
}

/// One connection: the upgrade, then what its path says.
// (The upgrade's callback returns tungstenite's own large error type.)
#[allow(clippy::result_large_err)]
async fn serve<S>(tcp: S, s: Arc<Mutex<Seen>>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let path = Arc::new(Mutex::new(String::new()));
    let p = path.clone();
    let s2 = s.clone();
    let cb = move |req: &Request, mut resp: Response| -> Result<Response, ErrorResponse> {
        let fields = req
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        let path = req.uri().path().to_string();
        s2.lock()
            .expect("seen lock")
            .upgrades
            .push((path.clone(), fields));
        if path == "/deny" {
            let mut e = ErrorResponse::new(Some("denied".to_string()));
            *e.status_mut() = http::StatusCode::FORBIDDEN;
            return Err(e);
        }
        if let Some(first) = req
            .headers()
            .get("sec-websocket-protocol")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_string())
        {
            resp.headers_mut().insert(
                "sec-websocket-protocol",
                http::HeaderValue::from_str(&first).expect("value"),
            );
        }
        *p.lock().expect("path lock") = path;
        Ok(resp)
    };
    let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(tcp, cb).await else {
        return;
    };
    let path = path.lock().expect("path lock").clone();
    if let Some(n) = path.strip_prefix("/push/") {
        let n: usize = n.parse().unwrap_or(0);
        for i in 0..n {
            if ws
                .send(Message::Text(format!("msg-{i}").into()))
                .await
                .is_err()
            {
                return;
            }
        }
    }
    if path == "/ping"
        && ws
            .send(Message::Ping(b"srv".to_vec().into()))
            .await
            .is_err()
    {
        return;
    }
    while let Some(Ok(m)) = ws.next().await {
        match m {
            Message::Text(_) | Message::Binary(_) => {
                s.lock().expect("seen lock").messages.push(m.clone());
                if let Some(code) = path.strip_prefix("/close/") {
                    let code: u16 = code.parse().unwrap_or(1000);
                    let _ = ws
                        .send(Message::Close(Some(CloseFrame {
                            code: code.into(),
                            reason: "bye".into(),
                        })))
                        .await;
                    // Wait for the client's close (or its end).
                    while let Some(Ok(m)) = ws.next().await {
                        if let Message::Close(f) = m {
                            s.lock()
                                .expect("seen lock")
                                .closes
                                .push(f.map_or(1005, |f| f.code.into()));
                        }
                    }
                    return;
                }
                if path == "/drop" {
                    return;
                }
                if ws.send(m).await.is_err() {
                    return;
                }
            }
            Message::Close(f) => {
                s.lock()
                    .expect("seen lock")
                    .closes
                    .push(f.map_or(1005, |f| f.code.into()));
            }
            _ => {}
        }
    }
}
