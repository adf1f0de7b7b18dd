//! `loadlab k6 run [flags] script.js`: k6 scripts, unchanged, with k6's flags,
//! its end-of-test summary and its exit codes (docs/k6.md).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use loadlab_script::config::{self, FlagTexts};
use loadlab_script::log::{Level, LogConfig, Logger};
use loadlab_script::{Overrides, RunConfig, RunOutcome, ScriptError, TeardownFailure};

use crate::exit::CliError;

/// k6's exit codes that loadlab k6 uses too.
pub const THRESHOLDS_FAILED: i32 = crate::exit::THRESHOLDS_FAILED;
pub const INVALID_CONFIG: i32 = 104;
pub const EXTERNAL_ABORT: i32 = 105;
pub const SCRIPT_EXCEPTION: i32 = 107;
/// k6's codes for `setup()` and `teardown()` past their timeouts.
pub const SETUP_TIMEOUT: i32 = 100;
pub const TEARDOWN_TIMEOUT: i32 = 101;
pub const SCRIPT_ABORTED: i32 = 108;

#[derive(Debug, Args)]
pub struct K6Args {
    #[command(subcommand)]
    cmd: K6Command,
}

#[derive(Debug, Subcommand)]
enum K6Command {
    /// Run a k6 script (`loadlab k6 run -u 10 -d 30s script.js`).
    Run(Box<K6RunArgs>),
    /// Print the version, and the k6 whose scripts, flags and summary it
    /// follows (as `k6 version` prints its own).
    Version,
}

/// The k6 release whose behaviour `loadlab k6` is checked against.
const K6_VERSION: &str = "v1.8.1";

