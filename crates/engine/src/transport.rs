//! Connections: dialling (TCP, Unix sockets, `-connect-to`, `-laddr`, TLS with
//! ALPN), per-host pools of idle keep-alive connections. The byte stream and
//! the mapping of I/O failures to [`ErrorKind`]s are in `stream.rs`.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http_body_util::Full;
use loadlab_core::ErrorKind;
use rustls::pki_types::ServerName;
use tokio::net::{TcpSocket, TcpStream, UnixStream};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};

use crate::config::{AttackConfig, DnsCache};
use crate::h1::H1Conn;
use crate::rxtime::StampedTcp;
use crate::stream::{Owner, Stream, classify};

/// Where requests for one `scheme://host:port` go.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct EndpointKey {
    pub tls: bool,
    pub host: String,
    pub port: u16,
}

/// A connection ready for one request.
pub(crate) enum Conn {
    H1(Box<H1Conn>),
    H2(H2Lease),
}

/// Streams one HTTP/2 connection carries before another is opened: the
/// smallest limit servers are asked to allow (RFC 9113, 6.5.2). A server
/// that allows fewer queues the rest on the connection.
pub(crate) const H2_STREAMS_PER_CONN: usize = 100;

type H2Sender = hyper::client::conn::http2::SendRequest<Full<Bytes>>;

/// One open HTTP/2 connection and the streams it carries now.
struct H2Entry {
    sender: H2Sender,
    streams: Arc<AtomicUsize>,
    info: crate::stream::ConnInfo,
    counts: Option<Arc<crate::wire::WireCounts>>,
}

/// The endpoint's HTTP/2 connections.
#[derive(Default)]
struct H2Set {
    conns: Vec<H2Entry>,
    /// A connection is being opened because every one was full: others
    /// queue on the least busy one meanwhile instead of dialling too. With
    /// none open yet, it is the first dial to an endpoint that may speak
    /// HTTP/2: others wait for what it speaks (as Go's HTTP/2 pool does),
    /// instead of each opening a connection only to share the first.
    dialing: bool,
    /// The endpoint was offered HTTP/2 and chose HTTP/1.1: its requests
    /// dial without waiting for each other.
    spoke_h1: bool,
}

/// What [`HostPool::h2`] found.
enum H2Pick {
    /// A stream on an open HTTP/2 connection.
    Lease(H2Lease),
    /// This caller opens the endpoint's next connection (holding a
    /// [`DialTurn`]).
    Dial,
    /// No HTTP/2 connection: dial or reuse an HTTP/1.1 one.
    None,
    /// The first connection is being opened: wait to learn what it speaks.
    Wait,
}

/// The turn to open an endpoint's next HTTP/2 connection (see `HostPool::h2`).
struct DialTurn<'a> {
    pool: &'a HostPool,
    held: bool,
}

impl DialTurn<'_> {
    fn release(&mut self) {
        if std::mem::take(&mut self.held) {
            self.pool.h2_dial_ended();
        }
    }
}

impl Drop for DialTurn<'_> {
    fn drop(&mut self) {
        self.release();
    }
}

/// A stream on a shared HTTP/2 connection, counted until dropped.
pub(crate) struct H2Lease {
    pub sender: H2Sender,
    streams: Arc<AtomicUsize>,
    /// The connection's peer and TLS parameters.
    pub info: crate::stream::ConnInfo,
    /// The connection's socket byte counts (`None` on a Unix socket).
    pub counts: Option<Arc<crate::wire::WireCounts>>,
}

