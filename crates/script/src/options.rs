//! k6 `options` (from the script's `export const options`, then the command
//! line's flags on top) turned into scenarios with their executors.

use std::time::Duration;

use serde_json::Value;

use crate::ScriptError;
use crate::segment::{Stripe, Tuple};
use crate::system_tags::SystemTags;
use loadlab_engine::dns_pick::{DnsPolicy, DnsSelect};

/// One stage of a ramp: reach `target` (VUs or iterations per time unit)
/// linearly over `duration`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub duration: Duration,
    pub target: f64,
}

/// The executors k6 has (but `externally-controlled`, refused).
#[derive(Debug, Clone, PartialEq)]
pub enum Executor {
    SharedIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    PerVuIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    ConstantVus {
        vus: u64,
        duration: Duration,
    },
    RampingVus {
        start_vus: u64,
        stages: Vec<Stage>,
    },
    ConstantArrivalRate {
        /// Iterations per `time_unit`.
        rate: f64,
        time_unit: Duration,
        duration: Duration,
        max_vus: u64,
    },
    RampingArrivalRate {
        start_rate: f64,
        time_unit: Duration,
        stages: Vec<Stage>,
        max_vus: u64,
    },
}

/// How an executor's work is shared out by `--execution-segment`, beyond
/// its own (scaled) numbers: what the scheduler needs to run this
/// instance's part of the whole test.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSegment {
    /// Arrival-rate executors: this instance's `j`-th arrival is the whole
    /// test's arrival `arrivals.nth(j)`, due at its whole-test time
    /// (`None` from `nth`: this instance has none).
    pub arrivals: Option<Stripe>,
    /// `ramping-vus`: the whole test's start and stages; at each instant
    /// this instance runs its share (`vus.scale`) of the whole test's VUs.
    pub ramp: Option<(Stripe, u64, Vec<Stage>)>,
}

impl Executor {
    /// This executor's part for the instance running segment `t`, as k6
    /// shares it out: VUs scaled by the sequence's striping (constant-vus,
    /// per-vu-iterations and shared-iterations VUs, an arrival-rate's VUs,
    /// a ramp's VUs at every instant); the iterations of shared-iterations
    /// and the arrivals of the arrival-rate executors striped in proportion
    /// to the segments' VUs (a segment without VUs gets none); per-VU
    /// iterations unchanged. The union over the sequence's segments is the
    /// whole test.
    pub fn segmented(&self, t: &Tuple) -> (Executor, Option<ScenarioSegment>) {
        let vus = Stripe {
            striping: t.striping.clone(),
            seg: Some(t.index),
        };
        let whole_vus = |v: f64| v.max(0.0).round() as u64;
        match self {
            Executor::SharedIterations {
                vus: v,
                iterations,
                max_duration,
            } => (
                Executor::SharedIterations {
                    vus: t.scale(*v),
                    iterations: Stripe::by_vus(t, t.index, *v).scale(*iterations),
                    max_duration: *max_duration,
                },
                None,
            ),
            Executor::PerVuIterations {
                vus: v,
                iterations,
                max_duration,
            } => (
                Executor::PerVuIterations {
                    vus: t.scale(*v),
                    iterations: *iterations,
                    max_duration: *max_duration,
                },
                None,
            ),
            Executor::ConstantVus { vus: v, duration } => (
                Executor::ConstantVus {
                    vus: t.scale(*v),
                    duration: *duration,
                },
                None,
            ),
            Executor::RampingVus { start_vus, stages } => (
                Executor::RampingVus {
                    start_vus: t.scale(*start_vus),
                    stages: stages
                        .iter()
                        .map(|st| Stage {
                            duration: st.duration,
                            target: t.scale(whole_vus(st.target)) as f64,
                        })
                        .collect(),
                },
                Some(ScenarioSegment {
                    arrivals: None,
                    ramp: Some((vus, *start_vus, stages.clone())),
                }),
            ),
            Executor::ConstantArrivalRate {
                rate,
                time_unit,
                duration,
                max_vus,
            } => (
                Executor::ConstantArrivalRate {
                    rate: *rate,
                    time_unit: *time_unit,
                    duration: *duration,
                    max_vus: t.scale(*max_vus),
                },
                Some(ScenarioSegment {
                    arrivals: Some(Stripe::by_vus(t, t.index, *max_vus)),
                    ramp: None,
                }),
            ),
            Executor::RampingArrivalRate {
                start_rate,
                time_unit,
                stages,
                max_vus,
            } => (
                Executor::RampingArrivalRate {
                    start_rate: *start_rate,
                    time_unit: *time_unit,
                    stages: stages.clone(),
                    max_vus: t.scale(*max_vus),
                },
                Some(ScenarioSegment {
                    arrivals: Some(Stripe::by_vus(t, t.index, *max_vus)),
                    ramp: None,
                }),
            ),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Executor::SharedIterations { .. } => "shared-iterations",
            Executor::PerVuIterations { .. } => "per-vu-iterations",
            Executor::ConstantVus { .. } => "constant-vus",
            Executor::RampingVus { .. } => "ramping-vus",
            Executor::ConstantArrivalRate { .. } => "constant-arrival-rate",
            Executor::RampingArrivalRate { .. } => "ramping-arrival-rate",
        }
    }

    /// VUs the scenario needs at most.
    pub fn max_vus(&self) -> u64 {
        match self {
            Executor::SharedIterations { vus, .. }
            | Executor::PerVuIterations { vus, .. }
            | Executor::ConstantVus { vus, .. } => *vus,
            Executor::RampingVus { start_vus, stages } => stages
                .iter()
                .map(|s| s.target as u64)
                .max()
                .unwrap_or(0)
                .max(*start_vus),
            Executor::ConstantArrivalRate { max_vus, .. }
            | Executor::RampingArrivalRate { max_vus, .. } => *max_vus,
        }
    }

    /// How long the scenario schedules new iterations.
    pub fn duration(&self) -> Duration {
        match self {
            Executor::SharedIterations { max_duration, .. }
            | Executor::PerVuIterations { max_duration, .. } => *max_duration,
            Executor::ConstantVus { duration, .. }
            | Executor::ConstantArrivalRate { duration, .. } => *duration,
            Executor::RampingVus { stages, .. } | Executor::RampingArrivalRate { stages, .. } => {
                stages.iter().map(|s| s.duration).sum()
            }
        }
    }

    pub fn is_arrival_rate(&self) -> bool {
        matches!(
            self,
            Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. }
        )
    }
}

/// A value of a ramp at `t`: `start` before the first stage, linear within
/// each stage, the last target after the end.
pub fn ramp_at(start: f64, stages: &[Stage], t: Duration) -> f64 {
    ramp_level(start, stages, t).0
}

/// The ramp's value at `t` and which way it moves there (the stage's
/// target less where it started; 0 after the last stage).
pub(crate) fn ramp_level(start: f64, stages: &[Stage], t: Duration) -> (f64, f64) {
    let mut from = start;
    let mut at = Duration::ZERO;
    for s in stages {
        if t < at + s.duration {
            let f = (t - at).as_secs_f64() / s.duration.as_secs_f64().max(1e-12);
            return (from + (s.target - from) * f, s.target - from);
        }
        at += s.duration;
        from = s.target;
    }
    (from, 0.0)
}

/// How many VUs a ramping-vus ramp wants at `t`, as k6 counts them: while
/// the ramp climbs a VU joins when the line reaches its number (floor);
/// while it falls one leaves when the line reaches the number below
/// (ceiling).
pub fn ramp_vus_at(start: f64, stages: &[Stage], t: Duration) -> u64 {
    let (v, way) = ramp_level(start, stages, t);
    // A hair of slack, so that a crossing computed a rounding error short
    // of its number still counts.
    let n = if way >= 0.0 {
        (v + 1e-9).floor()
    } else {
        (v - 1e-9).ceil()
    };
    n.max(0.0) as u64
}

/// When the ramp that is flat at `t` (a stage whose target is the level it
/// starts from) ends, as an offset from the ramp's start; `None` while the
/// level moves. After the last stage the level never moves again.
pub fn ramp_flat_until(start: f64, stages: &[Stage], t: Duration) -> Option<Duration> {
    let mut from = start;
    let mut at = Duration::ZERO;
    for s in stages {
        if t < at + s.duration {
            return (s.target == from).then_some(at + s.duration);
        }
        at += s.duration;
        from = s.target;
    }
    Some(Duration::MAX)
}

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub executor: Executor,
    /// The exported function each iteration calls.
    pub exec: String,
    pub start_time: Duration,
    pub graceful_stop: Duration,
    /// ramping-vus: how long a VU above the ramp's level may finish its
    /// iteration before it is interrupted (k6's `gracefulRampDown`).
    pub graceful_ramp_down: Duration,
    pub env: Vec<(String, String)>,
    pub tags: Vec<(String, String)>,
    /// `--execution-segment`: how this instance takes its part (`None`
    /// for the whole test, or when the scaled numbers say it all).
    pub segment: Option<ScenarioSegment>,
    /// The executor of the whole test (before `--execution-segment`).
    pub whole: Executor,
    /// Arrival-rate executors: `preAllocatedVUs` of the whole test (all
    /// of `maxVUs` are made at the start; k6's banner shows both).
    pub pre_allocated_vus: u64,
    /// The duration fields given a negative value (`"-1s"`, `-1000`), with
    /// its size: k6 reads them and refuses most in `config_errors`; the
    /// field itself holds zero.
    pub negative: Vec<(&'static str, Duration)>,
    /// The count fields (`vus`, `iterations`, `startVUs`,
    /// `preAllocatedVUs`, `maxVUs`) given a negative value, with it: k6
    /// refuses them in `config_errors`; the field itself holds zero.
    pub negative_counts: Vec<(&'static str, i64)>,
    /// What k6's checks find wrong with the stages (`stages`), in its
    /// words and order.
    pub stage_problems: Vec<String>,
}

/// A threshold expression on one metric (or a tag-filtered submetric).
#[derive(Debug, Clone)]
pub struct Threshold {
    /// As written in the options: `http_req_duration{endpoint:publish}`.
    pub key: String,
    pub metric: String,
    pub filter: Vec<(String, String)>,
    pub source: String,
    pub abort_on_fail: bool,
}

/// Everything of the options that the run uses.
#[derive(Debug, Clone)]
pub struct Options {
    pub scenarios: Vec<Scenario>,
    /// `--execution-segment` and its sequence: this instance's part of
    /// every scenario (`0:1` is the whole test).
    pub segment: Tuple,
    pub thresholds: Vec<Threshold>,
    pub tags: Vec<(String, String)>,
    pub summary_trend_stats: Vec<String>,
    /// `--summary-mode=full`: every `http_req_*` trend, and a section per group.
    pub summary_full: bool,
    /// The tag-filtered metrics the thresholds name (`metric`, filter):
    /// their sub-metric rows show even under `--no-thresholds`, as in k6.
    pub submetrics: Vec<(String, Vec<(String, String)>)>,
    pub setup_timeout: Duration,
    pub teardown_timeout: Duration,
    /// `noSetup` (`--no-setup`): setup() is not run; the iterations and
    /// teardown() get no data, as in k6.
    pub no_setup: bool,
    /// `noTeardown` (`--no-teardown`): teardown() is not run.
    pub no_teardown: bool,
    /// `consoleOutput` (`--console-output`, `K6_CONSOLE_OUTPUT`): the
    /// file the console's lines go to instead of standard error.
    pub console_output: Option<String>,
    /// `options.maxRedirects` (`--max-redirects` wins): the redirects a
    /// request follows unless its `params.redirects` says; `None`: k6's
    /// default, 10. Below 0 is 0, as in k6.
    pub max_redirects: Option<u32>,
    /// `hosts`: names dialled at fixed addresses (k6's option).
    pub hosts: loadlab_engine::hosts::HostOverrides,
    /// `--local-ips` (`K6_LOCAL_IPS`): the addresses VUs dial from.
    pub local_ips: Option<std::sync::Arc<crate::local_ips::IpPool>>,
    /// What k6 warns of when it reads these options (printed before the run).
    pub warnings: Vec<String>,
    /// k6's request options.
    pub request: RequestOptions,
    /// `summaryTimeUnit` (`--summary-time-unit`): every time in the summary
    /// in this unit (`s`, `ms` or `us`), else k6's unit per value.
    pub summary_time_unit: Option<TimeUnit>,
    /// `--summary-mode=disabled`.
    pub summary_disabled: bool,
    /// `systemTags` (`--system-tags`): the system tags samples carry.
    pub system_tags: SystemTags,
    /// `dns` (`--dns`, `K6_DNS`): how names are resolved.
    pub dns: DnsOptions,
    /// `tlsVersion`: the TLS versions offered, `(1.2, 1.3)` (`None`: both).
    pub tls_versions: Option<(bool, bool)>,
    /// `tlsCipherSuites` (`K6_TLS_CIPHER_SUITES`): the TLS 1.2 cipher
    /// suites offered, by Go's names (`None`: all).
    pub tls_cipher_suites: Option<Vec<String>>,
    /// `blockHostnames` and `blacklistIPs` (`--block-hostnames`,
    /// `--blacklist-ip`, `K6_BLOCK_HOSTNAMES`, `K6_BLACKLIST_IPS`).
    pub blocklist: loadlab_engine::blocklist::Blocklist,
    /// `tlsAuth`: client certificates, (chain, key) as PEM texts.
    pub tls_auth: Vec<(String, String)>,
}

/// k6's TLS versions, by its names, as wire numbers (`""`: any).
fn tls_version(v: &Value, what: &str) -> Result<u16, ScriptError> {
    match v {
        Value::Null => Ok(0),
        Value::String(s) => match s.as_str() {
            "" => Ok(0),
            "tls1.0" => Ok(0x0301),
            "tls1.1" => Ok(0x0302),
            "tls1.2" => Ok(0x0303),
            "tls1.3" => Ok(0x0304),
            _ => Err(bad(format!("{what}: unknown TLS version '{s}'"))),
        },
        v => Err(bad(format!(
            "{what}: {v} is not a TLS version (\"tls1.2\")"
        ))),
    }
}

/// The cipher suites k6 knows by name (Go's), TLS 1.3's last.
const K6_CIPHER_SUITES: [&str; 25] = [
    "TLS_RSA_WITH_RC4_128_SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
];

/// k6's `dns` option: how long a lookup is kept, and which of a name's
/// addresses a new connection dials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DnsOptions {
    pub ttl: loadlab_engine::config::DnsCache,
    pub select: DnsSelect,
    pub policy: DnsPolicy,
}

