//! HAR 1.2 (`log.entries[]`), the one reader of loadlab: `attack -replay`
//! takes each entry's `startedDateTime`, method, URL, headers and
//! `postData.text` as a [`Record`]; `loadlab import har` takes the pages
//! and every [`HarEntry`] with its response. A HAR is one JSON document:
//! it is read whole (browsers' recordings are megabytes, not gigabytes).

use bytes::Bytes;
use serde_json::Value;

use super::Record;
use super::time::parse_iso;

/// Headers a client sets itself, or that belong to one connection only
/// (HTTP/2 pseudo-headers, starting with `:`, are left out too).
const HOP_BY_HOP: [&str; 10] = [
    "host",
    "content-length",
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
];

/// One HAR entry: its request, and what the converters need of its
/// response.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HarEntry {
    /// Its index in `log.entries` (from 0).
    pub index: usize,
    /// `startedDateTime`, ns since the Unix epoch.
    pub started: i128,
    /// `time`: the whole exchange, in ms (0 when not recorded).
    pub time_ms: f64,
    pub pageref: Option<String>,
    /// An HTTP method token.
    pub method: String,
    /// An `http://` or `https://` URL.
    pub url: String,
    /// The request's headers, without the hop-by-hop ones.
    pub headers: Vec<(String, String)>,
    /// `postData.text`.
    pub body: Option<String>,
    pub status: u16,
    /// The response's MIME type (`response.content.mimeType`), lower case.
    pub mime: String,
    /// The response body's text, when recorded as text.
    pub response: Option<String>,
}

/// A HAR document read: its pages (id, title), and each entry in the
/// document's order, or its index and why it is not one.
#[derive(Debug, Default)]
pub struct HarDoc {
    pub pages: Vec<(String, String)>,
    pub entries: Vec<Result<HarEntry, (usize, String)>>,
}

/// Reads a HAR document; the error says what is wrong with the document
/// as a whole (not JSON, no entries), without the file's name.
pub fn read(doc: &[u8]) -> Result<HarDoc, String> {
    let v: Value = serde_json::from_slice(doc).map_err(|e| format!("not a HAR document: {e}"))?;
    let log = v
        .get("log")
        .ok_or("not a HAR document: no \"log\" object")?;
    let list = log
        .get("entries")
        .and_then(Value::as_array)
        .ok_or("not a HAR document: no log.entries array")?;
    if list.is_empty() {
        return Err("the HAR has no entries (log.entries is empty)".into());
    }
    let mut har = HarDoc::default();
    for p in log
        .get("pages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let id = str_at(p, &["id"]).unwrap_or_default();
        let title = str_at(p, &["title"]).unwrap_or_else(|| id.clone());
        har.pages.push((id, title));
    }
    har.entries = list
        .iter()
        .enumerate()
        .map(|(i, e)| entry(i, e).map_err(|r| (i, r)))
        .collect();
    Ok(har)
}

/// An entry read: a record, or its index (from 0) and why it is not one.
pub(super) type Entry = Result<Record, (usize, String)>;

/// The entries of a HAR document as replay records.
pub(super) fn entries(doc: &[u8]) -> Result<Vec<Entry>, String> {
    Ok(read(doc)?
        .entries
        .into_iter()
        .map(|e| {
            let e = e?;
            let method = super::method(&e.method, "request.method").map_err(|r| (e.index, r))?;
            Ok(Record {
                ts: e.started,
                resolution: 0,
                method,
                url: e.url,
                headers: e.headers,
                body: e.body.map_or(Bytes::new(), Bytes::from),
            })
        })
        .collect())
}

fn str_at(v: &Value, path: &[&str]) -> Option<String> {
    let mut v = v;
    for k in path {
        v = v.get(k)?;
    }
    v.as_str().map(str::to_string)
}

fn entry(index: usize, e: &Value) -> Result<HarEntry, String> {
    let started = str_at(e, &["startedDateTime"]).ok_or("no startedDateTime")?;
    let started = parse_iso(&started).ok_or(format!("bad startedDateTime {started:?}"))?;
    let req = e.get("request").ok_or("no request")?;
    let method = str_at(req, &["method"]).unwrap_or_default();
    super::method(&method, "request.method")?;
    let url = str_at(req, &["url"]).ok_or("no request.url")?;
    if !url.starts_with("http://") && !url.starts_with("https://") {
        return Err(format!("request.url {url:?} is not an http(s) URL"));
    }
    let mut headers = Vec::new();
    for h in req
        .get("headers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(k), Some(v)) = (str_at(h, &["name"]), str_at(h, &["value"])) else {
            return Err("a request header without a string name and value".into());
        };
        if k.starts_with(':') || HOP_BY_HOP.iter().any(|s| k.eq_ignore_ascii_case(s)) {
            continue;
        }
        headers.push((k, v));
    }
    let resp = e.get("response");
    let content = resp.and_then(|r| r.get("content"));
    let mime = content
        .and_then(|c| str_at(c, &["mimeType"]))
        .unwrap_or_default()
        .to_ascii_lowercase();
    let base64 = content.and_then(|c| str_at(c, &["encoding"])).as_deref() == Some("base64");
    Ok(HarEntry {
        index,
        started,
        time_ms: e
            .get("time")
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            .max(0.0),
        pageref: str_at(e, &["pageref"]),
        method,
        url,
        headers,
        body: str_at(req, &["postData", "text"]),
        status: resp
            .and_then(|r| r.get("status"))
            .and_then(Value::as_u64)
            .unwrap_or(0) as u16,
        mime,
        response: content
            .and_then(|c| str_at(c, &["text"]))
            .filter(|_| !base64),
    })
}
