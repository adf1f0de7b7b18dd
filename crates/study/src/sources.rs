//! Where a plan's requests and recipes come from: inline values, vegeta
//! `http` targets files, recipe files. Paths are relative to the plan's folder.
//!
//! A leaf below [`crate::plan`]: it defines the YAML shape of a target and of
//! an origin and what they resolve to, and imports nothing from the plan.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use loadlab_engine::{TargetFormat, TargetReader};
use serde::{Deserialize, Serialize};

use crate::replay::{RawReplay, ReplayPlan};
use crate::workload::WorkloadPlan;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawOrigin {
    #[serde(default)]
    pub(crate) recipe: Option<String>,
    #[serde(default)]
    pub(crate) recipes: Option<serde_norway::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawTarget {
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) url: Option<String>,
    #[serde(default)]
    pub(crate) method: Option<String>,
    #[serde(default)]
    pub(crate) headers: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) body: Option<String>,
    #[serde(default)]
    pub(crate) targets_file: Option<String>,
    /// A k6 script to run instead of requests.
    #[serde(default)]
    pub(crate) script: Option<String>,
    /// A sysbench test and its options (a string split at spaces, or a list).
    #[serde(default)]
    pub(crate) sysbench: Option<serde_norway::Value>,
    /// The script's environment (`-e`); a list value is the study's axis.
    #[serde(default)]
    pub(crate) env: BTreeMap<String, serde_norway::Value>,
    /// Workloads that run at the same time, started together: the target
    /// is the group, each member one of its workloads.
    #[serde(default)]
    pub(crate) concurrent: Vec<RawTarget>,
    /// A member's own level on the study's axis (requests per second,
    /// threads, VUs) instead of the step's.
    #[serde(default)]
    pub(crate) level: Option<u64>,
    /// A weighted mix of the target's requests: one weight per request.
    #[serde(default)]
    pub(crate) weights: Vec<u32>,
    /// A recorded log to replay at its own timing.
    #[serde(default)]
    pub(crate) replay: Option<String>,
    /// The replayed log's format (detected when left out).
    #[serde(default)]
    pub(crate) format: Option<String>,
    /// The replayed log's nginx `log_format`.
    #[serde(default)]
    pub(crate) log_format: Option<String>,
    /// Where a replayed log's paths go, when it records no host.
    #[serde(default)]
    pub(crate) base: Option<String>,
    /// A fixed replay speed (else the step's level).
    #[serde(default)]
    pub(crate) speed: Option<f64>,
    /// Replay the log again from its start at its end.
    #[serde(default, rename = "loop")]
    pub(crate) looped: Option<bool>,
    /// A malformed line of the replayed log ends the run.
    #[serde(default)]
    pub(crate) strict: Option<bool>,
    /// The replayed requests' hosts and headers changed.
    #[serde(default)]
    pub(crate) rewrite: Option<crate::replay::RawRewrite>,
}

/// An origin to start in-process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OriginPlan {
    /// The recipes as written (JSON), shown in the report.
    pub recipes_json: String,
    /// Where the recipe came from: a file path or "inline".
    pub source: String,
    /// The recipes, parsed when the plan is loaded. Not stored: a plan read
    /// back from the store has none (parse `recipes_json` again if needed).
    #[serde(skip)]
    pub recipes: Vec<loadlab_origin::Recipe>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetPlan {
    pub name: String,
    /// Empty for a workload target.
    pub requests: Vec<RequestPlan>,
    /// A script or database test instead of requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<WorkloadPlan>,
    /// A group of concurrent workloads: its members' names (`group/member`,
    /// each a target of its own in the plan). The group has no requests.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// A member of a concurrent group: the group's name. A member runs
    /// only with its group.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// A member's own level on the study's axis (`None`: the step's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u64>,
    /// A weighted mix of `requests`, one weight each (empty: round-robin).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mix: Vec<u32>,
    /// A recorded log replayed at its own timing, instead of requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplayPlan>,
}

impl TargetPlan {
    /// Runs on its own (not as a member of a group).
    pub fn is_scheduled(&self) -> bool {
        self.group.is_none()
    }

