//! One request at a time, for callers that decide what to send next from
//! the last response (the k6 face's `http.get()`): the attack's transport,
//! pools and measurement, plus the response's header fields and body.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use loadlab_core::ErrorKind;
use tokio::time::Instant;

use crate::request::{Outcome, Template, Trail, execute_capture};
use crate::targets::check_url;
use crate::transport::Transport;
use crate::{AttackConfig, EngineError};

pub use crate::stream::{Capture, ConnInfo, Phases, TlsInfo};

pub use crate::request::RedirectCookies;
pub use crate::stream::Owner;

/// What to send.
#[derive(Debug, Clone)]
pub struct ClientRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// Bound on the whole request, connect included.
    pub timeout: Duration,
    /// Redirects to follow; -1 = none (a 3xx is the answer).
    pub redirects: i32,
    /// Keep the body (`false`: read and count it only).
    pub keep_body: bool,
    /// The `Cookie` field of each hop after a redirect (`None`: the
    /// request's own header fields are carried, as Go's client does
    /// without a jar).
    pub redirect_cookies: Option<RedirectCookies>,
    /// `url` as [`Client::check_url`] parsed it, when the caller checked it
    /// (`None`: parsed when sent).
    pub uri: Option<http::Uri>,
    /// Whose keep-alive connections it takes and opens (see [`Owner`]).
    pub owner: Owner,
}

/// What came back, with its instants.
#[derive(Debug, Clone)]
pub struct ClientResponse {
    /// 0 when there was no response.
    pub status: u16,
    pub error: ErrorKind,
    pub headers: crate::header_list::HeaderList,
    pub body: Vec<u8>,
    /// Body bytes (vegeta's `bytes_in`/`bytes_out`; a gzip body the
    /// client asked for counts decoded, as in `body`).
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// The response body bytes as they came over the wire (`bytes_in`
    /// unless a gzip body was decoded).
    pub body_wire: u64,
    /// Bytes on the wire (k6's `data_received`/`data_sent`): see
    /// [`Capture::wire_in`] and [`Capture::wire_out`].
    pub wire_in: u64,
    pub wire_out: u64,
    pub sent: Instant,
    pub first_byte: Option<Instant>,
    pub done: Instant,
    /// Dial (and TLS) time of a new connection; 0 on a reused one.
    pub connect: Duration,
    /// When the connection was in hand and the request written, and the
    /// TCP and TLS parts of `connect` (k6's `timings`).
    pub phases: Phases,
    /// The response came over HTTP/2.
    pub http2: bool,
    /// The response's status line said HTTP/1.0.
    pub http10: bool,
    /// The connection's peer and TLS parameters.
    pub conn: ConnInfo,
    /// The status line's reason phrase when not the usual one.
    pub reason: Option<String>,
    /// The redirect responses followed before this one, oldest first
    /// (each with its own status, header fields, bytes and instants, and
    /// no body; their own `redirects` empty): the fields above are the
    /// final response's alone. Empty when no redirect was followed.
    pub redirects: Vec<ClientResponse>,
    /// The URL that gave this response when it is not the request's own
    /// (after redirects); in `redirects`, `None` for the first.
    pub url: Option<String>,
    /// The method of the request that got this response when a redirect
    /// changed it (a 301, 302 or 303 turns a POST into a GET).
    pub method: Option<Method>,
    /// The request's `redirects` limit was reached: this is the last
    /// redirect response, its `Location` not followed (not a failure).
    pub redirect_stopped: bool,
    /// The request as it was sent (its first hop): header fields (with
    /// those added on the way, e.g. `Cookie`) and body. Empty in
    /// `redirects`.
    pub request_headers: Vec<(String, String)>,
    pub request_body: Bytes,
}

impl ClientResponse {
    fn of(out: Outcome, cap: Capture, begin: Instant, url: Option<String>) -> ClientResponse {
        ClientResponse {
            status: out.status,
            error: out.error,
            headers: cap.headers,
            body: cap.body,
            bytes_in: out.bytes_in,
            bytes_out: out.bytes_out,
            body_wire: out.body_wire,
            wire_in: cap.wire_in,
            wire_out: cap.wire_out,
            sent: out.sent.unwrap_or(begin),
            first_byte: out.first_byte,
            done: out.done.unwrap_or_else(Instant::now),
            connect: Duration::from_nanos(u64::from(out.connect_ns)),
            phases: cap.phases,
            http2: cap.http2,
            http10: cap.http10,
            conn: cap.conn,
            reason: cap.reason,
            redirects: Vec::new(),
            url,
            method: None,
            redirect_stopped: false,
            request_headers: Vec::new(),
            request_body: Bytes::new(),
        }
    }
}

/// A client over the engine's transport: pooled keep-alive connections per
/// endpoint, HTTP/1.1 and HTTP/2, TLS, `-connect-to` and the rest of
/// [`AttackConfig`]'s connection settings. Runs on the caller's tokio runtime.
pub struct Client {
    transport: Arc<Transport>,
}

impl Client {
    pub fn new(cfg: &AttackConfig) -> Result<Client, EngineError> {
        let tls = crate::tls::client_config(&cfg.tls, cfg.http2)?;
        Ok(Client {
            transport: Arc::new(Transport::new(cfg, Some(tls))),
        })
    }

