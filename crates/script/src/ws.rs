//! `k6/ws`: k6's WebSocket client, `ws.connect(url, [params], fn)`.
//!
//! As in k6, `connect` blocks the VU for the whole session: it dials,
//! upgrades, hands the socket to `fn` (which sets handlers and timers),
//! fires `open`, then turns the session's event loop (messages, pings,
//! pongs, the server's close, the socket's timers) until the socket
//! closes, and returns the upgrade's response. The loop is JavaScript
//! ([`WS_JS`]); each wait is a native call here that suspends the VU on
//! the scheduler ([`Op::Wait`]), so a VU in a session costs no thread.
//!
//! The connection is the engine's ([`Client::open_h1`]: `hosts`, `dns`,
//! block lists and TLS options apply), never pooled; the frames are
//! tokio-tungstenite's. Samples: `ws_sessions`, `ws_connecting`,
//! `ws_session_duration`, `ws_msgs_sent`, `ws_msgs_received`, `ws_ping`,
//! and the session's bytes in `data_sent`/`data_received`, with the VU's
//! tags, `url`, `status`, `subproto` (and `ip` when asked), as k6 tags them.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::{Sink, SinkExt, StreamExt};
use loadlab_core::ErrorKind;
use loadlab_engine::client::{Client, RawConn};
use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::protocol::{CloseFrame, WebSocketConfig};
use tokio_tungstenite::tungstenite::{self, Message};

use crate::sched::Shared;
use crate::system_tags::SystemTags;
use crate::vu::{self, Op};

/// The module: the session's event loop around the natives below.
pub const WS_JS: &str = r#"
const k = globalThis.__k6;
// Go's error values: `e.error()` is the text; a close error also has
// its `code` and `text`.
const werr = (m, code, text) => {
  const e = k.goError(m);
  e.error = () => m;
  if (code !== undefined) { e.code = code; e.text = text; }
  return e;
};
export function connect(url, ...args) {
  let params, fn;
  if (args.length === 2) { params = args[0]; fn = args[1]; }
  else if (args.length === 1) { fn = args[0]; }
  else throw k.goError('invalid number of arguments to ws.connect');
  if (typeof fn !== 'function') throw k.goError('last argument to ws.connect must be a function');
  const r = k.wsOpen(String(url), params);
  if (r.sid === 0) {
    if (r.throws) throw k.goError(r.error);
    return r.res;
  }
  const sid = r.sid;
  const handlers = new Map();
  const timers = [];
  let closed = false;
  const emit = (ev, ...a) => { for (const h of handlers.get(ev) ?? []) h(...a); };
  const closeWith = (code) => {
    if (closed) return;
    closed = true;
    const e = k.wsClose(sid, code);
    if (e) emit('error', werr(e));
    emit('close', code);
  };
  const timer = (fn, ms, every, what) => {
    ms = Number(ms);
    if (!(ms > 0)) throw k.goError(`${what} requires a >0 timeout parameter, received ${(isNaN(ms) ? 0 : ms).toFixed(2)}`);
    timers.push({ at: k.clock() + ms, every: every ? ms : 0, fn });
  };
  const socket = {
    on(ev, h) { if (typeof h === 'function') { const l = handlers.get(String(ev)); if (l) l.push(h); else handlers.set(String(ev), [h]); } },
    // (After the close, a send fails with Go's words and, as in k6, is
    // still counted in ws_msgs_sent.)
    send(m) { const e = k.wsSend(sid, String(m), false); if (e) emit('error', werr(e)); },
    sendBinary(m) {
      if (m === undefined || m === null) throw k.goError('missing argument, expected ArrayBuffer');
      if (!(m instanceof ArrayBuffer)) throw k.goError(`expected ArrayBuffer as argument, received: ${m.constructor?.name ?? typeof m}`);
      const e = k.wsSend(sid, m, true); if (e) emit('error', werr(e));
    },
    ping() { if (closed) return; const e = k.wsPing(sid); if (e) emit('error', werr(e)); },
    close(code) { closeWith(code === undefined ? 1001 : Math.trunc(Number(code))); },
    setTimeout(fn, ms) { timer(fn, ms, false, 'setTimeout'); },
    setInterval(fn, ms) { timer(fn, ms, true, 'setInterval'); },
  };
  try {
    try { fn(socket); } catch (e) { closeWith(1001); throw e; }
    r.res.url = String(url);
    emit('open');
    while (!closed) {
      let next = -1;
      for (const t of timers) if (next < 0 || t.at < next) next = t.at;
      const ev = k.wsNext(sid, next < 0 ? -1 : Math.max(0, next - k.clock()));
      switch (ev.t) {
        case 'message': emit('message', ev.d); break;
        case 'binaryMessage': emit('binaryMessage', ev.d); break;
        case 'ping': emit('ping'); break;
        case 'pong': emit('pong'); break;
        case 'error': emit('error', werr(ev.d, ev.ec, ev.et)); break;
        case 'close': closeWith(ev.code); break;
        case 'timer': {
          const now = k.clock();
          for (const t of timers.filter((t) => t.at <= now)) {
            if (closed) break;
            if (t.every > 0) t.at = Math.max(t.at + t.every, now);
            else timers.splice(timers.indexOf(t), 1);
            try { t.fn(); } catch (e) { closeWith(1001); throw e; }
          }
          break;
        }
      }
    }
  } finally {
    // An exception out of a handler: the socket still says goodbye, and
    // its close handlers run, as k6's deferred close does.
    if (!closed) { try { closeWith(1001); } catch (_) {} }
    k.wsEnd(sid);
  }
  return r.res;
}
export default { connect };
"#;

