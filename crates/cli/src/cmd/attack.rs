//! `loadlab attack`: vegeta's command line on loadlab's engine.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::sync::Arc;

use loadlab_core::{PacerSpec, Sink, Tee};
use loadlab_engine::{AttackConfig, TargetFormat, TargetSource, TlsOptions};
use loadlab_metrics::{ResultsWriter, Unfinished};

pub use super::attack_args::AttackArgs;
use crate::exit::CliError;
use crate::progress;

/// Where the results go.
enum Output {
    Stdout,
    File(String),
    /// stdout is a terminal and no `-output` was given: keep results in a
    /// temporary file and print the text report at the end instead of binary.
    ReportOnTerminal(tempfile::NamedTempFile),
    /// `-output=s3://bucket/key`: results go to a local temporary file,
    /// uploaded when the attack ends (also after Ctrl-C or SIGTERM).
    S3(crate::store::S3Url, tempfile::NamedTempFile),
}

pub fn pacer(a: &AttackArgs) -> Result<PacerSpec, CliError> {
    if let Some(plan) = &a.pace {
        return PacerSpec::parse_plan(plan).map_err(CliError::usage);
    }
    if let Some(to) = a.ramp_to {
        let over = a.ramp_duration.unwrap_or_default();
        if a.rate.is_unlimited() {
            return Err(CliError::usage(
                "-ramp-to needs a starting -rate greater than 0",
            ));
        }
        return PacerSpec::linear(a.rate.hz(), to, over).map_err(CliError::usage);
    }
    if let Some(amp) = a.sine_amplitude {
        if a.rate.is_unlimited() {
            return Err(CliError::usage(
                "-sine-amplitude needs a mean -rate greater than 0",
            ));
        }
        let period = a.sine_period.unwrap_or_default();
        return PacerSpec::sine(a.rate.hz(), amp, period).map_err(CliError::usage);
    }
    Ok(PacerSpec::Constant(a.rate))
}

/// `-timeout=0`: no timeout, as in vegeta (Go's `http.Client` with a zero
/// `Timeout`). The engine bounds every request, so "none" is a bound no
/// attack reaches: 1 year (well inside what the timer wheel schedules).
pub const NO_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(365 * 24 * 3600);

/// Builds the engine's configuration from the flags (everything validated here).
pub fn config(a: &AttackArgs) -> Result<AttackConfig, CliError> {
    let pacer = pacer(a)?;
    if a.resolvers.is_some() {
        return Err(CliError::usage(
            "-resolvers is not supported: loadlab uses the system resolver (-connect-to=HOST:PORT:ADDR:PORT sends a host's traffic to an address)",
        ));
    }
    if !a.proxy_header.is_empty() {
        return Err(CliError::usage(
            "-proxy-header is not supported: loadlab connects to targets directly, never through a proxy",
        ));
    }
    let mut cfg = AttackConfig {
        name: a.name.clone(),
        pacer,
        duration: (!a.duration.is_zero()).then_some(a.duration),
        max_requests: a.max_requests,
        workers: a.workers,
        max_workers: a.max_workers,
        connections: a.connections,
        max_connections: a.max_connections,
        timeout: if a.timeout.is_zero() {
            NO_TIMEOUT
        } else {
            a.timeout
        },
        redirects: a.redirects,
        keepalive: a.keepalive,
        http2: a.http2,
        h2c: a.h2c,
        tls: TlsOptions {
            insecure: a.insecure,
            cert: a.cert.clone(),
            key: a.key.clone(),
            root_certs: a.root_certs.clone(),
            session_tickets: a.session_tickets,
            ..Default::default()
        },
        unix_socket: a.unix_socket.clone(),
        connect_to: a.connect_to.clone(),
        hosts: Default::default(),
        laddr: a.laddr,
        headers: a.headers.clone(),
        vegeta_headers: true,
        body: None,
        chunked: a.chunked,
        dns_cache: a.dns_ttl,
        dns_pick: None,
        blocklist: None,
        max_body: a.max_body,
        max_headers_size: a.max_headers_size,
        compression: a.compression,
        closed_loop: false,
        resolution: a.resolution,
        segment: a.segment.unwrap_or(loadlab_core::ScheduleSegment::WHOLE),
        start_at_unix_ns: a.start_at,
        clock_max_error_ns: None,
        weights: a.weights.clone(),
    };
    // The engine's own checks (caps, -resolution, -cert with -key, ...),
    // as usage errors before any file is read or written.
    if let Err(e) = cfg.validate() {
        return Err(match e {
            loadlab_engine::EngineError::Config(m) => CliError::usage(m),
            other => CliError::usage(other.to_string()),
        });
    }
    if a.lazy && a.segment.is_some_and(|s| !s.is_whole()) {
        return Err(CliError::usage(
            "-lazy cannot be combined with -segment (each worker would read every target; give each worker its targets whole)",
        ));
    }
    if let Some(at) = a.start_at {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        loadlab_engine::check_start_at(at, now).map_err(CliError::usage)?;
    }
    for p in a.cert.iter().chain(a.key.iter()).chain(a.root_certs.iter()) {
        if !p.is_file() {
            return Err(CliError::io(format!(
                "cannot read TLS file {}: no such file",
                p.display()
            )));
        }
    }
    if let Some(p) = &a.body {
        cfg.body = Some(
            std::fs::read(p)
                .map_err(|e| CliError::io(format!("cannot read -body file {}: {e}", p.display())))?
                .into(),
        );
    }
    Ok(cfg)
}

