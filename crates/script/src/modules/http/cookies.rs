//! The VUs' cookie jars, and `CookieJar`'s natives.

use std::rc::Rc;

use loadlab_engine::client::ClientRequest;
use loadlab_engine::header_list::HeaderList;
use rquickjs::function::Opt;
use rquickjs::{Ctx, Function, Object, Value};

use crate::js::vu;
use crate::modules::common::{js_string, throw};
use crate::state::request::ReqMeta;
use crate::state::run_state::RunState;

/// A VU's cookie jars: `list[0]` is the VU's own (k6 empties it at the
/// start of every iteration unless `options.noCookiesReset`), the others
/// were made by `new http.CookieJar()`.
pub struct Jars {
    list: Vec<cookie_store::CookieStore>,
    /// The iteration the VU's jar belongs to.
    iteration: u64,
    reset: bool,
}

/// Every VU's cookie jars, made when a VU first uses one.
pub struct AllJars {
    pub(super) vus: Vec<Option<Jars>>,
    /// Not `options.noCookiesReset`.
    pub(super) reset: bool,
}

impl AllJars {
    pub(crate) fn of(&mut self, vu: usize) -> &mut Jars {
        if self.vus.len() <= vu {
            self.vus.resize_with(vu + 1, || None);
        }
        let reset = self.reset;
        self.vus[vu].get_or_insert_with(|| Jars::new(reset))
    }
}

impl Jars {
    fn new(reset: bool) -> Jars {
        Jars {
            list: vec![cookie_store::CookieStore::default()],
            iteration: 0,
            reset,
        }
    }

    /// Jar `id`, the VU's own emptied first if an iteration began since.
    fn jar(&mut self, id: usize, iteration: u64) -> Option<&mut cookie_store::CookieStore> {
        if self.reset && iteration != self.iteration {
            self.list[0].clear();
        }
        self.iteration = iteration;
        self.list.get_mut(id)
    }
}

/// The `Cookie` field a WebSocket upgrade to `url` carries from VU
/// `vu`'s jar `jar` (0: its own), as k6 sends it: the jar's cookies for
/// the URL, `ws`/`wss` read as `http`/`https`.
pub(crate) fn ws_cookie(
    jars: &std::cell::RefCell<AllJars>,
    vu: usize,
    iteration: u64,
    jar: usize,
    url: &str,
) -> Option<String> {
    let http_url = if let Some(rest) = url.strip_prefix("wss://") {
        format!("https://{rest}")
    } else if let Some(rest) = url.strip_prefix("ws://") {
        format!("http://{rest}")
    } else {
        url.to_string()
    };
    cookie_field(jars.borrow_mut().of(vu), iteration, jar, &[], &http_url)
}

/// Sets the `Cookie` header as k6 does: a `Cookie` field the script set
/// itself, then `params.cookies`, then the jar's cookies for the URL.
pub(crate) fn add_cookies(
    jars: &mut Jars,
    iteration: u64,
    req: &mut ClientRequest,
    meta: &ReqMeta,
) {
    let own = req
        .headers
        .iter()
        .position(|(k, _)| k.eq_ignore_ascii_case("cookie"));
    let Some(c) = cookie_field(jars, iteration, meta.jar, &meta.cookies, &meta.url) else {
        return;
    };
    match own {
        Some(i) => {
            let v = &mut req.headers[i].1;
            v.push_str("; ");
            v.push_str(&c);
        }
        None => req.headers.push(("Cookie".into(), c)),
    }
}

