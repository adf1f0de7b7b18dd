//! The response class: a native object per response, its fields made
//! when the script reads them.

use std::cell::Cell;

use bytes::Bytes;
use http::Method;
use loadlab_engine::header_list::HeaderList;
use rquickjs::function::This;
use rquickjs::object::{Accessor, Property};
use rquickjs::{Ctx, Function, Object, Value};

use crate::http_result::canonical;
use crate::js::class::{AtomKeys, NativeClass};
use crate::js::runtime::{RawRuntime, array_buffer_bytes};
use crate::modules::common::{js_string, throw};
use crate::state::request::{ReqMeta, ResponseType};

/// What a response object holds natively until the script reads it.
///
/// A response is an object of a class of its own whose prototype
/// (`http.Response.prototype`, one for the run) has an accessor per
/// field. The first read of `headers`, `body` or `timings` makes the value
/// and keeps it as an own data property of the response (so it is the same
/// object on every read, and the script may change it); the scalar fields
/// are read from here each time until assigned. Making the response thus
/// costs one object instead of three objects and ~24 properties, most of
/// which scripts never read (CPU per request).
struct RespData {
    status: u16,
    url: String,
    error: String,
    error_code: u32,
    headers: HeaderList,
    body: Vec<u8>,
    response_type: ResponseType,
    /// blocked, connecting, tls_handshaking, sending, waiting, receiving,
    /// duration (ms).
    timings: [f64; 7],
    /// `HTTP/1.1`, `HTTP/2.0`, or empty when there was no response.
    proto: &'static str,
    /// The connection's peer and TLS parameters.
    conn: loadlab_engine::client::ConnInfo,
    /// The status line's reason phrase when not the usual one.
    reason: Option<String>,
    /// The script read or replaced `body`: `json()` parses that one.
    body_read: Cell<bool>,
    /// `res.request`: the request as sent (its first hop, as k6 shows it);
    /// its URL when a redirect made `url` another.
    req_method: Method,
    req_url: Option<String>,
    req_headers: Vec<(String, String)>,
    req_body: Bytes,
}

/// A response's fields (`toJSON` in HTTP_JS lists them in k6's order,
/// `cookies` after `headers`).
const RESP_FIELDS: [&str; 16] = [
    "status",
    "url",
    "proto",
    "headers",
    "body",
    "timings",
    "error",
    "error_code",
    "cookies",
    "request",
    "remote_ip",
    "remote_port",
    "status_text",
    "tls_version",
    "tls_cipher_suite",
    "ocsp",
];

thread_local! {
    /// The response class, registered in this thread's runtime.
    static RESP_CLASS: NativeClass<RespData> = const { NativeClass::new(c"Response") };
}

/// Registers the response class in a new runtime (before `install` runs
/// in any of its contexts).
pub(crate) fn register_class(rt: RawRuntime) -> Result<(), String> {
    RESP_CLASS.with(|c| c.register(rt))
}

/// The native data of a response object (`None` for any other value).
fn resp_of<'a>(v: &'a Value<'_>) -> Option<&'a RespData> {
    RESP_CLASS.with(|c| c.data_of(v))
}

/// Makes `res.<field>` an own data property holding `v`.
fn keep<'js>(this: &Value<'js>, field: &str, v: Value<'js>) -> rquickjs::Result<()> {
    if let Some(o) = this.as_object() {
        o.prop(
            field,
            Property::from(v).writable().enumerable().configurable(),
        )?;
    }
    Ok(())
}