    /// The engine's weights of a weighted mix (`None`: round-robin).
    pub fn weights(&self) -> Option<Vec<u32>> {
        (!self.mix.is_empty()).then(|| self.mix.clone())
    }

    /// The level a run of this target at the step's `level` runs at.
    pub fn level_at(&self, level: u64) -> u64 {
        self.level.unwrap_or(level)
    }
}

/// An environment variable whose values in a script target are a list:
/// the study steps along it.
pub(crate) type EnvAxis = Option<(String, Vec<u64>)>;

/// One request template. `url` may contain `{origin}` and `{origin.NAME}`,
/// replaced by the in-process origins' base URLs (`http://127.0.0.1:PORT`)
/// at run time (see [`crate::origins`]); `url`
/// and header values may contain `${NAME}`, expanded from [`Plan::env`](crate::Plan::env).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestPlan {
    /// Parsed once, at load; stored as its name (`"GET"`).
    #[serde(with = "method_name")]
    pub method: http::Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

/// A problem with a target or an origin: at `key` below it (`url`,
/// `targets_file`, `recipes[1].stages[0].latency`), or at the entry itself
/// when `key` is empty.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SourceError {
    pub(crate) key: String,
    pub(crate) message: String,
}

impl SourceError {
    fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        SourceError {
            key: key.into(),
            message: message.into(),
        }
    }
}

/// Where a request is written: an inline target's keys, or a line of its
/// targets file (`path`, 1-based `line`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Written {
    Inline,
    File { path: String, line: usize },
}

/// Resolves one target: its requests and where each is written. Targets
/// files are read by the engine's reader (vegeta's `http` format) with URLs
/// left unchecked, since they may hold `{origin}` and `${NAME}` (see
/// [`check_request`]), and `@body` paths relative to the targets file.
pub(crate) fn resolve_target(
    t: &RawTarget,
    base: &Path,
) -> Result<(TargetPlan, Vec<Written>, EnvAxis), SourceError> {
    check_replay_keys(t)?;
    if t.replay.is_some() {
        return resolve_replay(t, base);
    }
    if t.script.is_some() || t.sysbench.is_some() {
        let (w, axis) = resolve_workload(t, base)?;
        let plan = TargetPlan {
            name: t.name.clone(),
            requests: Vec::new(),
            workload: Some(w),
            members: Vec::new(),
            group: None,
            level: None,
            mix: Vec::new(),
            replay: None,
        };
        if !t.weights.is_empty() {
            return Err(SourceError::new(
                "weights",
                "`weights` mix an HTTP target's requests; a script or database test has none",
            ));
        }
        return Ok((plan, Vec::new(), axis));
    }
    if !t.env.is_empty() {
        return Err(SourceError::new(
            "env",
            "`env` is for a `script` target; an HTTP target's values go in its url and headers",
        ));
    }
    let headers: Vec<(String, String)> = t
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let (requests, written) = match (&t.url, &t.targets_file) {
        (Some(url), None) => {
            let method = t
                .method
                .clone()
                .unwrap_or_else(|| "GET".into())
                .to_ascii_uppercase();
            let method = http::Method::from_bytes(method.as_bytes())
                .map_err(|_| SourceError::new("method", format!("invalid method {method:?}")))?;
            let r = RequestPlan {
                method,
                url: url.clone(),
                headers,
                body: t.body.clone(),
            };
            (vec![r], vec![Written::Inline])
        }
        (None, Some(file)) => read_targets_file(&base.join(file), &headers)?,
        _ => {
            return Err(SourceError::new(
                "",
                format!(
                    "target {:?} needs exactly one of `url` or `targets_file`",
                    t.name
                ),
            ));
        }
    };
    if !t.weights.is_empty() {
        if t.weights.len() != requests.len() {
            return Err(SourceError::new(
                "weights",
                format!(
                    "{} weight(s) for {} request(s): give one weight per request of the target, in order",
                    t.weights.len(),
                    requests.len()
                ),
            ));
        }
        loadlab_core::mix::weighted_order(&t.weights)
            .map_err(|m| SourceError::new("weights", m))?;
    }
    Ok((
        TargetPlan {
            name: t.name.clone(),
            requests,
            workload: None,
            members: Vec::new(),
            group: None,
            level: None,
            mix: t.weights.clone(),
            replay: None,
        },
        written,
        None,
    ))
}

