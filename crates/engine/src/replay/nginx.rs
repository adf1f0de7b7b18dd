//! Access logs in nginx's `log_format` syntax: `$name` or `${name}`
//! variables between literal text. `combined` and `common` are the two
//! predefined formats (Apache's `combined` and `common` write the same
//! lines). A variable's value runs to the first occurrence of the literal
//! text that follows it; the last one runs to the end of the line, and
//! text after the last literal is ignored (fields appended to a format).

use bytes::Bytes;

use super::Record;
use super::time::{parse_clf, parse_iso, parse_seconds, parse_unix};

/// nginx's (and Apache's) `combined` log format.
pub const COMBINED: &str = r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent""#;
/// The `common` log format (combined without referrer and user agent).
pub const COMMON: &str =
    r#"$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent"#;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Lit(String),
    Var(String),
}

/// A compiled `log_format`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogFormat {
    parts: Vec<Part>,
}

const TIME_VARS: [&str; 3] = ["time_local", "time_iso8601", "msec"];

impl LogFormat {
    /// Compiles a `log_format` string (`combined` and `common` name the
    /// predefined ones).
    pub fn parse(spec: &str) -> Result<LogFormat, String> {
        let spec = match spec {
            "combined" => COMBINED,
            "common" => COMMON,
            s => s,
        };
        let mut parts = Vec::new();
        let mut lit = String::new();
        let mut rest = spec;
        while let Some(i) = rest.find('$') {
            lit.push_str(&rest[..i]);
            rest = &rest[i + 1..];
            let (name, after) = if let Some(r) = rest.strip_prefix('{') {
                let end = r.find('}').ok_or("a \"${\" without its \"}\"")?;
                (&r[..end], &r[end + 1..])
            } else {
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                (&rest[..end], &rest[end..])
            };
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Err(format!("bad variable name {name:?}"));
            }
            if !lit.is_empty() {
                parts.push(Part::Lit(std::mem::take(&mut lit)));
            } else if matches!(parts.last(), Some(Part::Var(_))) {
                return Err(format!(
                    "variable ${name} follows another with no text between them"
                ));
            }
            parts.push(Part::Var(name.to_string()));
            rest = after;
        }
        lit.push_str(rest);
        if !lit.is_empty() {
            parts.push(Part::Lit(lit));
        }
        let has = |v: &str| parts.iter().any(|p| *p == Part::Var(v.into()));
        if !TIME_VARS.iter().any(|v| has(v)) {
            return Err("the format has no time: give $time_local, $time_iso8601 or $msec".into());
        }
        if !has("request") && !(has("request_method") && (has("request_uri") || has("uri"))) {
            return Err(
                "the format has no request: give $request, or $request_method and $request_uri"
                    .into(),
            );
        }
        Ok(LogFormat { parts })
    }

    /// The variables of `line` by name, or `None` when it does not match.
    pub fn fields<'a>(&'a self, line: &'a str) -> Option<Vec<(&'a str, &'a str)>> {
        let mut out = Vec::new();
        let mut pos = 0;
        for (k, p) in self.parts.iter().enumerate() {
            let rest = &line[pos..];
            match p {
                Part::Lit(l) => {
                    if !rest.starts_with(l.as_str()) {
                        return None;
                    }
                    pos += l.len();
                }
                Part::Var(name) => {
                    let end = match self.parts.get(k + 1) {
                        Some(Part::Lit(l)) => rest.find(l.as_str())?,
                        _ => rest.len(),
                    };
                    out.push((name.as_str(), &rest[..end]));
                    pos += end;
                }
            }
        }
        Some(out)
    }

    /// One log line as a record (`base` completes nothing here: a record
    /// without a host keeps its path for the caller to complete).
    pub fn record(&self, line: &str) -> Result<Record, String> {
        let fields = self
            .fields(line)
            .ok_or("the line does not match the log format")?;
        let get = |n: &str| fields.iter().find(|(k, _)| *k == n).map(|(_, v)| *v);
        let (ts, resolution) = if let Some(t) = get("msec") {
            (parse_unix(t).ok_or(format!("bad $msec {t:?}"))?, 1_000_000)
        } else if let Some(t) = get("time_local") {
            (
                parse_clf(t).ok_or(format!("bad time {t:?}"))?,
                1_000_000_000,
            )
        } else {
            let t = get("time_iso8601").unwrap_or("");
            (
                parse_iso(t).ok_or(format!("bad time {t:?}"))?,
                1_000_000_000,
            )
        };
        // nginx logs a request when it ends: it began $request_time earlier.
        let took = get("request_time").and_then(parse_seconds).unwrap_or(0);
        let (method, uri) = match get("request") {
            Some(r) => {
                let r = unescape(r);
                let mut it = r.split(' ');
                let (m, u) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
                (m.to_string(), u.to_string())
            }
            None => {
                let m = get("request_method").unwrap_or("");
                let u = match (get("request_uri"), get("uri"), get("args")) {
                    (Some(u), _, _) => u.to_string(),
                    (None, Some(u), Some(a)) if !a.is_empty() && a != "-" => format!("{u}?{a}"),
                    (None, Some(u), _) => u.to_string(),
                    (None, None, _) => String::new(),
                };
                (m.to_string(), unescape(&u))
            }
        };
        let method = http::Method::from_bytes(method.as_bytes())
            .ok()
            .filter(|_| !method.is_empty() && method.bytes().all(|b| b.is_ascii_uppercase()))
            .ok_or(format!("bad request method {method:?}"))?;
        if !(uri.starts_with('/') || uri.starts_with("http://") || uri.starts_with("https://")) {
            return Err(format!("bad request target {uri:?}"));
        }
        let host = ["host", "http_host", "server_name"]
            .iter()
            .filter_map(|v| get(v))
            .find(|h| !h.is_empty() && *h != "-");
        let url = match host {
            Some(h) if uri.starts_with('/') => {
                let scheme = get("scheme").filter(|s| *s == "https").unwrap_or("http");
                format!("{scheme}://{h}{uri}")
            }
            _ => uri,
        };
        let mut headers = Vec::new();
        for (k, v) in &fields {
            if let Some(h) = k.strip_prefix("http_")
                && h != "host"
                && !v.is_empty()
                && *v != "-"
            {
                headers.push((h.replace('_', "-"), unescape(v)));
            }
        }
        let body = match get("request_body") {
            Some(b) if !b.is_empty() && b != "-" => Bytes::from(unescape_bytes(b)),
            _ => Bytes::new(),
        };
        Ok(Record {
            ts: ts - took,
            resolution,
            method,
            url,
            headers,
            body,
        })
    }
}

