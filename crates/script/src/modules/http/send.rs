//! The natives behind `http.request()` (and the methods) and
//! `http.batch()`: a request built, its cookies added, sent on the
//! scheduler (again for each 401 its `params.auth` answers,
//! `challenge.rs`), and its response made.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use loadlab_engine::client::{ClientRequest, ClientResponse};
use rquickjs::{Ctx, Value};

use super::challenge::{Handshake, Step};
use super::cookies::{AllJars, add_cookies, redirect_jar, store_cookies};
use super::request::{BuildError, build_request, params_throw, record_unsent, rps_wait};
use super::response::{response_object, unsent_response};
use crate::js::vu::{self, Op, Resume};
use crate::log::Level;
use crate::modules::common::{js_string, throw, throw_go, wait};
use crate::state::request::{Auth, ReqMeta};
use crate::state::run_state::RunState;

/// One request, as `http.request()` and the methods make it.
pub(super) fn send<'js>(
    ctx: &Ctx<'js>,
    sh: &RunState,
    jr: &Rc<RefCell<AllJars>>,
    method: &str,
    url: &Value<'js>,
    body: Option<Value<'js>>,
    params: Option<&Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let vu = vu::current();
    let body = body.unwrap_or_else(|| Value::new_null(ctx.clone()));
    let expect = sh.vu_expect(vu);
    let built = build_request(ctx, method, url, &body, params, &sh.http, expect.clone());
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
                record_unsent(sh, vu, method, &url, params, expect, error);
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
    req.redirect_cookies = redirect_jar(jr, vu, iteration, &meta);
    add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
    rps_wait(ctx, sh, 1)?;
    let resp = if meta.auth == Auth::Basic {
        let resp = exchange(ctx, vec![req])?.pop().expect("one response");
        store_cookies(jr.borrow_mut().of(vu), iteration, &meta, &resp);
        sh.record_http(vu, &meta, &resp);
        resp
    } else {
        answered(ctx, sh, jr, (vu, iteration), &meta, req)?
    };
    if meta.throws
        && let Some(text) = crate::state::http::failure_text(&meta, &resp, &sh.http.blocklist)
    {
        // `options.throw`: the failure is the script's exception.
        return Err(throw_go(ctx, &text));
    }
    response_object(ctx, &meta, resp)
}

/// A request whose `params.auth` answers 401s (digest, NTLM): sent, and
/// again as its handshake asks, each exchange recorded; its response.
fn answered(
    ctx: &Ctx<'_>,
    sh: &RunState,
    jr: &Rc<RefCell<AllJars>>,
    (vu, iteration): (usize, u64),
    meta: &ReqMeta,
    req: ClientRequest,
) -> rquickjs::Result<ClientResponse> {
    let (mut hs, first) = Handshake::start(meta, req);
    let mut resp = exchange(ctx, vec![first])?.pop().expect("one response");
    loop {
        match hs.after(&resp, meta) {
            Step::Done => {
                store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
                sh.record_http(vu, &hs.record_final(meta), &resp);
                return Ok(resp);
            }
            Step::Again { record, next } => {
                store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
                sh.record_http(vu, &record, &resp);
                rps_wait(ctx, sh, 1)?;
                resp = exchange(ctx, vec![next])?.pop().expect("one response");
            }
            Step::Fallback { record, answer } => {
                store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
                sh.record_http(vu, &record, &resp);
                return Ok(*answer);
            }
        }
    }
}

/// `reqs` sent together, their responses in order.
fn exchange(ctx: &Ctx<'_>, reqs: Vec<ClientRequest>) -> rquickjs::Result<Vec<ClientResponse>> {
    let n = reqs.len();
    match wait(ctx, Op::Http(reqs), "making HTTP requests")? {
        Resume::Http(r) if r.len() == n => Ok(r),
        _ => Err(throw(ctx, "internal error: no response")),
    }
}