#[derive(Debug, Args)]
pub struct K6RunArgs {
    /// The script (an ES module using k6's API); `-` reads it from standard input.
    script: PathBuf,
    // The four take a negative value as k6 does (`-u -1`), which k6's
    // checks then refuse in its words.
    /// Number of VUs.
    #[arg(short = 'u', long = "vus", allow_hyphen_values = true)]
    vus: Option<i64>,
    /// Test duration (e.g. 30s, 1m30s).
    #[arg(short = 'd', long = "duration", allow_hyphen_values = true)]
    duration: Option<String>,
    /// Total iterations, shared by the VUs.
    #[arg(short = 'i', long = "iterations", allow_hyphen_values = true)]
    iterations: Option<i64>,
    /// A ramping stage DURATION:TARGET (repeatable), e.g. -s 10s:20.
    #[arg(short = 's', long = "stage", allow_hyphen_values = true)]
    stage: Vec<String>,
    /// An environment variable for __ENV (repeatable), KEY=VALUE.
    #[arg(short = 'e', long = "env")]
    env: Vec<String>,
    /// Outputs (repeatable): json=FILE (k6's NDJSON points), loadlab=FILE
    /// (our results file, for `loadlab report`).
    #[arg(short = 'o', long = "out")]
    out: Vec<String>,
    /// k6's JSON configuration file (its options under the script's; its
    /// `out` when no --out or K6_OUT is given). Default: K6_CONFIG, else
    /// ~/.config/k6/config.json when it exists.
    #[arg(short = 'c', long = "config")]
    config: Option<PathBuf>,
    /// Write the end-of-test figures as JSON to FILE.
    #[arg(long = "summary-export")]
    summary_export: Option<PathBuf>,
    /// Trend statistics in the summary, comma-separated (avg,min,med,max,p(90),p(95),count).
    #[arg(long = "summary-trend-stats")]
    summary_trend_stats: Option<String>,
    /// Only these system tags on samples, comma-separated (options.systemTags; default
    /// k6's: check,error,error_code,expected_response,group,method,name,proto,scenario,
    /// service,status,subproto,tls_version,url; also vu, iter, ip, ocsp_status).
    #[arg(long = "system-tags", value_name = "TAGS")]
    system_tags: Vec<String>,
    /// How names are resolved (options.dns): ttl=inf|0|DURATION, select=first|random|roundRobin,
    /// policy=preferIPv4|preferIPv6|onlyIPv4|onlyIPv6|any (default
    /// "ttl=5m,select=random,policy=preferIPv4").
    #[arg(long = "dns", value_name = "CONFIG")]
    dns: Option<String>,
    /// Host names never looked up nor dialled, comma-separated patterns (options.blockHostnames;
    /// `*.example.com`, `*example.com`, `api.example.com`).
    #[arg(long = "block-hostnames", value_name = "PATTERNS")]
    block_hostnames: Vec<String>,
    /// An address range never dialled, CIDR (options.blacklistIPs; repeatable or comma-separated).
    #[arg(long = "blacklist-ip", value_name = "CIDR")]
    blacklist_ip: Vec<String>,
    /// Every time in the summary in this unit: s, ms or us (default: a unit per value).
    #[arg(long = "summary-time-unit")]
    summary_time_unit: Option<String>,
    /// The summary's layout: compact (k6's default), full (every
    /// http_req_* trend and a section per group) or disabled (none, nor
    /// handleSummary or --summary-export).
    #[arg(long = "summary-mode")]
    summary_mode: Option<String>,
    /// Deprecated in k6 for --summary-mode=disabled, which it is.
    #[arg(long = "no-summary")]
    no_summary: bool,
    /// Read response bodies but do not keep them (options.discardResponseBodies).
    #[arg(long = "discard-response-bodies")]
    discard_response_bodies: bool,
    /// The User-Agent of requests ("" for none; options.userAgent).
    #[arg(long = "user-agent")]
    user_agent: Option<String>,
    /// Do not check server certificates (options.insecureSkipTLSVerify).
    #[arg(long = "insecure-skip-tls-verify")]
    insecure_skip_tls_verify: bool,
    /// A request that fails throws in the script (options.throw).
    #[arg(short = 'w', long = "throw")]
    throw: bool,
    /// A new connection for every request (options.noConnectionReuse).
    #[arg(long = "no-connection-reuse")]
    no_connection_reuse: bool,
    /// Each VU's connections its own, closed after each of its iterations
    /// (options.noVUConnectionReuse).
    #[arg(long = "no-vu-connection-reuse")]
    no_vu_connection_reuse: bool,
    /// The addresses VUs dial from, given out in order: IPs, ranges
    /// (10.0.0.1-10.0.0.9) and CIDRs, comma-separated (K6_LOCAL_IPS).
    #[arg(long = "local-ips", value_name = "IPS")]
    local_ips: Option<String>,
    /// The least time an iteration takes (options.minIterationDuration).
    #[arg(long = "min-iteration-duration")]
    min_iteration_duration: Option<String>,
    /// Log lines without colours on a terminal (then in logfmt, as k6
    /// writes them); also K6_NO_COLOR or NO_COLOR.
    #[arg(long = "no-color")]
    no_color: bool,
    /// Log each request and response (heads; `--http-debug=full`: bodies
    /// too) as k6 does, credentials hidden; also options.httpDebug and
    /// K6_HTTP_DEBUG.
    #[arg(long = "http-debug", value_name = "full", num_args = 0..=1, require_equals = true, default_missing_value = "headers")]
    http_debug: Option<String>,
    /// At most N requests a second, all VUs together (options.rps; K6_RPS).
    #[arg(long = "rps", value_name = "N")]
    rps: Option<i64>,
    /// At most N requests of one http.batch() in flight (options.batch;
    /// K6_BATCH; default 20, 0: no limit).
    #[arg(long = "batch", value_name = "N")]
    batch: Option<u64>,
    /// At most N of them to one host (options.batchPerHost;
    /// K6_BATCH_PER_HOST; default 6, 0: no limit).
    #[arg(long = "batch-per-host", value_name = "N")]
    batch_per_host: Option<u64>,
    /// Where log lines go: stderr (the default), stdout, none, or
    /// file=PATH[,level=LEVEL] (appended to); also K6_LOG_OUTPUT.
    #[arg(long = "log-output", value_name = "OUTPUT")]
    log_output: Option<String>,
    /// Log lines' layout: text (colours on a terminal, logfmt
    /// elsewhere), json or raw; also K6_LOG_FORMAT.
    #[arg(long = "log-format", value_name = "FORMAT")]
    log_format: Option<String>,
    /// No progress lines, no banner.
    #[arg(short = 'q', long = "quiet")]
    quiet: bool,
    /// Print `console.debug` lines too (k6's debug logging).
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// JavaScript compatibility mode, as k6: extended (the default:
    /// `global` is `globalThis`), base (no `global`), experimental_enhanced
    /// (deprecated, as base); also K6_COMPATIBILITY_MODE. TypeScript
    /// (`.ts` files) runs in every mode.
    #[arg(long = "compatibility-mode", value_name = "MODE")]
    compatibility_mode: Option<String>,
    /// Accepted for k6 compatibility (loadlab sends no usage report).
    #[arg(long = "no-usage-report")]
    no_usage_report: bool,
    /// A secret source for k6/secrets (repeatable): file=PATH,
    /// file=name=N,filename=PATH[,default], mock=KEY=VALUE,…[,name=N][,default].
    #[arg(long = "secret-source", value_name = "TYPE=CONFIG")]
    secret_source: Vec<String>,
    /// A tag added to every sample (repeatable), NAME=VALUE.
    #[arg(long = "tag")]
    tag: Vec<String>,
    /// Run without evaluating thresholds.
    #[arg(long = "no-thresholds")]
    no_thresholds: bool,
    /// Do not run setup() (the iterations and teardown() get no data).
    #[arg(long = "no-setup")]
    no_setup: bool,
    /// Do not run teardown().
    #[arg(long = "no-teardown")]
    no_teardown: bool,
    /// Write the console's lines (console.log, …) to FILE, in k6's logfmt
    /// form, instead of standard error.
    #[arg(long = "console-output", value_name = "FILE")]
    console_output: Option<String>,
    /// Do not pass the process environment to __ENV (k6's --include-system-env-vars=false).
    #[arg(long = "no-system-env-vars")]
    no_system_env_vars: bool,
    /// k6's flag: pass the process environment to __ENV (true, the
    /// default) or not (`--include-system-env-vars=false`).
    #[arg(long = "include-system-env-vars", num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = clap::value_parser!(bool))]
    include_system_env_vars: Option<bool>,
    /// Run only this instance's part of the test, as k6: FROM:TO fractions
    /// (1/4:2/4, 0.25:0.5, 25%:50%; a single value V is 0:V).
    #[arg(long = "execution-segment")]
    execution_segment: Option<String>,
    /// The segments of all the instances, as k6: 0,1/4,1/2,1 (give every
    /// instance the same one, so that their parts add up to the test).
    #[arg(long = "execution-segment-sequence")]
    execution_segment_sequence: Option<String>,
    /// loadlab's shorthand for a Kubernetes Indexed Job: segment I of N
    /// equal ones, I/N (0-based), i.e. --execution-segment I/N:(I+1)/N
    /// --execution-segment-sequence 0,1/N,…,1.
    #[arg(long = "execution-segment-index", conflicts_with_all = ["execution_segment", "execution_segment_sequence"])]
    execution_segment_index: Option<String>,
    /// Start the scenarios on this instant, after init and setup()
    /// (RFC 3339 or Unix seconds), so that every instance of a split test
    /// starts together; as `loadlab attack -start-at`.
    #[arg(long = "start-at", value_parser = start_at)]
    start_at: Option<u64>,
    /// Redirects a request follows at most, unless its params.redirects
    /// says (k6's default 10; the script's options.maxRedirects otherwise).
    #[arg(long = "max-redirects")]
    max_redirects: Option<u32>,
}

