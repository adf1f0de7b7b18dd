//! A small pub/sub server speaking the subset of DSPS's HTTP API that DSPS's
//! own load-test script (`loadtest/loadtest.k6.js`) uses, so scripted
//! virtual users can be tested against it on 127.0.0.1:0. Written from
//! DSPS's documented interface (github.com/m3dev/dsps, `server/doc/`), not
//! from its code:
//!
//! * `PUT /channel/{ch}/message/{id}` with a JSON body: publishes to every
//!   subscriber the channel has at that moment; 200
//!   `{"channelID","messageID"}`; a message ID published twice in a channel
//!   is delivered once; a body that is not JSON is 400.
//! * `PUT /channel/{ch}/subscription/polling/{sid}`: creates the subscriber
//!   (again: still 200); 200 `{"channelID","subscriberID"}`.
//! * `DELETE /channel/{ch}/subscription/polling/{sid}`: removes it; 200.
//! * `GET /channel/{ch}/subscription/polling/{sid}?timeout=3s&max=64`: the
//!   subscriber's unacknowledged messages, waiting up to `timeout` (Go
//!   duration syntax, capped at [`Config::long_poll_max`]) when there are
//!   none; 200 `{"channelID","messages":[{"content","messageID"}],
//!   "moreMessages"}` plus `"ackHandle"` when there are messages; 404 for an
//!   unknown subscriber.
//! * `DELETE /channel/{ch}/subscription/polling/{sid}/message?ackHandle=H`:
//!   removes the messages up to the one `H` names; 204. A stale handle is
//!   still 204; a malformed one is 400; a missing one is 400.
//! * `GET /probe/liveness`, `GET /probe/readiness`: 200.
//!
//! IDs must match `^[0-9a-z][0-9a-z_-]{0,62}$` (else 400 naming the
//! parameter). Errors are `{"error": "..."}` JSON. JSON bodies end with a
//! newline and keep their keys in alphabetical order, as DSPS's do. An
//! `ackHandle` is opaque; it has the shape of real DSPS's (in-memory storage
//! behind its storage multiplexer): standard base64 (with `=` padding) of
//! `{"default":"{\"mid\":\"<last message id>\",\"xs\":\"<checksum>\"}"}`.
//! Scripts put it in the URL unencoded (`?ackHandle=${ackHandle}`); for such
//! ASCII JSON, base64 never yields `+` or `/`, so it survives that.
//!
//! Memory is bounded ([`Config`]): channels (idle ones are evicted when the
//! cap is reached), subscribers per channel,
//! queued messages per subscriber (the oldest is dropped past the cap),
//! remembered message IDs per channel, and the body size. The server stops
//! when its [`ServerHandle`] is dropped.

use std::collections::{HashMap, HashSet, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{Notify, watch};

/// Limits and knobs of a server. `Config::default()` suits tests and the
/// seed script at a few thousand virtual users.
#[derive(Clone, Debug)]
pub struct Config {
    /// Longest long poll; a longer `timeout=` is cut to this (DSPS: 30 s).
    pub long_poll_max: Duration,
    /// Channels kept. A request creating one more first evicts the
    /// channels unused (no publish, subscribe, poll or ack) for
    /// [`Config::channel_idle`]; if none is, it is 503.
    pub max_channels: usize,
    /// How long a channel must be unused to be evicted when
    /// [`Config::max_channels`] is reached.
    pub channel_idle: Duration,
    /// Subscribers per channel; creating one more is 503.
    pub max_subscribers_per_channel: usize,
    /// Unacknowledged messages queued per subscriber; past it the oldest is
    /// dropped (and counted in [`Counts::dropped`]).
    pub max_queue: usize,
    /// Message IDs remembered per channel to drop duplicate publishes.
    pub max_remembered_ids: usize,
    /// Largest request body; a larger one is 413.
    pub max_body: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            long_poll_max: Duration::from_secs(30),
            max_channels: 20_000,
            channel_idle: Duration::from_secs(60),
            max_subscribers_per_channel: 1_000,
            max_queue: 1_000,
            max_remembered_ids: 4_096,
            max_body: 64 * 1024,
        }
    }
}