impl Default for DnsOptions {
    /// k6's: `ttl=5m,select=random,policy=preferIPv4`.
    fn default() -> Self {
        DnsOptions {
            ttl: loadlab_engine::config::DnsCache::For(Duration::from_secs(300)),
            select: DnsSelect::Random,
            policy: DnsPolicy::PreferIpv4,
        }
    }
}

/// The fields of k6's `dns` text (`--dns`, `K6_DNS`):
/// `ttl=1m,select=first,policy=any`, each checked as k6 checks it.
pub fn dns_text_fields(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    let mut m = serde_json::Map::new();
    for item in text.split(',') {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        if v.is_empty() {
            return Err(format!("no value for key {item}"));
        }
        if !DnsOptions::default().set(k, v)? {
            return Err(format!("unknown DNS configuration field: {k}"));
        }
        m.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(m)
}

impl DnsOptions {
    /// Sets field `k` (`ttl`, `select` or `policy`) from its text as k6
    /// reads it; `Ok(false)` for a key that is none of them.
    fn set(&mut self, k: &str, v: &str) -> Result<bool, String> {
        match k {
            "ttl" => self.ttl = dns_ttl(v)?,
            "select" => {
                self.select = DnsSelect::parse(v).ok_or_else(|| {
                    format!("{v} does not belong to DNSSelect values (first, random, roundRobin)")
                })?
            }
            "policy" => {
                self.policy = DnsPolicy::parse(v).ok_or_else(|| {
                    format!(
                        "{v} does not belong to DNSPolicy values (preferIPv4, preferIPv6, \
                         onlyIPv4, onlyIPv6, any)"
                    )
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// k6's DNS TTL: `inf` (kept for the whole test), `0` (never kept), a
/// duration (`1m`, `1d2h`), or a number of milliseconds.
fn dns_ttl(v: &str) -> Result<loadlab_engine::config::DnsCache, String> {
    use loadlab_engine::config::DnsCache;
    let bad = || format!("invalid DNS TTL: {v}");
    let d = match v {
        "inf" => return Ok(DnsCache::Forever),
        "0" => return Ok(DnsCache::Off),
        _ => {
            if let Ok(ms) = v.parse::<f64>() {
                if !(ms >= 0.0 && ms.is_finite()) {
                    return Err(bad());
                }
                Duration::from_secs_f64(ms / 1000.0)
            } else if let Some((days, rest)) = v.split_once('d') {
                let days: u64 = days.parse().map_err(|_| bad())?;
                let rest = if rest.is_empty() {
                    Duration::ZERO
                } else {
                    loadlab_core::duration::parse_go_duration(rest).map_err(|_| bad())?
                };
                Duration::from_secs(days * 86_400) + rest
            } else {
                loadlab_core::duration::parse_go_duration(v).map_err(|_| bad())?
            }
        }
    };
    Ok(if d.is_zero() {
        DnsCache::Off
    } else {
        DnsCache::For(d)
    })
}

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

/// A fixed unit for the summary's times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    /// As written in the option: `s`, `ms`, `us`.
    pub name: &'static str,
    /// What the summary shows after the value (`µs` for `us`).
    pub suffix: &'static str,
    /// Milliseconds in one unit.
    pub ms: f64,
}

impl TimeUnit {
    pub fn parse(s: &str) -> Option<TimeUnit> {
        let (name, suffix, ms) = match s {
            "s" => ("s", "s", 1000.0),
            "ms" => ("ms", "ms", 1.0),
            "us" => ("us", "µs", 0.001),
            _ => return None,
        };
        Some(TimeUnit { name, suffix, ms })
    }
}

/// The command line's say over the script's options.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `-u`.
    pub vus: Option<i64>,
    /// `-d`, as written: k6 reads a negative or zero one too, and then
    /// refuses it in its own words.
    pub duration: Option<String>,
    /// `-i`.
    pub iterations: Option<i64>,
    /// `-s`, each as written (`[duration]:[target]`, either part may be
    /// left out, as in k6).
    pub stages: Option<Vec<String>>,
    pub tags: Vec<(String, String)>,
    pub summary_trend_stats: Option<Vec<String>>,
    /// `--summary-time-unit`.
    pub summary_time_unit: Option<String>,
    /// `--summary-mode=disabled` (`--no-summary`): no summary, no
    /// `handleSummary`, no `--summary-export`, as k6.
    pub summary_disabled: bool,
    /// The flags of k6's request options (each wins over the script's).
    pub request: RequestOptions,
    /// `--summary-mode=full`.
    pub summary_full: bool,
    pub no_thresholds: bool,
    /// `--execution-segment` with `--execution-segment-sequence`.
    pub segment: Option<Tuple>,
    /// `--max-redirects`.
    pub max_redirects: Option<u32>,
    /// `--no-setup`, `--no-teardown`.
    pub no_setup: bool,
    pub no_teardown: bool,
    /// `--console-output FILE`.
    pub console_output: Option<String>,
    /// The environment's `K6_*` variables (k6's option layer between the
    /// script's `options` and the command line's flags; [`env_layer`]).
    pub env: Vec<(String, String)>,
    /// `--system-tags`, its names (empty: none).
    pub system_tags: Option<Vec<String>>,
    /// `--dns`, as written (`ttl=1m,select=first,policy=any`).
    pub dns: Option<String>,
    /// `--block-hostnames`, `--blacklist-ip` (each replaces the script's).
    pub block_hostnames: Option<Vec<String>>,
    pub blacklist_ips: Option<Vec<String>>,
    /// `--local-ips`, as written.
    pub local_ips: Option<String>,
}

impl Overrides {
    /// The local IPs as given: `--local-ips`, else `K6_LOCAL_IPS`.
    pub(crate) fn local_ips_text(&self) -> Option<&str> {
        self.local_ips
            .as_deref()
            .or_else(|| env_var(&self.env, "K6_LOCAL_IPS"))
    }
}

/// The last non-empty value of variable `name` in `env` (as k6 reads its
/// `K6_*` variables: an empty one is unset).
pub(crate) fn env_var<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter()
        .rev()
        .find(|(n, v)| n == name && !v.is_empty())
        .map(|(_, v)| v.as_str())
}

/// The `K6_*` variables that set options, the option each sets, and how
/// its text is read (as k6 reads them).
const ENV_OPTIONS: [(&str, &str, EnvKind); 30] = [
    ("K6_VUS", "vus", EnvKind::Int),
    ("K6_DURATION", "duration", EnvKind::Duration),
    ("K6_ITERATIONS", "iterations", EnvKind::Int),
    ("K6_STAGES", "stages", EnvKind::Stages),
    ("K6_SETUP_TIMEOUT", "setupTimeout", EnvKind::Duration),
    ("K6_TEARDOWN_TIMEOUT", "teardownTimeout", EnvKind::Duration),
    ("K6_MAX_REDIRECTS", "maxRedirects", EnvKind::Int),
    ("K6_USER_AGENT", "userAgent", EnvKind::Text),
    (
        "K6_INSECURE_SKIP_TLS_VERIFY",
        "insecureSkipTLSVerify",
        EnvKind::Bool,
    ),
    ("K6_THROW", "throw", EnvKind::Bool),
    ("K6_NO_CONNECTION_REUSE", "noConnectionReuse", EnvKind::Bool),
    (
        "K6_NO_VU_CONNECTION_REUSE",
        "noVUConnectionReuse",
        EnvKind::Bool,
    ),
    (
        "K6_MIN_ITERATION_DURATION",
        "minIterationDuration",
        EnvKind::Duration,
    ),
    ("K6_SUMMARY_TREND_STATS", "summaryTrendStats", EnvKind::List),
    ("K6_SUMMARY_TIME_UNIT", "summaryTimeUnit", EnvKind::Text),
    ("K6_TAGS", "tags", EnvKind::Tags),
    ("K6_NO_COOKIES_RESET", "noCookiesReset", EnvKind::Bool),
    (
        "K6_DISCARD_RESPONSE_BODIES",
        "discardResponseBodies",
        EnvKind::Bool,
    ),
    ("K6_NO_SETUP", "noSetup", EnvKind::Bool),
    ("K6_NO_TEARDOWN", "noTeardown", EnvKind::Bool),
    ("K6_CONSOLE_OUTPUT", "consoleOutput", EnvKind::Text),
    ("K6_HTTP_DEBUG", "httpDebug", EnvKind::Text),
    ("K6_RPS", "rps", EnvKind::Int),
    ("K6_BATCH", "batch", EnvKind::Int),
    ("K6_BATCH_PER_HOST", "batchPerHost", EnvKind::Int),
    ("K6_SYSTEM_TAGS", "systemTags", EnvKind::List),
    ("K6_DNS", "dns", EnvKind::Dns),
    ("K6_TLS_CIPHER_SUITES", "tlsCipherSuites", EnvKind::List),
    ("K6_BLOCK_HOSTNAMES", "blockHostnames", EnvKind::List),
    ("K6_BLACKLIST_IPS", "blacklistIPs", EnvKind::List),
];

/// k6's option variables loadlab k6 does not have: refused when set (to
/// anything but false), as the options themselves are.
const ENV_UNSUPPORTED: [&str; 5] = [
    "K6_PAUSED",
    "K6_TLSAUTH",
    "K6_THRESHOLDS",
    "K6_LINGER",
    "K6_WEB_DASHBOARD",
];

#[derive(Clone, Copy)]
enum EnvKind {
    Int,
    Duration,
    Bool,
    Text,
    /// Comma-separated texts.
    List,
    /// Comma-separated `DURATION:TARGET`s, as `-s` takes each.
    Stages,
    /// Comma-separated `NAME:VALUE`s.
    Tags,
    /// k6's `dns` text (`ttl=1m,select=first`): its fields over the
    /// script's.
    Dns,
}

/// Go's `strconv.ParseBool`, which k6 reads its variables with.
fn go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// True when `K6_DURATION`, `K6_ITERATIONS` or `K6_STAGES` is set (they
/// replace all of the script's shortcuts and scenarios, as flags do).
fn env_shortcut(env: &[(String, String)]) -> bool {
    env.iter().any(|(k, v)| {
        !v.is_empty() && ["K6_DURATION", "K6_ITERATIONS", "K6_STAGES"].contains(&k.as_str())
    })
}

/// The script's `options` (`raw`) with k6's `K6_*` option variables
/// (`env`) over them, as k6 layers them: each sets its option;
/// `K6_DURATION`, `K6_ITERATIONS` or `K6_STAGES` replace all of `duration`,
/// `iterations`, `stages` and `scenarios`. A value k6 could not read, or a
/// variable of an option loadlab k6 does not have, is an error naming it.
pub fn env_layer(raw: &Value, env: &[(String, String)]) -> Result<Value, ScriptError> {
    let var = |k: &str| env_var(env, k);
    for k in ENV_UNSUPPORTED {
        if let Some(v) = var(k)
            && go_bool(v) != Some(false)
        {
            return Err(bad(format!(
                "{k}={v:?}: the option is not supported by loadlab k6 (see docs/k6.md)"
            )));
        }
    }
    let mut m = raw.as_object().cloned().unwrap_or_default();
    if env_shortcut(env) {
        for k in ["duration", "iterations", "stages", "scenarios"] {
            m.remove(k);
        }
    }
    for (name, option, kind) in ENV_OPTIONS {
        let Some(v) = var(name) else { continue };
        let refuse = |want: &str| bad(format!("{name}={v:?}: {want}"));
        let items = || v.split(',').map(str::trim).filter(|s| !s.is_empty());
        let value = match kind {
            EnvKind::Int => Value::from(
                v.trim()
                    .parse::<i64>()
                    .map_err(|_| refuse("not a whole number"))?,
            ),
            EnvKind::Duration => {
                parse_signed_duration_str(v)
                    .ok_or_else(|| refuse("not a duration (e.g. 30s, 1m30s)"))?;
                Value::String(v.trim().to_string())
            }
            EnvKind::Bool => {
                Value::Bool(go_bool(v.trim()).ok_or_else(|| refuse("not true or false"))?)
            }
            EnvKind::Text => Value::String(v.to_string()),
            EnvKind::List => Value::Array(items().map(|s| Value::String(s.into())).collect()),
            EnvKind::Stages => Value::Array(
                items()
                    .map(|s| stage_flag(s).map_err(|e| refuse(&e)))
                    .collect::<Result<_, _>>()?,
            ),
            EnvKind::Tags => {
                let mut tags = serde_json::Map::new();
                for pair in items() {
                    let (k, t) = pair
                        .split_once(':')
                        .filter(|(k, _)| !k.trim().is_empty())
                        .ok_or_else(|| refuse("expected NAME:VALUE pairs, comma-separated"))?;
                    tags.insert(k.trim().to_string(), Value::String(t.trim().to_string()));
                }
                Value::Object(tags)
            }
            EnvKind::Dns => {
                let mut d = m
                    .get(option)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                d.extend(dns_text_fields(v.trim()).map_err(|e| refuse(&e))?);
                Value::Object(d)
            }
        };
        m.insert(option.to_string(), value);
    }
    Ok(Value::Object(m))
}

/// k6's words for a shortcut `duration` that is not above zero.
pub const DURATION_NOT_POSITIVE: &str = "`duration` option should be more than 0, for infinite \
     duration use the externally-controlled executor";

fn bad(msg: impl Into<String>) -> ScriptError {
    ScriptError::Options(msg.into())
}

/// k6's durations: a number is milliseconds; a string is Go's duration
/// syntax (`1m30s`, `500ms`) or a bare number of seconds.
pub fn parse_duration(v: &Value, what: &str) -> Result<Duration, ScriptError> {
    match parse_signed_duration(v, what)? {
        (false, d) => Ok(d),
        (true, _) => Err(not_a_duration(v, what)),
    }
}

/// Like [`parse_duration`], but a negative duration (Go's `"-1s"`, or a
/// negative number of milliseconds) is read too: `(true, its size)`.
fn parse_signed_duration(v: &Value, what: &str) -> Result<(bool, Duration), ScriptError> {
    match v {
        Value::Number(n) => {
            let ms = n.as_f64().unwrap_or(f64::NAN);
            if !ms.is_finite() {
                return Err(not_a_duration(v, what));
            }
            Ok((ms < 0.0, Duration::from_secs_f64(ms.abs() / 1000.0)))
        }
        Value::String(s) => parse_signed_duration_str(s).ok_or_else(|| not_a_duration(v, what)),
        _ => Err(not_a_duration(v, what)),
    }
}

/// A duration's text with its sign (`"-1s"`): `(true, its size)` when
/// negative.
pub fn parse_signed_duration_str(s: &str) -> Option<(bool, Duration)> {
    let t = s.trim();
    let (neg, rest) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    Some((neg, parse_duration_str(rest)?))
}

fn not_a_duration(v: &Value, what: &str) -> ScriptError {
    match v {
        Value::String(s) => bad(format!(
            "{what}: {s:?} is not a duration (e.g. \"30s\", \"1m30s\", \"500ms\")"
        )),
        _ => bad(format!("{what}: {v} is not a duration")),
    }
}

pub fn parse_duration_str(s: &str) -> Option<Duration> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    loadlab_core::duration::parse_go_duration(s)
        .ok()
        .filter(|d| !d.is_zero() || s.chars().any(|c| c.is_ascii_digit()))
}

fn num(v: &Value, what: &str) -> Result<f64, ScriptError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| bad(format!("{what}: not a number"))),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| bad(format!("{what}: {s:?} is not a number"))),
        _ => Err(bad(format!("{what}: {v} is not a number"))),
    }
}

