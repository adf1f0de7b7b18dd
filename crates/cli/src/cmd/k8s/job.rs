//! `loadlab k8s render|run`: one attack split over N worker pods of a
//! Kubernetes Indexed Job. See docs/distributed.md.

use std::io::{IsTerminal, Read};
use std::time::{Duration, SystemTime};

use clap::Parser;
use loadlab_cluster::render::{Manifests, RenderError, RenderSpec, Results};
use loadlab_cluster::run::ClusterError;

use crate::exit::{self, CliError};
use crate::flags;

#[derive(Debug, clap::Args)]
pub struct K8sArgs {
    #[command(subcommand)]
    pub command: K8sCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum K8sCommand {
    /// Write the manifests (a ConfigMap and an Indexed Job) to stdout:
    /// `loadlab k8s render --workers 4 --results s3://b/runs -- -rate=4000 -duration=60s -targets=t.txt`,
    /// or a k6 script's workers: `… -- k6 run -e BASE_URL=http://svc script.js`
    Render(RenderArgs),
    /// Apply the manifests through the Kubernetes API, follow the pods,
    /// gather the results from S3, merge and report (untested against a real cluster)
    Run(RenderArgs),
    /// After `render | kubectl apply`: name the workers that uploaded nothing,
    /// then merge and report the others' results from S3
    Gather(GatherArgs),
}

#[derive(Debug, clap::Args)]
pub struct GatherArgs {
    /// Number of workers the Job had
    #[arg(long)]
    pub workers: u32,
    /// The Job's name
    #[arg(long)]
    pub name: String,
    /// The --results given to render: s3://BUCKET/PREFIX
    #[arg(long)]
    pub results: String,
    /// Report type, as `loadlab report -type`
    #[arg(long = "type", default_value = "text")]
    pub kind: String,
    /// A split study's stores (worker-I.db): the store that receives the merged study [default: loadlab.db]
    #[arg(long)]
    pub db: Option<std::path::PathBuf>,
    /// A split study's stores: the merged study's report folder [default: studies/<id>-<name>]
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RenderArgs {
    /// Number of worker pods; each sends 1/N of the schedule (-rate etc. describe the whole test)
    #[arg(long)]
    pub workers: u32,
    /// Container image with loadlab in it (see the Dockerfile)
    #[arg(long, default_value = concat!("loadlab:", env!("CARGO_PKG_VERSION")))]
    pub image: String,
    /// Namespace of the objects [default: the kubeconfig context's]
    #[arg(long)]
    pub namespace: Option<String>,
    /// Name of the Job (the ConfigMap is NAME-input) [default: loadlab-UNIXTIME]
    #[arg(long)]
    pub name: Option<String>,
    /// Where the workers' results go: s3://BUCKET/PREFIX (files PREFIX/NAME/worker-I.bin)
    /// or pvc:CLAIM (a ReadWriteMany claim, files NAME-worker-I.bin)
    #[arg(long)]
    pub results: Option<String>,
    /// Secret whose keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, ...) become
    /// the workers' environment for S3 (optional: workload identity works without it)
    #[arg(long, default_value = "loadlab-s3")]
    pub s3_secret: String,
    /// S3-compatible endpoint for the workers (AWS_ENDPOINT_URL), e.g. http://minio.storage:9000
    #[arg(long)]
    pub s3_endpoint: Option<String>,
    /// A Secret whose keys become env vars, for $(VAR) in the attack flags,
    /// e.g. -header='Authorization: $(TOKEN)' (repeatable)
    #[arg(long, action = clap::ArgAction::Append)]
    pub secret_env: Vec<String>,
    /// Start instant of every worker: RFC 3339 or Unix seconds [default: now + --start-delay]
    #[arg(long, conflicts_with = "start_delay")]
    pub start_at: Option<String>,
    /// Time from now to the start, for the pods to be scheduled and pull the image
    #[arg(long, default_value = "30s", value_parser = flags::duration)]
    pub start_delay: Duration,
    /// CPU request and limit of each worker (the attack runs on one core)
    #[arg(long, default_value = "1")]
    pub cpu: String,
    /// Memory request and limit of each worker
    #[arg(long, default_value = "256Mi")]
    pub memory: String,
    /// The attack's flags, after `--` (as for `loadlab attack`), or a k6
    /// script's workers: `-- k6 run [k6 flags] script.js`
    #[arg(last = true, allow_hyphen_values = true, value_name = "ATTACK-FLAGS")]
    pub attack: Vec<String>,
    /// A study plan to split over the workers instead of an attack: each pod
    /// runs `loadlab study PLAN --segment=I/N` (see docs/distributed.md)
    #[arg(value_name = "PLAN.yaml")]
    pub plan: Option<std::path::PathBuf>,
    /// With a plan: the pause added to every step's slot (the study's --step-slack)
    #[arg(long, default_value = "2s", value_parser = flags::duration)]
    pub step_slack: Duration,
}

/// `loadlab attack`'s flags alone, to check them as `attack` would.
#[derive(Debug, Parser)]
#[command(name = "attack", args_override_self = true)]
struct AttackOnly {
    #[command(flatten)]
    args: crate::cmd::attack::AttackArgs,
}

pub(super) fn unix_ns_now() -> i128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// `loadlab k8s render --workers 2 -rate=10`: an unknown flag of `k8s`
/// that is an attack flag belongs after `--`; say so rather than suggest
/// the nearest k8s flag.
pub fn attack_flag_before_dashes(
    e: &clap::Error,
    original: &[std::ffi::OsString],
) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument
        || original.get(1).and_then(|a| a.to_str()) != Some("k8s")
    {
        return None;
    }
    let sub = original.get(2).and_then(|a| a.to_str()).unwrap_or("render");
    let Some(ContextValue::String(bad)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let name = bad.trim_start_matches('-').split('=').next().unwrap_or("");
    let is_attack_flag = <AttackOnly as clap::CommandFactory>::command()
        .get_arguments()
        .any(|a| {
            a.get_long() == Some(name) || (name.len() == 1 && a.get_short() == name.chars().next())
        });
    is_attack_flag.then(|| {
        format!(
            "loadlab: -{name} is an attack flag: put the attack's flags after `--`, e.g. loadlab k8s {sub} --workers 4 --results s3://BUCKET/PREFIX -- -rate=4000 -duration=60s -targets=targets.txt; see 'loadlab k8s {sub} --help'"
        )
    })
}

/// `--start-at`: RFC 3339 or Unix seconds.
pub(super) fn parse_start(s: &str) -> Result<i128, CliError> {
    if let Ok(secs) = s.trim().parse::<i64>() {
        return Ok(secs as i128 * 1_000_000_000);
    }
    loadlab_metrics::timefmt::parse_rfc3339(s.trim()).ok_or_else(|| {
        CliError::usage(format!(
            "--start-at {s:?}: expected RFC 3339 (2026-11-23T03:00:00Z) or Unix seconds"
        ))
    })
}

pub(super) fn render_error(e: RenderError) -> CliError {
    match e {
        RenderError::Flag(_) => CliError::usage(e),
        RenderError::Io { .. } => CliError::io(e),
        RenderError::TooLarge { .. } => CliError::bad_input(e),
        // As `k6 run` exits for a script that does not compile.
        RenderError::Script(_) => CliError::new(crate::cmd::k6::SCRIPT_EXCEPTION, e),
        RenderError::Yaml(_) => CliError::internal(e),
    }
}

/// Checks everything and builds the objects.
pub(super) fn build(r: &RenderArgs) -> Result<(RenderSpec, Manifests), CliError> {
    if r.attack.first().is_some_and(|a| a == "k6") {
        return build_script(r);
    }
    // The attack's flags are checked as `attack` checks them.
    let mut argv: Vec<std::ffi::OsString> = vec!["loadlab".into(), "attack".into()];
    argv.extend(r.attack.iter().map(Into::into));
    let mut argv = crate::args::normalize(argv);
    argv.remove(0);
    let parsed = AttackOnly::try_parse_from(argv).map_err(|e| {
        // The one line `attack` itself gives (with its suggestion, in the
        // flags' own Go style), without its prefix and help pointer.
        let mut typed: Vec<std::ffi::OsString> = vec!["loadlab".into(), "attack".into()];
        typed.extend(r.attack.iter().map(Into::into));
        let line = crate::usage::one_line(&e, &typed);
        let first = line.trim_start_matches("loadlab: ");
        let first = first.split("; see '").next().unwrap_or(first);
        CliError::usage(format!("in the attack flags after --: {first}"))
    })?;
    let attack = parsed.args;
    let cfg = crate::cmd::attack::config(&attack)?;
    let attack_duration = cfg
        .duration
        .or_else(|| cfg.pacer.build().planned_duration());

    let base = RenderBase::settle(
        r,
        "results",
        "the workers will start late, each when its pod comes up",
    )?;
    let flags = loadlab_cluster::prepare_attack_flags(&r.attack, || {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            return None;
        }
        // At most what a ConfigMap holds (and one byte more, to say it is
        // too large): a generator piped in never ends.
        let mut buf = Vec::new();
        stdin
            .lock()
            .take(loadlab_cluster::flags::CONFIG_MAP_LIMIT as u64 + 1)
            .read_to_end(&mut buf)
            .ok()?;
        Some(buf)
    })
    .map_err(render_error)?;
    for w in &flags.warnings {
        eprintln!("loadlab: warning: {w}");
    }
    let spec = base.spec(r, attack_duration, flags);
    let manifests = spec.render().map_err(render_error)?;
    Ok((spec, manifests))
}

/// What every mode of `k8s render` settles first: where the results go, the
/// one start instant of every worker (warned about when already past) and
/// the Job's name.
pub(super) struct RenderBase {
    results: Results,
    now: i128,
    start: i128,
    name: String,
}

impl RenderBase {
    /// `what` names the workers' output in the error for a missing
    /// `--results`; `late` says what a past start means in this mode.
    pub(super) fn settle(r: &RenderArgs, what: &str, late: &str) -> Result<RenderBase, CliError> {
        let results = r.results.as_deref().ok_or_else(|| {
            CliError::usage(format!(
                "k8s needs --results s3://BUCKET/PREFIX or --results pvc:CLAIM: where the workers' {what} go"
            ))
        })?;
        let results = Results::parse(results).map_err(render_error)?;
        let now = unix_ns_now();
        let start = match &r.start_at {
            Some(s) => parse_start(s)?,
            // Whole seconds, rounded up: readable in the manifests.
            None => {
                let t = now + r.start_delay.as_nanos() as i128;
                (t + 999_999_999).div_euclid(1_000_000_000) * 1_000_000_000
            }
        };
        if start < now {
            eprintln!(
                "loadlab: warning: --start-at {} is in the past: {late}",
                loadlab_metrics::timefmt::rfc3339(start)
            );
        }
        if r.s3_endpoint
            .as_deref()
            .is_some_and(loadlab_cluster::flags::has_url_password)
        {
            eprintln!(
                "loadlab: warning: --s3-endpoint holds a password: it is written in clear into the Job (AWS_ENDPOINT_URL); give the endpoint without credentials and the keys in the --s3-secret Secret (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"
            );
        }
        let name = r
            .name
            .clone()
            .unwrap_or_else(|| format!("loadlab-{}", start / 1_000_000_000));
        Ok(RenderBase {
            results,
            now,
            start,
            name,
        })
    }

