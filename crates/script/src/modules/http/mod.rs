//! `k6/http`: requests (`request.rs`), cookie jars (`cookies.rs`), the
//! response class (`response.rs`) and `--http-debug` (`debug.rs`).

use std::cell::Cell;
use std::rc::Rc;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};

use super::common::{js_string, throw, throw_go, wait};
use crate::log::Level;
use crate::sched::Shared;
use crate::vu::{self, Op, Resume};

pub(crate) mod cookies;
pub(crate) mod debug;
pub(crate) mod request;
pub(crate) mod response;

use cookies::{AllJars, add_cookies, install_jars, redirect_jar, store_cookies};
use request::{BuildError, Expect, build_request, params_throw, record_unsent, rps_wait};
use response::{response_object, unsent_response};

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
    shared: &Rc<Shared>,
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

pub(crate) fn install_requests<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<Shared>,
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
                    let vu = vu::current();
                    let body = body.unwrap_or_else(|| Value::new_null(ctx.clone()));
                    let expect = sh.vu_expect(vu);
                    let built =
                        build_request(ctx, method, url, &body, params, &sh.http, expect.clone());
                    let (mut req, meta) = match built {
                        Ok(b) => b,
                        Err(BuildError::Js(e)) => return Err(e),
                        // As k6: logged, and a failed response (thrown
                        // with `throw`); nothing sent, and samples only for
                        // what k6 counts (`sampled`).
                        Err(BuildError::Request {
                            text,
                            warning,
                            code,
                            sampled,
                        }) => {
                            let url = js_string(url).unwrap_or_default();
                            if sampled {
                                let error = (text.clone(), code);
                                record_unsent(&sh, vu, method, &url, params, expect, error);
                            }
                            // A request k6 could not even build throws by
                            // `options.throw` alone; one its transport
                            // refused, by `params.throw` first (k6 v1.8.1).
                            let throws = if sampled { params_throw(params) } else { None };
                            if throws.unwrap_or(sh.http.request.throw) {
                                return Err(throw_go(ctx, &warning));
                            }
                            sh.log(Level::Warning, "Request Failed", &[("error", &warning)]);
                            return unsent_response(ctx, method, url, text, code);
                        }
                    };
                    let iteration = sh.vu_numbers(vu).1;
                    req.redirect_cookies = redirect_jar(&jr, vu, iteration, &meta);
                    add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
                    rps_wait(ctx, &sh, 1)?;
                    let resp = match wait(ctx, Op::Http(vec![req]), "making HTTP requests")? {
                        Resume::Http(mut r) if r.len() == 1 => r.pop().expect("one response"),
                        _ => return Err(throw(ctx, "internal error: no response")),
                    };
                    store_cookies(jr.borrow_mut().of(vu), iteration, &meta, &resp);
                    sh.record_http(vu, &meta, &resp);
                    if meta.throws
                        && let Some(text) =
                            crate::sched::failure_text(&meta, &resp, &sh.http.blocklist)
                    {
                        // `options.throw`: the failure is the script's exception.
                        return Err(throw_go(ctx, &text));
                    }
                    response_object(ctx, &meta, resp)
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
                    let vu = vu::current();
                    let mut reqs = Vec::new();
                    let mut metas = Vec::new();
                    // The requests that could not be made but count as
                    // failed ones (k6 goes on with the others): their
                    // place in the batch, and their response's fields.
                    let mut unsent = Vec::new();
                    for (at, r) in list.iter().enumerate() {
                        let null = Value::new_null(ctx.clone());
                        let method = r
                            .first()
                            .and_then(js_string)
                            .unwrap_or_else(|| "GET".into());
                        let url = r.get(1).cloned().unwrap_or_else(|| null.clone());
                        let body = r.get(2).cloned().unwrap_or_else(|| null.clone());
                        let expect = sh.vu_expect(vu);
                        let built = build_request(
                            &ctx,
                            &method,
                            &url,
                            &body,
                            r.get(3),
                            &sh.http,
                            expect.clone(),
                        );
                        let (mut req, meta) = match built {
                            Ok(b) => b,
                            Err(BuildError::Js(e)) => return Err(e),
                            Err(BuildError::Request {
                                text,
                                warning,
                                code,
                                sampled: true,
                            }) => {
                                let url = js_string(&url).unwrap_or_default();
                                let error = (text.clone(), code);
                                record_unsent(&sh, vu, &method, &url, r.get(3), expect, error);
                                // (`options.throw` only in a batch: k6
                                // leaves a request's `params.throw` out.)
                                if sh.http.request.throw {
                                    return Err(throw_go(&ctx, &warning));
                                }
                                sh.log(Level::Warning, "Request Failed", &[("error", &warning)]);
                                unsent.push((at, method, url, text, code));
                                continue;
                            }
                            // Else, as in k6, the whole batch fails: none
                            // of it is sent; this request's failed
                            // response, `null` for the others (a GoError
                            // with `throw`).
                            Err(BuildError::Request { text, code, .. }) => {
                                if sh.http.request.throw {
                                    return Err(throw_go(&ctx, &text));
                                }
                                sh.log(
                                    Level::Warning,
                                    "A batch request failed",
                                    &[("error", &text)],
                                );
                                let url = js_string(&url).unwrap_or_default();
                                let mut out = Vec::with_capacity(list.len());
                                for j in 0..list.len() {
                                    out.push(if j == at {
                                        unsent_response(
                                            &ctx,
                                            &method,
                                            url.clone(),
                                            text.clone(),
                                            code,
                                        )?
                                    } else {
                                        Value::new_null(ctx.clone())
                                    });
                                }
                                return Ok(out);
                            }
                        };
                        let iteration = sh.vu_numbers(vu).1;
                        req.redirect_cookies = redirect_jar(&jr, vu, iteration, &meta);
                        add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
                        reqs.push(req);
                        metas.push(meta);
                    }
                    let resps = if reqs.is_empty() {
                        Vec::new()
                    } else {
                        rps_wait(&ctx, &sh, reqs.len())?;
                        match wait(&ctx, Op::Http(reqs), "making HTTP requests")? {
                            Resume::Http(r) => r,
                            _ => return Err(throw(&ctx, "internal error: no response")),
                        }
                    };
                    let mut out = Vec::new();
                    let iteration = sh.vu_numbers(vu).1;
                    let mut failed = None;
                    let mut unsent = unsent.into_iter().peekable();
                    for (meta, resp) in metas.iter().zip(resps) {
                        while let Some((_, m, u, t, c)) = unsent.next_if(|x| x.0 == out.len()) {
                            out.push(unsent_response(&ctx, &m, u, t, c)?);
                        }
                        store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
                        sh.record_http(vu, meta, &resp);
                        if failed.is_none() && meta.throws {
                            failed = crate::sched::failure_text(meta, &resp, &sh.http.blocklist);
                        }
                        out.push(response_object(&ctx, meta, resp)?);
                    }
                    for (_, m, u, t, c) in unsent {
                        out.push(unsent_response(&ctx, &m, u, t, c)?);
                    }
                    if let Some(text) = failed {
                        return Err(throw_go(&ctx, &text));
                    }
                    Ok(out)
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
