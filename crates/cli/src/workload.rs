//! The study's runner of `script` and `sysbench` targets: each step runs
//! this same binary's `k6 run` or `sysbench … run` as a child process
//! writing a results file, then feeds that file's samples and metric
//! records to the study's sink. A child keeps the faces' own behaviour
//! (flags, errors, exit codes) exactly as a user running the printed
//! command would see it, and a crash in a step cannot take the study down.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use loadlab_core::{AttackInfo, Sink};
use loadlab_engine::StopSignal;
use loadlab_metrics::{Item, open_results};
use loadlab_study::{WorkloadPlan, WorkloadRunner, WorkloadStep};

/// Runs workload steps as child processes of the current executable.
pub struct ChildRunner;

/// The flags that make a face write its results file.
fn results_flags(w: &WorkloadPlan, file: &Path) -> Vec<String> {
    match w {
        WorkloadPlan::Sysbench { .. } => vec![format!("--output={}", file.display())],
        WorkloadPlan::Script { .. } => vec!["--out".into(), format!("loadlab={}", file.display())],
    }
}

impl WorkloadRunner for ChildRunner {
    fn run(
        &self,
        step: &WorkloadStep,
        stop: Arc<StopSignal>,
        sink: &mut dyn Sink,
    ) -> Result<(), String> {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find loadlab itself: {e}"))?;
        let dir = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
        let file = dir.path().join("step.lr");
        let mut args = step
            .workload
            .command(&step.axis, &step.level.to_string(), step.step);
        args.remove(0); // "loadlab"
        // Results flags go before the positional arguments.
        let at = match &step.workload {
            WorkloadPlan::Sysbench { .. } => 1,
            WorkloadPlan::Script { .. } => 2,
        };
        for (i, f) in results_flags(&step.workload, &file).into_iter().enumerate() {
            args.insert(at + i, f);
        }
        // A database password goes to the child in MYSQL_PWD / PGPASSWORD,
        // never on its command line (readable by every user of the machine).
        let mut secret_env: Vec<(&str, String)> = Vec::new();
        args.retain(|a| {
            for (opt, var) in [
                ("--mysql-password=", "MYSQL_PWD"),
                ("--pgsql-password=", "PGPASSWORD"),
            ] {
                if let Some(pw) = a.strip_prefix(opt) {
                    secret_env.push((var, pw.to_string()));
                    return false;
                }
            }
            true
        });
        let mut cmd = Command::new(exe);
        // k6's option variables (K6_VUS, K6_DURATION, …) of the shell that
        // runs the study would change its steps unseen: the plan alone
        // says what a step runs.
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("K6_") {
                cmd.env_remove(k);
            }
        }
        let mut child = cmd
            .args(&args)
            .envs(secret_env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", step.workload.tool()))?;
        let mut stderr = child.stderr.take().expect("piped");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        // Waits for the child; a stop interrupts it (SIGINT, as Ctrl-C would),
        // and a step that overruns its length by far is ended.
        let limit = step.step + Duration::from_secs(60).max(step.step);
        let started = std::time::Instant::now();
        // When the child was asked to stop, and whether for running too long.
        let mut interrupted: Option<(std::time::Instant, bool)> = None;
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break s,
                Ok(None) => {}
                Err(e) => return Err(format!("{}: {e}", step.workload.tool())),
            }
            let overrun = started.elapsed() > limit;
            if (stop.is_set() || overrun) && interrupted.is_none() {
                interrupted = Some((std::time::Instant::now(), overrun));
                // std has no SIGINT for a child: the `kill` command sends it.
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
            }
            // A child that does not end within 10 s of SIGINT is killed.
            if interrupted.is_some_and(|(at, _)| at.elapsed() > Duration::from_secs(10)) {
                let _ = child.kill();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        if let Some((_, true)) = interrupted {
            return Err(format!(
                "{} step still running {} after it began (the plan's step is {}); stopped",
                step.workload.tool(),
                loadlab_core::format_go_duration(Duration::from_secs(limit.as_secs())),
                loadlab_core::format_go_duration(step.step)
            ));
        }
        let interrupted = interrupted.is_some();
        let err = reader.join().unwrap_or_default();
        if !status.success() && !interrupted {
            let last = err
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("no message");
            return Err(format!(
                "{} step failed ({status}): {last}",
                step.workload.tool()
            ));
        }
        feed(&file, step, sink)
    }
}

/// Replays a results file into `sink`: the attack's start, its series, then
/// every sample and metric record.
fn feed(file: &Path, step: &WorkloadStep, sink: &mut dyn Sink) -> Result<(), String> {
    let f = std::fs::File::open(file)
        .map_err(|e| format!("{} wrote no results: {e}", step.workload.tool()))?;
    let mut r = open_results(std::io::BufReader::new(f), &file.display().to_string())
        .map_err(|e| format!("{} results: {e}", step.workload.tool()))?;
    let mut begun = false;
    let mut series = std::collections::HashSet::new();
    // Metric series get ids of their own, above any request series'.
    let mut metric_ids: std::collections::HashMap<Arc<loadlab_metrics::SeriesDef>, u32> =
        std::collections::HashMap::new();
    while let Some(item) = r.next_item() {
        match item.map_err(|e| format!("{} results: {e}", step.workload.tool()))? {
            Item::Request(rec) => {
                if !begun {
                    sink.begin(&AttackInfo {
                        name: step.name.clone(),
                        start_unix_ns: rec.start_unix_ns,
                        ..AttackInfo::default()
                    });
                    begun = true;
                }
                if series.insert(rec.sample.target) {
                    sink.register_target(
                        rec.sample.target,
                        &loadlab_core::TargetInfo {
                            method: rec.method.to_string(),
                            url: rec.url.to_string(),
                        },
                    );
                }
                sink.record(&rec.sample);
            }
            Item::Metric(m) => {
                let next = (1u32 << 24) + metric_ids.len() as u32;
                let id = *metric_ids.entry(m.series.clone()).or_insert_with(|| {
                    sink.register_series(next, &m.series.to_info());
                    next
                });
                sink.metric(&loadlab_core::MetricSample {
                    series: id,
                    t_ns: m.t_ns,
                    value: m.value,
                });
            }
        }
    }
    Ok(())
}