/// The names `k6/ws` exports (checked at init, as the other modules').
pub const EXPORTS: &[&str] = &["connect"];

/// A session's connection, counting the bytes on the wire (k6's
/// `data_sent`/`data_received`).
struct Counted {
    inner: RawConn,
    sent: Rc<Cell<u64>>,
    received: Rc<Cell<u64>>,
}

impl AsyncRead for Counted {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let me = self.get_mut();
        let before = buf.filled().len();
        let r = Pin::new(&mut me.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        me.received.set(me.received.get() + n);
        r
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let me = self.get_mut();
        let r = Pin::new(&mut me.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            me.sent.set(me.sent.get() + *n as u64);
        }
        r
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

type Ws = WebSocketStream<Counted>;

/// One open session.
struct Session {
    ws: Option<Ws>,
    vu: usize,
    tags: Vec<(String, String)>,
    started: Instant,
    /// Pings sent and not yet answered: payload → when.
    pings: HashMap<Vec<u8>, Instant>,
    ping_seq: u64,
    sent: Rc<Cell<u64>>,
    received: Rc<Cell<u64>>,
    /// The close written when the end of the test cuts the session short:
    /// going away (1001) for k6/ws, normal (1000) for k6/websockets, as k6.
    goodbye: u16,
}

thread_local! {
    static SESSIONS: RefCell<HashMap<u32, Rc<RefCell<Session>>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

fn session(sid: u32) -> Option<Rc<RefCell<Session>>> {
    SESSIONS.with(|s| s.borrow().get(&sid).cloned())
}

/// What one wait of the event loop saw.
enum Event {
    Msg(Message),
    /// The stream ended or failed: the error text (Go's words) and the
    /// close code k6 reports.
    Gone(Option<String>, u16),
    Timer,
}

/// A close code's name, as Go's WebSocket package words a close error.
fn close_text(code: u16, reason: &str) -> String {
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
fn dial_text(kind: ErrorKind, uri: &http::Uri) -> String {
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
            crate::sched::error_text(kind, &uri.to_string())
        }
        k => {
            let mut s = String::new();
            k.write_text(&mut s, "", &Default::default());
            s
        }
    }
}

use crate::api::throw_go as throw;

/// Suspends the VU until `make`'s future is done (`what` names the call
/// in the init context's error).
fn wait_for(ctx: &Ctx<'_>, make: vu::WaitFn) -> rquickjs::Result<()> {
    wait_until(ctx, make, None)
}

/// [`wait_for`], the future polled once more at `at` (see [`Op::Wait`]).
fn wait_until(ctx: &Ctx<'_>, make: vu::WaitFn, at: Option<Instant>) -> rquickjs::Result<()> {
    crate::api::wait(ctx, Op::Wait(make, at), "using websockets").map(|_| ())
}

/// The parts of `ws.connect`'s params k6 reads.
struct Params {
    headers: Vec<(String, String)>,
    tags: Vec<(String, String)>,
    /// The cookie jar (`params.jar`; 0: the VU's own).
    jar: usize,
    /// The `Cookie` field from the jar.
    cookie: Option<String>,
    /// `k6/websockets`' dial: a failed one has no `ws_session_duration`
    /// (k6/ws's has).
    browser_style: bool,
}

fn params<'js>(ctx: &Ctx<'js>, v: Option<Value<'js>>) -> rquickjs::Result<Params> {
    let mut p = Params {
        headers: Vec::new(),
        tags: Vec::new(),
        jar: 0,
        cookie: None,
        browser_style: false,
    };
    let Some(o) = v.and_then(|v| v.into_object()) else {
        return Ok(p);
    };
    p.headers = crate::api::js_pairs(o.get::<_, Option<Value>>("headers")?.as_ref());
    p.tags = crate::api::js_pairs(o.get::<_, Option<Value>>("tags")?.as_ref());
    p.browser_style = o.get::<_, Option<bool>>("__browserStyle")?.unwrap_or(false);
    if let Some(j) = o.get::<_, Option<Object>>("jar")? {
        p.jar = j.get::<_, f64>("_id").unwrap_or(0.0) as usize;
    }
    if let Some(c) = o.get::<_, Option<Value>>("compression")? {
        let c = match c.as_string() {
            Some(t) => t.to_string()?,
            None if c.is_undefined() || c.is_null() => String::new(),
            None => "?".to_string(),
        };
        let c = c.trim();
        if c == "deflate" {
            return Err(throw(
                ctx,
                "ws.connect(): compression 'deflate' is not supported by loadlab k6",
            ));
        }
        if !c.is_empty() {
            return Err(throw(
                ctx,
                &format!(
                    "unsupported compression algorithm '{c}', supported algorithm is 'deflate'"
                ),
            ));
        }
    }
    Ok(p)
}

/// Puts `k6/ws`'s natives on `k6` (the `__k6` object).
pub fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<Shared>,
    jars: &Rc<RefCell<crate::api::AllJars>>,
) -> rquickjs::Result<()> {
    {
        let sh = shared.clone();
        let jars = jars.clone();
        k6.set(
            "wsOpen",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      url: String,
                      params_v: Opt<Value<'js>>|
                      -> rquickjs::Result<Object<'js>> {
                    if !vu::in_vu() {
                        return Err(throw(
                            &ctx,
                            "using websockets in the init context is not supported",
                        ));
                    }
                    let vu = vu::current();
                    let mut p = params(&ctx, params_v.0)?;
                    let iteration = sh.vu_numbers(vu).1;
                    p.cookie = crate::api::ws_cookie(&jars, vu, iteration, p.jar, &url);
                    open(&ctx, &sh, vu, &url, p)
                },
            )?,
        )?;
    }
    {
        let sh = shared.clone();
        k6.set(
            "wsSend",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      sid: u32,
                      data: Value<'js>,
                      binary: bool|
                      -> rquickjs::Result<Option<String>> {
                    let Some(s) = session(sid) else {
                        return Ok(Some("websocket: close sent".into()));
                    };
                    let msg = if binary {
                        let bytes = crate::api::js_bytes(&data).unwrap_or_default();
                        Message::Binary(bytes.into())
                    } else {
                        let t: String = data.get().unwrap_or_default();
                        Message::Text(t.into())
                    };
                    let err = write(&ctx, &s, msg)?;
                    // Counted whether or not the write worked, as k6 does.
                    let b = s.borrow();
                    sh.add_vu_named(b.vu, "ws_msgs_sent", 1.0, b.tags.clone());
                    Ok(err)
                },
            )?,
        )?;
    }
    k6.set(
        "wsPing",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, sid: u32| -> rquickjs::Result<Option<String>> {
                let Some(s) = session(sid) else {
                    return Ok(None);
                };
                let payload = {
                    let mut b = s.borrow_mut();
                    let p = b.ping_seq.to_string().into_bytes();
                    b.ping_seq += 1;
                    p
                };
                let err = write(&ctx, &s, Message::Ping(payload.clone().into()))?;
                if err.is_none() {
                    s.borrow_mut().pings.insert(payload, Instant::now());
                }
                Ok(err)
            },
        )?,
    )?;
    {
        let sh = shared.clone();
        k6.set(
            "wsNext",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, sid: u32, wait_ms: f64| -> rquickjs::Result<Object<'js>> {
                    next(&ctx, &sh, sid, wait_ms)
                },
            )?,
        )?;
    }
    {
        let sh = shared.clone();
        k6.set(
            "wsNextAny",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      sids: Vec<u32>,
                      wait_ms: f64|
                      -> rquickjs::Result<Object<'js>> {
                    next_any(&ctx, &sh, &sids, wait_ms)
                },
            )?,
        )?;
    }
    // wsClose(sid, code, [reason], [keep]): writes the close frame; `keep`
    // (k6/websockets) goes on reading for the server's answering close,
    // else (k6/ws) the connection is closed at once.
    k6.set(
        "wsClose",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  sid: u32,
                  code: f64,
                  reason: Opt<String>,
                  keep: Opt<bool>|
                  -> rquickjs::Result<Option<String>> {
                let Some(s) = session(sid) else {
                    return Ok(None);
                };
                if s.borrow().ws.is_none() {
                    return Ok(None);
                }
                let code = if code.is_finite() { code as u16 } else { 1001 };
                let frame = CloseFrame {
                    code: CloseCode::from(code),
                    reason: reason.0.unwrap_or_default().into(),
                };
                let err = write(&ctx, &s, Message::Close(Some(frame)))?;
                // As k6's `k6/ws`: the close frame written, the connection
                // is closed without waiting for the server's.
                if !keep.0.unwrap_or(false) || err.is_some() {
                    s.borrow_mut().ws = None;
                }
                Ok(err)
            },
        )?,
    )?;
    k6.set("wsInVu", Function::new(ctx.clone(), vu::in_vu)?)?;
    {
        // k6/websockets counts pings and closes in ws_msgs_sent too.
        let sh = shared.clone();
        k6.set(
            "wsSent",
            Function::new(ctx.clone(), move |sid: u32| {
                if let Some(s) = session(sid) {
                    let b = s.borrow();
                    sh.add_vu_named(b.vu, "ws_msgs_sent", 1.0, b.tags.clone());
                }
            })?,
        )?;
    }
    {
        let sh = shared.clone();
        k6.set(
            "wsEnd",
            Function::new(ctx.clone(), move |sid: u32| {
                let s = SESSIONS.with(|m| m.borrow_mut().remove(&sid));
                take_pending_close(sid);
                if let Some(s) = s {
                    let mut b = s.borrow_mut();
                    b.ws = None;
                    end_samples(&sh, &b, true);
                }
            })?,
        )?;
    }
    Ok(())
}