impl Drop for H2Lease {
    fn drop(&mut self) {
        self.streams.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The pool for one endpoint: idle HTTP/1.1 connections, the shared HTTP/2
/// connections (as many as the streams in flight need, [`H2_STREAMS_PER_CONN`]
/// each, as Go's client opens more when one is full), and the
/// `-max-connections` cap.
pub(crate) struct HostPool {
    pub key: EndpointKey,
    // Boxed so that moving a connection in and out of the pool (once per
    // request) copies a pointer, not the connection.
    #[allow(clippy::vec_box)]
    idle: Mutex<Vec<Box<H1Conn>>>,
    /// Idle connections that have an owner ([`crate::stream::Owner`]),
    /// by owner: found without a scan of every VU's.
    #[allow(clippy::vec_box)]
    owned: Mutex<HashMap<u32, Vec<Box<H1Conn>>>>,
    h2: Mutex<H2Set>,
    open: Option<Arc<Semaphore>>,
    /// Wakes a request waiting for a connection when one is returned or closed.
    freed: Notify,
    max_idle: usize,
    /// Whether a late request opens a connection or waits for one of
    /// these (see `behind.rs`).
    gate: crate::behind::Gate,
}

impl HostPool {
    fn take_idle(&self, owner: u32) -> Option<Box<H1Conn>> {
        let c = if owner == 0 {
            self.idle.lock().expect("pool lock").pop()
        } else {
            self.owned.lock().expect("pool lock").get_mut(&owner)?.pop()
        };
        if let Some(c) = &c {
            c.watch.taken();
        }
        c
    }

    /// Whether a request waits for a connection to be returned or closed.
    fn waited_for(&self) -> bool {
        self.open.is_some() || self.gate.has_waiters()
    }

    /// Drops the idle connections of `owner` (closing them).
    fn close_idle_of(&self, owner: u32) {
        let gone = self.owned.lock().expect("pool lock").remove(&owner);
        if gone.is_some_and(|g| !g.is_empty()) && self.waited_for() {
            self.freed.notify_one();
        }
    }

    /// Returns a connection after a complete exchange it can be reused for.
    pub fn put(&self, c: Box<H1Conn>) {
        c.watch.idle();
        if c.owner != 0 {
            let mut owned = self.owned.lock().expect("pool lock");
            let mine = owned.entry(c.owner).or_default();
            if mine.len() < self.max_idle {
                mine.push(c);
            }
        } else {
            let mut idle = self.idle.lock().expect("pool lock");
            if idle.len() < self.max_idle {
                idle.push(c);
            }
        }
        if self.waited_for() {
            self.freed.notify_one();
        }
    }

    /// Called after a connection was dropped, so a waiter may dial.
    pub fn closed(&self) {
        if self.waited_for() {
            self.freed.notify_one();
        }
    }

    /// A stream on the least busy HTTP/2 connection. A full one is only
    /// taken when `queue` is set or another connection is being opened;
    /// otherwise this caller is to open the next one. With none open and
    /// `may_h2` (HTTP/2 offered to an endpoint not known to refuse it), the
    /// first caller dials and the others wait for it.
    fn h2(&self, queue: bool, may_h2: bool) -> H2Pick {
        let mut set = self.h2.lock().expect("pool lock");
        set.conns.retain(|c| !c.sender.is_closed());
        let Some(best) = set
            .conns
            .iter()
            .min_by_key(|c| c.streams.load(Ordering::Relaxed))
        else {
            if !may_h2 || set.spoke_h1 {
                return H2Pick::None;
            }
            if set.dialing {
                return H2Pick::Wait;
            }
            set.dialing = true;
            return H2Pick::Dial;
        };
        let busy = best.streams.load(Ordering::Relaxed);
        if busy >= H2_STREAMS_PER_CONN && !queue && !set.dialing {
            set.dialing = true;
            return H2Pick::Dial;
        }
        best.streams.fetch_add(1, Ordering::Relaxed);
        H2Pick::Lease(H2Lease {
            sender: best.sender.clone(),
            streams: best.streams.clone(),
            info: best.info,
            counts: best.counts.clone(),
        })
    }

    /// Adds a new HTTP/2 connection and leases its first stream.
    fn add_h2(
        &self,
        sender: H2Sender,
        info: crate::stream::ConnInfo,
        counts: Option<Arc<crate::wire::WireCounts>>,
    ) -> H2Lease {
        let streams = Arc::new(AtomicUsize::new(1));
        let mut set = self.h2.lock().expect("pool lock");
        set.dialing = false;
        set.conns.push(H2Entry {
            sender: sender.clone(),
            streams: streams.clone(),
            info,
            counts: counts.clone(),
        });
        drop(set);
        // Requests that waited at the cap or for the first connection while
        // it was dialled can all take a stream on it now (one notification
        // each would leave the others waiting until a connection frees, or
        // until their timeout). New HTTP/2 connections are few: no need to
        // ask first whether anyone waits.
        self.freed.notify_waiters();
        H2Lease {
            sender,
            streams,
            info,
            counts,
        }
    }

    /// The request that was to open the next HTTP/2 connection is done
    /// (it opened it, failed, got HTTP/1.1 or was cancelled). Requests
    /// waiting for the first connection go on: one of them dials next.
    fn h2_dial_ended(&self) {
        let mut set = self.h2.lock().expect("pool lock");
        let first = set.conns.is_empty();
        set.dialing = false;
        drop(set);
        if first {
            self.freed.notify_waiters();
        }
    }

    /// True while the endpoint's first connection is being opened and
    /// requests wait to learn what it speaks.
    fn first_pending(&self) -> bool {
        let set = self.h2.lock().expect("pool lock");
        set.dialing && !set.spoke_h1 && set.conns.is_empty()
    }

    /// A dial that offered HTTP/2 got HTTP/1.1: later requests dial
    /// without waiting for each other.
    fn spoke_h1(&self) {
        self.h2.lock().expect("pool lock").spoke_h1 = true;
    }
}

/// How far getting a connection went: when the request's deadline passes
/// during `acquire`, this says what stalled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum DialPhase {
    /// Waiting for a free connection (`-max-connections`).
    #[default]
    Waiting,
    /// Looking the host up and connecting (TCP or Unix socket).
    Connecting,
    /// TCP connected; the TLS handshake is under way.
    Tls,
    /// Connected; the HTTP/2 handshake is under way.
    Http2,
}

impl DialPhase {
    /// The error of a request whose deadline passed in this phase.
    pub fn timeout_kind(self) -> ErrorKind {
        match self {
            DialPhase::Waiting | DialPhase::Http2 => ErrorKind::Timeout,
            DialPhase::Connecting => ErrorKind::ConnectTimeout,
            DialPhase::Tls => ErrorKind::TlsHandshakeTimeout,
        }
    }
}

/// A connection handed to a request, with how long dialling took (0 if reused).
pub(crate) struct Acquired {
    pub conn: Conn,
    pub connect_ns: u32,
    pub reused: bool,
    /// The TCP connect and TLS handshake parts of `connect_ns`.
    pub dial: DialTimes,
}

/// How long a new connection's TCP connect and TLS handshake took.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct DialTimes {
    pub tcp: std::time::Duration,
    pub tls: std::time::Duration,
}

