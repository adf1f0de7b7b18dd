//! `--out experimental-prometheus-rw`: k6's Prometheus remote-write
//! output, with its configuration (`K6_PROMETHEUS_RW_*`, or
//! `experimental-prometheus-rw=url=…,pushInterval=…`) and its series:
//!
//! * every push interval (5 s), each series that got samples since the
//!   last push is sent with its figure so far: a counter as
//!   `k6_<metric>_total`, a gauge as `k6_<metric>`, a rate as
//!   `k6_<metric>_rate`, a trend as one gauge per statistic of
//!   `K6_PROMETHEUS_RW_TREND_STATS` (`k6_http_req_duration_p99`; times in
//!   seconds); the labels are the series' tags (`__name__` among them,
//!   sorted);
//! * a last push when the test ends (after `teardown()`), then staleness
//!   markers when `K6_PROMETHEUS_RW_STALE_MARKERS` asks.
//!
//! Pushes go out from a thread of their own (one HTTP POST at a time, 5 s
//! timeout), so a slow endpoint never stalls the VUs; a push that finds
//! the previous ones still queued is dropped, with a warning. What loadlab
//! k6 does not have (native histograms, SigV4, client certificates, a
//! minimum TLS version) is refused when asked for.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};
use std::time::Duration;

use bytes::Bytes;
use loadlab_engine::client::{Client, ClientRequest};
use loadlab_metrics::remote_write::{self, Label, STALE_NAN, TimeSeries};

use crate::log::{Level, Logger};
use crate::registry::{Agg, Registry};

const DEFAULT_URL: &str = "http://localhost:9090/api/v1/write";
const TIMEOUT: Duration = Duration::from_secs(5);
/// Pushes waiting for the thread before one is dropped.
const QUEUE: usize = 2;

/// The output's settings, as k6 layers them: its defaults, the
/// `K6_PROMETHEUS_RW_*` variables, then the `--out` argument.
#[derive(Clone, PartialEq)]
pub struct RwConfig {
    pub url: String,
    pub push_interval: Duration,
    /// k6's names (`p(99)`, `avg`, `sum`, …), and the suffix of each.
    pub trend_stats: Vec<(String, String)>,
    /// Extra fields of every push (credentials among them).
    pub headers: Vec<(String, String)>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub insecure_skip_tls_verify: bool,
    pub stale_markers: bool,
}

impl std::fmt::Debug for RwConfig {
    // No credential in a debug print.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RwConfig")
            .field("url", &loadlab_engine::redact_url(&self.url))
            .field("push_interval", &self.push_interval)
            .field("trend_stats", &self.trend_stats)
            .field("headers", &self.headers.len())
            .finish_non_exhaustive()
    }
}

fn parse_bool(v: &str, what: &str) -> Result<bool, String> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!("{what} value must be true or false, not {v:?}")),
    }
}

/// A trend statistic's suffix, as k6 names it: `p(99)` is `p99`,
/// `p(99.9)` is `p999`; the others keep their names.
fn stat_suffix(stat: &str) -> String {
    match stat.strip_prefix("p(").and_then(|r| r.strip_suffix(')')) {
        Some(n) => format!("p{}", n.replace('.', "")),
        None => stat.to_string(),
    }
}

fn trend_stats(list: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for s in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if s != "sum" {
            crate::registry::check_stat(s)
                .map_err(|e| format!("K6_PROMETHEUS_RW_TREND_STATS: {e}"))?;
        }
        out.push((s.to_string(), stat_suffix(s)));
    }
    if out.is_empty() {
        return Err("K6_PROMETHEUS_RW_TREND_STATS: no statistic given".into());
    }
    Ok(out)
}

