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

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

use crate::js::vu::{self, Op};
use crate::state::run_state::{RunState, Tags};

mod session;

use session::*;

pub(crate) const NAME: &str = "k6/ws";

/// The module: the session's event loop around the natives below.
pub(crate) const WS_JS: &str = include_str!("ws.js");

/// The names `k6/ws` exports (checked at init, as the other modules').
pub(crate) const EXPORTS: &[&str] = &["connect"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: WS_JS,
    exports: Some(EXPORTS),
};

use crate::modules::common::throw_go as throw;

/// Suspends the VU until `make`'s future is done (`what` names the call
/// in the init context's error).
fn wait_for(ctx: &Ctx<'_>, make: vu::WaitFn) -> rquickjs::Result<()> {
    wait_until(ctx, make, None)
}

/// [`wait_for`], the future polled once more at `at` (see [`Op::Wait`]).
fn wait_until(ctx: &Ctx<'_>, make: vu::WaitFn, at: Option<Instant>) -> rquickjs::Result<()> {
    crate::modules::common::wait(ctx, Op::Wait(make, at), "using websockets").map(|_| ())
}

/// The parts of `ws.connect`'s params k6 reads.
struct Params {
    headers: Vec<(String, String)>,
    tags: Tags,
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
        tags: Tags::new(),
        jar: 0,
        cookie: None,
        browser_style: false,
    };
    let Some(o) = v.and_then(|v| v.into_object()) else {
        return Ok(p);
    };
    p.headers = crate::modules::common::js_pairs(o.get::<_, Option<Value>>("headers")?.as_ref());
    p.tags = crate::modules::common::js_pairs(o.get::<_, Option<Value>>("tags")?.as_ref()).into();
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
    shared: &Rc<RunState>,
    jars: &Rc<RefCell<crate::modules::http::cookies::AllJars>>,
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
                    p.cookie =
                        crate::modules::http::cookies::ws_cookie(&jars, vu, iteration, p.jar, &url);
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
                        let bytes = crate::modules::common::js_bytes(&data).unwrap_or_default();
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
    install_events(ctx, k6, shared)
}

/// `k6/ws`'s natives that wait for a session's events, close it and end
/// its samples.
fn install_events<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
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
