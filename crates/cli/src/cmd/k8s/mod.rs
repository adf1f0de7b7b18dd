//! `loadlab k8s render|run|gather`: an attack, a k6 script or a study plan
//! split over the worker pods of a Kubernetes Indexed Job. The attack and
//! script modes are in `job.rs`, the study-plan mode in `plan.rs` (which
//! uses `job.rs`'s flags and Job follower); this file only dispatches.

use std::io::Write;

use loadlab_cluster::render::Results;

use crate::exit::CliError;

mod credentials;
mod job;
mod plan;

pub use job::{K8sArgs, K8sCommand, attack_flag_before_dashes};

pub fn run(mut a: K8sArgs) -> Result<(), CliError> {
    if let K8sCommand::Render(r) | K8sCommand::Run(r) = &mut a.command {
        plan::plan_or_attack(r, std::env::args_os());
    }
    match a.command {
        K8sCommand::Render(r) if r.plan.is_some() => {
            plan::render(&r, r.plan.as_deref().unwrap_or_else(|| unreachable!()))
        }
        K8sCommand::Run(r) if r.plan.is_some() => {
            plan::run_job(&r, r.plan.as_deref().unwrap_or_else(|| unreachable!()))
        }
        K8sCommand::Render(r) => {
            let (_, manifests) = job::build(&r)?;
            let yaml = manifests.to_yaml().map_err(job::render_error)?;
            let mut out = std::io::stdout();
            out.write_all(yaml.as_bytes())
                .and_then(|_| out.flush())
                .map_err(|e| CliError::io(format!("cannot write the manifests: {e}")))
        }
        K8sCommand::Run(r) => job::run_job(&r),
        K8sCommand::Gather(g) => {
            let results = Results::parse(&g.results).map_err(job::render_error)?;
            if let Results::Pvc { .. } = results {
                return Err(CliError::usage(
                    "k8s gather reads s3://BUCKET/PREFIX; for pvc: copy the files out and run loadlab report on them",
                ));
            }
            let location = results.location(&g.name);
            if plan::holds_stores(&location)? {
                return plan::gather(&location, g.workers, g.db, g.out);
            }
            job::warn_missing_workers(&location, g.workers)?;
            crate::cmd::report::run(crate::cmd::report::ReportArgs {
                kind: g.kind,
                buckets: None,
                every: None,
                by: None,
                output: "stdout".into(),
                files: vec![location],
            })
        }
    }
}
