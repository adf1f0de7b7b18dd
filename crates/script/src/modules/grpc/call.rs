//! A gRPC client's connection and its unary calls: HTTP/2 (cleartext with
//! prior knowledge, or TLS offering `h2`) through hyper's connection API;
//! a call is a POST of one length-prefixed message whose status comes in
//! the trailers (or, for an error without a body, in the headers).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::{Buf, Bytes};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};

use crate::modules::counted::Counted;

/// A client's connection: what sends its calls, and the address as the
/// script gave it (k6's `url` tag starts with it).
/// A request body: one message (a unary call) or a stream's messages.
pub type ReqBody = UnsyncBoxBody<Bytes, std::convert::Infallible>;

#[derive(Clone)]
pub struct Conn {
    pub sender: SendRequest<ReqBody>,
    pub addr: String,
    scheme: &'static str,
    /// Bytes written and read on the connection so far (HTTP/2 and TLS
    /// included), as k6 counts `data_sent` and `data_received`.
    pub counts: Arc<[AtomicU64; 2]>,
    /// connect's `maxSendSize` and `maxReceiveSize`: the largest message
    /// a unary call sends and takes (k6's defaults: gRPC's, no limit on
    /// sending, 4 MiB received).
    pub max_send: usize,
    pub max_receive: usize,
    /// Every call's `user-agent`: the options' `userAgent` (as k6's
    /// client takes it at connect), `loadlab-k6` when none is set.
    pub user_agent: String,
}

/// gRPC's default for the largest message a client takes.
pub const MAX_RECEIVE: usize = 4 * 1024 * 1024;

impl Conn {
    /// `scheme://address`, which a method's path follows in a request's URI.
    pub fn base_uri(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The bytes written and read so far.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.counts[0].load(Ordering::Relaxed),
            self.counts[1].load(Ordering::Relaxed),
        )
    }
}

/// Where a client may dial: the options' `hosts`, `blockHostnames` and
/// `blacklistIPs`, as HTTP requests follow them.
pub struct Dialing {
    pub hosts: loadlab_engine::hosts::HostOverrides,
    pub blocklist: std::sync::Arc<loadlab_engine::blocklist::Blocklist>,
}

/// The addresses to dial for `addr` (`host:port`), or why not, in the
/// words k6 uses after "error while dialing: ".
async fn addresses(addr: &str, d: &Dialing) -> Result<Vec<std::net::SocketAddr>, String> {
    let (host, port) = addr
        .rsplit_once(':')
        .and_then(|(h, p)| {
            Some((
                h.trim_start_matches('[').trim_end_matches(']'),
                p.parse().ok()?,
            ))
        })
        .ok_or_else(|| format!("dial tcp {addr}: missing port in address"))?;
    if host.parse::<std::net::IpAddr>().is_err()
        && let Some(p) = d.blocklist.host_match(host)
    {
        return Err(format!("hostname ({host}) is in a blocked pattern ({p})"));
    }
    let found = match d.hosts.lookup(host, port) {
        Some(a) => vec![a],
        None => tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| format!("dial tcp: lookup {host}: {e}"))?
            .collect(),
    };
    for a in &found {
        if let Some(range) = d.blocklist.ip_match(a.ip()) {
            return Err(format!(
                "IP ({}) is in a blacklisted range ({range})",
                a.ip()
            ));
        }
    }
    Ok(found)
}

