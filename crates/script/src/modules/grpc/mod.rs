//! `k6/net/grpc`: gRPC clients as k6's module has them: unary calls, and
//! streams (`stream.rs`, their natives in `stream_api.rs`).
//! `Client.load(importPaths, ...files)` compiles `.proto` files at init
//! (`proto.rs`), `connect(address, {plaintext, timeout})` opens a
//! client's HTTP/2 connection and `invoke(method, request, params)` makes
//! a call (`call.rs`), its message from and to JSON as k6's protojson.
//! Each call is a `grpc_req_duration` sample tagged as k6 tags it (`name`,
//! `url`, `service`, `method`, `status`), with its bytes in `data_sent`
//! and `data_received`. `connect`'s `reflect` fetches the definitions
//! from the server (`reflect.rs`); `loadProtoset` reads a protoset file;
//! `healthCheck` calls `grpc.health.v1.Health/Check`.
//!
//! Shared state: the clients of the run's VUs, by id, on the run's thread
//! (`CLIENTS`); a client's connection lives until `close()` or the end.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};

use crate::js::vu;
use crate::modules::common::{throw_go, wait_on};
use crate::modules::counted::add_bytes as network;
use crate::state::run_state::RunState;
use crate::system_tags::SystemTags;
use crate::tags::Tags;

mod call;
mod proto;
mod reflect;
mod stream;
mod stream_api;

pub(crate) const NAME: &str = "k6/net/grpc";

const GRPC_JS: &str = include_str!("grpc.js");

/// What the module exports: the client and k6's status codes.
pub(crate) const EXPORTS: &[&str] = &[
    "Client",
    "Stream",
    "HealthCheckUnknown",
    "HealthCheckServing",
    "HealthCheckNotServing",
    "HealthCheckServiceUnkown",
    "StatusOK",
    "StatusCanceled",
    "StatusUnknown",
    "StatusInvalidArgument",
    "StatusDeadlineExceeded",
    "StatusNotFound",
    "StatusAlreadyExists",
    "StatusPermissionDenied",
    "StatusResourceExhausted",
    "StatusFailedPrecondition",
    "StatusAborted",
    "StatusOutOfRange",
    "StatusUnimplemented",
    "StatusInternal",
    "StatusUnavailable",
    "StatusDataLoss",
    "StatusUnauthenticated",
];

pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: GRPC_JS,
    exports: Some(EXPORTS),
};

#[derive(Default)]
struct ClientState {
    pools: Vec<prost_reflect::DescriptorPool>,
    conn: Option<call::Conn>,
}

