//! Requests: templates built once per target (the HTTP/1.1 bytes are
//! pre-rendered, so sending costs one `write`), and the execution of one
//! request with its redirects, retry of stale keep-alive connections, and
//! timeout.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use bytes::Bytes;
use http::{Method, Uri};
use http_body_util::Full;
use loadlab_core::ErrorKind;
use tokio::time::Instant;

use crate::header_list::HeaderList;
use crate::targets::{Target, check_url};
use crate::transport::{Conn, DialPhase, EndpointKey, HostPool, Transport};

/// A target made ready to send.
pub(crate) struct Template {
    pub pool: Arc<HostPool>,
    /// The whole HTTP/1.1 request: head and body.
    pub h1: Bytes,
    /// Where in `h1` the head's last field ends (before the blank line):
    /// the request's own `X-Vegeta-Seq` field goes there.
    head_end: usize,
    /// Each request carries `X-Vegeta-Seq: <its sequence number>`.
    pub vegeta_seq: bool,
    pub method: Method,
    pub uri: Uri,
    /// Request headers (defaults merged in), for HTTP/2 and redirects.
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// Whose keep-alive connections it takes and opens.
    pub owner: crate::stream::Owner,
    /// The engine added `Accept-Encoding: gzip` (the last of `headers`),
    /// so a gzip response is counted decoded, as Go's client decodes it.
    pub gzip: bool,
}

fn endpoint(uri: &Uri) -> EndpointKey {
    let tls = uri.scheme_str() == Some("https");
    let host = uri
        .host()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase();
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    EndpointKey { tls, host, port }
}

impl Template {
    /// Builds a template; `extra_headers` and `default_body` come from the
    /// attack's `-header`s and `-body` (headers already on the target are not repeated).
    /// `vegeta` (the attack's name) adds vegeta's request headers, as
    /// `vegeta attack` does: `X-Vegeta-Attack` when the name is not empty,
    /// and `X-Vegeta-Seq` per request (see [`execute`]); they replace
    /// fields of those names from the target or `-header`.
    pub fn build(
        target: &Target,
        extra_headers: &[(String, String)],
        default_body: Option<&Bytes>,
        vegeta: Option<&str>,
        transport: &Transport,
    ) -> Result<Template, String> {
        let uri = check_url(&target.url)?;
        let mut headers: Vec<(String, String)> =
            Vec::with_capacity(extra_headers.len() + target.headers.len());
        for h in extra_headers {
            if !target
                .headers
                .iter()
                .any(|t| t.0.eq_ignore_ascii_case(&h.0) && t.1 == h.1)
            {
                headers.push(h.clone());
            }
        }
        headers.extend(target.headers.iter().cloned());
        if let Some(name) = vegeta {
            headers.retain(|(k, _)| {
                !k.eq_ignore_ascii_case("x-vegeta-seq")
                    && !k.eq_ignore_ascii_case("x-vegeta-attack")
            });
            if !name.is_empty() {
                headers.push(("X-Vegeta-Attack".to_string(), name.to_string()));
            }
        }
        let body = if target.body.is_empty() {
            default_body.cloned().unwrap_or_default()
        } else {
            target.body.clone()
        };
        let mut tpl = Self::from_parts(target.method.clone(), uri, headers, body, transport);
        tpl.vegeta_seq = vegeta.is_some();
        Ok(tpl)
    }