/// What the server has done so far (see [`ServerHandle::counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Accepted publishes (duplicates included).
    pub published: u64,
    /// Subscriber creations (repeats included).
    pub subscribed: u64,
    /// Polls answered with 200.
    pub fetches: u64,
    /// Messages handed out by polls (a message polled twice counts twice).
    pub delivered: u64,
    /// Acknowledgements answered with 204.
    pub acks: u64,
    /// Messages removed by acknowledgements.
    pub acked: u64,
    /// Messages dropped from full subscriber queues.
    pub dropped: u64,
    /// Requests answered with a 4xx or 5xx status.
    pub errors: u64,
}

#[derive(Default)]
struct Counters {
    published: AtomicU64,
    subscribed: AtomicU64,
    fetches: AtomicU64,
    delivered: AtomicU64,
    acks: AtomicU64,
    acked: AtomicU64,
    dropped: AtomicU64,
    errors: AtomicU64,
}

struct Message {
    id: String,
    content: Bytes,
}

struct Subscriber {
    queue: VecDeque<Arc<Message>>,
    wake: Arc<Notify>,
}

struct Channel {
    subscribers: HashMap<String, Subscriber>,
    seen: HashSet<String>,
    seen_order: VecDeque<String>,
    used: Instant,
}

struct State {
    cfg: Config,
    channels: Mutex<HashMap<String, Channel>>,
    n: Counters,
}

/// A running server; dropping it stops the server (its listener closes and
/// open connections, long polls included, are cut).
pub struct ServerHandle {
    state: Arc<State>,
    _stop: watch::Sender<()>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ServerHandle {
    /// What the server has done so far.
    pub fn counts(&self) -> Counts {
        let n = &self.state.n;
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Counts {
            published: g(&n.published),
            subscribed: g(&n.subscribed),
            fetches: g(&n.fetches),
            delivered: g(&n.delivered),
            acks: g(&n.acks),
            acked: g(&n.acked),
            dropped: g(&n.dropped),
            errors: g(&n.errors),
        }
    }

    /// Channels currently held.
    pub fn channels(&self) -> usize {
        self.state.channels.lock().unwrap().len()
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        // Dropping `_stop` (after this) tells every task to end; a server on
        // its own thread is joined so its port is closed once drop returns.
        let (tx, _) = watch::channel(());
        drop(std::mem::replace(&mut self._stop, tx));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Starts a server with [`Config::default`] on 127.0.0.1:0 on the current
/// tokio runtime.
pub async fn serve() -> (SocketAddr, ServerHandle) {
    serve_with(Config::default()).await
}

/// Starts a server with `cfg` on 127.0.0.1:0 on the current tokio runtime.
pub async fn serve_with(cfg: Config) -> (SocketAddr, ServerHandle) {
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (addr, state, stop) = start(l, cfg);
    (
        addr,
        ServerHandle {
            state,
            _stop: stop,
            thread: None,
        },
    )
}

/// Starts a server with [`Config::default`] on 127.0.0.1:0 on a thread of
/// its own (for tests that are not async, e.g. ones running a binary).
pub fn serve_blocking() -> (SocketAddr, ServerHandle) {
    serve_blocking_on("127.0.0.1:0".parse().unwrap(), Config::default()).unwrap()
}

/// Starts a server with `cfg` on `addr` (loopback, or port 0) on a thread of
/// its own, driven by a one-thread runtime.
pub fn serve_blocking_on(
    addr: SocketAddr,
    cfg: Config,
) -> std::io::Result<(SocketAddr, ServerHandle)> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let l = rt.block_on(TcpListener::bind(addr))?;
    let (addr, state, stop) = {
        let _g = rt.enter();
        start(l, cfg)
    };
    let mut done = stop.subscribe();
    let thread = std::thread::Builder::new()
        .name("pubsub-server".into())
        .spawn(move || {
            rt.block_on(async move {
                let _ = done.changed().await;
            });
            // Dropping the runtime cancels every connection task.
            drop(rt);
        })?;
    Ok((
        addr,
        ServerHandle {
            state,
            _stop: stop,
            thread: Some(thread),
        },
    ))
}

fn start(l: TcpListener, cfg: Config) -> (SocketAddr, Arc<State>, watch::Sender<()>) {
    let addr = l.local_addr().unwrap();
    let state = Arc::new(State {
        cfg,
        channels: Mutex::new(HashMap::new()),
        n: Counters::default(),
    });
    let (stop, _) = watch::channel(());
    let mut stopped = stop.subscribe();
    let st = state.clone();
    let stop_rx = stop.subscribe();
    tokio::spawn(async move {
        loop {
            let c = tokio::select! {
                _ = stopped.changed() => break,
                c = l.accept() => c,
            };
            let Ok((c, _)) = c else {
                // Out of descriptors or similar: wait a little, go on.
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            };
            let _ = c.set_nodelay(true);
            let st = st.clone();
            let mut stopped = stop_rx.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req| {
                    let st = st.clone();
                    async move { Ok::<_, Infallible>(handle(&st, req).await) }
                });
                let conn = hyper::server::conn::http1::Builder::new()
                    .keep_alive(true)
                    .serve_connection(TokioIo::new(c), svc);
                tokio::select! {
                    _ = conn => {}
                    _ = stopped.changed() => {}
                }
            });
        }
    });
    (addr, state, stop)
}