/// The tags of every series in the results: `-tag`s, plus `worker=i/n`
/// for a segment (unless `-tag=worker=…` names the worker otherwise), so
/// that `report -by=worker` splits merged files by segment.
fn worker_tags(a: &AttackArgs) -> Vec<(String, String)> {
    let mut tags = a.tags.clone();
    if let Some(seg) = a.segment
        && !tags
            .iter()
            .any(|(k, _)| k == loadlab_core::series::tag::WORKER)
    {
        tags.push((
            loadlab_core::series::tag::WORKER.to_string(),
            seg.to_string(),
        ));
    }
    tags
}

fn targets(a: &AttackArgs) -> Result<TargetSource, CliError> {
    let format: TargetFormat = a.format.parse().map_err(CliError::usage)?;
    let (reader, name): (Box<dyn BufRead + Send>, String) = if a.targets == "stdin"
        || a.targets == "-"
    {
        if std::io::stdin().is_terminal() {
            eprintln!(
                "loadlab: reading targets from stdin (e.g. GET http://127.0.0.1:8080/ then Ctrl-D); see -targets"
            );
        }
        (
            Box::new(BufReader::new(crate::stdin::StickyEof::new(
                std::io::stdin(),
            ))),
            "stdin".to_string(),
        )
    } else {
        let f = File::open(&a.targets)
            .map_err(|e| CliError::io(format!("cannot read -targets file {}: {e}", a.targets)))?;
        (Box::new(BufReader::new(f)), a.targets.clone())
    };
    if a.lazy {
        return Ok(loadlab_engine::lazy_targets(reader, format, &name));
    }
    // The engine applies `-body` and `-header` to every target itself.
    let list =
        loadlab_engine::parse_targets(reader, format, &name, None, &[]).map_err(|e| match e {
            loadlab_engine::TargetError::Io { .. } => CliError::io(e),
            _ => CliError::bad_input(e),
        })?;
    Ok(TargetSource::Static(list))
}

