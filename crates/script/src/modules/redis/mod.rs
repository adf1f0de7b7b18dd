//! `k6/experimental/redis` (k6 v1's deprecated name, with its warning)
//! and `k6/x/redis`: a Redis client whose commands return promises. The
//! JavaScript (`redis.js`) shapes arguments and answers as k6's client
//! does; the natives here read the options, open a client's connection
//! on its first command (never in the init context, as k6) and send
//! commands (`conn.rs`). A connection's bytes go to `data_sent` and
//! `data_received`, as k6's dialer counts them.
//!
//! Shared state: the clients of the run's VUs, by id, on the run's thread
//! (`CLIENTS`); a connection lives until the end of the run.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Duration;

use rquickjs::{Ctx, Function, Object, Value};

use crate::js::vu;
use crate::modules::common::{throw, throw_go, wait_on};
use crate::modules::counted::add_bytes;
use crate::state::run_state::RunState;

mod conn;
mod options;

pub(crate) const NAME: &str = "k6/x/redis";

/// What the module exports.
pub(crate) const EXPORTS: &[&str] = &["Client"];

pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: include_str!("redis.js"),
    exports: Some(EXPORTS),
};

/// k6 v1's name for the module, deprecated with this warning.
pub(crate) const EXPERIMENTAL: super::Module = super::Module {
    name: "k6/experimental/redis",
    js: "globalThis.__k6.warnOnce(\"k6/experimental/redis has been deprecated and will be removed in future versions. Please migrate to the new version by changing your import to 'k6/x/redis'. Read more here: https://grafana.com/docs/k6/latest/javascript-api/k6-x-redis\");\n\
         export * from 'k6/x/redis';\nexport { default } from 'k6/x/redis';\n",
    exports: Some(EXPORTS),
};

struct ClientState {
    target: conn::Target,
    conn: Option<conn::Conn>,
    /// The connection's bytes already in `data_sent`/`data_received`.
    counted: (u64, u64),
}

thread_local! {
    static CLIENTS: RefCell<HashMap<u32, ClientState>> = RefCell::new(HashMap::new());
    static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    k6.set(
        "redisNew",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, opts: Value<'js>, is_object: bool| -> rquickjs::Result<u32> {
                let text = opts.as_string().and_then(|s| s.to_string().ok());
                let target = match text {
                    Some(t) if is_object => options::from_object(&t),
                    Some(url) => options::from_url(&url),
                    None => Err(format!(
                        "invalid options type: {}; expected string or object",
                        options::go_type(&opts)
                    )),
                }
                .map_err(|e| throw_go(&ctx, &e))?;
                let id = NEXT.with(|n| {
                    let id = n.get();
                    n.set(id + 1);
                    id
                });
                CLIENTS.with(|c| {
                    c.borrow_mut().insert(
                        id,
                        ClientState {
                            target,
                            conn: None,
                            counted: (0, 0),
                        },
                    )
                });
                Ok(id)
            },
        )?,
    )?;
    let sh = shared.clone();
    k6.set(
        "redisDo",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, id: u32, args: Vec<Value<'js>>| -> rquickjs::Result<Value<'js>> {
                run_command(&ctx, &sh, id, &args)
            },
        )?,
    )?;
    Ok(())
}

/// Sends one command of client `id` (connecting first if it has no
/// connection) and gives its answer: `undefined` for a nil answer, an
/// error thrown with the server's or the network's words.
fn run_command<'js>(
    ctx: &Ctx<'js>,
    sh: &RunState,
    id: u32,
    args: &[Value<'js>],
) -> rquickjs::Result<Value<'js>> {
    if !vu::in_vu() {
        return Err(throw(
            ctx,
            "connecting to a redis server in the init context is not supported",
        ));
    }
    let words = args.iter().map(arg_bytes).collect::<Vec<_>>();
    // A broken connection (the server closed it) is dialled again and the
    // command sent once more, as k6's client retries it.
    let mut tries = 0;
    loop {
        tries += 1;
        let conn = client_conn(ctx, sh, id)?;
        let mut sent_conn = conn.clone();
        let sent = words.clone();
        let answer = wait_on(ctx, "a redis command", async move {
            conn::command(&mut sent_conn, sent).await
        })?;
        count_bytes(sh, id, &conn);
        match answer {
            Ok(v) => return to_js(ctx, v, true),
            Err(conn::Failed::Server(e)) => return Err(throw(ctx, &e)),
            Err(conn::Failed::Network(e)) => {
                CLIENTS.with(|cs| {
                    if let Some(s) = cs.borrow_mut().get_mut(&id) {
                        s.conn = None;
                        s.counted = (0, 0);
                    }
                });
                if tries > 1 {
                    return Err(throw(ctx, &e));
                }
            }
        }
    }
}