/// Dials `addr` (`host:port`, as `dialing` says) and opens HTTP/2 on it,
/// within `timeout`.
pub async fn connect(
    addr: String,
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
    timeout: Duration,
    dialing: Dialing,
) -> Result<Conn, String> {
    let dial = async {
        let failed = |why: String| {
            format!("connection error: desc = \"transport: error while dialing: {why}\"")
        };
        let to = addresses(&addr, &dialing).await.map_err(failed)?;
        let tcp = tokio::net::TcpStream::connect(&to[..]).await.map_err(|e| {
            // Go's words, as k6 reports a dial that failed.
            let why = match e.kind() {
                std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_string(),
                _ => e.to_string(),
            };
            failed(format!("dial tcp {addr}: {why}"))
        })?;
        let _ = tcp.set_nodelay(true);
        let (tcp, counts) = Counted::new(tcp);
        let (sender, scheme) = match tls {
            None => (handshake(tcp).await?, "http"),
            Some(cfg) => {
                let host = addr.rsplit_once(':').map_or(addr.as_str(), |(h, _)| h);
                let host = host
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .to_string();
                let name = rustls::pki_types::ServerName::try_from(host)
                    .map_err(|e| format!("invalid server name in {addr}: {e}"))?;
                let stream = tokio_rustls::TlsConnector::from(cfg)
                    .connect(name, tcp)
                    .await
                    .map_err(|e| format!("tls: {e}"))?;
                (handshake(server_preface(stream).await?).await?, "https")
            }
        };
        Ok(Conn {
            sender,
            addr: addr.clone(),
            scheme,
            counts,
            max_send: usize::MAX,
            max_receive: MAX_RECEIVE,
            user_agent: "loadlab-k6".into(),
        })
    };
    tokio::time::timeout(timeout, dial)
        .await
        .unwrap_or_else(|_| {
            Err(format!(
                "context deadline exceeded: dialing {addr} took longer than {timeout:?}"
            ))
        })
}

/// Waits for the server's first bytes (its HTTP/2 SETTINGS), as gRPC's
/// blocking dial waits for the connection to be ready: a server that
/// refuses the client's certificate says so only then, under TLS 1.3.
/// The bytes are kept for the HTTP/2 connection to read.
async fn server_preface<S>(mut io: S) -> Result<Prefetched<S>, String>
where
    S: tokio::io::AsyncRead + Unpin,
{
    use tokio::io::AsyncReadExt;
    let mut first = vec![0u8; 16 * 1024];
    let n = io.read(&mut first).await.map_err(|e| {
        format!("connection error: desc = \"transport: authentication handshake failed: tls: {e}\"")
    })?;
    if n == 0 {
        return Err(
            "connection error: desc = \"transport: the server closed the connection before its preface\""
                .into(),
        );
    }
    first.truncate(n);
    Ok(Prefetched { first, at: 0, io })
}

/// A stream whose first bytes were read ahead ([`server_preface`]).
struct Prefetched<S> {
    first: Vec<u8>,
    at: usize,
    io: S,
}

impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Prefetched<S> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if self.at < self.first.len() {
            let n = buf.remaining().min(self.first.len() - self.at);
            let at = self.at;
            buf.put_slice(&self.first[at..at + n]);
            self.at += n;
            return std::task::Poll::Ready(Ok(()));
        }
        std::pin::Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Prefetched<S> {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        data: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write(cx, data)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

async fn handshake<S>(io: S) -> Result<SendRequest<ReqBody>, String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .handshake(TokioIo::new(io))
        .await
        .map_err(|e| format!("http2 handshake: {e}"))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(sender)
}

/// What a call gave: its status and message, the response's header and
/// trailer fields, and the first response message's bytes.
pub struct Answer {
    pub status: u32,
    pub message: String,
    pub headers: Vec<(String, String)>,
    pub trailers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
}

/// One unary call of `path` (`/pkg.Service/Method`) with the encoded
/// request `msg` and the metadata `meta`; and the bytes it wrote and read
/// on the connection.
pub async fn unary(
    mut conn: Conn,
    path: String,
    msg: Vec<u8>,
    meta: Vec<(String, String)>,
    timeout: Option<Duration>,
) -> (Answer, (u64, u64)) {
    let mut framed = Vec::with_capacity(msg.len() + 5);
    framed.push(0);
    framed.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    framed.extend_from_slice(&msg);
    let before = conn.bytes();
    let uri = format!("{}{}", conn.base_uri(), path);
    let mut req = hyper::Request::post(uri)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("user-agent", conn.user_agent.as_str());
    if let Some(t) = timeout {
        req = req.header("grpc-timeout", format!("{}m", t.as_millis().max(1)));
    }
    for (k, v) in &meta {
        req = req.header(k.as_str(), v.as_str());
    }
    if msg.len() > conn.max_send {
        let why = format!(
            "trying to send message larger than max ({} vs. {})",
            msg.len(),
            conn.max_send
        );
        return (failed(8, why), (0, 0));
    }
    let req = match req.body(Full::new(Bytes::from(framed)).boxed_unsync()) {
        Ok(r) => r,
        Err(e) => return (failed(13, e.to_string()), (0, 0)),
    };
    let call = async {
        if let Err(e) = conn.sender.ready().await {
            return failed(14, format!("connection error: {e}"));
        }
        let resp = match conn.sender.send_request(req).await {
            Ok(r) => r,
            Err(e) => return failed(14, format!("connection error: {e}")),
        };
        let (parts, body) = resp.into_parts();
        match body.collect().await {
            Ok(c) => answer_of(&parts, c, conn.max_receive),
            Err(e) => failed(14, format!("reading the response: {e}")),
        }
    };
    let answer = match timeout {
        Some(t) => tokio::time::timeout(t, call)
            .await
            .unwrap_or_else(|_| failed(4, "context deadline exceeded".into())),
        None => call.await,
    };
    let after = conn.bytes();
    (answer, (after.0 - before.0, after.1 - before.1))
}