/// The keys of a replay target on a target that replays nothing.
fn check_replay_keys(t: &RawTarget) -> Result<(), SourceError> {
    if t.replay.is_some() {
        return Ok(());
    }
    let keys = [
        ("format", t.format.is_some()),
        ("log_format", t.log_format.is_some()),
        ("base", t.base.is_some()),
        ("speed", t.speed.is_some()),
        ("loop", t.looped.is_some()),
        ("strict", t.strict.is_some()),
        ("rewrite", t.rewrite.is_some()),
    ];
    match keys.iter().find(|(_, set)| *set) {
        Some((k, _)) => Err(SourceError::new(
            *k,
            format!("`{k}` is for a `replay` target (a recorded log replayed at its own timing)"),
        )),
        None => Ok(()),
    }
}

/// A `replay:` target: a recorded log, no requests of its own.
fn resolve_replay(
    t: &RawTarget,
    base: &Path,
) -> Result<(TargetPlan, Vec<Written>, EnvAxis), SourceError> {
    let own = [
        ("url", t.url.is_some()),
        ("targets_file", t.targets_file.is_some()),
        ("script", t.script.is_some()),
        ("sysbench", t.sysbench.is_some()),
        ("method", t.method.is_some()),
        ("body", t.body.is_some()),
        ("env", !t.env.is_empty()),
        ("weights", !t.weights.is_empty()),
    ];
    if let Some((k, _)) = own.iter().find(|(_, set)| *set) {
        return Err(SourceError::new(
            *k,
            format!("a `replay` target sends the log's requests: it has no `{k}`"),
        ));
    }
    if !t.headers.is_empty() {
        return Err(SourceError::new(
            "headers",
            "a `replay` target sets headers in `rewrite.set_headers` (and drops them in `rewrite.drop_headers`)",
        ));
    }
    let raw = RawReplay {
        file: t.replay.as_deref().unwrap_or_default(),
        format: t.format.as_deref(),
        log_format: t.log_format.as_deref(),
        base: t.base.as_deref(),
        speed: t.speed,
        looped: t.looped.unwrap_or(false),
        strict: t.strict.unwrap_or(false),
        rewrite: t.rewrite.as_ref(),
    };
    let replay = crate::replay::resolve(&raw, base).map_err(|(key, m)| SourceError::new(key, m))?;
    let plan = TargetPlan {
        name: t.name.clone(),
        requests: Vec::new(),
        workload: None,
        members: Vec::new(),
        group: None,
        level: None,
        mix: Vec::new(),
        replay: Some(replay),
    };
    Ok((plan, Vec::new(), None))
}

