//! The attack's settings: one validated struct built by every face (vegeta,
//! ab, wrk, study plans), with vegeta's defaults.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use loadlab_core::{PacerSpec, Rate, ScheduleSegment};

/// The send clock's default window: at most ~1,000 wake-ups a second.
pub const DEFAULT_RESOLUTION: Duration = Duration::from_millis(1);

/// The default `-max-headers-size`: 1 MiB of response head (Go's client
/// allows 10 MiB, curl 100 KiB, hyper 400 KiB).
pub const DEFAULT_MAX_HEADERS_SIZE: usize = 1 << 20;

/// TLS settings (`-insecure`, `-cert`, `-key`, `-root-certs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// Accept any server certificate (self-signed, wrong host, expired).
    pub insecure: bool,
    /// Client certificate chain (PEM), used with `key`.
    pub cert: Option<PathBuf>,
    /// Client private key (PEM), used with `cert`.
    pub key: Option<PathBuf>,
    /// Extra trusted roots (PEM files). The built-in web roots are always trusted too.
    pub root_certs: Vec<PathBuf>,
    /// Extra trusted roots as PEM texts (k6's gRPC `cacerts`, the Redis
    /// client's `socket.tls.ca`), trusted as `root_certs` are.
    pub root_pems: Vec<String>,
    /// Resume TLS sessions on new connections (session tickets / IDs). Off
    /// by default, as in vegeta: every new connection pays a full handshake.
    pub session_tickets: bool,
    /// The TLS versions offered (k6's `tlsVersion`): `(TLS 1.2, TLS 1.3)`;
    /// `None`: both.
    pub versions: Option<(bool, bool)>,
    /// The TLS 1.2 cipher suites offered, by their Go names (k6's
    /// `tlsCipherSuites`: as in Go, TLS 1.3's are not chosen); `None`: all.
    pub cipher_suites_12: Option<Vec<String>>,
    /// Client certificates as PEM texts, (chain, key) (k6's `tlsAuth`):
    /// each server gets the first one it can take, as Go's client picks
    /// (by the CAs the server names, and the signature schemes). With
    /// `cert`/`key` too, those are used and these are not.
    pub client_pems: Vec<(String, String)>,
}

/// How long resolved addresses are reused (`-dns-ttl`, with vegeta's
/// meanings: `0` = for the whole attack, `-1` = never, else a duration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DnsCache {
    /// Look each host up once (the default).
    #[default]
    Forever,
    /// Look the host up for every new connection.
    Off,
    /// Reuse a lookup for this long.
    For(Duration),
}

