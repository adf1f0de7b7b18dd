//! loadlab studies: a YAML [`plan`] of load steps over named targets, run by
//! the [`runner`] through loadlab-engine, recorded in an SQLite [`store`],
//! analysed with [`stats`] (bootstrap CIs and rank tests across repetitions)
//! and written up by [`report`] as Markdown + self-contained HTML with charts.

pub mod analysis;
pub mod collect;
pub mod env;
pub mod hypothesis;
pub mod monitor;
pub mod plan;
pub mod report;
pub mod runner;
pub mod stats;
pub mod store;

pub use plan::{Plan, PlanError};
pub use runner::{RunOptions, StudyError, StudyOutcome, run_study};
pub use store::{Store, StoreError};
pub mod compare;
pub mod demo;
