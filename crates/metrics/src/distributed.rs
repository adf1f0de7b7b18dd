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
    /// A script worker's plan (`loadlab k6 run --execution-segment`): its
    /// share counts iterations, not requests.
    pub plan: Option<WorkerPlan>,
    /// With a plan: the iterations the file records (k6's `iterations`)
    /// and the ones dropped for want of a free VU (`dropped_iterations`,
    /// counted like an attack's `unsent`).
    pub iterations: u64,
    pub dropped: u64,
}

/// How a script worker's share is counted (record 0x42, see
/// docs/results-format.md): a k6 segment's share of every executor follows
/// k6's rules (iterations striped by the segments' VUs, …), so the worker
/// writes every segment's scheduled count rather than the whole test's.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkerPlan {
    /// What the counts count: `iterations`.
    pub unit: String,
    /// This worker's segment as k6 writes it (`1/3:1/2`).
    pub segment: String,
    /// The sequence (`0,1/3,1/2,1`).
    pub sequence: String,
    /// Each segment's scheduled count (`None` when unknown in advance: a
    /// `constant-vus` or `ramping-vus` scenario runs for a time, not a
    /// count).
    pub scheduled: Vec<Option<u64>>,
}

impl WorkerPlan {
    /// Segment `i` as `FROM:TO`, from the sequence.
    fn range(&self, i: u64) -> Option<String> {
        let b: Vec<&str> = self.sequence.split(',').collect();
        let i = usize::try_from(i).ok()?;
        Some(format!("{}:{}", b.get(i)?, b.get(i + 1)?))
    }
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
    /// What `scheduled` and `missing` count: empty for requests (attack
    /// workers), `iterations` for script workers.
    pub unit: String,
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
    // Script workers (a plan): their shares count iterations, each
    // segment's as the plan says.
    let plan = ws.iter().find_map(|w| w.plan.as_ref());
    if let Some(p) = plan {
        c.unit = p.unit.clone();
    }
    let unit = if c.unit.is_empty() {
        "requests"
    } else {
        c.unit.as_str()
    };
    let label = |i: u64| match plan.and_then(|p| p.range(i)) {
        Some(r) => format!("{i}/{n} ({r})"),
        None => format!("{i}/{n}"),
    };
    let share = |i: u64, total: Option<u64>| -> Option<u64> {
        match plan {
            Some(p) => p.scheduled.get(usize::try_from(i).ok()?).copied().flatten(),
            None => Some(ScheduleSegment::new(i, n).ok()?.share(total?)),
        }
    };
    let held = |w: &WorkerSegment| {
        if w.plan.is_some() {
            w.iterations + w.dropped
        } else {
            w.samples + w.unsent
        }
    };
    c.scheduled = match plan {
        Some(p) => p.scheduled.iter().copied().sum(),
        None => ws.iter().find_map(|w| w.info.scheduled_total),
    };
    if let Some(p) = plan
        && let Some(other) = ws
            .iter()
            .filter_map(|w| w.plan.as_ref())
            .find(|q| q.sequence != p.sequence || q.scheduled != p.scheduled)
    {
        c.warnings.push(format!(
            "the script workers disagree on the test (sequence {} vs {}, or their options): were they all given the same script, flags and --execution-segment-sequence? Missing counts use the first",
            p.sequence, other.sequence
        ));
    }
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
        let seg = label(*i);
        if list.len() > 1 {
            let files: Vec<&str> = list.iter().map(|w| w.file.as_str()).collect();
            c.warnings.push(format!(
                "segment {seg} appears {} times ({}): its requests are counted more than once",
                list.len(),
                files.join(", ")
            ));
        }
        c.hosts.push((*i, list[0].info.host.clone()));
        let Some(want) = share(*i, c.scheduled) else {
            if let Some(w) = list.iter().find(|w| !w.ended) {
                c.missing_lower_bound = true;
                c.problems.push(format!(
                    "{unit} missing: segment {seg} stopped after {} {unit} (its file {} has no end record: the worker was killed or is still writing; its scheduled count is unknown)",
                    held(w),
                    w.file
                ));
            }
            continue;
        };
        // The most complete copy counts (a retried worker may have left two).
        let best = list.iter().max_by_key(|w| held(w)).expect("non-empty");
        let short = want.saturating_sub(held(best));
        if short > 0 {
            c.missing += short;
            let why = if best.ended {
                "it was interrupted"
            } else {
                "its file has no end record: the worker was killed or is still writing"
            };
            c.problems.push(format!(
                "{} {unit} missing: segment {seg} stopped after {} of {} ({why})",
                short,
                held(best),
                want
            ));
        }
    }
    let present: Vec<u64> = by_index.keys().copied().collect();
    let unit = unit.to_string();
    absent_segments(&mut c, &present, n, plan, &unit, &label);
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
            "the workers' start instants disagree by {}, more than the send clock's resolution ({}): segment {}/{n} started first ({}), segment {}/{n} last ({}); give every worker the same {}",
            show_ns(c.start_spread_ns),
            show_ns(c.resolution_ns),
            first.info.index,
            crate::timefmt::rfc3339(i128::from(first.start_unix_ns)),
            last.info.index,
            crate::timefmt::rfc3339(i128::from(last.start_unix_ns)),
            if plan.is_some() { "--start-at" } else { "-start-at" },
        ));
    }
    // Workers on one host share its clock: only between hosts can a clock's
    // error shift one share against another.
    let hosts = ws
        .iter()
        .map(|w| w.info.host.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    for w in ws {
        // A clock that may be off by more than the resolution shifts its
        // share by up to that much, which no start instant can show.
        if let Some(e) = w
            .info
            .clock_max_error_ns
            .filter(|e| hosts > 1 && *e > c.resolution_ns)
        {
            c.warnings.push(format!(
                "segment {}/{n} ({})'s clock may be off by up to {} (the kernel's maximum-error estimate), more than the send clock's resolution ({}): its share may be shifted by that much; synchronize the workers' clocks (NTP, chrony)",
                w.info.index,
                if w.info.host.is_empty() { "?" } else { &w.info.host },
                show_ns(e),
                show_ns(c.resolution_ns)
            ));
        }
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

/// Absent segments, as ranges between the present ones (`present` sorted):
/// the time and memory taken follow the files given, never a header's
/// segment count.
fn absent_segments(
    c: &mut RunCheck,
    present: &[u64],
    n: u64,
    plan: Option<&WorkerPlan>,
    unit: &str,
    label: &dyn Fn(u64) -> String,
) {
    let mut next = 0u64;
    let mut gaps = Vec::new();
    for &i in present.iter().chain(std::iter::once(&n)) {
        if i > next {
            gaps.push((next, i - 1));
        }
        next = i.saturating_add(1);
    }
    for (a, b) in gaps {
        let want = match plan {
            Some(p) => {
                let (a, b) = (usize::try_from(a).ok(), usize::try_from(b).ok());
                match (a, b) {
                    (Some(a), Some(b)) if b < p.scheduled.len() => {
                        p.scheduled[a..=b].iter().copied().sum::<Option<u64>>()
                    }
                    _ => None,
                }
            }
            None => c.scheduled.map(|t| range_share(a, b, n, t)),
        };
        let which = if a == b {
            format!("segment {}", label(a))
        } else {
            format!("segments {a}–{b} of {n} ({} segments)", b - a + 1)
        };
        match want {
            Some(want) => {
                c.missing += want;
                c.problems
                    .push(format!("{want} {unit} missing: {which} absent"));
            }
            None => {
                c.missing_lower_bound = true;
                let its = if a == b { "its" } else { "their" };
                c.problems.push(format!(
                    "{unit} missing: {which} absent ({its} scheduled count is unknown)"
                ));
            }
        }
    }
}

/// The requests of a schedule of `total` that segments `a..=b` of `n`
/// hold together (each holds the `k < total` with `k mod n` its index):
/// in constant time, however many segments the range spans.
fn range_share(a: u64, b: u64, n: u64, total: u64) -> u64 {
    let (q, r) = (total / n, total % n);
    let extra = if r > a { r.min(b + 1) - a } else { 0 };
    (b - a + 1).saturating_mul(q).saturating_add(extra)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_holds_the_sum_of_its_segments_shares() {
        for n in [1u64, 2, 3, 7, 10] {
            for total in [0u64, 1, 5, 9, 10, 23, 100] {
                for a in 0..n {
                    for b in a..n {
                        let sum: u64 = (a..=b)
                            .map(|i| ScheduleSegment::new(i, n).unwrap().share(total))
                            .sum();
                        assert_eq!(
                            range_share(a, b, n, total),
                            sum,
                            "{a}..={b} of {n}, {total}"
                        );
                    }
                }
            }
        }
        assert_eq!(range_share(1, 4_294_967_296, 4_294_967_297, 300), 299);
    }
}