impl Acquired {
    /// A connection that was already open.
    fn reused(conn: Conn) -> Self {
        Acquired {
            conn,
            connect_ns: 0,
            reused: true,
            dial: DialTimes::default(),
        }
    }
}

/// A host's resolved addresses and when they were looked up.
type Lookup = (Arc<[SocketAddr]>, tokio::time::Instant);

/// Dials and pools connections for every endpoint of an attack.
pub(crate) struct Transport {
    pools: Mutex<HashMap<EndpointKey, Arc<HostPool>>>,
    /// The pool [`Transport::pool_of`] gave last.
    last_pool: Mutex<Option<Arc<HostPool>>>,
    /// Resolved addresses and when they were looked up.
    dns: Mutex<HashMap<String, Lookup>>,
    dns_cache: DnsCache,
    connect_to: HashMap<String, (Vec<String>, AtomicUsize)>,
    /// k6's `hosts`: names dialled at fixed addresses.
    hosts: crate::hosts::HostOverrides,
    /// k6's `dns` select and policy.
    dns_pick: Option<Arc<crate::dns_pick::DnsPick>>,
    /// k6's `blockHostnames` and `blacklistIPs`.
    blocklist: Option<Arc<crate::blocklist::Blocklist>>,
    unix_socket: Option<PathBuf>,
    laddr: Option<IpAddr>,
    tls: Option<Arc<rustls::ClientConfig>>,
    /// `tls` offering only `http/1.1` (for [`Transport::open_h1`]).
    tls_h1: Option<Arc<rustls::ClientConfig>>,
    h2c: bool,
    keepalive: bool,
    chunked: bool,
    compression: bool,
    /// Decoders lent to the gzip bodies the engine asked for.
    gunzips: crate::gunzip::GunzipPool,
    max_idle: usize,
    max_open: Option<usize>,
    /// `-max-headers-size`.
    max_headers_size: usize,
    /// Connections per endpoint below which even a late request opens one
    /// (`-workers`; see `behind.rs`).
    behind_floor: usize,
    /// Late requests waiting for one of their pool's connections (see
    /// `behind.rs`), in every pool: the worker pool does not grow for them.
    waiting_behind: AtomicUsize,
    /// Notified each time a late request stops waiting (it is about to
    /// send, and busy): the worker pool grows for it then.
    waits_ended: Notify,
    /// Set once a connection without kernel receive stamps was opened
    /// (Unix socket, HTTP/2, or a kernel that refused): its responses must
    /// be read as they arrive to be timed right.
    unstamped: AtomicBool,
    /// Ask the kernel for receive stamps (paced attacks; at full speed the
    /// client reads at once and the stamps would only cost time).
    stamp: bool,
}