/// Everything the engine needs to run one attack.
#[derive(Debug, Clone)]
pub struct AttackConfig {
    /// `-name`: recorded in the results file header.
    pub name: String,
    /// When request *n* is due. `Constant(Rate::UNLIMITED)` = as fast as the caps allow.
    pub pacer: PacerSpec,
    /// Stop scheduling once this much time has passed (None = no time limit).
    pub duration: Option<Duration>,
    /// Stop after this many requests (None = no count limit).
    pub max_requests: Option<u64>,
    /// Workers started up front (`-workers`).
    pub workers: u64,
    /// Cap on concurrent in-flight requests (`-max-workers`; None = unlimited).
    pub max_workers: Option<u64>,
    /// Maximum idle keep-alive connections kept per host (`-connections`).
    pub connections: usize,
    /// Maximum open connections per host (`-max-connections`; None = unlimited).
    pub max_connections: Option<usize>,
    /// Bound on each whole request, connect included (`-timeout`).
    pub timeout: Duration,
    /// Redirects to follow (`-redirects`); -1 = don't follow (3xx is a success).
    pub redirects: i32,
    /// Reuse connections (`-keepalive`); false sends `Connection: close`.
    pub keepalive: bool,
    /// Offer HTTP/2 via ALPN on TLS connections (`-http2`).
    pub http2: bool,
    /// Speak HTTP/2 with prior knowledge on cleartext connections (`-h2c`).
    pub h2c: bool,
    pub tls: TlsOptions,
    /// Send every request over this Unix socket (`-unix-socket`).
    pub unix_socket: Option<PathBuf>,
    /// `host:port` → `host:port` overrides (`-connect-to`); several entries with
    /// the same source are used round-robin.
    pub connect_to: Vec<(String, String)>,
    /// Names dialled at fixed addresses (k6's `hosts` option); before
    /// `connect_to`.
    pub hosts: crate::hosts::HostOverrides,
    /// Local address to bind (`-laddr`).
    pub laddr: Option<IpAddr>,
    /// Headers added to every request (`-header`).
    pub headers: Vec<(String, String)>,
    /// Send vegeta's own request headers, as `vegeta attack` does:
    /// `X-Vegeta-Seq` (the request's sequence number, the results' `seq`)
    /// on every request and `X-Vegeta-Attack` (`name`) when there is a name.
    /// They replace a target's or `-header`'s fields of those names.
    pub vegeta_headers: bool,
    /// Body for targets that have none (`-body`).
    pub body: Option<Bytes>,
    /// Send request bodies with chunked transfer encoding (`-chunked`,
    /// HTTP/1.1 only; HTTP/2 frames bodies itself).
    pub chunked: bool,
    /// How long a host name's addresses are reused (`-dns-ttl`).
    pub dns_cache: DnsCache,
    /// k6's `dns` `select` and `policy`: one address of a name is dialled
    /// (`None`: each in turn until one answers).
    pub dns_pick: Option<std::sync::Arc<crate::dns_pick::DnsPick>>,
    /// Names and ranges never dialled (k6's `blockHostnames`,
    /// `blacklistIPs`).
    pub blocklist: Option<std::sync::Arc<crate::blocklist::Blocklist>>,
    /// Ask for compressed responses (`Accept-Encoding: gzip`, unless the
    /// request sets its own, asks for a `Range` or is a HEAD), as Go's
    /// client does (`-compression`). A gzip response to that is decoded
    /// as it is read, as Go's client decodes it: `bytes_in` counts the
    /// decoded bytes (vegeta's figure) and the sample's `wire_in` the bytes
    /// as they came; nothing decoded is kept. A request that sets its own
    /// `Accept-Encoding` gets its bodies counted as they came.
    pub compression: bool,
    /// Largest response head accepted, status line and header fields
    /// (`-max-headers-size`, default 1 MiB); any number of fields fits.
    pub max_headers_size: usize,
    /// Response body bytes to capture (`-max-body`). The engine never stores
    /// bodies: every byte is read and counted in `bytes_in`, none is kept.
    pub max_body: i64,
    /// Closed model (ab, wrk without `-R`): exactly `max_workers` workers, each
    /// sending its next request as soon as the previous one completes; the
    /// pacer is ignored and latency is measured from the actual send.
    pub closed_loop: bool,
    /// The send clock's window (`-resolution`): requests due within it of
    /// each other go out together (up to this much early, measured from
    /// their actual send), and responses are collected once per window.
    /// Zero sends every request at its own instant.
    pub resolution: Duration,
    /// `-segment=i/n`: send only the requests of the global schedule whose
    /// sequence number `k` has `k mod n == i`, at their global intended
    /// times (see `loadlab_core::segment`). The schedule flags, the count
    /// and the worker limits describe the whole test.
    pub segment: ScheduleSegment,
    /// A weighted mix of the (static) targets: one weight per target; request
    /// `n` goes to the target [`loadlab_core::mix::weighted_order`] gives, so
    /// each target's share holds at every instant (`None`: round-robin).
    pub weights: Option<Vec<u32>>,
    /// `-start-at`: the wall-clock instant (ns since the Unix epoch) at which
    /// the schedule starts; the engine waits for it (see [`START_AT_MAX_AHEAD`]
    /// and [`START_AT_MAX_PAST`]).
    pub start_at_unix_ns: Option<u64>,
    /// The clock's estimated maximum error, recorded in the results header
    /// of a split run (`None`: the engine reads the kernel's, see
    /// [`crate::host`]).
    pub clock_max_error_ns: Option<u64>,
}

pub use loadlab_core::start_at::{START_AT_MAX_AHEAD, START_AT_MAX_PAST, check_start_at};