fn start_at(s: &str) -> Result<u64, String> {
    crate::flags::start_at(s).map_err(|e| e.replace("-start-at", "--start-at"))
}

/// `k6 run`'s flags alone, to check them as `loadlab k6 run` would.
#[cfg(feature = "cluster")]
#[derive(Debug, clap::Parser)]
#[command(name = "k6 run", args_override_self = true)]
struct RunOnly {
    #[command(flatten)]
    args: K6RunArgs,
}

/// For `k8s render -- k6 run [flags] script.js`: the flags checked as
/// `loadlab k6 run` checks them before anything runs (not the script,
/// which runs in the pods); returns the script argument and `-d`.
#[cfg(feature = "cluster")]
pub(crate) fn check_run_flags(
    argv: &[String],
) -> Result<(PathBuf, Option<std::time::Duration>), CliError> {
    use clap::Parser;
    let rest = match argv {
        [k6, run, rest @ ..] if k6 == "k6" && run == "run" => rest,
        _ => {
            return Err(CliError::usage(
                "after --, a script worker's command is `k6 run [k6 flags] script.js`",
            ));
        }
    };
    let parsed =
        RunOnly::try_parse_from(std::iter::once("k6 run".to_string()).chain(rest.iter().cloned()))
            .map_err(|e| {
                let first = e.to_string();
                let first = first
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("")
                    .trim_start_matches("error: ")
                    .to_string();
                CliError::usage(format!("in the k6 run flags after --: {first}"))
            })?;
    let a = parsed.args;
    for e in &a.env {
        pair(e, "-e")?;
    }
    for t in &a.tag {
        pair(t, "--tag")?;
    }
    for s in &a.stage {
        loadlab_script::config::stage_flag(s).map_err(CliError::usage)?;
    }
    // The values only: a log file's folder is the pod's.
    LogConfig::from_flags(
        a.log_output.as_deref(),
        a.log_format.as_deref(),
        a.no_color,
        |_| None,
    )
    .map_err(|e| CliError::usage(format!("in the k6 run flags after --: {e}")))?;
    let duration = match &a.duration {
        Some(d) => match duration_flag(d)? {
            (false, d) if !d.is_zero() => Some(d),
            // What `k6 run` would refuse in each pod, refused here.
            _ => {
                return Err(CliError::usage(format!(
                    "-d {d:?}: {}",
                    loadlab_script::config::DURATION_NOT_POSITIVE
                )));
            }
        },
        None => None,
    };
    Ok((a.script, duration))
}

