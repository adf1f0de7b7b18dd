//! HAR 1.2 (`log.entries[]`): each entry's `startedDateTime`, request
//! method, URL, headers and `postData.text`. A HAR is one JSON document: it
//! is read whole (browsers' recordings are megabytes, not gigabytes).

use bytes::Bytes;
use serde_json::Value;

use super::Record;
use super::time::parse_iso;

/// Headers a client sets itself (HTTP/2 pseudo-headers start with `:`).
const SKIPPED: [&str; 6] = [
    "host",
    "content-length",
    "connection",
    "transfer-encoding",
    "keep-alive",
    "upgrade",
];

/// An entry read: a record, or its index (from 0) and why it is not one.
pub type Entry = Result<Record, (usize, String)>;

/// The entries of a HAR document, or why the document is not a HAR.
pub fn entries(doc: &[u8]) -> Result<Vec<Entry>, String> {
    let v: Value = serde_json::from_slice(doc).map_err(|e| format!("not a HAR document: {e}"))?;
    let entries = v
        .get("log")
        .and_then(|l| l.get("entries"))
        .and_then(Value::as_array)
        .ok_or("not a HAR document: no log.entries array")?;
    if entries.is_empty() {
        return Err("the HAR has no entries (log.entries is empty)".into());
    }
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, e)| entry(e).map_err(|r| (i, r)))
        .collect())
}

fn entry(e: &Value) -> Result<Record, String> {
    let started = e
        .get("startedDateTime")
        .and_then(Value::as_str)
        .ok_or("no startedDateTime")?;
    let ts = parse_iso(started).ok_or(format!("bad startedDateTime {started:?}"))?;
    let req = e.get("request").ok_or("no request")?;
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let method = super::method(method, "request.method")?;
    let url = req
        .get("url")
        .and_then(Value::as_str)
        .ok_or("no request.url")?
        .to_string();
    let mut headers = Vec::new();
    for h in req
        .get("headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(k), Some(v)) = (
            h.get("name").and_then(Value::as_str),
            h.get("value").and_then(Value::as_str),
        ) else {
            return Err("a request header without a string name and value".into());
        };
        if k.starts_with(':') || SKIPPED.iter().any(|s| k.eq_ignore_ascii_case(s)) {
            continue;
        }
        headers.push((k.to_string(), v.to_string()));
    }
    let body = req
        .get("postData")
        .and_then(|p| p.get("text"))
        .and_then(Value::as_str)
        .map_or(Bytes::new(), |t| Bytes::from(t.to_string()));
    Ok(Record {
        ts,
        resolution: 0,
        method,
        url,
        headers,
        body,
    })
}
