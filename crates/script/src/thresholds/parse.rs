//! Thresholds as the options give them: which metric (and tag filter)
//! each is on, its expression, and `abortOnFail`.

use crate::ScriptError;
use crate::config::values::bad;

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