impl Transport {
    pub fn new(cfg: &AttackConfig, tls: Option<Arc<rustls::ClientConfig>>) -> Self {
        let mut connect_to: HashMap<String, (Vec<String>, AtomicUsize)> = HashMap::new();
        for (src, dst) in &cfg.connect_to {
            connect_to
                // Host names compare case-insensitively, as in URLs.
                .entry(src.to_ascii_lowercase())
                .or_insert_with(|| (Vec::new(), AtomicUsize::new(0)))
                .0
                .push(dst.clone());
        }
        Transport {
            pools: Mutex::new(HashMap::new()),
            last_pool: Mutex::new(None),
            dns: Mutex::new(HashMap::new()),
            dns_cache: cfg.dns_cache,
            connect_to,
            hosts: cfg.hosts.clone(),
            dns_pick: cfg.dns_pick.clone(),
            blocklist: cfg.blocklist.clone().filter(|b| !b.is_empty()),
            unix_socket: cfg.unix_socket.clone(),
            laddr: cfg.laddr,
            tls_h1: tls.as_ref().map(|c| {
                let mut c = (**c).clone();
                c.alpn_protocols = vec![b"http/1.1".to_vec()];
                Arc::new(c)
            }),
            tls,
            h2c: cfg.h2c,
            keepalive: cfg.keepalive,
            chunked: cfg.chunked,
            compression: cfg.compression,
            gunzips: Default::default(),
            max_idle: if cfg.keepalive { cfg.connections } else { 0 },
            max_open: cfg.max_connections,
            max_headers_size: cfg.max_headers_size,
            behind_floor: usize::try_from(cfg.workers).unwrap_or(usize::MAX).max(1),
            unstamped: AtomicBool::new(false),
            stamp: !cfg.unpaced() && !cfg.resolution.is_zero(),
            waiting_behind: AtomicUsize::new(0),
            waits_ended: Notify::new(),
        }
    }

    /// True while every connection opened so far times its responses by
    /// kernel receive stamps.
    pub fn all_stamped(&self) -> bool {
        !self.unstamped.load(Ordering::Relaxed)
    }

    pub fn keepalive(&self) -> bool {
        self.keepalive
    }

    pub fn chunked(&self) -> bool {
        self.chunked
    }

    pub fn compression(&self) -> bool {
        self.compression
    }

    /// The decoders of the gzip bodies the engine asked for.
    pub(crate) fn gunzips(&self) -> &crate::gunzip::GunzipPool {
        &self.gunzips
    }