/// The value of field `i` (of `RESP_FIELDS`) of a response.
fn resp_field<'js>(ctx: &Ctx<'js>, this: &Value<'js>, i: usize) -> rquickjs::Result<Value<'js>> {
    let Some(d) = resp_of(this) else {
        return Ok(Value::new_undefined(ctx.clone()));
    };
    let v = match i {
        0 => Value::new_int(ctx.clone(), i32::from(d.status)),
        1 => rquickjs::String::from_str(ctx.clone(), &d.url)?.into_value(),
        2 => rquickjs::String::from_str(ctx.clone(), d.proto)?.into_value(),
        3 => {
            let headers = Object::new(ctx.clone())?;
            for (k, v) in d.headers.iter() {
                // k6 canonicalises names (Content-Type) and joins repeats with ", ".
                let name = canonical(k);
                let joined = match headers.get::<_, Option<String>>(name.as_str())? {
                    Some(prev) => format!("{prev}, {v}"),
                    None => v.to_string(),
                };
                headers.set(name, joined)?;
            }
            headers.into_value()
        }
        4 => {
            d.body_read.set(true);
            match d.response_type {
                // A request that failed has no body, as in k6.
                _ if d.status == 0 && !d.error.is_empty() => Value::new_null(ctx.clone()),
                ResponseType::None => Value::new_null(ctx.clone()),
                ResponseType::Binary => {
                    rquickjs::ArrayBuffer::new(ctx.clone(), d.body.clone())?.into_value()
                }
                ResponseType::Text => {
                    rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&d.body))?
                        .into_value()
                }
            }
        }
        5 => timings_object(ctx, &d.timings)?,
        6 => rquickjs::String::from_str(ctx.clone(), &d.error)?.into_value(),
        8 => set_cookies_object(ctx, d)?,
        9 => request_object(ctx, d)?,
        7 => Value::new_number(ctx.clone(), f64::from(d.error_code)),
        // The peer's address, and "" and 0 when there was no response (as k6).
        10 => {
            let ip = d.conn.peer.map(|p| p.ip().to_string()).unwrap_or_default();
            rquickjs::String::from_str(ctx.clone(), &ip)?.into_value()
        }
        11 => Value::new_int(ctx.clone(), d.conn.peer.map_or(0, |p| i32::from(p.port()))),
        // Go's `Status`: the code and the reason phrase as received.
        12 => {
            let text = match (d.status, &d.reason) {
                (0, _) => String::new(),
                (s, Some(r)) => format!("{s} {r}"),
                (s, None) => {
                    let usual = http::StatusCode::from_u16(s)
                        .ok()
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or("");
                    format!("{s} {usual}")
                }
            };
            rquickjs::String::from_str(ctx.clone(), &text)?.into_value()
        }
        13 => {
            let v = d.conn.tls.map_or("", |t| t.version);
            rquickjs::String::from_str(ctx.clone(), v)?.into_value()
        }
        14 => {
            let v = d.conn.tls.map_or("", |t| t.cipher_suite);
            rquickjs::String::from_str(ctx.clone(), v)?.into_value()
        }
        15 => {
            // No OCSP staple is asked for: k6's shape, its status
            // "unknown" over TLS (k6's word when none came) and "" without.
            let o = Object::new(ctx.clone())?;
            for key in ["produced_at", "this_update", "next_update", "revoked_at"] {
                o.set(key, 0)?;
            }
            o.set("revocation_reason", "")?;
            let status = if d.conn.tls.is_some() && d.status > 0 {
                "unknown"
            } else {
                ""
            };
            o.set("status", status)?;
            o.into_value()
        }
        _ => Value::new_undefined(ctx.clone()),
    };
    // Kept, so that it is the same object next time (not possible on a
    // frozen response: then the value is made again on each read).
    if matches!(i, 3..=5 | 8 | 9 | 15) && keep(this, RESP_FIELDS[i], v.clone()).is_err() {
        let _ = ctx.catch();
    }
    Ok(v)
}

/// `res.cookies`: the Set-Cookie fields, by name (k6's shape).
fn set_cookies_object<'js>(ctx: &Ctx<'js>, d: &RespData) -> rquickjs::Result<Value<'js>> {
    let cookies = Object::new(ctx.clone())?;
    for (k, v) in d.headers.iter() {
        if !k.eq_ignore_ascii_case("set-cookie") {
            continue;
        }
        let Ok(c) = cookie_store::RawCookie::parse(v.to_string()) else {
            continue;
        };
        let e = Object::new(ctx.clone())?;
        e.set("name", c.name())?;
        e.set("value", c.value())?;
        e.set("domain", c.domain().unwrap_or(""))?;
        e.set("path", c.path().unwrap_or(""))?;
        e.set("http_only", c.http_only().unwrap_or(false))?;
        e.set("secure", c.secure().unwrap_or(false))?;
        e.set(
            "max_age",
            c.max_age().map_or(0.0, |d| d.whole_seconds() as f64),
        )?;
        // Without `Expires`, k6 shows Go's zero time as it converts
        // it (its nanoseconds overflow): -6795364578871.
        e.set(
            "expires",
            c.expires_datetime().map_or(-6_795_364_578_871.0, |t| {
                (t.unix_timestamp_nanos() / 1_000_000) as f64
            }),
        )?;
        push_to_list(ctx, &cookies, c.name(), e)?;
    }
    Ok(cookies.into_value())
}

