//! Runs a plan: the sweep (rates × repetitions × targets, interleaved
//! A B A B so drift hits every target alike), stop rules, then the ceiling
//! search (bisection between the last passing and first failing rate).
//!
//! The schedule is a pure function of the plan and of the outcomes so far, so
//! `--resume` replays it: runs already committed to the store are read back
//! instead of being run again, and the first missing run is where work resumes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use loadlab_core::{Sink, format_go_duration};
use loadlab_engine::{LiveStats, StopSignal};

use crate::analysis::{self, PROBE, SWEEP};
use crate::env::Environment;
pub use crate::error::StudyError;
use crate::monitor;
use crate::plan::{CeilingMethod, Plan};
pub use crate::report::default_out_dir;
use crate::store::{RunToSave, Store};
use crate::worker::SplitOptions;
use crate::workload::WorkloadRunner;

mod ceiling_model;
mod execute;
mod group;
use execute::execute;
pub use execute::{check_workloads, scrub};

/// How to run a study.
pub struct RunOptions {
    /// The store file.
    pub db: PathBuf,
    /// The report folder (default: `studies/<id>-<name>` under the current directory).
    pub out: Option<PathBuf>,
    /// Continue the latest unfinished study of this plan instead of starting anew.
    pub resume: bool,
    /// The plan file (identifies the study for `--resume`) and its text.
    pub plan_path: String,
    pub plan_yaml: String,
    /// Fire to stop the study: the run in flight is abandoned (not committed).
    pub stop: Arc<StopSignal>,
    /// Progress lines (one per completed run, and stop rules).
    pub progress: Box<dyn FnMut(&str) + Send>,
    /// A live display: the plan's outline at start, each run as it goes.
    pub observer: Option<Box<dyn Observer>>,
    /// Runs the steps of `script` and `sysbench` targets (the CLI's faces);
    /// a plan with such targets fails at its first one without it.
    pub workloads: Option<Arc<dyn WorkloadRunner>>,
    /// Run as one worker of a split study (`--segment=i/n --start-at=T`):
    /// every run sends its segment of the schedule, on the fixed timetable
    /// of [`crate::split::timetable`].
    pub split: Option<SplitOptions>,
    /// Called after each run is committed to the store (the CLI uploads a
    /// worker's store to S3 there, so a worker that dies keeps its runs).
    pub committed: Option<Box<dyn FnMut() + Send>>,
    /// Names the study in a history (`loadlab runs history`); empty: its
    /// start time. A resumed study keeps its label.
    pub label: String,
}

/// What a live display is told when a run starts.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// Position of the run in the schedule, from 1.
    pub index: usize,
    /// Runs planned so far: shrinks when a stop rule drops a target's higher
    /// rates, grows when the ceiling search starts (at most its worst case).
    pub total: usize,
    pub phase: String,
    pub rate: u64,
    /// The step's level as shown: `800/s`, `8 thr`, `CHANNELS=200`.
    pub level: String,
    pub target: String,
    pub repetition: u32,
    /// How long the run sends (the plan's `step`).
    pub step: Duration,
    /// The run's first part left out of its figures (the plan's `warmup`).
    pub warmup: Duration,
    /// Estimated time until the study ends, this run included.
    pub left: Duration,
}

impl RunInfo {
    /// `run 3/24 sweep 800/s c6g #2`
    pub fn label(&self) -> String {
        format!(
            "run {}/{} {} {} {} #{}",
            self.index, self.total, self.phase, self.level, self.target, self.repetition,
        )
    }
}

/// Hooks for a live display of a study (the CLI draws one on a terminal).
pub trait Observer: Send {
    /// Once, before the first run: the plan's outline and the estimated time.
    fn outline(&mut self, _lines: &[String]) {}
    /// A run starts. The returned sink, if any, gets the run's samples;
    /// `live` counts its requests as they go.
    fn run_started(&mut self, _run: &RunInfo, _live: Arc<LiveStats>) -> Option<Box<dyn Sink>> {
        None
    }
    /// The run has ended (before its progress line is written).
    fn run_ended(&mut self) {}
}

/// A duration for estimates: whole seconds (at least 1s), Go syntax.
pub fn approx(d: Duration) -> String {
    format_go_duration(Duration::from_secs(d.as_secs_f64().round().max(1.0) as u64))
}

