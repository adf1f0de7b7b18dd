//! Where a plan's requests and recipes come from: inline values, vegeta
//! `http` targets files, recipe files. Paths are relative to the plan's folder.
//!
//! A leaf below [`crate::plan`]: it defines the YAML shape of a target and of
//! an origin and what they resolve to, and imports nothing from the plan.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

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
}

/// An origin to start in-process; `recipes_json` is handed to the origin's parser.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OriginPlan {
    pub recipes_json: String,
    /// Where the recipe came from: a file path or "inline".
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetPlan {
    pub name: String,
    pub requests: Vec<RequestPlan>,
}

/// One request template. `url` may contain `{origin}`, replaced by the
/// in-process origin's base URL (`http://127.0.0.1:PORT`) at run time; `url`
/// and header values may contain `${NAME}`, expanded from [`Plan::env`](crate::Plan::env).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RequestPlan {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

pub(crate) fn resolve_target(t: &RawTarget, base: &Path) -> Result<TargetPlan, String> {
    let headers: Vec<(String, String)> = t
        .headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let requests = match (&t.url, &t.targets_file) {
        (Some(url), None) => {
            let method = t
                .method
                .clone()
                .unwrap_or_else(|| "GET".into())
                .to_ascii_uppercase();
            http::Method::from_bytes(method.as_bytes())
                .map_err(|_| format!("invalid method {method:?}"))?;
            vec![RequestPlan {
                method,
                url: url.clone(),
                headers,
                body: t.body.clone(),
            }]
        }
        (None, Some(file)) => {
            let path = base.join(file);
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read targets file {}: {e}", path.display()))?;
            parse_http_targets(&text, &headers, &path)?
        }
        _ => {
            return Err(format!(
                "target {:?} needs exactly one of `url` or `targets_file`",
                t.name
            ));
        }
    };
    Ok(TargetPlan {
        name: t.name.clone(),
        requests,
    })
}

/// The vegeta `http` targets format: `METHOD URL`, header lines, optional
/// `@body-file`, blank line between targets, `#` comments.
fn parse_http_targets(
    text: &str,
    headers: &[(String, String)],
    path: &Path,
) -> Result<Vec<RequestPlan>, String> {
    let mut out: Vec<RequestPlan> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let here = || format!("{}:{}", path.display(), i + 1);
        if let Some(body) = line.strip_prefix('@') {
            let bp = path.parent().unwrap_or(Path::new(".")).join(body);
            let b = std::fs::read_to_string(&bp)
                .map_err(|e| format!("{}: cannot read body {}: {e}", here(), bp.display()))?;
            out.last_mut()
                .ok_or_else(|| format!("{}: body before any target", here()))?
                .body = Some(b);
        } else if let Some((m, u)) = line.split_once(' ')
            && http::Method::from_bytes(m.as_bytes()).is_ok()
            && m.chars().all(|c| c.is_ascii_uppercase())
            && u.trim().contains("://")
        {
            out.push(RequestPlan {
                method: m.into(),
                url: u.trim().into(),
                headers: headers.to_vec(),
                body: None,
            });
        } else if let Some((k, v)) = line.split_once(':') {
            out.last_mut()
                .ok_or_else(|| format!("{}: header before any target", here()))?
                .headers
                .push((k.trim().into(), v.trim().into()));
        } else {
            return Err(format!(
                "{}: expected `METHOD URL`, a header or @body",
                here()
            ));
        }
    }
    if out.is_empty() {
        return Err(format!("{}: no targets", path.display()));
    }
    Ok(out)
}

pub(crate) fn resolve_origin(o: &RawOrigin, base: &Path) -> Result<OriginPlan, String> {
    match (&o.recipe, &o.recipes) {
        (Some(file), None) => {
            let path: PathBuf = base.join(file);
            let json = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read recipe {}: {e}", path.display()))?;
            Ok(OriginPlan {
                recipes_json: json,
                source: file.clone(),
            })
        }
        (None, Some(v)) => {
            let json =
                serde_json::to_string_pretty(v).map_err(|e| format!("inline recipes: {e}"))?;
            Ok(OriginPlan {
                recipes_json: json,
                source: "inline".into(),
            })
        }
        _ => Err("origin needs exactly one of `recipe` (a file) or `recipes` (inline)".into()),
    }
}
