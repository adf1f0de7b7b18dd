//! What a run is asked to do, and how it went.

use std::path::PathBuf;
use std::sync::Arc;

use crate::ScriptError;
use crate::config::{Options, Overrides};
use crate::log::Logger;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub script: PathBuf,
    /// `__ENV`: the process environment, then `-e` on top.
    pub env: Vec<(String, String)>,
    pub overrides: Overrides,
    pub quiet: bool,
    /// `-v/--verbose`: `console.debug` lines are printed (k6 drops them
    /// otherwise).
    pub verbose: bool,
    /// k6's `--compatibility-mode=base`: no `global` alias of `globalThis`.
    pub base_mode: bool,
    /// `--log-output`, `--log-format`, `--no-color` (`None`: k6's
    /// default, text on standard error).
    pub logger: Option<Arc<Logger>>,
    /// `--secret-source`: what `k6/secrets` reads.
    pub secret_sources: crate::secret_sources::Sources,
    /// `--out json=FILE`.
    pub json_out: Option<PathBuf>,
    /// `--out csv=…`.
    pub csv_out: Option<crate::out::CsvOut>,
    /// `--out experimental-prometheus-rw[=…]`.
    pub prometheus_rw: Option<crate::prom_rw::RwConfig>,
    /// `--out loadlab=FILE`: our results file (v2).
    pub results_out: Option<PathBuf>,
    /// `--summary-export=FILE`.
    pub summary_export: Option<PathBuf>,
    /// `--start-at`: the instant (ns since the Unix epoch) every worker's
    /// scenarios start on, after init and `setup()`.
    pub start_at_unix_ns: Option<u64>,
    /// The process exits right after the run (the CLI): the JavaScript
    /// heap is left to the exit instead of being freed context by context.
    pub exit_after: bool,
    /// k6's live progress lines on standard output while the test runs
    /// (the CLI without `-q`): every second, or redrawn in place every
    /// 100 ms on a terminal.
    pub progress: bool,
    /// A live display of the run (the dashboard), given a view once a second.
    pub live_out: Option<Arc<dyn crate::live_view::LiveOut>>,
    /// Interrupts the VUs' JavaScript (even a VU in an endless loop) when
    /// the caller stops the run: the CLI's first Ctrl-C sets it.
    pub stop: crate::StopSwitch,
}

/// Opens `--console-output`'s file (created, or appended to, as k6 does).
pub(crate) fn open_console_output(path: &str) -> Result<std::fs::File, ScriptError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| ScriptError::Options(format!("consoleOutput {path:?}: cannot create it: {e}")))
}

/// A worker's record and plan for its results file: written when the run
/// is one part of a split test (`--execution-segment`) or starts on a
/// common instant (`--start-at`).
pub(crate) fn worker_header(
    cfg: &RunConfig,
    options: &Options,
) -> Option<(
    loadlab_core::WorkerInfo,
    loadlab_metrics::distributed::WorkerPlan,
)> {
    let t = &options.segment;
    if t.is_whole() && cfg.start_at_unix_ns.is_none() {
        return None;
    }
    Some((
        loadlab_core::WorkerInfo {
            index: t.index as u64,
            count: t.count() as u64,
            start_at_unix_ns: cfg.start_at_unix_ns.unwrap_or(0),
            began_unix_ns: 0,
            // Iterations start on tokio's timer: 1 ms.
            resolution_ns: 1_000_000,
            scheduled_total: None,
            clock_max_error_ns: loadlab_engine::host::clock_max_error_ns(),
            host: loadlab_engine::host::name(),
        },
        loadlab_metrics::distributed::WorkerPlan {
            unit: "iterations".into(),
            segment: t.to_string(),
            sequence: t.sequence_text(),
            scheduled: options.planned_iterations(),
        },
    ))
}

/// How `teardown()` failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TeardownFailure {
    /// It threw: the exception's text.
    Exception(String),
    /// It ran past `teardownTimeout`.
    Timeout(String),
}

/// How it went.
#[derive(Debug)]
pub struct RunOutcome {
    /// k6's end-of-test summary.
    pub summary: String,
    pub thresholds_failed: bool,
    /// The metrics whose thresholds were crossed (sorted; their keys as
    /// the script wrote them).
    pub thresholds_crossed: Vec<String>,
    pub interrupted: bool,
    pub aborted_by_threshold: bool,
    /// `exec.test.abort(message)` was called.
    pub aborted: Option<String>,
    /// `teardown()` threw (k6's exit code 107) or ran past
    /// `teardownTimeout` (101); the summary is still given.
    pub teardown_failed: Option<TeardownFailure>,
    pub iterations: u64,
    pub script_errors: u64,
    pub http_reqs: u64,
    /// QuickJS's heap after every VU's init (and a collection), in bytes:
    /// what the VUs cost (`LOADLAB_K6_DEBUG_MEMORY=1` prints the detail).
    pub js_heap_bytes: u64,
    /// VUs initialised, VU 0 (setup/teardown) included.
    pub vus_initialised: u64,
    /// The series (a metric and a tag set each) and tag-filtered metrics
    /// the run kept in memory: bounded by the script's metrics, tags and
    /// thresholds, not by the URLs it requests.
    pub metric_series: u64,
}

/// Prints k6's banner (without its logo) on standard output.
pub fn print_banner(cfg: &RunConfig, options: &crate::config::Options) {
    let mut outs = Vec::new();
    if let Some(p) = &cfg.json_out {
        outs.push(format!("json ({})", p.display()));
    }
    if let Some(c) = &cfg.csv_out {
        outs.push(format!("csv ({})", c.path.display()));
    }
    if let Some(p) = &cfg.results_out {
        outs.push(format!("loadlab ({})", p.display()));
    }
    crate::progress::write_out(&crate::progress::banner(
        &cfg.script.display().to_string(),
        &outs,
        options,
    ));
}
