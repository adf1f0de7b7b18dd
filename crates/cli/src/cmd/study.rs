//! `loadlab study PLAN.yaml [--out DIR] [--db FILE] [--resume]`: runs a study
//! plan, records it in the store and writes report.md + report.html.
//! `--segment=i/n --start-at=T` runs it as one worker of a split study, and
//! `loadlab study merge --db OUT.db WORKER.db…` merges the workers' stores
//! (see docs/distributed.md).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use loadlab_core::Sink;
use loadlab_engine::{LiveStats, StopSignal};
use loadlab_study::{Observer, Plan, RunInfo, RunOptions, StoreError, StudyError};

use crate::exit::CliError;

/// Where studies are stored unless `--db` or `LOADLAB_DB` says otherwise.
pub const DEFAULT_DB: &str = "loadlab.db";

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct StudyArgs {
    #[command(subcommand)]
    pub command: Option<StudyCommand>,
    /// The study plan (YAML; see docs/study.md).
    #[arg(required = true)]
    pub plan: Option<PathBuf>,
    /// Report folder [default: studies/<id>-<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The SQLite store (s3://BUCKET/KEY: written locally, uploaded after
    /// each run and when the study ends).
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Continue the latest unfinished study of this plan from its last committed run.
    #[arg(long)]
    pub resume: bool,
    /// Check the plan fully (its files, scripts, databases, monitored
    /// process and --out) and say what it would run; run nothing, store
    /// nothing.
    #[arg(long, conflicts_with = "resume")]
    pub check: bool,
    /// Run as worker i of n of a split study: every step sends segment i/n
    /// of its schedule (0-based i, like JOB_COMPLETION_INDEX). Needs --start-at.
    #[arg(long, value_parser = crate::flags::segment, requires = "start_at")]
    pub segment: Option<loadlab_core::ScheduleSegment>,
    /// The common start of a split study's first step: RFC 3339 or Unix
    /// seconds. Every step starts on a fixed timetable from it.
    #[arg(long, value_parser = crate::flags::start_at, requires = "segment")]
    pub start_at: Option<u64>,
    /// A split study's pause added to every step's slot, beyond the plan's
    /// step and cooldown (room for the last responses and the store).
    #[arg(long, value_parser = crate::flags::duration, default_value = "2s")]
    pub step_slack: std::time::Duration,
    /// Serve a live web dashboard of the study on ADDR (default 127.0.0.1
    /// on a free port; the URL is printed on stderr): the ladder of runs,
    /// the current run live, the SLO, the ceiling so far, the time left
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = crate::dashboard::DEFAULT_ADDR)]
    pub dashboard: Option<String>,
    /// The token a non-loopback --dashboard address requires (?token=TOKEN);
    /// also LOADLAB_DASHBOARD_TOKEN
    #[arg(long, value_name = "TOKEN")]
    pub dashboard_token: Option<String>,
    /// At the end, write the study's dashboard to this self-contained HTML file
    #[arg(long, value_name = "FILE")]
    pub dashboard_export: Option<PathBuf>,
    /// Names the study in `runs history` [default: the git commit of the
    /// current directory (`-dirty` when modified), else the start time].
    #[arg(long)]
    pub label: Option<String>,
    /// Adds "Against the baseline" to the report: every target and rate
    /// against this stored study (its id in --db), with exact tests.
    #[arg(long, value_name = "STUDY")]
    pub baseline: Option<i64>,
}

#[derive(Debug, clap::Subcommand)]
pub enum StudyCommand {
    /// Merge the stores of a split study's workers (`study PLAN --segment=i/n`)
    /// into one study, exactly, and write its report.
    Merge(MergeArgs),
}

#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// The store that receives the merged study.
    #[arg(long, default_value = DEFAULT_DB)]
    pub db: PathBuf,
    /// Report folder [default: studies/<id>-<name>].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// The workers' stores (one per segment; absent ones show as missing);
    /// s3://BUCKET/KEY, or s3://BUCKET/PREFIX/ for every *.db under it.
    #[arg(required = true)]
    pub workers: Vec<PathBuf>,
}