thread_local! {
    static CLIENTS: RefCell<HashMap<u32, ClientState>> = RefCell::new(HashMap::new());
    static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

fn with_client<T>(id: u32, f: impl FnOnce(&mut ClientState) -> T) -> T {
    CLIENTS.with(|c| f(c.borrow_mut().entry(id).or_default()))
}

/// The definitions and the connection of client `id`, for a call made in
/// a VU (`in_init`: the error in the init context); k6's error without a
/// connection, after `prefix` (a stream's: `invalid GRPC Stream's client: `).
fn vu_conn(
    ctx: &Ctx<'_>,
    id: u32,
    in_init: &str,
    prefix: &str,
) -> rquickjs::Result<(Vec<prost_reflect::DescriptorPool>, call::Conn)> {
    if !vu::in_vu() {
        return Err(throw_go(ctx, in_init));
    }
    let (pools, conn) = with_client(id, |c| (c.pools.clone(), c.conn.clone()));
    let conn = conn.ok_or_else(|| {
        throw_go(
            ctx,
            &format!("{prefix}no gRPC connection, you must call connect first"),
        )
    })?;
    Ok((pools, conn))
}

/// The TLS configuration of a client's connection: the options' TLS
/// (`insecureSkipTLSVerify`, `tlsVersion`, …, as k6 starts from the VU's),
/// with connect's `tls` param's CAs and client certificate in place of
/// `tlsAuth`'s, `h2` offered. Made once per set of options: a script may
/// connect in every iteration.
fn tls_config(
    base: &loadlab_engine::config::TlsOptions,
    own: Option<&ConnectTls>,
) -> Result<std::sync::Arc<rustls::ClientConfig>, String> {
    type Cache = Option<(
        loadlab_engine::config::TlsOptions,
        std::sync::Arc<rustls::ClientConfig>,
    )>;
    thread_local! {
        static CONFIG: RefCell<Cache> = const { RefCell::new(None) };
    }
    let mut opts = base.clone();
    if let Some(t) = own {
        opts.root_pems = t.cacerts.clone();
        opts.client_pems = t.cert.iter().cloned().collect();
    }
    if let Some(cfg) = CONFIG.with(|c| {
        c.borrow()
            .as_ref()
            .filter(|(o, _)| *o == opts)
            .map(|(_, cfg)| cfg.clone())
    }) {
        return Ok(cfg);
    }
    let cfg = crate::modules::common::client_tls(&opts, true)?;
    CONFIG.with(|c| *c.borrow_mut() = Some((opts, cfg.clone())));
    Ok(cfg)
}

pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    k6.set(
        "grpcNew",
        Function::new(ctx.clone(), || {
            NEXT.with(|n| {
                let id = n.get();
                n.set(id + 1);
                id
            })
        })?,
    )?;
    install_loading(ctx, k6, shared)?;
    install_health(ctx, k6, shared)?;
    let sh = shared.clone();
    k6.set(
        "grpcConnect",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: u32,
                  addr: String,
                  params: Opt<Object<'js>>|
                  -> rquickjs::Result<bool> {
                if !vu::in_vu() {
                    return Err(throw_go(
                        &ctx,
                        "connecting to a gRPC server in the init context is not supported",
                    ));
                }
                let p = connect_params(&ctx, params.0.as_ref())?;
                let tls = if p.plaintext {
                    None
                } else {
                    Some(tls_config(&sh.http.tls, p.tls.as_ref()).map_err(|e| throw_go(&ctx, &e))?)
                };
                let conn = wait_on(
                    &ctx,
                    "connecting to a gRPC server",
                    call::connect(
                        addr,
                        tls,
                        p.timeout,
                        call::Dialing {
                            hosts: sh.http.hosts.clone(),
                            blocklist: sh.http.blocklist.clone(),
                        },
                    ),
                )?;
                let mut conn = conn.map_err(|e| throw_go(&ctx, &e))?;
                if let Some(n) = p.max_send.filter(|n| *n > 0) {
                    conn.max_send = n;
                }
                if let Some(n) = p.max_receive.filter(|n| *n > 0) {
                    conn.max_receive = n;
                }
                if let Some(ua) = sh
                    .http
                    .request
                    .user_agent
                    .as_deref()
                    .filter(|u| !u.is_empty())
                {
                    conn.user_agent = ua.to_string();
                }
                let vu_id = vu::current();
                if p.reflect {
                    let pool = wait_on(
                        &ctx,
                        "connecting to a gRPC server",
                        reflect::resolve(conn.clone(), p.reflect_metadata),
                    )?;
                    let pool = pool.map_err(|e| throw_go(&ctx, &e))?;
                    with_client(id, |c| c.pools.push(pool));
                }
                // The connection's bytes so far (TLS, HTTP/2's preface and
                // settings, reflection).
                let (sent, received) = conn.bytes();
                network(&sh, vu_id, sent, received);
                with_client(id, |c| c.conn = Some(conn));
                Ok(true)
            },
        )?,
    )?;
    let sh = shared.clone();
    k6.set(
        "grpcInvoke",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: u32,
                  method: String,
                  request: String,
                  params: Opt<Object<'js>>| {
                invoke(&ctx, &sh, id, &method, &request, params.0.as_ref())
            },
        )?,
    )?;
    stream_api::install(ctx, k6, shared)?;
    k6.set(
        "grpcClose",
        Function::new(ctx.clone(), |id: u32| {
            with_client(id, |c| c.conn = None);
        })?,
    )?;
    Ok(())
}

/// `healthCheck`: `grpc.health.v1.Health/Check`, a `grpc_req_duration`
/// sample as k6's (the VU's tags and `status`).
fn install_health<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    let sh = shared.clone();
    k6.set(
        "grpcHealth",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, id: u32, service: String| -> rquickjs::Result<u32> {
                let (_, conn) = vu_conn(
                    &ctx,
                    id,
                    "health checks in the init context are not supported",
                    "",
                )?;
                let started = std::time::Instant::now();
                let (status, code) =
                    wait_on(&ctx, "gRPC health checks", health_check(conn, service))?;
                // A sample as k6's: the VU's tags and the status only.
                let vu_id = vu::current();
                let mut tags = sh.vu_tags(vu_id);
                if sh.sys.has(SystemTags::STATUS) {
                    tags.push(("status".into(), code.to_string()));
                }
                sh.add_vu_named(
                    vu_id,
                    "grpc_req_duration",
                    started.elapsed().as_secs_f64() * 1e3,
                    tags,
                );
                status.map_err(|e| throw_go(&ctx, &e))
            },
        )?,
    )?;
    Ok(())
}