/// A count read signed, as a field holds it (zero for a negative one,
/// which `config_errors` refuses).
fn whole(n: i64) -> u64 {
    n.max(0) as u64
}

/// A count (VUs, iterations): a whole number. A negative one is read, as
/// k6 reads it, for k6's checks to refuse in its words (`config_errors`).
/// A count that cannot be negative (`batch`, `batchPerHost`).
fn whole_count(v: &Value, what: &str) -> Result<u64, ScriptError> {
    let n = int(v, what)?;
    u64::try_from(n).map_err(|_| bad(format!("{what}: {n} can't be negative")))
}

fn int(v: &Value, what: &str) -> Result<i64, ScriptError> {
    let n = num(v, what)?;
    if n.fract() != 0.0 || !n.is_finite() || n.abs() > 9.0e15 {
        return Err(bad(format!("{what}: {n} is not a whole number")));
    }
    Ok(n as i64)
}

/// The stages k6 reads from `v`, and what its checks find wrong with them
/// (a negative duration or target, a target left out), in its words; a
/// stage without a duration is left out, as k6 leaves it out.
///
/// In a scenario's `stages` (`in_scenario`), a stage without a duration
/// is kept and refused instead, as k6 does there.
fn stages(
    v: &Value,
    what: &str,
    in_scenario: bool,
) -> Result<(Vec<Stage>, Vec<String>), ScriptError> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad(format!("{what}: not an array")))?;
    let mut list = Vec::new();
    let mut problems = Vec::new();
    for (i, s) in arr.iter().enumerate() {
        let what = format!("{what}[{i}]");
        let field = |k: &str| s.get(k).filter(|v| !v.is_null());
        let n = list.len() + 1;
        let (negative, duration) = match field("duration") {
            Some(d) => parse_signed_duration(d, &format!("{what}.duration"))?,
            None if in_scenario => {
                problems.push(format!("stage {n} doesn't have a duration"));
                (false, Duration::ZERO)
            }
            None => continue,
        };
        if negative {
            problems.push(format!("the duration for stage {n} can't be negative"));
        }
        let target = match field("target") {
            Some(t) => {
                let t = num(t, &format!("{what}.target"))?;
                if t < 0.0 {
                    problems.push(format!("the target for stage {n} can't be negative"));
                }
                t
            }
            None => {
                problems.push(format!("stage {n} doesn't have a target"));
                0.0
            }
        };
        list.push(Stage {
            duration: if negative { Duration::ZERO } else { duration },
            target,
        });
    }
    Ok((list, problems))
}

/// `-s 30s:10` (k6's `--stage`, `duration[:target]`) as the script's
/// `stages` would give it; a target left out is left out (k6 then refuses
/// the stage for it, in its checks).
pub fn stage_flag(s: &str) -> Result<Value, String> {
    let (d, t) = s.split_once(':').unwrap_or((s, ""));
    let mut m = serde_json::Map::new();
    // (k6 refuses a stage flag without a duration as it reads it.)
    if d.trim().is_empty() {
        return Err(format!(
            "stage {s:?}: no duration (DURATION:TARGET, e.g. 30s:10)"
        ));
    }
    if parse_signed_duration_str(d).is_none() {
        return Err(format!(
            "stage {s:?}: {d:?} is not a duration (e.g. 30s:10, 1m30s:100)"
        ));
    }
    m.insert("duration".into(), Value::String(d.trim().to_string()));
    if !t.trim().is_empty() {
        let n: i64 = t
            .trim()
            .parse()
            .map_err(|_| format!("stage {s:?}: {t:?} is not a whole number of VUs"))?;
        m.insert("target".into(), n.into());
    }
    Ok(Value::Object(m))
}

fn string_pairs(v: Option<&Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(Value::Object(m)) = v {
        for (k, v) in m {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push((k.clone(), v));
        }
    }
    out
}

const DEFAULT_STATS: [&str; 6] = ["avg", "min", "med", "max", "p(90)", "p(95)"];