/// What a finished study produced.
#[derive(Debug, Clone)]
pub struct StudyOutcome {
    pub study_id: i64,
    pub out_dir: PathBuf,
    /// Runs executed by this invocation (excludes runs read back on resume).
    pub executed: usize,
    /// Runs read back from the store.
    pub reused: usize,
}

struct Ctx<'a> {
    plan: &'a Plan,
    store: &'a mut Store,
    study: i64,
    done: HashMap<(String, u64, String, u32), Option<bool>>,
    /// What `{origin}` and `{origin.NAME}` stand for.
    origins: crate::origins::Origins,
    pid: Option<u32>,
    opts: &'a mut RunOptions,
    executed: usize,
    reused: usize,
    /// Position in the schedule (reused runs included) and runs planned.
    position: usize,
    planned: usize,
    /// Wall time spent by executed runs (cool-down included), for estimates.
    spent: Duration,
    /// A split study's worker: the start of the next run's slot (ns since
    /// the Unix epoch).
    slot: Option<u64>,
}

impl Ctx<'_> {
    /// Returns the run's SLO outcome, running it unless already stored.
    fn run(
        &mut self,
        phase: &str,
        rate: u64,
        target: &str,
        rep: u32,
    ) -> Result<Option<bool>, StudyError> {
        let key = (phase.to_string(), rate, target.to_string(), rep);
        self.position += 1;
        self.planned = self.planned.max(self.position);
        if let Some(p) = self.done.get(&key) {
            self.reused += 1;
            return Ok(*p);
        }
        let t0 = Instant::now();
        if self.opts.stop.is_set() {
            return Err(StudyError::Interrupted {
                study: self.study,
                done: self.done.len(),
            });
        }
        // A split study's timetable holds the cool-down.
        if self.executed > 0 && !self.plan.load.cooldown.is_zero() && self.opts.split.is_none() {
            sleep_unless(&self.opts.stop, self.plan.load.cooldown);
            if self.opts.stop.is_set() {
                return Err(StudyError::Interrupted {
                    study: self.study,
                    done: self.done.len(),
                });
            }
        }
        let info = RunInfo {
            index: self.position,
            total: self.planned,
            phase: phase.to_string(),
            rate,
            level: self.plan.load.level_short(rate),
            target: target.to_string(),
            repetition: rep,
            step: self.plan.load.step,
            warmup: self.plan.load.warmup,
            left: self.per_run() * (self.planned - self.position + 1) as u32,
        };
        let live = LiveStats::new();
        let extra = match self.opts.observer.as_mut() {
            Some(o) => o.run_started(&info, live.clone()),
            None => None,
        };
        let split = match (self.opts.split, self.slot) {
            (Some(o), Some(slot)) => {
                let now = unix_now_ns();
                // Within the engine's tolerance the run keeps the common
                // schedule (what is already due goes out at once, as send
                // lag); later it starts now, its requests shifted.
                let keep = now <= slot + LATE_TOLERANCE.as_nanos() as u64;
                if !keep {
                    (self.opts.progress)(&format!(
                        "worker {}/{} is {} late for the slot of {}: it starts now; the merged run will show the shift as start spread",
                        o.segment.index,
                        o.segment.count,
                        approx(Duration::from_nanos(now - slot)),
                        info.label()
                    ));
                }
                Some((o.segment, slot, keep))
            }
            _ => None,
        };
        let group = self.plan.target(target).filter(|t| !t.members.is_empty());
        let res = match group {
            Some(g) => group::execute_group(
                self.plan,
                g,
                rate,
                &self.origins,
                self.pid,
                &self.opts.stop,
                extra,
                live,
                self.opts.workloads.as_ref(),
            )
            .map(|g| (g.combined, g.monitor, g.members)),
            None => execute(
                self.plan,
                target,
                rate,
                &self.origins,
                self.pid,
                &self.opts.stop,
                extra,
                live,
                self.opts.workloads.as_ref(),
                split,
                None,
            )
            .map(|(d, m)| (d, m, Vec::new())),
        };
        if let Some(o) = self.opts.observer.as_mut() {
            o.run_ended();
        }
        let (data, mon, members) = res?;
        if self.opts.stop.is_set() {
            return Err(StudyError::Interrupted {
                study: self.study,
                done: self.done.len(),
            });
        }
        let slo = self.plan.slo.as_ref();
        let pass = analysis::slo_pass(slo, &data.summary);
        // A group's members first, then the group: all in one transaction.
        let mut runs: Vec<RunToSave<'_>> = members
            .iter()
            .map(|(name, d)| RunToSave {
                target: name,
                data: d,
                monitor: &[],
                slo_pass: analysis::slo_pass(slo, &d.summary),
            })
            .collect();
        runs.push(RunToSave {
            target,
            data: &data,
            monitor: &mon,
            slo_pass: pass,
        });
        self.store.save_runs(self.study, phase, rate, rep, &runs)?;
        self.done.insert(key, pass);
        if let Some(f) = self.opts.committed.as_mut() {
            f();
        }
        self.executed += 1;
        self.spent += t0.elapsed();
        let s = &data.summary;
        let verdict = match pass {
            Some(true) => "within SLO",
            Some(false) => "FAILS SLO",
            None => "",
        };
        let left = self.planned - self.position;
        let counter = if left > 0 {
            format!(
                "run {}/{}, about {} left",
                self.position,
                self.planned,
                approx(self.per_run() * left as u32)
            )
        } else {
            format!("run {}/{}", self.position, self.planned)
        };
        let what = format!(
            "{phase} {} {target} #{rep}",
            self.plan.load.level_short(rate)
        );
        let line = format!("[{counter}] {what}: {}", run_line(s, verdict));
        (self.opts.progress)(&line);
        for (name, d) in &members {
            let v = match analysis::slo_pass(slo, &d.summary) {
                Some(true) => "within SLO",
                Some(false) => "FAILS SLO",
                None => "",
            };
            (self.opts.progress)(&format!("    {name}: {}", run_line(&d.summary, v)));
        }
        // Nothing is gained by going on against a target that is not
        // there; after the last run the study ends as planned, and its
        // answer says it.
        if s.unreachable() && self.position < self.planned {
            return Err(StudyError::Unreachable(format!(
                "target {target}: {} (run {what}; the study stops with {} run(s) stored in study {})",
                unreachable_words(s),
                self.done.len(),
                self.study,
            )));
        }
        Ok(pass)
    }

    /// Wall time per run: measured once runs are done, else the plan's.
    fn per_run(&self) -> Duration {
        if self.executed > 0 {
            self.spent / self.executed as u32
        } else {
            self.plan.load.step + self.plan.load.cooldown
        }
    }
}

