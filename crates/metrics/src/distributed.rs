//! The workers of a split run (`loadlab attack -segment=i/n -start-at=T`):
//! what each worker's file says about itself, and the checks a report over
//! their files makes — every segment present, every segment complete, and
//! the workers started together. Requests that a segment was scheduled to
//! send but that no file holds are reported as **missing**, never silently
//! dropped. See `docs/distributed.md`.

use std::collections::BTreeMap;
use std::sync::Arc;

use loadlab_core::{ScheduleSegment, WorkerInfo};

/// One worker's attack as read from its results file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSegment {
    /// The input it came from (a file name, or `stdin`).
    pub file: String,
    /// The attack's name (`-name`).
    pub attack: Arc<str>,
    /// The attack's start as its begin record says: the instant its
    /// schedule counts from (`-start-at`, when given), on its own clock.
    pub start_unix_ns: u64,
    pub info: WorkerInfo,
    /// Samples the file holds for this attack.
    pub samples: u64,
    /// Requests the worker recorded as scheduled but never sent (it fell
    /// behind): counted by the report as `unsent`, not as missing.
    pub unsent: u64,
    /// False when the file has no end record (the worker was killed, or is
    /// still writing).
    pub ended: bool,
}

/// The checks of one run: the workers that share an attack name and a
/// segment count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunCheck {
    pub attack: String,
    /// `n` of `-segment=i/n`.
    pub segments: u64,
    /// Distinct segments present.
    pub present: u64,
    /// Requests of the whole schedule, when the workers knew it.
    pub scheduled: Option<u64>,
    /// Requests scheduled but in no file (absent segments, workers that
    /// stopped short), not counting the workers' own `unsent`.
    pub missing: u64,
    /// True when an absent segment's count is unknown (no worker knew the
    /// whole schedule's size): `missing` is then a lower bound.
    pub missing_lower_bound: bool,
    /// One line per problem, each with its count.
    pub problems: Vec<String>,
    /// Latest minus earliest start instant (the instants the workers'
    /// schedules count from), in ns.
    pub start_spread_ns: u64,
    /// The send clock's resolution the spread is compared with (the
    /// largest of the workers'; 1 ms when they send at exact instants).
    pub resolution_ns: u64,
    pub warnings: Vec<String>,
    /// The workers' hosts, by segment index.
    pub hosts: Vec<(u64, String)>,
}

/// A worker that began this much after its start instant is named in a
/// warning (its first requests went out late; their send lag shows it).
/// Well above the wake-up jitter of a loaded machine.
pub const LATE_BEGIN_NS: u64 = 10_000_000;

/// The spread the start is compared with when the workers' send clocks
/// have no window (`-resolution=0`): the late threshold.
const EXACT_RESOLUTION_NS: u64 = 1_000_000;

fn show_ns(ns: u64) -> String {
    crate::gofmt::go_duration(crate::gofmt::round_for_text(ns))
}

/// Checks the workers' segments, run by run (in order of first appearance).
pub fn check(workers: &[WorkerSegment]) -> Vec<RunCheck> {
    // Not keyed by -start-at: workers given different instants are one run
    // whose start instants disagree (and are warned about), not two runs
    // each missing the other's segments.
    type Run<'a> = ((Arc<str>, u64), Vec<&'a WorkerSegment>);
    let mut runs: Vec<Run> = Vec::new();
    for w in workers {
        let key = (w.attack.clone(), w.info.count.max(1));
        match runs.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(w),
            None => runs.push((key, vec![w])),
        }
    }
    runs.into_iter()
        .map(|((attack, n), ws)| check_run(&attack, n, &ws))
        .collect()
}

