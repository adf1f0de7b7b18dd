//! vegeta's target formats.
//!
//! * `http`: `METHOD URL`, then `Name: value` header lines, then an optional
//!   `@path` body file; `#` starts a comment; a target ends at a blank line, at
//!   its `@body` line, or where the next line starts with an HTTP method.
//! * `json`: one object per line: `{"method","url","body" (base64),"header": {"Name": ["v", ...]}}`.
//!
//! Both read line by line so `-lazy` can stream targets from a generator.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::BufRead;
use std::path::PathBuf;

use base64::Engine as _;
use bytes::Bytes;

/// One request to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub method: http::Method,
    /// Absolute `http://` or `https://` URL.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

impl Target {
    /// A target without headers or body.
    pub fn new(method: http::Method, url: impl Into<String>) -> Target {
        Target {
            method,
            url: url.into(),
            headers: Vec::new(),
            body: Bytes::new(),
        }
    }
}

/// Which target format to read (`-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TargetFormat {
    #[default]
    Http,
    Json,
}

impl std::str::FromStr for TargetFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "http" => Ok(TargetFormat::Http),
            "json" => Ok(TargetFormat::Json),
            _ => Err(format!(
                "unknown target format {s:?}: expected http or json"
            )),
        }
    }
}

/// Why targets could not be read. Each names the source and, where it
/// applies, the line.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    #[error("{source_name}:{line}: {reason}")]
    Syntax {
        source_name: String,
        line: usize,
        reason: String,
    },
    #[error("{source_name}:{line}: cannot read body file {path:?}: {err}")]
    BodyFile {
        source_name: String,
        line: usize,
        path: PathBuf,
        err: std::io::Error,
    },
    #[error("cannot read targets from {source_name}: {err}")]
    Io {
        source_name: String,
        err: std::io::Error,
    },
    #[error("{source_name}: no targets found")]
    Empty { source_name: String },
}

/// Where the engine takes its targets from.
pub enum TargetSource {
    /// Used round-robin.
    Static(Vec<Target>),
    /// Each target is used once, as it arrives; the attack ends when the
    /// iterator does (`-lazy`). The iterator may block: it runs on its own thread.
    Lazy(Box<dyn Iterator<Item = Result<Target, TargetError>> + Send>),
    /// A replay: each record brings its own send offset and target. Records
    /// come in schedule order (offsets never decrease); each is sent once, at
    /// `start + at`, measured from that instant; the attack ends with the
    /// records. The pacer is not used. The iterator runs on its own thread.
    Replay(Box<dyn Iterator<Item = Result<Timed, TargetError>> + Send>),
}

/// One record of a replay: the target and when it is due, as an offset from
/// the attack's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timed {
    pub at: std::time::Duration,
    pub target: Target,
}

impl std::fmt::Debug for TargetSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TargetSource::Static(t) => f.debug_tuple("Static").field(t).finish(),
            TargetSource::Lazy(_) => f.write_str("Lazy(..)"),
            TargetSource::Replay(_) => f.write_str("Replay(..)"),
        }
    }
}

/// Reads every target. `default_body` is used by targets without a body and
/// `default_headers` come before each target's own headers. (The engine also
/// applies `AttackConfig::headers`/`body`, skipping exact duplicates, so
/// passing the same defaults in both places is harmless.)
pub fn parse_targets(
    reader: impl BufRead,
    format: TargetFormat,
    source_name: &str,
    default_body: Option<&Bytes>,
    default_headers: &[(String, String)],
) -> Result<Vec<Target>, TargetError> {
    let mut out = Vec::new();
    for t in TargetReader::new(reader, format, source_name) {
        let mut t = t?;
        if let Some(b) = default_body.filter(|_| t.body.is_empty()) {
            t.body = b.clone();
        }
        if !default_headers.is_empty() {
            let mut h = default_headers.to_vec();
            h.append(&mut t.headers);
            t.headers = h;
        }
        out.push(t);
    }
    if out.is_empty() {
        return Err(TargetError::Empty {
            source_name: source_name.to_string(),
        });
    }
    Ok(out)
}

