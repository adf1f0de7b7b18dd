//! loadlab studies: a YAML [`plan`] of load steps over named targets, run by
//! the [`runner`] through loadlab-engine, recorded in an SQLite [`store`],
//! analysed with [`stats`] (bootstrap CIs and rank tests across repetitions)
//! and written up by [`report`] as Markdown + self-contained HTML with charts.
//!
//! Data flow: plan → runner (engine attack per run, samples into a
//! [`collect::Collector`], the sink the engine hands back: HdrHistograms +
//! time series, warm-up excluded)
//! → store (one transaction per run) → [`analysis`] (SLO, ceilings, verdicts,
//! a pure function of the stored runs) → [`report`]. `loadlab compare` uses
//! [`compare`]; `loadlab demo` runs [`demo::DEMO_PLAN`].

pub mod analysis;
pub mod collect;
pub mod compare;
pub mod demo;
pub mod env;
pub mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod history;
pub mod hypothesis;
pub mod model;
pub mod monitor;
pub mod origins;
pub mod plan;
pub mod plan_shape;
pub mod relative;
pub mod replay;
pub mod report;
pub mod runner;
pub mod secrets;
mod sources;
pub mod split;
pub mod stats;
pub mod store;
mod suggest;
pub mod timetable;
pub mod worker;
pub mod workload;

pub use error::{PlanError, StudyError};
pub use plan::Plan;
pub use runner::{Observer, RunInfo, RunOptions, StudyOutcome, run_study};
pub use store::{Store, StoreError};
pub use workload::{WorkloadPlan, WorkloadRunner, WorkloadStep};