fn check_run(attack: &str, n: u64, ws: &[&WorkerSegment]) -> RunCheck {
    let mut c = RunCheck {
        attack: attack.to_string(),
        segments: n,
        ..RunCheck::default()
    };
    c.scheduled = ws.iter().find_map(|w| w.info.scheduled_total);
    let mut totals: Vec<u64> = ws.iter().filter_map(|w| w.info.scheduled_total).collect();
    totals.sort_unstable();
    totals.dedup();
    if totals.len() > 1 {
        let list: Vec<String> = totals.iter().map(u64::to_string).collect();
        c.warnings.push(format!(
            "the workers disagree on the size of the schedule ({} requests): were they all given the same -rate, -duration and -max-requests? Missing counts use the first ({})",
            list.join(" vs "),
            c.scheduled.unwrap_or_default()
        ));
    }
    let mut by_index: BTreeMap<u64, Vec<&WorkerSegment>> = BTreeMap::new();
    for w in ws {
        by_index.entry(w.info.index).or_default().push(w);
    }
    c.present = by_index.len() as u64;
    for (i, list) in &by_index {
        let seg = format!("{i}/{n}");
        if list.len() > 1 {
            let files: Vec<&str> = list.iter().map(|w| w.file.as_str()).collect();
            c.warnings.push(format!(
                "segment {seg} appears {} times ({}): its requests are counted more than once",
                list.len(),
                files.join(", ")
            ));
        }
        c.hosts.push((*i, list[0].info.host.clone()));
        let Some(want) = ScheduleSegment::new(*i, n)
            .ok()
            .zip(c.scheduled)
            .map(|(s, t)| s.share(t))
        else {
            if let Some(w) = list.iter().find(|w| !w.ended) {
                c.problems.push(format!(
                    "segment {seg} stopped after {} requests (its file {} has no end record; its scheduled count is unknown)",
                    w.samples,
                    w.file
                ));
            }
            continue;
        };
        // The most complete copy counts (a retried worker may have left two).
        let best = list
            .iter()
            .max_by_key(|w| w.samples + w.unsent)
            .expect("non-empty");
        let short = want.saturating_sub(best.samples + best.unsent);
        if short > 0 {
            c.missing += short;
            let why = if best.ended {
                "it was interrupted"
            } else {
                "its file has no end record: the worker was killed or is still writing"
            };
            c.problems.push(format!(
                "{} requests missing: segment {seg} stopped after {} of {} ({why})",
                short,
                best.samples + best.unsent,
                want
            ));
        }
    }
    for i in 0..n {
        if by_index.contains_key(&i) {
            continue;
        }
        let seg = format!("{i}/{n}");
        match ScheduleSegment::new(i, n)
            .ok()
            .zip(c.scheduled)
            .map(|(s, t)| s.share(t))
        {
            Some(want) => {
                c.missing += want;
                c.problems
                    .push(format!("{} requests missing: segment {seg} absent", want));
            }
            None => {
                c.missing_lower_bound = true;
                c.problems.push(format!(
                    "requests missing: segment {seg} absent (its scheduled count is unknown)"
                ));
            }
        }
    }
    let starts: Vec<u64> = ws.iter().map(|w| w.start_unix_ns).collect();
    let (lo, hi) = (
        starts.iter().copied().min().unwrap_or(0),
        starts.iter().copied().max().unwrap_or(0),
    );
    c.start_spread_ns = hi - lo;
    c.resolution_ns = ws
        .iter()
        .map(|w| w.info.resolution_ns)
        .max()
        .filter(|r| *r > 0)
        .unwrap_or(EXACT_RESOLUTION_NS);
    if ws.len() > 1 && c.start_spread_ns > c.resolution_ns {
        let first = ws.iter().min_by_key(|w| w.start_unix_ns).expect("some");
        let last = ws.iter().max_by_key(|w| w.start_unix_ns).expect("some");
        c.warnings.push(format!(
            "the workers' start instants disagree by {}, more than the send clock's resolution ({}): segment {}/{n} started first ({}), segment {}/{n} last ({}); give every worker the same -start-at",
            show_ns(c.start_spread_ns),
            show_ns(c.resolution_ns),
            first.info.index,
            crate::timefmt::rfc3339(i128::from(first.start_unix_ns)),
            last.info.index,
            crate::timefmt::rfc3339(i128::from(last.start_unix_ns)),
        ));
    }
    for w in ws {
        let late = w.info.began_unix_ns.saturating_sub(w.start_unix_ns);
        if w.info.start_at_unix_ns > 0 && late > LATE_BEGIN_NS {
            c.warnings.push(format!(
                "segment {}/{n} ({}) began {} after the start instant: its first requests went out late (see Send Lag)",
                w.info.index,
                if w.info.host.is_empty() { "?" } else { &w.info.host },
                show_ns(late)
            ));
        }
    }
    c
}