/// `load` and `loadProtoset`: the definitions a client calls by, read at
/// init.
fn install_loading<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    let sh = shared.clone();
    k6.set(
        "grpcLoad",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: u32,
                  paths: Vec<String>,
                  files: Vec<String>|
                  -> rquickjs::Result<Value<'js>> {
                if vu::in_vu() {
                    return Err(throw_go(&ctx, "load must be called in the init context"));
                }
                let pool =
                    proto::load(&sh.script_dir, &paths, &files).map_err(|e| throw_go(&ctx, &e))?;
                let infos = serde_json::Value::Array(proto::method_infos(&pool));
                with_client(id, |c| c.pools.push(pool));
                ctx.json_parse(infos.to_string())
            },
        )?,
    )?;
    let sh = shared.clone();
    k6.set(
        "grpcLoadProtoset",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, id: u32, file: String| -> rquickjs::Result<Value<'js>> {
                if vu::in_vu() {
                    return Err(throw_go(
                        &ctx,
                        "loadProtoset must be called in the init context",
                    ));
                }
                let pool =
                    proto::load_protoset(&sh.script_dir, &file).map_err(|e| throw_go(&ctx, &e))?;
                let infos = serde_json::Value::Array(proto::method_infos(&pool));
                with_client(id, |c| c.pools.push(pool));
                ctx.json_parse(infos.to_string())
            },
        )?,
    )?;
    Ok(())
}

/// `connect`'s params: `plaintext` (false: TLS), `timeout` (60s),
/// `reflect`, `reflectMetadata` and `tls`.
#[derive(Default)]
struct ConnectParams {
    plaintext: bool,
    timeout: Duration,
    reflect: bool,
    reflect_metadata: Vec<(String, String)>,
    tls: Option<ConnectTls>,
    max_receive: Option<usize>,
    max_send: Option<usize>,
}

/// connect's `tls`: CAs to trust and a client certificate, PEM texts.
#[derive(Default)]
struct ConnectTls {
    cacerts: Vec<String>,
    cert: Option<(String, String)>,
}

/// connect's `tls` param, checked as k6 checks it (its words).
fn connect_tls(v: &Value<'_>) -> Result<ConnectTls, String> {
    let shown = || format!("'{}'", go_quoted(v));
    let Some(o) = v.as_object().filter(|_| !v.is_array()) else {
        return Err(format!(
            "invalid tls value: {}, expected (optional) keys: cert, key, password, and cacerts",
            shown()
        ));
    };
    let text = |key: &str, what: &str| -> Result<Option<String>, String> {
        let x: Value = o.get(key).map_err(|e| e.to_string())?;
        if x.is_undefined() {
            return Ok(None);
        }
        x.as_string()
            .and_then(|s| s.to_string().ok())
            .map(Some)
            .ok_or_else(|| format!("invalid tls {key} value: '{}', {what}", value_text(&x)))
    };
    let cert = text("cert", "it needs to be a PEM formatted string")?;
    let mut key = text("key", "it needs to be a PEM formatted string")?;
    // As k6: a key encrypted the legacy PEM way, with its password.
    if let Some(p) = text("password", "it needs to be a string")?.filter(|p| !p.is_empty()) {
        key = Some(crate::config::pem_key::decrypt(
            key.as_deref().unwrap_or(""),
            &p,
        )?);
    }
    let cas: Value = o.get("cacerts").map_err(|e| e.to_string())?;
    let bad_cas = || {
        format!(
            "invalid tls cacerts value: '{}', it needs to be a string or an array of PEM formatted strings",
            value_text(&cas)
        )
    };
    let mut cacerts = Vec::new();
    if let Some(a) = cas.as_array() {
        for x in a.iter::<Value>() {
            let x = x.map_err(|e| e.to_string())?;
            cacerts.push(
                x.as_string()
                    .and_then(|s| s.to_string().ok())
                    .ok_or_else(bad_cas)?,
            );
        }
    } else if let Some(s) = cas.as_string() {
        cacerts.push(s.to_string().map_err(|e| e.to_string())?);
    } else if !cas.is_undefined() {
        return Err(bad_cas());
    }
    Ok(ConnectTls {
        cacerts,
        cert: cert.zip(key),
    })
}

