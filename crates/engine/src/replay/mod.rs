//! Replaying recorded traffic (`loadlab attack -replay=FILE`): the formats
//! read, the rewrites, and the schedule made of the records.
//!
//! A log is read lazily, one line at a time, through a bounded reorder
//! window ([`ReplayOptions::reorder`] records), so memory stays flat however
//! long the log. Each record becomes a [`Timed`] target: sent at its
//! recorded offset from the first record, divided by the speed. Records
//! that share a timestamp of a log that records whole seconds are spread
//! evenly across that second (a combined log's 40 requests of 10:00:01 go
//! out 25 ms apart, not all at once), so the per-second counts stay exact.
//!
//! Formats ([`ReplayFormat`]): nginx/Apache `combined` and `common` logs,
//! any nginx `log_format` ([`LogFormat`]), HAR 1.2, vegeta's JSON
//! targets with a `timestamp`, AWS ALB and CloudFront logs. Callers may bring their own source of
//! [`Item`]s (loadlab's CLI reads its own results files that way).

mod aws;
mod file;
pub mod har;
mod json;
mod nginx;
mod rewrite;
mod schedule;
pub mod time;

use std::io::BufRead;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;

pub use file::{HEAD, detect_file, file_opener, head};
pub use nginx::{COMBINED, COMMON, LogFormat};
pub use rewrite::Rewrite;
pub use schedule::Replay;

use crate::targets::TargetError;
#[cfg(doc)]
use crate::targets::Timed;

/// A record's method, read from its `field`: any HTTP token but the empty
/// one; the error names the field and the value (`bad cs-method ""`).
fn method(s: &str, field: &str) -> Result<http::Method, String> {
    http::Method::from_bytes(s.as_bytes())
        .ok()
        .filter(|_| !s.is_empty())
        .ok_or(format!("bad {field} {s:?}"))
}

/// One recorded request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// When it was made, ns since the Unix epoch.
    pub ts: i128,
    /// The timestamp's resolution in ns (1 s for `$time_local`; 0 when
    /// exact enough): records sharing a timestamp are spread across it.
    pub resolution: u64,
    pub method: http::Method,
    /// Absolute URL, or a path (`/a?b`) when the log records no host.
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
}

/// What a source yields: a record (with the line, or entry, it came from)
/// or a line that is not one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    Record(usize, Record),
    Malformed(usize, String),
}

/// A stream of items; an `Err` ends it (a read error).
pub type Source = Box<dyn Iterator<Item = Result<Item, TargetError>> + Send>;

/// Opens the log again from its start (for `-loop`).
pub type Opener = Box<dyn FnMut() -> Result<Source, TargetError> + Send>;

/// The formats read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayFormat {
    /// An nginx `log_format` (`combined` and `common` included).
    Log(LogFormat),
    Har,
    /// vegeta's JSON targets with a `timestamp` field.
    VegetaJson,
    /// AWS Application Load Balancer access logs.
    Alb,
    /// AWS CloudFront standard logs.
    CloudFront,
}

impl ReplayFormat {
    /// `combined`, `common`, `har`, `json`, `alb`, `cloudfront`, or
    /// `log:FORMAT` (nginx syntax).
    pub fn parse(name: &str) -> Result<ReplayFormat, String> {
        match name {
            "har" => Ok(ReplayFormat::Har),
            "json" | "vegeta" => Ok(ReplayFormat::VegetaJson),
            "alb" => Ok(ReplayFormat::Alb),
            "cloudfront" => Ok(ReplayFormat::CloudFront),
            "combined" | "common" => LogFormat::parse(name).map(ReplayFormat::Log),
            _ => match name.strip_prefix("log:") {
                Some(f) => LogFormat::parse(f).map(ReplayFormat::Log),
                None => Err(format!(
                    "unknown replay format {name:?}: expected combined, common, har, json, alb, cloudfront or results"
                )),
            },
        }
    }

    /// The format of a log from its first bytes, when unambiguous: a HAR
    /// (a JSON document with `"log"`), JSON lines, or a line that reads as
    /// `combined`, else `common`.
    pub fn detect(head: &[u8]) -> Option<ReplayFormat> {
        let text = String::from_utf8_lossy(head);
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') {
            let first = trimmed.lines().next().unwrap_or("");
            let line_object = serde_json::from_str::<serde_json::Value>(first)
                .ok()
                .is_some_and(|v| v.get("url").is_some());
            return Some(if line_object {
                ReplayFormat::VegetaJson
            } else {
                ReplayFormat::Har
            });
        }
        if trimmed.starts_with("#Version:") || trimmed.starts_with("#Fields: date") {
            return Some(ReplayFormat::CloudFront);
        }
        let line = trimmed
            .lines()
            .find(|l| !l.trim().is_empty() && !l.starts_with('#'))?;
        if aws::alb_record(line).is_ok() {
            return Some(ReplayFormat::Alb);
        }
        for f in ["combined", "common"] {
            let f = LogFormat::parse(f).ok()?;
            if f.record(line).is_ok() {
                return Some(ReplayFormat::Log(f));
            }
        }
        None
    }

    /// The items of `reader` in this format.
    pub fn source(&self, reader: Box<dyn BufRead + Send>, name: &str) -> Source {
        match self {
            ReplayFormat::Log(f) => {
                let f = f.clone();
                lines(reader, name, move |l| {
                    (!l.starts_with('#')).then(|| f.record(l))
                })
            }
            ReplayFormat::VegetaJson => lines(reader, name, |l| {
                (!l.starts_with('#')).then(|| json::record(l))
            }),
            ReplayFormat::Alb => lines(reader, name, |l| {
                (!l.starts_with('#')).then(|| aws::alb_record(l))
            }),
            ReplayFormat::CloudFront => {
                let mut cf = aws::CloudFront::default();
                lines(reader, name, move |l| cf.line(l))
            }
            ReplayFormat::Har => har_source(reader, name),
        }
    }
}

