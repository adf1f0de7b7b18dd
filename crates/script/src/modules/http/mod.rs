//! `k6/http`: requests (`request.rs`, sent by `send.rs`; digest
//! authentication's second try in `digest.rs`), cookie jars (`cookies.rs`), the
//! response class (`response.rs`); `--http-debug` is `crate::state::http_debug`.

use std::cell::Cell;
use std::rc::Rc;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};

use super::common::throw_go;
use crate::js::vu;
use crate::state::run_state::RunState;

mod challenge;
pub(crate) mod cookies;
mod digest;
mod ntlm;
pub(crate) mod request;
pub(crate) mod response;
mod send;
mod userinfo;

use crate::state::request::Expect;
use cookies::{AllJars, install_jars};

pub(crate) const NAME: &str = "k6/http";

pub(crate) const HTTP_JS: &str = include_str!("http.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &[
    "request",
    "get",
    "head",
    "post",
    "put",
    "patch",
    "del",
    "options",
    "batch",
    "url",
    "Response",
    "CookieJar",
    "cookieJar",
    "expectedStatuses",
    "setResponseCallback",
    "file",
    "asyncRequest",
    "TLS_1_0",
    "TLS_1_1",
    "TLS_1_2",
    "TLS_1_3",
    "OCSP_STATUS_GOOD",
    "OCSP_STATUS_REVOKED",
    "OCSP_STATUS_SERVER_FAILED",
    "OCSP_STATUS_UNKNOWN",
    "OCSP_REASON_UNSPECIFIED",
    "OCSP_REASON_KEY_COMPROMISE",
    "OCSP_REASON_CA_COMPROMISE",
    "OCSP_REASON_AFFILIATION_CHANGED",
    "OCSP_REASON_SUPERSEDED",
    "OCSP_REASON_CESSATION_OF_OPERATION",
    "OCSP_REASON_CERTIFICATE_HOLD",
    "OCSP_REASON_REMOVE_FROM_CRL",
    "OCSP_REASON_PRIVILEGE_WITHDRAWN",
    "OCSP_REASON_AA_COMPROMISE",
];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: HTTP_JS,
    exports: Some(EXPORTS),
};

/// `res.json(selector)`: the common subset of gjson's paths, compiled the
/// first time a script selects (`__k6.gjson()`, kept by the http module):
/// most scripts never do.
pub(crate) const GJSON_JS: &str = include_str!("gjson.fn.js");

/// `k6/http`'s natives: the response callback, the cookie jars, the
/// requests and the response class. The jars, which `k6/ws` reads too.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<Rc<std::cell::RefCell<AllJars>>> {
    // http.setResponseCallback(cb): the calling VU's default.
    {
        let sh = shared.clone();
        k6.set(
            "setResponseCallback",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, cb: Opt<Value<'js>>| -> rquickjs::Result<()> {
                    let cb = cb.0.unwrap_or_else(|| Value::new_undefined(ctx.clone()));
                    let expect = Expect::from_js(&cb).map_err(|()| {
                        throw_go(&ctx, "unsupported argument, expected http.expectedStatuses")
                    })?;
                    sh.set_vu_expect(vu::current(), expect);
                    Ok(())
                },
            )?,
        )?;
    }
    // Cookie jars.
    let no_reset = serde_json::from_str::<serde_json::Value>(&shared.options_json)
        .ok()
        .and_then(|o| o.get("noCookiesReset").and_then(serde_json::Value::as_bool))
        .unwrap_or(false);
    let jars = Rc::new(std::cell::RefCell::new(AllJars {
        vus: Vec::new(),
        reset: !no_reset,
    }));
    install_jars(ctx, k6, shared, &jars)?;
    install_requests(ctx, k6, shared, &jars)?;
    response::install_response(ctx, k6)?;
    Ok(jars)
}

/// `http.request()`, the methods and `http.batch()` as natives, and the
/// compiler of `res.json()`'s selectors.
pub(crate) fn install_requests<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
    jars: &Rc<std::cell::RefCell<AllJars>>,
) -> rquickjs::Result<()> {
    // http.request(method, url, body, params), and the methods as natives
    // of their own, which the http module exports as they are.
    {
        let send = {
            let sh = shared.clone();
            let jr = jars.clone();
            Rc::new(
                move |ctx: &Ctx<'js>,
                      method: &str,
                      url: &Value<'js>,
                      body: Option<Value<'js>>,
                      params: Option<&Value<'js>>|
                      -> rquickjs::Result<Value<'js>> {
                    send::send(ctx, &sh, &jr, method, url, body, params)
                },
            )
        };
        let f = send.clone();
        k6.set(
            "request",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      method: String,
                      url: Value<'js>,
                      body: Opt<Value<'js>>,
                      params: Opt<Value<'js>>|
                      -> rquickjs::Result<Value<'js>> {
                    f(&ctx, &method, &url, body.0, params.0.as_ref())
                },
            )?,
        )?;
        for (name, method) in [("get", "GET"), ("head", "HEAD")] {
            let (f, sh) = (send.clone(), shared.clone());
            // Whether this method has warned: a script passing params as a
            // third argument does so on every request (no message made
            // and looked up each time).
            let warned = Cell::new(false);
            k6.set(
                name,
                Function::new(
                    ctx.clone(),
                    move |ctx: Ctx<'js>,
                          url: Value<'js>,
                          params: Opt<Value<'js>>,
                          extra: Opt<Value<'js>>|
                          -> rquickjs::Result<Value<'js>> {
                        if extra.0.as_ref().is_some_and(|v| !v.is_undefined()) && !warned.get() {
                            warned.set(true);
                            sh.warn_once(&format!(
                                "http.{name}() takes (url, params): a third argument is ignored, as in k6 \
                                 (its params, tags included, are dropped)"
                            ));
                        }
                        f(&ctx, method, &url, None, params.0.as_ref())
                    },
                )?,
            )?;
        }
        for (name, method) in [
            ("post", "POST"),
            ("put", "PUT"),
            ("patch", "PATCH"),
            ("del", "DELETE"),
            ("options", "OPTIONS"),
        ] {
            let f = send.clone();
            k6.set(
                name,
                Function::new(
                    ctx.clone(),
                    move |ctx: Ctx<'js>,
                          url: Value<'js>,
                          body: Opt<Value<'js>>,
                          params: Opt<Value<'js>>|
                          -> rquickjs::Result<Value<'js>> {
                        f(&ctx, method, &url, body.0, params.0.as_ref())
                    },
                )?,
            )?;
        }
        let sh = shared.clone();
        let jr = jars.clone();
        k6.set(
            "batch",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      list: Vec<Vec<Value<'js>>>|
                      -> rquickjs::Result<Vec<Value<'js>>> {
                    send::batch(&ctx, &sh, &jr, list)
                },
            )?,
        )?;
        // The selector function, compiled in the calling context (the
        // http module keeps it: once per VU, on first use).
        k6.set(
            "gjson",
            Function::new(
                ctx.clone(),
                |ctx: Ctx<'js>| -> rquickjs::Result<Function<'js>> { ctx.eval(GJSON_JS) },
            )?,
        )?;
    }
    Ok(())
}