    pub(crate) fn from_parts(
        method: Method,
        uri: Uri,
        mut headers: Vec<(String, String)>,
        body: Bytes,
        transport: &Transport,
    ) -> Template {
        // Credentials in the URL become Basic authentication, as in Go's
        // client (unless the request already has an Authorization header),
        // and never go on the wire otherwise: not in Host, not in :authority.
        let uri = match split_userinfo(&uri) {
            Some((auth, bare)) => {
                if !headers
                    .iter()
                    .any(|(k, _)| k.eq_ignore_ascii_case("authorization"))
                {
                    headers.push(("Authorization".to_string(), auth));
                }
                bare
            }
            None => uri,
        };
        // As Go's client: ask for gzip unless the request chose an
        // encoding, asks for a range (a range of the gzip bytes would not
        // decode) or is a HEAD (no body to decode).
        let gzip = transport.compression()
            && method != Method::HEAD
            && !headers.iter().any(|(k, _)| {
                k.eq_ignore_ascii_case("accept-encoding") || k.eq_ignore_ascii_case("range")
            });
        if gzip {
            headers.push(("Accept-Encoding".to_string(), "gzip".to_string()));
        }
        let pool = transport.pool_of(&uri);
        let (h1, head_end) = render_h1(
            &method,
            &uri,
            &headers,
            &body,
            transport.keepalive(),
            transport.chunked(),
        );
        Template {
            pool,
            h1,
            head_end,
            vegeta_seq: false,
            method,
            uri,
            headers,
            body,
            owner: crate::stream::Owner::default(),
            gzip,
        }
    }

    /// The request's own header fields: without the `Accept-Encoding`
    /// the engine added (a request made from them asks for gzip again).
    fn own_headers(&self) -> impl Iterator<Item = &(String, String)> {
        let added = usize::from(self.gzip);
        self.headers[..self.headers.len() - added].iter()
    }

    /// The request to send after a redirect to `location`, or None if the
    /// location is unusable.
    fn redirect(&self, status: u16, location: &str, transport: &Transport) -> Option<Template> {
        let uri = resolve(&self.uri, location)?;
        let (method, body) = if matches!(status, 301..=303) && self.method != Method::HEAD {
            (Method::GET, Bytes::new())
        } else {
            (self.method.clone(), self.body.clone())
        };
        // As Go's client: credentials and cookies follow a redirect only to
        // the same host or one of its subdomains.
        let same_site = is_domain_or_subdomain(&endpoint(&uri).host, &endpoint(&self.uri).host);
        let headers = self
            .own_headers()
            .filter(|(k, _)| same_site || !is_sensitive(k))
            .cloned()
            .collect();
        let mut next = Self::from_parts(method, uri, headers, body, transport);
        // As Go's client, a redirect carries the request's header fields.
        next.vegeta_seq = self.vegeta_seq;
        next.owner = self.owner;
        Some(next)
    }

    /// This request with `cookie` as its only `Cookie` field (none for `None`).
    fn with_cookie(self, cookie: Option<String>, transport: &Transport) -> Template {
        let mut headers: Vec<(String, String)> = self
            .own_headers()
            .filter(|(k, _)| !k.eq_ignore_ascii_case("cookie"))
            .cloned()
            .collect();
        if let Some(c) = cookie {
            headers.push(("Cookie".to_string(), c));
        }
        let mut next = Self::from_parts(self.method, self.uri, headers, self.body, transport);
        next.vegeta_seq = self.vegeta_seq;
        next.owner = self.owner;
        next
    }

    /// The HTTP/1.1 bytes of request `seq`: the pre-rendered ones, or a
    /// copy with this request's `X-Vegeta-Seq` field in its head.
    fn h1_for(&self, seq: u64) -> std::borrow::Cow<'_, [u8]> {
        if !self.vegeta_seq {
            return std::borrow::Cow::Borrowed(&self.h1);
        }
        let (head, rest) = self.h1.split_at(self.head_end);
        let mut b = Vec::with_capacity(self.h1.len() + 36);
        b.extend_from_slice(head);
        b.extend_from_slice(b"X-Vegeta-Seq: ");
        b.extend_from_slice(itoa::Buffer::new().format(seq).as_bytes());
        b.extend_from_slice(b"\r\n");
        b.extend_from_slice(rest);
        std::borrow::Cow::Owned(b)
    }

    fn h2_request(&self, seq: u64) -> Option<http::Request<Full<Bytes>>> {
        let mut b = http::Request::builder()
            .method(self.method.clone())
            .uri(self.uri.clone());
        if self.vegeta_seq {
            b = b.header("x-vegeta-seq", seq);
        }
        for (k, v) in &self.headers {
            if !k.eq_ignore_ascii_case("host")
                && !k.eq_ignore_ascii_case("connection")
                && !k.eq_ignore_ascii_case("content-length")
            {
                b = b.header(k.as_str(), v.as_str());
            }
        }
        b.body(Full::new(self.body.clone())).ok()
    }
}