/// A completed run in a few words: its figures (transactions and queries
/// per second for a database test, requests and successes per second
/// otherwise), its SLO verdict, and what makes it no plain measurement of
/// the target.
pub fn run_line(s: &crate::collect::RunSummary, verdict: &str) -> String {
    let p99 = crate::report::text::round_duration(s.p99_ns);
    let mut line = match &s.queries {
        Some(q) => format!(
            "{} tx, {:.1} tps, {:.1} qps, p99 {p99} per transaction, success {:.2}% {verdict}",
            s.requests,
            s.throughput,
            q.per_second,
            s.success * 100.0,
        ),
        None => format!(
            "{} req, {:.1} ok/s, p99 {p99}, success {:.2}% {verdict}",
            s.requests,
            s.throughput,
            s.success * 100.0,
        ),
    };
    let crossed: Vec<String> = s
        .crossed()
        .iter()
        .map(|t| format!("{} {}", t.metric, t.threshold))
        .collect();
    if !crossed.is_empty() {
        line = format!(
            "{}; thresholds crossed: {}",
            line.trim_end(),
            crossed.join(", ")
        );
    }
    if s.generator_behind() {
        line = format!("{}; {}", line.trim_end(), crate::collect::BEHIND_NOTE);
    }
    if s.unreachable() {
        line = format!("{}; {}", line.trim_end(), unreachable_words(s));
    }
    line
}

pub use crate::collect::unreachable_words;

pub(crate) use crate::analysis::bisection_probes as probes_left;

