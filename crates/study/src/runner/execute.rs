//! One run's work: the engine's attack or a workload step, collected
//! ([`execute`]); the check of workload targets before the first run
//! ([`check_workloads`]); and the scrubbing of every message of a run
//! ([`scrub`]).

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use loadlab_core::{Rate, Sink};
use loadlab_engine::replay::SharedStats;
use loadlab_engine::{AttackConfig, LiveStats, StopSignal, Target, TargetSource};

use super::StudyError;
use crate::collect::{Collector, RunData};
use crate::monitor::Monitor;
use crate::origins::Origins;
use crate::plan::Plan;
use crate::secrets::{expand, is_credential, redact_urls};
use crate::store::MonitorPoint;
use crate::workload::{WorkloadRunner, WorkloadStep};

/// Runs one attack through the engine and collects it.
#[allow(clippy::too_many_arguments)]
pub(super) fn execute(
    plan: &Plan,
    target: &str,
    rate: u64,
    origins: &Origins,
    pid: Option<u32>,
    stop: &Arc<StopSignal>,
    extra: Option<Box<dyn Sink>>,
    live: Arc<LiveStats>,
    workloads: Option<&Arc<dyn WorkloadRunner>>,
    split: Option<(loadlab_core::ScheduleSegment, u64, bool)>,
    start_at: Option<u64>,
) -> Result<(RunData, Vec<MonitorPoint>), StudyError> {
    let l = &plan.load;
    let t = plan
        .target(target)
        .ok_or_else(|| StudyError::Engine(format!("unknown target {target}")))?;
    // Only the engine sees the expanded values; every message is scrubbed.
    let scrubbed = |m: String| StudyError::Engine(scrub(plan, origins, &m));
    let expand = |v: &str| crate::secrets::expand(v, &plan.env).map_err(scrubbed);
    let mut collector = new_collector(plan, rate);
    if split.is_some() || start_at.is_some() {
        collector = collector.keep_part();
    }
    // Everything that can fail before the run does, before the monitor starts.
    #[allow(clippy::large_enum_variant)] // one value per run, never moved around
    enum Job<'a> {
        Workload(&'a Arc<dyn WorkloadRunner>, WorkloadStep),
        Http(TargetSource, AttackConfig),
    }
    // A replayed log's reading, for the run's summary.
    let mut replay_stats = None;
    let job = match &t.workload {
        Some(w) => {
            let runner = workloads.ok_or_else(|| {
                StudyError::Engine(format!(
                    "target {target} is a {} test, and this study runner cannot run those",
                    w.tool()
                ))
            })?;
            let mut step = workload_step(plan, target, w, rate, origins)?;
            step.start_at_unix_ns = start_at;
            Job::Workload(runner, step)
        }
        None => Job::Http(
            {
                let (source, stats) = http_source(plan, t, rate, origins, &expand)?;
                replay_stats = stats;
                source
            },
            AttackConfig {
                name: format!("{}/{target}/{rate}", plan.name),
                segment: split.map_or(loadlab_core::ScheduleSegment::WHOLE, |s| s.0),
                start_at_unix_ns: split
                    .and_then(|(_, slot, keep)| keep.then_some(slot))
                    .or(start_at),
                weights: t.weights(),
                ..l.attack_config(Rate::per_second(rate))
            },
        ),
    };
    let mon = start_monitor(plan, pid);
    let sink = (collector, extra);
    let res = match job {
        Job::Workload(runner, step) => {
            let mut sink = sink;
            runner
                .run(&step, stop.clone(), &mut sink)
                .map(|r| {
                    let mut data = sink.0.finish();
                    data.summary.thresholds = r.thresholds;
                    (data, 0, 0)
                })
                .map_err(|f| StudyError::Workload {
                    code: f.code,
                    message: format!(
                        "target {target} at {}: {}",
                        l.level_label(rate),
                        scrub(plan, origins, &f.message)
                    ),
                })
        }
        Job::Http(source, cfg) => {
            let flag = stop.clone();
            let shutdown = async move { flag.wait().await };
            match loadlab_engine::run_blocking(cfg, source, sink, shutdown, live) {
                // A replayed log that cannot be read on (or, `strict`, a
                // malformed line) fails the run.
                Ok((summary, _)) if summary.target_error.is_some() => Err(scrubbed(format!(
                    "target {target}: {}",
                    summary.target_error.expect("checked")
                ))),
                Ok((summary, (c, _))) => Ok((c.finish(), summary.unsent, summary.late)),
                Err(e) => Err(scrubbed(e.to_string())),
            }
        }
    };
    let points = mon.map(Monitor::stop).unwrap_or_default();
    let (mut data, unsent, late) = res?;
    scrub_errors(plan, origins, &mut data.summary);
    if let Some((stats, name)) = replay_stats {
        let read = stats.lock().expect("replay stats lock").clone();
        // A study's replay keeps the engine's default reorder window.
        for line in read.report(&name, loadlab_engine::replay::DEFAULT_REORDER) {
            let line = scrub(plan, origins, &line);
            eprintln!("loadlab: target {target}: {line}");
            data.summary.replay.push(line);
        }
    }
    data.summary.unsent = unsent;
    data.summary.late = late;
    if let (Some((seg, slot, _)), Some(p)) = (split, data.summary.part.as_mut()) {
        p.segment = seg.index;
        p.segments = seg.count;
        p.slot_unix_ns = slot;
    }
    add_monitor(plan, &points, &mut data.summary);
    Ok((data, points))
}