/// For a URL with user information: the `Authorization: Basic` value (user
/// and password percent-decoded, as Go does) and the URL without it.
pub(crate) fn split_userinfo(uri: &Uri) -> Option<(String, Uri)> {
    use base64::Engine as _;
    let (user, pass) = url_credentials(uri)?;
    let hostport = uri.authority()?.as_str().rsplit_once('@')?.1;
    let mut cred = user;
    cred.push(b':');
    cred.extend_from_slice(&pass);
    let auth = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(cred)
    );
    let mut parts = uri.clone().into_parts();
    parts.authority = Some(hostport.parse().ok()?);
    Some((auth, Uri::from_parts(parts).ok()?))
}

/// A URL's user name and password (empty when it has none),
/// percent-decoded as Go decodes them; None without user information.
pub fn url_credentials(uri: &Uri) -> Option<(Vec<u8>, Vec<u8>)> {
    let userinfo = uri.authority()?.as_str().rsplit_once('@')?.0;
    let (user, pass) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    Some((percent_decode(user), percent_decode(pass)))
}

fn percent_decode(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && let (Some(h), Some(l)) = (
                b.get(i + 1).copied().and_then(hex),
                b.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}

/// Headers Go's client drops on a redirect to another site.
fn is_sensitive(name: &str) -> bool {
    ["authorization", "www-authenticate", "cookie", "cookie2"]
        .iter()
        .any(|s| name.eq_ignore_ascii_case(s))
}

/// Go's rule for forwarding credentials on a redirect: the same host, or a
/// subdomain of it (never for IPv6 literals).
fn is_domain_or_subdomain(sub: &str, parent: &str) -> bool {
    sub == parent
        || (!sub.contains([':', '%'])
            && sub.len() > parent.len()
            && sub.ends_with(parent)
            && sub.as_bytes()[sub.len() - parent.len() - 1] == b'.')
}

/// Resolves a `Location` against the URL that answered.
fn resolve(base: &Uri, location: &str) -> Option<Uri> {
    if let Ok(u) = check_url(location) {
        return Some(u);
    }
    let scheme = base.scheme_str()?;
    let authority = base.authority()?.as_str();
    let s = if let Some(rest) = location.strip_prefix("//") {
        format!("{scheme}://{rest}")
    } else if location.starts_with('/') {
        format!("{scheme}://{authority}{location}")
    } else {
        let path = base.path();
        let dir = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        format!(
            "{scheme}://{authority}{}{location}",
            if dir.is_empty() { "/" } else { dir }
        )
    };
    check_url(&s).ok()
}

/// The request's bytes, and where its head's last field ends.
pub(crate) fn render_h1(
    method: &Method,
    uri: &Uri,
    headers: &[(String, String)],
    body: &Bytes,
    keepalive: bool,
    chunked: bool,
) -> (Bytes, usize) {
    let mut b = Vec::with_capacity(128 + headers.len() * 32 + body.len());
    b.extend_from_slice(method.as_str().as_bytes());
    b.push(b' ');
    b.extend_from_slice(uri.path_and_query().map_or("/", |p| p.as_str()).as_bytes());
    b.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    let host = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        .map(|(_, v)| v.as_str());
    let authority = uri.authority().map_or("", |a| a.as_str());
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    b.extend_from_slice(host.unwrap_or(authority).as_bytes());
    b.extend_from_slice(b"\r\n");
    let mut agent = false;
    for (k, v) in headers {
        if k.eq_ignore_ascii_case("host")
            || k.eq_ignore_ascii_case("content-length")
            || (chunked && k.eq_ignore_ascii_case("transfer-encoding"))
        {
            continue;
        }
        if !keepalive && k.eq_ignore_ascii_case("connection") {
            continue;
        }
        agent |= k.eq_ignore_ascii_case("user-agent");
        b.extend_from_slice(k.as_bytes());
        b.extend_from_slice(b": ");
        b.extend_from_slice(v.as_bytes());
        b.extend_from_slice(b"\r\n");
    }
    if !agent {
        b.extend_from_slice(b"User-Agent: loadlab\r\n");
    }
    let has_body =
        !body.is_empty() || matches!(*method, Method::POST | Method::PUT | Method::PATCH);
    if has_body && chunked {
        b.extend_from_slice(b"Transfer-Encoding: chunked\r\n");
    } else if has_body {
        b.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    if !keepalive {
        b.extend_from_slice(b"Connection: close\r\n");
    }
    let head_end = b.len();
    b.extend_from_slice(b"\r\n");
    if has_body && chunked {
        // The whole body as one chunk, then the last (empty) chunk.
        if !body.is_empty() {
            b.extend_from_slice(format!("{:x}\r\n", body.len()).as_bytes());
            b.extend_from_slice(body);
            b.extend_from_slice(b"\r\n");
        }
        b.extend_from_slice(b"0\r\n\r\n");
    } else {
        b.extend_from_slice(body);
    }
    (Bytes::from(b), head_end)
}

/// The measured result of one request.
pub(crate) struct Outcome {
    pub status: u16,
    pub error: ErrorKind,
    /// Response body bytes as vegeta counts them (a gzip body the engine
    /// asked for counts decoded).
    pub bytes_in: u64,
    /// The same body bytes as they came over the wire.
    pub body_wire: u64,
    pub bytes_out: u64,
    /// When the request started: connection taken from the pool, or dialling began.
    pub sent: Option<Instant>,
    pub first_byte: Option<Instant>,
    /// When the last byte of a complete response arrived; `None` means "when
    /// the exchange returned".
    pub done: Option<Instant>,
    pub connect_ns: u32,
    /// The request left more than [`crate::behind::BEHIND_LAG`] after its
    /// intended time: it waits for one of the pool's connections while the
    /// client holds them (see `behind.rs`).
    pub behind: bool,
}

impl Outcome {
    fn failed(&mut self, kind: ErrorKind) {
        self.done = None;
        self.status = 0;
        self.error = kind;
    }
}

/// How many times a request is retried on a fresh connection when a reused
/// keep-alive connection turns out to have been closed by the server.
const STALE_RETRIES: u32 = 3;

/// Sends one request (following redirects) and measures it. Never fails:
/// failures are recorded in the outcome. The whole request is bounded by `deadline`.
/// `seq` is the request's sequence number (its `X-Vegeta-Seq` where the
/// template sends one).
pub(crate) async fn execute(
    tpl: &Template,
    transport: &Transport,
    redirects: i32,
    begin: Instant,
    deadline: Instant,
    seq: u64,
    out: &mut Outcome,
) {
    execute_capture::<false, _>(
        tpl, transport, redirects, begin, deadline, seq, out, None, None, &NoJar,
    )
    .await
}

/// The redirects of one request, hop by hop (the k6 face reports each
/// hop as a request of its own, as k6 does; attacks keep one result).
#[derive(Default)]
pub(crate) struct Trail {
    /// The redirect responses followed, oldest first.
    pub hops: Vec<Hop>,
    /// The URL that gave the final response, when a redirect was followed.
    pub url: Option<String>,
    /// The method of the final response's request, when a redirect
    /// changed it (301, 302, 303 turn a POST into a GET).
    pub method: Option<Method>,
    /// The redirect limit stopped the request: the final response is the
    /// 3xx whose `Location` was not followed (k6's answer; an attack's
    /// request fails with "stopped after N redirects" instead).
    pub stopped: bool,
}

/// A cookie jar consulted while a redirect chain is followed (the k6 face's,
/// as k6's client keeps one): given a redirect response's URL and header
/// fields, and the URL it leads to, the `Cookie` field to send there
/// (`None`: none). Called only when a redirect is followed.
#[derive(Clone)]
pub struct RedirectCookies(pub std::rc::Rc<NextCookie>);

/// `(redirect URL, its header fields, next URL) -> Cookie field`.
pub type NextCookie = dyn Fn(&str, &HeaderList, &str) -> Option<String>;

impl std::fmt::Debug for RedirectCookies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RedirectCookies")
    }
}

