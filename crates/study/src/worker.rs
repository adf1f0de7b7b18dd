//! What a worker of a split study is told and records, and what a merged
//! run says about its workers.

use std::time::Duration;

use loadlab_core::{ScheduleSegment, format_go_duration};
use serde::{Deserialize, Serialize};

/// How a worker of a split study runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitOptions {
    pub segment: ScheduleSegment,
    /// The common start of the first run, ns since the Unix epoch.
    pub start_at_unix_ns: u64,
    /// Added to every slot (see `split::DEFAULT_STEP_SLACK`).
    pub step_slack: Duration,
}

/// What a worker's store records about its study (in the study's
/// environment), so `study merge` can check that stores belong together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerStudy {
    pub segment: u64,
    pub segments: u64,
    pub start_at_unix_ns: u64,
    pub step_slack_ns: u64,
    pub host: String,
}

impl WorkerStudy {
    pub fn new(o: &SplitOptions, host: &str) -> WorkerStudy {
        WorkerStudy {
            segment: o.segment.index,
            segments: o.segment.count,
            start_at_unix_ns: o.start_at_unix_ns,
            step_slack_ns: o.step_slack.as_nanos() as u64,
            host: host.to_string(),
        }
    }
}

/// What a merged run says about its workers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WorkersNote {
    /// The number of segments (workers) of the study.
    pub segments: u64,
    /// The segments whose run is in the merge.
    pub present: Vec<u64>,
    /// Requests of the run's whole schedule, when known.
    pub scheduled: Option<u64>,
    /// Requests of the schedule no worker accounts for.
    pub missing: u64,
    /// True when an absent segment's share is unknown (`missing` is then a
    /// lower bound).
    #[serde(default)]
    pub missing_lower_bound: bool,
    /// One line per absent or short segment, each with the word `missing`
    /// and its count.
    pub problems: Vec<String>,
    /// Latest minus earliest schedule start of the present workers.
    pub start_spread_ns: u64,
    /// Workers that began more than 10 ms after the run's slot.
    pub late: Vec<String>,
}

impl WorkersNote {
    /// The lines the report shows under the run's figures.
    pub fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "Workers       {} of {} segments, start spread {}",
            self.present.len(),
            self.segments,
            format_go_duration(Duration::from_nanos(self.start_spread_ns))
        )];
        if self.missing > 0 || self.missing_lower_bound {
            let of = self
                .scheduled
                .map(|s| format!(" of {s} scheduled"))
                .unwrap_or_default();
            let bound = if self.missing_lower_bound {
                " (at least: a share is unknown)"
            } else {
                ""
            };
            out.push(format!(
                "Missing       {} requests missing{of}{bound}",
                self.missing
            ));
            for p in &self.problems {
                out.push(format!("Missing       {p}"));
            }
        }
        for l in &self.late {
            out.push(format!("Warning       {l}"));
        }
        out
    }

    pub fn is_complete(&self) -> bool {
        self.missing == 0 && !self.missing_lower_bound
    }
}
