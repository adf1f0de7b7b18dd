//! Wires an [`AbOptions`] to the engine: probe, closed-loop attack at `-c`,
//! then ab's report and files.

use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use loadlab_engine::{AttackConfig, AttackSummary, EngineError, Target, TargetSource};

use super::collect::{AbCollector, heartbeat};
use super::flags::AbOptions;
use super::report::{AbReport, gnuplot_tsv, percentile_csv, render};
use crate::probe::{ProbeError, ProbeInfo, probe};
use crate::results::{ResultsFileError, close, results_file};

/// The first line of the banner: ab's, so tools that sniff it still match.
pub fn banner() -> String {
    format!(
        "This is ApacheBench, Version 2.3 <loadlab {}>\n\
         loadlab's ApacheBench face: the same engine as `loadlab attack`, HTTP/1.1, HdrHistogram percentiles\n\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Why a run failed (failed requests are not errors: they are in the report).
#[derive(Debug, thiserror::Error)]
pub enum AbError {
    #[error("{0}")]
    Probe(#[from] ProbeError),
    #[error("{0}")]
    Engine(#[from] EngineError),
    #[error("cannot write {path}: {err}")]
    Write { path: String, err: std::io::Error },
    #[error("{0}")]
    Results(#[from] ResultsFileError),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

/// What a run produced, for callers that check figures.
#[derive(Debug)]
pub struct AbRun {
    pub report: AbReport,
    pub summary: AttackSummary,
    pub probe: ProbeInfo,
}

/// The engine settings for ab's model: `-c` workers in a closed loop, `-n`
/// requests or `-t` seconds, one connection per request unless `-k`,
/// HTTP/1.1, certificates not verified (ab never verifies them), redirects
/// not followed.
pub fn attack_config(o: &AbOptions) -> AttackConfig {
    AttackConfig {
        closed_loop: true,
        max_requests: Some(o.requests),
        duration: o.timelimit,
        keepalive: o.keepalive,
        body: o.body.clone().map(Bytes::from),
        ..crate::face_config("ab", o.concurrency, o.timeout, &o.headers)
    }
}

/// Runs ab: banner and progress, the attack, the report on `out`, `-g`/`-e` files.
pub fn run(
    o: &AbOptions,
    out: &mut dyn Write,
    progress: Box<dyn Write + Send>,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<AbRun, AbError> {
    let beat = heartbeat(o.requests, o.quiet);
    let _ = write!(
        out,
        "{}Benchmarking {} (be patient){}",
        banner(),
        o.endpoint.host,
        if beat > 0 { "\n" } else { "..." }
    );
    let _ = out.flush();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(AbError::Runtime)?;
    let probe_method = if o.method == "GET" { "GET" } else { "HEAD" };
    let info = rt.block_on(probe(
        &o.endpoint,
        probe_method,
        &o.headers,
        o.timeout.min(Duration::from_secs(10)),
    ))?;
    let collector = AbCollector::new(o.gnuplot.is_some(), o.variable_length, beat, Some(progress));
    let method = http::Method::from_bytes(o.method.as_bytes()).unwrap_or(http::Method::GET);
    let target = Target::new(method, o.url.clone());
    let sink = (collector, results_file(o.results.as_deref())?);
    let (summary, (collector, results)) = rt.block_on(loadlab_engine::attack(
        attack_config(o),
        TargetSource::Static(vec![target]),
        sink,
        shutdown,
    ))?;
    close(results, o.results.as_deref(), summary.unsent)?;
    let mut st = collector.state;
    if beat > 0 {
        eprintln!("Finished {} requests", st.complete);
    } else {
        let _ = writeln!(out, "..done");
    }
    if o.verbosity >= 2 {
        let _ = writeln!(out, "LOG: header received:\n{}", info.head_text);
    }
    let report = AbReport {
        server_software: info.server.clone(),
        hostname: o.endpoint.host.clone(),
        port: o.endpoint.port,
        tls_protocol: info.tls_protocol.clone(),
        tls_server_name: (o.endpoint.https && o.endpoint.host.parse::<std::net::IpAddr>().is_err())
            .then(|| o.endpoint.host.clone()),
        path: o.endpoint.path.clone(),
        document_length: if o.variable_length {
            None
        } else {
            Some(st.document_length.unwrap_or(0))
        },
        concurrency: o.concurrency,
        time_taken_s: st.last_done_ns as f64 / 1e9,
        complete: st.complete,
        failures: st.failures,
        write_errors: 0,
        non_2xx: st.non_2xx,
        // Responses after which the connection stayed open: every response
        // except those that ended a connection early (more connections than
        // workers means the server closed some).
        keepalive_requests: o.keepalive.then(|| {
            st.responses
                .saturating_sub(st.connects.saturating_sub(o.concurrency))
        }),
        total_transferred: st.body_bytes + st.responses * info.head_len,
        body_sent: o.body.as_ref().map(|_| st.bytes_out),
        html_transferred: st.body_bytes,
        phases: std::mem::take(&mut st.phases),
        confidence: o.confidence,
        percentiles: o.percentiles,
    };
    let _ = out.write_all(render(&report).as_bytes());
    let _ = out.flush();
    if let Some(path) = &o.csv {
        write_file(path, &percentile_csv(&report.phases.total))?;
    }
    if let (Some(path), Some(rows)) = (&o.gnuplot, st.gnuplot.as_mut()) {
        write_file(path, &gnuplot_tsv(rows))?;
    }
    Ok(AbRun {
        report,
        summary,
        probe: info,
    })
}

fn write_file(path: &Path, text: &str) -> Result<(), AbError> {
    std::fs::write(path, text).map_err(|err| AbError::Write {
        path: path.display().to_string(),
        err,
    })
}
