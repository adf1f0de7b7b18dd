//! Split studies: one study's load spread over many workers.
//!
//! `loadlab study PLAN --segment=i/n --start-at=T` runs every attack step of
//! the plan with segment `i/n` of its schedule (see `loadlab_core::segment`:
//! worker `i` sends the requests `k` with `k mod n == i` at their global
//! intended times). The workers never talk to each other: each run starts
//! on a **fixed timetable** computed from the plan alone ([`timetable`]),
//! so every worker starts every run on the same instant. `study merge`
//! then adds the workers' stores run by run, exactly ([`merge_run`],
//! [`merge_stores`]), names what is missing, and writes the report.
//!
//! What needs the merged outcome of a run before the next one is chosen
//! cannot be split: a ceiling search, stop rules. Neither can a plan whose
//! in-process origin would run once per worker, nor workload steps (k6
//! scripts, sysbench). [`check_plan`] refuses those up front.

mod merge;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loadlab_core::format_go_duration;

use crate::analysis;
use crate::env::Environment;
use crate::error::StudyError;
use crate::plan::Plan;
use crate::store::{RunRow, Store, StudyRow};
pub use crate::timetable::{Slot, scheduled_total, slot_length, timetable};
pub use crate::worker::{SplitOptions, WorkerStudy, WorkersNote};
pub use merge::merge_run;

/// The pause added to every slot of the timetable, beyond the plan's step
/// and cool-down (`--step-slack`): room for the run's in-flight requests to
/// finish and for the store to commit, so that the next run starts on time.
pub const DEFAULT_STEP_SLACK: Duration = Duration::from_secs(2);

/// The plan features a split study cannot have, each with its reason (an
/// empty plan-level error list means the plan can be split).
pub fn check_plan(plan: &Plan) -> Result<(), String> {
    let mut why = Vec::new();
    if plan.ceiling.is_some() {
        why.push(
            "`ceiling`: each probe's rate depends on the merged outcome of the previous one, which no worker has (run the sweep split, then the probes as a second plan)"
                .to_string(),
        );
    }
    if plan.stop_after_failures.is_some() {
        why.push(
            "`stop.after_failures`: whether a target continues depends on the merged outcome of its step, which no worker has"
                .to_string(),
        );
    }
    if plan.origin.is_some() {
        why.push(
            "`origin`: every worker would start its own in-process origin, each seeing 1/n of the load; run `loadlab origin` once and point the targets at it"
                .to_string(),
        );
    }
    if !plan.origins.is_empty() {
        why.push(
            "`origins`: every worker would start its own in-process origins, each seeing 1/n of the load; run `loadlab origin` once per origin and point the targets at them"
                .to_string(),
        );
    }
    for t in &plan.targets {
        if !t.members.is_empty() {
            why.push(format!(
                "target {} is a concurrent group: groups are not split yet (only single HTTP targets are)",
                t.name
            ));
        }
        if t.replay.is_some() {
            why.push(format!(
                "target {} replays a log: replays are not split yet (only HTTP targets with requests are)",
                t.name
            ));
        }
        if let Some(w) = &t.workload {
            why.push(format!(
                "target {} is a {} {}: workload steps are not split yet (only HTTP targets are)",
                t.name,
                w.tool(),
                if w.tool() == "k6" { "script" } else { "test" }
            ));
        }
    }
    if plan.load.rates.contains(&0) {
        why.push("a rate of 0 (as fast as possible) has no schedule to split".to_string());
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "plan {:?} cannot be split over workers (--segment): {}",
            plan.name,
            why.join("; ")
        ))
    }
}

/// The files a plan names, as written (relative to its folder, unless
/// absolute): each target's `targets_file` and the `@body` files those
/// name (relative to the targets file, as the study reads them). What a
/// worker needs beside the plan (`k8s render --workers N PLAN.yaml`).
pub fn referenced_files(plan_path: &Path) -> Result<Vec<PathBuf>, String> {
    let text =
        std::fs::read_to_string(plan_path).map_err(|e| format!("{}: {e}", plan_path.display()))?;
    let raw: serde_norway::Value =
        serde_norway::from_str(&text).map_err(|e| format!("{}: {e}", plan_path.display()))?;
    let dir = plan_path.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    let targets = raw
        .get("targets")
        .and_then(|t| t.as_sequence())
        .cloned()
        .unwrap_or_default();
    for t in &targets {
        let Some(file) = t.get("targets_file").and_then(|f| f.as_str()) else {
            continue;
        };
        let file = PathBuf::from(file);
        out.push(file.clone());
        let text = std::fs::read_to_string(dir.join(&file))
            .map_err(|e| format!("{}: {e}", dir.join(&file).display()))?;
        let base = file.parent().map(Path::to_path_buf).unwrap_or_default();
        for line in text.lines() {
            if let Some(p) = line.trim().strip_prefix('@') {
                out.push(base.join(p.trim()));
            }
        }
    }
    Ok(out)
}