type Resp = Response<Full<Bytes>>;

fn json(status: StatusCode, body: String) -> Resp {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    let h = r.headers_mut();
    h.insert("content-type", "application/json".parse().unwrap());
    default_headers(h);
    r
}

fn default_headers(h: &mut hyper::HeaderMap) {
    // The headers DSPS adds to every answer by default.
    h.insert(
        "cache-control",
        "no-cache, no-store, max-age=0, must-revalidate"
            .parse()
            .unwrap(),
    );
    h.insert("expires", "0".parse().unwrap());
    h.insert("pragma", "no-cache".parse().unwrap());
    h.insert("x-content-type-options", "nosniff".parse().unwrap());
    h.insert("x-frame-options", "deny".parse().unwrap());
}

fn error(st: &State, status: StatusCode, msg: &str) -> Resp {
    st.n.errors.fetch_add(1, Ordering::Relaxed);
    json(status, format!("{{\"error\":{}}}\n", q(msg)))
}

fn plain(st: &State, status: StatusCode, msg: &str) -> Resp {
    st.n.errors.fetch_add(1, Ordering::Relaxed);
    let mut r = Response::new(Full::new(Bytes::from(format!("{msg}\n"))));
    *r.status_mut() = status;
    r.headers_mut()
        .insert("content-type", "text/plain; charset=utf-8".parse().unwrap());
    r
}

/// A JSON string literal.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn valid_id(s: &str) -> bool {
    let b = s.as_bytes();
    let ok = |c: u8| c.is_ascii_digit() || c.is_ascii_lowercase();
    !b.is_empty()
        && b.len() <= 63
        && ok(b[0])
        && b[1..].iter().all(|&c| ok(c) || c == b'_' || c == b'-')
}

fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    query?.split('&').find_map(|kv| {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        (percent_decode(k) == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Go's `time.ParseDuration` for the forms a client sends: `0`, or one or
/// more `<number><unit>` with units ns, us, µs, ms, s, m, h (a leading `-`
/// means zero here).
pub fn parse_go_duration(s: &str) -> Option<Duration> {
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Some(Duration::ZERO);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total = 0f64;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..n];
        if num.is_empty() || num == "." {
            return None;
        }
        let v: f64 = num.parse().ok()?;
        rest = &rest[n..];
        let u = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let mult = match &rest[..u] {
            "ns" => 1e-9,
            "us" | "µs" | "μs" => 1e-6,
            "ms" => 1e-3,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return None,
        };
        total += v * mult;
        rest = &rest[u..];
    }
    if neg || !total.is_finite() {
        return Some(Duration::ZERO);
    }
    Some(Duration::from_secs_f64(total.min(1e9)))
}

fn checksum(ch: &str, sid: &str, mid: &str) -> String {
    // FNV-1a over the locator: enough to catch a handle used on the wrong
    // subscriber or edited by hand.
    let mut h: u32 = 0x811c9dc5;
    for b in ch
        .bytes()
        .chain([0])
        .chain(sid.bytes())
        .chain([0])
        .chain(mid.bytes())
    {
        h ^= b as u32;
        h = h.wrapping_mul(0x01000193);
    }
    format!("{h:08x}")
}

/// A handle shaped like real DSPS's (its storage multiplexer wraps the
/// in-memory storage's JSON handle in standard base64 under the storage's
/// name): base64 of `{"default":"{\"mid\":\"<id>\",\"xs\":\"<checksum>\"}"}`.
fn ack_handle(ch: &str, sid: &str, mid: &str) -> String {
    let inner = serde_json::json!({"mid": mid, "xs": checksum(ch, sid, mid)}).to_string();
    let outer = serde_json::json!({ "default": inner }).to_string();
    base64::engine::general_purpose::STANDARD.encode(outer)
}

fn parse_ack_handle(ch: &str, sid: &str, h: &str) -> Option<String> {
    let outer = base64::engine::general_purpose::STANDARD.decode(h).ok()?;
    let outer: serde_json::Value = serde_json::from_slice(&outer).ok()?;
    let inner: serde_json::Value = serde_json::from_str(outer.get("default")?.as_str()?).ok()?;
    let mid = inner.get("mid")?.as_str()?;
    (valid_id(mid) && inner.get("xs")?.as_str()? == checksum(ch, sid, mid)).then(|| mid.to_string())
}

async fn handle(st: &Arc<State>, req: Request<Incoming>) -> Resp {
    let path = req.uri().path().to_string();
    let query = req.uri().query().map(str::to_string);
    let segs: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let m = req.method().clone();
    match (segs.as_slice(), &m) {
        (["probe", "liveness" | "readiness"], &Method::GET) => {
            let _unused = st.channels.lock().unwrap().len();
            json(StatusCode::OK, "{\"storage\":\"ok\"}\n".into())
        }
        (["channel", ch, "message", mid], &Method::PUT) => {
            let (ch, mid) = (ch.to_string(), mid.to_string());
            publish(st, &ch, &mid, req).await
        }
        (["channel", ch, "subscription", "polling", sid], &Method::PUT) => subscribe(st, ch, sid),
        (["channel", ch, "subscription", "polling", sid], &Method::DELETE) => {
            unsubscribe(st, ch, sid)
        }
        (["channel", ch, "subscription", "polling", sid], &Method::GET) => {
            let (ch, sid) = (ch.to_string(), sid.to_string());
            fetch(st, &ch, &sid, query.as_deref()).await
        }
        (["channel", ch, "subscription", "polling", sid, "message"], &Method::DELETE) => {
            ack(st, ch, sid, query.as_deref())
        }
        (["probe", "liveness" | "readiness"], _)
        | (["channel", _, "message", _], _)
        | (["channel", _, "subscription", "polling", _], _)
        | (["channel", _, "subscription", "polling", _, "message"], _) => {
            plain(st, StatusCode::METHOD_NOT_ALLOWED, "Method Not Allowed")
        }
        _ => plain(st, StatusCode::NOT_FOUND, "404 page not found"),
    }
}

fn check_ids(st: &State, ids: &[(&str, &str)]) -> Option<Resp> {
    ids.iter().find(|(_, v)| !valid_id(v)).map(|(name, _)| {
        error(
            st,
            StatusCode::BAD_REQUEST,
            &format!("Invalid \"{name}\" parameter"),
        )
    })
}

/// The channel `ch`, created if there is room.
fn channel<'a>(
    st: &State,
    chans: &'a mut HashMap<String, Channel>,
    ch: &str,
) -> Result<&'a mut Channel, Box<Resp>> {
    if !chans.contains_key(ch) {
        if chans.len() >= st.cfg.max_channels {
            let idle = st.cfg.channel_idle;
            chans.retain(|_, c| {
                let keep = c.used.elapsed() < idle;
                if !keep {
                    for s in c.subscribers.values() {
                        s.wake.notify_waiters();
                    }
                }
                keep
            });
        }
        if chans.len() >= st.cfg.max_channels {
            return Err(Box::new(error(
                st,
                StatusCode::SERVICE_UNAVAILABLE,
                "Too many channels on this test server",
            )));
        }
        chans.insert(
            ch.to_string(),
            Channel {
                subscribers: HashMap::new(),
                seen: HashSet::new(),
                seen_order: VecDeque::new(),
                used: Instant::now(),
            },
        );
    }
    let c = chans.get_mut(ch).unwrap();
    c.used = Instant::now();
    Ok(c)
}

