//! `loadlab study PLAN.yaml [--out DIR] [--db FILE] [--resume]`: runs a study
//! plan, records it in the store and writes report.md + report.html.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use loadlab_core::Sink;
use loadlab_engine::{LiveStats, StopSignal};
use loadlab_study::{Observer, Plan, RunInfo, RunOptions, StoreError, StudyError};

use crate::exit::CliError;

/// Where studies are stored unless `--db` or `LOADLAB_DB` says otherwise.
pub const DEFAULT_DB: &str = "loadlab.db";

#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// The study plan (YAML; see docs/study.md).
    pub plan: PathBuf,
    /// Report folder [default: studies/<id>-<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The SQLite store.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Continue the latest unfinished study of this plan from its last committed run.
    #[arg(long)]
    pub resume: bool,
}

/// Fires the returned signal on Ctrl-C (SIGINT) or SIGTERM.
pub fn stop_flag() -> Arc<StopSignal> {
    let flag = Arc::new(StopSignal::new());
    let f = flag.clone();
    let _ = std::thread::Builder::new().name("loadlab-signals".into()).spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = async { match term.as_mut() { Some(t) => { t.recv().await; } None => std::future::pending().await } } => {}
            }
        });
        eprintln!("loadlab: stopping; the run in flight is discarded, committed runs are kept (continue with --resume)");
        f.fire();
    });
    flag
}

pub fn study_error(e: StudyError) -> CliError {
    match e {
        StudyError::Store(StoreError::Foreign { .. } | StoreError::TooNew { .. }) => {
            CliError::bad_input(e)
        }
        StudyError::Store(_) | StudyError::Report(_) => CliError::io(e),
        StudyError::Origin(_) => CliError::network(e),
        StudyError::Interrupted { .. } => CliError::new(crate::exit::INTERRUPTED, e),
        StudyError::Resume(_) | StudyError::Monitor(_) => CliError::usage(e),
        StudyError::Engine(_) => CliError::internal(e),
    }
}

/// The study's progress on stderr: its outline at start and, on a terminal,
/// the live line of the current run (the one `attack` draws). Without a
/// terminal the runner's one line per completed run is all there is.
#[derive(Default)]
struct StderrObserver {
    current: Option<crate::progress::Progress>,
}

impl Observer for StderrObserver {
    fn outline(&mut self, lines: &[String]) {
        for l in lines {
            eprintln!("{l}");
        }
    }
    fn run_started(&mut self, run: &RunInfo, live: Arc<LiveStats>) -> Option<Box<dyn Sink>> {
        let (sink, handle) =
            crate::progress::start_labelled(Some(run.step), live, run.label(), Some(run.left))?;
        self.current = Some(handle);
        Some(Box::new(sink))
    }
    fn run_ended(&mut self) {
        if let Some(p) = self.current.take() {
            p.stop();
        }
    }
}

/// Runs a parsed plan with progress on stderr; returns the report folder.
pub fn run_plan(
    plan: &Plan,
    plan_path: &Path,
    plan_yaml: String,
    out: Option<PathBuf>,
    db: PathBuf,
    resume: bool,
) -> Result<(PathBuf, i64), CliError> {
    let canonical = std::fs::canonicalize(plan_path).unwrap_or_else(|_| plan_path.to_path_buf());
    let opts = RunOptions {
        db,
        out,
        resume,
        plan_path: canonical.display().to_string(),
        plan_yaml,
        stop: stop_flag(),
        progress: Box::new(|line| eprintln!("{line}")),
        observer: Some(Box::new(StderrObserver::default())),
        workloads: Some(Arc::new(crate::workload::ChildRunner)),
    };
    // A resumed study says what it reuses in its outline, before the first run.
    let outcome = loadlab_study::run_study(plan, opts).map_err(study_error)?;
    Ok((outcome.out_dir, outcome.study_id))
}

pub fn run(a: StudyArgs) -> Result<(), CliError> {
    let yaml = std::fs::read_to_string(&a.plan)
        .map_err(|e| CliError::io(format!("{}: {e}", a.plan.display())))?;
    let plan = Plan::from_file(&a.plan).map_err(CliError::bad_input)?;
    let db = a.db.clone();
    let (out, study) = run_plan(&plan, &a.plan, yaml, a.out, a.db, a.resume)?;
    // The answer on the terminal (stderr: stdout carries only the paths).
    if let Ok(Some(json)) = loadlab_study::Store::open(&db).and_then(|s| s.analysis(study))
        && let Ok(an) = serde_json::from_str::<loadlab_study::analysis::Analysis>(&json)
    {
        let answer = loadlab_study::analysis::render_answer(&plan, &an);
        if !answer.trim().is_empty() {
            eprintln!();
            eprint!("{answer}");
            eprintln!(
                "Store: {} (study {study}; `loadlab runs show {study}`)",
                db.display()
            );
        }
    }
    println!("Report: {}", out.join("report.html").display());
    println!("        {}", out.join("report.md").display());
    Ok(())
}