/// A worker's store, read for the merge.
struct WorkerStore {
    path: PathBuf,
    study: StudyRow,
    env: Environment,
    worker: WorkerStudy,
    runs: Vec<RunRow>,
}

fn open_worker(path: &Path) -> Result<WorkerStore, StudyError> {
    if !path.exists() {
        return Err(StudyError::Io(format!("{}: no such file", path.display())));
    }
    let store = Store::open(path)?;
    let studies = store.studies()?;
    let found = studies.into_iter().rev().find_map(|s| {
        let env: Environment = serde_json::from_str(&s.environment_json).ok()?;
        let w = env.worker.clone()?;
        Some((s, env, w))
    });
    let Some((study, env, worker)) = found else {
        return Err(StudyError::Split(format!(
            "{}: no worker study in this store (a split study's worker writes one: `loadlab study PLAN --segment=i/n --start-at=T --db FILE`)",
            path.display()
        )));
    };
    let runs = store.runs(study.id)?;
    Ok(WorkerStore {
        path: path.to_path_buf(),
        study,
        env,
        worker,
        runs,
    })
}

/// What `study merge` produced.
#[derive(Debug, Clone)]
pub struct MergeOutcome {
    pub study_id: i64,
    pub out_dir: PathBuf,
    pub segments: u64,
    /// The segments given.
    pub present: Vec<u64>,
    /// Runs merged (every run of the timetable that any worker holds).
    pub runs: usize,
    /// `run LABEL: N requests missing: …` for each run that misses some.
    pub missing: Vec<String>,
}