async fn publish(st: &Arc<State>, ch: &str, mid: &str, req: Request<Incoming>) -> Resp {
    if let Some(r) = check_ids(st, &[("channelID", ch), ("messageID", mid)]) {
        return r;
    }
    let body = match Limited::new(req.into_body(), st.cfg.max_body)
        .collect()
        .await
    {
        Ok(b) => b.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            return error(
                st,
                StatusCode::PAYLOAD_TOO_LARGE,
                "Request body is too large",
            );
        }
        Err(_) => return error(st, StatusCode::BAD_REQUEST, "Request body is not JSON"),
    };
    if serde_json::from_slice::<serde_json::Value>(&body).is_err() {
        return error(st, StatusCode::BAD_REQUEST, "Request body is not JSON");
    }
    let content = Bytes::from(String::from_utf8_lossy(&body).trim().to_string());
    {
        let mut chans = st.channels.lock().unwrap();
        let c = match channel(st, &mut chans, ch) {
            Ok(c) => c,
            Err(r) => return *r,
        };
        st.n.published.fetch_add(1, Ordering::Relaxed);
        if c.seen.insert(mid.to_string()) {
            c.seen_order.push_back(mid.to_string());
            if c.seen_order.len() > st.cfg.max_remembered_ids {
                let old = c.seen_order.pop_front().unwrap();
                c.seen.remove(&old);
            }
            let msg = Arc::new(Message {
                id: mid.to_string(),
                content,
            });
            for s in c.subscribers.values_mut() {
                s.queue.push_back(msg.clone());
                if s.queue.len() > st.cfg.max_queue {
                    s.queue.pop_front();
                    st.n.dropped.fetch_add(1, Ordering::Relaxed);
                }
                s.wake.notify_waiters();
            }
        }
    }
    json(
        StatusCode::OK,
        format!("{{\"channelID\":{},\"messageID\":{}}}\n", q(ch), q(mid)),
    )
}

fn subscribe(st: &State, ch: &str, sid: &str) -> Resp {
    if let Some(r) = check_ids(st, &[("channelID", ch), ("subscriberID", sid)]) {
        return r;
    }
    {
        let mut chans = st.channels.lock().unwrap();
        let c = match channel(st, &mut chans, ch) {
            Ok(c) => c,
            Err(r) => return *r,
        };
        if !c.subscribers.contains_key(sid) {
            if c.subscribers.len() >= st.cfg.max_subscribers_per_channel {
                return error(
                    st,
                    StatusCode::SERVICE_UNAVAILABLE,
                    "Too many subscribers in this channel on this test server",
                );
            }
            c.subscribers.insert(
                sid.to_string(),
                Subscriber {
                    queue: VecDeque::new(),
                    wake: Arc::new(Notify::new()),
                },
            );
        }
        st.n.subscribed.fetch_add(1, Ordering::Relaxed);
    }
    json(
        StatusCode::OK,
        format!("{{\"channelID\":{},\"subscriberID\":{}}}\n", q(ch), q(sid)),
    )
}

fn unsubscribe(st: &State, ch: &str, sid: &str) -> Resp {
    if let Some(r) = check_ids(st, &[("channelID", ch), ("subscriberID", sid)]) {
        return r;
    }
    {
        let mut chans = st.channels.lock().unwrap();
        if let Some(c) = chans.get_mut(ch)
            && let Some(s) = c.subscribers.remove(sid)
        {
            s.wake.notify_waiters();
        }
    }
    json(
        StatusCode::OK,
        format!("{{\"channelID\":{},\"subscriberID\":{}}}\n", q(ch), q(sid)),
    )
}

