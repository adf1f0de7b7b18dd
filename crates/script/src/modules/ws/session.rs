//! A WebSocket session: the dial, the frames, the samples.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{Sink, SinkExt, StreamExt};
use loadlab_core::ErrorKind;
use loadlab_engine::client::{Client, Owner, RawConn};
use rquickjs::{Ctx, Object};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::js::vu;
use crate::modules::counted::{Counted, add_bytes};
use crate::state::run_state::{RunState, Tags};
use crate::system_tags::SystemTags;

use super::{Params, wait_for, wait_until};

/// A session's connection, counting the bytes on the wire (k6's
/// `data_sent`/`data_received`).
pub(super) type Ws = WebSocketStream<Counted<RawConn>>;

/// One open session.
pub(super) struct Session {
    pub(super) ws: Option<Ws>,
    pub(super) vu: usize,
    pub(super) tags: Tags,
    pub(super) started: Instant,
    /// Pings sent and not yet answered: payload → when.
    pub(super) pings: HashMap<Vec<u8>, Instant>,
    pub(super) ping_seq: u64,
    /// Bytes written and read on its connection.
    pub(super) counts: Arc<[AtomicU64; 2]>,
    /// The close written when the end of the test cuts the session short:
    /// going away (1001) for k6/ws, normal (1000) for k6/websockets, as k6.
    pub(super) goodbye: u16,
}