impl Options {
    /// Builds the run's options from the script's (JSON of `options`, or
    /// `null`), the environment's `K6_*` and the command line's, layered as
    /// k6 layers them (a flag wins over `K6_*`, which wins over the script;
    /// a layer's `duration`, `iterations` or `stages` replace the lower
    /// layers' four shortcuts and `scenarios`), and checked with k6's
    /// checks and words (two shortcuts in one layer, negative counts and
    /// durations, each executor's own).
    pub fn resolve(script: &Value, o: &Overrides) -> Result<Options, ScriptError> {
        // The environment's layer first (the flags' is over it, below).
        let env_replaces_scenarios =
            env_shortcut(&o.env) && script.get("scenarios").is_some_and(|v| !v.is_null());
        let script = &env_layer(script, &o.env)?;
        let get = |k: &str| script.get(k).filter(|v| !v.is_null());
        // k6's options that loadlab k6 does not have: accepted and ignored
        // would mislead, so each is named (keys k6 does not know are
        // ignored, as k6 ignores them; `cloud` is k6 Cloud's alone).
        for unsupported in [
            "ext",
            "paused",
            "linger",
            "executionSegment",
            "executionSegmentSequence",
        ] {
            if let Some(v) = get(unsupported) {
                // An option set to its default changes nothing.
                if v == &Value::Bool(false) {
                    continue;
                }
                return Err(bad(format!(
                    "options.{unsupported} is not supported by loadlab k6 (see docs/k6.md)"
                )));
            }
        }
        let mut scenarios = Vec::new();
        let mut warnings = Vec::new();
        // k6 v1.8.1 has no reader for K6_HOSTS: it ignores the variable,
        // whatever its value. So does loadlab, saying so.
        if env_var(&o.env, "K6_HOSTS").is_some() {
            warnings.push(
                "K6_HOSTS is ignored, as k6 ignores it (it has no reader for it); set the script's \
                 options.hosts instead"
                    .into(),
            );
        }
        // k6 reads its local IPs from --local-ips and K6_LOCAL_IPS only
        // (the script's `localIPs` is no option of its: `json:"-"`).
        if get("localIPs").is_some_and(|v| v != &Value::Bool(false)) {
            warnings.push(
                "options.localIPs is ignored, as k6 ignores it in a script; give --local-ips or \
                 K6_LOCAL_IPS"
                    .into(),
            );
        }
        let local_ips = match o.local_ips_text() {
            None => None,
            Some(t) => Some(std::sync::Arc::new(
                crate::local_ips::IpPool::parse(t).map_err(bad)?,
            )),
        };
        // k6's layers: the environment's or the command line's `duration`,
        // `iterations` or `stages` replace all of the lower layers'
        // shortcuts and `scenarios` (k6 warns when scenarios go).
        if env_replaces_scenarios {
            warnings.push(
                "\"env\" level configuration overrode scenarios configuration entirely".into(),
            );
        }
        let flag_shortcut = o.duration.is_some() || o.iterations.is_some() || o.stages.is_some();
        if flag_shortcut && get("scenarios").is_some() {
            warnings.push(
                "\"cli\" level configuration overrode scenarios configuration entirely".into(),
            );
        }
        // (`script` has the environment's layer already.)
        let layered = crate::test_options::flags_over(script, o);
        let short = |k: &str| layered.get(k).filter(|v| !v.is_null());
        let vus = short("vus").map(|v| int(v, "options.vus")).transpose()?;
        let iterations = short("iterations")
            .map(|v| int(v, "options.iterations"))
            .transpose()?;
        let duration = short("duration")
            .map(|v| parse_signed_duration(v, "options.duration"))
            .transpose()?;
        let (stage_list, stage_problems) = match short("stages") {
            Some(v) => {
                let (list, problems) = stages(v, "options.stages", false)?;
                (Some(list), problems)
            }
            None => (None, Vec::new()),
        };
        let scenario_map = match short("scenarios") {
            None => None,
            Some(Value::Object(sc)) => Some(sc),
            Some(other) => return Err(bad(format!("options.scenarios: {other} is not an object"))),
        };
        // Which of them make the test, as k6 derives its scenarios (and
        // what it refuses to mix in one layer).
        let conflict = |a: &str, b: &str| {
            Err(bad(format!(
                "using `{a}` and `{b}` options simultaneously is not allowed"
            )))
        };
        let has_stages = stage_list.as_ref().is_some_and(|s| !s.is_empty());
        let mut negative = Vec::new();
        let mut negative_counts = Vec::new();
        let vus_n = vus.unwrap_or(1);
        let shortcut = if let Some(iterations) = iterations {
            if has_stages {
                return conflict("iterations", "stages");
            }
            if scenario_map.is_some() {
                return conflict("iterations", "scenarios");
            }
            negative_counts.extend([("vus", vus_n), ("iterations", iterations)]);
            let max_duration = match duration {
                Some((true, size)) => {
                    negative.push(("maxDuration", size));
                    Duration::ZERO
                }
                Some((false, d)) => d,
                None => Duration::from_secs(600),
            };
            // More VUs than iterations is refused below, as in k6.
            Some(Executor::SharedIterations {
                vus: whole(vus_n),
                iterations: whole(iterations),
                max_duration,
            })
        } else if let Some((neg, duration)) = duration {
            if has_stages {
                return conflict("duration", "stages");
            }
            if scenario_map.is_some() {
                return conflict("duration", "scenarios");
            }
            if neg || duration.is_zero() {
                return Err(bad(DURATION_NOT_POSITIVE));
            }
            negative_counts.push(("vus", vus_n));
            Some(Executor::ConstantVus {
                vus: whole(vus_n),
                duration,
            })
        } else if has_stages {
            if scenario_map.is_some() {
                return conflict("stages", "scenarios");
            }
            negative_counts.push(("startVUs", vus_n));
            Some(Executor::RampingVus {
                start_vus: whole(vus_n),
                stages: stage_list.clone().unwrap_or_default(),
            })
        } else {
            None
        };
        match (shortcut, scenario_map) {
            (None, Some(sc)) if !sc.is_empty() => {
                for (name, s) in sc {
                    scenarios.push(scenario(name, s)?);
                }
            }
            (shortcut, scenario_map) => {
                let executor = shortcut.unwrap_or_else(|| {
                    // No duration, iterations, stages or scenarios: one VU,
                    // once, as in k6 (with its warnings).
                    if vus_n != 1 {
                        warnings.push(format!(
                            "`vus={vus_n}` option will be ignored, it only works in conjunction \
                             with `iterations`, `duration`, or `stages`"
                        ));
                    }
                    if stage_list.is_some() {
                        warnings.push(
                            "`stages` was explicitly set to an empty value, running the script \
                             with 1 iteration in 1 VU"
                                .into(),
                        );
                    }
                    if scenario_map.is_some() {
                        warnings.push(
                            "`scenarios` was explicitly set to an empty value, running the \
                             script with 1 iteration in 1 VU"
                                .into(),
                        );
                    }
                    Executor::PerVuIterations {
                        vus: 1,
                        iterations: 1,
                        max_duration: Duration::from_secs(600),
                    }
                });
                let stage_problems = if matches!(executor, Executor::RampingVus { .. }) {
                    stage_problems
                } else {
                    Vec::new()
                };
                scenarios.push(Scenario {
                    name: "default".into(),
                    whole: executor.clone(),
                    executor,
                    exec: "default".into(),
                    start_time: Duration::ZERO,
                    graceful_stop: Duration::from_secs(30),
                    graceful_ramp_down: Duration::from_secs(30),
                    env: Vec::new(),
                    tags: Vec::new(),
                    segment: None,
                    pre_allocated_vus: 0,
                    negative,
                    negative_counts: negative_counts.into_iter().filter(|c| c.1 < 0).collect(),
                    stage_problems,
                });
            }
        }
        scenarios.sort_by(|a, b| a.name.cmp(&b.name));
        let problems: Vec<String> = scenarios
            .iter()
            .filter_map(|sc| {
                let e = config_errors(sc);
                (!e.is_empty()).then(|| {
                    format!(
                        "\t- scenario {} has configuration errors: {}",
                        sc.name,
                        e.join(", ")
                    )
                })
            })
            .collect();
        if !problems.is_empty() {
            return Err(bad(format!(
                "there were problems with the specified script configuration:\n{}",
                problems.join("\n")
            )));
        }
        let mut submetrics = Vec::new();
        if let Some(Value::Object(t)) = get("thresholds") {
            for key in t.keys() {
                let (metric, filter) = parse_metric_key(key)?;
                if !filter.is_empty() && !submetrics.contains(&(metric.clone(), filter.clone())) {
                    submetrics.push((metric, filter));
                }
            }
        }
        let mut thresholds = Vec::new();
        if !o.no_thresholds
            && let Some(Value::Object(t)) = get("thresholds")
        {
            for (key, v) in t {
                let (metric, filter) = parse_metric_key(key)?;
                let list: Vec<&Value> = match v {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                for item in list {
                    let (source, abort) = match item {
                        Value::String(s) => (s.clone(), false),
                        Value::Object(m) => (
                            m.get("threshold")
                                .and_then(Value::as_str)
                                .ok_or_else(|| {
                                    bad(format!(
                                        "thresholds[{key:?}]: an object needs \"threshold\""
                                    ))
                                })?
                                .to_string(),
                            m.get("abortOnFail")
                                .and_then(Value::as_bool)
                                .unwrap_or(false),
                        ),
                        _ => {
                            return Err(bad(format!(
                                "thresholds[{key:?}]: {item} is not a threshold"
                            )));
                        }
                    };
                    crate::metrics::parse_threshold(&source)
                        .map_err(|e| bad(format!("thresholds[{key:?}]: {e}")))?;
                    thresholds.push(Threshold {
                        key: key.clone(),
                        metric: metric.clone(),
                        filter: filter.clone(),
                        source,
                        abort_on_fail: abort,
                    });
                }
            }
        }
        // As in k6, `--tag` flags replace the script's `tags` (not merge).
        let mut tags = if o.tags.is_empty() {
            string_pairs(get("tags"))
        } else {
            Vec::new()
        };
        for (k, v) in &o.tags {
            tags.retain(|(a, _)| a != k);
            tags.push((k.clone(), v.clone()));
        }
        let summary_trend_stats = match &o.summary_trend_stats {
            Some(s) => s.clone(),
            None => match get("summaryTrendStats") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("options.summaryTrendStats: not a list of strings"))?,
                _ => DEFAULT_STATS.iter().map(|s| s.to_string()).collect(),
            },
        };
        for s in &summary_trend_stats {
            crate::metrics::check_stat(s).map_err(|e| bad(format!("summaryTrendStats: {e}")))?;
        }
        let setup_timeout = get("setupTimeout")
            .map(|v| parse_duration(v, "options.setupTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let teardown_timeout = get("teardownTimeout")
            .map(|v| parse_duration(v, "options.teardownTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let max_redirects = match o.max_redirects {
            Some(n) => Some(n),
            None => get("maxRedirects")
                .map(|v| {
                    v.as_i64()
                        .map(|n| n.clamp(0, i64::from(i32::MAX)) as u32)
                        .ok_or_else(|| {
                            bad(format!(
                                "options.maxRedirects: {v} is not a number of redirects"
                            ))
                        })
                })
                .transpose()?,
        };
        let flag = |k: &str| -> Result<bool, ScriptError> {
            match get(k) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(v) => Err(bad(format!("options.{k}: {v} is not true or false"))),
            }
        };
        let flags = &o.request;
        let user_agent = match (&flags.user_agent, get("userAgent")) {
            (Some(ua), _) => Some(ua.clone()),
            (None, None) => None,
            (None, Some(Value::String(s))) => Some(s.clone()),
            (None, Some(v)) => return Err(bad(format!("options.userAgent: {v} is not a string"))),
        };
        let unit_text = match (&o.summary_time_unit, get("summaryTimeUnit")) {
            (Some(u), _) => Some(u.clone()),
            (None, Some(Value::String(u))) => Some(u.clone()),
            (None, Some(v)) => Some(v.to_string()),
            (None, None) => None,
        };
        let summary_time_unit =
            match unit_text.as_deref() {
                None | Some("") => None,
                Some(u) => Some(TimeUnit::parse(u).ok_or_else(|| {
                    bad(format!("summaryTimeUnit: {u:?} is not one of s, ms, us"))
                })?),
            };
        // systemTags: the flag's names, else the script's (or
        // K6_SYSTEM_TAGS's) list, else k6's default. As in k6, an empty
        // list keeps none, and a name that is no system tag is left out
        // (with a warning here: k6 says nothing).
        let system_tags = {
            let names: Option<Vec<String>> = match (&o.system_tags, get("systemTags")) {
                (Some(list), _) => Some(list.clone()),
                (None, None) => None,
                (None, Some(Value::Array(a))) => Some(
                    a.iter()
                        .map(|v| match v {
                            Value::String(s) => Ok(s.clone()),
                            v => Err(bad(format!(
                                "options.systemTags: {v} is not a tag name (a string)"
                            ))),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                (None, Some(v)) => {
                    return Err(bad(format!(
                        "options.systemTags: {v} is not a list of tag names"
                    )));
                }
            };
            match names {
                None => SystemTags::default(),
                Some(names) => {
                    let (set, unknown) = SystemTags::from_names(names.iter().map(String::as_str));
                    for u in unknown {
                        warnings.push(format!(
                            "systemTags: {u:?} is not a system tag and is left out (known: {})",
                            crate::system_tags::ALL.join(", ")
                        ));
                    }
                    set
                }
            }
        };
        // dns: the flag's fields over the script's (and K6_DNS's), each
        // over k6's default.
        let dns = {
            let mut fields = match get("dns") {
                None => serde_json::Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(v) => {
                    return Err(bad(format!(
                        "options.dns: {v} is not an object (ttl, select, policy)"
                    )));
                }
            };
            if let Some(t) = &o.dns {
                fields.extend(dns_text_fields(t).map_err(|e| bad(format!("--dns {t:?}: {e}")))?);
            }
            let mut d = DnsOptions::default();
            for (k, v) in &fields {
                let v = match v {
                    Value::Null => continue,
                    Value::String(s) => s.as_str(),
                    v => {
                        return Err(bad(format!("options.dns.{k}: {v} is not a string")));
                    }
                };
                // An empty ttl is k6's default; keys k6 does not know are
                // ignored, as k6 ignores them.
                if !(k == "ttl" && v.is_empty()) {
                    d.set(k, v)
                        .map_err(|e| bad(format!("options.dns.{k}: {e}")))?;
                }
            }
            d
        };
        // tlsVersion: a version, or `{min, max}` (`""` or none: any); of
        // k6's, loadlab speaks TLS 1.2 and 1.3.
        let tls_versions = match get("tlsVersion") {
            None => None,
            Some(v) => {
                let (min, max) = match v {
                    Value::Object(m) => (
                        tls_version(
                            m.get("min").unwrap_or(&Value::Null),
                            "options.tlsVersion.min",
                        )?,
                        tls_version(
                            m.get("max").unwrap_or(&Value::Null),
                            "options.tlsVersion.max",
                        )?,
                    ),
                    v => {
                        let one = tls_version(v, "options.tlsVersion")?;
                        (one, one)
                    }
                };
                // Go's client: at least TLS 1.2 unless asked; at most 1.3.
                let lo = if min == 0 { 0x0303 } else { min };
                let hi = if max == 0 { 0x0304 } else { max };
                let pair = (lo <= 0x0303 && hi >= 0x0303, lo <= 0x0304 && hi >= 0x0304);
                if pair == (false, false) {
                    return Err(bad(format!(
                        "options.tlsVersion: {v}: loadlab k6 speaks TLS 1.2 and 1.3 only, none \
                         of them is in this range"
                    )));
                }
                if lo < 0x0303 {
                    warnings.push(
                        "tlsVersion: TLS 1.0 and 1.1 are not offered by loadlab k6 (it speaks TLS \
                         1.2 and 1.3); a server that speaks nothing newer will fail the handshake"
                            .into(),
                    );
                }
                Some(pair)
            }
        };
        // tlsCipherSuites: Go's names (k6 refuses others); as in Go they
        // choose among TLS 1.2's, TLS 1.3's are not chosen.
        let tls_cipher_suites = match get("tlsCipherSuites") {
            None => None,
            Some(Value::Array(a)) => {
                let ours = loadlab_engine::tls12_suite_names();
                let mut keep = Vec::new();
                for v in a {
                    let Value::String(name) = v else {
                        return Err(bad(format!(
                            "options.tlsCipherSuites: {v} is not a cipher suite name"
                        )));
                    };
                    if !K6_CIPHER_SUITES.contains(&name.as_str()) {
                        return Err(bad(format!(
                            "options.tlsCipherSuites: unknown cipher suite '{name}'"
                        )));
                    }
                    if ours.contains(&name.as_str()) {
                        keep.push(name.clone());
                    } else if !name.starts_with("TLS_AES_") && !name.starts_with("TLS_CHACHA20") {
                        warnings.push(format!(
                            "tlsCipherSuites: {name} is not offered by loadlab k6 (its TLS 1.2 \
                             suites: {})",
                            ours.join(", ")
                        ));
                    }
                }
                Some(keep)
            }
            Some(v) => {
                return Err(bad(format!(
                    "options.tlsCipherSuites: {v} is not a list of cipher suite names"
                )));
            }
        };
        // blockHostnames, blacklistIPs: lists (a flag replaces the
        // script's), checked as k6 checks them.
        let list = |k: &str, flag: &Option<Vec<String>>| -> Result<Vec<String>, ScriptError> {
            if let Some(f) = flag {
                return Ok(f.clone());
            }
            match get(k) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s.clone()),
                        v => Err(bad(format!("options.{k}: {v} is not a string"))),
                    })
                    .collect(),
                Some(v) => Err(bad(format!("options.{k}: {v} is not a list"))),
            }
        };
        let blocklist = loadlab_engine::blocklist::Blocklist::parse(
            &list("blockHostnames", &o.block_hostnames)?,
            &list("blacklistIPs", &o.blacklist_ips)?,
        )
        .map_err(bad)?;
        // tlsAuth: client certificates (PEM texts), checked before any
        // load; as in Go's client, `domains` chooses nothing (k6 warns).
        let tls_auth = match get("tlsAuth") {
            None => Vec::new(),
            Some(Value::Array(a)) => {
                let mut out = Vec::new();
                for (i, item) in a.iter().enumerate() {
                    let what = format!("options.tlsAuth[{i}]");
                    let Value::Object(m) = item else {
                        return Err(bad(format!("{what}: {item} is not an object (cert, key)")));
                    };
                    let text = |k: &str| match m.get(k) {
                        Some(Value::String(s)) => Ok(s.clone()),
                        None | Some(Value::Null) => Err(bad(format!("{what}.{k} is missing"))),
                        Some(v) => Err(bad(format!("{what}.{k}: {v} is not a string"))),
                    };
                    for k in m.keys() {
                        if !["cert", "key", "password", "domains"].contains(&k.as_str()) {
                            return Err(bad(format!("{what}: json: unknown field {k:?}")));
                        }
                    }
                    if m.get("password").is_some_and(|p| !p.is_null()) {
                        return Err(bad(format!(
                            "{what}.password: encrypted private keys are not supported by \
                             loadlab k6 (decrypt the key first, e.g. `openssl pkey -in k.pem`)"
                        )));
                    }
                    match m.get("domains") {
                        None | Some(Value::Null) => {}
                        Some(Value::Array(d)) if d.iter().all(Value::is_string) => {
                            if !d.is_empty()
                                && !warnings.iter().any(|w| w.starts_with("tlsAuth.domains"))
                            {
                                warnings.push(
                                    "tlsAuth.domains option could be removed in the next releases, \
                                     it's recommended to leave it empty and let k6 automatically \
                                     detect from the provided certificate. It follows the Go's \
                                     NameToCertificate deprecation - \
                                     https://pkg.go.dev/crypto/tls@go1.17#Config."
                                        .into(),
                                );
                            }
                        }
                        Some(v) => {
                            return Err(bad(format!("{what}.domains: {v} is not a list of names")));
                        }
                    }
                    let (cert, key) = (text("cert")?, text("key")?);
                    loadlab_engine::check_client_cert(&cert, &key)
                        .map_err(|e| bad(format!("{what}: {e}")))?;
                    out.push((cert, key));
                }
                out
            }
            Some(v) => return Err(bad(format!("options.tlsAuth: {v} is not a list"))),
        };
        let min_iteration_duration = match flags.min_iteration_duration {
            Some(d) => Some(d),
            None => get("minIterationDuration")
                .map(|v| parse_duration(v, "options.minIterationDuration"))
                .transpose()?,
        }
        .filter(|d| !d.is_zero());
        let segment = o.segment.clone().unwrap_or_else(Tuple::whole);
        if !segment.is_whole() {
            for sc in &mut scenarios {
                let (ex, seg) = sc.executor.segmented(&segment);
                sc.executor = ex;
                sc.segment = seg;
            }
        }
        Ok(Options {
            scenarios,
            segment,
            thresholds,
            tags,
            summary_trend_stats,
            summary_full: o.summary_full,
            submetrics,
            setup_timeout,
            teardown_timeout,
            no_setup: o.no_setup || flag("noSetup")?,
            no_teardown: o.no_teardown || flag("noTeardown")?,
            console_output: match (&o.console_output, get("consoleOutput")) {
                (Some(f), _) => Some(f.clone()),
                (None, None) => None,
                (None, Some(Value::String(f))) => Some(f.clone()).filter(|f| !f.is_empty()),
                (None, Some(v)) => {
                    return Err(bad(format!(
                        "options.consoleOutput: {v} is not a file name"
                    )));
                }
            },
            max_redirects,
            hosts: match get("hosts") {
                None => Default::default(),
                Some(Value::Object(m)) => {
                    let mut pairs = Vec::with_capacity(m.len());
                    for (k, v) in m {
                        let Value::String(v) = v else {
                            return Err(bad(format!(
                                "options.hosts[{k:?}]: {v} is not a string (an IP address, or IP:port)"
                            )));
                        };
                        pairs.push((k.clone(), v.clone()));
                    }
                    loadlab_engine::hosts::HostOverrides::parse(&pairs)
                        .map_err(|e| bad(format!("options.hosts: {e}")))?
                }
                Some(v) => {
                    return Err(bad(format!(
                        "options.hosts: {v} is not an object of names and addresses"
                    )));
                }
            },
            local_ips,
            warnings,
            request: RequestOptions {
                discard_response_bodies: flags.discard_response_bodies
                    || flag("discardResponseBodies")?,
                user_agent,
                insecure_skip_tls_verify: flags.insecure_skip_tls_verify
                    || flag("insecureSkipTLSVerify")?,
                throw: flags.throw || flag("throw")?,
                no_connection_reuse: flags.no_connection_reuse || flag("noConnectionReuse")?,
                no_vu_connection_reuse: flags.no_vu_connection_reuse
                    || flag("noVUConnectionReuse")?,
                min_iteration_duration,
                http_debug: match (&flags.http_debug, get("httpDebug")) {
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
                    None => get("rps")
                        .map(|v| int(v, "options.rps"))
                        .transpose()?
                        .and_then(|n| u64::try_from(n).ok()),
                }
                .filter(|n| *n > 0),
                batch: match flags.batch {
                    Some(n) => Some(n),
                    None => get("batch")
                        .map(|v| whole_count(v, "options.batch"))
                        .transpose()?,
                },
                batch_per_host: match flags.batch_per_host {
                    Some(n) => Some(n),
                    None => get("batchPerHost")
                        .map(|v| whole_count(v, "options.batchPerHost"))
                        .transpose()?,
                },
            },
            summary_time_unit,
            summary_disabled: o.summary_disabled,
            system_tags,
            dns,
            tls_versions,
            tls_cipher_suites,
            blocklist,
            tls_auth,
        })
    }