    /// The spec of the Job: these settled parts and the flags' own.
    pub(super) fn spec(
        self,
        r: &RenderArgs,
        attack_duration: Option<Duration>,
        flags: loadlab_cluster::PreparedFlags,
    ) -> RenderSpec {
        RenderSpec {
            name: self.name,
            namespace: r.namespace.clone(),
            image: r.image.clone(),
            workers: r.workers,
            start_at_unix_ns: self.start,
            results: self.results,
            s3_secret: r.s3_secret.clone(),
            s3_endpoint: r.s3_endpoint.clone(),
            secret_env: r.secret_env.clone(),
            cpu: r.cpu.clone(),
            memory: r.memory.clone(),
            attack_duration,
            now_unix_ns: self.now,
            flags,
        }
    }
}

/// `k8s render --workers N … -- k6 run [k6 flags] script.js`: the script's
/// workers, segment I of N each (docs/distributed.md, "A k6 script").
fn build_script(r: &RenderArgs) -> Result<(RenderSpec, Manifests), CliError> {
    let (script, duration) = crate::cmd::k6::check_run_flags(&r.attack)?;
    let base = RenderBase::settle(
        r,
        "results",
        "the workers will start late, each when its pod comes up",
    )?;
    let flags = loadlab_cluster::prepare_script_flags(&r.attack, &script).map_err(render_error)?;
    for w in &flags.warnings {
        eprintln!("loadlab: warning: {w}");
    }
    // `-d` and k6's default graceful stop (30 s); the length of the
    // script's own scenarios is not known without running it: then
    // no deadline.
    let spec = base.spec(r, duration.map(|d| d + Duration::from_secs(30)), flags);
    let manifests = spec.render().map_err(render_error)?;
    Ok((spec, manifests))
}

fn cluster_error(e: ClusterError) -> CliError {
    CliError::new(exit::CLUSTER, e)
}

/// What differs between the modes of `k8s run` while the Job runs.
pub(super) struct Follow<'a> {
    /// The workers, as the "applied" line names them ("workers").
    pub workers: &'a str,
    /// What begins at the start instant ("start", "first step").
    pub starts: &'a str,
    /// Added to the error when the Job outlives its time limit.
    pub timeout_hint: Option<String>,
    /// The error when Ctrl-C stops the following (the Job goes on).
    pub interrupted: String,
    /// After "worker I failed (why)": what that means for the results.
    pub failed: &'a str,
}