/// `ws_session_duration` and the session's bytes, when it is over.
fn end_samples(sh: &Shared, b: &Session, duration: bool) {
    // As k6: a session the end of the test cut short has no duration.
    if duration && !vu::ABORTING.with(Cell::get) {
        let ms = b.started.elapsed().as_secs_f64() * 1e3;
        sh.add_vu_named(b.vu, "ws_session_duration", ms, b.tags.clone());
    }
    let mut tags = sh.vu_tags(b.vu);
    tags.retain(|(k, _)| k != "url");
    sh.add_vu_named(b.vu, "data_sent", b.sent.get() as f64, tags.clone());
    sh.add_vu_named(b.vu, "data_received", b.received.get() as f64, tags);
}

/// Writes `msg` (and flushes), suspending the VU while the socket is
/// full; Go's words for a failure.
fn write(
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
        Box::new(move |_client: Rc<Client>| {
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
fn io_text(e: &tungstenite::Error) -> String {
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
fn open<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<Shared>,
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

    let mut req = match tungstenite::client::IntoClientRequest::into_client_request(url) {
        Ok(r) => r,
        Err(e) => {
            let msg = e.to_string();
            res.set("error", msg.as_str())?;
            out.set("error", msg)?;
            return Ok(out);
        }
    };
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
    if let Some(c) = &p.cookie
        && let Ok(v) = http::HeaderValue::from_str(c)
    {
        req.headers_mut().insert(http::header::COOKIE, v);
    }
    for (k, v) in &p.headers {
        if let (Ok(k), Ok(v)) = (
            http::HeaderName::from_bytes(k.as_bytes()),
            http::HeaderValue::from_str(v),
        ) {
            req.headers_mut().insert(k, v);
        }
    }

    type Opened = Result<
        (
            Ws,
            http::Response<Option<Vec<u8>>>,
            Option<std::net::SocketAddr>,
        ),
        Failure,
    >;
    let result: Rc<RefCell<Option<Opened>>> = Rc::default();
    let sent = Rc::new(Cell::new(0u64));
    let received = Rc::new(Cell::new(0u64));
    let started = Instant::now();
    {
        let (result, sent, received, uri) =
            (result.clone(), sent.clone(), received.clone(), uri.clone());
        wait_for(
            ctx,
            Box::new(move |client: Rc<Client>| {
                Box::pin(async move {
                    let r = tokio::time::timeout(Duration::from_secs(60), async {
                        let raw = client.open_h1(&uri).await.map_err(Failure::Dial)?;
                        let peer = raw.info.peer;
                        let conn = Counted {
                            inner: raw,
                            sent,
                            received,
                        };
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
    let connected = started.elapsed().as_secs_f64() * 1e3;
    let r = result
        .borrow_mut()
        .take()
        .unwrap_or(Err(Failure::Other("internal error: no result".into())));
    // The response's status and sub-protocol tag the session's samples.
    let (status, subproto) = match &r {
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
    if let Ok((_, _, Some(peer))) = &r
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
        sent,
        received,
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

/// Why a session could not open.
enum Failure {
    Dial(ErrorKind),
    /// The server answered the upgrade with something other than 101.
    Handshake(Box<http::Response<Option<Vec<u8>>>>),
    Other(String),
}

/// `res`'s status, header fields (k6's canonical names, values joined
/// with ", ") and body.
fn fill_response<'js>(
    ctx: &Ctx<'js>,
    res: &Object<'js>,
    resp: &http::Response<Option<Vec<u8>>>,
) -> rquickjs::Result<()> {
    res.set("status", resp.status().as_u16())?;
    let headers = Object::new(ctx.clone())?;
    let mut joined: Vec<(String, String)> = Vec::new();
    for (k, v) in resp.headers() {
        let name = crate::api::canonical(k.as_str());
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
fn next<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<Shared>,
    sid: u32,
    wait_ms: f64,
) -> rquickjs::Result<Object<'js>> {
    next_any(ctx, sh, &[sid], wait_ms)
}

/// Waits for the next event of any of the sessions `sids` (one VU's), or
/// `wait_ms` (a timer; < 0: none). The event says whose it is (`sid`).
fn next_any<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<Shared>,
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
            Box::new(move |_client: Rc<Client>| {
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
        Event::Msg(m) => {
            let b = &mut *s.borrow_mut();
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
                        return Ok(ev);
                    }
                    ev.set("t", "close")?;
                    ev.set("code", code)?;
                    ev.set("et", reason)?;
                }
                Message::Frame(_) => ev.set("t", "timer")?,
            }
        }
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

/// The sessions' streams while their VU waits for the next event: if the
/// wait is dropped (the end of the test stops the VU), each writes its
/// goodbye close (see `Session::goodbye`) as it can without waiting, as k6
/// closes such sessions.
struct CloseOnDrop(Vec<(Option<Ws>, u16)>);

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
fn item(m: Option<Result<Message, tungstenite::Error>>) -> Event {
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

fn pending_close(sid: u32, code: u16) {
    PENDING_CLOSE.with(|p| p.borrow_mut().insert(sid, code));
}

/// The close event owed to a session after its error event, if any.
fn take_pending_close(sid: u32) -> Option<u16> {
    PENDING_CLOSE.with(|p| p.borrow_mut().remove(&sid))
}
