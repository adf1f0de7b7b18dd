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
use loadlab_study::collect::ThresholdVerdict;
use loadlab_study::workload::{StepFailure, StepReport};
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

/// `loadlab k6 run`'s exit code for crossed thresholds (as k6's).
const THRESHOLDS_CROSSED: i32 = crate::exit::THRESHOLDS_FAILED;

/// A child's error in one line: its last `loadlab:` line without the
/// prefix (the study adds its own), with the stack frame under it when
/// there is one (`setup() failed: Error: no fixtures (at setup
/// (t.js:1:37))`); else its last line.
fn last_line(err: &str) -> String {
    let lines: Vec<&str> = err.lines().collect();
    if let Some(i) = lines.iter().rposition(|l| l.starts_with("loadlab: ")) {
        let msg = lines[i].trim_end().trim_start_matches("loadlab: ");
        return match lines.get(i + 1).map(|l| l.trim()) {
            Some(at) if at.starts_with("at ") => format!("{msg} ({at})"),
            _ => msg.to_string(),
        };
    }
    let last = lines
        .iter()
        .rev()
        .find(|l| !l.trim().is_empty())
        .map_or("no message", |l| l.trim());
    last.strip_prefix("loadlab: ").unwrap_or(last).to_string()
}

/// The thresholds' verdicts of a `--summary-export` file (k6's format:
/// `metrics.NAME.thresholds.SOURCE` is true when the threshold failed).
fn thresholds(file: &Path) -> Vec<ThresholdVerdict> {
    let Ok(text) = std::fs::read_to_string(file) else {
        return Vec::new();
    };
    let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(metrics) = v.get("metrics").and_then(|m| m.as_object()) {
        for (name, m) in metrics {
            if let Some(th) = m.get("thresholds").and_then(|t| t.as_object()) {
                for (source, failed) in th {
                    out.push(ThresholdVerdict {
                        metric: name.clone(),
                        threshold: source.clone(),
                        ok: !failed.as_bool().unwrap_or(false),
                    });
                }
            }
        }
    }
    out
}

impl ChildRunner {
    /// The step's command line (without `loadlab`), with `extra` flags
    /// before its positional arguments.
    fn args(step: &WorkloadStep, extra: Vec<String>) -> Vec<String> {
        let mut args = step
            .workload
            .command(&step.axis, &step.level.to_string(), step.step);
        args.remove(0); // "loadlab"
        let at = match &step.workload {
            WorkloadPlan::Sysbench { .. } => 1,
            WorkloadPlan::Script { .. } => 2,
        };
        for (i, f) in extra.into_iter().enumerate() {
            args.insert(at + i, f);
        }
        args
    }

    /// Compiles a script without running it: `k6 run --iterations=0`
    /// reads, compiles and evaluates the init code, then refuses the zero
    /// iterations (its options are checked before any VU starts), so
    /// nothing is sent.
    fn check_script(step: &WorkloadStep) -> Result<(), StepFailure> {
        let exe = std::env::current_exe()
            .map_err(|e| StepFailure::plain(format!("cannot find loadlab itself: {e}")))?;
        let mut args = Self::args(step, vec!["--iterations=0".into(), "--quiet".into()]);
        // The step's shape flags would be checked against the zero iterations.
        args.retain(|a| !a.starts_with("--vus=") && !a.starts_with("--duration="));
        let mut cmd = Command::new(exe);
        clear_k6_env(&mut cmd);
        let out = cmd
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| StepFailure::plain(format!("cannot start k6: {e}")))?;
        let err = String::from_utf8_lossy(&out.stderr);
        if out.status.success() || err.contains("the number of iterations (0)") {
            return Ok(());
        }
        Err(StepFailure {
            code: out.status.code(),
            message: format!("k6: {}", last_line(&err)),
        })
    }
}

/// k6's option variables (K6_VUS, K6_DURATION, …) of the shell that runs
/// the study would change its steps unseen: the plan alone says what a
/// step runs.
fn clear_k6_env(cmd: &mut Command) {
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("K6_") {
            cmd.env_remove(k);
        }
    }
}