/// Client `id`'s connection, dialled when it has none.
fn client_conn(ctx: &Ctx<'_>, sh: &RunState, id: u32) -> rquickjs::Result<conn::Conn> {
    let (target, conn) = CLIENTS
        .with(|c| {
            c.borrow()
                .get(&id)
                .map(|s| (s.target.clone(), s.conn.clone()))
        })
        .ok_or_else(|| throw(ctx, "not a redis client"))?;
    if let Some(c) = conn {
        return Ok(c);
    }
    let tls = match &target.tls {
        Some(t) => Some(tls_config(sh, t).map_err(|e| throw(ctx, &e))?),
        None => None,
    };
    let c =
        wait_on(ctx, "a redis command", conn::connect(target, tls))?.map_err(|e| throw(ctx, &e))?;
    CLIENTS.with(|cs| {
        if let Some(s) = cs.borrow_mut().get_mut(&id) {
            s.conn = Some(c.clone());
        }
    });
    Ok(c)
}

/// A TLS connection's configuration: the options' TLS (as k6 merges the
/// VU's `insecureSkipTLSVerify`, versions and suites in), with the
/// client's CAs and certificate.
fn tls_config(
    sh: &RunState,
    t: &conn::Tls,
) -> Result<std::sync::Arc<rustls::ClientConfig>, String> {
    let mut opts = sh.http.tls.clone();
    opts.root_pems = t.ca.clone();
    if let Some(c) = &t.cert {
        opts.client_pems = vec![c.clone()];
    }
    crate::modules::common::client_tls(&opts, false)
}

/// The bytes client `id`'s connection carried since last counted.
fn count_bytes(sh: &RunState, id: u32, conn: &conn::Conn) {
    let (sent, received) = conn.bytes();
    let before = CLIENTS.with(|c| {
        c.borrow_mut()
            .get_mut(&id)
            .map(|s| std::mem::replace(&mut s.counted, (sent, received)))
    });
    if let Some((s0, r0)) = before {
        add_bytes(
            sh,
            vu::current(),
            sent.saturating_sub(s0),
            received.saturating_sub(r0),
        );
    }
}

/// An argument as k6's client writes it: a string's bytes, a boolean as
/// `1`/`0`, an integer in full, another number in Go's shortest
/// decimal form (no exponent).
fn arg_bytes(v: &Value<'_>) -> Vec<u8> {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default().into_bytes();
    }
    if let Some(b) = v.as_bool() {
        return if b { b"1".to_vec() } else { b"0".to_vec() };
    }
    if let Some(n) = v.as_number() {
        if n.fract() == 0.0 && n.abs() < 9.2e18 {
            return format!("{}", n as i64).into_bytes();
        }
        return format!("{n}").into_bytes();
    }
    Vec::new()
}

/// An answer as JavaScript: integers as numbers, strings (bulk or
/// simple) as strings, arrays as arrays; nil is `undefined` at the top
/// (the caller rejects or keeps it) and `null` inside an array.
fn to_js<'js>(ctx: &Ctx<'js>, v: redis::Value, top: bool) -> rquickjs::Result<Value<'js>> {
    use redis::Value as R;
    let text = |s: String| rquickjs::String::from_str(ctx.clone(), &s).map(Value::from);
    match v {
        R::Nil if top => Ok(Value::new_undefined(ctx.clone())),
        R::Nil => Ok(Value::new_null(ctx.clone())),
        R::Int(i) => Ok(Value::new_number(ctx.clone(), i as f64)),
        R::BulkString(b) => text(String::from_utf8_lossy(&b).into_owned()),
        R::SimpleString(s) => text(s),
        R::Okay => text("OK".into()),
        R::Double(d) => Ok(Value::new_number(ctx.clone(), d)),
        R::Boolean(b) => Ok(Value::new_bool(ctx.clone(), b)),
        R::Array(items) | R::Set(items) => {
            let a = rquickjs::Array::new(ctx.clone())?;
            for (i, item) in items.into_iter().enumerate() {
                a.set(i, to_js(ctx, item, false)?)?;
            }
            Ok(a.into_value())
        }
        other => text(format!("{other:?}")),
    }
}

/// How long k6's client waits by default.
const DIAL_TIMEOUT: Duration = Duration::from_secs(5);
const READ_TIMEOUT: Duration = Duration::from_secs(3);