thread_local! {
    pub(super) static SESSIONS: RefCell<HashMap<u32, Rc<RefCell<Session>>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

pub(super) fn session(sid: u32) -> Option<Rc<RefCell<Session>>> {
    SESSIONS.with(|s| s.borrow().get(&sid).cloned())
}

/// What one wait of the event loop saw.
pub(super) enum Event {
    Msg(Message),
    /// The stream ended or failed: the error text (Go's words) and the
    /// close code k6 reports.
    Gone(Option<String>, u16),
    Timer,
}

/// A close code's name, as Go's WebSocket package words a close error.
pub(super) fn close_text(code: u16, reason: &str) -> String {
    let name = match code {
        1000 => "(normal)",
        1001 => "(going away)",
        1002 => "(protocol error)",
        1003 => "(unsupported data)",
        1005 => "(no status)",
        1006 => "(abnormal closure)",
        1007 => "(invalid payload data)",
        1008 => "(policy violation)",
        1009 => "(message too big)",
        1010 => "(mandatory extension missing)",
        1011 => "(internal server error)",
        1012 => "(service restart)",
        1013 => "(try again later)",
        1015 => "(TLS handshake error)",
        _ => "",
    };
    let mut s = format!("websocket: close {code}");
    if !name.is_empty() {
        s.push(' ');
        s.push_str(name);
    }
    if !reason.is_empty() {
        s.push_str(": ");
        s.push_str(reason);
    }
    s
}

/// Go's words for a connection that could not be made to `url`.
pub(super) fn dial_text(kind: ErrorKind, uri: &http::Uri) -> String {
    let host = uri.host().unwrap_or("");
    let port = uri
        .port_u16()
        .unwrap_or(if uri.scheme_str() == Some("wss") {
            443
        } else {
            80
        });
    let hostport = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    match kind {
        ErrorKind::ConnectRefused => format!("dial tcp {hostport}: connect: connection refused"),
        ErrorKind::Dns => format!("dial tcp: lookup {host}: no such host"),
        ErrorKind::BlockedHost => "hostname is blocked".to_string(),
        ErrorKind::BlockedIp => "ip is blacklisted".to_string(),
        ErrorKind::ConnectTimeout => format!("dial tcp {hostport}: i/o timeout"),
        ErrorKind::ConnectionReset => format!("read tcp {hostport}: connection reset by peer"),
        // Go's certificate errors, as the HTTP requests word them.
        ErrorKind::TlsUnknownIssuer | ErrorKind::TlsNameMismatch => {
            crate::http_result::error_text(kind, &uri.to_string())
        }
        k => {
            let mut s = String::new();
            k.write_text(&mut s, "", &Default::default());
            s
        }
    }
}

/// `ws_session_duration` and the session's bytes, when it is over.
pub(super) fn end_samples(sh: &RunState, b: &Session, duration: bool) {
    // As k6: a session the end of the test cut short has no duration.
    if duration && !vu::ABORTING.with(Cell::get) {
        let ms = b.started.elapsed().as_secs_f64() * 1e3;
        sh.add_vu_named(b.vu, "ws_session_duration", ms, b.tags.clone());
    }
    let [sent, received] = &*b.counts;
    add_bytes(sh, b.vu, sent.load(Relaxed), received.load(Relaxed));
}

/// Writes `msg` (and flushes), suspending the VU while the socket is
/// full; Go's words for a failure.
pub(super) fn write(
    ctx: &Ctx<'_>,
    s: &Rc<RefCell<Session>>,
    msg: Message,
) -> rquickjs::Result<Option<String>> {
    // Nearly always the frame goes out at once: written here, without a
    // turn of the scheduler; a socket that is full waits below.
    let closing = matches!(msg, Message::Close(_));
    let mut flush_only = false;
    let mut msg = Some(msg);
    {
        let mut b = s.borrow_mut();
        let Some(ws) = b.ws.as_mut() else {
            return Ok(Some(io_text(&tungstenite::Error::AlreadyClosed)));
        };
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut ws = Pin::new(ws);
        if let Poll::Ready(Ok(())) = ws.as_mut().poll_ready(&mut cx) {
            match ws.as_mut().start_send(msg.take().expect("the message")) {
                Ok(()) => {}
                // (See below: the server closed first.)
                Err(tungstenite::Error::Protocol(
                    tungstenite::error::ProtocolError::SendAfterClosing,
                )) if closing => {}
                Err(e) => return Ok(Some(io_text(&e))),
            }
            match ws.as_mut().poll_flush(&mut cx) {
                Poll::Ready(Ok(())) => return Ok(None),
                Poll::Ready(Err(e)) => return Ok(Some(io_text(&e))),
                Poll::Pending => flush_only = true,
            }
        }
    }
    let out: Rc<RefCell<Option<String>>> = Rc::default();
    let (s2, out2) = (s.clone(), out.clone());
    wait_for(
        ctx,
        Box::new(move |_client: Rc<Client>, _owner: Owner| {
            Box::pin(async move {
                if flush_only {
                    let taken = s2.borrow_mut().ws.take();
                    if let Some(mut ws) = taken {
                        let r = ws.flush().await;
                        s2.borrow_mut().ws = Some(ws);
                        if let Err(e) = r {
                            *out2.borrow_mut() = Some(io_text(&e));
                        }
                    }
                    return;
                }
                let Some(msg) = msg else { return };
                // Out of the session while in use (no borrow held across
                // a wait); dropped with this future if the VU is stopped.
                let taken = s2.borrow_mut().ws.take();
                let r = match taken {
                    Some(mut ws) => match ws.send(msg).await {
                        // The server closed first: the protocol layer has
                        // answered it already (Go writes a second close
                        // without complaint); see the answer out.
                        Err(tungstenite::Error::Protocol(
                            tungstenite::error::ProtocolError::SendAfterClosing,
                        )) if closing => {
                            let _ = ws.flush().await;
                            s2.borrow_mut().ws = Some(ws);
                            Ok(())
                        }
                        r => {
                            s2.borrow_mut().ws = Some(ws);
                            r
                        }
                    },
                    None => Err(tungstenite::Error::AlreadyClosed),
                };
                if let Err(e) = r {
                    *out2.borrow_mut() = Some(io_text(&e));
                }
            })
        }),
    )?;
    Ok(out.borrow_mut().take())
}

/// A tungstenite error in the words a k6 script sees.
pub(super) fn io_text(e: &tungstenite::Error) -> String {
    match e {
        tungstenite::Error::AlreadyClosed | tungstenite::Error::ConnectionClosed => {
            "websocket: close sent".to_string()
        }
        tungstenite::Error::Io(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            "write: broken pipe".to_string()
        }
        tungstenite::Error::Io(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
            "read: connection reset by peer".to_string()
        }
        e => e.to_string(),
    }
}

/// Dials and upgrades; the object `connect` works from: `sid` (0 when
/// the session could not open), `res` (the response `connect` returns),
/// and, on failure, `error` and whether it `throws`.
pub(super) fn open<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<RunState>,
    vu: usize,
    url: &str,
    p: Params,
) -> rquickjs::Result<Object<'js>> {
    let browser_style = p.browser_style;
    let out = Object::new(ctx.clone())?;
    let res = Object::new(ctx.clone())?;
    res.set("url", "")?;
    res.set("status", 0)?;
    res.set("headers", Object::new(ctx.clone())?)?;
    res.set("body", "")?;
    res.set("error", "")?;
    out.set("sid", 0)?;
    out.set("res", res.clone())?;
    out.set("throws", sh.http.request.throw)?;

    let mut tags = sh.vu_tags(vu);
    if sh.sys.has(SystemTags::URL) {
        tags.push(("url".into(), url.to_string()));
    }
    for (k, v) in p.tags {
        tags.retain(|(n, _)| *n != k);
        tags.push((k, v));
    }

    let uri: Option<http::Uri> = url
        .parse::<http::Uri>()
        .ok()
        .filter(|u| matches!(u.scheme_str(), Some("ws" | "wss")) && u.host().is_some());
    let Some(uri) = uri else {
        // Go's words; nothing dialled, no samples (as k6).
        let msg = "malformed ws or wss URL";
        res.set("error", msg)?;
        out.set("error", msg)?;
        return Ok(out);
    };

    let req = match upgrade_request(sh, url, p.cookie.as_deref(), &p.headers) {
        Ok(r) => r,
        Err(e) => {
            let msg = e.to_string();
            res.set("error", msg.as_str())?;
            out.set("error", msg)?;
            return Ok(out);
        }
    };
    let counts: Arc<[AtomicU64; 2]> = Arc::default();
    let started = Instant::now();
    let r = dial(ctx, &uri, req, &counts)?;
    let connected = started.elapsed().as_secs_f64() * 1e3;
    tag_outcome(sh, &r, &mut tags);
    // As k6: a session and its connecting time are counted whether or
    // not the upgrade worked.
    sh.add_vu_named(vu, "ws_sessions", 1.0, tags.clone());
    sh.add_vu_named(vu, "ws_connecting", connected, tags.clone());
    let session = Session {
        ws: None,
        vu,
        tags,
        started,
        pings: HashMap::new(),
        ping_seq: 0,
        counts,
        goodbye: if browser_style { 1000 } else { 1001 },
    };
    match r {
        Ok((ws, resp, _)) => {
            fill_response(ctx, &res, &resp)?;
            let sid = NEXT_ID.with(|n| {
                let id = n.get();
                n.set(id.wrapping_add(1).max(1));
                id
            });
            let mut session = session;
            session.ws = Some(ws);
            SESSIONS.with(|m| m.borrow_mut().insert(sid, Rc::new(RefCell::new(session))));
            out.set("sid", sid)?;
        }
        Err(f) => {
            end_samples(sh, &session, !browser_style);
            let msg = match &f {
                Failure::Dial(k) => dial_text(*k, &uri),
                Failure::Handshake(resp) => {
                    // As k6: the server's answer, without an error text
                    // (thrown as Go's with `throw`).
                    fill_response(ctx, &res, resp)?;
                    out.set("error", "websocket: bad handshake")?;
                    return Ok(out);
                }
                Failure::Other(s) => s.clone(),
            };
            res.set("error", msg.as_str())?;
            out.set("error", msg)?;
        }
    }
    Ok(out)
}