/// Fires the returned signal on Ctrl-C (SIGINT) or SIGTERM.
pub fn stop_flag() -> Arc<StopSignal> {
    let flag = Arc::new(StopSignal::new());
    let f = flag.clone();
    let _ = std::thread::Builder::new().name("loadlab-signals".into()).spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
        rt.block_on(async {
            crate::signals::listen().next().await;
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
        StudyError::Split(_) => CliError::bad_input(e),
        StudyError::Io(_) => CliError::io(e),
        StudyError::Workload { code, .. } => {
            CliError::new(code.unwrap_or(crate::exit::INTERNAL), e)
        }
        StudyError::Unreachable(_) => CliError::new(crate::exit::TARGET_UNREACHABLE, e),
    }
}

/// `--dashboard`, `--dashboard-export`: bound before the first run (a
/// busy port ends the command before the study starts).
pub(crate) fn dashboard(
    (addr, token, export): (&Option<String>, &Option<String>, &Option<PathBuf>),
    plan: &Plan,
) -> Result<Option<crate::dashboard::Dashboard>, CliError> {
    let opts = crate::dashboard::Options {
        addr: addr.clone(),
        token: token
            .clone()
            .or_else(|| std::env::var("LOADLAB_DASHBOARD_TOKEN").ok()),
        export: export.clone(),
    };
    if !opts.any() {
        return Ok(None);
    }
    // The SLO in the meta: the charts draw its bounds from the first point.
    let slo = plan.slo.as_ref().map(crate::dashboard::study::slo_json);
    let meta = serde_json::json!({ "kind": "study", "name": plan.name, "slo": slo });
    crate::dashboard::Dashboard::start(&opts, meta).map(Some)
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
#[allow(clippy::too_many_arguments)] // one call per front end (study, demo)
pub fn run_plan(
    plan: &Plan,
    plan_path: &Path,
    plan_yaml: String,
    out: Option<PathBuf>,
    db: PathBuf,
    resume: bool,
    split: Option<loadlab_study::split::SplitOptions>,
    committed: Option<Box<dyn FnMut() + Send>>,
    dash: Option<crate::dashboard::Dashboard>,
    label: String,
) -> Result<(PathBuf, i64), CliError> {
    let canonical = std::fs::canonicalize(plan_path).unwrap_or_else(|_| plan_path.to_path_buf());
    let stop = stop_flag();
    let mut verdicts = None;
    // With --out, each run's own page beside the report.
    let base: Box<dyn Observer> = match &out {
        Some(dir) => Box::new(crate::dashboard::run_pages::RunPages::new(
            dir.clone(),
            plan.slo.as_ref(),
            Box::new(StderrObserver::default()),
        )),
        None => Box::new(StderrObserver::default()),
    };
    let observer: Box<dyn Observer> = match dash {
        Some(d) => {
            // The Stop button: as Ctrl-C.
            let (hub, flag) = (d.hub(), stop.clone());
            let _ = std::thread::Builder::new().name("loadlab-dashboard-stop".into()).spawn(move || {
                let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else { return };
                rt.block_on(hub.stopped());
                eprintln!("loadlab: stopped from the dashboard; the run in flight is discarded, committed runs are kept (continue with --resume)");
                flag.fire();
            });
            let o = crate::dashboard::study::StudyDash::new(d, base, plan.slo.clone());
            verdicts = Some(o.context());
            Box::new(o)
        }
        None => base,
    };
    let opts = RunOptions {
        db,
        out,
        resume,
        plan_path: canonical.display().to_string(),
        plan_yaml,
        stop,
        progress: Box::new(move |line| {
            eprintln!("{line}");
            if let Some(c) = &verdicts {
                crate::dashboard::study::verdict_line(c, line);
            }
        }),
        observer: Some(observer),
        workloads: Some(Arc::new(crate::workload::ChildRunner)),
        split,
        committed,
        label,
    };
    // A resumed study says what it reuses in its outline, before the first run.
    let outcome = loadlab_study::run_study(plan, opts).map_err(study_error)?;
    Ok((outcome.out_dir, outcome.study_id))
}

pub fn run(a: StudyArgs) -> Result<(), CliError> {
    if let Some(StudyCommand::Merge(m)) = a.command {
        return merge(m);
    }
    let Some(plan_path) = a.plan else {
        return Err(CliError::usage(
            "study needs a PLAN.yaml (or `study merge`)",
        ));
    };
    let yaml = std::fs::read_to_string(&plan_path)
        .map_err(|e| CliError::io(format!("{}: {e}", plan_path.display())))?;
    let plan = Plan::from_file(&plan_path).map_err(CliError::bad_input)?;
    check_monitor(&plan, &plan_path, &yaml)?;
    if let Some(out) = &a.out {
        check_out_dir(out)?;
    }
    if a.check {
        return check_only(&plan, &plan_path, &a.db);
    }
    if let Some(b) = a.baseline {
        super::history::check_baseline(&a.db, b)?;
    }
    let split = match (a.segment, a.start_at) {
        (Some(segment), Some(at)) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            loadlab_engine::check_start_at(at, now).map_err(CliError::usage)?;
            // Before the store is opened: what cannot be split is a plan error.
            loadlab_study::split::check_plan(&plan).map_err(CliError::bad_input)?;
            Some(loadlab_study::split::SplitOptions {
                segment,
                start_at_unix_ns: at,
                step_slack: a.step_slack,
            })
        }
        _ => None,
    };
    // `--db s3://BUCKET/KEY`: a local store, uploaded when the study ends
    // (also when it is stopped or fails after some runs).
    let s3 = s3_store(&a.db)?;
    if s3.is_some() && a.resume {
        return Err(CliError::usage(
            "--resume needs a local --db (the store to continue); not s3://",
        ));
    }
    let db = match &s3 {
        Some((_, local, _)) => local.clone(),
        None => a.db.clone(),
    };
    // After each committed run, the store so far: a worker that dies keeps
    // its runs.
    let committed = s3.as_ref().map(|(url, local, _)| {
        let (url, local) = (url.clone(), local.clone());
        Box::new(move || {
            let res = crate::store::block_on(crate::store::upload_file(&local, &url));
            let err = match res {
                Ok(Ok(_)) => return,
                Ok(Err(e)) | Err(e) => e,
            };
            eprintln!(
                "loadlab: warning: cannot upload the store to {url} after this run ({err}); trying again after the next"
            );
        }) as Box<dyn FnMut() + Send>
    });
    let dash = dashboard(
        (&a.dashboard, &a.dashboard_token, &a.dashboard_export),
        &plan,
    )?;
    let res = run_plan(
        &plan,
        &plan_path,
        yaml,
        a.out,
        db.clone(),
        a.resume,
        split,
        committed,
        dash,
        a.label
            .unwrap_or_else(loadlab_study::history::default_label),
    );
    if let Some((url, local, dir)) = s3 {
        upload_store(&url, &local, dir)?;
        eprintln!("loadlab: store uploaded to {url}");
    }
    let (out, study) = res?;
    if let Some(b) = a.baseline {
        super::history::baseline_report(&db, b, study, &out)?;
    }
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
    if let Some(r) = &plan.regression {
        super::history::regression_gate(&db, study, r)?;
    }
    Ok(())
}

/// `--db s3://BUCKET/KEY`: the URL, the local file the study writes, and
/// its folder. The bucket is checked before the study starts.
fn s3_store(
    db: &Path,
) -> Result<Option<(crate::store::S3Url, PathBuf, tempfile::TempDir)>, CliError> {
    let Some(url) = db
        .to_str()
        .map(|s| crate::store::s3_object(s, "--db", "s3://BUCKET/KEY"))
        .transpose()?
        .flatten()
    else {
        return Ok(None);
    };
    super::attack::preflight(&url)?;
    let dir = tempfile::tempdir()
        .map_err(|e| CliError::io(format!("cannot create a temporary folder: {e}")))?;
    let local = dir.path().join("study.db");
    Ok(Some((url, local, dir)))
}

/// Uploads the store; when that fails the local copy is kept and named.
fn upload_store(
    url: &crate::store::S3Url,
    local: &Path,
    dir: tempfile::TempDir,
) -> Result<(), CliError> {
    if !local.exists() {
        return Ok(());
    }
    let res = crate::store::block_on(crate::store::upload_file(local, url))
        .map_err(|e| CliError::internal(e.to_string()))?;
    match res {
        Ok(_) => Ok(()),
        Err(e) => {
            let kept = dir.keep();
            let code = if e.is_local() {
                crate::exit::IO
            } else {
                crate::exit::NETWORK
            };
            Err(CliError::new(
                code,
                format!(
                    "{e}; the store is kept in {}",
                    kept.join("study.db").display()
                ),
            ))
        }
    }
}

/// The worker stores to merge, local: each `s3://BUCKET/KEY` is
/// downloaded, each `s3://BUCKET/PREFIX/` gives its `*.db` objects; local
/// paths are kept as they are.
pub(super) fn fetch_stores(inputs: &[PathBuf], dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    use crate::store;
    let mut out = Vec::new();
    for (n, input) in inputs.iter().enumerate() {
        let Some(url) = input
            .to_str()
            .map(|s| store::s3_url(s, ""))
            .transpose()?
            .flatten()
        else {
            out.push(input.clone());
            continue;
        };
        let keys: Vec<String> = if url.key.is_empty() || url.key.ends_with('/') {
            store::block_on(store::list(&url))
                .map_err(CliError::network)?
                .map_err(CliError::network)?
                .into_iter()
                .map(|(k, _)| k)
                .filter(|k| k.ends_with(".db"))
                .collect()
        } else {
            vec![url.key.clone()]
        };
        if keys.is_empty() {
            return Err(CliError::network(format!(
                "{url}: no worker stores (*.db) there"
            )));
        }
        for key in keys {
            let one = store::S3Url {
                bucket: url.bucket.clone(),
                key: key.clone(),
            };
            let sub = dir.join(format!("{n}-{}", out.len()));
            std::fs::create_dir_all(&sub)
                .map_err(|e| CliError::io(format!("{}: {e}", sub.display())))?;
            let got = store::block_on(store::download(&one, &sub))
                .map_err(CliError::network)?
                .map_err(CliError::network)?;
            let base = key.rsplit('/').next().unwrap_or("worker.db").to_string();
            for (file, _) in got {
                let named = sub.join(&base);
                std::fs::rename(&file, &named)
                    .map_err(|e| CliError::io(format!("{}: {e}", named.display())))?;
                out.push(named);
            }
        }
    }
    Ok(out)
}

/// `loadlab study merge --db OUT.db WORKER.db…` (a worker store may be
/// `s3://BUCKET/KEY`, or `s3://BUCKET/PREFIX/` for every store under it).
pub(super) fn merge(m: MergeArgs) -> Result<(), CliError> {
    let tmp = tempfile::tempdir()
        .map_err(|e| CliError::io(format!("cannot create a temporary folder: {e}")))?;
    let workers = fetch_stores(&m.workers, tmp.path())?;
    let o = loadlab_study::split::merge_stores(&workers, &m.db, m.out).map_err(study_error)?;
    let absent: Vec<String> = (0..o.segments)
        .filter(|i| !o.present.contains(i))
        .map(|i| format!("{i}/{}", o.segments))
        .collect();
    eprintln!(
        "merged {} run(s) of {} of {} worker(s) into study {} of {}{}",
        o.runs,
        o.present.len(),
        o.segments,
        o.study_id,
        m.db.display(),
        if absent.is_empty() {
            String::new()
        } else {
            format!(" (no store given for segment {})", absent.join(", "))
        }
    );
    for l in &o.missing {
        eprintln!("missing: {l}");
    }
    println!("Report: {}", o.out_dir.join("report.html").display());
    println!("        {}", o.out_dir.join("report.md").display());
    Ok(())
}

/// The plan's `monitor:` names a process that is there now: a plan error
/// at the key's place (exit 3), found before the store or any run.
fn check_monitor(plan: &Plan, plan_path: &Path, yaml: &str) -> Result<(), CliError> {
    let Some(m) = &plan.monitor else {
        return Ok(());
    };
    let Err(e) = loadlab_study::monitor::resolve(m) else {
        return Ok(());
    };
    let key = if m.pid.is_some() {
        "monitor.pid"
    } else {
        "monitor.process"
    };
    let (line, column) = loadlab_study::plan::locate_path(yaml, key);
    let what = e.strip_prefix("monitor: ").unwrap_or(&e);
    Err(CliError::bad_input(format!(
        "{}:{line}:{column}: {key}: {what} (is it running?)",
        plan_path.display()
    )))
}

/// `--out DIR` can be written, checked before the first run (exit 4):
/// a study that could not write its report would find out only at the
/// end. The folder itself is made by the study.
fn check_out_dir(out: &Path) -> Result<(), CliError> {
    let fail = |why: String| CliError::io(format!("--out {}: {why}", out.display()));
    let mut dir = out;
    while !dir.exists() {
        match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => dir = p,
            _ => {
                dir = Path::new(".");
                break;
            }
        }
    }
    if !dir.is_dir() {
        return Err(fail(format!("{} is not a folder", dir.display())));
    }
    tempfile::tempfile_in(dir)
        .map(drop)
        .map_err(|e| fail(format!("cannot write in {} ({e})", dir.display())))
}

/// `study --check`: what loading checks, plus every script compiled and
/// every database target connected to once; then the plan's outline on
/// stdout. No store is opened, nothing is sent to a target.
fn check_only(plan: &Plan, plan_path: &Path, db: &Path) -> Result<(), CliError> {
    let runner: Arc<dyn loadlab_study::WorkloadRunner> = Arc::new(crate::workload::ChildRunner);
    loadlab_study::runner::check_workloads(plan, Some(&runner)).map_err(study_error)?;
    let lines = loadlab_study::runner::outline(plan, 0, db, Path::new("-"), 0);
    let what = lines[0].strip_prefix("study 0 ").unwrap_or(&lines[0]);
    println!("{}: a valid plan: {what}", plan_path.display());
    if let Some(time) = lines.iter().find(|l| l.starts_with("estimated time")) {
        println!("{time}");
    }
    Ok(())
}
