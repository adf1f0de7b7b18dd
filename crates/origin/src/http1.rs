//! HTTP/1.1, served by hand: httparse for the request head, one buffered write
//! per batch of responses, and `sendfile` for large payloads so their bytes go
//! from the page cache to the socket without a copy through user space (the
//! copy was most of the CPU time with 50 KB bodies). Keep-alive, pipelining,
//! `Expect: 100-continue`, HEAD and HTTP/1.0 are handled; h2c goes to hyper.

use std::cell::RefCell;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::{Buf, Bytes, BytesMut};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use rustix::net::SendFlags;
use tokio::io::{AsyncReadExt, Interest};
use tokio::net::TcpStream;

use crate::admin::{self, AdminBody, Simple};
use crate::payload::SENDFILE_MIN;
use crate::respond::{self, Reply, Send};
use crate::state::State;

/// Largest request head accepted (431 beyond).
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// Pending output is flushed once it grows past this, and buffers above it are released.
const OUT_FLUSH: usize = 64 * 1024;

pub(crate) struct Head {
    pub(crate) len: usize,
    pub(crate) method: Method,
    pub(crate) http11: bool,
    pub(crate) content_length: u64,
    pub(crate) chunked: bool,
    pub(crate) close: bool,
    pub(crate) keep_alive: bool,
    pub(crate) expect_continue: bool,
    /// Only built for admin requests (they need the token headers).
    pub(crate) admin_headers: Option<HeaderMap>,
}

pub(crate) enum Parse {
    Complete(Head),
    Partial,
    Error(StatusCode),
}