    /// Checks a URL as a request would (scheme, host), and returns it
    /// parsed, for the request's `uri`: the k6 face checks each request's
    /// URL, then sends it, parsed once.
    pub fn check_url(url: &str) -> Result<http::Uri, String> {
        check_url(url)
    }

    /// The head of a request as [`Client::send`] writes it on HTTP/1.1,
    /// for a debugging dump (k6's `--http-debug`): the request line and
    /// the fields, `\r\n` after each, without the blank line. `headers`
    /// are the ones it was sent with ([`ClientResponse::request_headers`]).
    /// `None` for a URL that cannot be sent.
    pub fn request_head(
        method: &Method,
        url: &str,
        headers: &[(String, String)],
        body: &Bytes,
        keepalive: bool,
    ) -> Option<String> {
        let uri = check_url(url).ok()?;
        let uri = crate::request::split_userinfo(&uri).map_or(uri, |(_, bare)| bare);
        let (b, end) = crate::request::render_h1(method, &uri, headers, body, keepalive, false);
        Some(String::from_utf8_lossy(&b[..end]).into_owned())
    }

    /// A byte stream to `url`'s endpoint (`ws://`/`http://` plain,
    /// `wss://`/`https://` over TLS offering only `http/1.1`) for a
    /// protocol that starts over HTTP/1.1 and leaves it (k6's WebSockets).
    /// Dialled as the requests' connections are (from `laddr` when given),
    /// but never pooled.
    pub async fn open_h1(
        &self,
        url: &http::Uri,
        laddr: Option<std::net::IpAddr>,
    ) -> Result<RawConn, ErrorKind> {
        let tls = matches!(url.scheme_str(), Some("wss" | "https"));
        let host = url
            .host()
            .ok_or(ErrorKind::Protocol)?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let port = url.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let key = crate::transport::EndpointKey { tls, host, port };
        let (stream, times, info) = self.transport.open_h1(&key, laddr).await?;
        Ok(RawConn {
            stream,
            info,
            tcp: times.tcp,
            tls: times.tls,
        })
    }

    /// Closes the idle keep-alive connections of `owner` (requests of that
    /// [`Owner`]); k6's `noVUConnectionReuse` at the end of a
    /// VU's iteration.
    pub fn close_idle_of(&self, owner: u32) {
        self.transport.close_idle_of(owner);
    }

    /// Sends one request; failures are data (`status` 0 and `error`).
    pub async fn send(&self, req: ClientRequest) -> ClientResponse {
        self.send_inner::<false>(req, Instant::now()).await
    }

    /// [`Client::send`] for a caller that keeps the request's deadline
    /// itself: the request, begun at `begin`, times out at `begin +
    /// req.timeout`, which is checked whenever the future is polled; no
    /// timer wakes it, so **the caller must poll it again at that
    /// instant** (or later) or it may wait for ever. Spares a tokio timer
    /// per request (registered, removed, and at times a wake-up of the
    /// runtime's driver): the k6 face's scheduler keeps every VU's deadline
    /// in its own queue.
    pub async fn send_polled(&self, req: ClientRequest, begin: Instant) -> ClientResponse {
        self.send_inner::<true>(req, begin).await
    }

    async fn send_inner<const POLLED: bool>(
        &self,
        req: ClientRequest,
        begin: Instant,
    ) -> ClientResponse {
        let mut out = Outcome {
            status: 0,
            error: ErrorKind::None,
            bytes_in: 0,
            body_wire: 0,
            bytes_out: 0,
            sent: None,
            first_byte: None,
            done: None,
            connect_ns: 0,
            behind: false,
        };
        let mut cap = Capture::default();
        // Holds nothing (no allocation) unless a redirect is followed.
        let mut trail = Trail::default();
        let jar = req.redirect_cookies;
        let sent = match req.uri.map_or_else(|| check_url(&req.url), Ok) {
            Err(_) => {
                out.error = ErrorKind::Protocol;
                (req.headers, req.body)
            }
            Ok(uri) => {
                let mut tpl =
                    Template::from_parts(req.method, uri, req.headers, req.body, &self.transport);
                tpl.owner = req.owner;
                let deadline = begin + req.timeout;
                execute_capture::<POLLED, _>(
                    &tpl,
                    &self.transport,
                    req.redirects,
                    begin,
                    deadline,
                    0,
                    &mut out,
                    Some(&mut cap),
                    Some(&mut trail),
                    &jar,
                )
                .await;
                (tpl.headers, tpl.body)
            }
        };
        if !req.keep_body {
            cap.body = Vec::new();
        }
        let mut resp = ClientResponse::of(out, cap, begin, trail.url);
        resp.redirect_stopped = trail.stopped;
        resp.method = trail.method;
        (resp.request_headers, resp.request_body) = sent;
        if !trail.hops.is_empty() {
            resp.redirects = trail
                .hops
                .into_iter()
                .map(|h| {
                    let mut r = ClientResponse::of(h.out, h.cap, begin, h.url);
                    r.method = h.method;
                    r
                })
                .collect();
        }
        resp
    }
}

/// A connection from [`Client::open_h1`]: its bytes, its peer and TLS
/// parameters, and how long its TCP connect and TLS handshake took.
pub struct RawConn {
    stream: crate::stream::Stream,
    pub info: ConnInfo,
    pub tcp: Duration,
    pub tls: Duration,
}

impl tokio::io::AsyncRead for RawConn {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for RawConn {
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}