    /// The pool of `uri`'s endpoint: the last one asked for when it is the
    /// same (the k6 face builds a request's template per request, nearly
    /// always to the same endpoint), found without building its key.
    pub fn pool_of(&self, uri: &http::Uri) -> Arc<HostPool> {
        let tls = uri.scheme_str() == Some("https");
        let host = uri
            .host()
            .unwrap_or("")
            .trim_start_matches('[')
            .trim_end_matches(']');
        let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
        let mut last = self.last_pool.lock().expect("pools lock");
        if let Some(p) = &*last
            && p.key.tls == tls
            && p.key.port == port
            && p.key.host.eq_ignore_ascii_case(host)
        {
            return p.clone();
        }
        let p = self.pool(&EndpointKey {
            tls,
            host: host.to_ascii_lowercase(),
            port,
        });
        *last = Some(p.clone());
        p
    }

    /// The pool for an endpoint, created on first use.
    pub fn pool(&self, key: &EndpointKey) -> Arc<HostPool> {
        let mut pools = self.pools.lock().expect("pools lock");
        if let Some(p) = pools.get(key) {
            return p.clone();
        }
        let p = Arc::new(HostPool {
            key: key.clone(),
            idle: Mutex::new(Vec::new()),
            owned: Mutex::new(HashMap::new()),
            h2: Mutex::new(H2Set::default()),
            open: self.max_open.map(|n| Arc::new(Semaphore::new(n.max(1)))),
            freed: Notify::new(),
            max_idle: self.max_idle,
            gate: Default::default(),
        });
        pools.insert(key.clone(), p.clone());
        p
    }

    /// True when a dial to `key` offers HTTP/2 (ALPN `h2`, or h2c).
    fn may_h2(&self, key: &EndpointKey) -> bool {
        if key.tls {
            self.tls
                .as_ref()
                .is_some_and(|c| c.alpn_protocols.iter().any(|p| p == b"h2"))
        } else {
            self.h2c
        }
    }

    /// Late requests waiting now for a connection their client holds.
    pub fn waiting_behind(&self) -> u64 {
        self.waiting_behind.load(Ordering::Acquire) as u64
    }

    /// Notified (one permit kept) each time a late request stops waiting:
    /// it counts as busy again, and the worker pool may need to grow.
    pub fn waits_ended(&self) -> &Notify {
        &self.waits_ended
    }

    /// A connection to the pool's endpoint: a shared HTTP/2 one, an idle
    /// keep-alive one, or a new one (waiting under `-max-connections`).
    /// `behind`: the request left late, and waits for one of the pool's
    /// connections while the client holds them (see `behind.rs`).
    pub async fn acquire(
        &self,
        pool: &Arc<HostPool>,
        owner: Owner,
        behind: bool,
        dial_started: &mut tokio::time::Instant,
        phase: &mut DialPhase,
    ) -> Result<Acquired, ErrorKind> {
        // Held when this request was picked to open the endpoint's next
        // HTTP/2 connection; released however acquire ends (a dial that
        // fails, gives HTTP/1.1, or is cancelled lets the next one try).
        let mut turn = DialTurn {
            pool: pool.as_ref(),
            held: false,
        };
        let may_h2 = self.may_h2(&pool.key);
        loop {
            match pool.h2(false, may_h2) {
                H2Pick::Lease(h2) => return Ok(Acquired::reused(Conn::H2(h2))),
                H2Pick::Dial => turn.held = true,
                H2Pick::None => {}
                H2Pick::Wait => {
                    // Listening, then looking again: the first connection
                    // added (or its dial ended) in between still wakes
                    // this request.
                    let first = pool.freed.notified();
                    tokio::pin!(first);
                    first.as_mut().enable();
                    if pool.first_pending() {
                        first.await;
                    }
                    *dial_started = tokio::time::Instant::now();
                    continue;
                }
            }
            if let Some(c) = pool.take_idle(owner.id) {
                return Ok(Acquired::reused(Conn::H1(c)));
            }
            let dialing = if behind {
                match pool.gate.admit(self.behind_floor) {
                    Some(d) => d,
                    None => {
                        // Behind, and a connection the client holds is
                        // about to be free: a new one would only add to the
                        // client's work.
                        turn.release();
                        let _waiting = WaitingBehind::new(self);
                        pool.gate.wait(&pool.freed).await;
                        *dial_started = tokio::time::Instant::now();
                        continue;
                    }
                }
            } else {
                pool.gate.dialing()
            };
            let permit = match &pool.open {
                None => None,
                Some(sem) => match sem.clone().try_acquire_owned() {
                    Ok(p) => Some(p),
                    Err(_) => {
                        // At the cap: queue on an HTTP/2 connection if there is one.
                        turn.release();
                        // Listening before the check: a connection added or
                        // freed in between still wakes this request.
                        let freed = pool.freed.notified();
                        tokio::pin!(freed);
                        freed.as_mut().enable();
                        if let H2Pick::Lease(h2) = pool.h2(true, false) {
                            return Ok(Acquired::reused(Conn::H2(h2)));
                        }
                        freed.await;
                        *dial_started = tokio::time::Instant::now();
                        continue;
                    }
                },
            };
            let t0 = tokio::time::Instant::now();
            *dial_started = t0;
            let dialled = self.dial(pool, permit, phase, owner).await;
            drop(dialing);
            let (conn, dial) = match dialled {
                Ok(c) => c,
                Err(e) => {
                    // The slot is free again: a waiting request may dial.
                    pool.closed();
                    return Err(e);
                }
            };
            let connect_ns = u32::try_from(t0.elapsed().as_nanos()).unwrap_or(u32::MAX);
            return Ok(Acquired {
                conn,
                connect_ns,
                reused: false,
                dial,
            });
        }
    }