/// `-d`'s value: a duration, perhaps negative (refused later, in k6's words).
#[cfg(feature = "cluster")]
fn duration_flag(d: &str) -> Result<(bool, std::time::Duration), CliError> {
    config::duration_flag(d).map_err(CliError::usage)
}

fn pair(s: &str, what: &str) -> Result<(String, String), CliError> {
    config::name_value(s, what).map_err(CliError::usage)
}

pub fn run(a: K6Args) -> Result<(), CliError> {
    match a.cmd {
        K6Command::Run(r) => run_script(*r),
        K6Command::Version => {
            println!(
                "loadlab v{} (k6 {K6_VERSION} scripts, flags and summary; {}/{})",
                env!("CARGO_PKG_VERSION"),
                std::env::consts::OS,
                std::env::consts::ARCH
            );
            Ok(())
        }
    }
}

fn run_script(a: K6RunArgs) -> Result<(), CliError> {
    let _ = a.no_usage_report;
    let log_cfg = LogConfig::from_flags(
        a.log_output.as_deref(),
        a.log_format.as_deref(),
        a.no_color,
        |k| std::env::var(k).ok(),
    )
    .map_err(CliError::usage)?;
    let logger = std::sync::Arc::new(Logger::open(&log_cfg).map_err(|e| {
        CliError::io(format!(
            "--log-output {:?}: {e}",
            a.log_output
                .clone()
                .or_else(|| std::env::var("K6_LOG_OUTPUT").ok())
                .unwrap_or_default()
        ))
    })?);
    let mut env: Vec<(String, String)> =
        if a.no_system_env_vars || a.include_system_env_vars == Some(false) {
            Vec::new()
        } else {
            std::env::vars().collect()
        };
    for e in &a.env {
        let (k, v) = pair(e, "-e")?;
        env.retain(|(a, _)| *a != k);
        env.push((k, v));
    }
    let base_mode = base_mode(&a, &logger)?;
    let config_file = config_file(&a)?;
    let segment = execution_segment(&a)?;
    // k6's option variables (K6_VUS, K6_DURATION, …): read from the
    // process's environment whatever --no-system-env-vars says (that one
    // is about __ENV), as k6 reads them.
    let mut ov = Overrides::from_flags(
        flag_texts(&a),
        config::k6_variables(std::env::vars()),
        &mut |n| eprintln!("{n}"),
    )
    .map_err(CliError::usage)?;
    ov.segment = segment;
    ov.config = config_file.as_ref().map(|c| c.options.clone());
    let out = out_list(&a, config_file.map(|c| c.out).unwrap_or_default());
    if let Some(at) = a.start_at {
        wait_notice(at)?;
    }
    let secret_sources =
        loadlab_script::SecretSources::parse(&a.secret_source, &|p| std::fs::read_to_string(p))
            .map_err(|e| CliError::usage(format!("--secret-source: {e}")))?;
    let mut cfg = RunConfig {
        secret_sources,
        script: a.script.clone(),
        env,
        overrides: ov,
        quiet: a.quiet,
        verbose: a.verbose,
        base_mode,
        summary_export: a.summary_export.clone(),
        start_at_unix_ns: a.start_at,
        exit_after: true,
        progress: !a.quiet,
        logger: Some(logger.clone()),
        ..Default::default()
    };
    let upload_to = outputs(&out, &mut cfg)?;
    let dash = match crate::dashboard::k6::options(&out, |k| std::env::var(k).ok())? {
        Some(opts) => {
            let meta = serde_json::json!({ "kind": "k6", "name": a.script.display().to_string() });
            let d = crate::dashboard::Dashboard::start(&opts, meta)?;
            cfg.live_out = Some(std::sync::Arc::new(crate::dashboard::k6::HubOut(d.hub())));
            Some(d)
        }
        None => None,
    };
    // The dashboard's Stop button ends the run as Ctrl-C does.
    let button = dash.as_ref().map(|d| d.hub());
    // No banner for a script that cannot be read: its one-line error follows.
    if !a.quiet && a.script.is_file() {
        eprintln!(
            "loadlab k6: {} (one QuickJS runtime and context, a module instance per VU, VUs as coroutines on one thread)",
            a.script.display()
        );
    }
    // Ctrl-C, and SIGTERM (what Kubernetes sends a pod it stops): the run
    // ends with teardown, its summary and finished files (uploaded, for
    // s3://). A second one, as in k6, stops at once. The signals are
    // watched on a thread of their own: a VU in an endless loop holds the
    // run's thread, and the first signal interrupts its JavaScript.
    let signal: std::sync::Arc<std::sync::OnceLock<&'static str>> = Default::default();
    let got = signal.clone();
    let stop = cfg.stop.clone();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("k6-signals".into())
        .spawn(move || watch_signals(stop, got, tx, button))
        .map_err(CliError::internal)?;
    let shutdown = async move {
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    let outcome = loadlab_script::run(cfg, shutdown).map_err(|e| match &e {
        ScriptError::Read { .. } | ScriptError::Output(_) => CliError::io(e),
        ScriptError::Options(_) => CliError::new(INVALID_CONFIG, e),
        ScriptError::SetupTimeout(_) => CliError::new(SETUP_TIMEOUT, e),
        ScriptError::Runtime(_) => CliError::internal(e),
        _ => CliError::new(SCRIPT_EXCEPTION, e),
    })?;
    if let Some(d) = dash {
        d.close()?;
    }
    if let Some((url, tmp)) = &upload_to {
        super::attack::upload(url, tmp)?;
    }
    print!("{}", outcome.summary);
    // The run's last lines are log lines, in k6's words where k6 has some.
    if outcome.script_errors > 0 {
        logger.log(
            Level::Warning,
            &format!(
                "{} iterations ended with an exception (see the errors above)",
                outcome.script_errors
            ),
            &[],
        );
    }
    exit_as_k6(&outcome, &logger, signal.get().copied());

    Ok(())
}

/// `--execution-segment` and its sequence, or `--execution-segment-index`.
fn execution_segment(a: &K6RunArgs) -> Result<Option<loadlab_script::segment::Tuple>, CliError> {
    if let Some(ix) = &a.execution_segment_index {
        return Ok(Some(
            loadlab_script::segment::Tuple::parse_index(ix).map_err(CliError::usage)?,
        ));
    }
    if a.execution_segment.is_none() && a.execution_segment_sequence.is_none() {
        return Ok(None);
    }
    let t = loadlab_script::segment::Tuple::parse(
        a.execution_segment.as_deref(),
        a.execution_segment_sequence.as_deref(),
    )
    .map_err(CliError::usage)?;
    if a.execution_segment_sequence.is_none() && !t.is_whole() && !a.quiet {
        eprintln!(
            "loadlab k6: --execution-segment {t} without --execution-segment-sequence: as in k6, the sequence is {}; instances given other segments without a common sequence may overlap (give them all the same --execution-segment-sequence)",
            t.sequence_text()
        );
    }
    Ok(Some(t))
}

/// The option flags as typed, for [`Overrides::from_flags`].
fn flag_texts(a: &K6RunArgs) -> FlagTexts {
    FlagTexts {
        vus: a.vus,
        duration: a.duration.clone(),
        iterations: a.iterations,
        stages: a.stage.clone(),
        tags: a.tag.clone(),
        summary_trend_stats: a.summary_trend_stats.clone(),
        system_tags: a.system_tags.clone(),
        dns: a.dns.clone(),
        block_hostnames: a.block_hostnames.clone(),
        blacklist_ips: a.blacklist_ip.clone(),
        summary_time_unit: a.summary_time_unit.clone(),
        summary_mode: a.summary_mode.clone(),
        no_summary: a.no_summary,
        discard_response_bodies: a.discard_response_bodies,
        user_agent: a.user_agent.clone(),
        insecure_skip_tls_verify: a.insecure_skip_tls_verify,
        throw: a.throw,
        no_connection_reuse: a.no_connection_reuse,
        no_vu_connection_reuse: a.no_vu_connection_reuse,
        local_ips: a.local_ips.clone(),
        min_iteration_duration: a.min_iteration_duration.clone(),
        http_debug: a.http_debug.clone(),
        rps: a.rps,
        batch: a.batch,
        batch_per_host: a.batch_per_host,
        no_thresholds: a.no_thresholds,
        no_setup: a.no_setup,
        no_teardown: a.no_teardown,
        console_output: a.console_output.clone(),
        max_redirects: a.max_redirects,
    }
}

/// `--start-at`: checked, and said when it is more than a second away.
fn wait_notice(at: u64) -> Result<(), CliError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    loadlab_engine::check_start_at(at, now)
        .map_err(|e| CliError::usage(e.replace("-start-at", "--start-at")))?;
    if at > now + 1_000_000_000 {
        eprintln!(
            "loadlab k6: the scenarios start at {} (in {}; --start-at)",
            loadlab_metrics::timefmt::rfc3339(i128::from(at)),
            loadlab_core::format_go_duration(std::time::Duration::from_nanos(
                loadlab_metrics::round_for_text(at - now)
            ))
        );
    }
    Ok(())
}

