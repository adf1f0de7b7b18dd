//! A HAR 1.2 document as `loadlab import har` reads it: its pages and its
//! entries' requests and responses, which entries are static assets, and
//! the think times between them.

use serde_json::Value;

use loadlab_engine::replay::time::parse_iso;

/// One HAR entry, as far as the converters need it.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    /// Its index in `log.entries` (from 0), kept after filtering.
    pub index: usize,
    /// `startedDateTime`, ns since the Unix epoch.
    pub started: i128,
    /// `time`: the whole exchange, in ms (0 when not recorded).
    pub time_ms: f64,
    pub pageref: Option<String>,
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
    pub status: u16,
    /// The response's MIME type (`response.content.mimeType`), lower case.
    pub mime: String,
    /// The response body's text, when recorded as text.
    pub response: Option<String>,
}

/// A HAR read: its pages (id, title) and entries in `startedDateTime` order.
#[derive(Debug, Default)]
pub struct Har {
    pub pages: Vec<(String, String)>,
    pub entries: Vec<Entry>,
}

/// Headers a client sets itself, or that belong to one connection only.
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

/// Reads a HAR document; the error says what is wrong, without the path.
pub fn parse(doc: &[u8]) -> Result<Har, String> {
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
    let mut har = Har::default();
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
    for (i, e) in list.iter().enumerate() {
        har.entries
            .push(entry(i, e).map_err(|r| format!("log.entries[{i}]: {r}"))?);
    }
    har.entries.sort_by_key(|e| (e.started, e.index));
    Ok(har)
}

fn str_at(v: &Value, path: &[&str]) -> Option<String> {
    let mut v = v;
    for k in path {
        v = v.get(k)?;
    }
    v.as_str().map(str::to_string)
}

fn entry(index: usize, e: &Value) -> Result<Entry, String> {
    let started = str_at(e, &["startedDateTime"]).ok_or("no startedDateTime")?;
    let started = parse_iso(&started).ok_or(format!("bad startedDateTime {started:?}"))?;
    let req = e.get("request").ok_or("no request")?;
    let method = str_at(req, &["method"]).ok_or("no request.method")?;
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
        let lower = k.to_ascii_lowercase();
        if k.starts_with(':') || HOP_BY_HOP.contains(&lower.as_str()) {
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
    Ok(Entry {
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

/// Extensions of static assets (the path's, before any query).
const STATIC_EXT: [&str; 17] = [
    "css", "js", "mjs", "map", "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico", "bmp",
    "woff", "woff2", "ttf", "otf",
];

/// Whether an entry fetched a static asset: an image, style sheet, script
/// or font, by its response's MIME type or its URL's extension.
pub fn is_static(e: &Entry) -> bool {
    let m = e.mime.split(';').next().unwrap_or("").trim();
    if m.starts_with("image/")
        || m.starts_with("font/")
        || m == "text/css"
        || m.contains("javascript")
        || m.contains("ecmascript")
        || m == "application/font-woff"
        || m == "application/vnd.ms-fontobject"
    {
        return true;
    }
    let path = e.url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    last.rsplit_once('.').is_some_and(|(_, ext)| {
        STATIC_EXT.contains(&ext.to_ascii_lowercase().as_str()) || ext.eq_ignore_ascii_case("eot")
    })
}

/// Think time before entry `i`: the gap from the end of the latest
/// exchange before it to its start, in seconds. Gaps under 0.1 s are a
/// browser loading in parallel (none); long ones are capped at 10 s.
pub fn think_times(entries: &[Entry]) -> Vec<f64> {
    let mut end = i128::MIN;
    entries
        .iter()
        .map(|e| {
            let gap = if end == i128::MIN {
                0.0
            } else {
                (e.started - end) as f64 / 1e9
            };
            end = end.max(e.started + (e.time_ms * 1e6) as i128);
            if gap < 0.1 {
                0.0
            } else {
                (gap.min(10.0) * 10.0).round() / 10.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(url: &str, mime: &str) -> Entry {
        Entry {
            url: url.into(),
            mime: mime.into(),
            ..Entry::default()
        }
    }

    #[test]
    fn static_assets_by_mime_type_or_extension() {
        for (url, mime) in [
            ("http://h/app.css", "text/css"),
            ("http://h/app.js?v=3", ""),
            ("http://h/x", "application/javascript; charset=utf-8"),
            ("http://h/logo", "image/png"),
            ("http://h/f.woff2", "application/octet-stream"),
            ("http://h/favicon.ico", "text/html"),
        ] {
            assert!(is_static(&at(url, mime)), "{url} {mime}");
        }
        for (url, mime) in [
            ("http://h/", "text/html"),
            ("http://h/api/items.json", "application/json"),
            ("http://h/login", ""),
            ("http://h/a.css/edit", "text/html"),
        ] {
            assert!(!is_static(&at(url, mime)), "{url} {mime}");
        }
    }

    #[test]
    fn think_times_are_the_idle_gaps_capped() {
        let e = |ms: i128, time_ms: f64| Entry {
            started: ms * 1_000_000,
            time_ms,
            ..Entry::default()
        };
        // Parallel loads (no gap), 1.5 s of reading, then 60 s of idling.
        let es = [e(0, 50.0), e(20, 30.0), e(1550, 10.0), e(61_560, 5.0)];
        assert_eq!(think_times(&es), vec![0.0, 0.0, 1.5, 10.0]);
    }

    #[test]
    fn a_har_without_entries_or_not_json_is_refused_with_the_reason() {
        assert_eq!(
            parse(br#"{"log":{"entries":[]}}"#).unwrap_err(),
            "the HAR has no entries (log.entries is empty)"
        );
        assert!(
            parse(b"nope")
                .unwrap_err()
                .starts_with("not a HAR document: ")
        );
        assert_eq!(
            parse(br#"{"log":{"entries":[{"startedDateTime":"x"}]}}"#).unwrap_err(),
            "log.entries[0]: bad startedDateTime \"x\""
        );
    }
}
