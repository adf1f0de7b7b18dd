//! A request made from a script's arguments: its URL, body, params and
//! what the metrics need besides the response ([`ReqMeta`]).

use std::time::Duration;

use bytes::Bytes;
use http::Method;
use loadlab_engine::client::ClientRequest;
use rquickjs::{Ctx, Function, Object, Value};

use crate::js::runtime::array_buffer_bytes;
use crate::js::vu::{self, Op};
use crate::modules::common::{js_bytes, js_duration, js_pairs, js_string, throw, wait};
use crate::state::request::{Auth, Expect, HttpDefaults, ReqMeta, ResponseType};
use crate::state::run_state::RunState;
use crate::tags::Tags;

/// `params.throw` when the params set it to a boolean.
pub(crate) fn params_throw(params: Option<&Value<'_>>) -> Option<bool> {
    // The params' own keys, as `build_request` reads them (and k6 does).
    params
        .and_then(|p| p.as_object())
        .and_then(|o| {
            o.props::<String, Value>()
                .flatten()
                .find(|(k, _)| k == "throw")
        })
        .and_then(|(_, v)| v.as_bool())
}

/// An object body as k6 (Go's `url.Values`) encodes it: keys sorted, an
/// array's elements as repeated keys.
fn form_encode(o: &Object<'_>) -> String {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (k, v) in o.props::<String, Value>().flatten() {
        match v.as_array() {
            Some(list) => {
                for e in list.iter::<Value>().flatten() {
                    pairs.push((k.clone(), js_string(&e).unwrap_or_default()));
                }
            }
            None => pairs.push((k, js_string(&v).unwrap_or_default())),
        }
    }
    // Stable: a key's repeated values keep their order.
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = String::new();
    for (k, v) in pairs {
        if !out.is_empty() {
            out.push('&');
        }
        out.push_str(&pct(&k));
        out.push('=');
        out.push_str(&pct(&v));
    }
    out
}

/// A value made by `http.file()`.
fn is_file(v: &Value<'_>) -> bool {
    v.as_object()
        .is_some_and(|o| o.get::<_, bool>("__k6file").unwrap_or(false))
}

/// An object body with an `http.file()` among its values, as k6 writes it
/// (Go's `multipart.Writer`): a part per property, a file's with its name
/// and type; the `Content-Type` field's value besides.
fn multipart(o: &Object<'_>) -> rquickjs::Result<(Vec<u8>, String)> {
    use std::fmt::Write as _;
    let mut seed = [0u8; 30];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut seed);
    let boundary = crate::modules::crypto::hex(&seed);
    let esc = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut out = Vec::new();
    for (k, v) in o.props::<String, Value>().flatten() {
        let mut head = String::new();
        let sep = if out.is_empty() { "" } else { "\r\n" };
        let _ = write!(head, "{sep}--{boundary}\r\n");
        let data = if is_file(&v) {
            let f = v.as_object().expect("a file is an object");
            let name: String = f.get("filename").unwrap_or_default();
            let ct: String = f.get("content_type").unwrap_or_default();
            let _ = write!(
                head,
                "Content-Disposition: form-data; name=\"{k}\"; filename=\"{}\"\r\nContent-Type: {ct}\r\n\r\n",
                esc(&name)
            );
            js_bytes(&f.get::<_, Value>("data")?)?
        } else {
            let _ = write!(
                head,
                "Content-Disposition: form-data; name=\"{}\"\r\n\r\n",
                esc(&k)
            );
            js_string(&v).unwrap_or_default().into_bytes()
        };
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(&data);
    }
    out.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    Ok((out, format!("multipart/form-data; boundary={boundary}")))
}

fn pct(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            o.push(b as char);
        } else if b == b' ' {
            o.push('+');
        } else {
            o.push_str(&format!("%{b:02X}"));
        }
    }
    o
}

/// Why a request could not be made from the script's arguments.
pub(crate) enum BuildError {
    /// An exception (a JavaScript one, or loadlab's own refusal).
    Js(rquickjs::Error),
    /// A request k6 reports as failed rather than throwing (unless
    /// `throw`): a bad URL, method or timeout, an unsupported callback.
    /// `text` is the response's `error`; `warning` the log's
    /// `Request Failed` text; `code` the `error_code`.
    Request {
        text: String,
        warning: String,
        code: u32,
        /// k6 still records the request's samples (it failed in Go's
        /// transport, not while being built): an unsupported scheme, an
        /// invalid method.
        sampled: bool,
    },
}

impl From<rquickjs::Error> for BuildError {
    fn from(e: rquickjs::Error) -> Self {
        BuildError::Js(e)
    }
}