/// A batch's requests sent together, the 401s their `params.auth`
/// answers answered together, round by round (each exchange recorded but
/// the last): each request's response, and how to record it (`None`:
/// recorded already).
fn batch_exchange<'m>(
    ctx: &Ctx<'_>,
    sh: &RunState,
    jr: &Rc<RefCell<AllJars>>,
    (vu, iteration): (usize, u64),
    metas: &'m [ReqMeta],
    reqs: Vec<ClientRequest>,
) -> rquickjs::Result<Vec<(ClientResponse, Option<Cow<'m, ReqMeta>>)>> {
    if metas.iter().all(|m| m.auth == Auth::Basic) {
        let resps = exchange(ctx, reqs)?.into_iter();
        return Ok(resps
            .zip(metas)
            .map(|(r, m)| (r, Some(Cow::Borrowed(m))))
            .collect());
    }
    let (mut hss, firsts): (Vec<Handshake>, Vec<ClientRequest>) = metas
        .iter()
        .zip(reqs)
        .map(|(m, r)| Handshake::start(m, r))
        .unzip();
    let mut out: Vec<(ClientResponse, Option<Cow<'m, ReqMeta>>)> = exchange(ctx, firsts)?
        .into_iter()
        .map(|r| (r, None))
        .collect();
    let mut pending: Vec<usize> = (0..out.len()).collect();
    while !pending.is_empty() {
        let mut again = Vec::new();
        for i in pending {
            let resp = &out[i].0;
            match hss[i].after(resp, &metas[i]) {
                Step::Done => out[i].1 = Some(hss[i].record_final(&metas[i])),
                Step::Again { record, next } => {
                    store_cookies(jr.borrow_mut().of(vu), iteration, &metas[i], resp);
                    sh.record_http(vu, &record, resp);
                    again.push((i, next));
                }
                Step::Fallback { record, answer } => {
                    store_cookies(jr.borrow_mut().of(vu), iteration, &metas[i], resp);
                    sh.record_http(vu, &record, resp);
                    out[i] = (*answer, None);
                }
            }
        }
        if again.is_empty() {
            break;
        }
        rps_wait(ctx, sh, again.len())?;
        let (at, reqs): (Vec<usize>, Vec<ClientRequest>) = again.into_iter().unzip();
        for (&i, r) in at.iter().zip(exchange(ctx, reqs)?) {
            out[i].0 = r;
        }
        pending = at;
    }
    Ok(out)
}

/// A batch's requests that could not be made but count as failed ones:
/// their place in the batch, method, URL, error and error code.
type Unsent = Vec<(usize, String, String, String, u32)>;

/// What a batch's requests came to.
enum Built<'js> {
    /// The requests to send, what the metrics need of each, and the ones
    /// that could not be made.
    Send(Vec<ClientRequest>, Vec<ReqMeta>, Unsent),
    /// The whole batch failed: its responses.
    Failed(Vec<Value<'js>>),
}

/// `http.batch()`: the requests sent together, their responses in order.
pub(super) fn batch<'js>(
    ctx: &Ctx<'js>,
    sh: &RunState,
    jr: &Rc<RefCell<AllJars>>,
    list: Vec<Vec<Value<'js>>>,
) -> rquickjs::Result<Vec<Value<'js>>> {
    let vu = vu::current();
    let (reqs, metas, unsent) = match build_batch(ctx, sh, jr, vu, &list)? {
        Built::Send(reqs, metas, unsent) => (reqs, metas, unsent),
        Built::Failed(out) => return Ok(out),
    };
    let iteration = sh.vu_numbers(vu).1;
    let resps = if reqs.is_empty() {
        Vec::new()
    } else {
        rps_wait(ctx, sh, reqs.len())?;
        batch_exchange(ctx, sh, jr, (vu, iteration), &metas, reqs)?
    };
    let mut out = Vec::new();
    let mut failed = None;
    let mut unsent = unsent.into_iter().peekable();
    for (meta, (resp, record)) in metas.iter().zip(resps) {
        while let Some((_, m, u, t, c)) = unsent.next_if(|x| x.0 == out.len()) {
            out.push(unsent_response(ctx, &m, u, t, c)?);
        }
        if let Some(record) = record {
            store_cookies(jr.borrow_mut().of(vu), iteration, meta, &resp);
            sh.record_http(vu, &record, &resp);
        }
        if failed.is_none() && meta.throws {
            failed = crate::state::http::failure_text(meta, &resp, &sh.http.blocklist);
        }
        out.push(response_object(ctx, meta, resp)?);
    }
    for (_, m, u, t, c) in unsent {
        out.push(unsent_response(ctx, &m, u, t, c)?);
    }
    if let Some(text) = failed {
        return Err(throw_go(ctx, &text));
    }
    Ok(out)
}

/// A batch's requests built, with their cookies.
fn build_batch<'js>(
    ctx: &Ctx<'js>,
    sh: &RunState,
    jr: &Rc<RefCell<AllJars>>,
    vu: usize,
    list: &[Vec<Value<'js>>],
) -> rquickjs::Result<Built<'js>> {
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
            ctx,
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
                record_unsent(sh, vu, &method, &url, r.get(3), expect, error);
                // (`options.throw` only in a batch: k6
                // leaves a request's `params.throw` out.)
                if sh.http.request.throw {
                    return Err(throw_go(ctx, &warning));
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
                    return Err(throw_go(ctx, &text));
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
                        unsent_response(ctx, &method, url.clone(), text.clone(), code)?
                    } else {
                        Value::new_null(ctx.clone())
                    });
                }
                return Ok(Built::Failed(out));
            }
        };
        let iteration = sh.vu_numbers(vu).1;
        req.redirect_cookies = redirect_jar(jr, vu, iteration, &meta);
        add_cookies(jr.borrow_mut().of(vu), iteration, &mut req, &meta);
        reqs.push(req);
        metas.push(meta);
    }
    Ok(Built::Send(reqs, metas, unsent))
}