/// The tags a dial's outcome adds to the session's samples: the peer's
/// address, the response's status and sub-protocol.
fn tag_outcome(sh: &RunState, r: &Opened, tags: &mut Tags) {
    // The response's status and sub-protocol tag the session's samples.
    let (status, subproto) = match r {
        Ok((_, resp, _)) => (
            resp.status().as_u16(),
            resp.headers()
                .get("sec-websocket-protocol")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string(),
        ),
        Err(Failure::Handshake(resp)) => (resp.status().as_u16(), String::new()),
        Err(_) => (0, String::new()),
    };
    if let Ok((_, _, Some(peer))) = r
        && sh.sys.has(SystemTags::IP)
    {
        tags.push(("ip".into(), peer.ip().to_string()));
    }
    if status != 0 {
        if sh.sys.has(SystemTags::STATUS) {
            tags.push(("status".into(), status.to_string()));
        }
        if sh.sys.has(SystemTags::SUBPROTO) {
            tags.push(("subproto".into(), subproto));
        }
    }
}

/// The upgrade request: the agent, the jar's cookies, the script's fields.
fn upgrade_request(
    sh: &RunState,
    url: &str,
    cookie: Option<&str>,
    headers: &[(String, String)],
) -> Result<tungstenite::handshake::client::Request, tungstenite::Error> {
    let mut req = tungstenite::client::IntoClientRequest::into_client_request(url)?;
    let agent = sh
        .http
        .request
        .user_agent
        .clone()
        .unwrap_or_else(|| "loadlab-k6".to_string());
    if !agent.is_empty()
        && let Ok(v) = http::HeaderValue::from_str(&agent)
    {
        req.headers_mut().insert(http::header::USER_AGENT, v);
    }
    // As gorilla's dialer: the jar's cookies, then the script's fields
    // (a `Cookie` of its own replaces them).
    if let Some(c) = cookie
        && let Ok(v) = http::HeaderValue::from_str(c)
    {
        req.headers_mut().insert(http::header::COOKIE, v);
    }
    for (k, v) in headers {
        if let (Ok(k), Ok(v)) = (
            http::HeaderName::from_bytes(k.as_bytes()),
            http::HeaderValue::from_str(v),
        ) {
            req.headers_mut().insert(k, v);
        }
    }
    Ok(req)
}