/// `res.request`: k6's shape, header values as lists, the cookies sent
/// by name.
fn request_object<'js>(ctx: &Ctx<'js>, d: &RespData) -> rquickjs::Result<Value<'js>> {
    let r = Object::new(ctx.clone())?;
    r.set("method", d.req_method.as_str())?;
    r.set("url", d.req_url.as_deref().unwrap_or(&d.url))?;
    let headers = Object::new(ctx.clone())?;
    let cookies = Object::new(ctx.clone())?;
    for (k, v) in &d.req_headers {
        let name = canonical(k);
        push_to_list(ctx, &headers, &name, v.as_str())?;
        if name == "Cookie" {
            for pair in v.split(';') {
                let Some((n, val)) = pair.trim().split_once('=') else {
                    continue;
                };
                let c = Object::new(ctx.clone())?;
                c.set("name", n)?;
                c.set("value", val)?;
                c.set("replace", false)?;
                push_to_list(ctx, &cookies, n, c)?;
            }
        }
    }
    r.set("headers", headers)?;
    r.set(
        "body",
        rquickjs::String::from_str(ctx.clone(), &String::from_utf8_lossy(&d.req_body))?,
    )?;
    r.set("cookies", cookies)?;
    Ok(r.into_value())
}

/// `res.timings`' keys, in k6's order.
const TIMING_KEYS: [&str; 8] = [
    "duration",
    "blocked",
    "looking_up",
    "connecting",
    "tls_handshaking",
    "sending",
    "waiting",
    "receiving",
];

thread_local! {
    /// [`TIMING_KEYS`] as atoms of this thread's runtime: naming each key
    /// by its text cost a look-up in the runtime's atom table per key and
    /// request (~1 % of the k6 face's CPU on the DSPS pub/sub script, which reads
    /// `res.timings` after two requests in three).
    static TIMING_ATOMS: AtomKeys<8> = const { AtomKeys::new(TIMING_KEYS) };
}

/// `res.timings`: `[blocked, connecting, tls_handshaking, sending,
/// waiting, receiving, duration]` in ms as k6's object. k6 never sets
/// `looking_up` (a look-up is part of `blocked`), so it is 0 here too.
fn timings_object<'js>(ctx: &Ctx<'js>, t: &[f64; 7]) -> rquickjs::Result<Value<'js>> {
    let values = [t[6], t[0], 0.0, t[1], t[2], t[3], t[4], t[5]];
    TIMING_ATOMS.with(|a| a.object(ctx, values))
}

/// Appends `v` to the array `o[key]`, made on first use (k6's
/// `{name: [values]}` shapes).
fn push_to_list<'js>(
    ctx: &Ctx<'js>,
    o: &Object<'js>,
    key: &str,
    v: impl rquickjs::IntoJs<'js>,
) -> rquickjs::Result<()> {
    let list = match o.get::<_, Option<rquickjs::Array>>(key)? {
        Some(l) => l,
        None => {
            let l = rquickjs::Array::new(ctx.clone())?;
            o.set(key, l.clone())?;
            l
        }
    };
    list.set(list.len(), v)
}

/// `res.json()`: the body parsed (straight from the bytes while the script
/// has not read or replaced `res.body`).
fn resp_json<'js>(ctx: &Ctx<'js>, this: &Value<'js>) -> rquickjs::Result<Value<'js>> {
    let parse = |src: Vec<u8>| {
        ctx.json_parse(src).map_err(|e| match e {
            rquickjs::Error::Exception => e,
            other => throw(ctx, &format!("res.json(): {other}")),
        })
    };
    let direct = resp_of(this).filter(|d| !d.body_read.get());
    if let Some(d) = direct
        && d.response_type != ResponseType::None
    {
        return parse(d.body.clone());
    }
    let body: Value = match this.as_object() {
        Some(o) => o.get("body")?,
        None => Value::new_undefined(ctx.clone()),
    };
    if body.is_null() || body.is_undefined() {
        return Err(throw(ctx, "the response has no body"));
    }
    if let Some(d) = resp_of(this)
        && let Some(ab) = rquickjs::ArrayBuffer::from_value(body.clone())
    {
        let _ = d;
        return parse(array_buffer_bytes(&ab).unwrap_or_default());
    }
    let text = js_string(&body).unwrap_or_default();
    parse(text.into_bytes())
}