/// The plan's outline and estimated time, printed before the first run.
/// `stored`: runs already in the store (a resumed study), not run again.
pub fn outline(plan: &Plan, study: i64, db: &Path, out: &Path, stored: usize) -> Vec<String> {
    let l = &plan.load;
    let names: Vec<&str> = plan.scheduled().map(|t| t.name.as_str()).collect();
    let rates: Vec<String> = l.rates.iter().map(u64::to_string).collect();
    let rates = if rates.len() > 6 {
        format!("{}, {}, …, {}", rates[0], rates[1], rates[rates.len() - 1])
    } else {
        rates.join(", ")
    };
    let runs = l.rates.len() * names.len() * plan.repetitions as usize;
    let steps = if l.is_rate() {
        format!("{} rate(s) ({rates} req/s)", l.rates.len())
    } else {
        format!("{} step(s) ({}: {rates})", l.rates.len(), l.axis)
    };
    let mut first = format!(
        "study {study} \"{}\": {} target(s) ({}) × {steps} × {} repetition(s) = {runs} runs of {}",
        plan.name,
        names.len(),
        names.join(", "),
        plan.repetitions,
        format_go_duration(l.step),
    );
    if !l.warmup.is_zero() {
        first.push_str(&format!(" ({} warm-up)", format_go_duration(l.warmup)));
    }
    if !l.cooldown.is_zero() {
        first.push_str(&format!(
            ", {} cool-down between runs",
            format_go_duration(l.cooldown)
        ));
    }
    let per_run = l.step + l.cooldown;
    let left = runs.saturating_sub(stored);
    let mut second = format!("estimated time: about {}", approx(per_run * left as u32));
    if let Some(c) = &plan.ceiling {
        // Worst case: the widest bracket the sweep can leave, for every target.
        let mut widest = (0, l.rates[0]);
        for w in l.rates.windows(2) {
            if w[1] - w[0] > widest.1 - widest.0 {
                widest = (w[0], w[1]);
            }
        }
        let probes = probes_left(widest.0, widest.1, 0, c) * names.len();
        if probes > 0 {
            second.push_str(&format!(
                ", then a ceiling search of at most {probes} run(s) (about {} more)",
                approx(per_run * probes as u32)
            ));
        }
    }
    if let Some(n) = plan.stop_after_failures {
        second.push_str(&format!(
            "; fewer runs if a target fails the SLO {n} step(s) in a row"
        ));
    }
    let mut lines = vec![first];
    if stored > 0 {
        lines.push(format!(
            "resuming study {study}: {stored} run(s) reused from the store, the others run now"
        ));
    }
    lines.push(second);
    lines.push(format!(
        "store: {} · report: {}",
        db.display(),
        out.display()
    ));
    lines
}

/// How late a split study's worker may be for a run's slot and still keep
/// the common schedule: half the engine's `START_AT_MAX_PAST`, so that the
/// run's set-up (targets, TLS) never takes it past the engine's bound.
const LATE_TOLERANCE: Duration = Duration::from_millis(500);

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

fn sleep_unless(stop: &StopSignal, d: Duration) {
    stop.wait_timeout(d);
}