/// A session's connection, dialled and upgraded, with the response to
/// the upgrade and the peer's address.
type Opened = Result<
    (
        Ws,
        http::Response<Option<Vec<u8>>>,
        Option<std::net::SocketAddr>,
    ),
    Failure,
>;

/// A session's connection: dialled and upgraded, its bytes counted in
/// `counts` (written, read).
fn dial(
    ctx: &Ctx<'_>,
    uri: &http::Uri,
    req: tungstenite::handshake::client::Request,
    counts: &Arc<[AtomicU64; 2]>,
) -> rquickjs::Result<Opened> {
    let result: Rc<RefCell<Option<Opened>>> = Rc::default();
    {
        let (result, counts, uri) = (result.clone(), counts.clone(), uri.clone());
        wait_for(
            ctx,
            Box::new(move |client: Rc<Client>, owner: Owner| {
                Box::pin(async move {
                    let r = tokio::time::timeout(Duration::from_secs(60), async {
                        let raw = client
                            .open_h1(&uri, owner.laddr)
                            .await
                            .map_err(Failure::Dial)?;
                        let peer = raw.info.peer;
                        let conn = Counted::sharing(raw, counts);
                        // Small buffers (the defaults, 128 KiB each way,
                        // cost a thousand sessions 170 MiB): a 4 KiB read
                        // chunk (larger messages are read in several), and
                        // each message written at once.
                        let config = WebSocketConfig::default()
                            .read_buffer_size(4096)
                            .write_buffer_size(0);
                        match tokio_tungstenite::client_async_with_config(req, conn, Some(config))
                            .await
                        {
                            Ok((ws, resp)) => Ok((ws, resp, peer)),
                            Err(tungstenite::Error::Http(resp)) => Err(Failure::Handshake(resp)),
                            Err(e) => Err(Failure::Other(io_text(&e))),
                        }
                    })
                    .await
                    .unwrap_or(Err(Failure::Dial(ErrorKind::Timeout)));
                    *result.borrow_mut() = Some(r);
                })
            }),
        )?;
    }
    let r = result
        .borrow_mut()
        .take()
        .unwrap_or(Err(Failure::Other("internal error: no result".into())));
    Ok(r)
}

/// Why a session could not open.
pub(super) enum Failure {
    Dial(ErrorKind),
    /// The server answered the upgrade with something other than 101.
    Handshake(Box<http::Response<Option<Vec<u8>>>>),
    Other(String),
}

/// `res`'s status, header fields (k6's canonical names, values joined
/// with ", ") and body.
pub(super) fn fill_response<'js>(
    ctx: &Ctx<'js>,
    res: &Object<'js>,
    resp: &http::Response<Option<Vec<u8>>>,
) -> rquickjs::Result<()> {
    res.set("status", resp.status().as_u16())?;
    let headers = Object::new(ctx.clone())?;
    let mut joined: Vec<(String, String)> = Vec::new();
    for (k, v) in resp.headers() {
        let name = crate::http_result::canonical(k.as_str());
        let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
        match joined.iter_mut().find(|(n, _)| *n == name) {
            Some((_, old)) => {
                old.push_str(", ");
                old.push_str(&v);
            }
            None => joined.push((name, v)),
        }
    }
    for (k, v) in joined {
        headers.set(k, v)?;
    }
    res.set("headers", headers)?;
    let body = resp
        .body()
        .as_deref()
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    res.set("body", body)?;
    Ok(())
}