/// A `script:` or `sysbench:` target.
fn resolve_workload(t: &RawTarget, base: &Path) -> Result<(WorkloadPlan, EnvAxis), SourceError> {
    let http_keys = t.url.is_some() as u8
        + t.targets_file.is_some() as u8
        + t.method.is_some() as u8
        + t.body.is_some() as u8
        + !t.headers.is_empty() as u8;
    if http_keys > 0 || (t.script.is_some() && t.sysbench.is_some()) {
        return Err(SourceError::new(
            "",
            format!(
                "target {:?} needs exactly one of `url`, `targets_file`, `script` or `sysbench`",
                t.name
            ),
        ));
    }
    if let Some(v) = &t.sysbench {
        if !t.env.is_empty() {
            return Err(SourceError::new(
                "env",
                "`env` is for a `script` target; a sysbench target takes its options in `sysbench`",
            ));
        }
        let args: Vec<String> = match v {
            serde_norway::Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
            serde_norway::Value::Sequence(items) => items
                .iter()
                .map(|i| scalar(i).ok_or(()))
                .collect::<Result<_, ()>>()
                .map_err(|_| {
                    SourceError::new("sysbench", "every option must be a string or a number")
                })?,
            _ => {
                return Err(SourceError::new(
                    "sysbench",
                    "expected the test and its options, as one string or a list",
                ));
            }
        };
        if args.is_empty() {
            return Err(SourceError::new(
                "sysbench",
                "names no test (e.g. `oltp_read_only --tables=1`)",
            ));
        }
        for a in &args {
            if matches!(a.as_str(), "prepare" | "run" | "cleanup")
                || a.starts_with("--threads")
                || a.starts_with("--num-threads")
                || a.starts_with("--time")
                || a.starts_with("--max-time")
            {
                return Err(SourceError::new(
                    "sysbench",
                    format!(
                        "{a:?} is set by the study (each step runs `run` with its threads and the plan's load.step); leave it out"
                    ),
                ));
            }
        }
        if let Some(opt) = crate::workload::literal_password(&args) {
            return Err(SourceError::new(
                "sysbench",
                format!(
                    "{opt} is written literally; write it as {opt}=${{NAME}} so the password is read from the environment and never stored"
                ),
            ));
        }
        return Ok((WorkloadPlan::Sysbench { args }, None));
    }
    let script = t.script.as_deref().unwrap_or_default();
    let path = base.join(script);
    if !path.is_file() {
        return Err(SourceError::new(
            "script",
            format!("cannot read {}: no such file", path.display()),
        ));
    }
    let mut env = Vec::new();
    let mut axis: EnvAxis = None;
    for (k, v) in &t.env {
        if let serde_norway::Value::Sequence(items) = v {
            if axis.is_some() {
                return Err(SourceError::new(
                    format!("env.{k}"),
                    "only one variable may be a list (the study's axis)",
                ));
            }
            let values = items
                .iter()
                .map(|i| i.as_u64().filter(|n| *n > 0))
                .collect::<Option<Vec<u64>>>()
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    SourceError::new(
                        format!("env.{k}"),
                        "an axis must be a non-empty list of whole numbers > 0",
                    )
                })?;
            axis = Some((k.clone(), values));
        } else {
            let v = scalar(v).ok_or_else(|| {
                SourceError::new(format!("env.{k}"), "expected a string or a number")
            })?;
            env.push((k.clone(), v));
        }
    }
    Ok((WorkloadPlan::Script { path, env }, axis))
}