    /// The longest the test can take: each scenario's start, duration and
    /// graceful stop (k6's "max duration (incl. graceful stop)").
    pub fn max_test_duration(&self) -> Duration {
        self.scenarios
            .iter()
            .map(|sc| sc.start_time + sc.executor.duration() + sc.graceful_stop)
            .max()
            .unwrap_or_default()
    }

    /// The scenarios' indices in k6's display order: by start time, then
    /// name (the banner and the progress lines).
    pub fn start_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.scenarios.len()).collect();
        order.sort_by_key(|&i| self.scenarios[i].start_time);
        order
    }

    pub fn max_vus(&self) -> u64 {
        self.scenarios.iter().map(|s| s.executor.max_vus()).sum()
    }

    /// The iterations each segment of the sequence is scheduled to run (in
    /// the sequence's order), as the scheduler shares them out: a
    /// segment's shared iterations, its VUs × per-VU iterations, its
    /// arrivals (started or dropped). `None` for a segment whose count is
    /// not known in advance (a `constant-vus` or `ramping-vus` scenario
    /// runs for a time, not a count).
    pub fn planned_iterations(&self) -> Vec<Option<u64>> {
        let t = &self.segment;
        let n = t.count();
        let mut total: Vec<Option<u64>> = vec![Some(0); n];
        let by_vus = |vus: u64, work: u64| -> Vec<u64> {
            match t.from_value(vus) {
                Some((st, map)) => map
                    .iter()
                    .map(|m| m.map_or(0, |m| st.scale(m, work)))
                    .collect(),
                None => vec![0; n],
            }
        };
        for sc in &self.scenarios {
            let part: Option<Vec<u64>> = match &sc.whole {
                Executor::SharedIterations {
                    vus, iterations, ..
                } => Some(by_vus(*vus, *iterations)),
                Executor::PerVuIterations {
                    vus, iterations, ..
                } => Some((0..n).map(|s| t.scale_of(s, *vus) * iterations).collect()),
                ex @ (Executor::ConstantArrivalRate { max_vus, .. }
                | Executor::RampingArrivalRate { max_vus, .. }) => {
                    crate::sched::arrival_count(ex, 1 << 40).map(|k| by_vus(*max_vus, k))
                }
                Executor::ConstantVus { .. } | Executor::RampingVus { .. } => None,
            };
            for (s, tot) in total.iter_mut().enumerate() {
                *tot = match (&part, *tot) {
                    (Some(p), Some(x)) => Some(x + p[s]),
                    _ => None,
                };
            }
        }
        total
    }
}

/// `name{tag:value,tag2:value}` → the name and the filter.
pub fn parse_metric_key(key: &str) -> Result<(String, Vec<(String, String)>), ScriptError> {
    let Some(open) = key.find('{') else {
        return Ok((key.trim().to_string(), Vec::new()));
    };
    let inner = key[open + 1..].strip_suffix('}').ok_or_else(|| {
        bad(format!(
            "threshold metric {key:?}: a tag filter ends with '}}'"
        ))
    })?;
    let mut filter = Vec::new();
    for part in inner.split(',').filter(|p| !p.trim().is_empty()) {
        let (k, v) = part.split_once(':').ok_or_else(|| {
            bad(format!(
                "threshold metric {key:?}: {part:?} is not tag:value"
            ))
        })?;
        filter.push((k.trim().to_string(), v.trim().trim_matches('"').to_string()));
    }
    Ok((key[..open].trim().to_string(), filter))
}

