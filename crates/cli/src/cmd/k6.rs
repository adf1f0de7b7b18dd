//! `loadlab k6 run [flags] script.js`: k6 scripts, unchanged, with k6's flags,
//! its end-of-test summary and its exit codes (docs/k6.md).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use loadlab_script::{Overrides, RunConfig, ScriptError};

use crate::exit::CliError;

/// k6's exit codes that loadlab k6 uses too.
pub const THRESHOLDS_FAILED: i32 = 99;
pub const INVALID_CONFIG: i32 = 104;
pub const EXTERNAL_ABORT: i32 = 105;
pub const SCRIPT_EXCEPTION: i32 = 107;
pub const SCRIPT_ABORTED: i32 = 108;

#[derive(Debug, Args)]
pub struct K6Args {
    #[command(subcommand)]
    cmd: K6Command,
}

#[derive(Debug, Subcommand)]
enum K6Command {
    /// Run a k6 script (`loadlab k6 run -u 10 -d 30s script.js`).
    Run(K6RunArgs),
}

#[derive(Debug, Args)]
pub struct K6RunArgs {
    /// The script (an ES module using k6's API).
    script: PathBuf,
    /// Number of VUs.
    #[arg(short = 'u', long = "vus")]
    vus: Option<u64>,
    /// Test duration (e.g. 30s, 1m30s).
    #[arg(short = 'd', long = "duration")]
    duration: Option<String>,
    /// Total iterations, shared by the VUs.
    #[arg(short = 'i', long = "iterations")]
    iterations: Option<u64>,
    /// A ramping stage DURATION:TARGET (repeatable), e.g. -s 10s:20.
    #[arg(short = 's', long = "stage")]
    stage: Vec<String>,
    /// An environment variable for __ENV (repeatable), KEY=VALUE.
    #[arg(short = 'e', long = "env")]
    env: Vec<String>,
    /// Outputs (repeatable): json=FILE (k6's NDJSON points), loadlab=FILE
    /// (our results file, for `loadlab report`).
    #[arg(short = 'o', long = "out")]
    out: Vec<String>,
    /// Write the end-of-test figures as JSON to FILE.
    #[arg(long = "summary-export")]
    summary_export: Option<PathBuf>,
    /// Trend statistics in the summary, comma-separated (avg,min,med,max,p(90),p(95),count).
    #[arg(long = "summary-trend-stats")]
    summary_trend_stats: Option<String>,
    /// No progress lines, no banner.
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Accepted for k6 compatibility (loadlab sends no usage report).
    #[arg(long = "no-usage-report")]
    no_usage_report: bool,
    /// A tag added to every sample (repeatable), NAME=VALUE.
    #[arg(long = "tag")]
    tag: Vec<String>,
    /// Run without evaluating thresholds.
    #[arg(long = "no-thresholds")]
    no_thresholds: bool,
    /// Do not pass the process environment to __ENV (k6's --include-system-env-vars=false).
    #[arg(long = "no-system-env-vars")]
    no_system_env_vars: bool,
    /// Run only this instance's share of the test, as k6: FROM:TO fractions
    /// of an equal split, e.g. 0:1/4, 1/4:2/4, 50%:75% (a single value V is 0:V).
    #[arg(long = "execution-segment")]
    execution_segment: Option<String>,
}

/// A fraction as k6 writes one: `1/4`, `0.25`, `25%`, `0`, `1`.
fn fraction(s: &str) -> Option<f64> {
    let s = s.trim();
    let v = if let Some(p) = s.strip_suffix('%') {
        p.trim().parse::<f64>().ok()? / 100.0
    } else if let Some((a, b)) = s.split_once('/') {
        let (a, b) = (a.trim().parse::<f64>().ok()?, b.trim().parse::<f64>().ok()?);
        if b == 0.0 {
            return None;
        }
        a / b
    } else {
        s.parse::<f64>().ok()?
    };
    (v.is_finite() && (0.0..=1.0).contains(&v)).then_some(v)
}

