//! Wires a [`WrkOptions`] to the engine: probe, then an open-model attack at
//! `-R` (one global schedule, at most `-c` connections) or wrk's closed loop
//! at `-c`, then wrk2's report.

use std::future::Future;
use std::io::Write;
use std::time::Duration;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, AttackSummary, EngineError, StopReason, Target, TargetSource};

use super::collect::WrkCollector;
use super::flags::WrkOptions;
use super::report::{WrkReport, render_body, render_header};
use crate::probe::{ProbeError, ProbeInfo, probe};
use crate::results::{ResultsFileError, close, results_file};

/// `-v`: the version line.
pub fn version() -> String {
    format!(
        "wrk 4.0.0 [loadlab {}] (wrk2-compatible face of loadlab)\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// Why a run failed (failed requests are not errors: they are in the report).
#[derive(Debug, thiserror::Error)]
pub enum WrkError {
    #[error("{0}")]
    Probe(#[from] ProbeError),
    #[error("{0}")]
    Engine(#[from] EngineError),
    #[error("{0}")]
    Results(#[from] ResultsFileError),
    #[error("cannot start the runtime: {0}")]
    Runtime(std::io::Error),
}

/// What a run produced, for callers that check figures.
#[derive(Debug)]
pub struct WrkRun {
    pub report: WrkReport,
    pub summary: AttackSummary,
    pub probe: ProbeInfo,
}

/// The engine settings for wrk's model. With `-R`: one constant-rate schedule
/// for the whole run (so any rate, even below the thread count, is honoured
/// and many connections cause no bursts), at most `-c` connections, latency
/// from the intended send time. Without `-R`: `-c` workers in a closed loop.
pub fn attack_config(o: &WrkOptions) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(o.rate.map_or(Rate::UNLIMITED, Rate::per_second)),
        closed_loop: o.rate.is_none(),
        duration: Some(o.duration),
        keepalive: true,
        ..crate::face_config("wrk", o.connections, o.timeout, &o.headers)
    }
}

/// Runs wrk: header, the attack, the report on `out`. `-t` sets the number
/// of runtime threads.
pub fn run(
    o: &WrkOptions,
    out: &mut dyn Write,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<WrkRun, WrkError> {
    let mut report = WrkReport {
        url: o.url.clone(),
        duration_s: o.duration.as_secs_f64().round() as u64,
        threads: o.threads,
        connections: o.connections,
        show_latency: o.latency,
        show_uncorrected: o.u_latency,
        ..WrkReport::default()
    };
    let _ = out.write_all(render_header(&report).as_bytes());
    let _ = out.flush();
    let rt = if o.threads <= 1 {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(o.threads as usize)
            .enable_all()
            .build()
    }
    .map_err(WrkError::Runtime)?;
    let info = rt.block_on(probe(
        &o.endpoint,
        "GET",
        &o.headers,
        o.timeout.max(Duration::from_secs(2)),
    ))?;
    let collector = WrkCollector::new(o.threads);
    let target = Target::new(http::Method::GET, o.url.clone());
    let sink = (collector, results_file(o.results.as_deref())?);
    let (summary, (WrkCollector(mut st), results)) = rt.block_on(loadlab_engine::attack(
        attack_config(o),
        TargetSource::Static(vec![target]),
        sink,
        shutdown,
    ))?;
    close(results, o.results.as_deref(), summary.unsent)?;
    drop(rt);
    // wrk's runtime is the whole run: `-d` (or longer when the last responses
    // came in after it); an interrupted run counts only the time it ran.
    let ran_ns = st
        .last_done_ns
        .max(summary.attack_duration.as_nanos() as u64);
    let runtime_ns = if summary.stop_reason == StopReason::Duration {
        ran_ns.max(o.duration.as_nanos() as u64)
    } else {
        ran_ns
    };
    report.calibration = if o.rate.is_some() {
        st.calibration()
    } else {
        Vec::new()
    };
    report.req_per_sec = st.req_per_sec(runtime_ns);
    report.latency = std::mem::take(&mut st.latency);
    report.uncorrected = std::mem::take(&mut st.uncorrected);
    report.complete = st.complete;
    report.runtime_s = runtime_ns as f64 / 1e9;
    // Header bytes are counted from the probe's response head, as wrk counts
    // every byte read.
    report.bytes_read = st.body_bytes + st.complete * info.head_len;
    report.errors = st.errors;
    report.non_2xx_3xx = st.non_2xx_3xx;
    let _ = out.write_all(render_body(&report).as_bytes());
    let _ = out.flush();
    Ok(WrkRun {
        report,
        summary,
        probe: info,
    })
}