/// A cookie jar a redirect chain consults (see [`RedirectCookies`]); attacks have none ([`NoJar`]), so
/// their futures stay `Send`.
pub(crate) trait HopCookies {
    /// The `Cookie` field for `next`, after the redirect response of `here`
    /// with `headers`; `None` when there is no jar (the request's own
    /// fields are carried).
    fn next_cookie(&self, here: &str, headers: &HeaderList, next: &str) -> Option<Option<String>>;
}

/// No jar.
pub(crate) struct NoJar;

impl HopCookies for NoJar {
    fn next_cookie(&self, _: &str, _: &HeaderList, _: &str) -> Option<Option<String>> {
        None
    }
}

impl HopCookies for Option<RedirectCookies> {
    fn next_cookie(&self, here: &str, headers: &HeaderList, next: &str) -> Option<Option<String>> {
        self.as_ref().map(|jar| (jar.0)(here, headers, next))
    }
}

/// One redirect response of a [`Trail`].
pub(crate) struct Hop {
    /// The URL that gave it (`None`: the request's own).
    pub url: Option<String>,
    /// The method of its request, when not the request's own.
    pub method: Option<Method>,
    pub out: Outcome,
    /// Its header fields and wire bytes (the body is not kept).
    pub cap: crate::stream::Capture,
}