/// Runs (or resumes) a study and writes its report. Blocking.
pub fn run_study(plan: &Plan, mut opts: RunOptions) -> Result<StudyOutcome, StudyError> {
    if opts.split.is_some() {
        crate::split::check_plan(plan).map_err(StudyError::Split)?;
        if opts.resume {
            return Err(StudyError::Split(
                "--resume cannot continue a split study's worker: its runs are on a fixed timetable that has moved on; run the study again with a new --start-at".into(),
            ));
        }
    }
    // Scripts compile and databases answer before anything is created.
    check_workloads(plan, opts.workloads.as_ref())?;
    let mut store = Store::open(&opts.db)?;
    // What is stored is redacted: the resolved plan keeps `${NAME}`
    // references (never their values) and hides literal credentials.
    let plan_json = serde_json::to_string(&plan.redacted()).unwrap_or_default();
    let (study, out_dir, done) = if opts.resume {
        let row = store.resumable(&opts.plan_path)?.ok_or_else(|| {
            StudyError::Resume(format!(
                "no unfinished study of {} in {}",
                opts.plan_path,
                opts.db.display()
            ))
        })?;
        if row.plan_json != plan_json {
            return Err(StudyError::Resume(format!(
                "the plan changed since study {} started; run it as a new study (without --resume)",
                row.id
            )));
        }
        let runs = store.runs(row.id)?;
        let done = runs
            .into_iter()
            .map(|r| ((r.phase, r.rate, r.target, r.repetition), r.slo_pass))
            .collect();
        // A new --out moves the report; without one it goes where the
        // study started writing it.
        let out = match &opts.out {
            Some(o) => {
                store.set_out_dir(row.id, &o.display().to_string())?;
                o.clone()
            }
            None => PathBuf::from(row.out_dir),
        };
        (row.id, out, done)
    } else {
        let mut env = Environment::capture();
        if let Some(o) = &opts.split {
            env.worker = Some(crate::worker::WorkerStudy::new(o, &env.host));
        }
        let env = serde_json::to_string(&env).unwrap_or_default();
        let id = store.create_study(
            &plan.name,
            &opts.plan_path,
            &crate::secrets::redact_plan_yaml(&opts.plan_yaml),
            &plan_json,
            &env,
            "",
        )?;
        let label = match opts.label.trim() {
            "" => crate::store::now_rfc3339(),
            l => l.to_string(),
        };
        store.set_label(id, &label)?;
        let out = opts
            .out
            .clone()
            .unwrap_or_else(|| default_out_dir(id, &plan.name));
        store.set_out_dir(id, &out.display().to_string())?;
        (id, out, HashMap::new())
    };

    // The in-process origins live as long as the study.
    let origins = crate::origins::start(plan.origin.as_ref(), &plan.origins)?;
    let pid = match &plan.monitor {
        Some(m) => Some(monitor::resolve(m).map_err(StudyError::Monitor)?),
        None => None,
    };
    let planned = plan.load.rates.len() * plan.scheduled().count() * plan.repetitions as usize;
    if let Some(o) = opts.observer.as_mut() {
        o.outline(&outline(plan, study, &opts.db, &out_dir, done.len()));
    }
    if let Some(sp) = opts.split {
        let slots = crate::split::timetable(plan, sp.start_at_unix_ns, sp.step_slack);
        let every = crate::split::slot_length(plan, sp.step_slack);
        (opts.progress)(&format!(
            "worker {}/{} of a split study: {} run(s) on a fixed timetable, one every {} from {}; the last ends by {}",
            sp.segment.index,
            sp.segment.count,
            slots.len(),
            format_go_duration(every),
            loadlab_metrics::timefmt::rfc3339(sp.start_at_unix_ns as i128),
            loadlab_metrics::timefmt::rfc3339(
                (sp.start_at_unix_ns as i128) + (every.as_nanos() * slots.len() as u128) as i128
            ),
        ));
    }
    let mut ctx = Ctx {
        plan,
        store: &mut store,
        study,
        done,
        origins: origins.origins.clone(),
        pid,
        opts: &mut opts,
        executed: 0,
        reused: 0,
        position: 0,
        planned,
        spent: Duration::ZERO,
        slot: None,
    };
    let result = match ctx.opts.split {
        Some(o) => split_schedule(&mut ctx, o),
        None => schedule(&mut ctx),
    };
    let (executed, reused) = (ctx.executed, ctx.reused);
    drop(origins);
    if let Err(e) = result {
        let _ = store.set_status(study, "interrupted");
        return Err(e);
    }
    let runs = store.runs(study)?;
    let analysis = analysis::analyse(plan, &runs);
    store.set_analysis(study, &serde_json::to_string(&analysis).unwrap_or_default())?;
    // Every run is committed: the study is done even if writing the report
    // fails (`loadlab runs report ID` rewrites it from the store).
    store.set_status(study, "done")?;
    let row = store.study(study)?;
    crate::report::write_report(&row, plan, &runs, &analysis, &out_dir)
        .map_err(StudyError::Report)?;
    Ok(StudyOutcome {
        study_id: study,
        out_dir,
        executed,
        reused,
    })
}

/// A split study's worker: every run of the timetable, each on its slot.
fn split_schedule(ctx: &mut Ctx<'_>, o: SplitOptions) -> Result<(), StudyError> {
    for slot in crate::split::timetable(ctx.plan, o.start_at_unix_ns, o.step_slack) {
        ctx.slot = Some(slot.start_unix_ns);
        ctx.run(&slot.phase, slot.rate, &slot.target, slot.repetition)?;
    }
    Ok(())
}

