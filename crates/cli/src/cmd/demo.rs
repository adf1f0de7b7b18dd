//! `loadlab demo`: a self-contained study in about two minutes. An in-process
//! origin serves two routes that behave like two instance types (different
//! latency and capacity); the study compares them with repetitions, a ceiling
//! search and hypotheses, and writes the report.

use std::path::PathBuf;

use loadlab_study::Plan;
use loadlab_study::demo::DEMO_PLAN;
use loadlab_study::plan::MonitorPlan;

use crate::exit::CliError;

#[derive(Debug, clap::Args)]
pub struct DemoArgs {
    /// Where to write the plan, the store and the report.
    #[arg(long, default_value = "loadlab-demo")]
    pub out: PathBuf,
}

pub fn run(a: DemoArgs) -> Result<(), CliError> {
    std::fs::create_dir_all(&a.out)
        .map_err(|e| CliError::io(format!("{}: {e}", a.out.display())))?;
    let plan_path = a.out.join("plan.yaml");
    std::fs::write(&plan_path, DEMO_PLAN)
        .map_err(|e| CliError::io(format!("{}: {e}", plan_path.display())))?;
    let mut plan = Plan::from_file(&plan_path).map_err(CliError::bad_input)?;
    // Watch this very process (origin and client share it): the CPU column.
    plan.monitor = Some(MonitorPlan {
        pid: Some(std::process::id()),
        process: None,
        interval: std::time::Duration::from_secs(1),
    });
    eprintln!(
        "loadlab demo: origin with routes /c5 and /c6g in-process; plan written to {}",
        plan_path.display()
    );
    eprintln!(
        "up to {} runs of {} each ({} repetitions, interleaved), then a ceiling search; about two minutes; Ctrl-C stops",
        plan.load.rates.len() * plan.targets.len() * plan.repetitions as usize,
        loadlab_core::format_go_duration(plan.load.step),
        plan.repetitions
    );
    let report = a.out.join("report");
    let out = super::study::run_plan(
        &plan,
        &plan_path,
        DEMO_PLAN.to_string(),
        Some(report),
        a.out.join("study.db"),
        false,
    )?;
    println!("Report: {}", out.join("report.html").display());
    println!("        {}", out.join("report.md").display());
    Ok(())
}