impl RwConfig {
    /// `arg`: what follows `experimental-prometheus-rw=` (empty: none);
    /// `vars`: the process's environment.
    pub fn parse(arg: &str, vars: &[(String, String)]) -> Result<RwConfig, String> {
        let var = |k: &str| vars.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        let mut c = RwConfig {
            url: DEFAULT_URL.into(),
            push_interval: Duration::from_secs(5),
            trend_stats: vec![("p(99)".into(), "p99".into())],
            headers: Vec::new(),
            username: None,
            password: None,
            insecure_skip_tls_verify: false,
            stale_markers: false,
        };
        let interval = |v: &str, what: &str| {
            crate::config::parse_duration_str(v)
                .filter(|d| !d.is_zero())
                .ok_or_else(|| format!("{what} {v:?}: not a duration (e.g. 5s, 500ms)"))
        };
        let unsupported = |what: &str| {
            format!(
                "{what}: not supported by loadlab k6's Prometheus remote-write output \
                 (it sends trends as gauges, over plain or TLS HTTP with basic or bearer auth)"
            )
        };
        for (k, _) in vars {
            let refused = matches!(
                k.as_str(),
                "K6_PROMETHEUS_RW_TLS_MINIMUM_VERSION"
                    | "K6_PROMETHEUS_RW_CLIENT_CERTIFICATE"
                    | "K6_PROMETHEUS_RW_CLIENT_CERTIFICATE_KEY"
                    | "K6_PROMETHEUS_RW_SIGV4_REGION"
                    | "K6_PROMETHEUS_RW_SIGV4_ACCESS_KEY"
                    | "K6_PROMETHEUS_RW_SIGV4_SECRET_KEY"
            );
            if refused {
                return Err(unsupported(k));
            }
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_SERVER_URL") {
            c.url = v.to_string();
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY") {
            c.insecure_skip_tls_verify =
                parse_bool(v, "K6_PROMETHEUS_RW_INSECURE_SKIP_TLS_VERIFY")?;
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_USERNAME") {
            c.username = Some(v.to_string());
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_PASSWORD") {
            c.password = Some(v.to_string());
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_PUSH_INTERVAL") {
            c.push_interval = interval(v, "K6_PROMETHEUS_RW_PUSH_INTERVAL")?;
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM")
            && parse_bool(v, "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM")?
        {
            return Err(unsupported(
                "K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true",
            ));
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_TREND_STATS") {
            c.trend_stats = trend_stats(v)?;
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_STALE_MARKERS") {
            c.stale_markers = parse_bool(v, "K6_PROMETHEUS_RW_STALE_MARKERS")?;
        }
        for (k, v) in vars {
            if let Some(name) = k.strip_prefix("K6_PROMETHEUS_RW_HEADERS_") {
                c.headers.push((name.to_string(), v.clone()));
            }
        }
        if let Some(list) = var("K6_PROMETHEUS_RW_HTTP_HEADERS") {
            for pair in list.split(',') {
                let parts: Vec<&str> = pair.split(':').collect();
                let [k, v] = parts[..] else {
                    return Err(format!(
                        "the provided header ({pair}) does not respect the expected format <header key>:<value>"
                    ));
                };
                c.headers.push((k.to_string(), v.to_string()));
            }
        }
        if let Some(v) = var("K6_PROMETHEUS_RW_BEARER_TOKEN").filter(|v| !v.is_empty()) {
            c.headers
                .push(("Authorization".into(), format!("Bearer {v}")));
        }
        for opt in arg.split(',').filter(|o| !arg.is_empty() && !o.is_empty()) {
            let Some((k, v)) = opt.split_once('=') else {
                return Err(format!("couldn't parse argument {opt:?} as option"));
            };
            match k {
                "url" => c.url = v.to_string(),
                "insecureSkipTLSVerify" => {
                    c.insecure_skip_tls_verify = parse_bool(v, "insecureSkipTLSVerify")?;
                }
                "username" => c.username = Some(v.to_string()),
                "password" => c.password = Some(v.to_string()),
                "pushInterval" => c.push_interval = interval(v, "pushInterval")?,
                "trendAsNativeHistogram" => {
                    if parse_bool(v, "trendAsNativeHistogram")? {
                        return Err(unsupported("trendAsNativeHistogram=true"));
                    }
                }
                "tlsMinVersion" | "clientCertificate" | "clientCertificateKey" => {
                    return Err(unsupported(k));
                }
                _ => match k.strip_prefix("headers.") {
                    Some(name) => c.headers.push((name.to_string(), v.to_string())),
                    None => return Err(format!("{k:?} is an unknown option's key")),
                },
            }
        }
        Client::check_url(&c.url).map_err(|e| {
            format!(
                "the remote-write URL {}: {e}",
                loadlab_engine::redact_url(&c.url)
            )
        })?;
        Ok(c)
    }

    /// The fields of each push: the protocol's, basic authentication,
    /// then the configured ones (a bearer token over the basic one, as in
    /// k6).
    fn push_headers(&self) -> Vec<(String, String)> {
        use base64::Engine as _;
        let mut h: Vec<(String, String)> = remote_write::HEADERS
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect();
        h.push((
            "User-Agent".into(),
            "loadlab-k6-prometheus-rw-output".into(),
        ));
        let set = |h: &mut Vec<(String, String)>, k: &str, v: String| {
            h.retain(|(n, _)| !n.eq_ignore_ascii_case(k));
            h.push((k.to_string(), v));
        };
        if let Some(u) = &self.username {
            let token = base64::engine::general_purpose::STANDARD
                .encode(format!("{u}:{}", self.password.as_deref().unwrap_or("")));
            set(&mut h, "Authorization", format!("Basic {token}"));
        }
        for (k, v) in &self.headers {
            set(&mut h, k, v.clone());
        }
        h
    }
}

/// The output while the test runs.
pub struct RwOutput {
    cfg: RwConfig,
    tx: Option<SyncSender<Vec<TimeSeries>>>,
    thread: Option<std::thread::JoinHandle<()>>,
    logger: Arc<Logger>,
    /// Each series' sample count at the last push.
    counts: Vec<u64>,
    /// Series pushed at least once (for the staleness markers).
    pushed: HashSet<usize>,
    warned_drop: bool,
}

impl RwOutput {
    pub fn start(cfg: RwConfig, logger: Arc<Logger>) -> Result<RwOutput, String> {
        let client = Client::new(&loadlab_engine::AttackConfig {
            timeout: TIMEOUT,
            compression: false,
            tls: loadlab_engine::config::TlsOptions {
                insecure: cfg.insecure_skip_tls_verify,
                ..Default::default()
            },
            ..Default::default()
        })
        .map_err(|e| format!("the remote-write client: {e}"))?;
        let (tx, rx) = std::sync::mpsc::sync_channel(QUEUE);
        let url = cfg.url.clone();
        let headers = cfg.push_headers();
        let log = logger.clone();
        let thread = std::thread::Builder::new()
            .name("prometheus-rw".into())
            .spawn(move || push_loop(client, url, headers, rx, log))
            .map_err(|e| format!("cannot start the remote-write thread: {e}"))?;
        Ok(RwOutput {
            cfg,
            tx: Some(tx),
            thread: Some(thread),
            logger,
            counts: Vec::new(),
            pushed: HashSet::new(),
            warned_drop: false,
        })
    }