/// An answer without fields or message: a call that failed.
fn failed(status: u32, message: String) -> Answer {
    Answer {
        status,
        message,
        headers: Vec::new(),
        trailers: Vec::new(),
        body: None,
    }
}

/// A unary call's answer from its response: the status from the
/// trailers, else the headers (a "trailers-only" answer, whose fields
/// are the trailers, as gRPC reads them), else the HTTP status; the first
/// message, refused past `max_receive` bytes.
fn answer_of(
    parts: &hyper::http::response::Parts,
    collected: http_body_util::Collected<Bytes>,
    max_receive: usize,
) -> Answer {
    let headers = fields(&parts.headers);
    let (headers, trailers) = match collected.trailers().map(fields) {
        None if headers.iter().any(|(k, _)| k == "grpc-status") => (Vec::new(), headers),
        t => (headers, t.unwrap_or_default()),
    };
    let mut data = collected.to_bytes();
    let find = |k: &str| {
        trailers
            .iter()
            .chain(&headers)
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    };
    let (status, message) = match find("grpc-status").and_then(|s| s.parse().ok()) {
        Some(s) => (
            s,
            find("grpc-message")
                .map(|m| percent_decode(&m))
                .unwrap_or_default(),
        ),
        None if parts.status != 200 => (
            http_status(parts.status.as_u16()),
            format!(
                "unexpected HTTP status code received from server: {}",
                parts.status.as_u16()
            ),
        ),
        None => (
            13,
            "server closed the stream without sending trailers".into(),
        ),
    };
    let body = if data.len() >= 5 {
        let compressed = data.get_u8();
        let len = data.get_u32() as usize;
        if len > max_receive {
            let why = format!("grpc: received message larger than max ({len} vs. {max_receive})");
            return failed(8, why);
        }
        (compressed == 0 && data.len() >= len).then(|| data[..len].to_vec())
    } else {
        None
    };
    let strip = |v: Vec<(String, String)>| {
        v.into_iter()
            .filter(|(k, _)| !k.starts_with("grpc-status") && k != "grpc-message")
            .collect()
    };
    Answer {
        status,
        message,
        headers: strip(headers),
        trailers: strip(trailers),
        body,
    }
}

/// A status code's name, as Go's gRPC prints it.
pub fn code_name(code: u32) -> &'static str {
    const NAMES: [&str; 17] = [
        "OK",
        "Canceled",
        "Unknown",
        "InvalidArgument",
        "DeadlineExceeded",
        "NotFound",
        "AlreadyExists",
        "PermissionDenied",
        "ResourceExhausted",
        "FailedPrecondition",
        "Aborted",
        "OutOfRange",
        "Unimplemented",
        "Internal",
        "Unavailable",
        "DataLoss",
        "Unauthenticated",
    ];
    NAMES.get(code as usize).copied().unwrap_or("Unknown")
}

fn fields(h: &http::HeaderMap) -> Vec<(String, String)> {
    h.iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// gRPC's mapping of an HTTP status it did not expect.
fn http_status(code: u16) -> u32 {
    match code {
        400 => 13,
        401 => 16,
        403 => 7,
        404 => 12,
        429 | 502 | 503 | 504 => 14,
        _ => 2,
    }
}

/// `grpc-message` is percent-encoded.
pub(super) fn percent_decode(s: &str) -> String {
    url::form_urlencoded::parse(format!("m={}", s.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| s.to_string())
}
