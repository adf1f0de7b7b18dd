//! `loadlab demo`: a self-contained study in about a minute and a half. An in-process
//! origin serves two routes that behave like two instance types (different
//! latency and capacity); the study compares them with repetitions, a ceiling
//! search and hypotheses, writes the report, and prints the answer.

use std::path::{Path, PathBuf};

use loadlab_study::analysis::{self, Analysis};
use loadlab_study::demo::DEMO_PLAN;
use loadlab_study::plan::MonitorPlan;
use loadlab_study::{Plan, Store};

use crate::exit::CliError;

/// Where the demo writes unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "loadlab-demo";
/// The demo's store inside its folder.
pub const STORE: &str = "study.db";

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Where to write the plan, the store and the report.
    #[arg(long, default_value = DEFAULT_OUT)]
    pub out: PathBuf,
    /// Run this plan instead of the built-in one (for tests and experiments).
    #[arg(long, hide = true)]
    pub plan: Option<PathBuf>,
    /// Serve a live web dashboard of the demo's study on ADDR (default
    /// 127.0.0.1 on a free port; the URL is printed on stderr)
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = crate::dashboard::DEFAULT_ADDR)]
    pub dashboard: Option<String>,
}

pub fn run(a: DemoArgs) -> Result<(), CliError> {
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::io(format!("{}: {e}", a.out.display())))?;
    let yaml = match &a.plan {
        None => DEMO_PLAN.to_string(),
        Some(p) => {
            std::fs::read_to_string(p).map_err(|e| CliError::io(format!("{}: {e}", p.display())))?
        }
    };
    let plan_path = a.out.join("plan.yaml");
    std::fs::write(&plan_path, &yaml)
        .map_err(|e| CliError::io(format!("{}: {e}", plan_path.display())))?;
    let mut plan = Plan::from_file(&plan_path).map_err(CliError::bad_input)?;
    // Watch this very process (origin and client share it): the CPU column.
    plan.monitor = Some(MonitorPlan {
        pid: Some(std::process::id()),
        process: None,
        interval: std::time::Duration::from_secs(1),
    });
    let runs = plan.load.rates.len() * plan.targets.len() * plan.repetitions as usize;
    let step = loadlab_core::format_go_duration(plan.load.step);
    eprintln!(
        "loadlab demo: origin with routes /c5 and /c6g in-process; plan written to {}",
        plan_path.display()
    );
    eprintln!(
        "up to {runs} runs of {step} each ({} repetitions, interleaved), then a ceiling search; about a minute and a half; Ctrl-C stops",
        plan.repetitions
    );
    let report = report_dir(&a.out);
    let db = a.out.join(STORE);
    let dash = super::study::dashboard((&a.dashboard, &None, &None), &plan)?;
    let (out, _) = super::study::run_plan(
        &plan,
        &plan_path,
        yaml,
        Some(report.clone()),
        db.clone(),
        false,
        None,
        None,
        dash,
        loadlab_study::history::default_label(),
    )
    .map_err(|e| {
        if e.code == crate::exit::INTERRUPTED {
            // The study's own hint (--resume) is not the demo's: a demo is
            // run again from the start; its store keeps what was done.
            CliError::new(
                e.code,
                format!(
                    "{}; the demo does not resume: run it again to start over (the runs so far stay in {})",
                    e.message.split("; continue with").next().unwrap_or(&e.message),
                    db.display()
                ),
            )
        } else {
            e
        }
    })?;
    // The answer, read back from the store like `loadlab runs show` does.
    let (study, analysis) = stored_answer(&db, &report)?;
    println!();
    print!("{}", analysis::render_answer(&plan, &analysis));
    println!();
    println!("Report: {}", out.join("report.html").display());
    println!("        {}", out.join("report.md").display());
    println!("Store:  {} (study {study})", db.display());
    println!();
    println!("Next:");
    let db_arg = if db == Path::new(DEFAULT_OUT).join(STORE)
        && !Path::new(super::study::DEFAULT_DB).exists()
    {
        // `runs` and `compare` find the demo's store on their own when there is
        // no ./loadlab.db.
        String::new()
    } else {
        format!(" --db {}", db.display())
    };
    let me = how_to_call();
    let mut next = vec![(
        format!("{me} runs show {study}{db_arg}"),
        "every run, ceilings and verdicts",
    )];
    if let [x, y, ..] = plan.targets.as_slice() {
        next.push((
            format!("{me} compare {study}:{} {study}:{}{db_arg}", x.name, y.name),
            "the two targets side by side",
        ));
    }
    let w = next.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    for (cmd, what) in next {
        println!("  {cmd:<w$}   {what}");
    }
    if db_arg.is_empty() {
        println!(
            "  (from another folder, or with a ./loadlab.db here: add --db {})",
            db.display()
        );
    }
    Ok(())
}

/// The demo's report folder: `OUT/report`, or `OUT/report-2`, `-3` … when an
/// earlier demo's report is there, so that each study in the demo's store
/// keeps its own report.
fn report_dir(out: &Path) -> PathBuf {
    let taken = |d: &Path| d.join("report.html").exists() || d.join("report.md").exists();
    let first = out.join("report");
    if !taken(&first) {
        return first;
    }
    (2..)
        .map(|n| out.join(format!("report-{n}")))
        .find(|d| !taken(d))
        .expect("a free folder name")
}

/// How the user can call this very binary: `loadlab` when that is what PATH
/// finds, else its path (relative to the current folder when under it, as
/// `target/release/loadlab` after `cargo run --release`).
fn how_to_call() -> String {
    let Ok(exe) = std::env::current_exe().and_then(|e| e.canonicalize()) else {
        return "loadlab".to_string();
    };
    let on_path = std::env::var_os("PATH").is_some_and(|p| {
        std::env::split_paths(&p)
            .any(|d| d.join("loadlab").canonicalize().ok() == Some(exe.clone()))
    });
    if on_path {
        return "loadlab".to_string();
    }
    std::env::current_dir()
        .and_then(|d| d.canonicalize())
        .ok()
        .and_then(|d| exe.strip_prefix(d).ok().map(|r| r.display().to_string()))
        .unwrap_or_else(|| exe.display().to_string())
}

/// The latest study of the store that wrote its report to `report`, with its analysis.
fn stored_answer(db: &Path, report: &Path) -> Result<(i64, Analysis), CliError> {
    let store = Store::open(db).map_err(CliError::io)?;
    let want = report.display().to_string();
    let study = store
        .studies()
        .map_err(CliError::io)?
        .into_iter()
        .filter(|s| s.out_dir == want)
        .map(|s| s.id)
        .max()
        .ok_or_else(|| {
            CliError::internal(format!("{}: the demo's study is missing", db.display()))
        })?;
    let json = store
        .analysis(study)
        .map_err(CliError::io)?
        .ok_or_else(|| CliError::internal(format!("study {study}: no analysis stored")))?;
    let analysis = serde_json::from_str(&json)
        .map_err(|e| CliError::internal(format!("study {study}: stored analysis: {e}")))?;
    Ok((study, analysis))
}