    pub fn push_interval(&self) -> Duration {
        self.cfg.push_interval
    }

    /// Pushes the series that got samples since the last push.
    pub fn push(&mut self, reg: &Registry, now_ms: i64) {
        let series = self.changed(reg, now_ms);
        if series.is_empty() {
            return;
        }
        let Some(tx) = &self.tx else { return };
        match tx.try_send(series) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                if !self.warned_drop {
                    self.warned_drop = true;
                    self.logger.log(
                        Level::Warning,
                        "the remote-write endpoint takes longer than the push interval: a push was dropped",
                        &[("output", "Prometheus remote write")],
                    );
                }
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// The last push, the staleness markers if asked for, and the wait for
    /// them to go out (each bounded by the 5 s timeout).
    pub fn finish(mut self, reg: &Registry, now_ms: i64) {
        let last = self.changed(reg, now_ms);
        if let Some(tx) = self.tx.take() {
            if !last.is_empty() {
                let _ = tx.send(last);
            }
            if self.cfg.stale_markers {
                let mut ids: Vec<usize> = self.pushed.iter().copied().collect();
                ids.sort_unstable();
                let stale: Vec<TimeSeries> = ids
                    .into_iter()
                    .flat_map(|i| self.series_of(reg, i, now_ms + 1))
                    .map(|mut s| {
                        s.samples[0].value = STALE_NAN;
                        s
                    })
                    .collect();
                if !stale.is_empty() {
                    let _ = tx.send(stale);
                }
            }
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    fn changed(&mut self, reg: &Registry, now_ms: i64) -> Vec<TimeSeries> {
        self.counts.resize(reg.series.len(), 0);
        let mut out = Vec::new();
        for i in 0..reg.series.len() {
            let n = reg.series[i].agg.count();
            if n == self.counts[i] {
                continue;
            }
            self.counts[i] = n;
            self.pushed.insert(i);
            out.extend(self.series_of(reg, i, now_ms));
        }
        out
    }

    /// Series `i`'s figures as k6 names them.
    fn series_of(&self, reg: &Registry, i: usize, ts: i64) -> Vec<TimeSeries> {
        let entry = &reg.series[i];
        let def = &reg.metrics[entry.metric];
        let labels = |suffix: &str| {
            let mut l: Vec<Label> = entry
                .tags
                .iter()
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .map(|(k, v)| Label {
                    name: k.clone(),
                    value: v.clone(),
                })
                .collect();
            let mut name = format!("k6_{}", def.name);
            if !suffix.is_empty() {
                name.push('_');
                name.push_str(suffix);
            }
            l.push(Label {
                name: "__name__".into(),
                value: name,
            });
            l
        };
        match &entry.agg {
            Agg::Counter { sum, .. } => vec![TimeSeries::one(labels("total"), *sum, ts)],
            Agg::Gauge { last, .. } => vec![TimeSeries::one(labels(""), *last, ts)],
            Agg::Rate { hits, total } => {
                let r = if *total == 0 {
                    0.0
                } else {
                    *hits as f64 / *total as f64
                };
                vec![TimeSeries::one(labels("rate"), r, ts)]
            }
            agg @ Agg::Trend(_) => self
                .cfg
                .trend_stats
                .iter()
                .map(|(stat, suffix)| {
                    let v = match stat.as_str() {
                        "sum" => agg.stat("avg").unwrap_or(0.0) * agg.count() as f64,
                        s => agg.stat(s).unwrap_or(0.0),
                    };
                    // Times in seconds (k6's trends hold milliseconds).
                    let v = if def.time { v / 1000.0 } else { v };
                    TimeSeries::one(labels(suffix), v, ts)
                })
                .collect(),
        }
    }
}

impl Drop for RwOutput {
    fn drop(&mut self) {
        // Not finished (an error ended the run): the thread ends with the
        // channel, its last push bounded by the timeout.
        self.tx.take();
    }
}

fn push_loop(
    client: Client,
    url: String,
    headers: Vec<(String, String)>,
    rx: Receiver<Vec<TimeSeries>>,
    logger: Arc<Logger>,
) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    for batch in rx {
        let req = ClientRequest {
            method: http::Method::POST,
            url: url.clone(),
            headers: headers.clone(),
            body: Bytes::from(remote_write::encode(batch)),
            timeout: TIMEOUT,
            redirects: 10,
            keep_body: false,
            redirect_cookies: None,
            uri: None,
            owner: loadlab_engine::client::Owner::default(),
        };
        let r = rt.block_on(client.send(req));
        let error = if r.status == 0 {
            let (text, _) = crate::http_result::error_of(&r, &url);
            Some(format!(
                "HTTP POST request failed: Post {:?}: {text}",
                loadlab_engine::redact_url(&url)
            ))
        } else if !(200..300).contains(&r.status) {
            Some(format!(
                "got status code: {} instead expected a 2xx successful status code",
                r.status
            ))
        } else {
            None
        };
        if let Some(e) = error {
            logger.log(
                Level::Error,
                "Failed to send the time series data to the endpoint",
                &[("error", &e), ("output", "Prometheus remote write")],
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn config_layers_defaults_variables_and_the_argument_as_k6() {
        let c = RwConfig::parse("", &[]).unwrap();
        assert_eq!(c.url, DEFAULT_URL);
        assert_eq!(c.push_interval, Duration::from_secs(5));
        assert_eq!(c.trend_stats, [("p(99)".to_string(), "p99".to_string())]);
        let env = vars(&[
            ("K6_PROMETHEUS_RW_SERVER_URL", "http://127.0.0.1:9/w"),
            ("K6_PROMETHEUS_RW_PUSH_INTERVAL", "2s"),
            ("K6_PROMETHEUS_RW_TREND_STATS", "p(95),p(99.9),avg,sum"),
            ("K6_PROMETHEUS_RW_HEADERS_X-Tenant", "t1"),
            ("K6_PROMETHEUS_RW_HTTP_HEADERS", "X-A:1,X-B:2"),
            ("K6_PROMETHEUS_RW_STALE_MARKERS", "true"),
        ]);
        let c = RwConfig::parse("url=http://127.0.0.1:8/x,pushInterval=500ms", &env).unwrap();
        assert_eq!(c.url, "http://127.0.0.1:8/x");
        assert_eq!(c.push_interval, Duration::from_millis(500));
        let suffixes: Vec<&str> = c.trend_stats.iter().map(|(_, s)| s.as_str()).collect();
        assert_eq!(suffixes, ["p95", "p999", "avg", "sum"]);
        assert!(c.stale_markers);
        assert_eq!(c.headers.len(), 3);
    }

    #[test]
    fn a_bearer_token_wins_over_basic_auth_and_nothing_leaks_in_debug() {
        let env = vars(&[
            ("K6_PROMETHEUS_RW_USERNAME", "u"),
            ("K6_PROMETHEUS_RW_PASSWORD", "pw-secret"),
        ]);
        let c = RwConfig::parse("", &env).unwrap();
        let h = c.push_headers();
        let auth: Vec<&(String, String)> = h.iter().filter(|(k, _)| k == "Authorization").collect();
        assert_eq!(auth.len(), 1);
        assert_eq!(auth[0].1, "Basic dTpwdy1zZWNyZXQ=");
        let mut env2 = env.clone();
        env2.push(("K6_PROMETHEUS_RW_BEARER_TOKEN".into(), "tok-secret".into()));
        let c = RwConfig::parse("", &env2).unwrap();
        let h = c.push_headers();
        let auth: Vec<&(String, String)> = h.iter().filter(|(k, _)| k == "Authorization").collect();
        assert_eq!(auth.len(), 1);
        assert_eq!(auth[0].1, "Bearer tok-secret");
        let shown = format!("{c:?}");
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn what_is_missing_or_wrong_is_refused_naming_it() {
        for (arg, env, words) in [
            ("foo=1", vec![], "\"foo\" is an unknown option's key"),
            ("url", vec![], "couldn't parse argument \"url\" as option"),
            (
                "trendAsNativeHistogram=true",
                vec![],
                "trendAsNativeHistogram=true: not supported",
            ),
            (
                "pushInterval=soon",
                vec![],
                "pushInterval \"soon\": not a duration",
            ),
            ("url=ftp://x/", vec![], "the remote-write URL ftp://x/"),
            (
                "",
                vars(&[("K6_PROMETHEUS_RW_SIGV4_REGION", "eu")]),
                "K6_PROMETHEUS_RW_SIGV4_REGION: not supported",
            ),
            (
                "",
                vars(&[("K6_PROMETHEUS_RW_TREND_STATS", "p(x)")]),
                "K6_PROMETHEUS_RW_TREND_STATS",
            ),
            (
                "",
                vars(&[("K6_PROMETHEUS_RW_HTTP_HEADERS", "a")]),
                "the provided header (a) does not respect",
            ),
            (
                "",
                vars(&[("K6_PROMETHEUS_RW_STALE_MARKERS", "yes")]),
                "value must be true or false",
            ),
        ] {
            let e = RwConfig::parse(arg, &env).unwrap_err();
            assert!(e.contains(words), "{arg}: {e}");
        }
    }
}
