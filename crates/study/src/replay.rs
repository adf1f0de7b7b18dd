//! A plan target that replays a recorded log (`replay: FILE`): the log's
//! format, where its requests go (`base`, `rewrite:`), its speed, and the
//! engine's replay of one run.
//!
//! A replay target steps along the plan's `load.speeds` (×1, ×2, ×4: the
//! log's own timing, twice and four times as fast), or runs at a fixed
//! `speed` in every step. A leaf below [`crate::plan`]: it imports nothing
//! from the plan.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use loadlab_engine::TargetSource;
use loadlab_engine::replay::{
    Item, Replay, ReplayFormat, ReplayOptions, Rewrite, SharedStats, detect_file, file_opener,
};
use serde::{Deserialize, Serialize};

/// A target's `rewrite:` block as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRewrite {
    /// Recorded host (or `host:port`) → `host:port` or `scheme://host:port`.
    #[serde(default)]
    pub(crate) hosts: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) drop_headers: Vec<String>,
    #[serde(default)]
    pub(crate) set_headers: BTreeMap<String, String>,
}

/// A target's replay keys as written.
pub(crate) struct RawReplay<'a> {
    pub(crate) file: &'a str,
    pub(crate) format: Option<&'a str>,
    pub(crate) log_format: Option<&'a str>,
    pub(crate) base: Option<&'a str>,
    pub(crate) speed: Option<f64>,
    pub(crate) looped: bool,
    pub(crate) strict: bool,
    pub(crate) rewrite: Option<&'a RawRewrite>,
}

/// What a replay target sends.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplayPlan {
    /// The log as the plan names it (relative to the plan's folder).
    pub file: String,
    /// The log's path.
    pub path: PathBuf,
    /// The format given (`combined`, `har`, …, or `log:FORMAT` in nginx
    /// syntax); `None`: detected from the log's first line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// `scheme://host:port` for logs that record paths only; may be
    /// `{origin}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// A fixed speed for every step; `None`: the step's level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<f64>,
    /// Start the log again at its end (until the step ends).
    #[serde(default)]
    pub looped: bool,
    /// A malformed line ends the run instead of being skipped.
    #[serde(default)]
    pub strict: bool,
    /// Recorded host → where to send it (may hold `{origin}`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drop_headers: Vec<String>,
    /// Headers set on every request (values may hold `${NAME}`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub set_headers: Vec<(String, String)>,
}

/// A problem at a key below the target (`replay`, `rewrite.set_headers`).
pub(crate) type KeyError = (String, String);

fn key_err(key: &str, message: impl Into<String>) -> KeyError {
    (key.to_string(), message.into())
}

/// Checks a replay target and reads the first records of its log: the
/// format is known, and a log that records no host has a `base`.
pub(crate) fn resolve(r: &RawReplay, dir: &Path) -> Result<ReplayPlan, KeyError> {
    let path = dir.join(r.file);
    let format = match (r.format, r.log_format) {
        (Some(_), Some(_)) => {
            return Err(key_err(
                "log_format",
                "give `format` or `log_format`, not both",
            ));
        }
        (Some(f), None) => {
            if f == "results" {
                return Err(key_err("format", results_message()));
            }
            ReplayFormat::parse(f).map_err(|m| key_err("format", m))?;
            Some(f.to_string())
        }
        (None, Some(lf)) => {
            let f = format!("log:{lf}");
            ReplayFormat::parse(&f).map_err(|m| key_err("log_format", m))?;
            Some(f)
        }
        (None, None) => None,
    };
    if let Some(s) = r.speed
        && !(s.is_finite() && s > 0.0)
    {
        return Err(key_err(
            "speed",
            format!("{s} is not a speed: expected a number greater than 0 (2 = twice as fast)"),
        ));
    }
    let rw = r.rewrite.map_or_else(RawRewrite::default, |w| RawRewrite {
        hosts: w.hosts.clone(),
        drop_headers: w.drop_headers.clone(),
        set_headers: w.set_headers.clone(),
    });
    for (k, v) in &rw.hosts {
        if k.trim().is_empty() || v.trim().is_empty() || k.contains('/') {
            return Err(key_err(
                &format!("rewrite.hosts.{k}"),
                "expected a recorded host (or host:port) and where to send it: host:port, or scheme://host:port",
            ));
        }
    }
    for name in rw.drop_headers.iter().chain(rw.set_headers.keys()) {
        if http::HeaderName::from_bytes(name.trim().as_bytes()).is_err() {
            return Err(key_err("rewrite", format!("bad header name {name:?}")));
        }
    }
    let plan = ReplayPlan {
        file: r.file.to_string(),
        path,
        format,
        base: r.base.map(|b| b.trim_end_matches('/').to_string()),
        speed: r.speed,
        looped: r.looped,
        strict: r.strict,
        hosts: rw.hosts.into_iter().collect(),
        drop_headers: rw.drop_headers,
        set_headers: rw.set_headers.into_iter().collect(),
    };
    check_log(&plan).map_err(|m| key_err("replay", m))?;
    Ok(plan)
}