/// Streams targets as they are read (`-lazy`).
pub fn lazy_targets(
    reader: impl BufRead + Send + 'static,
    format: TargetFormat,
    source_name: &str,
) -> TargetSource {
    TargetSource::Lazy(Box::new(TargetReader::new(reader, format, source_name)))
}

const METHODS: [&str; 9] = [
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE",
];

fn starts_with_method(line: &str) -> bool {
    METHODS.iter().any(|m| {
        line.strip_prefix(m)
            .is_some_and(|rest| rest.starts_with([' ', '\t']))
    })
}

/// `text` with the password of every URL in it replaced by `xxxxx`, as Go's
/// `URL.Redacted` prints it (`http://user:xxxxx@host/`). Target labels (in
/// results, reports, progress, Prometheus) and error messages go through it,
/// so a password given in a URL never leaves the request itself.
pub fn redact_url(text: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut done = 0; // bytes of `text` already accounted for in `out`
    let mut from = 0;
    while let Some(i) = text[from..].find("://") {
        let start = from + i + 3;
        let rest = &text[start..];
        let end = rest
            .find(|c: char| matches!(c, '/' | '?' | '#' | '"' | '\'') || c.is_whitespace())
            .unwrap_or(rest.len());
        let authority = &rest[..end];
        from = start + end;
        let Some(at) = authority.rfind('@') else {
            continue;
        };
        let Some(colon) = authority[..at].find(':') else {
            continue;
        };
        let o = out.get_or_insert_with(|| String::with_capacity(text.len()));
        o.push_str(&text[done..start + colon + 1]);
        o.push_str("xxxxx");
        done = start + at;
    }
    match out {
        None => Cow::Borrowed(text),
        Some(mut o) => {
            o.push_str(&text[done..]);
            Cow::Owned(o)
        }
    }
}

/// Checks that `url` is an absolute http(s) URL the engine can send to.
/// (Messages show the URL with its password redacted.)
pub fn check_url(url: &str) -> Result<http::Uri, String> {
    check_url_inner(url).map_err(|e| redact_url(&e).into_owned())
}

fn check_url_inner(url: &str) -> Result<http::Uri, String> {
    let authority = url.split('/').next().unwrap_or("");
    let host_like = !authority.is_empty()
        && authority
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || ".-_:@[]%".contains(c));
    if !url.contains("://") && host_like {
        // `127.0.0.1:8080/` or `example.test/x`: the scheme left out (a
        // password before an `@` is not repeated).
        let shown = match url.rfind('@') {
            Some(i) => format!("xxxxx@{}", &url[i + 1..]),
            None => url.to_string(),
        };
        return Err(format!(
            "bad URL {shown:?}: missing scheme (did you mean \"http://{shown}\"?)"
        ));
    }
    let uri: http::Uri = url.parse().map_err(|e| format!("bad URL {url:?}: {e}"))?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        _ => {
            return Err(format!(
                "bad URL {url:?}: expected an absolute http:// or https:// URL"
            ));
        }
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(format!("bad URL {url:?}: missing host"));
    }
    Ok(uri)
}

/// An iterator over the targets of one source, in either format.
pub struct TargetReader<R> {
    reader: R,
    format: TargetFormat,
    source_name: String,
    /// Lines read ahead (http format needs one line of lookahead).
    pending: VecDeque<(usize, String)>,
    line_no: usize,
    done: bool,
    /// Where `@body` paths are relative to (None: the current directory, as in vegeta).
    body_dir: Option<PathBuf>,
    /// False for templates whose URLs the caller completes and checks itself.
    check_urls: bool,
    /// The line the last target returned starts on.
    target_line: usize,
}

impl<R: BufRead> TargetReader<R> {
    pub fn new(reader: R, format: TargetFormat, source_name: &str) -> Self {
        TargetReader {
            reader,
            format,
            source_name: source_name.to_string(),
            pending: VecDeque::new(),
            line_no: 0,
            done: false,
            body_dir: None,
            check_urls: true,
            target_line: 0,
        }
    }