    async fn resolve(&self, hostport: &str) -> Result<Arc<[SocketAddr]>, ErrorKind> {
        if let Ok(a) = hostport.parse::<SocketAddr>() {
            return Ok(Arc::from(vec![a]));
        }
        if let Some((a, at)) = self.dns.lock().expect("dns lock").get(hostport) {
            let fresh = match self.dns_cache {
                DnsCache::Forever => true,
                DnsCache::Off => false,
                DnsCache::For(ttl) => at.elapsed() < ttl,
            };
            if fresh {
                return Ok(a.clone());
            }
        }
        let addrs: Vec<SocketAddr> = match tokio::net::lookup_host(hostport).await {
            Ok(a) => a.collect(),
            Err(_) => return Err(ErrorKind::Dns),
        };
        if addrs.is_empty() {
            return Err(ErrorKind::Dns);
        }
        let addrs: Arc<[SocketAddr]> = Arc::from(addrs);
        if self.dns_cache != DnsCache::Off {
            self.dns.lock().expect("dns lock").insert(
                hostport.to_string(),
                (addrs.clone(), tokio::time::Instant::now()),
            );
        }
        Ok(addrs)
    }

    async fn connect_tcp(
        &self,
        addr: SocketAddr,
        laddr: Option<std::net::IpAddr>,
    ) -> io::Result<TcpStream> {
        let s = match laddr.or(self.laddr) {
            None => TcpStream::connect(addr).await?,
            Some(l) => {
                let sock = if addr.is_ipv4() {
                    TcpSocket::new_v4()?
                } else {
                    TcpSocket::new_v6()?
                };
                sock.bind(SocketAddr::new(l, 0))?;
                sock.connect(addr).await?
            }
        };
        s.set_nodelay(true)?;
        Ok(s)
    }

    async fn dial(
        &self,
        pool: &Arc<HostPool>,
        permit: Option<OwnedSemaphorePermit>,
        phase: &mut DialPhase,
        owner: Owner,
    ) -> Result<(Conn, DialTimes), ErrorKind> {
        let tls = self.tls.clone();
        let (stream, times, info, h2) = self.open(&pool.key, phase, tls, owner.laddr).await?;
        if h2 || !stream.stamped() {
            self.unstamped.store(true, Ordering::Relaxed);
        }
        if h2 {
            // When it closes, a request waiting for a -max-connections slot
            // may dial. (Weak: the pool holds this connection's sender, which
            // keeps the connection open.)
            let p = Arc::downgrade(pool);
            let on_close = move || {
                if let Some(p) = p.upgrade() {
                    p.closed();
                }
            };
            *phase = DialPhase::Http2;
            let counts = stream.counts().cloned();
            let sender =
                crate::h2::handshake(stream, permit, self.max_headers_size, on_close).await?;
            Ok((Conn::H2(pool.add_h2(sender, info, counts)), times))
        } else {
            if self.may_h2(&pool.key) {
                pool.spoke_h1();
            }
            let watch = pool.gate.watch(stream.raw_fd());
            let conn = H1Conn::new(stream, permit, self.max_headers_size, info, owner.id, watch);
            Ok((Conn::H1(Box::new(conn)), times))
        }
    }