/// Parses the request head at the start of `buf` (its path, without query or
/// fragment, goes to `path`). Crate-visible for the fuzz check.
pub(crate) fn parse_head(buf: &[u8], path: &mut String) -> Parse {
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut req = httparse::Request::new(&mut headers);
    let len = match req.parse(buf) {
        // A head that arrived whole in one read is held to the same limit.
        Ok(httparse::Status::Complete(n)) if n > MAX_HEAD => {
            return Parse::Error(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        }
        Ok(httparse::Status::Complete(n)) => n,
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => {
            return Parse::Error(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        }
        Ok(httparse::Status::Partial) => return Parse::Partial,
        Err(httparse::Error::TooManyHeaders) => {
            return Parse::Error(StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
        }
        Err(_) => return Parse::Error(StatusCode::BAD_REQUEST),
    };
    let Ok(method) = Method::from_bytes(req.method.unwrap_or("GET").as_bytes()) else {
        return Parse::Error(StatusCode::BAD_REQUEST);
    };
    let mut target = req.path.unwrap_or("/");
    // Absolute form (`GET http://host/path`), as proxies send it.
    if let Some(rest) = target
        .strip_prefix("http://")
        .or_else(|| target.strip_prefix("https://"))
    {
        target = rest.find('/').map_or("/", |i| &rest[i..]);
    }
    let p = target.split(['?', '#']).next().unwrap_or("/");
    path.clear();
    path.push_str(p);
    let mut head = Head {
        len,
        method,
        http11: req.version == Some(1),
        content_length: 0,
        chunked: false,
        close: false,
        keep_alive: false,
        expect_continue: false,
        admin_headers: None,
    };
    let mut seen_length: Option<u64> = None;
    // Transfer-Encoding fields seen, and whether the last coding of the last
    // one is `chunked`; Host fields seen.
    let (mut te_seen, mut hosts) = (false, 0usize);
    for h in req.headers.iter() {
        let name = h.name;
        if name.eq_ignore_ascii_case("content-length") {
            // RFC 9112 §6.3: 1*DIGIT; a list or repeated field is valid only
            // when every value is the same. Anything else (`+5`, `-1`,
            // `5, 6`, two different fields) is a framing error: 400.
            match content_length(h.value) {
                Some(n) if seen_length.is_none_or(|m| m == n) => {
                    seen_length = Some(n);
                    head.content_length = n;
                }
                _ => return Parse::Error(StatusCode::BAD_REQUEST),
            }
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            te_seen = true;
            head.chunked = h
                .value
                .split(|b| *b == b',')
                .map(<[u8]>::trim_ascii)
                .rfind(|t| !t.is_empty())
                .is_some_and(|t| t.eq_ignore_ascii_case(b"chunked"));
        } else if name.eq_ignore_ascii_case("host") {
            hosts += 1;
        } else if name.eq_ignore_ascii_case("connection") {
            head.close = contains_token(h.value, b"close");
            head.keep_alive = contains_token(h.value, b"keep-alive");
        } else if name.eq_ignore_ascii_case("expect") {
            head.expect_continue = contains_token(h.value, b"100-continue");
        }
    }
    // RFC 9112: a Transfer-Encoding whose final coding is not chunked, or one
    // beside a Content-Length (the request-smuggling shapes), cannot be
    // framed reliably (§6.3); an HTTP/1.1 request must have exactly one Host
    // (§3.2). Each is a 400, and the connection closes after it.
    if te_seen && (!head.chunked || seen_length.is_some() || !head.http11) {
        return Parse::Error(StatusCode::BAD_REQUEST);
    }
    if hosts > 1 || (head.http11 && hosts == 0) {
        return Parse::Error(StatusCode::BAD_REQUEST);
    }
    if admin::is_admin(path) {
        let mut map = HeaderMap::new();
        for h in req.headers.iter() {
            if let (Ok(k), Ok(v)) = (
                HeaderName::from_bytes(h.name.as_bytes()),
                HeaderValue::from_bytes(h.value),
            ) {
                map.append(k, v);
            }
        }
        head.admin_headers = Some(map);
    }
    Parse::Complete(head)
}

/// A Content-Length field value: one number, or a list of one number
/// repeated; `None` for anything else.
fn content_length(value: &[u8]) -> Option<u64> {
    let mut out = None;
    for part in value.split(|b| *b == b',') {
        let digits = part.trim_ascii();
        if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let n: u64 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        if out.is_some_and(|m| m != n) {
            return None;
        }
        out = Some(n);
    }
    out
}

fn contains_token(value: &[u8], token: &[u8]) -> bool {
    value
        .split(|b| *b == b',')
        .any(|t| t.trim_ascii().eq_ignore_ascii_case(token))
}

/// Serves one HTTP/1.x connection; `buf` holds bytes already read from it.
pub(crate) async fn serve(
    mut stream: TcpStream,
    mut buf: BytesMut,
    state: Arc<State>,
    peer: SocketAddr,
) {
    let mut out: Vec<u8> = Vec::with_capacity(512);
    let mut path = String::new();
    let mut stop = state.stop.clone();
    let mut shed = state.shed.subscribe();
    let t = state.config.timeouts;
    // When the head being read must be whole (set at its first byte), or
    // when an idle connection is closed.
    let mut head_until: Option<tokio::time::Instant> = None;
    loop {
        let head = match parse_head(&buf, &mut path) {
            Parse::Complete(h) => {
                head_until = None;
                h
            }
            Parse::Partial => {
                if flush(&stream, &mut out, false).await.is_err() {
                    return;
                }
                if buf.is_empty() && buf.capacity() > OUT_FLUSH {
                    buf = BytesMut::with_capacity(4096);
                }
                buf.reserve(4096);
                let idle = buf.is_empty();
                let until = if idle {
                    // Restarted at every wait: idle since the last answer.
                    tokio::time::Instant::now() + t.idle
                } else {
                    *head_until.get_or_insert_with(|| tokio::time::Instant::now() + t.header)
                };
                let read = tokio::select! {
                    biased;
                    r = stream.read_buf(&mut buf) => r,
                    _ = stop.wait_for(|s| *s), if idle => return,
                    // Out of descriptors: an idle connection makes room.
                    _ = shed.changed(), if idle => return,
                    // Too slow a head, or idle too long: the client's
                    // descriptor goes back to the others.
                    _ = tokio::time::sleep_until(until) => return,
                };
                match read {
                    Ok(0) | Err(_) => return,
                    Ok(_) => continue,
                }
            }
            Parse::Error(status) => {
                let msg = Simple {
                    status,
                    content_type: HeaderValue::from_static("text/plain; charset=utf-8"),
                    body: Bytes::from(status.canonical_reason().unwrap_or("bad request")),
                };
                write_simple(&mut out, &msg, false, true);
                if flush(&stream, &mut out, false).await.is_ok() {
                    linger_close(stream).await;
                }
                return;
            }
        };
        buf.advance(head.len);
        let is_head = head.method == Method::HEAD;
        let mut close = if head.http11 {
            head.close
        } else {
            !head.keep_alive
        };
        let has_body = head.content_length > 0 || head.chunked;
        if head.expect_continue && has_body && head.http11 {
            out.extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
            if flush(&stream, &mut out, false).await.is_err() {
                return;
            }
        }

        if let Some(headers) = &head.admin_headers {
            let limit = state.config.admin_body_limit as u64;
            let body = if head.chunked {
                // Rare for admin clients; refusing keeps the parser small.
                close = true;
                AdminBody::Failed(
                    "chunked request bodies are not supported; send Content-Length".into(),
                )
            } else if head.content_length > limit {
                close = true;
                AdminBody::TooLarge
            } else {
                match read_body(&mut stream, &mut buf, head.content_length as usize, t.body).await {
                    Ok(b) => AdminBody::Data(b),
                    Err(_) => return,
                }
            };
            let answer = admin::handle(&head.method, &path, headers, body, &state, peer).await;
            close |= *stop.borrow();
            write_simple(&mut out, &answer, is_head, close);
        } else {
            if head.chunked {
                // The body is ignored; rather than decode it, end the connection after answering.
                close = true;
            } else if head.content_length > 0
                && discard(&mut stream, &mut buf, head.content_length, t.body)
                    .await
                    .is_err()
            {
                return;
            }
            match respond::handle(&state, &path, client_gone(&stream)).await {
                Reply::Send(send) => {
                    close |= *stop.borrow();
                    match write_send(&stream, &mut out, &send, is_head, &mut close).await {
                        Ok(true) => {}
                        Ok(false) | Err(_) => return,
                    }
                }
                Reply::Reset => {
                    let _ = flush(&stream, &mut out, false).await;
                    // Linger 0: closing now sends RST.
                    let _ = socket2::SockRef::from(&stream).set_linger(Some(Duration::ZERO));
                    return;
                }
                Reply::Close => {
                    let _ = flush(&stream, &mut out, false).await;
                    return;
                }
            }
        }
        if close {
            if flush(&stream, &mut out, false).await.is_ok() {
                linger_close(stream).await;
            }
            return;
        }
        if out.len() >= OUT_FLUSH && flush(&stream, &mut out, false).await.is_err() {
            return;
        }
    }
}

/// Writes a response. Returns Ok(false) when the connection must end (a cut body).
/// A recipe's `connection` header is sent (OriginSimulator's README example
/// has `"connection": "keepalive"`); one that says `close` sets `close`, so
/// the connection really ends after the response.
async fn write_send(
    stream: &TcpStream,
    out: &mut Vec<u8>,
    send: &Send,
    is_head: bool,
    close: &mut bool,
) -> io::Result<bool> {
    let body = send.body();
    write_status(out, send.status);
    let mut connection: Option<&HeaderValue> = None;
    send.each_header(|k, v| {
        if k == header::CONNECTION {
            connection = Some(v);
        } else if k != header::CONTENT_LENGTH && k != header::TRANSFER_ENCODING {
            put_header(out, k.as_str().as_bytes(), v.as_bytes());
        }
    });
    let connection = connection.map(HeaderValue::as_bytes);
    *close |= connection.is_some_and(|v| contains_token(v, b"close"));
    finish_head(out, body.len(), *close, connection);
    if is_head || body.is_empty() {
        return Ok(true);
    }
    match send.shape {
        None => {
            match send.file() {
                Some(file) if body.len() >= SENDFILE_MIN => {
                    flush(stream, out, true).await?;
                    send_file(stream, file, body.len()).await?;
                }
                _ => out.extend_from_slice(body),
            }
            Ok(true)
        }
        Some(shape) => {
            flush(stream, out, false).await?;
            let end = match shape.keep {
                Some(k) => ((body.len() as f64 * k) as usize).min(body.len() - 1),
                None => body.len(),
            };
            match shape.bytes_per_sec {
                None => write_all(stream, &body[..end], false).await?,
                Some(bps) => {
                    let per_tick = ((bps as f64 * 0.05) as usize).max(1);
                    let mut sent = 0;
                    while sent < end {
                        let n = per_tick.min(end - sent);
                        write_all(stream, &body[sent..sent + n], false).await?;
                        sent += n;
                        tokio::time::sleep(Duration::from_secs_f64(n as f64 / bps as f64)).await;
                    }
                }
            }
            Ok(end == body.len())
        }
    }
}

fn write_simple(out: &mut Vec<u8>, s: &Simple, is_head: bool, close: bool) {
    write_status(out, s.status);
    put_header(out, b"content-type", s.content_type.as_bytes());
    finish_head(out, s.body.len(), close, None);
    if !is_head {
        out.extend_from_slice(&s.body);
    }
}

fn write_status(out: &mut Vec<u8>, status: StatusCode) {
    out.extend_from_slice(b"HTTP/1.1 ");
    out.extend_from_slice(status.as_str().as_bytes());
    out.push(b' ');
    out.extend_from_slice(status.canonical_reason().unwrap_or("Unknown").as_bytes());
    out.extend_from_slice(b"\r\n");
}

fn put_header(out: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    out.extend_from_slice(name);
    out.extend_from_slice(b": ");
    out.extend_from_slice(value);
    out.extend_from_slice(b"\r\n");
}

/// Ends a head: length, date and the connection header (`connection`, the
/// recipe's value if any, led by `close, ` when the connection ends and the
/// value does not already say so, as Cowboy writes it for OriginSimulator).
fn finish_head(out: &mut Vec<u8>, content_length: usize, close: bool, connection: Option<&[u8]>) {
    out.extend_from_slice(b"content-length: ");
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut n = content_length;
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
    out.extend_from_slice(b"\r\ndate: ");
    with_date(|d| out.extend_from_slice(d));
    match connection {
        None if close => out.extend_from_slice(b"\r\nconnection: close"),
        None => {}
        Some(v) => {
            out.extend_from_slice(b"\r\nconnection: ");
            if close && !contains_token(v, b"close") {
                out.extend_from_slice(b"close, ");
            }
            out.extend_from_slice(v);
        }
    }
    out.extend_from_slice(b"\r\n\r\n");
}

thread_local! {
    /// The Date header, formatted once per second per worker thread.
    static DATE: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

fn with_date(f: impl FnOnce(&[u8])) {
    let now = SystemTime::now();
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    DATE.with(|cell| {
        let mut c = cell.borrow_mut();
        if c.0 != secs {
            *c = (secs, httpdate::fmt_http_date(now));
        }
        f(c.1.as_bytes());
    });
}

/// Resolves when the client has closed its side (or the socket failed).
async fn client_gone(stream: &TcpStream) {
    let mut one = [0u8; 1];
    match stream.peek(&mut one).await {
        Ok(0) | Err(_) => {}
        // More requests are waiting (pipelining): the client is still there.
        Ok(_) => std::future::pending().await,
    }
}

/// Sends FIN, then reads (and drops) whatever the client still sends for a
/// while: closing with unread input would make the kernel send RST, which can
/// destroy the response before the client reads it.
async fn linger_close(mut stream: TcpStream) {
    use tokio::io::AsyncWriteExt;
    if stream.shutdown().await.is_err() {
        return;
    }
    let mut sink = [0u8; 4096];
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        while let Ok(n) = stream.read(&mut sink).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
}

/// One read of a request body, given up after `limit` without a byte.
async fn read_some(stream: &mut TcpStream, buf: &mut BytesMut, limit: Duration) -> io::Result<()> {
    match tokio::time::timeout(limit, stream.read_buf(buf)).await {
        Ok(Ok(0)) => Err(io::ErrorKind::UnexpectedEof.into()),
        Ok(r) => r.map(drop),
        Err(_) => Err(io::ErrorKind::TimedOut.into()),
    }
}

async fn read_body(
    stream: &mut TcpStream,
    buf: &mut BytesMut,
    n: usize,
    limit: Duration,
) -> io::Result<Bytes> {
    while buf.len() < n {
        buf.reserve(n - buf.len());
        read_some(stream, buf, limit).await?;
    }
    Ok(buf.split_to(n).freeze())
}

async fn discard(
    stream: &mut TcpStream,
    buf: &mut BytesMut,
    mut n: u64,
    limit: Duration,
) -> io::Result<()> {
    loop {
        let take = (buf.len() as u64).min(n);
        buf.advance(take as usize);
        n -= take;
        if n == 0 {
            return Ok(());
        }
        buf.reserve(4096);
        read_some(stream, buf, limit).await?;
    }
}

/// Writes and clears `out`; `more` tells the kernel more data follows (MSG_MORE),
/// so a head and the sendfile body after it leave in full packets.
async fn flush(stream: &TcpStream, out: &mut Vec<u8>, more: bool) -> io::Result<()> {
    if out.is_empty() {
        return Ok(());
    }
    let r = write_all(stream, out, more).await;
    out.clear();
    if out.capacity() > OUT_FLUSH {
        *out = Vec::with_capacity(512);
    }
    r
}

async fn write_all(stream: &TcpStream, mut data: &[u8], more: bool) -> io::Result<()> {
    let flags = if more {
        SendFlags::NOSIGNAL | SendFlags::MORE
    } else {
        SendFlags::NOSIGNAL
    };
    while !data.is_empty() {
        match stream.try_io(Interest::WRITABLE, || {
            rustix::net::send(stream, data, flags).map_err(io::Error::from)
        }) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => data = &data[n..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.writable().await?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

async fn send_file(stream: &TcpStream, file: &std::fs::File, len: usize) -> io::Result<()> {
    let mut offset = 0u64;
    while (offset as usize) < len {
        let left = len - offset as usize;
        match stream.try_io(Interest::WRITABLE, || {
            rustix::fs::sendfile(stream, file, Some(&mut offset), left).map_err(io::Error::from)
        }) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => stream.writable().await?,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