/// A request error as k6 words it: the response's `error`, with the log
/// line's text the same unless `warning` says otherwise.
fn request_error(text: String, warning: Option<String>, code: u32) -> BuildError {
    BuildError::Request {
        warning: warning.unwrap_or_else(|| text.clone()),
        text,
        code,
        sampled: false,
    }
}

/// [`request_error`] for a request k6 records samples of.
fn sampled_error(text: String, warning: String) -> BuildError {
    BuildError::Request {
        warning,
        text,
        code: 1000,
        sampled: true,
    }
}

/// Records the samples of a request that could not be made but that k6
/// counts (a `sampled` [`BuildError::Request`]): its method, URL and tags
/// (`params.tags`), and the error as k6 tags it.
pub(crate) fn record_unsent(
    sh: &RunState,
    vu: usize,
    method: &str,
    url: &str,
    params: Option<&Value<'_>>,
    expect: Expect,
    error: (String, u32),
) {
    let tags = params
        .and_then(|p| p.as_object())
        .and_then(|o| o.get::<_, Value>("tags").ok())
        .map(|t| js_pairs(Some(&t)))
        .unwrap_or_default();
    let meta = ReqMeta {
        method: method.to_string(),
        url: url.to_string(),
        tags: tags.into(),
        response_type: ResponseType::Text,
        jar: 0,
        cookies: Vec::new(),
        redirects_set: true,
        expect,
        throws: false,
        unsent: Some(error),
        auth: Auth::Basic,
    };
    sh.record_unsent(vu, &meta);
}

/// The first `%` escape of `url`'s path that is not `%` and two hex digits
/// (`%zz`), as Go's parser reports it.
fn bad_path_escape(url: &str) -> Option<&str> {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let path = &rest[rest.find('/')?..];
    let path = &path[..path.find(['?', '#']).unwrap_or(path.len())];
    let b = path.as_bytes();
    let at = (0..b.len()).find(|&i| {
        b[i] == b'%'
            && !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit())
    })?;
    Some(&path[at..(at + 3).min(path.len())])
}

/// Go's `Get "url": …` prefix of a request error.
fn go_op(method: &str, url: &str) -> String {
    let m = crate::http_result::go_method(method);
    format!("{m} {:?}", url.replace(' ', "%20"))
}

pub(crate) fn build_request<'js>(
    ctx: &Ctx<'js>,
    method: &str,
    url: &Value<'js>,
    body: &Value<'js>,
    params: Option<&Value<'js>>,
    defaults: &HttpDefaults,
    expect: Expect,
) -> Result<(ClientRequest, ReqMeta), BuildError> {
    let (url, url_name, uri) = request_url(ctx, method, url)?;
    let method_v = Method::from_bytes(method.as_bytes())
        .ok()
        .filter(|_| !method.is_empty() && method.bytes().all(|b| b.is_ascii_graphic()))
        .ok_or_else(|| {
            let text = format!("net/http: invalid method {method:?}");
            sampled_error(text.clone(), format!("Bad method {url:?}: {text}"))
        })?;
    let Params {
        mut headers,
        mut tags,
        timeout,
        redirects,
        redirects_set,
        response_type,
        cookies,
        jar,
        throws,
        expect,
        auth,
    } = read_params(ctx, params, defaults, expect)?;
    if let Some(n) = url_name
        && defaults.name_tag
        && !tags.iter().any(|(k, _)| k == "name")
    {
        tags.push(("name".to_string(), n));
    }
    let (body, content_type) = body_bytes(body)?;
    if let Some(ct) = content_type
        && !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
    {
        headers.push(("Content-Type".into(), ct.into_owned()));
    }
    if !headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case("user-agent"))
    {
        match defaults.request.user_agent.as_deref() {
            None => headers.push(("User-Agent".into(), "loadlab-k6".into())),
            Some("") => {}
            Some(ua) => headers.push(("User-Agent".into(), ua.into())),
        }
    }
    let (meta_url, url) = if auth == Auth::Digest {
        // As k6: the credentials went into the digest answer, not the tags.
        (crate::url_clean::without_userinfo(&url).into_owned(), url)
    } else {
        (url.clone(), url)
    };
    Ok((
        ClientRequest {
            method: method_v,
            url,
            headers,
            body,
            timeout,
            redirects,
            keep_body: response_type != ResponseType::None,
            redirect_cookies: None,
            uri: Some(uri),
            owner: loadlab_engine::client::Owner::default(),
        },
        ReqMeta {
            method: method.to_string(),
            url: meta_url,
            tags,
            response_type,
            jar,
            cookies,
            redirects_set,
            expect,
            throws,
            unsent: None,
            auth,
        },
    ))
}

