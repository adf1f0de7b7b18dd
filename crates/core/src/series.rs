//! The measurement model's labels: a **series** is a metric name plus tags
//! (target name, method and URL, scenario, group, `endpoint`, SQL statement
//! kind, worker...). Every sample and every metric record belongs to one.
//! A series is declared once per attack ([`crate::Sink::register_series`])
//! and then referred to by a small id: a sample's [`crate::Sample::target`]
//! field, a metric record's [`MetricSample::series`].
//!
//! * A **sample** series holds operations with their instants (an HTTP
//!   request, later a k6 iteration or an SQL transaction): [`SeriesKind::Sample`].
//! * A **metric** series holds [`MetricSample`]s: counter increments, trend
//!   values, rate hits or gauge values, each with its timestamp.

/// The metric name of HTTP request samples (the engine's targets).
pub const HTTP_REQ: &str = "http_req";

/// Well-known tag keys. Any other key is allowed; these are the ones loadlab
/// itself writes and that `report -by=` offers by name.
pub mod tag {
    /// The request method (`GET`).
    pub const METHOD: &str = "method";
    /// The request URL.
    pub const URL: &str = "url";
    /// A target's name (a study plan's target, a k6 request's `name` tag).
    pub const TARGET: &str = "target";
    /// A k6 scenario.
    pub const SCENARIO: &str = "scenario";
    /// A k6 group (`::`-separated path).
    pub const GROUP: &str = "group";
    /// A user-chosen endpoint label.
    pub const ENDPOINT: &str = "endpoint";
    /// The kind of SQL statement (`select`, `insert`, `transaction`...).
    pub const STATEMENT: &str = "statement";
    /// The worker (machine or process) of a distributed run.
    pub const WORKER: &str = "worker";
    /// Every well-known key, in the order above.
    pub const ALL: [&str; 8] = [
        METHOD, URL, TARGET, SCENARIO, GROUP, ENDPOINT, STATEMENT, WORKER,
    ];
}

/// What the records of a series are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum SeriesKind {
    /// Operations with their instants ([`crate::Sample`]).
    #[default]
    Sample = 0,
    /// Increments that add up (k6 `Counter`).
    Counter = 1,
    /// Values whose distribution matters (k6 `Trend`).
    Trend = 2,
    /// Hits and misses: the share of non-zero values (k6 `Rate`).
    Rate = 3,
    /// The last value counts (k6 `Gauge`); min and max are kept too.
    Gauge = 4,
}

impl SeriesKind {
    pub fn from_u8(v: u8) -> Option<SeriesKind> {
        Some(match v {
            0 => SeriesKind::Sample,
            1 => SeriesKind::Counter,
            2 => SeriesKind::Trend,
            3 => SeriesKind::Rate,
            4 => SeriesKind::Gauge,
            _ => return None,
        })
    }

    /// `counter`, `trend`, `rate`, `gauge` (`sample` for samples).
    pub fn name(self) -> &'static str {
        match self {
            SeriesKind::Sample => "sample",
            SeriesKind::Counter => "counter",
            SeriesKind::Trend => "trend",
            SeriesKind::Rate => "rate",
            SeriesKind::Gauge => "gauge",
        }
    }
}

/// One series: what it measures and its tags.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeriesInfo {
    pub kind: SeriesKind,
    /// The metric name: [`HTTP_REQ`] for HTTP requests, a k6 metric's name
    /// (`msg_delay`), `sql_tx`...
    pub name: String,
    /// True when the values are durations in nanoseconds (a k6 `Trend`
    /// made with `isTime`, an SQL latency).
    pub time: bool,
    /// `(key, value)` pairs, each key at most once; see [`tag`].
    pub tags: Vec<(String, String)>,
}

impl SeriesInfo {
    /// The series of HTTP requests to one target.
    pub fn http(method: &str, url: &str) -> SeriesInfo {
        SeriesInfo {
            kind: SeriesKind::Sample,
            name: HTTP_REQ.to_string(),
            time: true,
            tags: vec![
                (tag::METHOD.to_string(), method.to_string()),
                (tag::URL.to_string(), url.to_string()),
            ],
        }
    }

    /// The value of tag `key`, if the series has it.
    pub fn tag(&self, key: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets tag `key` (replacing its value if it is there already).
    pub fn with_tag(mut self, key: &str, value: &str) -> SeriesInfo {
        match self.tags.iter_mut().find(|(k, _)| k == key) {
            Some(t) => t.1 = value.to_string(),
            None => self.tags.push((key.to_string(), value.to_string())),
        }
        self
    }

    /// The method and URL of an HTTP request series.
    pub fn http_target(&self) -> Option<crate::TargetInfo> {
        if self.kind != SeriesKind::Sample || self.name != HTTP_REQ {
            return None;
        }
        Some(crate::TargetInfo {
            method: self.tag(tag::METHOD).unwrap_or_default().to_string(),
            url: self.tag(tag::URL).unwrap_or_default().to_string(),
        })
    }
}

/// One metric record: a counter increment, a trend value, a rate hit (any
/// non-zero value) or a miss (0), or a gauge value, at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MetricSample {
    /// The series id ([`crate::Sink::register_series`]).
    pub series: u32,
    /// When, ns from the attack's start (as the instants of a sample).
    pub t_ns: u64,
    /// The value; durations in ns when the series is [`SeriesInfo::time`].
    pub value: f64,
}
