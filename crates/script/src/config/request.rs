//! k6's request options.

use std::time::Duration;

/// k6's request options: `options.X` in the script, or their flags (a flag
/// wins).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    /// `discardResponseBodies`: bodies are read and counted, not kept,
    /// unless a request's `responseType` asks for them.
    pub discard_response_bodies: bool,
    /// `userAgent` (`Some("")`: no `User-Agent` field); `None`: loadlab's.
    pub user_agent: Option<String>,
    /// `insecureSkipTLSVerify`: server certificates are not checked.
    pub insecure_skip_tls_verify: bool,
    /// `throw`: a request that fails (no response) throws in the script.
    pub throw: bool,
    /// `noConnectionReuse`: a new connection for every request.
    pub no_connection_reuse: bool,
    /// `noVUConnectionReuse`: a VU's keep-alive connections are its own,
    /// closed at the end of each of its iterations.
    pub no_vu_connection_reuse: bool,
    /// `minIterationDuration`: a shorter iteration waits out the rest.
    pub min_iteration_duration: Option<Duration>,
    /// `httpDebug` (`--http-debug[=full]`): each request and response is
    /// logged, `full` with the bodies (`None` or empty: off).
    pub http_debug: Option<String>,
    /// `rps` (`--rps`): at most this many requests a second, all VUs
    /// together (`None`: no limit; 0 or less is none, as in k6).
    pub rps: Option<u64>,
    /// `batch` (`--batch`): at most this many requests of one
    /// `http.batch()` in flight (`None`: k6's 20).
    pub batch: Option<u64>,
    /// `batchPerHost` (`--batch-per-host`): at most this many of them to
    /// one host (`None`: k6's 6).
    pub batch_per_host: Option<u64>,
}

impl RequestOptions {
    /// `http.batch()`'s limits: in flight, and per host (0: none).
    pub fn batch_limits(&self) -> (usize, usize) {
        let lim = |v: Option<u64>, default: usize| match v {
            None => default,
            Some(0) => usize::MAX,
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        };
        (lim(self.batch, 20), lim(self.batch_per_host, 6))
    }
}