/// The request's URL (checked as Go checks it) and, for an `http.url`
/// template, its name.
fn request_url<'js>(
    ctx: &Ctx<'js>,
    method: &str,
    url: &Value<'js>,
) -> Result<(String, Option<String>, http::Uri), BuildError> {
    // http.url`…`: the URL and its template, the request's `name`.
    let template = url.as_object().and_then(|o| {
        let u = o.get::<_, Option<String>>("__k6url").ok().flatten()?;
        let n = o.get::<_, Option<String>>("__k6name").ok().flatten()?;
        Some((u, n))
    });
    let (url_s, url_name) = match template {
        Some((u, n)) => (Some(u), Some(n)),
        None => (js_string(url), None),
    };
    let url = url_s
        .or_else(|| {
            url.as_object().and_then(|o| {
                o.get::<_, Function>("toString").ok().and_then(|f| {
                    f.call::<_, String>((rquickjs::function::This(o.clone()),))
                        .ok()
                })
            })
        })
        .ok_or_else(|| throw(ctx, "the request's URL must be a string"))?;
    let uri = match loadlab_engine::client::Client::check_url(&url) {
        Ok(uri) => uri,
        Err(e) => {
            // Go's words where it has them: a URL without http(s).
            let scheme = url
                .split_once("://")
                .map_or("", |(s, _)| s)
                .to_ascii_lowercase();
            let text = if scheme == "http" || scheme == "https" {
                format!("invalid URL {url:?}: {e}")
            } else {
                format!("unsupported protocol scheme {scheme:?}")
            };
            let warning = format!("{}: {text}", go_op(method, &url));
            if scheme == "http" || scheme == "https" {
                return Err(request_error(text, Some(warning), 1000));
            }
            return Err(sampled_error(text, warning));
        }
    };
    if let Some(bad) = bad_path_escape(&url) {
        // Go's url.Parse refuses a bad escape in the path (not the query).
        let text = format!("invalid URL: parse {url:?}: invalid URL escape {bad:?}");
        return Err(request_error(text, None, 1020));
    }
    Ok((url, url_name, uri))
}

/// What a request's params set, over the defaults.
struct Params {
    headers: Vec<(String, String)>,
    tags: Tags,
    timeout: Duration,
    redirects: i32,
    redirects_set: bool,
    response_type: ResponseType,
    cookies: Vec<(String, String, bool)>,
    jar: usize,
    throws: bool,
    expect: Expect,
    /// `params.auth`.
    auth: Auth,
}

/// The exception for a param value loadlab cannot send (an `auth` other
/// than basic, digest and ntlm, any `compression`).
fn unsupported_param(ctx: &Ctx<'_>, k: &str, v: &Value<'_>) -> BuildError {
    let what = js_string(v).map_or_else(String::new, |s| format!(" {s:?}"));
    let only = if k == "auth" {
        "; only \"basic\", \"digest\" and \"ntlm\""
    } else {
        ""
    };
    throw(
        ctx,
        &format!("params.{k}{what} is not supported by loadlab k6{only} (see docs/k6.md)"),
    )
    .into()
}

