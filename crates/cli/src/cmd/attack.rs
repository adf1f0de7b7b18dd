//! `loadlab attack`: vegeta's command line on loadlab's engine.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, IsTerminal, Write};

use loadlab_core::{PacerSpec, Sink, Tee};
use loadlab_engine::{AttackConfig, TargetFormat, TargetSource, TlsOptions};
use loadlab_metrics::ResultsWriter;

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
        timeout: a.timeout,
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
        },
        unix_socket: a.unix_socket.clone(),
        connect_to: a.connect_to.clone(),
        laddr: a.laddr,
        headers: a.headers.clone(),
        body: None,
        chunked: a.chunked,
        dns_cache: a.dns_ttl,
        max_body: a.max_body,
        max_headers_size: a.max_headers_size,
        compression: a.compression,
        closed_loop: false,
        resolution: a.resolution,
    };
    // The engine's own checks (caps, -resolution, -cert with -key, ...),
    // as usage errors before any file is read or written.
    if let Err(e) = cfg.validate() {
        return Err(match e {
            loadlab_engine::EngineError::Config(m) => CliError::usage(m),
            other => CliError::usage(other.to_string()),
        });
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
            Box::new(BufReader::new(std::io::stdin())),
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
    let targets = targets(&a)?;
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
    let output = if a.output == "stdout" || a.output == "-" {
        if std::io::stdout().is_terminal() {
            Output::ReportOnTerminal(
                tempfile::NamedTempFile::new()
                    .map_err(|e| CliError::io(format!("cannot create a temporary file: {e}")))?,
            )
        } else {
            Output::Stdout
        }
    } else {
        Output::File(a.output.clone())
    };
    let writer: Box<dyn Write + Send> = match &output {
        Output::Stdout => Box::new(std::io::stdout()),
        Output::File(path) => Box::new(
            File::create(path)
                .map_err(|e| CliError::io(format!("cannot write -output file {path}: {e}")))?,
        ),
        Output::ReportOnTerminal(tmp) => Box::new(
            tmp.reopen()
                .map_err(|e| CliError::io(format!("cannot write a temporary file: {e}")))?,
        ),
    };

    let total = cfg
        .duration
        .or_else(|| cfg.pacer.build().planned_duration());
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(ResultsWriter::new(
        BufWriter::with_capacity(1 << 16, writer),
    ))];
    let live = loadlab_engine::LiveStats::new();
    let progress = if a.quiet {
        None
    } else {
        progress::start(total, live.clone())
    };
    let progress = progress.map(|(sink, handle)| {
        sinks.push(Box::new(sink));
        handle
    });

    if let Some((_, metrics)) = &prom {
        sinks.push(Box::new(metrics.sink()));
    }

    let summary = run_attack(cfg, targets, Box::new(Tee(sinks)), live);
    drop(prom);
    if let Some(p) = progress {
        p.stop();
    }
    let summary = summary?;
    if summary.interrupted {
        eprintln!(
            "loadlab: interrupted; {} requests recorded",
            summary.requests
        );
    }
    if let Output::ReportOnTerminal(tmp) = output {
        eprintln!(
            "loadlab: stdout is a terminal, so here is the text report (use -output=FILE or a pipe to keep results)"
        );
        super::report::print_text_report(tmp.path())?;
    }
    Ok(())
}

/// Runs the engine on its own runtime until it ends or Ctrl-C.
fn run_attack(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: Box<dyn Sink>,
    live: std::sync::Arc<loadlab_engine::LiveStats>,
) -> Result<loadlab_engine::AttackSummary, CliError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the runtime: {e}")))?;
    rt.block_on(async move {
        let shutdown = async {
            let _ = tokio::signal::ctrl_c().await;
        };
        loadlab_engine::attack_with_live(cfg, targets, sink, shutdown, live).await
    })
    .map_err(engine_error)
}

fn engine_error(e: loadlab_engine::EngineError) -> CliError {
    CliError::new(crate::exit::BAD_INPUT, e)
}
