//! The study plan: a YAML file parsed once into validated, typed config.
//!
//! Parsing has two layers (low-level → high-level): `Raw*` structs mirror the
//! YAML with `deny_unknown_fields`, then [`Plan::from_yaml`] checks meaning
//! (durations, rates, references to targets) and resolves defaults. Every
//! error names the file, line and column; an unknown key comes with the
//! nearest valid key as a suggestion.

use std::path::Path;
use std::time::Duration;

use loadlab_core::{PacerSpec, Rate, parse_go_duration};
use loadlab_engine::AttackConfig;
use serde::{Deserialize, Serialize};

pub use crate::error::PlanError;
use crate::hypothesis::Hypothesis;
pub use crate::sources::{OriginPlan, RequestPlan, TargetPlan};
use crate::sources::{RawOrigin, RawTarget, check_request};
pub use crate::suggest::suggest;

mod labels;
mod locate;
mod origins;
mod ratio;
mod regression;
mod targets;
pub(crate) use locate::locate_key_in;
use locate::yaml_error;
pub use locate::{locate_key, locate_path};
use origins::{RawOrigins, check_references, read_origins, request_at};
use ratio::parse_ratio;
use regression::{RawRegression, read_regression};
pub use regression::{RegressionPlan, Since, history_metric};
use targets::{EnvAxis, read_targets};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    name: String,
    #[serde(default)]
    question: Option<String>,
    #[serde(default)]
    origin: Option<RawOrigin>,
    #[serde(default)]
    origins: Option<RawOrigins>,
    targets: Vec<RawTarget>,
    load: RawLoad,
    #[serde(default)]
    repetitions: Option<u32>,
    #[serde(default)]
    slo: Option<RawSlo>,
    #[serde(default)]
    stop: Option<RawStop>,
    #[serde(default)]
    ceiling: Option<RawCeiling>,
    #[serde(default)]
    hypotheses: Vec<String>,
    #[serde(default)]
    monitor: Option<RawMonitor>,
    #[serde(default)]
    redact: Vec<String>,
    #[serde(default)]
    regression: Option<RawRegression>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLoad {
    #[serde(default)]
    rates: Option<Vec<Rate>>,
    #[serde(default)]
    ramp: Option<RawRamp>,
    /// Concurrency steps of a sysbench target.
    #[serde(default)]
    threads: Option<Vec<u64>>,
    /// Virtual-user steps of a script target.
    #[serde(default)]
    vus: Option<Vec<u64>>,
    /// Speeds of a replay target (×1, ×2, ×4).
    #[serde(default)]
    speeds: Option<Vec<u64>>,
    step: String,
    #[serde(default)]
    warmup: Option<String>,
    #[serde(default)]
    cooldown: Option<String>,
    #[serde(default)]
    workers: Option<u64>,
    #[serde(default)]
    max_workers: Option<u64>,
    #[serde(default)]
    connections: Option<usize>,
    #[serde(default)]
    max_connections: Option<usize>,
    #[serde(default)]
    timeout: Option<String>,
    #[serde(default)]
    keepalive: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRamp {
    from: Rate,
    to: Rate,
    by: Rate,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSlo {
    #[serde(default)]
    success: Option<serde_norway::Value>,
    #[serde(default)]
    p50: Option<String>,
    #[serde(default)]
    p90: Option<String>,
    #[serde(default)]
    p95: Option<String>,
    #[serde(default)]
    p99: Option<String>,
    #[serde(default)]
    max: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStop {
    #[serde(default)]
    after_failures: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCeiling {
    resolution: u64,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    max_probes: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMonitor {
    #[serde(default)]
    pid: Option<u32>,
    #[serde(default)]
    process: Option<String>,
    #[serde(default)]
    interval: Option<String>,
}

/// The validated plan. Serialized (JSON) into the store as the resolved plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub name: String,
    pub question: Option<String>,
    /// The origin written `{origin}` in the targets.
    pub origin: Option<OriginPlan>,
    /// The named origins, each written `{origin.NAME}`, in the plan's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub origins: Vec<(String, OriginPlan)>,
    pub targets: Vec<TargetPlan>,
    pub load: LoadPlan,
    /// Runs of each (rate, target), interleaved A B A B.
    pub repetitions: u32,
    pub slo: Option<Slo>,
    /// Stop stepping a target up after this many consecutive SLO failures.
    pub stop_after_failures: Option<u32>,
    pub ceiling: Option<CeilingPlan>,
    /// Checked against the plan's history after the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regression: Option<RegressionPlan>,
    pub hypotheses: Vec<Hypothesis>,
    pub monitor: Option<MonitorPlan>,
    /// Headers whose values are credentials, besides the usual ones
    /// ([`crate::secrets::CREDENTIAL_HEADERS`]): redacted wherever shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redact: Vec<String>,
    /// Values of the `${NAME}` references in the targets, captured at load.
    /// Never serialized: the store keeps the references, not the values.
    #[serde(skip)]
    pub env: crate::secrets::EnvValues,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadPlan {
    /// The level of each sweep step, ascending: requests per second on the
    /// `rate` axis (the name is kept for the store), else threads, virtual
    /// users or the value of the script's environment variable.
    pub rates: Vec<u64>,
    /// What the steps vary: `rate` (the default), `threads`, `vus`, or the
    /// name of a script's environment variable.
    #[serde(default = "rate_axis", skip_serializing_if = "is_rate_axis")]
    pub axis: String,
    /// Duration of each run, warm-up included.
    pub step: Duration,
    /// The first part of each run, sent but excluded from statistics.
    pub warmup: Duration,
    /// Pause between runs.
    pub cooldown: Duration,
    pub workers: u64,
    pub max_workers: Option<u64>,
    pub connections: usize,
    pub max_connections: Option<usize>,
    pub timeout: Duration,
    pub keepalive: bool,
}

fn rate_axis() -> String {
    "rate".into()
}

fn is_rate_axis(a: &String) -> bool {
    a == "rate"
}

impl LoadPlan {
    /// True when the steps are request rates.
    pub fn is_rate(&self) -> bool {
        self.axis == "rate"
    }

    /// The engine's configuration of one run at `rate`: the only mapping
    /// from a plan's load to attack settings, used by the runner and by the
    /// report's equivalent command line (which renders it as flags).
    pub fn attack_config(&self, rate: Rate) -> AttackConfig {
        AttackConfig {
            pacer: PacerSpec::Constant(rate),
            duration: Some(self.step),
            workers: self.workers,
            max_workers: self.max_workers,
            connections: self.connections,
            max_connections: self.max_connections,
            timeout: self.timeout,
            keepalive: self.keepalive,
            ..AttackConfig::default()
        }
    }
}

/// Service-level objective a run must meet to "pass".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Slo {
    /// Minimum success ratio, 0..=1.
    pub success: Option<f64>,
    /// Maximum latency at a percentile, e.g. (99.0, 500ms).
    pub latency: Vec<(f64, Duration)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CeilingPlan {
    /// Bisect until the pass/fail bracket is at most this wide (requests/s).
    pub resolution: u64,
    pub max_probes: u32,
    /// How the next probe is placed.
    #[serde(default, skip_serializing_if = "CeilingMethod::is_bisect")]
    pub method: CeilingMethod,
}

/// How the ceiling search places its probes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CeilingMethod {
    /// At the middle of the pass/fail bracket.
    #[default]
    Bisect,
    /// Where the SLO model of the runs so far is least sure of the
    /// crossing (see the runner's ceiling model).
    Model,
}

impl CeilingMethod {
    fn is_bisect(&self) -> bool {
        *self == CeilingMethod::Bisect
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MonitorPlan {
    pub pid: Option<u32>,
    pub process: Option<String>,
    pub interval: Duration,
}

/// What a plan's steps vary, and the key that lists them: `rates`/`ramp`
/// (requests per second), `threads` (sysbench), `vus` (a script) or a list
/// in a script target's `env`. Exactly one, and every target must be able
/// to step along it.
fn resolve_axis(
    raw: &RawPlan,
    targets: &[TargetPlan],
    keys: &[String],
    env_axis: Option<&(String, String, Vec<u64>)>,
    err: &dyn Fn(&str, String) -> PlanError,
) -> Result<(String, String), PlanError> {
    let l = &raw.load;
    let mut given: Vec<(String, String)> = Vec::new();
    if l.rates.is_some() {
        given.push(("rate".into(), "load.rates".into()));
    } else if l.ramp.is_some() {
        given.push(("rate".into(), "load.ramp".into()));
    }
    if l.threads.is_some() {
        given.push(("threads".into(), "load.threads".into()));
    }
    if l.vus.is_some() {
        given.push(("vus".into(), "load.vus".into()));
    }
    if l.speeds.is_some() {
        given.push(("speed".into(), "load.speeds".into()));
    }
    if let Some((key, name, _)) = env_axis {
        given.push((name.clone(), format!("{key}.env.{name}")));
    }
    let workloads = targets
        .iter()
        .any(|t| t.workload.is_some() || t.replay.is_some());
    let (axis, at) = match given.as_slice() {
        [] if workloads => {
            return Err(err(
                "load",
                "needs the steps: `rates` or `ramp` (requests per second), `threads` (a sysbench target), `vus` (a script target), `speeds` (a replay target), or a list in a script target's env".into(),
            ));
        }
        // Without workloads, the request-rate messages below apply.
        [] => return Ok(("rate".into(), "load.rates".into())),
        [one] => one.clone(),
        [first, second, ..] => {
            return Err(err(
                &second.1,
                format!(
                    "a study steps along one axis; {} and {} are both given",
                    first.1, second.1
                ),
            ));
        }
    };
    for (key, t) in keys.iter().zip(targets) {
        let ok = match &t.workload {
            None if !t.members.is_empty() => true,
            None if t.replay.is_some() => {
                axis == "speed" || t.replay.as_ref().is_some_and(|r| r.speed.is_some())
            }
            // A fixed `level` (a group member's own rate) fits any axis.
            None => axis == "rate" || t.level.is_some(),
            Some(w @ crate::workload::WorkloadPlan::Script { .. }) => {
                w.axes().contains(&axis.as_str()) || env_axis.is_some_and(|(_, n, _)| *n == axis)
            }
            Some(w) => w.axes().contains(&axis.as_str()),
        };
        if !ok {
            let kind = match &t.workload {
                None if t.replay.is_some() => {
                    "a replay target steps along `speeds` (or give it a fixed `speed`)".to_string()
                }
                None => {
                    "an HTTP target steps along `rates` (or give it a fixed `level`)".to_string()
                }
                Some(w) => format!(
                    "a {} target steps along {}",
                    w.tool(),
                    w.axes()
                        .iter()
                        .map(|a| format!("`{a}`"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                        + if w.tool() == "k6" {
                            " or a list in its env"
                        } else {
                            ""
                        }
                ),
            };
            return Err(err(
                key,
                format!("target {:?} cannot step along {at}: {kind}", t.name),
            ));
        }
    }
    Ok((axis, at))
}

/// Most steps a `load.ramp` may make (each is at least one run).
const MAX_RAMP_STEPS: u64 = 1000;

/// `path` is the key path of the value at fault (`load.step`,
/// `targets[1].name`): it starts the message and gives the location.
pub(crate) fn plan_err<'a>(src: &'a str, file: &'a str) -> impl Fn(&str, String) -> PlanError + 'a {
    move |path: &str, message: String| {
        let (line, column) = locate_path(src, path);
        PlanError {
            file: file.to_string(),
            line,
            column,
            message: format!("{path}: {message}"),
        }
    }
}

/// The plan's `load:` section, checked as the engine will run it.
fn read_load(
    raw: &RawPlan,
    targets: &[TargetPlan],
    keys: &[String],
    env_axes: &EnvAxis,
    src: &str,
    file: &str,
) -> Result<LoadPlan, PlanError> {
    let err = plan_err(src, file);
    let dur = |path: &str, v: &str| parse_go_duration(v).map_err(|e| err(path, e.to_string()));
    let l = &raw.load;
    // A step is identified by its whole number of requests per second
    // (in the store, the schedule, hypotheses); unlimited reads as 0.
    let per_second = |path: &str, r: &Rate| -> Result<u64, PlanError> {
        if r.is_unlimited() {
            return Ok(0);
        }
        let per = r.per.as_nanos();
        let ns = u128::from(r.freq) * 1_000_000_000;
        if ns % per != 0 {
            return Err(err(
                path,
                format!(
                    "{r} is {} requests per second; a study's rates are whole requests per second",
                    r.hz()
                ),
            ));
        }
        u64::try_from(ns / per).map_err(|_| err(path, format!("{r} is too high a rate")))
    };
    let (axis, rates_at) = resolve_axis(raw, targets, keys, env_axes.as_ref(), &err)?;
    let rates = match (&l.rates, &l.ramp) {
        _ if axis == "speed" => l.speeds.clone().unwrap_or_default(),
        _ if axis != "rate" => match (&l.threads, &l.vus, &env_axes) {
            (Some(v), _, _) if axis == "threads" => v.clone(),
            (_, Some(v), _) if axis == "vus" => v.clone(),
            (_, _, Some((_, _, v))) => v.clone(),
            _ => Vec::new(),
        },
        (Some(r), None) => r
            .iter()
            .enumerate()
            .map(|(i, r)| per_second(&format!("load.rates[{i}]"), r))
            .collect::<Result<Vec<u64>, _>>()?,
        (None, Some(r)) => {
            let from = per_second("load.ramp.from", &r.from)?;
            let to = per_second("load.ramp.to", &r.to)?;
            let by = per_second("load.ramp.by", &r.by)?;
            if by == 0 || to < from {
                return Err(err("load.ramp", "needs from <= to and by > 0".into()));
            }
            let steps = ((to - from) / by).saturating_add(1);
            if steps > MAX_RAMP_STEPS {
                return Err(err(
                    "load.ramp",
                    format!("makes {steps} steps; a ramp has at most {MAX_RAMP_STEPS}"),
                ));
            }
            (from..=to).step_by(by as usize).collect()
        }
        (Some(_), Some(_)) => {
            return Err(err(
                "load.ramp",
                "give either `rates` or `ramp`, not both".into(),
            ));
        }
        (None, None) => {
            return Err(err(
                "load",
                "needs `rates` (a list) or `ramp` (from, to, by)".into(),
            ));
        }
    };
    let what = if axis == "rate" { "rates" } else { "steps" };
    if rates.is_empty() || rates.contains(&0) {
        return Err(err(
            &rates_at,
            format!("must be a non-empty list of {what} > 0"),
        ));
    }
    if let Some(i) = rates.windows(2).position(|w| w[0] >= w[1]) {
        let at = if rates_at == "load.ramp" {
            format!("load.rates[{}]", i + 1)
        } else {
            format!("{rates_at}[{}]", i + 1)
        };
        return Err(err(
            &at,
            format!(
                "{what} must be strictly ascending ({} after {})",
                rates[i + 1],
                rates[i]
            ),
        ));
    }
    let step = dur("load.step", &l.step)?;
    let warmup = l
        .warmup
        .as_deref()
        .map(|v| dur("load.warmup", v))
        .transpose()?
        .unwrap_or_default();
    if step.is_zero() {
        return Err(err("load.step", "must be longer than zero".into()));
    }
    if warmup >= step {
        return Err(err(
            "load.warmup",
            format!(
                "{} must be shorter than load.step ({})",
                l.warmup.as_deref().unwrap_or_default(),
                l.step
            ),
        ));
    }
    let load = LoadPlan {
        rates,
        axis,
        step,
        warmup,
        cooldown: l
            .cooldown
            .as_deref()
            .map(|v| dur("load.cooldown", v))
            .transpose()?
            .unwrap_or_default(),
        workers: l.workers.unwrap_or(10),
        max_workers: l.max_workers,
        connections: l.connections.unwrap_or(10_000),
        max_connections: l.max_connections,
        timeout: l
            .timeout
            .as_deref()
            .map(|v| dur("load.timeout", v))
            .transpose()?
            .unwrap_or(Duration::from_secs(30)),
        keepalive: l.keepalive.unwrap_or(true),
    };
    for (key, zero) in [
        ("load.workers", load.workers == 0),
        ("load.max_workers", load.max_workers == Some(0)),
        ("load.max_connections", load.max_connections == Some(0)),
    ] {
        if zero {
            return Err(err(key, "must be at least 1".into()));
        }
    }
    if load.timeout.is_zero() {
        return Err(err("load.timeout", "must be longer than zero".into()));
    }
    // Anything else the engine would refuse, refused now.
    if let Err(e) = load
        .attack_config(Rate::per_second(load.rates[0]))
        .validate()
    {
        return Err(err("load", e.to_string()));
    }
    Ok(load)
}

impl Plan {
    /// Reads and validates a plan file. Relative paths inside it (recipe,
    /// targets files) are resolved against the plan's directory.
    pub fn from_file(path: &Path) -> Result<Plan, PlanError> {
        let file = path.display().to_string();
        let src = std::fs::read_to_string(path).map_err(|e| PlanError {
            file: file.clone(),
            line: 0,
            column: 0,
            message: format!("cannot read plan: {e}"),
        })?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Plan::from_yaml(&src, &file, &base)
    }

    /// Parses and validates plan text; `file` is only used in messages.
    pub fn from_yaml(src: &str, file: &str, base: &Path) -> Result<Plan, PlanError> {
        // Bounds first: the YAML reader is quadratic in nesting depth.
        crate::plan_shape::check(src, file)?;
        // serde_norway 0.9.42 panics on some malformed documents ("unexpected
        // end of mapping", found by the plan fuzz target): a bad plan is a
        // syntax error, never a crash.
        std::panic::catch_unwind(|| Self::from_yaml_unguarded(src, file, base)).unwrap_or_else(
            |_| {
                Err(PlanError {
                    file: file.to_string(),
                    line: 1,
                    column: 1,
                    message: "not a YAML document the plan reader can parse".into(),
                })
            },
        )
    }

    fn from_yaml_unguarded(src: &str, file: &str, base: &Path) -> Result<Plan, PlanError> {
        let raw: RawPlan = serde_norway::from_str(src).map_err(|e| yaml_error(file, e))?;
        // `path` is the key path of the value at fault (`load.step`,
        // `targets[1].name`): it starts the message and gives the location.
        let err = plan_err(src, file);
        let dur = |path: &str, v: &str| parse_go_duration(v).map_err(|e| err(path, e.to_string()));

        if raw.name.trim().is_empty() {
            return Err(err("name", "must not be empty".into()));
        }
        if raw.targets.is_empty() {
            return Err(err("targets", "at least one target is needed".into()));
        }
        let read = read_targets(&raw.targets, base, src, file)?;
        let (targets, written, keys, env_axes) =
            (read.targets, read.written, read.keys, read.env_axis);
        let env = crate::secrets::capture(&targets, src, file)?;

        let load = read_load(&raw, &targets, &keys, &env_axes, src, file)?;

        let slo = match &raw.slo {
            None => None,
            Some(s) => {
                let success = match &s.success {
                    None => None,
                    Some(v) => Some(parse_ratio(v).map_err(|m| err("slo.success", m))?),
                };
                let mut latency = Vec::new();
                for (p, key, v) in [
                    (50.0, "slo.p50", &s.p50),
                    (90.0, "slo.p90", &s.p90),
                    (95.0, "slo.p95", &s.p95),
                    (99.0, "slo.p99", &s.p99),
                    (100.0, "slo.max", &s.max),
                ] {
                    if let Some(v) = v {
                        latency.push((p, dur(key, v)?));
                    }
                }
                Some(Slo { success, latency })
            }
        };
        let ceiling = match &raw.ceiling {
            None => None,
            Some(c) => {
                if slo.is_none() {
                    return Err(err(
                        "ceiling",
                        "the ceiling search needs an `slo` to decide pass/fail".into(),
                    ));
                }
                if c.resolution == 0 {
                    return Err(err("ceiling.resolution", "must be > 0".into()));
                }
                let method = match c.method.as_deref().map(str::trim) {
                    None | Some("bisect") => CeilingMethod::Bisect,
                    Some("model") => CeilingMethod::Model,
                    Some(m) => {
                        return Err(err(
                            "ceiling.method",
                            format!("{m:?}: expected bisect or model"),
                        ));
                    }
                };
                Some(CeilingPlan {
                    resolution: c.resolution,
                    method,
                    max_probes: c.max_probes.unwrap_or(8),
                })
            }
        };
        let stop_after_failures = match &raw.stop {
            Some(RawStop {
                after_failures: Some(0),
            }) => {
                return Err(err("stop.after_failures", "must be >= 1".into()));
            }
            Some(s) => s.after_failures.or(Some(1)),
            None => None,
        };
        if stop_after_failures.is_some() && slo.is_none() {
            return Err(err(
                "stop",
                "stop rules need an `slo` to decide failure".into(),
            ));
        }

        let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
        let mut hypotheses = Vec::new();
        for (i, h) in raw.hypotheses.iter().enumerate() {
            let at = format!("hypotheses[{i}]");
            let parsed = Hypothesis::parse_on(h, &names, &load.axis)
                .map_err(|m| err(&at, format!("hypothesis {h:?}: {m}")))?;
            if parsed.metric() == crate::hypothesis::Metric::Cpu && raw.monitor.is_none() {
                return Err(err(
                    &at,
                    format!("hypothesis {h:?} uses `cpu` but the plan has no `monitor`"),
                ));
            }
            if parsed.needs_ceiling() && ceiling.is_none() {
                return Err(err(
                    &at,
                    format!("hypothesis {h:?} uses `ceiling` but the plan has no ceiling search"),
                ));
            }
            hypotheses.push(parsed);
        }

        let (origin, origins) =
            read_origins(raw.origin.as_ref(), raw.origins.as_ref(), base, src, file)?;
        // Checked as sent: references expanded, each origin standing for
        // an address nothing listens on (messages show the template).
        let placeholder = crate::origins::Origins::placeholder(origin.as_ref(), &origins);
        check_references(&targets, &written, &keys, &placeholder, &err)?;
        for (i, (t, w)) in targets.iter().zip(&written).enumerate() {
            for (r, w) in t.requests.iter().zip(w) {
                let expand = |v: &str| crate::secrets::expand(v, &env).unwrap_or_default();
                let url = placeholder.expand(&expand(&r.url));
                let headers: Vec<(String, String)> = r
                    .headers
                    .iter()
                    .map(|(k, v)| (k.clone(), expand(v)))
                    .collect();
                let shown = crate::secrets::redact_urls(&r.url);
                if let Err(m) = check_request(&url, &headers, &shown) {
                    let key = if m.starts_with("bad URL") {
                        "url"
                    } else {
                        "headers"
                    };
                    let (at, place) = request_at(&keys[i], w, key);
                    let m = crate::secrets::scrub_values(&env, &m);
                    return Err(err(&at, format!("{place}{m}")));
                }
            }
        }

        let regression = raw
            .regression
            .as_ref()
            .map(|r| read_regression(r, &names, &err))
            .transpose()?;

        let monitor = match &raw.monitor {
            None => None,
            Some(m) => {
                if m.pid.is_some() == m.process.is_some() {
                    return Err(err(
                        "monitor",
                        "needs exactly one of `pid` or `process`".into(),
                    ));
                }
                let interval = m
                    .interval
                    .as_deref()
                    .map(|v| dur("monitor.interval", v))
                    .transpose()?
                    .unwrap_or(Duration::from_secs(1));
                Some(MonitorPlan {
                    pid: m.pid,
                    process: m.process.clone(),
                    interval,
                })
            }
        };

        Ok(Plan {
            name: raw.name.clone(),
            question: raw.question.clone(),
            origin,
            origins,
            targets,
            load,
            repetitions: raw.repetitions.unwrap_or(1).max(1),
            slo,
            stop_after_failures,
            ceiling,
            regression,
            hypotheses,
            monitor,
            redact: raw.redact.iter().map(|h| h.trim().to_string()).collect(),
            env,
        })
    }

    /// The plan as it may be shown or stored: credential header values and
    /// URL passwords redacted (see [`crate::secrets`]), references to the
    /// environment kept as written, no captured values. Idempotent.
    pub fn redacted(&self) -> Plan {
        let mut p = self.clone();
        p.env = crate::secrets::EnvValues::default();
        for t in &mut p.targets {
            for r in &mut t.requests {
                r.url = crate::secrets::redact_urls(&r.url);
                for (k, v) in &mut r.headers {
                    *v = crate::secrets::redact_header_value(k, v, &self.redact);
                }
            }
            if let Some(r) = &mut t.replay {
                for (k, v) in &mut r.set_headers {
                    *v = crate::secrets::redact_header_value(k, v, &self.redact);
                }
                for (_, v) in &mut r.hosts {
                    *v = crate::secrets::redact_urls(v);
                }
                r.base = r.base.as_deref().map(crate::secrets::redact_urls);
            }
        }
        p
    }

    /// The targets the study runs on their own: all but groups' members.
    pub fn scheduled(&self) -> impl Iterator<Item = &TargetPlan> {
        self.targets.iter().filter(|t| t.is_scheduled())
    }

    /// The target named `name` (a group's member: `group/member`).
    pub fn target(&self, name: &str) -> Option<&TargetPlan> {
        self.targets.iter().find(|t| t.name == name)
    }
}