    /// Closes `owner`'s idle keep-alive connections (see
    /// [`crate::stream::Owner`]).
    pub fn close_idle_of(&self, owner: u32) {
        let pools: Vec<Arc<HostPool>> = self
            .pools
            .lock()
            .expect("pools lock")
            .values()
            .cloned()
            .collect();
        for p in pools {
            p.close_idle_of(owner);
        }
    }

    /// A byte stream to `key`'s endpoint for a protocol of its own over
    /// HTTP/1.1 (k6's WebSockets): looked up, dialled and TLS-wrapped as
    /// the requests' connections are (`hosts`, `dns`, block lists, TLS
    /// options), offering only `http/1.1` to ALPN; never pooled.
    pub async fn open_h1(
        &self,
        key: &EndpointKey,
        laddr: Option<std::net::IpAddr>,
    ) -> Result<(Stream, DialTimes, crate::stream::ConnInfo), ErrorKind> {
        let mut phase = DialPhase::Connecting;
        let tls = self.tls_h1.clone();
        let (s, times, info, _) = self.open(key, &mut phase, tls, laddr).await?;
        Ok((s, times, info))
    }

    /// Looks up, dials and (for TLS endpoints, with `tls`) wraps a stream
    /// to `key`'s endpoint; also says whether ALPN chose HTTP/2 (or h2c is on).
    async fn open(
        &self,
        key: &EndpointKey,
        phase: &mut DialPhase,
        tls: Option<Arc<rustls::ClientConfig>>,
        laddr: Option<std::net::IpAddr>,
    ) -> Result<(Stream, DialTimes, crate::stream::ConnInfo, bool), ErrorKind> {
        *phase = DialPhase::Connecting;
        let mut times = DialTimes::default();
        let mut info = crate::stream::ConnInfo::default();
        let raw = if let Some(path) = &self.unix_socket {
            let t0 = tokio::time::Instant::now();
            let s = UnixStream::connect(path).await.map_err(|e| classify(&e))?;
            times.tcp = t0.elapsed();
            Stream::Unix(s)
        } else {
            // A blocked name is neither looked up nor dialled (as in k6,
            // before `hosts`).
            if let Some(b) = &self.blocklist
                && key.host.parse::<std::net::IpAddr>().is_err()
                && b.host_match(&key.host).is_some()
            {
                return Err(ErrorKind::BlockedHost);
            }
            let addrs = match self.hosts.lookup(&key.host, key.port) {
                // A `hosts` override: dialled as given, never resolved.
                Some(a) => Arc::from(vec![a]),
                None => {
                    let hostport = format!("{}:{}", bracket(&key.host), key.port);
                    let dst = match self.connect_to.get(&hostport) {
                        Some((dsts, next)) => {
                            dsts[next.fetch_add(1, Ordering::Relaxed) % dsts.len()].clone()
                        }
                        None => hostport,
                    };
                    let addrs = self.resolve(&dst).await?;
                    match &self.dns_pick {
                        // A name's address as k6's `dns` option picks it
                        // (an IP in the URL is dialled as it is).
                        Some(p) if dst.parse::<SocketAddr>().is_err() => {
                            let a = p.pick(&key.host, &addrs).ok_or(ErrorKind::Dns)?;
                            Arc::from(vec![a])
                        }
                        _ => addrs,
                    }
                }
            };
            // No connection into a blocked range, wherever the address
            // came from.
            let addrs: Arc<[SocketAddr]> = match &self.blocklist {
                Some(b) => {
                    let open: Vec<SocketAddr> = addrs
                        .iter()
                        .filter(|a| b.ip_match(a.ip()).is_none())
                        .copied()
                        .collect();
                    if open.is_empty() {
                        return Err(ErrorKind::BlockedIp);
                    }
                    Arc::from(open)
                }
                None => addrs,
            };
            let t0 = tokio::time::Instant::now();
            let mut last = ErrorKind::ConnectRefused;
            let mut stream = None;
            for a in addrs.iter() {
                match self.connect_tcp(*a, laddr).await {
                    Ok(s) => {
                        info.peer = Some(*a);
                        stream = Some(s);
                        break;
                    }
                    Err(e) => last = classify(&e),
                }
            }
            let stream = stream.ok_or(last)?;
            times.tcp = t0.elapsed();
            Stream::Tcp(StampedTcp::new(stream, self.stamp))
        };
        let (stream, h2) = if key.tls {
            let cfg = tls.ok_or(ErrorKind::Tls)?;
            let name = ServerName::try_from(key.host.clone()).map_err(|_| ErrorKind::Tls)?;
            *phase = DialPhase::Tls;
            let t0 = tokio::time::Instant::now();
            let tls = tokio_rustls::TlsConnector::from(cfg)
                .connect(name, raw)
                .await
                .map_err(|e| match classify(&e) {
                    k @ (ErrorKind::ConnectionReset | ErrorKind::ConnectionClosed) => k,
                    k if k.is_tls() => k,
                    _ => ErrorKind::Tls,
                })?;
            times.tls = t0.elapsed();
            info.tls = crate::stream::TlsInfo::of(tls.get_ref().1);
            let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
            (Stream::Tls(Box::new(tls)), h2)
        } else {
            (raw, self.h2c)
        };
        Ok((stream, times, info, h2))
    }
}