/// `k8s run`'s middle, every mode alike: applies the manifests, follows
/// the pods until the Job ends (its time limit: until the start, the
/// run's length, and 5 minutes for stragglers), and names failed workers.
pub(super) fn apply_and_follow(
    spec: &RenderSpec,
    manifests: &Manifests,
    f: Follow<'_>,
) -> Result<(), CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the runtime: {e}")))?;
    let outcome = rt.block_on(async {
        let cluster = loadlab_cluster::run::connect(spec.namespace.as_deref())
            .await
            .map_err(cluster_error)?;
        cluster.apply(manifests).await.map_err(cluster_error)?;
        eprintln!(
            "loadlab: applied Job {} ({} {}) in namespace {}; {} at {}",
            spec.name,
            spec.workers,
            f.workers,
            cluster.namespace,
            f.starts,
            loadlab_metrics::timefmt::rfc3339(spec.start_at_unix_ns)
        );
        let limit = spec.attack_duration.map(|d| {
            let wait = ((spec.start_at_unix_ns - spec.now_unix_ns).max(0) as u64) / 1_000_000_000;
            d + Duration::from_secs(wait + 300)
        });
        let follow = cluster.follow(&spec.name, spec.workers, limit, |line| {
            eprintln!("loadlab: {line}")
        });
        tokio::select! {
            o = follow => o.map_err(|e| {
                let hint = matches!(e, ClusterError::Timeout { .. })
                    .then_some(f.timeout_hint.as_deref())
                    .flatten();
                let mut err = cluster_error(e);
                err.message += hint.unwrap_or("");
                err
            }),
            _ = tokio::signal::ctrl_c() => Err(CliError::new(exit::INTERRUPTED, f.interrupted)),
        }
    })?;
    for i in &outcome.failed {
        let why = outcome
            .reasons
            .get(i)
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        eprintln!("loadlab: worker {i} failed{why}: {}", f.failed);
    }
    Ok(())
}