fn connect_params<'js>(ctx: &Ctx<'js>, p: Option<&Object<'js>>) -> rquickjs::Result<ConnectParams> {
    let mut out = ConnectParams {
        timeout: Duration::from_secs(60),
        ..Default::default()
    };
    let Some(p) = p else {
        return Ok(out);
    };
    for key in p.keys::<String>() {
        let key = key?;
        let v: Value = p.get(&key)?;
        match key.as_str() {
            "plaintext" => out.plaintext = crate::modules::common::truthy(&v),
            "timeout" => {
                out.timeout = crate::modules::common::js_duration(&v).ok_or_else(|| {
                    throw_go(ctx, &format!("invalid GRPC's client.connect() parameters: invalid timeout value: time: invalid duration {:?}", value_text(&v)))
                })?;
            }
            "reflect" => out.reflect = crate::modules::common::truthy(&v),
            "reflectMetadata" => {
                for (k, val) in crate::modules::common::js_pairs(Some(&v)) {
                    out.reflect_metadata.push((k.to_ascii_lowercase(), val));
                }
            }
            "maxReceiveSize" | "maxSendSize" => {
                let n = v
                    .as_number()
                    .filter(|n| n.fract() == 0.0 && *n >= 0.0)
                    .ok_or_else(|| {
                        throw_go(
                            ctx,
                            &format!(
                                "invalid grpc.connect() parameters: invalid {key} value: '{}', it needs to be an integer",
                                go_quoted(&v)
                            ),
                        )
                    })?;
                if key == "maxReceiveSize" {
                    out.max_receive = Some(n as usize);
                } else {
                    out.max_send = Some(n as usize);
                }
            }
            "tls" => {
                out.tls = Some(connect_tls(&v).map_err(|e| {
                    throw_go(ctx, &format!("invalid grpc.connect() parameters: {e}"))
                })?);
            }
            other => {
                return Err(throw_go(
                    ctx,
                    &format!("invalid grpc.connect() parameters: unknown connect param: {other:?}"),
                ));
            }
        }
    }
    Ok(out)
}

/// A param's value as Go's `%#v` shows it: a string quoted.
fn go_quoted(v: &Value<'_>) -> String {
    match v.as_string() {
        Some(_) => format!("{:?}", value_text(v)),
        None => value_text(v),
    }
}

/// A param's value as the script wrote it, for an error.
fn value_text(v: &Value<'_>) -> String {
    crate::modules::common::js_string(v).unwrap_or_else(|| format!("{v:?}"))
}

/// How long a unary call may take unless its params say (k6's default);
/// a stream has no limit of its own.
const INVOKE_TIMEOUT: Duration = Duration::from_secs(120);

/// `invoke`'s and a stream's params: metadata, tags, timeout.
struct CallParams {
    metadata: Vec<(String, String)>,
    tags: Tags,
    timeout: Option<Duration>,
}

fn call_params<'js>(ctx: &Ctx<'js>, p: Option<&Object<'js>>) -> rquickjs::Result<CallParams> {
    let mut out = CallParams {
        metadata: Vec::new(),
        tags: Tags::new(),
        timeout: None,
    };
    let Some(p) = p else { return Ok(out) };
    for key in p.keys::<String>() {
        let key = key?;
        let v: Value = p.get(&key)?;
        match key.as_str() {
            "metadata" => {
                for (k, val) in crate::modules::common::js_pairs(Some(&v)) {
                    out.metadata.push((k.to_ascii_lowercase(), val));
                }
            }
            "tags" => out.tags = crate::modules::common::js_pairs(Some(&v)).into(),
            "timeout" => {
                out.timeout = Some(crate::modules::common::js_duration(&v).ok_or_else(|| {
                    throw_go(ctx, &format!("invalid GRPC's client.invoke() parameters: invalid timeout value: time: invalid duration {:?}", value_text(&v)))
                })?);
            }
            "discardResponseMessage" => {}
            other => {
                return Err(throw_go(
                    ctx,
                    &format!("invalid GRPC's client.invoke() parameters: unknown param: {other:?}"),
                ));
            }
        }
    }
    Ok(out)
}

