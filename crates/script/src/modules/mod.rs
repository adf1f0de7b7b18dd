//! The k6 modules a script may import, one Rust module each, as k6 cuts
//! them: each holds its JavaScript (a `.js` file beside it), the natives
//! that JavaScript calls (on a hidden `__k6` object), and its export list,
//! which the import checker ([`imports`]) reads.
//!
//! ```text
//! modules/
//!   mod.rs          the list of modules, `install`
//!   common.rs       helpers the natives share (values, exceptions, waits)
//!   counted.rs      a connection counting its bytes (data_sent/received)
//!   imports.rs      the check of a script's imports against export lists
//!   globals/        __ENV, __VU, __ITER, console, open(), __k6's helpers
//!   k6/             k6: check, group, sleep, fail
//!   http/           k6/http: requests, cookies, responses, --http-debug
//!   metrics/        k6/metrics
//!   execution/      k6/execution
//!   data/           k6/data
//!   encoding/       k6/encoding
//!   crypto/         k6/crypto (and x509/: k6/crypto/x509)
//!   html/           k6/html
//!   timers/         k6/timers, and the event loop of async work
//!   ws/             k6/ws
//!   grpc/           k6/net/grpc (unary calls and streams)
//!   websockets/     k6/websockets (k6's experimental module)
//!   secrets/        k6/secrets, and --secret-source
//!   redis/          k6/x/redis (and k6/experimental/redis): a Redis client
//!   fs/             k6/experimental/fs and k6/experimental/csv
//!   streams/        k6/experimental/streams (ReadableStream, in JavaScript)
//!   jslib/          jslib.k6.io's k6-utils, k6-summary, url, formdata, papaparse,
//!                   httpx, k6chaijs, expect
//! ```
//!
//! JavaScript files named `*.fn.js` are expressions (a function the
//! natives' installer calls, or a library compiled on first use); the
//! others are ES modules. A test parses every one.

use std::rc::Rc;

use rquickjs::{Ctx, Object};

use crate::state::run_state::RunState;

pub(crate) mod common;
pub(crate) mod counted;
pub(crate) mod crypto;
pub(crate) mod data;
pub(crate) mod encoding;
pub(crate) mod execution;
pub(crate) mod fs;
pub(crate) mod globals;
pub(crate) mod grpc;
pub(crate) mod html;
pub(crate) mod http;
pub(crate) mod imports;
pub(crate) mod jslib;
pub(crate) mod k6;
pub(crate) mod metrics;
pub(crate) mod redis;
pub(crate) mod secrets;
pub(crate) mod streams;
pub(crate) mod timers;
pub(crate) mod websockets;
pub(crate) mod ws;

pub use jslib::JSLIB;

/// A module a script may import.
pub(crate) struct Module {
    /// The name a script imports (`k6/http`).
    pub name: &'static str,
    /// Its JavaScript (an ES module).
    pub js: &'static str,
    /// What its default export has (or, with none, its named exports):
    /// the only list of them, which the import checker reads; `None`
    /// for a module whose imports are not checked.
    pub exports: Option<&'static [&'static str]>,
}

/// The modules a script may import; any other `k6/...` name is refused at
/// init, naming it.
pub(crate) const ALL: [Module; 28] = [
    k6::MODULE,
    http::MODULE,
    metrics::MODULE,
    execution::MODULE,
    data::MODULE,
    encoding::MODULE,
    crypto::MODULE,
    crypto::x509::MODULE,
    html::MODULE,
    timers::MODULE,
    ws::MODULE,
    grpc::MODULE,
    websockets::MODULE,
    jslib::K6_UTILS_MODULE,
    jslib::K6_SUMMARY_MODULE,
    jslib::URL_MODULE,
    jslib::FORMDATA_MODULE,
    jslib::PAPAPARSE_MODULE,
    jslib::HTTPX_MODULE,
    secrets::MODULE,
    fs::FS,
    fs::CSV,
    websockets::EXPERIMENTAL,
    redis::MODULE,
    redis::EXPERIMENTAL,
    streams::MODULE,
    jslib::K6CHAIJS_MODULE,
    jslib::EXPECT_MODULE,
];

/// [`ALL`]'s names and JavaScript.
const NAMED: [(&str, &str); ALL.len()] = {
    let mut out = [("", ""); ALL.len()];
    let mut i = 0;
    while i < ALL.len() {
        out[i] = (ALL[i].name, ALL[i].js);
        i += 1;
    }
    out
};

/// The modules' names and JavaScript, as the loader looks them up.
pub const MODULES: &[(&str, &str)] = &NAMED;

/// Installs `__k6`, `__ENV`, `__VU`, `__ITER`, `open` and `console` in
/// the run's context, once: every VU's code runs in it, and the native
/// functions act for the VU that calls them ([`crate::js::vu::current`]).
///
/// `__VU` and `__ITER` are read from the calling VU's numbers, `__ENV` is
/// the calling VU's own object.
pub fn install<'js>(
    ctx: &Ctx<'js>,
    shared: &Rc<RunState>,
    scenario_env: &[Vec<(String, String)>],
) -> rquickjs::Result<()> {
    let g = ctx.globals();
    let k6 = Object::new(ctx.clone())?;
    let http = Object::new(ctx.clone())?;
    globals::install(ctx, &k6, shared, scenario_env)?;
    timers::install(ctx, &k6, shared)?;
    html::install(ctx, &k6)?;
    crypto::install(ctx, &k6)?;
    crypto::x509::install(ctx, &k6)?;
    data::install(ctx, &k6)?;
    encoding::install(ctx, &k6)?;
    jslib::install(ctx, &k6)?;
    globals::install_open(ctx, shared)?;
    k6::install(ctx, &k6, shared)?;
    let jars = http::install(ctx, &k6, shared)?;
    metrics::install(ctx, &k6, shared)?;
    execution::install(ctx, &k6, shared)?;
    secrets::install(ctx, &k6, shared)?;
    grpc::install(ctx, &k6, shared)?;
    redis::install(ctx, &k6, shared)?;
    {
        // `warnOnce(msg)`: a warning line, the first time in the process
        // only (as k6 warns when it first resolves a module: the options
        // probe's context and the run's evaluate the module each).
        static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
        let st = shared.clone();
        k6.set(
            "warnOnce",
            rquickjs::Function::new(ctx.clone(), move |msg: String| {
                let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
                if !seen.contains(&msg) {
                    seen.push(msg.clone());
                    drop(seen);
                    st.log(crate::log::Level::Warning, &msg, &[]);
                }
            })?,
        )?;
    }
    fs::install(ctx, &k6, shared)?;
    ws::install(ctx, &k6, shared, &jars)?;
    k6.set("http", http)?;
    g.set("__k6", k6)?;
    Ok(())
}

#[cfg(test)]
mod tests;
