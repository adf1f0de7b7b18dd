//! `loadlab k8s render|run --workers N PLAN.yaml`: a study plan split over
//! the worker pods of an Indexed Job (each runs `loadlab study PLAN
//! --segment=I/N --start-at=T`), and `k8s gather` of their stores (`study
//! merge`). The attack mode is in `job.rs`; the objects are
//! `loadlab_cluster::plan`'s. See docs/distributed.md.

use std::io::Write;
use std::path::{Path, PathBuf};

use loadlab_cluster::plan::{PlanRenderSpec, prepare_plan};
use loadlab_cluster::render::{Manifests, Results};
use loadlab_study::Plan;

use super::job::{RenderArgs, render_error};
use crate::exit::CliError;

/// clap may fill the `PLAN.yaml` positional with a value given after `--`
/// (`k8s render --workers 4 -- -rate=10 -duration=1s` gives it
/// `-duration=1s`): a plan is only a plan before `--`; after it, every
/// value is the attack's, in the order given.
pub fn plan_or_attack(r: &mut RenderArgs, argv: impl Iterator<Item = std::ffi::OsString>) {
    let Some(plan) = r.plan.clone() else {
        return;
    };
    let argv: Vec<std::ffi::OsString> = argv.collect();
    let Some(dash) = argv.iter().position(|a| a == "--") else {
        return;
    };
    if argv[..dash].iter().any(|a| a == plan.as_os_str()) {
        return;
    }
    r.attack = argv[dash + 1..]
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    r.plan = None;
}

/// Checks everything and builds the objects.
fn build(r: &RenderArgs, plan_path: &Path) -> Result<(PlanRenderSpec, Manifests), CliError> {
    if !r.attack.is_empty() {
        return Err(CliError::usage(
            "k8s render takes a study plan or attack flags after --, not both",
        ));
    }
    let plan = Plan::from_file(plan_path).map_err(CliError::bad_input)?;
    loadlab_study::split::check_plan(&plan).map_err(CliError::bad_input)?;
    let base =
        super::job::RenderBase::settle(r, "stores", "workers more than 1s late refuse to start")?;
    let prepared = prepare_plan(
        plan_path,
        &loadlab_study::split::referenced_files(plan_path).map_err(CliError::io)?,
    )
    .map_err(render_error)?;
    // The whole study: every slot of the timetable.
    let slots = loadlab_study::split::timetable(&plan, 0, r.step_slack).len() as u32;
    let length = loadlab_study::split::slot_length(&plan, r.step_slack) * slots;
    let mut spec = PlanRenderSpec {
        base: base.spec(r, Some(length), Default::default()),
        plan: prepared,
        step_slack: r.step_slack,
    };
    let secret = spec.secret_name();
    super::credentials::move_to_secret(&mut spec.plan, &plan.redact, &secret);
    let manifests = spec.render().map_err(render_error)?;
    Ok((spec, manifests))
}

/// `k8s render … PLAN.yaml`: the manifests on stdout.
pub fn render(r: &RenderArgs, plan: &Path) -> Result<(), CliError> {
    let (_, manifests) = build(r, plan)?;
    let yaml = manifests.to_yaml().map_err(render_error)?;
    let mut out = std::io::stdout();
    out.write_all(yaml.as_bytes())
        .and_then(|_| out.flush())
        .map_err(|e| CliError::io(format!("cannot write the manifests: {e}")))
}

/// `k8s run … PLAN.yaml`: render, apply, follow, then gather and merge
/// the stores (S3) or say where they are (a volume).
pub fn run_job(r: &RenderArgs, plan: &Path) -> Result<(), CliError> {
    let (spec, manifests) = build(r, plan)?;
    let b = &spec.base;
    super::job::apply_and_follow(
        b,
        &manifests,
        super::job::Follow {
            workers: "study workers",
            starts: "first step",
            timeout_hint: None,
            interrupted: format!(
                "interrupted; the Job {} goes on in the cluster: merge its stores later with `loadlab k8s gather --workers {} --name {} --results …`",
                b.name, b.workers, b.name
            ),
            failed: "the runs it did not upload are missing from the merged study",
        },
    )?;
    match &b.results {
        Results::Pvc { claim } => {
            eprintln!(
                "loadlab: the stores are on the claim {claim} as {}-worker-I.db; copy them out and run `loadlab study merge --db OUT.db` on them",
                b.name
            );
            Ok(())
        }
        Results::S3 { .. } => gather(&b.results.location(&b.name), b.workers, None, None),
    }
}

/// True when the objects under `location` are a split study's stores
/// (`worker-I.db`) rather than attack results.
pub fn holds_stores(location: &str) -> Result<bool, CliError> {
    use loadlab_cluster::store::{self, S3Url};
    let Some(Ok(url)) = S3Url::parse(location) else {
        return Ok(false);
    };
    let listed = store::block_on(store::list(&url))
        .map_err(CliError::network)?
        .map_err(CliError::network)?;
    Ok(listed.iter().any(|(k, _)| k.ends_with(".db")))
}

/// `k8s gather` of a split study: names the workers that uploaded no
/// store, then merges the others' into `db` (`loadlab.db`) and writes the
/// report (`study merge`).
pub fn gather(
    location: &str,
    workers: u32,
    db: Option<PathBuf>,
    out: Option<PathBuf>,
) -> Result<(), CliError> {
    let tmp = tempfile::tempdir()
        .map_err(|e| CliError::io(format!("cannot create a temporary folder: {e}")))?;
    let stores = crate::cmd::study::fetch_stores(&[PathBuf::from(location)], tmp.path())?;
    let present: Vec<u32> = stores
        .iter()
        .filter_map(|p| {
            p.file_name()?
                .to_str()?
                .strip_prefix("worker-")?
                .strip_suffix(".db")?
                .parse()
                .ok()
        })
        .collect();
    for i in (0..workers).filter(|i| !present.contains(i)) {
        eprintln!(
            "loadlab: worker {i} uploaded no store (worker-{i}.db missing under {location}): its share of every step is missing from the merged study"
        );
    }
    crate::cmd::study::merge(crate::cmd::study::MergeArgs {
        db: db.unwrap_or_else(|| PathBuf::from(crate::cmd::study::DEFAULT_DB)),
        out,
        workers: stores,
    })
}