    /// Reads `@body` paths relative to `dir` (e.g. the targets file's own
    /// folder) instead of the current directory; absolute paths stay as they are.
    pub fn body_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.body_dir = Some(dir.into());
        self
    }

    /// Takes URLs as written, without checking them: for templates (a study's
    /// `{origin}`, `${NAME}`) that the caller completes, then checks with
    /// [`check_url`].
    pub fn unchecked_urls(mut self) -> Self {
        self.check_urls = false;
        self
    }

    /// The line (from 1) on which the last target returned starts.
    pub fn line(&self) -> usize {
        self.target_line
    }

    fn read_line(&mut self) -> Result<Option<(usize, String)>, TargetError> {
        if let Some(l) = self.pending.pop_front() {
            return Ok(Some(l));
        }
        let mut s = String::new();
        match self.reader.read_line(&mut s) {
            Ok(0) => Ok(None),
            Ok(_) => {
                self.line_no += 1;
                Ok(Some((self.line_no, s.trim().to_string())))
            }
            Err(err) => Err(TargetError::Io {
                source_name: self.source_name.clone(),
                err,
            }),
        }
    }

    fn peek_line(&mut self) -> Result<Option<&(usize, String)>, TargetError> {
        if self.pending.is_empty()
            && let Some(l) = self.read_line()?
        {
            self.pending.push_back(l);
        }
        Ok(self.pending.front())
    }

    fn syntax(&self, line: usize, reason: impl Into<String>) -> TargetError {
        TargetError::Syntax {
            source_name: self.source_name.clone(),
            line,
            reason: reason.into(),
        }
    }

    fn next_http(&mut self) -> Result<Option<Target>, TargetError> {
        let (no, line) = loop {
            match self.read_line()? {
                None => return Ok(None),
                Some((_, l)) if l.is_empty() || l.starts_with('#') => continue,
                Some(l) => break l,
            }
        };
        let (method, url) = match line.split_once([' ', '\t']) {
            Some((m, u)) => (m, u.trim()),
            None => {
                let line = redact_url(&line);
                return Err(self.syntax(no, format!("expected \"METHOD URL\", got {line:?}")));
            }
        };
        if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
            return Err(self.syntax(
                no,
                format!("bad method {method:?}: expected e.g. GET, POST"),
            ));
        }
        let method = http::Method::from_bytes(method.as_bytes())
            .map_err(|_| self.syntax(no, format!("bad method {method:?}")))?;
        if self.check_urls {
            check_url(url).map_err(|e| self.syntax(no, e))?;
        }
        self.target_line = no;
        let mut t = Target {
            method,
            url: url.to_string(),
            headers: Vec::new(),
            body: Bytes::new(),
        };
        loop {
            match self.peek_line()? {
                None => break,
                Some((_, l)) if l.is_empty() || starts_with_method(l) => break,
                Some(_) => {}
            }
            let (no, l) = self.read_line()?.expect("peeked");
            if l.starts_with('#') {
                continue;
            }
            if let Some(path) = l.strip_prefix('@') {
                let path = PathBuf::from(path.trim());
                let file = match &self.body_dir {
                    Some(dir) => dir.join(&path),
                    None => path.clone(),
                };
                t.body =
                    std::fs::read(&file)
                        .map(Bytes::from)
                        .map_err(|err| TargetError::BodyFile {
                            source_name: self.source_name.clone(),
                            line: no,
                            path,
                            err,
                        })?;
                break;
            }
            let (k, v) = l.split_once(':').ok_or_else(|| {
                self.syntax(no, format!("expected a header \"Name: value\", a body \"@file\" or a blank line, got {l:?}"))
            })?;
            let k = k.trim();
            if k.is_empty() || http::HeaderName::from_bytes(k.as_bytes()).is_err() {
                return Err(self.syntax(no, format!("bad header name {k:?}")));
            }
            let v = v.trim();
            if http::HeaderValue::from_str(v).is_err() {
                return Err(self.syntax(no, format!("bad value for header {k:?}")));
            }
            t.headers.push((k.to_string(), v.to_string()));
        }
        Ok(Some(t))
    }

    fn next_json(&mut self) -> Result<Option<Target>, TargetError> {
        let (no, line) = loop {
            match self.read_line()? {
                None => return Ok(None),
                Some((_, l)) if l.is_empty() => continue,
                Some(l) => break l,
            }
        };
        let v: serde_json::Value = serde_json::from_str(&line)
            .map_err(|e| self.syntax(no, format!("expected a JSON target object: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| self.syntax(no, "expected a JSON object {\"method\":..,\"url\":..}"))?;
        let method = match obj.get("method") {
            Some(serde_json::Value::String(m)) if !m.is_empty() => m,
            _ => return Err(self.syntax(no, "required string field \"method\" is missing")),
        };
        let method = http::Method::from_bytes(method.as_bytes())
            .map_err(|_| self.syntax(no, format!("bad method {method:?}")))?;
        let url = match obj.get("url") {
            Some(serde_json::Value::String(u)) if !u.is_empty() => u.clone(),
            _ => return Err(self.syntax(no, "required string field \"url\" is missing")),
        };
        if self.check_urls {
            check_url(&url).map_err(|e| self.syntax(no, e))?;
        }
        self.target_line = no;
        let body = match obj.get("body") {
            None | Some(serde_json::Value::Null) => Bytes::new(),
            Some(serde_json::Value::String(b)) => base64::engine::general_purpose::STANDARD
                .decode(b)
                .map(Bytes::from)
                .map_err(|e| self.syntax(no, format!("field \"body\" is not valid base64: {e}")))?,
            Some(_) => return Err(self.syntax(no, "field \"body\" must be a base64 string")),
        };
        let mut headers = Vec::new();
        match obj.get("header") {
            None | Some(serde_json::Value::Null) => {}
            Some(serde_json::Value::Object(h)) => {
                for (k, vs) in h {
                    let vs = vs.as_array().ok_or_else(|| {
                        self.syntax(no, format!("header {k:?} must be an array of strings"))
                    })?;
                    for v in vs {
                        let v = v.as_str().ok_or_else(|| {
                            self.syntax(no, format!("header {k:?} must be an array of strings"))
                        })?;
                        headers.push((k.clone(), v.to_string()));
                    }
                }
            }
            Some(_) => {
                return Err(self.syntax(no, "field \"header\" must be an object of string arrays"));
            }
        }
        for k in obj.keys() {
            if !matches!(k.as_str(), "method" | "url" | "body" | "header") {
                return Err(self.syntax(
                    no,
                    format!("unknown field {k:?} (expected method, url, body, header)"),
                ));
            }
        }
        Ok(Some(Target {
            method,
            url,
            headers,
            body,
        }))
    }
}

impl<R: BufRead> Iterator for TargetReader<R> {
    type Item = Result<Target, TargetError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = match self.format {
            TargetFormat::Http => self.next_http(),
            TargetFormat::Json => self.next_json(),
        };
        match r {
            Ok(Some(t)) => Some(Ok(t)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_without_scheme_is_named_so() {
        assert_eq!(
            check_url("127.0.0.1:8080/").unwrap_err(),
            "bad URL \"127.0.0.1:8080/\": missing scheme (did you mean \"http://127.0.0.1:8080/\"?)"
        );
        let e = check_url("u:s3cret@h:1/").unwrap_err();
        assert!(!e.contains("s3cret") && e.contains("missing scheme"), "{e}");
        assert!(
            check_url("ftp://h/")
                .unwrap_err()
                .contains("http:// or https://")
        );
        assert!(check_url("http://127.0.0.1:8080/").is_ok());
    }

    #[test]
    fn passwords_in_urls_are_redacted() {
        assert_eq!(redact_url("http://h/a?b=c"), "http://h/a?b=c");
        assert!(matches!(redact_url("http://h/"), Cow::Borrowed(_)));
        assert_eq!(redact_url("http://u@h/"), "http://u@h/");
        assert_eq!(
            redact_url("https://u:s3cr%40t@h:8443/p?q=a:b@c"),
            "https://u:xxxxx@h:8443/p?q=a:b@c"
        );
        assert_eq!(redact_url("http://u:@h"), "http://u:xxxxx@h");
        assert_eq!(
            redact_url("bad URL \"http://a:p1@h1/\" and http://b:p2@h2:1"),
            "bad URL \"http://a:xxxxx@h1/\" and http://b:xxxxx@h2:1"
        );
        // A password holding '@' or ':' is cut at the last '@'.
        assert_eq!(redact_url("http://u:p:q@r@h/"), "http://u:xxxxx@h/");
    }
}
