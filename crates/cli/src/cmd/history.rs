//! `loadlab runs history` and `loadlab runs check`: one plan's studies in
//! order, their change points, and a gate for CI.

use std::path::PathBuf;

use loadlab_study::Store;
use loadlab_study::history::{self, History, HistoryError, Query, Settings, render};
use loadlab_study::hypothesis::Metric;
use loadlab_study::store::StudyRow;

use crate::exit::{CliError, REGRESSION};

/// What both commands look at.
#[derive(Debug, Clone, clap::Args)]
pub struct Select {
    /// Only studies of the plan with this name, or whose plan has this
    /// hash (as `runs history` names them).
    #[arg(long)]
    pub plan: Option<String>,
    /// The target [default: the only one].
    #[arg(long)]
    pub target: Option<String>,
    /// The sweep rate [default: the only one].
    #[arg(long)]
    pub rate: Option<u64>,
    /// p50, p90, p95, p99, max, mean, success or rate (throughput).
    #[arg(long, default_value = "p99", value_parser = metric)]
    pub metric: Metric,
    /// Take studies of different plans, or of an edited plan, as one history.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub select: Select,
    /// Also write the history as a self-contained HTML page.
    #[arg(long)]
    pub html: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub select: Select,
    /// The label of the study to check from (a change after it, or the
    /// latest study worse than it, is a finding).
    #[arg(long)]
    pub since: String,
    /// The change tolerated, e.g. 2% or 0.02 [default: 0].
    #[arg(long, value_parser = margin, default_value = "0")]
    pub margin: f64,
}

fn metric(s: &str) -> Result<Metric, String> {
    if s == "rate" {
        return Ok(Metric::Throughput);
    }
    Metric::ALL
        .iter()
        .find(|(n, m)| *n == s && !matches!(m, Metric::Cpu | Metric::Ceiling))
        .map(|(_, m)| *m)
        .ok_or_else(|| format!("{s:?}: expected p50, p90, p95, p99, max, mean, success or rate"))
}

fn margin(s: &str) -> Result<f64, String> {
    let (v, div) = match s.strip_suffix('%') {
        Some(v) => (v, 100.0),
        None => (s, 1.0),
    };
    v.trim()
        .parse::<f64>()
        .ok()
        .map(|v| v / div)
        .filter(|v| v.is_finite() && *v >= 0.0)
        .ok_or_else(|| format!("{s:?}: expected a non-negative fraction (0.02) or percentage (2%)"))
}

fn studies(store: &Store, sel: &Select) -> Result<Vec<StudyRow>, CliError> {
    let all = store.studies().map_err(CliError::io)?;
    match &sel.plan {
        None => Ok(all),
        Some(p) => {
            let s: Vec<StudyRow> = all
                .into_iter()
                .filter(|s| &s.name == p || history::plan_hash(&s.plan_json) == *p)
                .collect();
            if s.is_empty() {
                return Err(CliError::usage(format!(
                    "--plan {p}: no study of a plan with that name or hash in the store"
                )));
            }
            Ok(s)
        }
    }
}

fn build(store: &Store, sel: &Select) -> Result<History, CliError> {
    let studies = studies(store, sel)?;
    let q = Query {
        target: sel.target.clone(),
        rate: sel.rate,
        metric: sel.metric,
        force: sel.force,
    };
    history::history(store, &studies, &q, &Settings::default()).map_err(|e| match e {
        HistoryError::Store(e) => CliError::io(e),
        HistoryError::Refused(m) => CliError::bad_input(m),
    })
}

pub fn history(store: &Store, a: &HistoryArgs) -> Result<(), CliError> {
    let h = build(store, &a.select)?;
    print!("{}", render::text(&h));
    if let Some(path) = &a.html {
        let page = render::html(&h).map_err(CliError::internal)?;
        std::fs::write(path, page).map_err(|e| CliError::io(format!("{}: {e}", path.display())))?;
        eprintln!("loadlab: history page written to {}", path.display());
    }
    Ok(())
}

pub fn check(store: &Store, a: &CheckArgs) -> Result<(), CliError> {
    let h = build(store, &a.select)?;
    let Some(since) = h.points.iter().rposition(|p| p.label == a.since) else {
        let labels: Vec<&str> = h.points.iter().map(|p| p.label.as_str()).collect();
        return Err(CliError::bad_input(format!(
            "--since {}: no study with that label in this history (labels: {})",
            a.since,
            labels.join(", ")
        )));
    };
    let findings = history::check(&h, since, a.margin);
    for f in &findings {
        println!("{}", f.line);
    }
    if findings.is_empty() {
        println!(
            "no regression of {} for {} at {}/s since {} ({} studies after it)",
            h.metric.name(),
            h.target,
            h.rate,
            a.since,
            h.points.len() - since - 1
        );
        return Ok(());
    }
    Err(CliError::new(
        REGRESSION,
        format!("{} finding(s) since {}", findings.len(), a.since),
    ))
}

/// Refuses `--baseline STUDY` before any load when the store has no such
/// study.
pub fn check_baseline(db: &std::path::Path, id: i64) -> Result<(), CliError> {
    let none = || {
        CliError::bad_input(format!(
            "--baseline {id}: no study {id} in {} (`loadlab runs` lists them)",
            db.display()
        ))
    };
    if !db.exists() {
        return Err(none());
    }
    let store = Store::open_existing(db).map_err(CliError::bad_input)?;
    store.study(id).map(|_| ()).map_err(|_| none())
}

/// Rewrites the report of `study` with the section against `baseline`.
pub fn baseline_report(
    db: &std::path::Path,
    baseline: i64,
    study: i64,
    out: &std::path::Path,
) -> Result<(), CliError> {
    let store = Store::open_existing(db).map_err(CliError::bad_input)?;
    let s = store.study(study).map_err(CliError::io)?;
    let plan: loadlab_study::Plan = serde_json::from_str(&s.plan_json)
        .map_err(|e| CliError::bad_input(format!("study {study}: stored plan: {e}")))?;
    let runs = store.runs(study).map_err(CliError::io)?;
    let analysis = loadlab_study::analysis::analyse(&plan, &runs);
    let extra = history::baseline::section(&store, baseline, study).map_err(CliError::io)?;
    loadlab_study::report::write_report_with(&s, &plan, &runs, &analysis, out, extra)
        .map_err(CliError::io)
}

/// A plan's `regression:` block after its study: one line per finding on
/// stdout, exit [`REGRESSION`] if any.
pub fn regression_gate(
    db: &std::path::Path,
    study: i64,
    r: &loadlab_study::plan::RegressionPlan,
) -> Result<(), CliError> {
    let store = Store::open_existing(db).map_err(CliError::io)?;
    let g = history::gate(&store, study, r).map_err(|e| match e {
        HistoryError::Store(e) => CliError::io(e),
        HistoryError::Refused(m) => CliError::bad_input(m),
    })?;
    for n in &g.notes {
        println!("regression: {n}");
    }
    for f in &g.findings {
        println!("regression: {}", f.line);
    }
    if g.findings.is_empty() {
        println!(
            "regression: none in {} beyond {:.1}% (study {study} against {})",
            r.metric.name(),
            r.margin * 100.0,
            match &r.since {
                loadlab_study::plan::Since::Previous => "the previous study".to_string(),
                loadlab_study::plan::Since::Label(l) => format!("the study labelled {l}"),
            }
        );
        return Ok(());
    }
    Err(CliError::new(
        REGRESSION,
        format!(
            "{} regression finding(s) in study {study}",
            g.findings.len()
        ),
    ))
}