/// IPv6 literals need brackets in `host:port`.
fn bracket(host: &str) -> std::borrow::Cow<'_, str> {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]").into()
    } else {
        host.into()
    }
}

/// A late request counted in [`Transport::waiting_behind`] until dropped;
/// dropping it says so through [`Transport::waits_ended`], after the count
/// is down (the supervisor reads it when notified).
struct WaitingBehind<'a> {
    count: Option<crate::behind::Count<'a>>,
    ended: &'a Notify,
}

impl<'a> WaitingBehind<'a> {
    fn new(t: &'a Transport) -> Self {
        WaitingBehind {
            count: Some(crate::behind::Count::new(&t.waiting_behind)),
            ended: &t.waits_ended,
        }
    }
}

impl Drop for WaitingBehind<'_> {
    fn drop(&mut self) {
        drop(self.count.take());
        self.ended.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn transport(dns_cache: DnsCache) -> Transport {
        let cfg = AttackConfig {
            dns_cache,
            ..Default::default()
        };
        Transport::new(&cfg, None)
    }

    fn looked_up_at(t: &Transport, host: &str) -> Option<tokio::time::Instant> {
        t.dns.lock().unwrap().get(host).map(|e| e.1)
    }

    #[tokio::test]
    async fn dns_lookups_are_reused_for_the_ttl() {
        let host = "localhost:80";
        let t = transport(DnsCache::For(Duration::from_millis(300)));
        t.resolve(host).await.unwrap();
        let first = looked_up_at(&t, host).unwrap();
        t.resolve(host).await.unwrap();
        assert_eq!(looked_up_at(&t, host), Some(first), "within the ttl");
        tokio::time::sleep(Duration::from_millis(350)).await;
        t.resolve(host).await.unwrap();
        assert!(looked_up_at(&t, host).unwrap() > first, "after the ttl");

        let t = transport(DnsCache::Forever);
        t.resolve(host).await.unwrap();
        let first = looked_up_at(&t, host).unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        t.resolve(host).await.unwrap();
        assert_eq!(looked_up_at(&t, host), Some(first));

        let t = transport(DnsCache::Off);
        assert!(!t.resolve(host).await.unwrap().is_empty());
        assert_eq!(looked_up_at(&t, host), None, "nothing kept");
    }
}
