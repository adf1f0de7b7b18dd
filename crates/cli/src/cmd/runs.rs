//! `loadlab runs [list]`, `loadlab runs show STUDY`, `loadlab runs run RUN`,
//! `loadlab runs report STUDY [--out DIR]`: what the store holds.

use std::path::{Path, PathBuf};

use loadlab_study::analysis::Analysis;
use loadlab_study::{Plan, Store};

use crate::exit::CliError;

#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    /// The SQLite store [default: loadlab.db; when there is none, the demo's
    /// loadlab-demo/study.db if it exists].
    #[arg(long, global = true)]
    pub db: Option<PathBuf>,
    #[command(subcommand)]
    pub action: Option<RunsAction>,
}

#[derive(Debug, clap::Subcommand)]
pub enum RunsAction {
    /// One line per study (the default).
    List,
    /// A study: plan, environment, every run, ceilings and verdicts.
    Show { study: i64 },
    /// One run in vegeta's text layout.
    Run { run: i64 },
    /// Rewrites a study's report from the store.
    Report {
        study: i64,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// One plan's studies in order: a metric's value and interval per
    /// study, and the change points (E-divisive means).
    History(super::history::HistoryArgs),
    /// Fails (exit 9) on a change point for the worse, or a significant
    /// regression beyond --margin, since the study labelled --since.
    Check(super::history::CheckArgs),
}

/// The store to read: `--db`, else ./loadlab.db, else (when only the demo
/// has run here) the demo's store, named on stderr so nobody is misled.
pub fn store_path(db: Option<PathBuf>) -> PathBuf {
    if let Some(db) = db {
        return db;
    }
    let default = PathBuf::from(super::study::DEFAULT_DB);
    let demo = Path::new(super::demo::DEFAULT_OUT).join(super::demo::STORE);
    if !default.exists() && demo.exists() {
        eprintln!(
            "loadlab: no {} here; reading the demo's store {} (--db FILE to choose)",
            default.display(),
            demo.display()
        );
        return demo;
    }
    default
}

pub(super) fn open(db: &Path) -> Result<Store, CliError> {
    if !db.exists() {
        return Err(CliError::io(format!(
            "{}: no such store (run a study first, or pass --db)",
            db.display()
        )));
    }
    Store::open_existing(db).map_err(CliError::bad_input)
}

/// A study's environment as readable lines (the raw JSON when it cannot be
/// read as one).
fn environment_lines(json: &str) -> String {
    let Ok(e) = serde_json::from_str::<loadlab_study::env::Environment>(json) else {
        return format!("environment: {json}\n");
    };
    let mut o = format!(
        "host:     {} ({}, {} cores)\nkernel:   {}\nloadlab:  {} (commit {})\n",
        e.host, e.cpu_model, e.cores, e.kernel, e.loadlab_version, e.git_revision
    );
    if let Some(w) = &e.worker {
        o += &format!(
            "worker:   segment {}/{} on {}, started {}\n",
            w.segment,
            w.segments,
            w.host,
            loadlab_metrics::timefmt::rfc3339(i128::from(w.start_at_unix_ns))
        );
    }
    if !e.merged_from.is_empty() {
        o += &format!("merged from {} workers\n", e.merged_from.len());
    }
    o
}

/// Latencies in the runs table: 3 significant digits, like the progress lines.
fn d(ns: u64) -> String {
    loadlab_study::report::text::round_duration(ns)
}

pub fn run(a: RunsArgs) -> Result<(), CliError> {
    let store = open(&store_path(a.db))?;
    match a.action.unwrap_or(RunsAction::List) {
        RunsAction::History(h) => return super::history::history(&store, &h),
        RunsAction::Check(c) => return super::history::check(&store, &c),
        RunsAction::List => {
            println!(
                "{:>4}  {:<24} {:<12} {:>5}  {:<20}  {:<14}  REPORT",
                "ID", "NAME", "STATUS", "RUNS", "CREATED", "LABEL"
            );
            for s in store.studies().map_err(CliError::io)? {
                println!(
                    "{:>4}  {:<24} {:<12} {:>5}  {:<20}  {:<14}  {}",
                    s.id, s.name, s.status, s.runs, s.created_at, s.label, s.out_dir
                );
            }
        }
        RunsAction::Show { study } => {
            let s = store.study(study).map_err(CliError::usage)?;
            println!(
                "study {} {:?}: {} ({} runs), created {}, plan {}",
                s.id, s.name, s.status, s.runs, s.created_at, s.plan_path
            );
            println!("label:    {}", s.label);
            print!("{}", environment_lines(&s.environment_json));
            println!("report: {}", s.out_dir);
            println!();
            println!(
                "{:>5}  {:<6} {:>6}  {:<12} {:>3} {:>8} {:>10} {:>12} {:>12} {:>8}  SLO",
                "RUN", "PHASE", "RATE", "TARGET", "REP", "REQS", "OK/S", "P50", "P99", "SUCCESS"
            );
            for r in store.runs(study).map_err(CliError::io)? {
                let m = &r.summary;
                let mut slo = match r.slo_pass {
                    Some(true) => "pass",
                    Some(false) => "FAIL",
                    None => "-",
                }
                .to_string();
                // A split study's merged run that misses a worker's share.
                if let Some(w) = m.workers.as_ref().filter(|w| !w.is_complete()) {
                    slo += &format!("  {} requests missing", w.missing);
                }
                println!(
                    "{:>5}  {:<6} {:>6}  {:<12} {:>3} {:>8} {:>10.1} {:>12} {:>12} {:>7.2}%  {slo}",
                    r.id,
                    r.phase,
                    r.rate,
                    r.target,
                    r.repetition,
                    m.requests,
                    m.throughput,
                    d(m.p50_ns),
                    d(m.p99_ns),
                    m.success * 100.0
                );
            }
            if let Some(json) = store.analysis(study).map_err(CliError::io)?
                && let Ok(an) = serde_json::from_str::<Analysis>(&json)
            {
                println!();
                for c in &an.ceilings {
                    println!("ceiling {}: {}", c.target, c.describe());
                }
                for h in &an.answers {
                    println!(
                        "{}: {} — {}",
                        h.word().to_uppercase(),
                        h.hypothesis,
                        h.explanation
                    );
                }
            }
        }
        RunsAction::Run { run } => {
            let r = store.run(run).map_err(CliError::usage)?;
            println!(
                "run {} of study {}: {} {} req/s, target {}, repetition {}, started {}",
                r.id, r.study_id, r.phase, r.rate, r.target, r.repetition, r.started_at
            );
            print!("{}", loadlab_study::report::text::vegeta_text(&r.summary));
            // A replayed log's skipped or reordered lines.
            for l in &r.summary.replay {
                println!("Replay        {l}");
            }
            // A concurrent group's combined run: its workloads side by side.
            if let Some(g) = &r.summary.group {
                let all = store.runs(r.study_id).map_err(CliError::io)?;
                let members: Vec<_> = g
                    .members
                    .iter()
                    .filter_map(|m| {
                        all.iter().find(|x| {
                            x.target == *m
                                && x.phase == r.phase
                                && x.rate == r.rate
                                && x.repetition == r.repetition
                        })
                    })
                    .collect();
                println!();
                print!(
                    "{}",
                    loadlab_study::report::concurrent::side_by_side_text(&r, &members)
                );
            }
            if let Some(w) = &r.summary.workers {
                for l in w.lines() {
                    println!("{l}");
                }
            }
        }
        RunsAction::Report { study, out } => {
            let s = store.study(study).map_err(CliError::usage)?;
            let plan: Plan = serde_json::from_str(&s.plan_json)
                .map_err(|e| CliError::bad_input(format!("study {study}: stored plan: {e}")))?;
            let runs = store.runs(study).map_err(CliError::io)?;
            let analysis = loadlab_study::analysis::analyse(&plan, &runs);
            let out = out.unwrap_or_else(|| PathBuf::from(&s.out_dir));
            loadlab_study::report::write_report(&s, &plan, &runs, &analysis, &out)
                .map_err(CliError::io)?;
            println!("Report: {}", out.join("report.html").display());
        }
    }
    Ok(())
}