fn invoke<'js>(
    ctx: &Ctx<'js>,
    sh: &Rc<RunState>,
    id: u32,
    method: &str,
    request: &str,
    params: Option<&Object<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let (pools, conn) = vu_conn(
        ctx,
        id,
        "invoking RPC methods in the init context is not supported",
        "",
    )?;
    let (desc, path) = proto::method(&pools, method).map_err(|e| throw_go(ctx, &e))?;
    let msg = proto::encode(&desc, request).map_err(|e| throw_go(ctx, &e))?;
    let p = call_params(ctx, params)?;
    let addr = conn.addr.clone();
    let started = std::time::Instant::now();
    let (answer, (sent, received)) = wait_on(
        ctx,
        "invoking RPC methods",
        call::unary(
            conn,
            path.clone(),
            msg,
            p.metadata,
            Some(p.timeout.unwrap_or(INVOKE_TIMEOUT)),
        ),
    )?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    let vu_id = vu::current();
    let mut tags = call_tags(sh, vu_id, &addr, &path, &p.tags);
    if sh.sys.has(SystemTags::STATUS) {
        tags.push(("status".into(), answer.status.to_string()));
    }
    sh.add_vu_named(vu_id, "grpc_req_duration", ms, tags);
    network(sh, vu_id, sent, received);
    response(ctx, &desc, &answer)
}

/// A call's tags as k6 sets them: the VU's, `url` (address and path),
/// `service`, `method`, the call's own, then `name` (the path) unless
/// those set one.
fn call_tags(sh: &RunState, vu_id: usize, addr: &str, path: &str, own: &Tags) -> Tags {
    let mut tags = sh.vu_tags(vu_id);
    let sys = sh.sys;
    let (service, name) = path[1..].rsplit_once('/').unwrap_or(("", ""));
    if sys.has(SystemTags::URL) {
        tags.push(("url".into(), format!("{addr}{path}")));
    }
    if sys.has(SystemTags::SERVICE) {
        tags.push(("service".into(), service.to_string()));
    }
    if sys.has(SystemTags::METHOD) {
        tags.push(("method".into(), name.to_string()));
    }
    for (k, v) in own {
        tags.retain(|(n, _)| n != k);
        tags.push((k.clone(), v.clone()));
    }
    if sys.has(SystemTags::NAME) && !tags.iter().any(|(k, _)| k == "name") {
        tags.push(("name".into(), path.to_string()));
    }
    tags
}

/// `grpc.health.v1.Health/Check` of `service` ("" for the server): its
/// serving status (0 unknown, 1 serving, 2 not serving, 3 service
/// unknown), or gRPC's words for a call that failed; and the call's
/// status code.
async fn health_check(conn: call::Conn, service: String) -> (Result<u32, String>, u32) {
    let mut msg = Vec::new();
    if !service.is_empty() {
        prost::encoding::string::encode(1, &service, &mut msg);
    }
    let path = "/grpc.health.v1.Health/Check".to_string();
    let (a, _) = call::unary(conn, path, msg, Vec::new(), Some(INVOKE_TIMEOUT)).await;
    if a.status != 0 {
        let why = format!(
            "rpc error: code = {} desc = {}",
            call::code_name(a.status),
            a.message
        );
        return (Err(why), a.status);
    }
    // HealthCheckResponse: status (1), a varint.
    let body = a.body.unwrap_or_default();
    let mut buf = body.as_slice();
    while !buf.is_empty() {
        let Ok(key) = prost::encoding::decode_varint(&mut buf) else {
            break;
        };
        let Ok(v) = prost::encoding::decode_varint(&mut buf) else {
            break;
        };
        if key == 0x08 {
            return (Ok(v as u32), 0);
        }
    }
    (Ok(0), 0)
}

/// k6's response object: `status`, `message`, `headers`, `trailers`, and
/// `error` (`{code, message, details}`) for a status other than OK.
fn response<'js>(
    ctx: &Ctx<'js>,
    desc: &prost_reflect::MethodDescriptor,
    a: &call::Answer,
) -> rquickjs::Result<Value<'js>> {
    use serde_json::{Map, Value as J, json};
    let group = |fields: &[(String, String)]| {
        let mut m: Map<String, J> = Map::new();
        for (k, v) in fields {
            let e = m.entry(k.clone()).or_insert_with(|| J::Array(Vec::new()));
            if let J::Array(a) = e {
                a.push(J::String(v.clone()));
            }
        }
        J::Object(m)
    };
    let message =
        proto::decode(desc, a.body.as_deref().unwrap_or(&[])).map_err(|e| throw_go(ctx, &e))?;
    let mut out = json!({
        "status": a.status,
        "message": message,
        "headers": group(&a.headers),
        "trailers": group(&a.trailers),
    });
    if a.status != 0 {
        out["error"] = json!({ "code": a.status, "message": a.message, "details": [] });
    }
    ctx.json_parse(out.to_string())
}