/// The prototype of this context's response objects, with an accessor per
/// field; `k6.ResponseProto` and `k6.respJson` for HTTP_JS.
pub(crate) fn install_response<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    let proto = Object::new(ctx.clone())?;
    for (i, name) in RESP_FIELDS.iter().enumerate() {
        let name: &'static str = name;
        proto.prop(
            name,
            Accessor::new(
                move |ctx: Ctx<'js>, this: This<Value<'js>>| resp_field(&ctx, &this.0, i),
                move |this: This<Value<'js>>, v: Value<'js>| keep(&this.0, name, v),
            )
            .configurable(),
        )?;
    }
    RESP_CLASS.with(|c| c.set_proto(ctx, &proto));
    k6.set("ResponseProto", proto)?;
    k6.set(
        "respJson",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, this: Value<'js>| {
            resp_json(&ctx, &this)
        })?,
    )?;
    Ok(())
}

/// The response k6 gives for a request it could not make (a bad URL,
/// method or timeout): status 0, its `error` and `error_code`, no body.
pub(crate) fn unsent_response<'js>(
    ctx: &Ctx<'js>,
    method: &str,
    url: String,
    error: String,
    error_code: u32,
) -> rquickjs::Result<Value<'js>> {
    make_response(
        ctx,
        Box::new(RespData {
            proto: "",
            conn: Default::default(),
            reason: None,
            status: 0,
            url,
            req_method: Method::from_bytes(method.as_bytes()).unwrap_or(Method::GET),
            req_url: None,
            req_headers: Vec::new(),
            req_body: Bytes::new(),
            error,
            error_code,
            headers: HeaderList::default(),
            body: Vec::new(),
            response_type: ResponseType::Text,
            timings: [0.0; 7],
            body_read: Cell::new(false),
        }),
    )
}

pub(crate) fn response_object<'js>(
    ctx: &Ctx<'js>,
    meta: &ReqMeta,
    resp: loadlab_engine::client::ClientResponse,
) -> rquickjs::Result<Value<'js>> {
    let t = crate::http_result::Timings::of(&resp);
    let (error, error_code) =
        crate::http_result::error_of(&resp, resp.url.as_deref().unwrap_or(&meta.url));
    let req_url = resp.url.is_some().then(|| meta.url.clone());
    let data = Box::new(RespData {
        proto: crate::http_result::proto_of(&resp),
        // A failed request has no peer (k6 shows "" and 0).
        conn: if resp.status > 0 {
            resp.conn
        } else {
            Default::default()
        },
        reason: resp.reason,
        status: resp.status,
        // The URL that answered: after redirects, the last one (k6's `url`).
        url: resp.url.unwrap_or_else(|| meta.url.clone()),
        req_method: Method::from_bytes(meta.method.as_bytes()).unwrap_or(Method::GET),
        req_url,
        req_headers: resp.request_headers,
        req_body: resp.request_body,
        error,
        error_code,
        headers: resp.headers,
        body: resp.body,
        response_type: meta.response_type,
        timings: [
            t.blocked,
            t.connecting,
            t.tls_handshaking,
            t.sending,
            t.waiting,
            t.receiving,
            t.duration,
        ],
        body_read: Cell::new(false),
    });
    make_response(ctx, data)
}

/// A native response object holding `data` (freed with the object).
fn make_response<'js>(ctx: &Ctx<'js>, data: Box<RespData>) -> rquickjs::Result<Value<'js>> {
    if !RESP_CLASS.with(NativeClass::registered) {
        return Err(throw(ctx, "internal error: no Response class"));
    }
    RESP_CLASS.with(|c| c.make(ctx, data))
}