fn scenario(name: &str, s: &Value) -> Result<Scenario, ScriptError> {
    let what = format!("scenarios.{name}");
    let get = |k: &str| s.get(k).filter(|v| !v.is_null());
    let executor_name = get("executor")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("{what}: \"executor\" is required")))?;
    // k6 reads a negative duration (Go's "-1s", or a negative number of
    // milliseconds) and then refuses it in its checks: the field holds 0
    // and `negative` says what was given.
    let negative = std::cell::RefCell::new(Vec::new());
    let dur = |k: &'static str, default: Option<Duration>| -> Result<Duration, ScriptError> {
        match get(k) {
            Some(v) => match parse_signed_duration(v, &format!("{what}.{k}"))? {
                (true, size) => {
                    negative.borrow_mut().push((k, size));
                    Ok(Duration::ZERO)
                }
                (false, d) => Ok(d),
            },
            None => default.ok_or_else(|| bad(format!("{what}.{k} is required"))),
        }
    };
    // Counts likewise: a negative one is read, kept in `negative_counts`.
    let negative_counts = std::cell::RefCell::new(Vec::new());
    let cnt = |k: &'static str, default: Option<u64>| -> Result<u64, ScriptError> {
        match get(k) {
            Some(v) => {
                let n = int(v, &format!("{what}.{k}"))?;
                let mut neg = negative_counts.borrow_mut();
                if n < 0 && !neg.iter().any(|(f, _)| *f == k) {
                    neg.push((k, n));
                }
                Ok(whole(n))
            }
            None => default.ok_or_else(|| bad(format!("{what}.{k} is required"))),
        }
    };
    let stage_problems = std::cell::RefCell::new(Vec::new());
    let stage_list = || -> Result<Vec<Stage>, ScriptError> {
        let v = get("stages").ok_or_else(|| bad(format!("{what}.stages is required")))?;
        let (list, problems) = stages(v, &format!("{what}.stages"), true)?;
        *stage_problems.borrow_mut() = problems;
        Ok(list)
    };
    let time_unit = || dur("timeUnit", Some(Duration::from_secs(1)));
    let executor = match executor_name {
        "shared-iterations" => Executor::SharedIterations {
            vus: cnt("vus", Some(1))?,
            iterations: cnt("iterations", Some(1))?,
            max_duration: dur("maxDuration", Some(Duration::from_secs(600)))?,
        },
        "per-vu-iterations" => Executor::PerVuIterations {
            vus: cnt("vus", Some(1))?,
            iterations: cnt("iterations", Some(1))?,
            max_duration: dur("maxDuration", Some(Duration::from_secs(600)))?,
        },
        "constant-vus" => Executor::ConstantVus {
            vus: cnt("vus", Some(1))?,
            duration: dur("duration", None)?,
        },
        "ramping-vus" => Executor::RampingVus {
            start_vus: cnt("startVUs", Some(1))?,
            stages: stage_list()?,
        },
        "constant-arrival-rate" => {
            let pre = cnt("preAllocatedVUs", None)?;
            Executor::ConstantArrivalRate {
                rate: num(
                    get("rate").ok_or_else(|| bad(format!("{what}.rate is required")))?,
                    &format!("{what}.rate"),
                )?,
                time_unit: time_unit()?,
                duration: dur("duration", None)?,
                // Fewer than preAllocatedVUs is refused (config_errors).
                max_vus: cnt("maxVUs", Some(pre))?,
            }
        }
        "ramping-arrival-rate" => {
            let pre = cnt("preAllocatedVUs", None)?;
            Executor::RampingArrivalRate {
                start_rate: get("startRate")
                    .map(|v| num(v, &format!("{what}.startRate")))
                    .transpose()?
                    .unwrap_or(0.0),
                time_unit: time_unit()?,
                stages: stage_list()?,
                max_vus: cnt("maxVUs", Some(pre))?,
            }
        }
        "externally-controlled" => {
            return Err(bad(format!(
                "{what}: the externally-controlled executor is not supported by loadlab k6 \
                 (it needs k6's REST API); use ramping-vus or an arrival-rate executor"
            )));
        }
        other => return Err(bad(format!("{what}: unknown executor {other:?}"))),
    };
    let pre_allocated_vus = match executor {
        Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. } => {
            cnt("preAllocatedVUs", None)?
        }
        _ => 0,
    };
    Ok(Scenario {
        pre_allocated_vus,
        name: name.to_string(),
        whole: executor.clone(),
        segment: None,
        executor,
        exec: get("exec")
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_string(),
        start_time: dur("startTime", Some(Duration::ZERO))?,
        graceful_stop: dur("gracefulStop", Some(Duration::from_secs(30)))?,
        graceful_ramp_down: dur("gracefulRampDown", Some(Duration::from_secs(30)))?,
        env: string_pairs(get("env")),
        tags: string_pairs(get("tags")),
        negative: negative.take(),
        negative_counts: negative_counts.take(),
        stage_problems: stage_problems.take(),
    })
}

