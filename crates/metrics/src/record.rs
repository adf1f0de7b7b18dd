//! The unit every reader yields and every report consumes: one request with
//! its labels, cheap to clone (the strings are shared `Arc<str>`s).

use std::collections::HashMap;
use std::sync::Arc;

use loadlab_core::{AttackInfo, ErrorKind, Sample, SeriesKind};

/// A series as read back (see [`loadlab_core::series`]): shared by every
/// record of it, so reading allocates once per series, not per record.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct SeriesDef {
    pub kind: SeriesKind,
    /// The metric name (`http_req` for HTTP requests).
    pub name: Arc<str>,
    /// The values are durations in ns.
    pub time: bool,
    /// `(key, value)` pairs, each key once, as the file lists them.
    pub tags: Vec<(Arc<str>, Arc<str>)>,
}

impl SeriesDef {
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| &**v)
    }

    /// A series as a sink is told of it ([`loadlab_core::Sink::register_series`]).
    pub fn from_info(series: &loadlab_core::SeriesInfo) -> SeriesDef {
        SeriesDef {
            kind: series.kind,
            name: Arc::from(series.name.as_str()),
            time: series.time,
            tags: series
                .tags
                .iter()
                .map(|(k, v)| (Arc::from(k.as_str()), Arc::from(v.as_str())))
                .collect(),
        }
    }

    /// The series as a sink takes it (to write it again, e.g. when a file
    /// is split or re-encoded).
    pub fn to_info(&self) -> loadlab_core::SeriesInfo {
        loadlab_core::SeriesInfo {
            kind: self.kind,
            name: self.name.to_string(),
            time: self.time,
            tags: self
                .tags
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// `name{key=value,...}`, Prometheus-style, for labels in reports.
    pub fn label(&self) -> String {
        let mut s = self.name.to_string();
        if !self.tags.is_empty() {
            s.push('{');
            for (i, (k, v)) in self.tags.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                s.push_str(k);
                s.push('=');
                s.push_str(v);
            }
            s.push('}');
        }
        s
    }
}

/// One metric record read back: a counter increment, a trend value, a rate
/// hit (non-zero) or miss (0), or a gauge value, of `series`.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricRecord {
    pub attack: Arc<str>,
    pub start_unix_ns: u64,
    pub series: Arc<SeriesDef>,
    /// When, ns from `start_unix_ns`.
    pub t_ns: u64,
    pub value: f64,
}

impl MetricRecord {
    pub fn abs_t_ns(&self) -> u64 {
        self.start_unix_ns.saturating_add(self.t_ns)
    }
}

/// What a results file holds: requests (samples) and metric records.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Request(Record),
    Metric(MetricRecord),
}

/// One request read back from a results file (ours or vegeta's).
///
/// Sample instants are offsets from `start_unix_ns`; use the `abs_*` helpers
/// for wall-clock times. Records decoded from vegeta files carry
/// `start_unix_ns == 0` and absolute offsets, because vegeta results arrive in
/// completion order and have no attack start to be relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The attack's name (`-name`), possibly empty.
    pub attack: Arc<str>,
    /// Wall-clock start of the attack, ns since the Unix epoch.
    pub start_unix_ns: u64,
    pub sample: Sample,
    pub method: Arc<str>,
    pub url: Arc<str>,
    /// The error text of a failed request: the original one when the source
    /// had one (vegeta input); for our own results, the text made from
    /// `sample.error`, the URL and the attack's settings (the dialled
    /// address, the `-timeout`), made once per target and error kind when
    /// the results are read. `None` for a response, and in records built
    /// by hand (the text then comes from `sample.error` alone).
    pub error_text: Option<Arc<str>>,
    /// The sample's series with all its tags, when the source declared one
    /// (results format version 2); `None` for a plain HTTP request known
    /// only by its method and URL (version 1 files, vegeta's formats).
    pub series: Option<Arc<SeriesDef>>,
}

impl Record {
    /// The value of tag `key`: `method` and `url` always (empty when
    /// unknown), other keys from the series.
    pub fn tag(&self, key: &str) -> Option<&str> {
        match key {
            loadlab_core::series::tag::METHOD => Some(&self.method),
            loadlab_core::series::tag::URL => Some(&self.url),
            _ => self.series.as_ref().and_then(|s| s.tag(key)),
        }
    }