/// A line-per-record source: blank lines are skipped, and the lines
/// `parse` answers `None` for (comments, headers).
fn lines(
    mut reader: Box<dyn BufRead + Send>,
    name: &str,
    mut parse: impl FnMut(&str) -> Option<Result<Record, String>> + Send + 'static,
) -> Source {
    let name = name.to_string();
    let mut no = 0usize;
    let mut buf = Vec::new();
    Box::new(std::iter::from_fn(move || {
        loop {
            buf.clear();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => return None,
                Ok(_) => no += 1,
                Err(err) => {
                    return Some(Err(TargetError::Io {
                        source_name: name.clone(),
                        err,
                    }));
                }
            }
            let Ok(line) = std::str::from_utf8(&buf) else {
                return Some(Ok(Item::Malformed(no, "not UTF-8 text".into())));
            };
            let line = line.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            return Some(Ok(match parse(line) {
                None => continue,
                Some(Ok(r)) => Item::Record(no, r),
                Some(Err(e)) => Item::Malformed(no, e),
            }));
        }
    }))
}

fn har_source(mut reader: Box<dyn BufRead + Send>, name: &str) -> Source {
    let mut doc = Vec::new();
    if let Err(err) = reader.read_to_end(&mut doc) {
        return Box::new(std::iter::once(Err(TargetError::Io {
            source_name: name.to_string(),
            err,
        })));
    }
    match har::entries(&doc) {
        Err(reason) => Box::new(std::iter::once(Err(TargetError::Syntax {
            source_name: name.to_string(),
            line: 0,
            reason,
        }))),
        Ok(entries) => Box::new(entries.into_iter().map(|e| {
            Ok(match e {
                Ok(r) => Item::Record(0, r),
                Err((i, why)) => Item::Malformed(i + 1, format!("entry {}: {why}", i + 1)),
            })
        })),
    }
}

/// How a log is replayed.
#[derive(Debug, Clone)]
pub struct ReplayOptions {
    /// The log's name in messages (its path).
    pub name: String,
    /// `-speed`: offsets are divided by it (2 = twice as fast).
    pub speed: f64,
    /// `-replay-window=START..END`: only the records this far into the log
    /// (from its first record); the replay starts at START.
    pub window: (Duration, Option<Duration>),
    /// `-loop`: start again at the end, one mean gap after the last record
    /// (or at END with a window).
    pub looped: bool,
    /// `-strict`: a malformed line ends the replay with its error.
    pub strict: bool,
    /// Records held to sort timestamps that go backwards.
    pub reorder: usize,
    /// `-replay-base`: completes the paths of logs that record no host.
    pub base: Option<String>,
    pub rewrite: Rewrite,
}

impl ReplayOptions {
    pub fn new(name: &str) -> ReplayOptions {
        ReplayOptions {
            name: name.to_string(),
            speed: 1.0,
            window: (Duration::ZERO, None),
            looped: false,
            strict: false,
            reorder: DEFAULT_REORDER,
            base: None,
            rewrite: Rewrite::default(),
        }
    }
}

/// The default reorder window, in records.
pub const DEFAULT_REORDER: usize = 10_000;

/// How many malformed lines are shown.
pub const SHOWN: usize = 5;

/// What a replay read, for the end-of-run report (the first pass only).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayStats {
    pub records: u64,
    pub malformed: u64,
    /// The first [`SHOWN`] malformed lines, `file:line: why`.
    pub examples: Vec<String>,
    /// Records whose timestamp was earlier than one read before them.
    pub backwards: u64,
    /// Of those, the ones too far back for the window: sent at once, after
    /// the record before them.
    pub beyond_window: u64,
}

impl ReplayStats {
    /// The lines to print after the run (none when the log was clean).
    pub fn report(&self, name: &str, reorder: usize) -> Vec<String> {
        let mut out = Vec::new();
        if self.malformed > 0 {
            out.push(format!(
                "{name}: {} malformed lines skipped of {}",
                self.malformed,
                self.malformed + self.records
            ));
            out.extend(self.examples.iter().map(|e| format!("  {e}")));
        }
        if self.backwards > 0 {
            let mut l = format!(
                "{name}: timestamps went backwards {} times; sorted within a window of {reorder} records",
                self.backwards
            );
            if self.beyond_window > 0 {
                l += &format!(
                    " ({} too far back were sent right after the record before them)",
                    self.beyond_window
                );
            }
            out.push(l);
        }
        out
    }
}

/// Shared between the replay (on the feed thread) and the caller.
pub type SharedStats = Arc<Mutex<ReplayStats>>;