/// The `Cookie` field for `url`, in k6's order: the request's
/// `params.cookies`, then jar `jar`'s cookies for it (those of longer paths
/// first, then the older first, as Go's jar sorts them) but the ones a
/// `replace` param cookie names; `None` when there are none.
fn cookie_field(
    jars: &mut Jars,
    iteration: u64,
    jar: usize,
    cookies: &[(String, String, bool)],
    url: &str,
) -> Option<String> {
    let mut pairs: Vec<String> = cookies
        .iter()
        .map(|(name, value, _)| format!("{name}={value}"))
        .collect();
    // An empty jar (most scripts never get a cookie) spares the URL parse.
    let jar = jars
        .jar(jar, iteration)
        .filter(|j| j.iter_any().next().is_some());
    if let Some(jar) = jar
        && let Ok(url) = url::Url::parse(url)
    {
        // The store keeps insertion order (its `preserve_order`): a
        // stable sort by path length leaves the older first.
        let mut found = jar.matches(&url);
        found.sort_by_key(|c| std::cmp::Reverse(c.path().map_or(0, str::len)));
        for c in found {
            let name = c.name();
            if !cookies.iter().any(|(n, _, replace)| *replace && n == name) {
                pairs.push(format!("{name}={}", c.value()));
            }
        }
    }
    (!pairs.is_empty()).then(|| pairs.join("; "))
}

/// The jar a request's redirect chain consults, as k6's client does: each
/// redirect response's cookies are kept, and the next hop gets
/// `params.cookies` and the jar's cookies for its URL (a `Cookie` field the
/// script set itself is not carried, as in k6).
pub(crate) fn redirect_jar(
    jars: &Rc<std::cell::RefCell<AllJars>>,
    vu: usize,
    iteration: u64,
    meta: &ReqMeta,
) -> Option<loadlab_engine::client::RedirectCookies> {
    let jars = jars.clone();
    let (jar, cookies) = (meta.jar, meta.cookies.clone());
    Some(loadlab_engine::client::RedirectCookies(Rc::new(
        move |here: &str, headers: &HeaderList, next: &str| {
            let mut all = jars.borrow_mut();
            let vu_jars = all.of(vu);
            store_set_cookies(vu_jars, iteration, jar, here, headers);
            cookie_field(vu_jars, iteration, jar, &cookies, next)
        },
    )))
}

/// Keeps the `Set-Cookie` fields of the response, and of the redirect
/// responses before it, in the request's jar.
pub(crate) fn store_cookies(
    jars: &mut Jars,
    iteration: u64,
    meta: &ReqMeta,
    resp: &loadlab_engine::client::ClientResponse,
) {
    for hop in resp.redirects.iter().chain([resp]) {
        store_cookies_of(jars, iteration, meta, hop);
    }
}

/// [`store_cookies`] for one response.
fn store_cookies_of(
    jars: &mut Jars,
    iteration: u64,
    meta: &ReqMeta,
    resp: &loadlab_engine::client::ClientResponse,
) {
    let url = resp.url.as_deref().unwrap_or(&meta.url);
    store_set_cookies(jars, iteration, meta.jar, url, &resp.headers);
}

/// Keeps the `Set-Cookie` fields of `headers`, a response from `url`, in
/// jar `jar`.
fn store_set_cookies(jars: &mut Jars, iteration: u64, jar: usize, url: &str, headers: &HeaderList) {
    let Some(jar) = jars.jar(jar, iteration) else {
        return;
    };
    // No `Set-Cookie`: nothing to parse the URL for.
    if headers.get("set-cookie").is_none() {
        return;
    }
    let Ok(url) = url::Url::parse(url) else {
        return;
    };
    let set = headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie"))
        .filter_map(|(_, v)| cookie_store::RawCookie::parse(v.to_string()).ok());
    jar.store_response_cookies(set, &url);
}