    /// Intended send time, ns since the Unix epoch.
    pub fn abs_intended_ns(&self) -> u64 {
        self.start_unix_ns.saturating_add(self.sample.intended_ns)
    }
    /// Actual send time, ns since the Unix epoch.
    pub fn abs_sent_ns(&self) -> u64 {
        self.start_unix_ns.saturating_add(self.sample.sent_ns)
    }
    /// The instant the corrected latency counts from (the intended send
    /// time, or the actual send when the request went out early), ns since
    /// the Unix epoch: this plus `latency_ns` is the completion time.
    pub fn abs_latency_start_ns(&self) -> u64 {
        self.start_unix_ns
            .saturating_add(self.sample.intended_ns.min(self.sample.sent_ns))
    }
    /// Completion time, ns since the Unix epoch.
    pub fn abs_done_ns(&self) -> u64 {
        self.start_unix_ns.saturating_add(self.sample.done_ns)
    }

    /// The text vegeta would put in its `error` field and its report's Error
    /// Set: the original text if we have it; for a transport failure
    /// `Get "http://host/path": EOF` (Go's `url.Error` layout); for a status
    /// outside 200..400, `500 Internal Server Error`; otherwise empty.
    pub fn error_string(&self) -> String {
        if let Some(t) = &self.error_text {
            return t.to_string();
        }
        let mut out = String::new();
        write_error_string(
            &mut out,
            &self.method,
            &self.url,
            self.sample.error,
            self.sample.status,
        );
        out
    }
}

/// Appends the vegeta-style error text for these facts to `out` (nothing when
/// the request succeeded). Shared by the encoders and the error set.
pub fn write_error_string(
    out: &mut String,
    method: &str,
    url: &str,
    error: ErrorKind,
    status: u16,
) {
    write_attack_error_string(out, method, url, error, status, &AttackInfo::default());
}

/// [`write_error_string`] with the attack's settings, so that the text names
/// the dialled address and the timeout (see [`ErrorKind::write_text`]).
pub fn write_attack_error_string(
    out: &mut String,
    method: &str,
    url: &str,
    error: ErrorKind,
    status: u16,
    info: &AttackInfo,
) {
    if error != ErrorKind::None {
        // Go's url.Error prints the method with only its first letter upper-case.
        let mut chars = method.chars();
        if let Some(first) = chars.next() {
            out.extend(first.to_uppercase());
            out.extend(chars.flat_map(|c| c.to_lowercase()));
        }
        out.push_str(" \"");
        out.push_str(url);
        out.push_str("\": ");
        error.write_text(out, url, info);
    } else if status != 0 && !(200..400).contains(&status) {
        out.push_str(&status_text(status));
    }
}

/// The error texts of one attack's failed requests, each made once per
/// target and error kind (readers and sinks attach them to records).
#[derive(Default)]
pub(crate) struct ErrorTexts {
    info: AttackInfo,
    made: HashMap<(u32, ErrorKind), Arc<str>>,
}

impl ErrorTexts {
    /// The current attack's settings.
    pub fn info(&self) -> &AttackInfo {
        &self.info
    }

    /// A new attack (segment) begins: its settings, no texts yet.
    pub fn reset(&mut self, info: AttackInfo) {
        self.info = info;
        self.made.clear();
    }

    /// The text for a failed sample of target `sample.target` (`method`,
    /// `url`), or `None` when it did not fail at the transport level.
    pub fn get(&mut self, sample: &Sample, method: &str, url: &str) -> Option<Arc<str>> {
        if sample.error == ErrorKind::None {
            return None;
        }
        let info = &self.info;
        let text = self
            .made
            .entry((sample.target, sample.error))
            .or_insert_with(|| {
                let mut s = String::new();
                write_attack_error_string(&mut s, method, url, sample.error, 0, info);
                Arc::from(s)
            });
        Some(text.clone())
    }
}

/// `500 Internal Server Error`, as Go's `http.Response.Status` reads.
pub fn status_text(status: u16) -> String {
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason());
    match reason {
        Some(r) => format!("{status} {r}"),
        None => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(method: &str, error: ErrorKind, status: u16) -> Record {
        Record {
            attack: "".into(),
            start_unix_ns: 0,
            sample: Sample {
                status,
                error,
                ..Default::default()
            },
            method: method.into(),
            url: "http://127.0.0.1:8080/a".into(),
            error_text: None,
            series: None,
        }
    }

    #[test]
    fn error_strings_follow_go() {
        assert_eq!(
            rec("GET", ErrorKind::ConnectionClosed, 0).error_string(),
            "Get \"http://127.0.0.1:8080/a\": EOF"
        );
        assert_eq!(
            rec("GET", ErrorKind::None, 500).error_string(),
            "500 Internal Server Error"
        );
        assert_eq!(rec("GET", ErrorKind::None, 200).error_string(), "");
        assert_eq!(rec("GET", ErrorKind::None, 302).error_string(), "");
        assert_eq!(
            rec("GET", ErrorKind::None, 404).error_string(),
            "404 Not Found"
        );
    }
}