/// The study's schedule: sweep with stop rules, then ceiling bisection.
fn schedule(ctx: &mut Ctx<'_>) -> Result<(), StudyError> {
    let plan = ctx.plan;
    // A group's members run with their group, not on their own.
    let names: Vec<String> = plan
        .targets
        .iter()
        .filter(|t| t.is_scheduled())
        .map(|t| t.name.clone())
        .collect();
    let mut fails_in_row: HashMap<String, u32> = HashMap::new();
    let mut stopped: Vec<String> = Vec::new();
    for (ri, &rate) in plan.load.rates.iter().enumerate() {
        let active: Vec<&String> = names.iter().filter(|n| !stopped.contains(n)).collect();
        if active.is_empty() {
            break;
        }
        let mut passes: HashMap<&String, Vec<bool>> = HashMap::new();
        for rep in 1..=plan.repetitions {
            for t in &active {
                let p = ctx.run(SWEEP, rate, t, rep)?;
                passes.entry(t).or_default().push(p.unwrap_or(true));
            }
        }
        for t in &active {
            let ok = analysis::step_pass(&passes[t]);
            let n = fails_in_row.entry((*t).clone()).or_default();
            *n = if ok { 0 } else { *n + 1 };
            if plan.stop_after_failures.is_some_and(|limit| *n >= limit) {
                (ctx.opts.progress)(&format!(
                    "stop rule: {t} failed the SLO {n} step(s) in a row; no higher rates for it"
                ));
                stopped.push((*t).clone());
                let skipped = (plan.load.rates.len() - ri - 1) * plan.repetitions as usize;
                ctx.planned = ctx.planned.saturating_sub(skipped).max(ctx.position);
            }
        }
    }
    let Some(c) = &plan.ceiling else {
        return Ok(());
    };
    // Bisect each target's bracket, one probe per target per round (interleaved).
    let mut brackets: Vec<(String, u64, u64, u32)> = Vec::new();
    for t in &names {
        let outcomes = analysis::step_outcomes(&ctx.store.runs(ctx.study)?, t, SWEEP);
        let Some(fail) = outcomes.iter().filter(|(_, p)| !p).map(|(r, _)| *r).min() else {
            continue;
        };
        let lo = outcomes
            .iter()
            .filter(|(r, p)| *p && *r < fail)
            .map(|(r, _)| *r)
            .max()
            .unwrap_or(0);
        brackets.push((t.clone(), lo, fail, 0));
    }
    if c.method == CeilingMethod::Model {
        return ceiling_model::search(ctx, brackets, c);
    }
    loop {
        let left: usize = brackets
            .iter()
            .map(|(_, lo, hi, n)| probes_left(*lo, *hi, *n, c))
            .sum();
        ctx.planned = ctx.position + left;
        let mut progressed = false;
        for (t, lo, hi, probes) in brackets.iter_mut() {
            if *hi - *lo <= c.resolution || *probes >= c.max_probes {
                continue;
            }
            let mid = *lo + (*hi - *lo) / 2;
            if mid == 0 || mid == *lo {
                continue;
            }
            *probes += 1;
            progressed = true;
            if ctx.run(PROBE, mid, t, 1)?.unwrap_or(true) {
                *lo = mid;
            } else {
                *hi = mid;
            }
        }
        if !progressed {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::CeilingPlan;

    #[test]
    fn probes_left_is_the_worst_case_of_the_bisection() {
        let c = CeilingPlan {
            resolution: 10,
            max_probes: 8,
            method: Default::default(),
        };
        // 0..50: 25, 37 (or 12), 43 (or 31) ... until the bracket is <= 10 wide.
        assert_eq!(probes_left(0, 50, 0, &c), 3);
        assert_eq!(probes_left(100, 110, 0, &c), 0);
        assert_eq!(probes_left(0, 1000, 6, &c), 2, "capped by max_probes");
        assert_eq!(approx(Duration::from_millis(300)), "1s");
        assert_eq!(approx(Duration::from_millis(61_600)), "1m2s");
    }
}