/// Waits for the session's next event, or `wait_ms` (a timer; < 0: none).
pub(super) fn next<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<RunState>,
    sid: u32,
    wait_ms: f64,
) -> rquickjs::Result<Object<'js>> {
    next_any(ctx, sh, &[sid], wait_ms)
}

/// Waits for the next event of any of the sessions `sids` (one VU's), or
/// `wait_ms` (a timer; < 0: none). The event says whose it is (`sid`).
pub(super) fn next_any<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<RunState>,
    sids: &[u32],
    wait_ms: f64,
) -> rquickjs::Result<Object<'js>> {
    let ev = Object::new(ctx.clone())?;
    for &sid in sids {
        if let Some(code) = take_pending_close(sid) {
            ev.set("sid", sid)?;
            ev.set("t", "close")?;
            ev.set("code", code)?;
            return Ok(ev);
        }
    }
    let mut all = Vec::with_capacity(sids.len());
    for &sid in sids {
        let Some(s) = session(sid) else {
            ev.set("sid", sid)?;
            ev.set("t", "close")?;
            ev.set("code", 1006)?;
            return Ok(ev);
        };
        all.push((sid, s));
    }
    let got: Rc<RefCell<Option<(usize, Event)>>> = Rc::default();
    {
        let (all2, got2) = (all.clone(), got.clone());
        let deadline = (wait_ms >= 0.0 && wait_ms.is_finite())
            .then(|| Instant::now() + Duration::from_secs_f64(wait_ms / 1e3));
        wait_until(
            ctx,
            Box::new(move |_client: Rc<Client>, _owner: Owner| {
                Box::pin(async move {
                    // (Taken out while waiting, as in `write`; the guard
                    // says goodbye if the VU is stopped meanwhile.)
                    let mut guard = CloseOnDrop(Vec::with_capacity(all2.len()));
                    for (i, (_, s)) in all2.iter().enumerate() {
                        let mut b = s.borrow_mut();
                        let Some(ws) = b.ws.take() else {
                            drop(b);
                            for ((_, s), (ws, _)) in all2.iter().zip(guard.0.drain(..)) {
                                s.borrow_mut().ws = ws;
                            }
                            *got2.borrow_mut() = Some((i, Event::Gone(None, 1006)));
                            return;
                        };
                        guard.0.push((Some(ws), b.goodbye));
                    }
                    // The deadline is the scheduler's (`wait_until`): no
                    // tokio timer per wait.
                    let e = std::future::poll_fn(|cx| {
                        if deadline.is_some_and(|d| Instant::now() >= d) {
                            return Poll::Ready((0, Event::Timer));
                        }
                        for (i, (ws, _)) in guard.0.iter_mut().enumerate() {
                            let ws = ws.as_mut().expect("the session's stream");
                            if let Poll::Ready(m) = ws.poll_next_unpin(cx) {
                                return Poll::Ready((i, item(m)));
                            }
                        }
                        Poll::Pending
                    })
                    .await;
                    for ((_, s), (ws, _)) in all2.iter().zip(guard.0.drain(..)) {
                        s.borrow_mut().ws = ws;
                    }
                    *got2.borrow_mut() = Some(e);
                })
            }),
            deadline,
        )?;
    }
    let (i, e) = got.borrow_mut().take().unwrap_or((0, Event::Timer));
    let (sid, s) = &all[i];
    let sid = *sid;
    ev.set("sid", sid)?;
    match e {
        Event::Timer => ev.set("t", "timer")?,
        Event::Msg(m) => message_event(ctx, sh, &ev, sid, &mut s.borrow_mut(), m)?,
        Event::Gone(err, code) => {
            s.borrow_mut().ws = None;
            match err {
                Some(text) => {
                    ev.set("t", "error")?;
                    if code == 1006 {
                        ev.set("ec", code)?;
                        ev.set("et", "unexpected EOF")?;
                    }
                    ev.set("d", text)?;
                    pending_close(sid, code);
                }
                None => {
                    ev.set("t", "close")?;
                    ev.set("code", code)?;
                }
            }
        }
    }
    Ok(ev)
}