async fn fetch(st: &Arc<State>, ch: &str, sid: &str, query: Option<&str>) -> Resp {
    if let Some(r) = check_ids(st, &[("channelID", ch), ("subscriberID", sid)]) {
        return r;
    }
    let timeout = match query_param(query, "timeout") {
        None => Duration::ZERO,
        Some(t) => match parse_go_duration(&t) {
            Some(d) => d.min(st.cfg.long_poll_max),
            None => return error(st, StatusCode::BAD_REQUEST, "Invalid \"timeout\" parameter"),
        },
    };
    let max = match query_param(query, "max") {
        None => 64,
        Some(m) => match m.parse::<i64>() {
            Ok(m) => m.max(1) as usize,
            Err(_) => return error(st, StatusCode::BAD_REQUEST, "Invalid \"max\" parameter"),
        },
    };
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let wake = {
            let mut chans = st.channels.lock().unwrap();
            let Some(c) = chans.get_mut(ch) else {
                return error(st, StatusCode::NOT_FOUND, "Subscription not found");
            };
            c.used = Instant::now();
            let Some(s) = c.subscribers.get(sid) else {
                return error(st, StatusCode::NOT_FOUND, "Subscription not found");
            };
            if !s.queue.is_empty() || tokio::time::Instant::now() >= deadline {
                let n = s.queue.len().min(max);
                let more = s.queue.len() > n;
                let mut body = String::with_capacity(64 + n * 64);
                if n > 0 {
                    let last = &s.queue[n - 1].id;
                    body.push_str(&format!(
                        "{{\"ackHandle\":{},",
                        q(&ack_handle(ch, sid, last))
                    ));
                } else {
                    body.push('{');
                }
                body.push_str(&format!("\"channelID\":{},\"messages\":[", q(ch)));
                for (i, m) in s.queue.iter().take(n).enumerate() {
                    if i > 0 {
                        body.push(',');
                    }
                    body.push_str("{\"content\":");
                    body.push_str(std::str::from_utf8(&m.content).unwrap_or("null"));
                    body.push_str(&format!(",\"messageID\":{}}}", q(&m.id)));
                }
                body.push_str(&format!("],\"moreMessages\":{more}}}\n"));
                st.n.fetches.fetch_add(1, Ordering::Relaxed);
                st.n.delivered.fetch_add(n as u64, Ordering::Relaxed);
                return json(StatusCode::OK, body);
            }
            s.wake.clone()
        };
        // Registered before the lock is taken again, so a publish between
        // here and the await still wakes this poll.
        let notified = wake.notified();
        let _ = tokio::time::timeout_at(deadline, notified).await;
    }
}

fn ack(st: &State, ch: &str, sid: &str, query: Option<&str>) -> Resp {
    if let Some(r) = check_ids(st, &[("channelID", ch), ("subscriberID", sid)]) {
        return r;
    }
    let Some(h) = query_param(query, "ackHandle").filter(|h| !h.is_empty()) else {
        return error(
            st,
            StatusCode::BAD_REQUEST,
            "Missing \"ackHandle\" parameter",
        );
    };
    let mut chans = st.channels.lock().unwrap();
    let Some(c) = chans.get_mut(ch) else {
        return error(st, StatusCode::NOT_FOUND, "Subscription not found");
    };
    c.used = Instant::now();
    let Some(s) = c.subscribers.get_mut(sid) else {
        return error(st, StatusCode::NOT_FOUND, "Subscription not found");
    };
    let Some(mid) = parse_ack_handle(ch, sid, &h) else {
        return error(
            st,
            StatusCode::BAD_REQUEST,
            &format!("Malformed ackHandle ({h})"),
        );
    };
    if let Some(i) = s.queue.iter().position(|m| m.id == mid) {
        s.queue.drain(..=i);
        st.n.acked.fetch_add(i as u64 + 1, Ordering::Relaxed);
    }
    st.n.acks.fetch_add(1, Ordering::Relaxed);
    drop(chans);
    let mut r = Response::new(Full::new(Bytes::new()));
    *r.status_mut() = StatusCode::NO_CONTENT;
    default_headers(r.headers_mut());
    r
}