/// The deadline passed.
pub(crate) struct Elapsed;

/// `fut` bounded by `deadline` without a timer: the deadline is checked
/// each time it is polled, and the caller promises to poll it again at the
/// deadline (the k6 face's scheduler keeps the deadlines of its requests
/// in its own queue: a tokio timer registered and removed per request cost
/// more than the check).
async fn polled_within<F: Future>(deadline: Instant, fut: F) -> Result<F::Output, Elapsed> {
    let mut fut = std::pin::pin!(fut);
    std::future::poll_fn(|cx| match fut.as_mut().poll(cx) {
        Poll::Ready(v) => Poll::Ready(Ok(v)),
        Poll::Pending if Instant::now() >= deadline => Poll::Ready(Err(Elapsed)),
        Poll::Pending => Poll::Pending,
    })
    .await
}

/// `$fut` bounded by `$deadline`: with `POLLED` (the k6 face's requests)
/// by [`polled_within`], else (attacks) by tokio's timer, as it always was.
macro_rules! within {
    ($polled:expr, $deadline:expr, $fut:expr) => {
        if $polled {
            polled_within($deadline, $fut).await
        } else {
            tokio::time::timeout_at($deadline, $fut)
                .await
                .map_err(|_| Elapsed)
        }
    };
}

/// [`execute`] that keeps the final response's header fields and body in
/// `capture` (the k6 face's responses; attacks never keep bodies); see
/// [`within`] for `POLLED`. With a `trail`, each redirect response is
/// kept there (its own outcome and wire bytes; `out` and `capture` then
/// hold the final hop's alone) and reaching the redirect limit answers
/// with the last 3xx instead of failing.
#[allow(clippy::too_many_arguments)] // the request, its bounds and its output, as the callers hold them
pub(crate) async fn execute_capture<const POLLED: bool, J: HopCookies>(
    tpl: &Template,
    transport: &Transport,
    redirects: i32,
    begin: Instant,
    deadline: Instant,
    seq: u64,
    out: &mut Outcome,
    mut capture: Option<&mut crate::stream::Capture>,
    mut trail: Option<&mut Trail>,
    jar: &J,
) {
    out.bytes_out = tpl.body.len() as u64;
    let mut owned: Option<Template> = None;
    let mut hops = 0i32;
    let mut started = begin;
    loop {
        let cur = owned.as_ref().unwrap_or(tpl);
        let (status, location) = match attempt::<POLLED>(
            cur,
            transport,
            started,
            deadline,
            seq,
            out,
            capture.as_deref_mut(),
        )
        .await
        {
            Ok(r) => r,
            Err(kind) => return out.failed(kind),
        };
        out.status = status;
        out.error = ErrorKind::None;
        let location = match location {
            Some(l) if redirects >= 0 && (300..400).contains(&status) && status != 304 => l,
            _ => return,
        };
        if hops >= redirects {
            if let Some(t) = trail.as_deref_mut() {
                t.stopped = true;
                return;
            }
            return out.failed(ErrorKind::TooManyRedirects);
        }
        hops += 1;
        started = Instant::now();
        let Some(mut next) = cur.redirect(status, &location, transport) else {
            return out.failed(ErrorKind::Protocol);
        };
        if let Some(t) = trail.as_deref_mut() {
            // This hop is a response of its own: the next one starts afresh.
            let hop = Outcome {
                status,
                error: ErrorKind::None,
                bytes_in: std::mem::take(&mut out.bytes_in),
                body_wire: std::mem::take(&mut out.body_wire),
                bytes_out: out.bytes_out,
                sent: out.sent.take(),
                first_byte: out.first_byte.take(),
                done: Some(out.done.take().unwrap_or(started)),
                connect_ns: std::mem::take(&mut out.connect_ns),
                behind: out.behind,
            };
            out.bytes_out = next.body.len() as u64;
            let mut cap = capture
                .as_deref_mut()
                .map(std::mem::take)
                .unwrap_or_default();
            cap.body = Vec::new();
            // A jar keeps this hop's cookies and names those of the next.
            let here = t.url.clone().unwrap_or_else(|| cur.uri.to_string());
            if let Some(cookie) = jar.next_cookie(&here, &cap.headers, &next.uri.to_string()) {
                next = next.with_cookie(cookie, transport);
            }
            let url = t.url.replace(next.uri.to_string());
            let method = std::mem::replace(
                &mut t.method,
                (next.method != tpl.method).then(|| next.method.clone()),
            );
            t.hops.push(Hop {
                url,
                method,
                out: hop,
                cap,
            });
        }
        owned = Some(next);
    }
}