impl Default for AttackConfig {
    fn default() -> Self {
        AttackConfig {
            name: String::new(),
            pacer: PacerSpec::Constant(Rate::per_second(50)),
            duration: None,
            max_requests: None,
            workers: 10,
            max_workers: None,
            connections: 10_000,
            max_connections: None,
            timeout: Duration::from_secs(30),
            redirects: 10,
            keepalive: true,
            http2: true,
            h2c: false,
            tls: TlsOptions::default(),
            unix_socket: None,
            connect_to: Vec::new(),
            hosts: Default::default(),
            laddr: None,
            headers: Vec::new(),
            vegeta_headers: false,
            body: None,
            max_body: -1,
            max_headers_size: DEFAULT_MAX_HEADERS_SIZE,
            compression: true,
            chunked: false,
            dns_cache: DnsCache::Forever,
            dns_pick: None,
            blocklist: None,
            closed_loop: false,
            resolution: DEFAULT_RESOLUTION,
            segment: ScheduleSegment::WHOLE,
            weights: None,
            start_at_unix_ns: None,
            clock_max_error_ns: None,
        }
    }
}

impl AttackConfig {
    /// Checks the settings that do not need the network, so a front end can
    /// fail before opening its output (the engine checks again when it runs).
    pub fn validate(&self) -> Result<(), crate::EngineError> {
        use crate::EngineError::Config;
        if self.timeout.is_zero() {
            return Err(Config("-timeout must be greater than zero".into()));
        }
        if let Some(w) = &self.weights {
            loadlab_core::mix::weighted_order(w).map_err(|m| Config(format!("-weights: {m}")))?;
        }
        if self.unpaced() && self.worker_cap().is_none() {
            let what = if self.closed_loop {
                "a closed-loop attack"
            } else {
                "-rate=0 (as fast as possible)"
            };
            return Err(Config(format!(
                "{what} needs a cap: add -max-workers=N (concurrent requests) or -max-connections=N"
            )));
        }
        if self.workers == 0 && !self.unpaced() {
            return Err(Config("-workers must be at least 1".into()));
        }
        if self.max_workers == Some(0) {
            return Err(Config("-max-workers must be at least 1".into()));
        }
        if self.max_connections == Some(0) {
            return Err(Config("-max-connections must be at least 1".into()));
        }
        if self.resolution > Duration::from_millis(100) {
            return Err(Config(
                "-resolution must be at most 100ms (the default, 1ms, suits most rates; 0 = exact instants)"
                    .into(),
            ));
        }
        if self.tls.cert.is_some() != self.tls.key.is_some() {
            return Err(Config("-cert and -key must be given together".into()));
        }
        Ok(())
    }

    /// What the sinks are told about the attack before its first sample
    /// (the settings error texts need: timeout, dialled addresses).
    pub(crate) fn attack_info(&self, start_unix_ns: u64) -> loadlab_core::AttackInfo {
        loadlab_core::AttackInfo {
            name: self.name.clone(),
            start_unix_ns,
            timeout_ns: u64::try_from(self.timeout.as_nanos()).unwrap_or(u64::MAX),
            connect_to: self.connect_to.clone(),
            unix_socket: self.unix_socket.as_ref().map(|p| p.display().to_string()),
            max_headers_size: self.max_headers_size as u64,
            worker: None,
        }
    }

    /// True when the results header gets a worker record (a split run, or
    /// a synchronized start).
    pub(crate) fn is_worker(&self) -> bool {
        !self.segment.is_whole() || self.start_at_unix_ns.is_some()
    }

    /// The settings of this worker's segment: `-workers`, `-max-workers`
    /// and `-max-connections` describe the whole test, so each segment
    /// takes its interleaved share of them (at least 1): 10 workers over 4
    /// segments are 3, 3, 2, 2.
    pub fn for_segment(mut self) -> Self {
        let seg = self.segment;
        if seg.is_whole() {
            return self;
        }
        self.workers = if self.workers == 0 {
            0
        } else {
            seg.share_of_limit(self.workers)
        };
        self.max_workers = self.max_workers.map(|w| seg.share_of_limit(w));
        self.max_connections = self
            .max_connections
            .map(|c| seg.share_of_limit(c as u64) as usize);
        self
    }

    /// True when requests are sent as fast as the concurrency cap allows.
    pub(crate) fn unpaced(&self) -> bool {
        self.closed_loop || self.pacer.is_unlimited()
    }

    /// The concurrency limit: `max_workers`, else `max_connections` when
    /// unpaced (each in-flight HTTP/1.1 request needs its own connection).
    pub(crate) fn worker_cap(&self) -> Option<u64> {
        match (self.max_workers, self.max_connections) {
            (Some(w), _) => Some(w.max(1)),
            (None, Some(c)) if self.unpaced() => Some(c.max(1) as u64),
            _ => None,
        }
    }
}