/// The configuration file (`--config`, `K6_CONFIG`, k6's default), read.
fn config_file(a: &K6RunArgs) -> Result<Option<config::file::ConfigFile>, CliError> {
    config::file::find(a.config.as_deref(), |k| std::env::var(k).ok())
        .map(|p| config::file::load(&p).map_err(|e| CliError::new(INVALID_CONFIG, e)))
        .transpose()
}

/// `--out`, else `K6_OUT` (comma-separated), else the configuration
/// file's `out` (`from_file`), as in k6.
fn out_list(a: &K6RunArgs, from_file: Vec<String>) -> Vec<String> {
    match std::env::var("K6_OUT") {
        _ if !a.out.is_empty() => a.out.clone(),
        Ok(v) if !v.is_empty() => v
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => from_file,
    }
}

/// Where the results go (`--out`, else `K6_OUT`), set in `cfg`; for
/// `loadlab=s3://…`, the object and the temporary file uploaded to it
/// when the run ends.
fn outputs(
    out: &[String],
    cfg: &mut RunConfig,
) -> Result<Option<(crate::store::S3Url, tempfile::NamedTempFile)>, CliError> {
    // --out loadlab=s3://BUCKET/KEY: written to a temporary file, uploaded
    // when the run ends (also when a threshold failed or it was stopped).
    let mut upload_to: Option<(crate::store::S3Url, tempfile::NamedTempFile)> = None;
    for o in out {
        match o.split_once('=') {
            Some(("json", f)) if !f.is_empty() => cfg.json_out = Some(PathBuf::from(f)),
            Some(("csv", f)) if !f.is_empty() => {
                cfg.csv_out = Some(
                    loadlab_script::out::CsvOut::parse(f)
                        .map_err(|e| CliError::usage(format!("--out {o:?}: {e}")))?,
                );
            }
            Some(("loadlab", f)) if !f.is_empty() => {
                let what = format!("--out {o:?}");
                match crate::store::s3_object(f, &what, "loadlab=s3://BUCKET/KEY")? {
                    Some(url) => {
                        super::attack::preflight(&url)?;
                        let tmp = tempfile::NamedTempFile::new().map_err(|e| {
                            CliError::io(format!("cannot create a temporary file: {e}"))
                        })?;
                        cfg.results_out = Some(tmp.path().to_path_buf());
                        upload_to = Some((url, tmp));
                    }
                    None => cfg.results_out = Some(PathBuf::from(f)),
                }
            }
            // k6's Prometheus remote-write output, configured by its
            // K6_PROMETHEUS_RW_* variables and the argument.
            _ if o == "experimental-prometheus-rw"
                || o.starts_with("experimental-prometheus-rw=") =>
            {
                let arg = o
                    .strip_prefix("experimental-prometheus-rw")
                    .unwrap_or("")
                    .trim_start_matches('=');
                let vars: Vec<(String, String)> = std::env::vars().collect();
                cfg.prometheus_rw = Some(
                    loadlab_script::prom_rw::RwConfig::parse(arg, &vars).map_err(|e| {
                        CliError::new(
                            INVALID_CONFIG,
                            format!("--out experimental-prometheus-rw: {e}"),
                        )
                    })?,
                );
            }
            // The web dashboard (crate::dashboard::k6).
            _ if o == "web-dashboard" || o.starts_with("web-dashboard=") => {}
            _ => {
                return Err(CliError::usage(format!(
                    "--out {o:?}: loadlab k6 writes json=FILE and csv=FILE (k6's points), loadlab=FILE (results for loadlab report), experimental-prometheus-rw (Prometheus remote write) and web-dashboard (a live page; see docs/dashboard.md)"
                )));
            }
        }
    }
    Ok(upload_to)
}