/// nginx writes `"`, `\` and bytes outside printable ASCII as `\xHH`.
fn unescape_bytes(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && b.get(i + 1) == Some(&b'x')
            && let Some(v) = b
                .get(i + 2..i + 4)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 4;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn unescape(s: &str) -> String {
    if !s.contains("\\x") {
        return s.to_string();
    }
    String::from_utf8_lossy(&unescape_bytes(s)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combined_line() {
        let f = LogFormat::parse("combined").unwrap();
        let r = f
            .record(r#"10.0.0.1 - bob [10/Oct/2000:13:55:36 -0700] "GET /a?b=1 HTTP/1.1" 200 2326 "http://x.test/" "Mozilla/5.0 (X11)""#)
            .unwrap();
        assert_eq!(r.method, http::Method::GET);
        assert_eq!(r.url, "/a?b=1");
        assert_eq!(r.resolution, 1_000_000_000);
        assert_eq!(
            r.headers,
            vec![
                ("referer".to_string(), "http://x.test/".to_string()),
                ("user-agent".to_string(), "Mozilla/5.0 (X11)".to_string())
            ]
        );
        let c = LogFormat::parse("common").unwrap();
        assert!(
            c.record(r#"::1 - - [10/Oct/2000:13:55:36 +0000] "POST /p HTTP/1.0" 201 -"#)
                .is_ok()
        );
        assert!(c.record("garbage").is_err());
    }

    #[test]
    fn custom_format() {
        let f = LogFormat::parse(r#"$msec $scheme $host "$request" $request_time $http_x_api_key"#)
            .unwrap();
        let r = f
            .record(r#"971211336.500 https api.test "PUT /v1/x HTTP/2.0" 0.250 k\x22ey"#)
            .unwrap();
        assert_eq!(r.url, "https://api.test/v1/x");
        assert_eq!(r.ts, 971_211_336_250_000_000);
        assert_eq!(r.headers, vec![("x-api-key".into(), "k\"ey".into())]);
        assert!(LogFormat::parse("$status $request").is_err());
        assert!(LogFormat::parse("$msec$request").is_err());
    }
}