pub fn run(a: AttackArgs) -> Result<(), CliError> {
    let cfg = config(&a)?;
    // Everything that can fail on bad input (targets, a busy metrics port)
    // is checked before -output is created: an existing results file is
    // only replaced by an attack that runs.
    let replay = super::replay::source(&a)?;
    let (targets, replay) = match replay {
        Some(mut r) => (
            std::mem::replace(&mut r.source, TargetSource::Static(Vec::new())),
            Some(r),
        ),
        None => (targets(&a)?, None),
    };
    let prom = match &a.prometheus_addr {
        Some(addr) => {
            let metrics = loadlab_metrics::PromMetrics::new();
            let server = crate::prom_server::start(addr, metrics.clone())?;
            eprintln!(
                "loadlab: Prometheus metrics on http://{}/metrics",
                server.addr
            );
            Some((server, metrics))
        }
        None => None,
    };
    let dash = dashboard(&a, &cfg)?;
    let output = if a.output == "stdout" || a.output == "-" {
        if std::io::stdout().is_terminal() {
            Output::ReportOnTerminal(
                tempfile::NamedTempFile::new()
                    .map_err(|e| CliError::io(format!("cannot create a temporary file: {e}")))?,
            )
        } else {
            Output::Stdout
        }
    } else if let Some(url) = crate::store::s3_object(&a.output, "-output", "s3://BUCKET/KEY")? {
        preflight(&url)?;
        Output::S3(
            url,
            tempfile::NamedTempFile::new()
                .map_err(|e| CliError::io(format!("cannot create a temporary file: {e}")))?,
        )
    } else {
        Output::File(a.output.clone())
    };
    let writer: Box<dyn Write + Send> = match &output {
        Output::Stdout => Box::new(std::io::stdout()),
        Output::File(path) => Box::new(
            File::create(path)
                .map_err(|e| CliError::io(format!("cannot write -output file {path}: {e}")))?,
        ),
        Output::ReportOnTerminal(tmp) | Output::S3(_, tmp) => Box::new(
            tmp.reopen()
                .map_err(|e| CliError::io(format!("cannot write a temporary file: {e}")))?,
        ),
    };

    let total = cfg
        .duration
        .or_else(|| cfg.pacer.build().planned_duration());
    let results = Unfinished(
        ResultsWriter::new(BufWriter::with_capacity(1 << 16, writer)).with_tags(worker_tags(&a)),
    );
    let mut others: Vec<Box<dyn Sink>> = Vec::new();
    let live = loadlab_engine::LiveStats::new();
    let progress = if a.quiet {
        None
    } else {
        progress::start(total, live.clone())
    };
    let progress = progress.map(|(sink, handle)| {
        others.push(Box::new(sink));
        handle
    });

    if let Some((_, metrics)) = &prom {
        others.push(Box::new(metrics.sink()));
    }
    let mut dash = dash;
    if let Some(d) = &mut dash {
        others.push(Box::new(d.sink()));
        d.start_ticker(live.clone(), cfg.pacer.build());
    }
    let sinks = (results, (Tally::default(), Tee(others)));

    let stop = dash.as_ref().map(|d| d.hub());
    let res = run_attack(cfg, targets, sinks, live, stop.clone());
    drop(prom);
    if let Some(d) = dash {
        d.finish()?;
    }
    if let Some(p) = progress {
        p.stop();
    }
    let (summary, (results, (tally, _))) = res?;
    // The engine has flushed the samples; the attack's own count of
    // requests it never sent goes in before the end record.
    results
        .close(summary.unsent)
        .map_err(|e| CliError::io(format!("cannot write the results: {e}")))?;
    if summary.interrupted {
        let how = if stop.is_some_and(|h| h.stop_was_requested()) {
            "stopped from the dashboard"
        } else {
            "interrupted"
        };
        eprintln!("loadlab: {how}; {} requests recorded", summary.requests);
    }
    if let Some(line) = tally.summary_line(summary.unsent) {
        eprintln!("loadlab: {line}");
    }
    if let Some(r) = &replay {
        super::replay::report(r);
    }
    if let Some(e) = &summary.target_error
        && replay.is_some()
    {
        return Err(match e {
            loadlab_engine::TargetError::Io { .. } => CliError::io(e),
            _ => CliError::bad_input(e),
        });
    }
    if let Output::S3(url, tmp) = &output {
        upload(url, tmp)?;
    }
    if let Output::ReportOnTerminal(tmp) = output {
        eprintln!(
            "loadlab: stdout is a terminal, so here is the text report (use -output=FILE or a pipe to keep results)"
        );
        super::report::print_text_report(tmp.path())?;
    }
    Ok(())
}

