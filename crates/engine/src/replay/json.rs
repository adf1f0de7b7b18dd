//! vegeta's JSON targets, one object a line, with a `timestamp` field:
//! `{"timestamp":"2024-05-01T10:00:00.250Z","method":"GET","url":"http://…",
//! "header":{"Name":["v"]},"body":"base64"}`. The timestamp is RFC 3339 or
//! a number of Unix seconds.

use base64::Engine as _;
use bytes::Bytes;
use serde_json::Value;

use super::Record;
use super::time::{parse_iso, parse_unix};

/// One line as a record.
pub fn record(line: &str) -> Result<Record, String> {
    let v: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON target: {e}"))?;
    let o = v.as_object().ok_or("not a JSON object")?;
    let ts = match o.get("timestamp") {
        Some(Value::String(s)) => parse_iso(s).ok_or(format!("bad timestamp {s:?}"))?,
        Some(Value::Number(n)) => parse_unix(&n.to_string()).ok_or(format!("bad timestamp {n}"))?,
        _ => return Err("no \"timestamp\" field (RFC 3339 or Unix seconds)".into()),
    };
    let method = o.get("method").and_then(Value::as_str).unwrap_or("");
    let method = super::method(method, "method")?;
    let url = o
        .get("url")
        .and_then(Value::as_str)
        .ok_or("no \"url\" field")?
        .to_string();
    let mut headers = Vec::new();
    if let Some(h) = o.get("header") {
        let h = h.as_object().ok_or("\"header\" must be an object")?;
        for (k, vs) in h {
            for v in vs.as_array().ok_or("header values must be arrays")? {
                let v = v.as_str().ok_or("header values must be strings")?;
                headers.push((k.clone(), v.to_string()));
            }
        }
    }
    let body = match o.get("body") {
        None | Some(Value::Null) => Bytes::new(),
        Some(Value::String(b)) => base64::engine::general_purpose::STANDARD
            .decode(b)
            .map(Bytes::from)
            .map_err(|e| format!("\"body\" is not base64: {e}"))?,
        Some(_) => return Err("\"body\" must be a base64 string".into()),
    };
    Ok(Record {
        ts,
        resolution: 0,
        method,
        url,
        headers,
        body,
    })
}