/// What k6 finds wrong with a scenario before anything runs (its
/// executors' checks), in k6's words; k6 exits 104 on any. The whole
/// test's numbers are checked, not an `--execution-segment`'s share.
fn config_errors(sc: &Scenario) -> Vec<String> {
    let mut e = Vec::new();
    let negative = |field: &str| sc.negative.iter().find(|(k, _)| *k == field).map(|p| p.1);
    // A count as given, sign included.
    let signed = |field: &str, held: u64| {
        sc.negative_counts
            .iter()
            .find(|(k, _)| *k == field)
            .map_or(held as i64, |p| p.1)
    };
    let max_vus_checks = |e: &mut Vec<String>, max_vus: u64| {
        let pre = signed("preAllocatedVUs", sc.pre_allocated_vus);
        if pre < 0 {
            e.push("the number of preAllocatedVUs can't be negative".into());
        }
        if signed("maxVUs", max_vus) < pre {
            e.push("maxVUs can't be less than preAllocatedVUs".into());
        }
    };
    // k6's checks common to every executor come first.
    if negative("startTime").is_some() {
        e.push("the startTime can't be negative".to_string());
    }
    if negative("gracefulStop").is_some() {
        e.push("the gracefulStop timeout can't be negative".to_string());
    }
    let no_vus = "the number of VUs must be more than 0";
    let at_least_1s = |e: &mut Vec<String>, what: &str, d: Duration| {
        if let Some(size) = negative(what) {
            e.push(format!(
                "the {what} must be at least 1s, but is -{}",
                loadlab_core::format_go_duration(size)
            ));
        } else if d < Duration::from_secs(1) {
            e.push(format!(
                "the {what} must be at least 1s, but is {}",
                loadlab_core::format_go_duration(d)
            ));
        }
    };
    let stageless = "at least one stage has to be specified";
    match &sc.whole {
        Executor::SharedIterations {
            vus,
            iterations,
            max_duration,
        }
        | Executor::PerVuIterations {
            vus,
            iterations,
            max_duration,
        } => {
            if *vus == 0 {
                e.push(no_vus.into());
            }
            if matches!(sc.whole, Executor::PerVuIterations { .. }) {
                if *iterations == 0 {
                    e.push("the number of iterations must be more than 0".into());
                }
            } else if signed("iterations", *iterations) < signed("vus", *vus) {
                e.push(format!(
                    "the number of iterations ({}) can't be less than the number of VUs ({})",
                    signed("iterations", *iterations),
                    signed("vus", *vus)
                ));
            }
            at_least_1s(&mut e, "maxDuration", *max_duration);
        }
        Executor::ConstantVus { vus, duration } => {
            if *vus == 0 {
                e.push(no_vus.into());
            }
            at_least_1s(&mut e, "duration", *duration);
        }
        Executor::RampingVus { start_vus, stages } => {
            if signed("startVUs", *start_vus) < 0 {
                e.push("the number of start VUs can't be negative".into());
            }
            if *start_vus == 0 && stages.iter().all(|s| s.target <= 0.0) {
                e.push(
                    "either startVUs or one of the stages' target values must be greater than 0"
                        .into(),
                );
            }
            if stages.is_empty() {
                e.push(stageless.into());
            }
            e.extend(sc.stage_problems.iter().cloned());
        }
        Executor::ConstantArrivalRate {
            rate,
            time_unit,
            duration,
            max_vus,
        } => {
            if *rate <= 0.0 {
                e.push("the iteration rate must be more than 0".into());
            }
            if time_unit.is_zero() {
                e.push("the timeUnit must be more than 0".into());
            }
            at_least_1s(&mut e, "duration", *duration);
            max_vus_checks(&mut e, *max_vus);
        }
        Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            max_vus,
        } => {
            if *start_rate < 0.0 {
                e.push("the startRate value can't be negative".into());
            }
            if time_unit.is_zero() {
                e.push("the timeUnit must be more than 0".into());
            }
            if stages.is_empty() {
                e.push(stageless.into());
            }
            e.extend(sc.stage_problems.iter().cloned());
            max_vus_checks(&mut e, *max_vus);
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `dns`: k6's default; the flag's fields over `K6_DNS`'s over the
    /// script's, each alone; k6's checks and words.
    #[test]
    fn dns_layers_and_checks_as_k6() {
        use loadlab_engine::config::DnsCache;
        let d = |raw: serde_json::Value, o: Overrides| Options::resolve(&raw, &o).map(|o| o.dns);
        assert_eq!(
            d(json!({}), Overrides::default()).unwrap(),
            DnsOptions {
                ttl: DnsCache::For(Duration::from_secs(300)),
                select: DnsSelect::Random,
                policy: DnsPolicy::PreferIpv4,
            }
        );
        let script = json!({"dns": {"ttl": "1d2h", "select": "first", "policy": null}});
        let got = d(script.clone(), Overrides::default()).unwrap();
        assert_eq!(got.ttl, DnsCache::For(Duration::from_secs(26 * 3600)));
        assert_eq!(
            (got.select, got.policy),
            (DnsSelect::First, DnsPolicy::PreferIpv4)
        );
        let env = Overrides {
            env: vec![("K6_DNS".into(), "policy=onlyIPv6,ttl=0".into())],
            ..Default::default()
        };
        let got = d(script.clone(), env.clone()).unwrap();
        assert_eq!(
            (got.ttl, got.select, got.policy),
            (DnsCache::Off, DnsSelect::First, DnsPolicy::OnlyIpv6)
        );
        let flag = Overrides {
            dns: Some("ttl=inf,select=roundRobin".into()),
            ..env
        };
        let got = d(script, flag).unwrap();
        assert_eq!(
            (got.ttl, got.select, got.policy),
            (
                DnsCache::Forever,
                DnsSelect::RoundRobin,
                DnsPolicy::OnlyIpv6
            )
        );
        assert_eq!(
            d(json!({"dns": {"ttl": "250"}}), Overrides::default())
                .unwrap()
                .ttl,
            DnsCache::For(Duration::from_millis(250))
        );
        for (raw, o, want) in [
            (
                json!({"dns": {"ttl": "-1s"}}),
                Overrides::default(),
                "invalid DNS TTL: -1s",
            ),
            (
                json!({"dns": {"select": "last"}}),
                Overrides::default(),
                "last does not belong to DNSSelect",
            ),
            (
                json!({"dns": {"ttl": 5}}),
                Overrides::default(),
                "options.dns.ttl: 5 is not a string",
            ),
            (
                json!({"dns": "ttl=1m"}),
                Overrides::default(),
                "options.dns: \"ttl=1m\" is not an object",
            ),
            (
                json!({}),
                Overrides {
                    dns: Some("ttl".into()),
                    ..Default::default()
                },
                "no value for key ttl",
            ),
            (
                json!({}),
                Overrides {
                    env: vec![("K6_DNS".into(), "selec=first".into())],
                    ..Default::default()
                },
                "unknown DNS configuration field: selec",
            ),
        ] {
            let e = d(raw, o).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    /// `systemTags`: the flag over `K6_SYSTEM_TAGS` over the script's list
    /// over k6's default; a name that is no system tag is left out with a
    /// warning; what is not a list of names is refused.
    #[test]
    fn system_tags_layers_as_k6() {
        let names = |raw: serde_json::Value, o: Overrides| {
            Options::resolve(&raw, &o).unwrap().system_tags.names()
        };
        assert_eq!(
            Options::resolve(&json!({}), &Overrides::default())
                .unwrap()
                .system_tags,
            SystemTags::default()
        );
        assert_eq!(
            names(json!({"systemTags": ["url", "vu"]}), Overrides::default()),
            vec!["url", "vu"]
        );
        assert!(names(json!({"systemTags": []}), Overrides::default()).is_empty());
        let env = Overrides {
            env: vec![("K6_SYSTEM_TAGS".into(), "status, ip".into())],
            ..Default::default()
        };
        assert_eq!(
            names(json!({"systemTags": ["url"]}), env.clone()),
            vec!["ip", "status"]
        );
        let flag = Overrides {
            system_tags: Some(vec!["name".into()]),
            ..env
        };
        assert_eq!(names(json!({"systemTags": ["url"]}), flag), vec!["name"]);
        let o = Options::resolve(&json!({"systemTags": ["staus"]}), &Overrides::default()).unwrap();
        assert!(o.system_tags.names().is_empty());
        assert!(
            o.warnings[0].contains("\"staus\" is not a system tag"),
            "{:?}",
            o.warnings
        );
        for bad_value in [json!({"systemTags": "url"}), json!({"systemTags": [1]})] {
            let e = Options::resolve(&bad_value, &Overrides::default()).unwrap_err();
            assert!(e.to_string().contains("options.systemTags:"), "{e}");
        }
    }

    #[test]
    fn stages_become_ramping_vus() {
        let o = Options::resolve(
            &json!({"stages": [{"duration": "1s", "target": 8}, {"duration": "2s", "target": 8}]}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(o.scenarios.len(), 1);
        assert_eq!(o.scenarios[0].executor.max_vus(), 8);
        assert_eq!(o.scenarios[0].executor.duration(), Duration::from_secs(3));
    }

    #[test]
    fn ramp_interpolates() {
        let st = [Stage {
            duration: Duration::from_secs(2),
            target: 10.0,
        }];
        assert_eq!(ramp_at(0.0, &st, Duration::from_secs(1)), 5.0);
        assert_eq!(ramp_at(0.0, &st, Duration::from_secs(5)), 10.0);
    }

    /// As k6: a VU joins when a climbing ramp reaches its number and
    /// leaves when a falling one reaches the number below (`-s 2s:4 -s
    /// 2s:0`: joins at 0.5, 1, 1.5, 2 s; leaves at 2.5, 3, 3.5, 4 s).
    #[test]
    fn ramp_vus_floor_while_climbing_and_ceil_while_falling() {
        let s = |secs, target| Stage {
            duration: Duration::from_secs(secs),
            target,
        };
        let st = [s(2, 4.0), s(2, 0.0)];
        let at = |ms| ramp_vus_at(0.0, &st, Duration::from_millis(ms));
        assert_eq!(at(0), 0);
        assert_eq!(at(499), 0);
        assert_eq!(at(500), 1);
        assert_eq!(at(1_999), 3);
        assert_eq!(at(2_000), 4);
        assert_eq!(at(2_499), 4);
        assert_eq!(at(2_500), 3);
        assert_eq!(at(3_999), 1);
        assert_eq!(at(4_000), 0);
        // startVUs 0, 2 s up to 1: the VU joins at 2 s, not at 1 s.
        let one = [s(2, 1.0), s(1, 1.0)];
        assert_eq!(ramp_vus_at(0.0, &one, Duration::from_millis(1_999)), 0);
        assert_eq!(ramp_vus_at(0.0, &one, Duration::from_millis(2_000)), 1);
    }

    #[test]
    fn a_flat_stage_says_where_it_ends() {
        let s = |secs, target| Stage {
            duration: Duration::from_secs(secs),
            target,
        };
        let st = [s(2, 10.0), s(3, 10.0), s(1, 0.0)];
        let at = |secs| ramp_flat_until(0.0, &st, Duration::from_millis(secs));
        assert_eq!(at(1_000), None, "ramping up");
        assert_eq!(at(2_000), Some(Duration::from_secs(5)), "the hold");
        assert_eq!(at(4_999), Some(Duration::from_secs(5)));
        assert_eq!(at(5_000), None, "ramping down");
        assert_eq!(at(6_000), Some(Duration::MAX), "after the last stage");
        // Starting at the first stage's level, the ramp is flat at once.
        assert_eq!(
            ramp_flat_until(10.0, &st, Duration::ZERO),
            Some(Duration::from_secs(2))
        );
    }

    #[test]
    fn vus_alone_is_one_vu_once_with_k6s_warning() {
        let o = Options::resolve(
            &json!(null),
            &Overrides {
                vus: Some(2),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(o.scenarios[0].executor.max_vus(), 1);
        assert_eq!(o.warnings.len(), 1);
        assert!(o.warnings[0].starts_with("`vus=2` option will be ignored"));
        let one = Options::resolve(&json!({"vus": 1}), &Overrides::default()).unwrap();
        assert!(one.warnings.is_empty());
        let with_d =
            Options::resolve(&json!({"vus": 2, "duration": "1s"}), &Overrides::default()).unwrap();
        assert_eq!(with_d.scenarios[0].executor.max_vus(), 2);
        assert!(with_d.warnings.is_empty());
    }

    #[test]
    fn k6_options_loadlab_lacks_are_named_and_its_own_are_read() {
        for (k, v) in [("paused", json!(true)), ("linger", json!(true))] {
            let e = Options::resolve(&json!({ k: v }), &Overrides::default()).unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("options.{k} is not supported")),
                "{e}"
            );
        }
        // Set to their default they change nothing; unknown keys are
        // ignored, as k6 ignores them.
        let o = Options::resolve(
            &json!({"paused": false, "cloud": {"name": "x"}, "someKey": 1}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(o.request, RequestOptions::default());
        let o = Options::resolve(
            &json!({"discardResponseBodies": true, "userAgent": "", "throw": true,
                    "insecureSkipTLSVerify": true, "noConnectionReuse": true,
                    "noVUConnectionReuse": true,
                    "minIterationDuration": "1.5s", "httpDebug": "full"}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(
            o.request,
            RequestOptions {
                discard_response_bodies: true,
                user_agent: Some(String::new()),
                insecure_skip_tls_verify: true,
                throw: true,
                no_connection_reuse: true,
                no_vu_connection_reuse: true,
                min_iteration_duration: Some(Duration::from_millis(1500)),
                http_debug: Some("full".into()),
                rps: None,
                batch: None,
                batch_per_host: None,
            }
        );
        // batch and batchPerHost: k6's 20 and 6 unless set; 0 is no limit.
        assert_eq!(RequestOptions::default().batch_limits(), (20, 6));
        let o = Options::resolve(
            &json!({"batch": 3, "batchPerHost": 0}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(o.request.batch_limits(), (3, usize::MAX));
        let e = Options::resolve(&json!({"batchPerHost": -1}), &Overrides::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains("options.batchPerHost: -1 can't be negative"),
            "{e}"
        );
        // rps: a whole number; 0 or less is no limit, as in k6.
        let o = Options::resolve(&json!({"rps": 50}), &Overrides::default()).unwrap();
        assert_eq!(o.request.rps, Some(50));
        let o = Options::resolve(&json!({"rps": -1}), &Overrides::default()).unwrap();
        assert_eq!(o.request.rps, None);
        let e = Options::resolve(&json!({"rps": 1.5}), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("options.rps"), "{e}");
        // httpDebug: "" is off, as in k6; a flag wins.
        let o = Options::resolve(&json!({"httpDebug": ""}), &Overrides::default()).unwrap();
        assert_eq!(o.request.http_debug, None);
        let mut ov = Overrides::default();
        ov.request.http_debug = Some("headers".into());
        let o = Options::resolve(&json!({"httpDebug": "full"}), &ov).unwrap();
        assert_eq!(o.request.http_debug.as_deref(), Some("headers"));
        let e = Options::resolve(&json!({"httpDebug": 1}), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("options.httpDebug"), "{e}");
        let e = Options::resolve(&json!({"throw": "yes"}), &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("options.throw"), "{e}");
    }

    #[test]
    fn negative_counts_durations_and_stages_get_k6s_words() {
        let resolve = |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o);
        let err = |v: serde_json::Value| resolve(v, &Overrides::default()).unwrap_err().to_string();
        let problems = |v: serde_json::Value| {
            let e = err(v.clone());
            let (_, list) = e
                .split_once("configuration errors: ")
                .unwrap_or_else(|| panic!("{v}: {e}"));
            list.to_string()
        };
        // Each checked against k6 v1.8.1 (exit 104, these words).
        let not_positive = "`duration` option should be more than 0, for infinite duration \
                            use the externally-controlled executor";
        for d in [json!("-1s"), json!("0s"), json!(0), json!(-1000)] {
            assert!(
                err(json!({"vus": 2, "duration": d})).ends_with(not_positive),
                "{d}"
            );
        }
        for (v, want) in [
            (
                json!({"vus": -1, "duration": "1s"}),
                "the number of VUs must be more than 0",
            ),
            (
                json!({"vus": -1, "iterations": 3}),
                "the number of VUs must be more than 0",
            ),
            (
                json!({"iterations": -1}),
                "the number of iterations (-1) can't be less than the number of VUs (1)",
            ),
            (
                json!({"iterations": 2, "duration": "-1s"}),
                "the maxDuration must be at least 1s, but is -1s",
            ),
            (
                json!({"stages": [{"duration": "1s", "target": 2}, {"duration": "-2s", "target": -1}]}),
                "the duration for stage 2 can't be negative, the target for stage 2 can't be negative",
            ),
            (
                json!({"stages": [{"duration": "1s"}]}),
                "stage 1 doesn't have a target",
            ),
            (
                json!({"vus": -1, "stages": [{"duration": "1s", "target": 2}]}),
                "the number of start VUs can't be negative",
            ),
            (
                json!({"scenarios": {"a": {"executor": "shared-iterations", "vus": -1, "iterations": -2}}}),
                "the number of VUs must be more than 0, the number of iterations (-2) can't be \
                 less than the number of VUs (-1)",
            ),
            (
                json!({"scenarios": {"a": {"executor": "ramping-vus", "startVUs": 0,
                    "stages": [{"duration": "-1s", "target": -2}, {"target": 1}]}}}),
                "the duration for stage 1 can't be negative, the target for stage 1 can't be \
                 negative, stage 2 doesn't have a duration",
            ),
            (
                json!({"scenarios": {"a": {"executor": "constant-arrival-rate", "rate": -1,
                    "duration": "1s", "preAllocatedVUs": -1, "maxVUs": -2}}}),
                "the iteration rate must be more than 0, the number of preAllocatedVUs can't be \
                 negative, maxVUs can't be less than preAllocatedVUs",
            ),
            (
                json!({"scenarios": {"a": {"executor": "ramping-arrival-rate", "startRate": -1,
                    "preAllocatedVUs": -1, "stages": [{"duration": "-1s", "target": -2}]}}}),
                "the startRate value can't be negative, the duration for stage 1 can't be \
                 negative, the target for stage 1 can't be negative, the number of \
                 preAllocatedVUs can't be negative",
            ),
        ] {
            assert_eq!(problems(v.clone()), want, "{v}");
        }
        // A negative preAllocatedVUs with no maxVUs: maxVUs is it, no more.
        assert_eq!(
            problems(
                json!({"scenarios": {"a": {"executor": "constant-arrival-rate", "rate": 1,
                "duration": "1s", "preAllocatedVUs": -1}}})
            ),
            "the number of preAllocatedVUs can't be negative"
        );
        // `vus` alone, negative: k6's warning, one VU once.
        let o = resolve(json!({"vus": -1}), &Overrides::default()).unwrap();
        assert_eq!(o.scenarios[0].executor.max_vus(), 1);
        assert!(
            o.warnings[0].starts_with("`vus=-1` option will be ignored"),
            "{:?}",
            o.warnings
        );
        // The command line's, the same: `-d 0s`, `-s -1s:2`, `-i -1`.
        let flags = |o: Overrides| resolve(json!({}), &o).unwrap_err().to_string();
        assert!(
            flags(Overrides {
                duration: Some("0s".into()),
                ..Default::default()
            })
            .ends_with(not_positive)
        );
        assert!(
            flags(Overrides {
                stages: Some(vec!["-1s:2".into()]),
                ..Default::default()
            })
            .ends_with("the duration for stage 1 can't be negative")
        );
        assert!(
            flags(Overrides {
                iterations: Some(-1),
                ..Default::default()
            })
            .ends_with("the number of iterations (-1) can't be less than the number of VUs (1)")
        );
    }

    #[test]
    fn shortcut_conflicts_and_empty_lists_are_k6s() {
        let resolve = |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o);
        let sc = json!({"a": {"executor": "constant-vus", "duration": "1s"}});
        let st = json!([{"duration": "1s", "target": 1}]);
        // Two shortcuts in one layer (k6 v1.8.1: exit 104, these words).
        for (v, want) in [
            (
                json!({"iterations": 2, "stages": st}),
                ("iterations", "stages"),
            ),
            (
                json!({"duration": "1s", "stages": st}),
                ("duration", "stages"),
            ),
            (
                json!({"duration": "1s", "scenarios": sc}),
                ("duration", "scenarios"),
            ),
            (
                json!({"iterations": 1, "scenarios": sc}),
                ("iterations", "scenarios"),
            ),
            (
                json!({"stages": st, "scenarios": sc}),
                ("stages", "scenarios"),
            ),
        ] {
            let e = resolve(v.clone(), &Overrides::default())
                .unwrap_err()
                .to_string();
            assert!(
                e.ends_with(&format!(
                    "using `{}` and `{}` options simultaneously is not allowed",
                    want.0, want.1
                )),
                "{v}: {e}"
            );
        }
        // The same in the command line's layer: `-d 1s -s 1s:1`.
        let both = Overrides {
            duration: Some("1s".into()),
            stages: Some(vec!["1s:1".into()]),
            ..Default::default()
        };
        let e = resolve(json!({}), &both).unwrap_err().to_string();
        assert!(e.ends_with("using `duration` and `stages` options simultaneously is not allowed"));
        // A flag over the script's layer replaces it (no conflict), and says
        // so when it replaces scenarios.
        let d = Overrides {
            duration: Some("2s".into()),
            ..Default::default()
        };
        let o = resolve(json!({"stages": st, "scenarios": sc}), &d).unwrap();
        assert_eq!(o.scenarios[0].name, "default");
        assert!(matches!(
            o.scenarios[0].executor,
            Executor::ConstantVus { .. }
        ));
        assert_eq!(
            o.warnings,
            vec!["\"cli\" level configuration overrode scenarios configuration entirely"]
        );
        // `iterations` with `duration`: the duration is the maxDuration.
        let o = resolve(
            json!({"iterations": 3, "duration": "5s"}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(
            o.scenarios[0].executor,
            Executor::SharedIterations {
                vus: 1,
                iterations: 3,
                max_duration: Duration::from_secs(5)
            }
        );
        // Empty lists, and stages without a duration (left out): one VU
        // once, with k6's warnings.
        for (v, warning) in [
            (
                json!({"stages": []}),
                "`stages` was explicitly set to an empty value",
            ),
            (
                json!({"stages": [{"target": 2}]}),
                "`stages` was explicitly set to an empty value",
            ),
            (
                json!({"scenarios": {}}),
                "`scenarios` was explicitly set to an empty value",
            ),
        ] {
            let o = resolve(v.clone(), &Overrides::default()).unwrap();
            assert!(matches!(
                o.scenarios[0].executor,
                Executor::PerVuIterations {
                    vus: 1,
                    iterations: 1,
                    ..
                }
            ));
            assert!(o.warnings[0].starts_with(warning), "{v}: {:?}", o.warnings);
        }
        // A stage without a duration among others is left out.
        let o = resolve(
            json!({"stages": [{"target": 5}, {"duration": "1s", "target": 1}]}),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(
            o.scenarios[0].executor,
            Executor::RampingVus {
                start_vus: 1,
                stages: vec![Stage {
                    duration: Duration::from_secs(1),
                    target: 1.0
                }]
            }
        );
    }

    #[test]
    fn k6_option_variables_are_read_as_k6_reads_them() {
        let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let script = json!({"vus": 1, "scenarios": {"a": {"executor": "constant-vus", "duration": "9s"}},
            "userAgent": "script/1"});
        let v = env_layer(
            &script,
            &env(&[
                ("K6_STAGES", "1s:2, -1s:3"),
                ("K6_THROW", "T"),
                ("K6_SUMMARY_TREND_STATS", "avg,p(99)"),
                ("K6_TAGS", "team:a, env:ci"),
                ("K6_SETUP_TIMEOUT", "5s"),
                ("K6_USER_AGENT", ""),
                ("K6_NO_USAGE_REPORT", "true"),
            ]),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"vus": 1, "stages": [{"duration": "1s", "target": 2}, {"duration": "-1s", "target": 3}],
                "throw": true, "summaryTrendStats": ["avg", "p(99)"], "tags": {"team": "a", "env": "ci"},
                "setupTimeout": "5s", "userAgent": "script/1"})
        );
        // Through `resolve`: the stages replace the scenarios (with k6's
        // warning), and k6's checks see them.
        let o = Overrides {
            env: env(&[("K6_STAGES", "1s:2")]),
            ..Default::default()
        };
        let r = Options::resolve(&script, &o).unwrap();
        assert_eq!(r.scenarios[0].name, "default");
        assert_eq!(
            r.warnings,
            vec!["\"env\" level configuration overrode scenarios configuration entirely"]
        );
        // --local-ips, else K6_LOCAL_IPS (the script's own is ignored, as
        // by k6, with a warning); a bad one in k6's words.
        let o = Overrides {
            env: env(&[("K6_LOCAL_IPS", "10.0.0.1-10.0.0.2")]),
            ..Default::default()
        };
        let r = Options::resolve(&json!({"localIPs": "10.9.9.9"}), &o).unwrap();
        assert_eq!(r.local_ips.unwrap().get(1).to_string(), "10.0.0.2");
        assert!(r.warnings[0].starts_with("options.localIPs is ignored"));
        let o = Overrides {
            env: env(&[("K6_LOCAL_IPS", "10.0.0.1-10.0.0.2")]),
            local_ips: Some("10.0.0.7".into()),
            ..Default::default()
        };
        let r = Options::resolve(&json!({}), &o).unwrap();
        assert_eq!(r.local_ips.unwrap().get(1).to_string(), "10.0.0.7");
        let o = Overrides {
            local_ips: Some("10.0.0.7-10.0.0.1".into()),
            ..Default::default()
        };
        let e = Options::resolve(&json!({}), &o).unwrap_err().to_string();
        assert!(e.contains("negative IP range: 10.0.0.7-10.0.0.1"), "{e}");
        // K6_HOSTS is ignored, as by k6 (which has no reader for it),
        // with a warning.
        let o = Overrides {
            env: env(&[("K6_HOSTS", "{\"a.test\":\"127.0.0.1\"}")]),
            ..Default::default()
        };
        let r = Options::resolve(&json!({}), &o).unwrap();
        assert!(r.hosts.is_empty());
        assert!(
            r.warnings[0].starts_with("K6_HOSTS is ignored"),
            "{:?}",
            r.warnings
        );
        // The flags' layer is over it.
        let o = Overrides {
            env: env(&[("K6_DURATION", "5s"), ("K6_VUS", "3")]),
            iterations: Some(6),
            ..Default::default()
        };
        let r = Options::resolve(&json!({}), &o).unwrap();
        assert_eq!(
            r.scenarios[0].executor,
            Executor::SharedIterations {
                vus: 3,
                iterations: 6,
                max_duration: Duration::from_secs(600)
            }
        );
        // What k6 could not read, named; an unsupported option refused
        // unless it is false.
        for (k, v, want) in [
            (
                "K6_ITERATIONS",
                "1.5",
                "K6_ITERATIONS=\"1.5\": not a whole number",
            ),
            (
                "K6_DURATION",
                "soon",
                "K6_DURATION=\"soon\": not a duration",
            ),
            ("K6_STAGES", ":3", "no duration"),
            ("K6_TAGS", "nocolon", "expected NAME:VALUE pairs"),
            (
                "K6_LINGER",
                "true",
                "K6_LINGER=\"true\": the option is not supported by loadlab k6",
            ),
        ] {
            let e = env_layer(&json!({}), &env(&[(k, v)]))
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{k}: {e}");
        }
        assert!(env_layer(&json!({}), &env(&[("K6_WEB_DASHBOARD", "false")])).is_ok());
    }

    #[test]
    fn stage_flags_read_as_k6_reads_them() {
        assert_eq!(
            stage_flag("30s:10").unwrap(),
            json!({"duration": "30s", "target": 10})
        );
        assert_eq!(
            stage_flag("-1s:2").unwrap(),
            json!({"duration": "-1s", "target": 2})
        );
        assert_eq!(stage_flag("1m").unwrap(), json!({"duration": "1m"}));
        assert!(stage_flag(":2").unwrap_err().contains("no duration"));
        assert!(
            stage_flag("1s:1.5")
                .unwrap_err()
                .contains("not a whole number")
        );
        assert!(stage_flag("soon:1").unwrap_err().contains("not a duration"));
    }

    #[test]
    fn scenarios_k6_refuses_are_refused_with_its_words() {
        let err =
            |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o).unwrap_err().to_string();
        let one =
            |sc: serde_json::Value| err(json!({"scenarios": {"a": sc}}), &Overrides::default());
        // Each checked against k6 v1.8.1 (exit 104, these words).
        for (sc, want) in [
            (
                json!({"executor": "shared-iterations", "vus": 5, "iterations": 2}),
                "the number of iterations (2) can't be less than the number of VUs (5)",
            ),
            (
                json!({"executor": "shared-iterations", "vus": 2, "iterations": 5, "maxDuration": "0.5s"}),
                "the maxDuration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "per-vu-iterations", "vus": 2, "iterations": 0}),
                "the number of iterations must be more than 0",
            ),
            (
                json!({"executor": "constant-vus", "vus": 0, "duration": "0.5s"}),
                "the number of VUs must be more than 0, the duration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "ramping-vus", "startVUs": 0, "stages": []}),
                "either startVUs or one of the stages' target values must be greater than 0, \
                 at least one stage has to be specified",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 0, "duration": "2s", "preAllocatedVUs": 1}),
                "the iteration rate must be more than 0",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 5, "timeUnit": "0s", "duration": "2s", "preAllocatedVUs": 1}),
                "the timeUnit must be more than 0",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 5, "duration": "2s", "preAllocatedVUs": 3, "maxVUs": 2}),
                "maxVUs can't be less than preAllocatedVUs",
            ),
            (
                json!({"executor": "ramping-arrival-rate", "stages": [], "preAllocatedVUs": 1}),
                "at least one stage has to be specified",
            ),
            // Negative durations: k6 reads them, then refuses them (its
            // common checks first).
            (
                json!({"executor": "constant-arrival-rate", "rate": 1, "duration": "1s",
                       "preAllocatedVUs": 1, "timeUnit": "-1s", "gracefulStop": "-1s"}),
                "the gracefulStop timeout can't be negative, the timeUnit must be more than 0",
            ),
            (
                json!({"executor": "constant-vus", "vus": 1, "duration": "1s",
                       "gracefulStop": "-1s", "startTime": "-2s"}),
                "the startTime can't be negative, the gracefulStop timeout can't be negative",
            ),
            (
                json!({"executor": "ramping-arrival-rate", "preAllocatedVUs": 5, "maxVUs": 2,
                       "timeUnit": "0s", "stages": [{"duration": "1s", "target": 1}]}),
                "the timeUnit must be more than 0, maxVUs can't be less than preAllocatedVUs",
            ),
            (
                json!({"executor": "per-vu-iterations", "vus": 1, "iterations": 1, "maxDuration": "0.5s"}),
                "the maxDuration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "shared-iterations", "vus": 1, "iterations": 1, "maxDuration": "-1s"}),
                "the maxDuration must be at least 1s, but is -1s",
            ),
            (
                json!({"executor": "constant-vus", "vus": 1, "duration": -1500}),
                "the duration must be at least 1s, but is -1.5s",
            ),
        ] {
            let e = one(sc.clone());
            assert!(
                e.contains(&format!("\t- scenario a has configuration errors: {want}")),
                "{sc}: {e}"
            );
        }
        // Every scenario in error is named, each on its line.
        let e = err(
            json!({"scenarios": {
                "a": {"executor": "constant-vus", "vus": 0, "duration": "2s"},
                "b": {"executor": "shared-iterations", "vus": 0, "iterations": 0},
                "c": {"executor": "constant-vus", "vus": 1, "duration": "2s"}}}),
            &Overrides::default(),
        );
        assert!(
            e.starts_with(
                "invalid options: there were problems with the specified script configuration:\n"
            ),
            "{e}"
        );
        assert_eq!(
            e.lines().filter(|l| l.starts_with("\t- scenario")).count(),
            2,
            "{e}"
        );
        assert!(!e.contains("scenario c"), "{e}");
        // A negative gracefulRampDown passes k6's checks (it acts as 0);
        // a negative text that is not a duration is named as such.
        let ok = json!({"scenarios": {"a": {"executor": "ramping-vus", "startVUs": 1,
            "stages": [{"duration": "1s", "target": 1}], "gracefulRampDown": "-1s"}}});
        let o = Options::resolve(&ok, &Overrides::default()).unwrap();
        assert_eq!(o.scenarios[0].graceful_ramp_down, Duration::ZERO);
        let e = one(json!({"executor": "constant-vus", "vus": 1, "duration": "-soon"}));
        assert!(
            e.contains("scenarios.a.duration: \"-soon\" is not a duration"),
            "{e}"
        );
        // The command line's default scenario too: `-u 5 -i 2`, `-d 500ms`.
        let o = Overrides {
            vus: Some(5),
            iterations: Some(2),
            ..Default::default()
        };
        assert!(err(json!({}), &o).contains(
            "scenario default has configuration errors: the number of iterations (2) \
                 can't be less than the number of VUs (5)"
        ),);
        let o = Overrides {
            duration: Some("500ms".into()),
            ..Default::default()
        };
        assert!(err(json!({}), &o).contains("the duration must be at least 1s, but is 500ms"));
        // What k6 accepts still runs: a ramp to zero rate, as many VUs as
        // iterations, a zero-target ramp that starts with VUs.
        for ok in [
            json!({"executor": "ramping-arrival-rate", "stages": [{"target": 0, "duration": "2s"}], "preAllocatedVUs": 1}),
            json!({"executor": "shared-iterations", "vus": 3, "iterations": 3}),
            json!({"executor": "ramping-vus", "startVUs": 2, "stages": [{"target": 0, "duration": "1s"}]}),
        ] {
            Options::resolve(
                &json!({"scenarios": {"a": ok.clone()}}),
                &Overrides::default(),
            )
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn externally_controlled_is_refused() {
        let e = Options::resolve(
            &json!({"scenarios": {"x": {"executor": "externally-controlled"}}}),
            &Overrides::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("externally-controlled"), "{e}");
    }

    #[test]
    fn metric_key_filters() {
        let (m, f) = parse_metric_key("http_req_duration{endpoint:publish}").unwrap();
        assert_eq!(m, "http_req_duration");
        assert_eq!(f, vec![("endpoint".into(), "publish".into())]);
    }
}