/// `-dashboard` and `-dashboard-export`: the server is bound (a busy port
/// ends the command here, before the attack) and the page's URL printed.
fn dashboard(
    a: &AttackArgs,
    cfg: &AttackConfig,
) -> Result<Option<crate::dashboard::Dashboard>, CliError> {
    let opts = crate::dashboard::Options {
        addr: a.dashboard.clone(),
        token: a
            .dashboard_token
            .clone()
            .or_else(|| std::env::var("LOADLAB_DASHBOARD_TOKEN").ok()),
        export: a.dashboard_export.clone(),
    };
    if !opts.any() {
        return Ok(None);
    }
    let meta = serde_json::json!({
        "kind": "attack",
        "name": cfg.name,
        "plan": format!("{}{}", cfg.pacer, cfg.duration.map(|d| format!(" for {}", loadlab_core::format_go_duration(d))).unwrap_or_default()),
    });
    crate::dashboard::Dashboard::start(&opts, meta).map(Some)
}

/// A missing bucket, a wrong endpoint or bad credentials end the attack
/// before it starts, not after it.
pub(crate) fn preflight(url: &crate::store::S3Url) -> Result<(), CliError> {
    use crate::store::{self, Preflight};
    match store::block_on(store::preflight(url)).map_err(|e| CliError::internal(e.to_string()))? {
        Ok(Preflight::Ok) => Ok(()),
        Ok(Preflight::Warn(w)) => {
            eprintln!("loadlab: warning: {w}");
            Ok(())
        }
        Err(e) => Err(CliError::network(e)),
    }
}

/// Uploads the results; when that fails the local file is kept and named.
pub(crate) fn upload(
    url: &crate::store::S3Url,
    tmp: &tempfile::NamedTempFile,
) -> Result<(), CliError> {
    let res = crate::store::block_on(crate::store::upload_file(tmp.path(), url))
        .map_err(|e| CliError::internal(e.to_string()))?;
    match res {
        Ok(_) => Ok(()),
        Err(e) => {
            let kept =
                std::env::temp_dir().join(format!("loadlab-results-{}.bin", std::process::id()));
            let where_ = match std::fs::copy(tmp.path(), &kept) {
                Ok(_) => format!("the results are kept in {}", kept.display()),
                Err(_) => "the results could not be kept".to_string(),
            };
            let code = if e.is_local() {
                crate::exit::IO
            } else {
                crate::exit::NETWORK
            };
            Err(CliError::new(code, format!("{e}; {where_}")))
        }
    }
}

/// What went wrong, counted for the one-line summary on stderr.
#[derive(Default)]
struct Tally {
    requests: u64,
    successes: u64,
    targets: Vec<loadlab_core::TargetInfo>,
    /// (target, error kind, status) of failures → count.
    failures: HashMap<(u32, loadlab_core::ErrorKind, u16), u64>,
}

impl Tally {
    /// `N requests, R% success; top error: TEXT (K of N)[; U scheduled
    /// requests never sent]`, or `None` when every request succeeded and
    /// none was left unsent.
    fn summary_line(&self, unsent: u64) -> Option<String> {
        let failed = self.requests - self.successes;
        if failed == 0 && unsent == 0 {
            return None;
        }
        let mut line = format!("{} requests", self.requests);
        if self.requests > 0 {
            line += &format!(
                ", {:.2}% success",
                self.successes as f64 * 100.0 / self.requests as f64
            );
        }
        // The most frequent failure text, counted over every target (two
        // targets both answering 404 are one "404 Not Found"); ties go to
        // the text of the first target, kind, status.
        let mut by_text: HashMap<String, (u64, (u32, loadlab_core::ErrorKind, u16))> =
            HashMap::new();
        for (&key, &n) in &self.failures {
            let e = by_text.entry(self.error_text(key)).or_insert((0, key));
            e.0 += n;
            e.1 = e.1.min(key);
        }
        let top = by_text
            .into_iter()
            .max_by(|a, b| a.1.0.cmp(&b.1.0).then_with(|| b.1.1.cmp(&a.1.1)));
        if let Some((text, (n, _))) = top {
            line += &format!("; top error: {text} ({n} of {})", self.requests);
        }
        if unsent > 0 {
            line += &format!("; {unsent} scheduled requests never sent");
        }
        Some(line)
    }
}