/// Opens one connection to a sysbench target's database, as its run
/// would, and closes it.
#[cfg(feature = "sysbench")]
fn check_database(step: &WorkloadStep) -> Result<(), StepFailure> {
    let mut args = ChildRunner::args(step, Vec::new());
    args.remove(0); // "sysbench"
    let opts = match loadlab_sql::parse(&args) {
        Ok(loadlab_sql::Parsed::Do(o)) => *o,
        Ok(_) => return Ok(()),
        Err(e) => {
            return Err(StepFailure {
                code: Some(crate::exit::USAGE),
                message: format!("sysbench: {e}"),
            });
        }
    };
    loadlab_sql::check_connection(&opts).map_err(|e| StepFailure {
        code: Some(crate::exit::sql_code(&e)),
        message: format!("sysbench: {e}"),
    })
}

impl WorkloadRunner for ChildRunner {
    fn check(&self, step: &WorkloadStep) -> Result<(), StepFailure> {
        // A face this build lacks is named before any step runs.
        let absent = |face: &str, feature: &str| {
            let e = crate::absent::not_built(face, feature);
            Err(StepFailure {
                code: Some(e.code),
                message: e.message,
            })
        };
        match step.workload {
            WorkloadPlan::Script { .. } if cfg!(feature = "k6") => Self::check_script(step),
            WorkloadPlan::Script { .. } => absent("k6", "k6"),
            #[cfg(feature = "sysbench")]
            WorkloadPlan::Sysbench { .. } => check_database(step),
            #[cfg(not(feature = "sysbench"))]
            WorkloadPlan::Sysbench { .. } => absent("sysbench", "sysbench"),
        }
    }

    fn run(
        &self,
        step: &WorkloadStep,
        stop: Arc<StopSignal>,
        sink: &mut dyn Sink,
    ) -> Result<StepReport, StepFailure> {
        self.run_child(step, stop, sink)
            .map_err(|(code, message)| StepFailure { code, message })
    }
}

impl ChildRunner {
    fn run_child(
        &self,
        step: &WorkloadStep,
        stop: Arc<StopSignal>,
        sink: &mut dyn Sink,
    ) -> Result<StepReport, (Option<i32>, String)> {
        let exe = std::env::current_exe()
            .map_err(|e| (None, format!("cannot find loadlab itself: {e}")))?;
        let dir = tempfile::tempdir().map_err(|e| (None, format!("temporary folder: {e}")))?;
        let file = dir.path().join("step.lr");
        let summary = dir.path().join("summary.json");
        let mut flags = results_flags(&step.workload, &file);
        if let Some(at) = step.start_at_unix_ns {
            // A concurrent group's common instant, in Unix seconds.
            flags.push(format!(
                "--start-at={}.{:09}",
                at / 1_000_000_000,
                at % 1_000_000_000
            ));
        }
        if let WorkloadPlan::Script { .. } = step.workload {
            flags.push(format!("--summary-export={}", summary.display()));
        }
        // Results flags go before the positional arguments.
        let mut args = Self::args(step, flags);
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
        clear_k6_env(&mut cmd);
        let mut child = cmd
            .args(&args)
            .envs(secret_env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| (None, format!("cannot start {}: {e}", step.workload.tool())))?;
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
                Err(e) => return Err((None, format!("{}: {e}", step.workload.tool()))),
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
            return Err((
                None,
                format!(
                    "{} step still running {} after it began (the plan's step is {}); stopped",
                    step.workload.tool(),
                    loadlab_core::format_go_duration(Duration::from_secs(limit.as_secs())),
                    loadlab_core::format_go_duration(step.step)
                ),
            ));
        }
        let interrupted = interrupted.is_some();
        let err = reader.join().unwrap_or_default();
        // A crossed threshold is a measurement: the run is complete.
        let crossed = matches!(step.workload, WorkloadPlan::Script { .. })
            && status.code() == Some(THRESHOLDS_CROSSED);
        if !status.success() && !interrupted && !crossed {
            return Err((
                status.code(),
                format!(
                    "{} failed (exit status {}): {}",
                    step.workload.tool(),
                    status
                        .code()
                        .map_or_else(|| "none".to_string(), |c| c.to_string()),
                    last_line(&err)
                ),
            ));
        }
        feed(&file, step, sink).map_err(|e| (None, e))?;
        Ok(StepReport {
            thresholds: thresholds(&summary),
        })
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
                        // With `--start-at` (a concurrent group): the instant
                        // asked for and the one the load began on.
                        worker: r.workers().first().map(|w| w.info.clone()),
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
                    // A database test's transactions and statements are
                    // told apart by their series.
                    if let Some(def) = rec.series.as_ref().filter(|_| rec.method.is_empty()) {
                        sink.register_series(rec.sample.target, &def.to_info());
                    }
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