/// A request's params read (its own keys, in order, as k6 reads them).
fn read_params<'js>(
    ctx: &Ctx<'js>,
    params: Option<&Value<'js>>,
    defaults: &HttpDefaults,
    mut expect: Expect,
) -> Result<Params, BuildError> {
    let max_redirects = defaults.max_redirects;
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut tags = Tags::new();
    let mut timeout = Duration::from_secs(60);
    // k6's default limit is 10; `options.maxRedirects` chooses another.
    let mut redirects = max_redirects.map_or(10, |n| n.min(i32::MAX as u32) as i32);
    let mut redirects_set = max_redirects.is_some();
    let mut response_type = if defaults.request.discard_response_bodies {
        ResponseType::None
    } else {
        ResponseType::Text
    };
    let mut cookies = Vec::new();
    let mut jar = 0;
    let mut throws = defaults.request.throw;
    let mut auth = Auth::Basic;
    if let Some(p) = params.and_then(|p| p.as_object()) {
        for (k, v) in p.props::<String, Value>().flatten() {
            match k.as_str() {
                // (Read here, not by a look-up of its own: one per request.)
                "throw" => {
                    if let Some(b) = v.as_bool() {
                        throws = b;
                    }
                }
                "headers" => headers = js_pairs(Some(&v)),
                "tags" => tags = js_pairs(Some(&v)).into(),
                "timeout" if !v.is_undefined() && !v.is_null() => {
                    timeout = js_duration(&v).ok_or_else(|| {
                        let shown = js_string(&v).unwrap_or_default();
                        request_error(
                            format!("invalid timeout value: time: invalid duration {shown:?}"),
                            None,
                            0,
                        )
                    })?;
                }
                "redirects" => {
                    if let Some(n) = v.as_int() {
                        redirects = n;
                        redirects_set = true;
                    } else if let Some(n) = v.as_number() {
                        redirects = n as i32;
                        redirects_set = true;
                    }
                }
                "responseType" => {
                    response_type = match js_string(&v).as_deref() {
                        Some("text") | None => ResponseType::Text,
                        Some("binary") => ResponseType::Binary,
                        Some("none") => ResponseType::None,
                        Some(other) => {
                            return Err(throw(
                                ctx,
                                &format!("params.responseType {other:?}: use text, binary or none"),
                            )
                            .into());
                        }
                    }
                }
                "cookies" => param_cookies(&v, &mut cookies),
                "jar" if !v.is_undefined() && !v.is_null() => {
                    jar = v
                        .as_object()
                        .and_then(|o| o.get::<_, f64>("_id").ok())
                        .ok_or_else(|| {
                            throw(
                                ctx,
                                "params.jar: not a cookie jar (use new http.CookieJar())",
                            )
                        })? as usize;
                }
                "responseCallback" => {
                    expect = Expect::from_js(&v).map_err(|()| {
                        request_error("unsupported responseCallback".into(), None, 0)
                    })?;
                }
                // Basic credentials come from the URL (`http://user:pass@…`),
                // with or without `auth: 'basic'`, as in k6; `digest` and
                // `ntlm` take them from there too.
                "auth" if js_string(&v).as_deref() == Some("basic") => auth = Auth::Basic,
                "auth" if js_string(&v).as_deref() == Some("digest") => auth = Auth::Digest,
                "auth" if js_string(&v).as_deref() == Some("ntlm") => auth = Auth::Ntlm,
                "auth" | "compression" if !v.is_undefined() && !v.is_null() => {
                    return Err(unsupported_param(ctx, &k, &v));
                }
                _ => {}
            }
        }
    }
    Ok(Params {
        headers,
        tags,
        timeout,
        redirects,
        redirects_set,
        response_type,
        cookies,
        jar,
        throws,
        expect,
        auth,
    })
}

/// `params.cookies`: each name's value, and whether it replaces the
/// jar's cookie of that name.
fn param_cookies(v: &Value<'_>, cookies: &mut Vec<(String, String, bool)>) {
    if let Some(o) = v.as_object() {
        for (name, c) in o.props::<String, Value>().flatten() {
            if let Some(co) = c.as_object() {
                let value = co
                    .get::<_, Value>("value")
                    .ok()
                    .and_then(|v| js_string(&v))
                    .unwrap_or_default();
                let replace = co.get::<_, bool>("replace").unwrap_or(false);
                cookies.push((name, value, replace));
            } else if let Some(value) = js_string(&c) {
                cookies.push((name, value, false));
            }
        }
    }
}

/// A request's body as bytes, and the `Content-Type` it implies (a form,
/// a multipart body).
fn body_bytes(
    body: &Value<'_>,
) -> rquickjs::Result<(Bytes, Option<std::borrow::Cow<'static, str>>)> {
    let mut content_type: Option<std::borrow::Cow<'static, str>> = None;
    let body = if body.is_null() || body.is_undefined() {
        Bytes::new()
    } else if let Some(s) = body.as_string() {
        Bytes::from(s.to_string()?)
    } else if let Some(ab) = rquickjs::ArrayBuffer::from_value(body.clone()) {
        Bytes::from(array_buffer_bytes(&ab).unwrap_or_default())
    } else if let Some(o) = body.as_object()
        && o.props::<String, Value>()
            .flatten()
            .any(|(_, v)| is_file(&v))
    {
        let (bytes, ct) = multipart(o)?;
        content_type = Some(ct.into());
        Bytes::from(bytes)
    } else if let Some(o) = body.as_object() {
        content_type = Some("application/x-www-form-urlencoded".into());
        Bytes::from(form_encode(o))
    } else {
        Bytes::from(js_string(body).unwrap_or_default())
    };
    Ok((body, content_type))
}

/// `options.rps`: waits (the VU sleeps) until `n` more requests fit under
/// the limit, as k6's limiter (one request of burst) makes them wait.
pub(crate) fn rps_wait(ctx: &Ctx<'_>, sh: &RunState, n: usize) -> rquickjs::Result<()> {
    let Some(rps) = sh.http.request.rps else {
        return Ok(());
    };
    if n == 0 || !vu::in_vu() {
        return Ok(());
    }
    let every = Duration::from_secs_f64(1.0 / rps as f64);
    let now = tokio::time::Instant::now();
    let first = sh.rps_next.get().map_or(now, |t| t.max(now));
    let last = first + every * (n as u32 - 1);
    sh.rps_next.set(Some(last + every));
    if last > now {
        wait(ctx, Op::Sleep(last - now), "making HTTP requests")?;
    }
    Ok(())
}