fn scalar(v: &serde_norway::Value) -> Option<String> {
    match v {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads a targets file; `headers` (the plan's) come before each request's own.
fn read_targets_file(
    path: &Path,
    headers: &[(String, String)],
) -> Result<(Vec<RequestPlan>, Vec<Written>), SourceError> {
    let at = |m: String| SourceError::new("targets_file", m);
    let name = path.display().to_string();
    let f = std::fs::File::open(path)
        .map_err(|e| at(format!("cannot read targets file {name}: {e}")))?;
    let mut reader =
        TargetReader::new(std::io::BufReader::new(f), TargetFormat::Http, &name).unchecked_urls();
    if let Some(dir) = path.parent() {
        reader = reader.body_dir(dir);
    }
    let (mut requests, mut written) = (Vec::new(), Vec::new());
    while let Some(t) = reader.next() {
        let t = t.map_err(|e| at(e.to_string()))?;
        let line = reader.line();
        let body = match t.body.is_empty() {
            true => None,
            false => Some(String::from_utf8(t.body.to_vec()).map_err(|_| {
                at(format!(
                    "{name}:{line}: the body is not UTF-8 text (a study keeps bodies as text)"
                ))
            })?),
        };
        let mut h = headers.to_vec();
        h.extend(t.headers);
        requests.push(RequestPlan {
            method: t.method,
            url: t.url,
            headers: h,
            body,
        });
        written.push(Written::File {
            path: name.clone(),
            line,
        });
    }
    if requests.is_empty() {
        return Err(at(format!("{name}: no targets found")));
    }
    Ok((requests, written))
}

/// Checks a request as it will be sent: `url` and `headers` are the
/// template's with `{origin}` and `${NAME}` filled in. Messages show the
/// template (`shown`, its URL redacted), never the values filled in.
pub(crate) fn check_request(
    url: &str,
    headers: &[(String, String)],
    shown_url: &str,
) -> Result<(), String> {
    if let Err(m) = loadlab_engine::targets::check_url(url) {
        let sent = format!("{:?}", loadlab_engine::redact_url(url));
        return Err(m.replace(&sent, &format!("{shown_url:?}")));
    }
    for (k, v) in headers {
        if http::HeaderName::from_bytes(k.trim().as_bytes()).is_err() {
            return Err(format!("bad header name {k:?}"));
        }
        if http::HeaderValue::from_str(v.trim()).is_err() {
            return Err(format!("bad value for header {k:?}"));
        }
    }
    Ok(())
}

/// An HTTP method in a serialized plan: its name.
mod method_name {
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(m: &http::Method, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(m.as_str())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<http::Method, D::Error> {
        let name = String::deserialize(d)?;
        http::Method::from_bytes(name.as_bytes())
            .map_err(|_| D::Error::custom(format!("invalid method {name:?}")))
    }
}

/// Reads and parses the origin's recipes (with the origin's own parser), so
/// that a bad recipe is refused when the plan is loaded: an inline recipe at
/// its key (`recipes[1].stages[0].latency`), a recipe file at `recipe`.
/// `at` is the origin's key in the plan (`origin`, `origins.multi`), which
/// names the further bad recipes of a list.
pub(crate) fn resolve_origin(
    o: &RawOrigin,
    base: &Path,
    at: &str,
) -> Result<OriginPlan, SourceError> {
    match (&o.recipe, &o.recipes) {
        (Some(file), None) => {
            let path: PathBuf = base.join(file);
            let json = std::fs::read_to_string(&path).map_err(|e| {
                SourceError::new(
                    "recipe",
                    format!("cannot read recipe {}: {e}", path.display()),
                )
            })?;
            let recipes = loadlab_origin::parse_recipes(&json)
                .map_err(|e| SourceError::new("recipe", format!("{file}: {e}")))?;
            Ok(OriginPlan {
                recipes_json: json,
                source: file.clone(),
                recipes,
            })
        }
        (None, Some(v)) => {
            let json = serde_json::to_string_pretty(v)
                .map_err(|e| SourceError::new("recipes", format!("inline recipes: {e}")))?;
            let recipes = loadlab_origin::parse_recipes(&json).map_err(|e| {
                let mut message = one_recipe(&e);
                if !e.more.is_empty() {
                    let n = e.more.len();
                    message.push_str(&format!(
                        "; {n} more bad recipe{}: ",
                        if n == 1 { "" } else { "s" }
                    ));
                    let more: Vec<String> = e
                        .more
                        .iter()
                        .map(|m| format!("{at}.{}: {}", recipe_key(&m.field), one_recipe(m)))
                        .collect();
                    message.push_str(&more.join("; "));
                }
                SourceError::new(recipe_key(&e.field), message)
            })?;
            Ok(OriginPlan {
                recipes_json: json,
                source: "inline".into(),
                recipes,
            })
        }
        _ => Err(SourceError::new(
            "",
            "an origin needs exactly one of `recipe` (a file) or `recipes` (inline)",
        )),
    }
}

/// The key below the origin of a field the recipe parser names: `[1].stages[0]`
/// → `recipes[1].stages[0]`, `stages[0]` (a single recipe) →
/// `recipes.stages[0]`; its `(json)`, `(list)`, `(recipe)` mean the node itself.
fn recipe_key(field: &str) -> String {
    let kept: Vec<&str> = field.split('.').filter(|p| !p.starts_with('(')).collect();
    let path = kept.join(".");
    if path.is_empty() || path.starts_with('[') {
        format!("recipes{path}")
    } else {
        format!("recipes.{path}")
    }
}

/// One recipe error without its field: the reason, and the route in a list.
fn one_recipe(e: &loadlab_origin::RecipeError) -> String {
    match (e.recipe, &e.route) {
        (Some(_), Some(route)) => format!("{} (route {route:?})", e.reason),
        _ => e.reason.clone(),
    }
}