/// `--execution-segment FROM:TO` → share `i` of `n` equal shares. loadlab
/// splits a test into equal shares dealt out in turn (as `attack
/// -segment=i/n`), so a segment must be one of those: `[i/n, (i+1)/n)`.
pub fn execution_segment(s: &str) -> Result<(u64, u64), String> {
    let (from, to) = match s.split_once(':') {
        Some((a, b)) => (a, b),
        None => ("0", s),
    };
    let bad = || format!("--execution-segment {s:?}: expected FROM:TO fractions, e.g. 1/4:2/4");
    let (from, to) = (
        fraction(from).ok_or_else(bad)?,
        fraction(to).ok_or_else(bad)?,
    );
    if to <= from {
        return Err(format!("--execution-segment {s:?}: TO must be above FROM"));
    }
    let n = (1.0 / (to - from)).round();
    let i = (from * n).round();
    if !(1.0..=1e6).contains(&n)
        || ((to - from) * n - 1.0).abs() > 1e-9
        || (from * n - i).abs() > 1e-9
    {
        return Err(format!(
            "--execution-segment {s:?}: loadlab runs equal shares only: [i/n, (i+1)/n), e.g. 0:1/3, 1/3:2/3, 2/3:1"
        ));
    }
    Ok((i as u64, n as u64))
}

fn pair(s: &str, what: &str) -> Result<(String, String), CliError> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| CliError::usage(format!("{what} {s:?}: expected NAME=VALUE")))
}

pub fn run(a: K6Args) -> Result<(), CliError> {
    match a.cmd {
        K6Command::Run(r) => run_script(r),
    }
}

fn run_script(a: K6RunArgs) -> Result<(), CliError> {
    let _ = a.no_usage_report;
    let mut env: Vec<(String, String)> = if a.no_system_env_vars {
        Vec::new()
    } else {
        std::env::vars().collect()
    };
    for e in &a.env {
        let (k, v) = pair(e, "-e")?;
        env.retain(|(a, _)| *a != k);
        env.push((k, v));
    }
    let mut ov = Overrides {
        vus: a.vus,
        iterations: a.iterations,
        no_thresholds: a.no_thresholds,
        ..Default::default()
    };
    if let Some(seg) = &a.execution_segment {
        ov.segment = Some(execution_segment(seg).map_err(CliError::usage)?);
    }
    if let Some(d) = &a.duration {
        ov.duration = Some(
            loadlab_script::options::parse_duration_str(d).ok_or_else(|| {
                CliError::usage(format!("-d {d:?}: not a duration (e.g. 30s, 1m30s)"))
            })?,
        );
    }
    if !a.stage.is_empty() {
        let mut st = Vec::new();
        for s in &a.stage {
            st.push(loadlab_script::options::parse_stage_flag(s).map_err(CliError::usage)?);
        }
        ov.stages = Some(st);
    }
    for t in &a.tag {
        ov.tags.push(pair(t, "--tag")?);
    }
    if let Some(s) = &a.summary_trend_stats {
        ov.summary_trend_stats = Some(s.split(',').map(|x| x.trim().to_string()).collect());
    }
    let mut cfg = RunConfig {
        script: a.script.clone(),
        env,
        overrides: ov,
        quiet: a.quiet,
        summary_export: a.summary_export.clone(),
        exit_after: true,
        ..Default::default()
    };
    for o in &a.out {
        match o.split_once('=') {
            Some(("json", f)) if !f.is_empty() => cfg.json_out = Some(PathBuf::from(f)),
            Some(("loadlab", f)) if !f.is_empty() => cfg.results_out = Some(PathBuf::from(f)),
            _ => {
                return Err(CliError::usage(format!(
                    "--out {o:?}: loadlab k6 writes json=FILE (k6's points) and loadlab=FILE (results for loadlab report)"
                )));
            }
        }
    }
    if !a.quiet {
        eprintln!(
            "loadlab k6: {} (one QuickJS context per VU, VUs as coroutines on one thread)",
            a.script.display()
        );
    }
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let outcome = loadlab_script::run(cfg, shutdown).map_err(|e| match &e {
        ScriptError::Read { .. } | ScriptError::Output(_) => CliError::io(e),
        ScriptError::Options(_) => CliError::new(INVALID_CONFIG, e),
        ScriptError::Runtime(_) => CliError::internal(e),
        _ => CliError::new(SCRIPT_EXCEPTION, e),
    })?;
    print!("{}", outcome.summary);
    if outcome.script_errors > 0 {
        eprintln!(
            "loadlab: {} iterations ended with an exception (see the errors above)",
            outcome.script_errors
        );
    }
    if let Some(msg) = &outcome.aborted {
        eprintln!("loadlab: the script aborted the test: {msg}");
        std::process::exit(SCRIPT_ABORTED);
    }
    if outcome.thresholds_failed {
        eprintln!("loadlab: some thresholds have failed");
        std::process::exit(THRESHOLDS_FAILED);
    }
    if outcome.interrupted {
        std::process::exit(EXTERNAL_ABORT);
    }
    Ok(())
}
