//! Thresholds as the options give them: which metric (and tag filter)
//! each is on, its expression, and `abortOnFail`.

use crate::ScriptError;
use serde_json::Value;

/// A threshold expression on one metric (or a tag-filtered submetric).
#[derive(Debug, Clone)]
pub struct Threshold {
    /// As written in the options: `http_req_duration{endpoint:publish}`.
    pub key: String,
    pub metric: String,
    pub filter: Vec<(String, String)>,
    pub source: String,
    pub abort_on_fail: bool,
    /// `delayAbortEval`: `abortOnFail` is not checked before this long
    /// into the test, as in k6.
    pub delay_abort: std::time::Duration,
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

fn bad(msg: impl Into<String>) -> ScriptError {
    ScriptError::Options(msg.into())
}

/// A metric with a tag filter: `(metric, [(tag, value)])`.
pub type Submetric = (String, Vec<(String, String)>);

/// The thresholds of `options.thresholds` (`option`; none under
/// `--no-thresholds`), and the tag-filtered metrics they name (which
/// show in the summary either way).
pub(crate) fn read(
    option: Option<&Value>,
    no_thresholds: bool,
) -> Result<(Vec<Threshold>, Vec<Submetric>), ScriptError> {
    let mut submetrics = Vec::new();
    if let Some(Value::Object(t)) = option {
        for key in t.keys() {
            let (metric, filter) = parse_metric_key(key)?;
            if !filter.is_empty() && !submetrics.contains(&(metric.clone(), filter.clone())) {
                submetrics.push((metric, filter));
            }
        }
    }
    let mut thresholds = Vec::new();
    if !no_thresholds && let Some(Value::Object(t)) = option {
        for (key, v) in t {
            let (metric, filter) = parse_metric_key(key)?;
            let list: Vec<&Value> = match v {
                Value::Array(a) => a.iter().collect(),
                other => vec![other],
            };
            for item in list {
                let (source, abort, delay) = match item {
                    Value::String(s) => (s.clone(), false, std::time::Duration::ZERO),
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
                        delay_abort(key, m.get("delayAbortEval"))?,
                    ),
                    _ => {
                        return Err(bad(format!(
                            "thresholds[{key:?}]: {item} is not a threshold"
                        )));
                    }
                };
                crate::registry::parse_threshold(&source)
                    .map_err(|e| bad(format!("thresholds[{key:?}]: {e}")))?;
                thresholds.push(Threshold {
                    key: key.clone(),
                    metric: metric.clone(),
                    filter: filter.clone(),
                    source,
                    abort_on_fail: abort,
                    delay_abort: delay,
                });
            }
        }
    }
    Ok((thresholds, submetrics))
}

/// A threshold's `delayAbortEval` (`"10s"`, as k6 reads it); none: 0.
fn delay_abort(key: &str, v: Option<&Value>) -> Result<std::time::Duration, ScriptError> {
    match v {
        None | Some(Value::Null) => Ok(std::time::Duration::ZERO),
        Some(Value::String(s)) => crate::config::parse_duration_str(s).ok_or_else(|| {
            bad(format!(
                "thresholds[{key:?}]: delayAbortEval {s:?} is not a duration"
            ))
        }),
        Some(other) => Err(bad(format!(
            "thresholds[{key:?}]: delayAbortEval {other} is not a duration"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_key_filters() {
        let (m, f) = parse_metric_key("http_req_duration{endpoint:publish}").unwrap();
        assert_eq!(m, "http_req_duration");
        assert_eq!(f, vec![("endpoint".into(), "publish".into())]);
    }
}