/// `k8s run`: render, apply, follow, gather, merge, report.
pub(super) fn run_job(r: &RenderArgs) -> Result<(), CliError> {
    let (spec, manifests) = build(r)?;
    apply_and_follow(
        &spec,
        &manifests,
        Follow {
            workers: "workers",
            starts: "start",
            timeout_hint: Some(format!(
                "; gather what the workers uploaded with `loadlab k8s gather --workers {} --name {} --results …`",
                spec.workers, spec.name
            )),
            interrupted: format!(
                "interrupted; the Job {} goes on in the cluster: gather its results later with `loadlab report {}`",
                spec.name,
                spec.results.location(&spec.name)
            ),
            failed: "what it did not upload of its share is missing from the report",
        },
    )?;
    match &spec.results {
        Results::Pvc { claim } => {
            eprintln!(
                "loadlab: the results are on the claim {claim} as {}-worker-I.bin; copy them out (e.g. kubectl cp from a pod that mounts it) and run loadlab report on them",
                spec.name
            );
            Ok(())
        }
        Results::S3 { .. } => {
            let location = spec.results.location(&spec.name);
            warn_missing_workers(&location, spec.workers)?;
            crate::cmd::report::run(crate::cmd::report::ReportArgs {
                kind: "text".into(),
                buckets: None,
                every: None,
                by: None,
                output: "stdout".into(),
                files: vec![location],
            })
        }
    }
}

/// Names the workers that uploaded nothing: their shares are missing from
/// the merged report (never silently: one line each on stderr).
pub(super) fn warn_missing_workers(location: &str, workers: u32) -> Result<(), CliError> {
    use loadlab_cluster::store::{self, S3Url};
    let Some(Ok(url)) = S3Url::parse(location) else {
        return Ok(());
    };
    let listed = store::block_on(store::list(&url))
        .map_err(CliError::network)?
        .map_err(CliError::network)?;
    let missing = missing_workers(listed.iter().map(|(k, _)| k.as_str()), workers);
    for i in &missing {
        eprintln!(
            "loadlab: worker {i} uploaded no results (worker-{i}.bin missing under {location}): its share of the schedule is missing from the report"
        );
    }
    if missing.len() == workers as usize {
        return Err(CliError::network(format!(
            "no worker uploaded results to {location}"
        )));
    }
    Ok(())
}

/// The indexes in 0..workers with no `…/worker-I.bin` among `keys`.
fn missing_workers<'a>(keys: impl Iterator<Item = &'a str>, workers: u32) -> Vec<u32> {
    let present: std::collections::BTreeSet<u32> = keys
        .filter_map(|k| {
            k.rsplit('/')
                .next()?
                .strip_prefix("worker-")?
                .strip_suffix(".bin")?
                .parse()
                .ok()
        })
        .collect();
    (0..workers).filter(|i| !present.contains(i)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workers_without_a_file_are_named() {
        let keys = ["runs/j/worker-0.bin", "runs/j/worker-2.bin", "runs/j/other"];
        assert_eq!(missing_workers(keys.into_iter(), 4), vec![1, 3]);
    }
}