/// The monitor of the process under test for one run, if the plan has one.
pub(super) fn start_monitor(plan: &Plan, pid: Option<u32>) -> Option<Monitor> {
    let interval = plan
        .monitor
        .as_ref()
        .map_or(Duration::from_secs(1), |m| m.interval);
    pid.map(|p| Monitor::start(p, interval))
}

/// Error texts name the URL as sent: shows them as the plan does.
pub(super) fn scrub_errors(plan: &Plan, origins: &Origins, s: &mut crate::collect::RunSummary) {
    for (k, n) in std::mem::take(&mut s.errors) {
        let k = scrub(plan, origins, &k);
        *s.errors.entry(k).or_default() += n;
    }
}

/// The run's CPU and memory figures from the monitor's `points`.
pub(super) fn add_monitor(
    plan: &Plan,
    points: &[MonitorPoint],
    summary: &mut crate::collect::RunSummary,
) {
    // CPU figures exclude the warm-up, like every other figure.
    let warm = plan.load.warmup.as_secs_f64();
    let measured: Vec<&MonitorPoint> = points.iter().filter(|p| p.t > warm).collect();
    if !measured.is_empty() {
        summary.cpu_mean =
            Some(measured.iter().map(|p| p.cpu).sum::<f64>() / measured.len() as f64);
        summary.cpu_max = measured
            .iter()
            .map(|p| p.cpu)
            .fold(None, |m, c| Some(m.map_or(c, |m: f64| m.max(c))));
        summary.rss_max = measured.iter().map(|p| p.rss).max();
    }
}

/// A run's collector at `rate`.
pub(super) fn new_collector(plan: &Plan, rate: u64) -> Collector {
    let l = &plan.load;
    // About 100 points per run in the latency-over-time chart, at least 100 ms each.
    let bucket = (l.step.as_nanos() as u64 / 100).max(100_000_000);
    Collector::new(rate, l.warmup.as_nanos() as u64, bucket)
}

/// One step of a workload target, `${NAME}`, `{origin}` and
/// `{origin.NAME}` expanded.
fn workload_step(
    plan: &Plan,
    target: &str,
    w: &crate::workload::WorkloadPlan,
    rate: u64,
    origins: &Origins,
) -> Result<WorkloadStep, StudyError> {
    use crate::workload::WorkloadPlan;
    let expand = |v: &str| {
        crate::secrets::expand(v, &plan.env)
            .map(|v| origins.expand(&v))
            .map_err(|m| StudyError::Engine(scrub(plan, origins, &m)))
    };
    let workload = match w {
        WorkloadPlan::Sysbench { args } => WorkloadPlan::Sysbench {
            args: args.iter().map(|a| expand(a)).collect::<Result<_, _>>()?,
        },
        WorkloadPlan::Script { path, env } => WorkloadPlan::Script {
            path: path.clone(),
            env: env
                .iter()
                .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                .collect::<Result<_, StudyError>>()?,
        },
    };
    Ok(WorkloadStep {
        name: format!("{}/{target}/{rate}", plan.name),
        workload,
        axis: plan.load.axis.clone(),
        level: rate,
        step: plan.load.step,
        base_url: origins.unnamed.clone().unwrap_or_default(),
        start_at_unix_ns: None,
    })
}

/// Before the store is opened and any run starts: every script compiles
/// and every database target accepts one connection (the runner's
/// [`WorkloadRunner::check`]). The error names the target.
pub fn check_workloads(
    plan: &Plan,
    workloads: Option<&Arc<dyn WorkloadRunner>>,
) -> Result<(), StudyError> {
    let Some(runner) = workloads else {
        return Ok(());
    };
    let Some(&first) = plan.load.rates.first() else {
        return Ok(());
    };
    // The origins are not started yet: nothing is sent to them.
    let origins = Origins::placeholder(plan.origin.as_ref(), &plan.origins);
    for t in &plan.targets {
        let Some(w) = &t.workload else { continue };
        let step = workload_step(plan, &t.name, w, first, &origins)?;
        runner.check(&step).map_err(|f| StudyError::Workload {
            code: f.code,
            message: format!("target {}: {}", t.name, scrub(plan, &origins, &f.message)),
        })?;
    }
    Ok(())
}