/// One request/response on one connection (with stale-connection retries).
/// `started` is when the attempt began (read once by the caller: every
/// clock read is paid on each of thousands of requests a second).
async fn attempt<const POLLED: bool>(
    tpl: &Template,
    transport: &Transport,
    started: Instant,
    deadline: Instant,
    seq: u64,
    out: &mut Outcome,
    mut capture: Option<&mut crate::stream::Capture>,
) -> Result<(u16, Option<String>), ErrorKind> {
    let h1 = tpl.h1_for(seq);
    let mut retries = 0;
    let mut dial_started = started;
    loop {
        let mut phase = DialPhase::default();
        let acquired = match within!(
            POLLED,
            deadline,
            transport.acquire(
                &tpl.pool,
                tpl.owner,
                out.behind,
                &mut dial_started,
                &mut phase
            )
        ) {
            Ok(r) => r,
            Err(_) => {
                out.sent.get_or_insert(dial_started);
                return Err(phase.timeout_kind());
            }
        };
        let acquired = match acquired {
            Ok(a) => a,
            Err(k) => {
                out.sent.get_or_insert(dial_started);
                return Err(k);
            }
        };
        // `acquire` moved `dial_started` on if it had to wait for a reused
        // connection, so this is when the request went out.
        out.sent.get_or_insert(dial_started);
        if !acquired.reused {
            out.connect_ns = out.connect_ns.saturating_add(acquired.connect_ns);
        }
        if let Some(cap) = capture.as_deref_mut() {
            cap.phases.got_conn = Some(Instant::now());
            cap.phases.connecting += acquired.dial.tcp;
            cap.phases.tls_handshaking += acquired.dial.tls;
        }
        match acquired.conn {
            Conn::H1(mut c) => {
                if let Some(cap) = capture.as_deref_mut() {
                    cap.conn = c.info;
                    cap.http2 = false;
                }
                let head_only = tpl.method == Method::HEAD;
                let gzip = tpl.gzip.then(|| transport.gunzips());
                let r = within!(
                    POLLED,
                    deadline,
                    c.exchange(
                        &h1,
                        head_only,
                        &mut out.first_byte,
                        capture.as_deref_mut(),
                        gzip
                    )
                );
                if let Some(cap) = capture.as_deref_mut() {
                    let (out, read) = c.take_wire(h1.len() as u64);
                    cap.wire_out += out;
                    cap.wire_in += read;
                }
                // Whatever came of the body, complete or not.
                let (body, wire) = c.body_counts(gzip);
                out.bytes_in += body;
                out.body_wire += wire;
                match r {
                    Err(_) => {
                        let kind = if c.in_body() {
                            ErrorKind::BodyTimeout
                        } else {
                            ErrorKind::Timeout
                        };
                        drop(c);
                        tpl.pool.closed();
                        return Err(kind);
                    }
                    Ok(Ok(resp)) => {
                        out.done = Some(resp.done);
                        if resp.reusable && transport.keepalive() {
                            tpl.pool.put(c);
                        } else {
                            drop(c);
                            tpl.pool.closed();
                        }
                        return Ok((resp.status, resp.location));
                    }
                    Ok(Err(e)) => {
                        drop(c);
                        tpl.pool.closed();
                        if e.fresh && acquired.reused && retries < STALE_RETRIES {
                            retries += 1;
                            dial_started = Instant::now();
                            continue;
                        }
                        return Err(e.kind);
                    }
                }
            }
            Conn::H2(mut lease) => {
                let req = tpl.h2_request(seq).ok_or(ErrorKind::Protocol)?;
                if let Some(cap) = capture.as_deref_mut() {
                    // hyper writes the frames itself: handing the request
                    // over is as close to "written" as can be seen here.
                    cap.phases.wrote = cap.phases.got_conn;
                    cap.http2 = true;
                    cap.conn = lease.info;
                    cap.reason = None;
                }
                let mut in_body = false;
                let mut body = crate::gunzip::Body::default();
                let gzip = tpl.gzip.then(|| transport.gunzips());
                let r = within!(
                    POLLED,
                    deadline,
                    crate::h2::exchange(
                        &mut lease.sender,
                        req,
                        &mut out.first_byte,
                        &mut body,
                        &mut in_body,
                        capture.as_deref_mut(),
                        gzip,
                    )
                );
                // The connection's bytes since its previous request ended
                // (its frames are written and read by its own task).
                let taken = capture
                    .is_some()
                    .then(|| lease.counts.as_ref().map(|c| c.take()));
                drop(lease);
                let (body, wire) = body.take_counts(gzip);
                out.bytes_in += body;
                out.body_wire += wire;
                if let Some(cap) = capture.as_deref_mut() {
                    if let Some(Some((w, r))) = taken {
                        cap.wire_out += w;
                        cap.wire_in += r;
                    } else {
                        // No socket counts (a Unix socket): the request
                        // and response as HTTP/1.1 would carry them.
                        cap.wire_out += h1.len() as u64;
                        if in_body {
                            let head: usize =
                                cap.headers.iter().map(|(k, v)| k.len() + v.len() + 4).sum();
                            cap.wire_in += (head + "HTTP/1.1 200 OK\r\n\r\n".len()) as u64;
                        }
                        cap.wire_in += wire;
                    }
                }
                return match r {
                    // The response head arrived: the body is what stalled.
                    Err(_) if in_body => Err(ErrorKind::BodyTimeout),
                    Err(_) => Err(ErrorKind::Timeout),
                    Ok(Ok(resp)) => {
                        out.done = None;
                        Ok((resp.status, resp.location))
                    }
                    Ok(Err(k)) => Err(k),
                };
            }
        }
    }
}
