//! loadlab studies: a YAML [`plan`] of load steps over named targets, run by
//! the [`runner`] through loadlab-engine, recorded in an SQLite [`store`],
//! analysed with [`stats`] (bootstrap CIs and rank tests across repetitions)
//! and written up by [`report`] as Markdown + self-contained HTML with charts.

pub mod collect;
pub mod hypothesis;
pub mod plan;
pub mod stats;
pub mod env;
pub mod monitor;
pub mod store;
pub mod analysis;
pub mod report;
pub mod runner;

pub use plan::{Plan, PlanError};
pub use runner::{RunOptions, StudyError, StudyOutcome, run_study};
pub use store::{Store, StoreError};
pub mod compare;
pub mod demo;