/// A message of session `sid` as the event `ev` the script's loop reads.
fn message_event<'js>(
    ctx: &Ctx<'js>,
    sh: &RunState,
    ev: &Object<'js>,
    sid: u32,
    b: &mut Session,
    m: Message,
) -> rquickjs::Result<()> {
    match m {
        Message::Text(t) => {
            sh.add_vu_named(b.vu, "ws_msgs_received", 1.0, b.tags.clone());
            ev.set("t", "message")?;
            ev.set("d", t.as_str())?;
        }
        Message::Binary(d) => {
            sh.add_vu_named(b.vu, "ws_msgs_received", 1.0, b.tags.clone());
            ev.set("t", "binaryMessage")?;
            ev.set("d", rquickjs::ArrayBuffer::new(ctx.clone(), d.to_vec())?)?;
        }
        Message::Ping(_) => ev.set("t", "ping")?,
        Message::Pong(p) => {
            if let Some(at) = b.pings.remove(p.as_ref()) {
                let ms = at.elapsed().as_secs_f64() * 1e3;
                sh.add_vu_named(b.vu, "ws_ping", ms, b.tags.clone());
            }
            ev.set("t", "pong")?;
        }
        Message::Close(frame) => {
            let (code, reason) = frame
                .map(|f| (u16::from(f.code), f.reason.to_string()))
                .unwrap_or((1005, String::new()));
            // As Go's package: a close other than normal or going
            // away is an error first.
            if code != 1000 && code != 1001 {
                ev.set("t", "error")?;
                ev.set("d", close_text(code, &reason))?;
                ev.set("ec", code)?;
                ev.set("et", reason)?;
                // The close follows on the next turn (and answers
                // the server's).
                pending_close(sid, code);
                return Ok(());
            }
            ev.set("t", "close")?;
            ev.set("code", code)?;
            ev.set("et", reason)?;
        }
        Message::Frame(_) => ev.set("t", "timer")?,
    }
    Ok(())
}

/// The sessions' streams while their VU waits for the next event: if the
/// wait is dropped (the end of the test stops the VU), each writes its
/// goodbye close (see `Session::goodbye`) as it can without waiting, as k6
/// closes such sessions.
pub(super) struct CloseOnDrop(Vec<(Option<Ws>, u16)>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        for (ws, code) in self.0.iter_mut() {
            if let Some(mut ws) = ws.take() {
                let frame = CloseFrame {
                    code: CloseCode::from(*code),
                    reason: "".into(),
                };
                let mut cx = Context::from_waker(std::task::Waker::noop());
                let mut send = ws.send(Message::Close(Some(frame)));
                let _ = Pin::new(&mut send).poll(&mut cx);
            }
        }
    }
}

/// An item from the stream as an event.
pub(super) fn item(m: Option<Result<Message, tungstenite::Error>>) -> Event {
    match m {
        Some(Ok(m)) => Event::Msg(m),
        // The stream ended without a close frame: Go's words.
        None | Some(Err(tungstenite::Error::ConnectionClosed)) => Event::Gone(
            Some("websocket: close 1006 (abnormal closure): unexpected EOF".into()),
            1006,
        ),
        Some(Err(tungstenite::Error::Protocol(
            tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
        ))) => Event::Gone(
            Some("websocket: close 1006 (abnormal closure): unexpected EOF".into()),
            1006,
        ),
        Some(Err(e)) => Event::Gone(Some(io_text(&e)), 1001),
    }
}

thread_local! {
    /// Sessions whose close event follows the error event just given.
    static PENDING_CLOSE: RefCell<HashMap<u32, u16>> = RefCell::new(HashMap::new());
}

pub(super) fn pending_close(sid: u32, code: u16) {
    PENDING_CLOSE.with(|p| p.borrow_mut().insert(sid, code));
}

/// The close event owed to a session after its error event, if any.
pub(super) fn take_pending_close(sid: u32) -> Option<u16> {
    PENDING_CLOSE.with(|p| p.borrow_mut().remove(&sid))
}