/// Reads the workers' stores, checks that they are the workers of one split
/// study, merges every run of its timetable ([`merge_run`]) into a new study
/// of the store `out_db`, analyses it and writes its report to `out` (or
/// `studies/<id>-<name>`).
pub fn merge_stores(
    inputs: &[PathBuf],
    out_db: &Path,
    out: Option<PathBuf>,
) -> Result<MergeOutcome, StudyError> {
    if inputs.is_empty() {
        return Err(StudyError::Split("no worker stores given".into()));
    }
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let out_canon = canon(out_db);
    for i in inputs {
        if canon(i) == out_canon {
            return Err(StudyError::Split(format!(
                "{}: the merged store must not be one of the worker stores",
                out_db.display()
            )));
        }
    }
    let workers = inputs
        .iter()
        .map(|p| open_worker(p))
        .collect::<Result<Vec<_>, _>>()?;
    let first = &workers[0];
    let mut by_segment: BTreeMap<u64, &WorkerStore> = BTreeMap::new();
    for w in &workers {
        let differs = |what: &str, a: String, b: String| {
            StudyError::Split(format!(
                "{} and {} are not workers of the same split study: their {what} differ ({a} and {b})",
                first.path.display(),
                w.path.display()
            ))
        };
        if w.study.plan_json != first.study.plan_json {
            return Err(differs(
                "resolved plans (was the plan edited between workers?)",
                format!("{:?} from {}", first.study.name, first.study.plan_path),
                format!("{:?} from {}", w.study.name, w.study.plan_path),
            ));
        }
        if w.worker.segments != first.worker.segments {
            return Err(differs(
                "segment counts",
                first.worker.segments.to_string(),
                w.worker.segments.to_string(),
            ));
        }
        if w.worker.start_at_unix_ns != first.worker.start_at_unix_ns {
            return Err(differs(
                "start instants (--start-at)",
                loadlab_metrics::timefmt::rfc3339(first.worker.start_at_unix_ns as i128),
                loadlab_metrics::timefmt::rfc3339(w.worker.start_at_unix_ns as i128),
            ));
        }
        if w.worker.step_slack_ns != first.worker.step_slack_ns {
            return Err(differs(
                "step slacks (--step-slack)",
                format_go_duration(Duration::from_nanos(first.worker.step_slack_ns)),
                format_go_duration(Duration::from_nanos(w.worker.step_slack_ns)),
            ));
        }
        if let Some(other) = by_segment.insert(w.worker.segment, w) {
            return Err(StudyError::Split(format!(
                "segment {}/{} given twice: {} and {} (give each worker's store once)",
                w.worker.segment,
                w.worker.segments,
                other.path.display(),
                w.path.display()
            )));
        }
    }
    let plan: Plan = serde_json::from_str(&first.study.plan_json)
        .map_err(|e| StudyError::Split(format!("{}: stored plan: {e}", first.path.display())))?;
    let segments = first.worker.segments;
    let slots = timetable(
        &plan,
        first.worker.start_at_unix_ns,
        Duration::from_nanos(first.worker.step_slack_ns),
    );

    let mut store = Store::open(out_db)?;
    let mut env = first.env.clone();
    env.worker = None;
    env.merged_from = by_segment.values().map(|w| w.worker.clone()).collect();
    let id = store.create_study(
        &first.study.name,
        &first.study.plan_path,
        &first.study.plan_yaml,
        &first.study.plan_json,
        &serde_json::to_string(&env).unwrap_or_default(),
        "",
    )?;
    let out_dir = out.unwrap_or_else(|| crate::report::default_out_dir(id, &plan.name));
    store.set_out_dir(id, &out_dir.display().to_string())?;
    let mut merged = 0;
    let mut missing = Vec::new();
    for slot in &slots {
        let parts: Vec<(u64, &RunRow)> = by_segment
            .iter()
            .filter_map(|(seg, w)| {
                w.runs
                    .iter()
                    .find(|r| {
                        r.phase == slot.phase
                            && r.rate == slot.rate
                            && r.target == slot.target
                            && r.repetition == slot.repetition
                    })
                    .map(|r| (*seg, r))
            })
            .collect();
        if parts.is_empty() {
            missing.push(format!(
                "{} {} {} #{}: every segment missing (no worker holds this run)",
                slot.phase,
                plan.load.level_short(slot.rate),
                slot.target,
                slot.repetition
            ));
            continue;
        }
        let (data, mon, note) = merge_run(&plan, slot.rate, segments, &parts);
        if !note.is_complete() {
            let run = format!(
                "{} {} {} #{}",
                slot.phase,
                plan.load.level_short(slot.rate),
                slot.target,
                slot.repetition
            );
            // One line per run: its total when several segments miss some.
            let total = match note.problems.len() {
                1 => String::new(),
                _ => format!(
                    "{} requests missing{}; ",
                    note.missing,
                    note.scheduled
                        .map(|s| format!(" of {s} scheduled"))
                        .unwrap_or_default()
                ),
            };
            missing.push(format!("{run}: {total}{}", note.problems.join("; ")));
        }
        let pass = analysis::slo_pass(plan.slo.as_ref(), &data.summary);
        store.save_run(
            id,
            &slot.phase,
            slot.rate,
            &slot.target,
            slot.repetition,
            &data,
            &mon,
            pass,
        )?;
        merged += 1;
    }
    let runs = store.runs(id)?;
    let an = analysis::analyse(&plan, &runs);
    store.set_analysis(id, &serde_json::to_string(&an).unwrap_or_default())?;
    store.set_status(id, "done")?;
    let row = store.study(id)?;
    crate::report::write_report(&row, &plan, &runs, &an, &out_dir).map_err(StudyError::Report)?;
    Ok(MergeOutcome {
        study_id: id,
        out_dir,
        segments,
        present: by_segment.keys().copied().collect(),
        runs: merged,
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::SWEEP;
    use crate::collect::RunData;
    use loadlab_core::ScheduleSegment;

    fn plan(yaml: &str) -> Plan {
        Plan::from_yaml(yaml, "plan.yaml", Path::new(".")).unwrap()
    }

    const TWO: &str = "name: two
targets:
  - {name: a, url: 'http://127.0.0.1:9/a'}
  - {name: b, url: 'http://127.0.0.1:9/b'}
load: {rates: [10, 20], step: 3s, cooldown: 1s}
repetitions: 2
";

    #[test]
    fn the_timetable_is_the_sweep_on_fixed_slots() {
        let p = plan(TWO);
        let t0 = 1_800_000_000_000_000_000;
        let t = timetable(&p, t0, Duration::from_secs(2));
        let got: Vec<(u64, &str, u32, u64)> = t
            .iter()
            .map(|s| {
                (
                    s.rate,
                    s.target.as_str(),
                    s.repetition,
                    (s.start_unix_ns - t0) / 1_000_000_000,
                )
            })
            .collect();
        // Each slot: 3 s step + 1 s cool-down + 2 s slack.
        assert_eq!(
            got,
            vec![
                (10, "a", 1, 0),
                (10, "b", 1, 6),
                (10, "a", 2, 12),
                (10, "b", 2, 18),
                (20, "a", 1, 24),
                (20, "b", 1, 30),
                (20, "a", 2, 36),
                (20, "b", 2, 42),
            ]
        );
        assert!(t.iter().all(|s| s.phase == SWEEP));
        assert_eq!(slot_length(&p, Duration::ZERO), Duration::from_secs(4));
        // The same plan gives every worker the same timetable.
        assert_eq!(t, timetable(&p, t0, Duration::from_secs(2)));
    }

    #[test]
    fn plans_that_need_the_merged_outcome_are_refused() {
        assert!(check_plan(&plan(TWO)).is_ok());
        let e = check_plan(&plan(&format!(
            "{TWO}slo: {{p99: 100ms}}\nceiling: {{resolution: 5}}\nstop: {{after_failures: 1}}\n"
        )))
        .unwrap_err();
        assert!(e.contains("`ceiling`"), "{e}");
        assert!(e.contains("`stop.after_failures`"), "{e}");
        let e = check_plan(&plan(&format!(
            "{TWO}origins: {{m: {{recipes: [{{route: /a, body: ok, stages: [{{at: 0, status: 200}}]}}]}}}}\n"
        )))
        .unwrap_err();
        assert!(e.contains("`origins`: every worker would start"), "{e}");
    }

    fn row(data: RunData) -> RunRow {
        RunRow {
            id: 0,
            study_id: 0,
            phase: SWEEP.into(),
            rate: 100,
            target: "a".into(),
            repetition: 1,
            started_at: String::new(),
            summary: data.summary,
            latency: data.latency,
            service: data.service,
            series: data.series,
            monitor: Vec::new(),
            slo_pass: None,
        }
    }

    /// Splitting one stream of samples by `k mod n` into n workers' runs
    /// and merging them gives the figures of the whole stream, exactly.
    #[test]
    fn merged_parts_equal_the_whole() {
        use crate::collect::Collector;
        use loadlab_core::{AttackInfo, Sample, Sink, WorkerInfo};
        let p = plan(TWO);
        let t0 = 1_800_000_000_000_000_000u64;
        let total = 2_000u64;
        let sample = |k: u64| {
            let at = k * 5_000_000; // 200/s
            Sample {
                seq: k,
                intended_ns: at,
                sent_ns: at + (k * 7919) % 300_000,
                done_ns: at + 1_000_000 + (k * 104_729) % 40_000_000,
                status: if k.is_multiple_of(17) { 503 } else { 200 },
                bytes_in: 11 + k % 3,
                bytes_out: 2,
                ..Default::default()
            }
        };
        let new = || Collector::new(100, 1_000_000_000, 100_000_000);
        let mut whole = new();
        for k in 0..total {
            whole.record(&sample(k));
        }
        let whole = whole.finish().summary;
        for n in [1u64, 2, 3, 7] {
            let rows: Vec<(u64, RunRow)> = (0..n)
                .map(|i| {
                    let mut c = new().keep_part();
                    Sink::begin(
                        &mut c,
                        &AttackInfo {
                            start_unix_ns: t0,
                            worker: Some(WorkerInfo {
                                index: i,
                                count: n,
                                start_at_unix_ns: t0,
                                began_unix_ns: t0,
                                scheduled_total: Some(total),
                                ..Default::default()
                            }),
                            ..Default::default()
                        },
                    );
                    for k in (i..total).step_by(n as usize) {
                        c.record(&sample(k));
                    }
                    (i, row(c.finish()))
                })
                .collect();
            let parts: Vec<(u64, &RunRow)> = rows.iter().map(|(i, r)| (*i, r)).collect();
            let (m, _, note) = merge_run(&p, 100, n, &parts);
            let mut got = m.summary.clone();
            got.workers = None;
            assert_eq!(got, whole, "n = {n}");
            assert!(note.is_complete() && note.problems.is_empty(), "{note:?}");
            assert_eq!(note.present.len() as u64, n);
            assert_eq!(
                m.series.iter().map(|s| s.count).sum::<u64>(),
                total,
                "series counts add up"
            );
            // One worker's run left out: its share is missing, by count.
            if n == 3 {
                let (m, _, note) = merge_run(&p, 100, n, &[parts[0], parts[2]]);
                let share = ScheduleSegment { index: 1, count: 3 }.share(total);
                assert_eq!(note.missing, share);
                assert_eq!(
                    m.summary.requests + m.summary.warmup_requests,
                    total - share
                );
                let text = crate::report::text::extras(&m.summary, Duration::from_secs(1));
                assert!(
                    text.contains(&format!("{share} requests missing: segment 1/3 absent")),
                    "{text}"
                );
            }
        }
    }

    #[test]
    fn missing_lines_name_the_count() {
        let n = WorkersNote {
            segments: 3,
            present: vec![0, 2],
            scheduled: Some(30),
            missing: 10,
            problems: vec!["10 requests missing: segment 1/3 absent".into()],
            ..WorkersNote::default()
        };
        let l = n.lines();
        assert_eq!(l[0], "Workers       2 of 3 segments, start spread 0s");
        assert_eq!(l[1], "Missing       10 requests missing of 30 scheduled");
        assert!(l[2].contains("segment 1/3 absent"));
    }
}