/// What an HTTP target sends: its requests, or the log it replays (at
/// the speed of the step's `level`).
fn http_source(
    plan: &Plan,
    t: &crate::plan::TargetPlan,
    level: u64,
    origins: &Origins,
    expand: &dyn Fn(&str) -> Result<String, StudyError>,
) -> Result<(TargetSource, Option<(SharedStats, String)>), StudyError> {
    let Some(r) = &t.replay else {
        return http_targets(t, origins, expand).map(|t| (TargetSource::Static(t), None));
    };
    let fill = |v: &str| {
        crate::secrets::expand(v, &plan.env)
            .map(|v| origins.expand(&v))
            .map_err(|m| scrub(plan, origins, &m))
    };
    let name = r.path.display().to_string();
    r.source(&name, r.speed_at(level), &fill)
        .map(|(source, stats)| (source, Some((stats, name))))
        .map_err(|m| StudyError::Engine(format!("target {}: {}", t.name, scrub(plan, origins, &m))))
}

/// The engine's targets of an HTTP target, `${NAME}`, `{origin}` and
/// `{origin.NAME}` expanded.
fn http_targets(
    t: &crate::plan::TargetPlan,
    origins: &Origins,
    expand: &dyn Fn(&str) -> Result<String, StudyError>,
) -> Result<Vec<Target>, StudyError> {
    t.requests
        .iter()
        .map(|r| {
            Ok(Target {
                method: r.method.clone(),
                url: origins.expand(&expand(&r.url)?),
                headers: r
                    .headers
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), expand(v)?)))
                    .collect::<Result<_, StudyError>>()?,
                body: r.body.clone().map(Bytes::from).unwrap_or_default(),
            })
        })
        .collect::<Result<_, StudyError>>()
}

/// Replaces every secret `plan` knows of in `text`: its URLs as sent (with
/// the `origins` and references expanded) become their redacted
/// templates, remaining URL passwords become `xxxxx`, and any captured
/// environment value or literal credential still present becomes `REDACTED`.
/// Used for error messages and the error set of a run.
pub fn scrub(plan: &crate::Plan, origins: &Origins, text: &str) -> String {
    let shown = plan.redacted();
    let mut out = text.to_string();
    for (t, s) in plan.targets.iter().zip(&shown.targets) {
        for (r, d) in t.requests.iter().zip(&s.requests) {
            if let Ok(sent) = expand(&r.url, &plan.env) {
                let sent = origins.expand(&sent);
                let disp = origins.expand(&d.url);
                if sent != disp && !sent.is_empty() {
                    out = out.replace(&sent, &disp);
                }
            }
        }
    }
    out = redact_urls(&out);
    // Anything left that is known to be secret (too short a value would
    // mangle ordinary text; such a value is no secret anyway).
    let mut secrets: Vec<String> = plan.env.values().map(str::to_string).collect();
    for t in &plan.targets {
        let set = t.replay.iter().flat_map(|r| &r.set_headers);
        for (k, v) in t.requests.iter().flat_map(|r| &r.headers).chain(set) {
            if is_credential(k, &plan.redact) {
                secrets.push(v.trim().to_string());
                if let Some((_, rest)) = v.trim().split_once(char::is_whitespace) {
                    secrets.push(rest.trim().to_string());
                }
            }
        }
    }
    // Where they stand as values (an option's, a header's, a DSN field's),
    // not as letters in a server's prose.
    crate::secrets::redact_values(&out, &secrets)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::EnvValues;

    #[test]
    fn scrub_shows_each_origins_urls_as_written() {
        let yaml = r#"
name: s
origins:
  master: {recipes: [{route: /, body: ok, stages: [{at: 0, status: 200}]}]}
  multi: {recipes: [{route: /news, body: ok, stages: [{at: 0, status: 200}]}]}
targets:
  - {name: a, url: "{origin.master}/?key=${KEY}"}
  - {name: b, url: "{origin.multi}/news?key=${KEY}"}
load: {rates: [10], step: 1s}
"#;
        // `${KEY}` is captured from the environment at load: load without
        // it, then put it back with a value.
        let mut plan = Plan::from_yaml(
            &yaml.replace("${KEY}", "v"),
            "p.yaml",
            std::path::Path::new("."),
        )
        .unwrap();
        for t in &mut plan.targets {
            t.requests[0].url = t.requests[0].url.replace("key=v", "key=${KEY}");
        }
        plan.env = EnvValues::of(&[("KEY", "s3cr3t-value")]);
        let origins = Origins {
            unnamed: None,
            named: vec![
                ("master".into(), "http://127.0.0.1:4001".into()),
                ("multi".into(), "http://127.0.0.1:4002".into()),
            ],
        };
        let text = "Get \"http://127.0.0.1:4002/news?key=s3cr3t-value\": timeout; Get \"http://127.0.0.1:4001/?key=s3cr3t-value\": timeout";
        assert_eq!(
            scrub(&plan, &origins, text),
            "Get \"http://127.0.0.1:4002/news?key=${KEY}\": timeout; Get \"http://127.0.0.1:4001/?key=${KEY}\": timeout"
        );
    }
}