impl Tally {
    /// A failure's text as vegeta's report prints it.
    fn error_text(&self, (target, error, status): (u32, loadlab_core::ErrorKind, u16)) -> String {
        let (method, url) = self
            .targets
            .get(target as usize)
            .map_or(("", ""), |t| (t.method.as_str(), t.url.as_str()));
        let r = loadlab_metrics::Record {
            attack: Arc::from(""),
            start_unix_ns: 0,
            sample: loadlab_core::Sample {
                error,
                status,
                ..Default::default()
            },
            method: Arc::from(method),
            url: Arc::from(url),
            error_text: None,
            series: None,
        };
        r.error_string()
    }
}

/// Counts what went wrong; the engine hands it back with the summary.
impl Sink for Tally {
    fn register_target(&mut self, index: u32, target: &loadlab_core::TargetInfo) {
        let i = index as usize;
        if self.targets.len() <= i {
            self.targets.resize(
                i + 1,
                loadlab_core::TargetInfo {
                    method: String::new(),
                    url: String::new(),
                },
            );
        }
        self.targets[i] = target.clone();
    }
    fn record(&mut self, s: &loadlab_core::Sample) {
        self.requests += 1;
        if s.is_success() {
            self.successes += 1;
        } else {
            *self
                .failures
                .entry((s.target, s.error, s.status))
                .or_default() += 1;
        }
    }
}

/// Runs the engine on its own runtime until it ends or Ctrl-C.
fn run_attack<S: Sink + 'static>(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: S,
    live: std::sync::Arc<loadlab_engine::LiveStats>,
    stop: Option<Arc<crate::dashboard::hub::Hub>>,
) -> Result<(loadlab_engine::AttackSummary, S), CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the runtime: {e}")))?;
    if let Some(at) = cfg.start_at_unix_ns {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        if at > now + 1_000_000_000 {
            eprintln!(
                "loadlab: waiting until {} (in {}) to start (-start-at)",
                loadlab_metrics::timefmt::rfc3339(i128::from(at)),
                loadlab_core::format_go_duration(std::time::Duration::from_nanos(
                    loadlab_metrics::round_for_text(at - now)
                ))
            );
        }
    }
    rt.block_on(async move {
        // Ctrl-C, and SIGTERM (what Kubernetes sends a pod it stops): the
        // attack ends and its results are closed, and uploaded.
        // The dashboard's Stop button ends it the same way.
        let shutdown = async {
            let button = async {
                match &stop {
                    Some(hub) => hub.stopped().await,
                    None => std::future::pending().await,
                }
            };
            let mut stops = crate::signals::listen();
            tokio::select! {
                _ = stops.next() => {}
                _ = button => {}
            }
        };
        loadlab_engine::attack_with_live(cfg, targets, sink, shutdown, live).await
    })
    .map_err(engine_error)
}

fn engine_error(e: loadlab_engine::EngineError) -> CliError {
    let code = match e {
        // A results file that cannot be written (a full disk): exit 4, as
        // `k6 run --out` and `sysbench -o` for the same cause.
        loadlab_engine::EngineError::Sink(_) => crate::exit::IO,
        _ => crate::exit::BAD_INPUT,
    };
    CliError::new(code, e)
}
