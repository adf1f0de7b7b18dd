//! The report's paragraph on a split study.

use std::time::Duration;

use loadlab_core::format_go_duration;

use crate::env::Environment;
use crate::plan::Plan;
use crate::store::RunRow;
use crate::timetable::{scheduled_total_checked, timetable};

/// The report's paragraph on a split study: the workers a merged study
/// was made of and each run that misses requests (a line with the word
/// `missing` and the count), or which worker a worker's study is.
pub fn report_note(env: &Environment, plan: &Plan, runs: &[RunRow]) -> String {
    if let Some(w) = &env.worker {
        return format!(
            "This is worker {}/{} of a split study (common start {}, step slack {}): each run holds its segment of the schedule only; `loadlab study merge` adds the workers' stores into the whole study.",
            w.segment,
            w.segments,
            loadlab_metrics::timefmt::rfc3339(w.start_at_unix_ns as i128),
            format_go_duration(Duration::from_nanos(w.step_slack_ns)),
        );
    }
    let Some(w0) = env.merged_from.first() else {
        return String::new();
    };
    let n = w0.segments;
    let given: Vec<String> = env
        .merged_from
        .iter()
        .map(|w| {
            if w.host.is_empty() {
                format!("{}/{n}", w.segment)
            } else {
                format!("{}/{n} ({})", w.segment, w.host)
            }
        })
        .collect();
    let mut o = format!(
        "Merged from {} of {n} workers of a split study (segments {}; common start {}, step slack {}): every run's counts, histograms and series are the workers' added exactly.",
        env.merged_from.len(),
        given.join(", "),
        loadlab_metrics::timefmt::rfc3339(w0.start_at_unix_ns as i128),
        format_go_duration(Duration::from_nanos(w0.step_slack_ns)),
    );
    let short: Vec<String> = runs
        .iter()
        .filter_map(|r| {
            let w = r.summary.workers.as_ref()?;
            (!w.is_complete()).then(|| {
                format!(
                    "{} {} #{} at {}: {} requests missing{}",
                    r.phase,
                    r.target,
                    r.repetition,
                    r.rate,
                    w.missing,
                    w.scheduled
                        .map(|s| format!(" of {s} scheduled"))
                        .unwrap_or_default()
                )
            })
        })
        .collect();
    let mut short = short;
    let slack = Duration::from_nanos(w0.step_slack_ns);
    for slot in timetable(plan, w0.start_at_unix_ns, slack) {
        let held = runs.iter().any(|r| {
            r.phase == slot.phase
                && r.rate == slot.rate
                && r.target == slot.target
                && r.repetition == slot.repetition
        });
        if !held {
            let all = scheduled_total_checked(plan, slot.rate)
                .map(|t| format!("all {t} requests"))
                .unwrap_or_else(|| "all its requests".into());
            short.push(format!(
                "{} {} #{} at {}: {all} missing (no worker holds this run)",
                slot.phase, slot.target, slot.repetition, slot.rate
            ));
        }
    }
    if short.is_empty() {
        o.push_str(" No run misses any request.");
    } else {
        o.push_str(&format!(
            " {} run(s) have requests missing (a worker's run absent or cut short; its figures are the others'): {}.",
            short.len(),
            short.join("; ")
        ));
    }
    o
}