/// The native side of `CookieJar`: `jarNew`, `jarCookies`, `jarSet`,
/// `jarClear` (all of a URL's cookies, or one name's).
pub(crate) fn install_jars<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
    jars: &Rc<std::cell::RefCell<AllJars>>,
) -> rquickjs::Result<()> {
    let jr = jars.clone();
    k6.set(
        "jarNew",
        Function::new(ctx.clone(), move || -> f64 {
            let mut all = jr.borrow_mut();
            let j = all.of(vu::current());
            j.list.push(cookie_store::CookieStore::default());
            (j.list.len() - 1) as f64
        })?,
    )?;
    let parse = |ctx: &Ctx<'js>, u: &str| {
        url::Url::parse(u).map_err(|e| throw(ctx, &format!("invalid URL {u:?}: {e}")))
    };
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarCookies",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, id: f64, u: String| -> rquickjs::Result<Object<'js>> {
                let url = parse(&ctx, &u)?;
                let out = Object::new(ctx.clone())?;
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1) {
                    for (name, value) in jar.get_request_values(&url) {
                        let list = match out.get::<_, Option<rquickjs::Array>>(name)? {
                            Some(l) => l,
                            None => {
                                let l = rquickjs::Array::new(ctx.clone())?;
                                out.set(name, l.clone())?;
                                l
                            }
                        };
                        list.set(list.len(), value)?;
                    }
                }
                Ok(out)
            },
        )?,
    )?;
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarSet",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: f64,
                  u: String,
                  name: String,
                  value: String,
                  opts: Opt<Value<'js>>|
                  -> rquickjs::Result<()> {
                let url = parse(&ctx, &u)?;
                let c = raw_cookie(name, value, opts.0.as_ref());
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                // As k6 (Go's jar): a cookie the URL may not set (another
                // domain, say) is dropped without a word.
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1) {
                    let _ = jar.insert_raw(&c, &url);
                }
                Ok(())
            },
        )?,
    )?;
    let (jr, sh) = (jars.clone(), shared.clone());
    k6.set(
        "jarClear",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  id: f64,
                  u: String,
                  name: Opt<Value<'js>>|
                  -> rquickjs::Result<()> {
                let url = parse(&ctx, &u)?;
                let only = name.0.as_ref().and_then(js_string);
                // As k6 (Go's jar): the cookies of the URL's default path
                // (its directory) only, not every cookie sent to it.
                let dir = match url.path().rfind('/') {
                    Some(0) | None => "/",
                    Some(i) => &url.path()[..i],
                };
                let vu = vu::current();
                let mut all = jr.borrow_mut();
                if let Some(jar) = all.of(vu).jar(id as usize, sh.vu_numbers(vu).1) {
                    let gone: Vec<(String, String, String)> = jar
                        .matches(&url)
                        .into_iter()
                        .filter(|c| only.as_deref().is_none_or(|n| c.name() == n))
                        .filter(|c| String::from(&c.path) == dir)
                        .map(|c| {
                            (
                                String::from(&c.domain),
                                String::from(&c.path),
                                c.name().to_string(),
                            )
                        })
                        .collect();
                    for (d, p, n) in gone {
                        jar.remove(&d, &p, &n);
                    }
                }
                Ok(())
            },
        )?,
    )?;
    Ok(())
}

/// `jar.set()`'s cookie: `name=value` with its options (`domain`,
/// `path`, `max_age`, `expires`, `secure`, `http_only`).
fn raw_cookie<'js>(
    name: String,
    value: String,
    opts: Option<&Value<'js>>,
) -> cookie_store::RawCookie<'static> {
    let mut c = cookie_store::RawCookie::new(name, value);
    if let Some(o) = opts.and_then(|o| o.as_object()) {
        let text = |k: &str| {
            o.get::<_, Value>(k)
                .ok()
                .and_then(|v| js_string(&v))
                .filter(|s| !s.is_empty())
        };
        if let Some(d) = text("domain") {
            c.set_domain(d);
        }
        if let Some(p) = text("path") {
            c.set_path(p);
        }
        if let Some(n) = o.get::<_, Option<f64>>("max_age").ok().flatten()
            && let Ok(p) = cookie_store::RawCookie::parse(format!("x=y; Max-Age={}", n as i64))
        {
            c.set_max_age(p.max_age());
        }
        if let Some(e) = text("expires")
            && let Ok(p) = cookie_store::RawCookie::parse(format!("x=y; Expires={e}"))
            && let Some(t) = p.expires_datetime()
        {
            c.set_expires(t);
        }
        if o.get::<_, bool>("secure").unwrap_or(false) {
            c.set_secure(true);
        }
        if o.get::<_, bool>("http_only").unwrap_or(false) {
            c.set_http_only(true);
        }
    }
    c
}