fn results_message() -> String {
    "a results file replays with `loadlab attack -replay`; a study replays access logs, HAR and JSON targets".into()
}

/// The log's format: the plan's, else detected.
fn format_of(p: &ReplayPlan) -> Result<ReplayFormat, String> {
    if let Some(f) = &p.format {
        return ReplayFormat::parse(f);
    }
    let head = loadlab_engine::replay::head(&p.path)
        .map_err(|e| format!("cannot read {}: {e}", p.path.display()))?;
    if head.starts_with(&loadlab_metrics::codec::MAGIC) {
        return Err(format!("{}: {}", p.file, results_message()));
    }
    detect_file(&p.path)
        .map_err(|e| format!("cannot read {}: {e}", p.path.display()))?
        .ok_or_else(|| {
            format!(
                "{}: cannot tell the log's format from its first line: give `format` (combined, common, har, json, alb or cloudfront) or `log_format` (nginx syntax)",
                p.file
            )
        })
}

/// Most lines read at load to find the log's first request.
const LOOK_AHEAD: usize = 1000;

/// Reads the log up to its first request: one there is, and its URL can
/// be sent (a path needs `base`).
fn check_log(p: &ReplayPlan) -> Result<(), String> {
    let format = format_of(p)?;
    let mut open = file_opener(p.path.clone(), p.file.clone(), format);
    let source = open().map_err(|e| e.to_string())?;
    let mut first_bad = None;
    for item in source.take(LOOK_AHEAD) {
        match item.map_err(|e| e.to_string())? {
            Item::Record(_, rec) => {
                if rec.url.starts_with('/') && p.base.is_none() {
                    return Err(format!(
                        "{} records no host (its first request is {} {}): give `base: \"{{origin}}\"` or `base: http://HOST:PORT`",
                        p.file, rec.method, rec.url
                    ));
                }
                return Ok(());
            }
            Item::Malformed(line, why) => {
                first_bad.get_or_insert(format!("{}:{line}: {why}", p.file));
            }
        }
    }
    Err(match first_bad {
        Some(b) => format!(
            "no request in the first lines of {}; the first: {b}",
            p.file
        ),
        None => format!("{}: no request to replay", p.file),
    })
}

impl ReplayPlan {
    /// The strings in which `${NAME}` references may appear.
    pub fn values(&self) -> Vec<(String, &str)> {
        let mut out: Vec<(String, &str)> = Vec::new();
        if let Some(b) = &self.base {
            out.push(("base".into(), b));
        }
        for (k, v) in &self.hosts {
            out.push((format!("rewrite.hosts.{k}"), v));
        }
        for (k, v) in &self.set_headers {
            out.push((format!("header {k}"), v));
        }
        out
    }

    /// The speed of a run at the step's `level`.
    pub fn speed_at(&self, level: u64) -> f64 {
        self.speed.unwrap_or(level as f64)
    }

    /// The engine's replay of one run at `speed`; `expand` fills in
    /// `${NAME}` and `{origin}` references.
    pub fn source(
        &self,
        name: &str,
        speed: f64,
        expand: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<(TargetSource, SharedStats), String> {
        let format = format_of(self)?;
        let mut opts = ReplayOptions::new(name);
        opts.speed = speed;
        opts.looped = self.looped;
        opts.strict = self.strict;
        opts.base = self.base.as_deref().map(expand).transpose()?;
        opts.rewrite = Rewrite {
            hosts: self
                .hosts
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, String>>()?,
            drop_headers: self.drop_headers.clone(),
            set_headers: self
                .set_headers
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, String>>()?,
        };
        let stats: SharedStats = Arc::new(Mutex::new(Default::default()));
        let open = file_opener(self.path.clone(), name.to_string(), format);
        let replay = Replay::new(opts, open, stats.clone());
        Ok((TargetSource::Replay(Box::new(replay)), stats))
    }

    /// The `loadlab attack` flags of a run at `speed` (`None`: `X`), as
    /// written in the plan (values already redacted by the caller).
    pub fn flags(&self, speed: Option<f64>) -> Vec<String> {
        let mut f = vec![format!("-replay={}", self.file)];
        match &self.format {
            Some(lf) if lf.starts_with("log:") => f.push(format!("-log-format={}", &lf[4..])),
            Some(name) => f.push(format!("-replay-format={name}")),
            None => {}
        }
        f.push(format!(
            "-speed={}",
            speed.map_or("X".to_string(), |s| s.to_string())
        ));
        if self.looped {
            f.push("-loop".into());
        }
        if self.strict {
            f.push("-strict".into());
        }
        if let Some(b) = &self.base {
            f.push(format!("-replay-base={b}"));
        }
        for (k, v) in &self.hosts {
            f.push(format!("-rewrite-host={k}={v}"));
        }
        for h in &self.drop_headers {
            f.push(format!("-drop-header={h}"));
        }
        for (k, v) in &self.set_headers {
            f.push(format!("-set-header={k}: {v}"));
        }
        f
    }
}