/// The run's last lines and k6's exit code for how it ended (returns
/// only when it ended well).
/// The first Ctrl-C or SIGTERM stops the VUs (even one in an endless
/// loop) and then ends the run through `tx`; a second exits at once.
fn watch_signals(
    stop: loadlab_script::StopSwitch,
    got: std::sync::Arc<std::sync::OnceLock<&'static str>>,
    tx: tokio::sync::oneshot::Sender<()>,
    button: Option<std::sync::Arc<crate::dashboard::hub::Hub>>,
) {
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    rt.block_on(async move {
        let mut stops = crate::signals::listen();
        // The dashboard's Stop button: as Ctrl-C.
        let pressed = async {
            match &button {
                Some(hub) => hub.stopped().await,
                None => std::future::pending().await,
            }
        };
        let why = tokio::select! {
            s = stops.next() => s,
            _ = pressed => "interrupt",
        };
        let _ = got.set(why);
        stop.stop_vus();
        let _ = tx.send(());
        stops.next().await;
        eprintln!("loadlab k6: stopped by a second interrupt, without teardown or summary");
        std::process::exit(EXTERNAL_ABORT);
    });
}

fn exit_as_k6(outcome: &RunOutcome, logger: &Logger, signal: Option<&'static str>) {
    if let Some(msg) = &outcome.aborted {
        logger.log(Level::Error, &format!("test aborted: {msg}"), &[]);
        std::process::exit(SCRIPT_ABORTED);
    }
    // The summary is out; a failed teardown() ends the run as in k6
    // (its error line was logged when it failed).
    match &outcome.teardown_failed {
        Some(TeardownFailure::Exception(_)) => std::process::exit(SCRIPT_EXCEPTION),
        Some(TeardownFailure::Timeout(_)) => std::process::exit(TEARDOWN_TIMEOUT),
        None => {}
    }
    if outcome.thresholds_failed {
        let names = outcome.thresholds_crossed.join(", ");
        let msg = if outcome.aborted_by_threshold {
            format!(
                "thresholds on metrics '{names}' were crossed; at least one has abortOnFail enabled, stopping test prematurely"
            )
        } else {
            format!("thresholds on metrics '{names}' have been crossed")
        };
        logger.log(Level::Error, &msg, &[]);
        std::process::exit(THRESHOLDS_FAILED);
    }
    if outcome.interrupted {
        logger.log(
            Level::Error,
            &format!(
                "test run was aborted because loadlab received a '{}' signal",
                signal.unwrap_or("interrupt")
            ),
            &[],
        );
        std::process::exit(EXTERNAL_ABORT);
    }
}

/// Whether the script runs in k6's `base` compatibility mode (no `global`
/// alias), from `--compatibility-mode` or `K6_COMPATIBILITY_MODE`; an
/// unknown mode is refused in k6's words.
fn base_mode(a: &K6RunArgs, logger: &Logger) -> Result<bool, CliError> {
    let mode = a
        .compatibility_mode
        .clone()
        .or_else(|| std::env::var("K6_COMPATIBILITY_MODE").ok())
        .unwrap_or_else(|| "extended".into());
    match mode.as_str() {
        "extended" => Ok(false),
        "base" => Ok(true),
        "experimental_enhanced" => {
            logger.log(
                Level::Warning,
                "CompatibilityMode \"experimental_enhanced\" is deprecated. Types are stripped by \
                 default for `.ts` files. Please move to using \"base\" instead as \
                 \"experimental_enhanced\" will be removed in the future",
                &[],
            );
            Ok(true)
        }
        m => Err(CliError::usage(format!(
            "invalid compatibility mode {m:?}. Use: \"extended\", \"base\", \"experimental_enhanced\""
        ))),
    }
}
