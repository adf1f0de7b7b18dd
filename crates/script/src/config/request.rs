//! k6's request options.

use std::time::Duration;

use serde_json::Value;

use super::values::{Layered, bad, int, parse_duration, whole_count};
use crate::ScriptError;

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

impl RequestOptions {
    /// The request options of the layers, each flag of `flags` over its
    /// option (`user_agent` and `min_iteration_duration` read already).
    pub(crate) fn read(
        opts: Layered,
        flags: &RequestOptions,
        user_agent: Option<String>,
        min_iteration_duration: Option<Duration>,
    ) -> Result<RequestOptions, ScriptError> {
        Ok(RequestOptions {
            discard_response_bodies: flags.discard_response_bodies
                || opts.flag("discardResponseBodies")?,
            user_agent,
            insecure_skip_tls_verify: flags.insecure_skip_tls_verify
                || opts.flag("insecureSkipTLSVerify")?,
            throw: flags.throw || opts.flag("throw")?,
            no_connection_reuse: flags.no_connection_reuse || opts.flag("noConnectionReuse")?,
            no_vu_connection_reuse: flags.no_vu_connection_reuse
                || opts.flag("noVUConnectionReuse")?,
            min_iteration_duration,
            http_debug: match (&flags.http_debug, opts.get("httpDebug")) {
                (Some(m), _) => Some(m.clone()),
                (None, None | Some(Value::Bool(false))) => None,
                (None, Some(Value::String(m))) => Some(m.clone()),
                (None, Some(v)) => {
                    return Err(bad(format!(
                        "options.httpDebug: {v} is not \"headers\" or \"full\""
                    )));
                }
            }
            .filter(|m| !m.is_empty()),
            rps: match flags.rps {
                Some(n) => Some(n),
                None => opts
                    .get("rps")
                    .map(|v| int(v, "options.rps"))
                    .transpose()?
                    .and_then(|n| u64::try_from(n).ok()),
            }
            .filter(|n| *n > 0),
            batch: match flags.batch {
                Some(n) => Some(n),
                None => opts
                    .get("batch")
                    .map(|v| whole_count(v, "options.batch"))
                    .transpose()?,
            },
            batch_per_host: match flags.batch_per_host {
                Some(n) => Some(n),
                None => opts
                    .get("batchPerHost")
                    .map(|v| whole_count(v, "options.batchPerHost"))
                    .transpose()?,
            },
        })
    }
}

/// `userAgent` (`--user-agent` wins).
pub(crate) fn user_agent(
    opts: Layered,
    flags: &RequestOptions,
) -> Result<Option<String>, ScriptError> {
    let user_agent = match (&flags.user_agent, opts.get("userAgent")) {
        (Some(ua), _) => Some(ua.clone()),
        (None, None) => None,
        (None, Some(Value::String(s))) => Some(s.clone()),
        (None, Some(v)) => return Err(bad(format!("options.userAgent: {v} is not a string"))),
    };
    Ok(user_agent)
}

/// `minIterationDuration` (`--min-iteration-duration` wins); zero: none.
pub(crate) fn min_iteration_duration(
    opts: Layered,
    flags: &RequestOptions,
) -> Result<Option<Duration>, ScriptError> {
    let min_iteration_duration = match flags.min_iteration_duration {
        Some(d) => Some(d),
        None => opts
            .get("minIterationDuration")
            .map(|v| parse_duration(v, "options.minIterationDuration"))
            .transpose()?,
    }
    .filter(|d| !d.is_zero());
    Ok(min_iteration_duration)
}
