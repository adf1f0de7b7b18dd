//! k6 scripts on loadlab: `loadlab k6 run script.js`.
//!
//! # Design
//!
//! * **One QuickJS runtime and one context per run.** The built-in
//!   objects, the k6 modules and the API's natives are made once; each VU
//!   evaluates its own instance of the script's module in that context (so
//!   its top-level variables, made with its own `__VU`, are its own, as in
//!   k6), and the natives act for the VU whose code runs
//!   (`js::vu::current`). A VU thus costs ~15 KB of JavaScript heap instead
//!   of k6's megabyte.
//! * **VUs are stackful coroutines** (`corosensei`) on the one thread that
//!   owns the runtime. A script's `http.get()` and `sleep()` are
//!   synchronous; inside, the VU's coroutine yields the request to the
//!   scheduler, which runs it on the engine's transport (tokio, same
//!   thread) and resumes the coroutine with the response. A coroutine's
//!   stack is reserved (256 KiB) but only the pages it touches are
//!   resident. QuickJS checks its stack depth against the stack it runs on,
//!   so every switch into a coroutine tells the runtime its new stack top
//!   and limit (`vu.rs`).
//! * **Executors** (`executor/`) decide when a VU starts an iteration:
//!   closed models (shared/per-VU iterations, constant/ramping VUs) start
//!   the next iteration when the last one ends; arrival-rate executors
//!   (open model) start iterations on their schedule, count an iteration
//!   with no free VU as `dropped_iterations`, and measure each iteration
//!   from its intended start too (`iteration_duration_corrected`).
//! * **Metrics** (`registry.rs`, the run's metric registry): k6's
//!   metrics, split by tags into series, figured with
//!   `loadlab_metrics::Distribution`; HTTP requests and metric records also
//!   go to the results file (v2) through the `Sink` API, so `loadlab
//!   report` reads a script run.
//!
//! `unsafe` is allowed in `js/` only (the QuickJS glue): the stack switch
//! bookkeeping QuickJS needs (`JS_UpdateStackTop`, `JS_SetMaxStackSize`),
//! reaching a VU's context and its coroutine's yielder from the native
//! functions the script calls (see the SAFETY notes in `js/vu.rs`), and the
//! runtime calls rquickjs has no safe wrapper for (`js/runtime.rs`), and the
//! native objects of the k6 modules (`js/class.rs`: the response class,
//! its timings' atoms).

// Old paths the run's code in `sched.rs` still names.
pub mod config;
pub mod executor;
mod http_result;
mod inflight;
// The QuickJS glue: the only module allowed `unsafe` (see above).
#[allow(unsafe_code)]
mod js;
pub mod live_view;
mod local_ips;
pub mod log;
mod modules;
pub mod out;
pub mod progress;
pub mod prom_rw;
pub mod registry;
pub mod run;
pub mod sched;
pub mod secret_sources;
pub mod segment;
// What the modules and the run share (k6's `lib.State`).
pub mod state;
pub mod static_opens;
pub mod summary;
pub mod system_tags;
pub mod tags;
pub mod thresholds;
pub mod url_clean;
// The VUs' slots the executors start iterations in.
mod vus;

use std::path::PathBuf;

pub use config::{Overrides, Stage};
/// The k6 modules' names and JavaScript (the memory example loads them).
pub use modules::MODULES;
/// The documents of `k6/html` alive now (the memory tests count them).
pub use modules::html::doc::{live_document_bytes, live_documents, peak_documents, reset_peak};
pub use sched::{RunConfig, RunOutcome, TeardownFailure, run};
pub use secret_sources::Sources as SecretSources;
pub use vus::watchdog::StopSwitch;

/// Why a script could not run (a failed request or a failed check is data,
/// not an error).
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("cannot read {path}: {err}")]
    Read { path: PathBuf, err: std::io::Error },
    /// `file:line:column: message`.
    #[error("{0}")]
    Syntax(String),
    /// A module or function the script uses that loadlab k6 does not have.
    #[error("{0}")]
    Unsupported(String),
    /// Bad `options` or flags.
    #[error("invalid options: {0}")]
    Options(String),
    /// An exception in the init code, `setup()` or `teardown()`.
    #[error("{0}")]
    Script(String),
    /// `setup()` ran past `setupTimeout` (k6's exit code 100).
    #[error("{0}")]
    SetupTimeout(String),
    #[error("{0}")]
    Output(String),
    #[error("cannot start: {0}")]
    Runtime(String),
}
