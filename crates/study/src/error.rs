//! The crate's errors: [`PlanError`], a plan file that cannot be read, and
//! [`StudyError`], a study that cannot run, resume or merge.

use crate::store::StoreError;

/// A plan error with its location.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct PlanError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("origin: {0}")]
    Origin(String),
    #[error("engine: {0}")]
    Engine(String),
    #[error("{0}")]
    Monitor(String),
    #[error(
        "interrupted: study {study} stopped after {done} committed run(s); continue with --resume"
    )]
    Interrupted { study: i64, done: usize },
    #[error("cannot resume: {0}")]
    Resume(String),
    #[error("report: {0}")]
    Report(String),
    /// A split study (`--segment`, `study merge`) that cannot be: a plan
    /// feature that needs the merged outcome, stores that do not belong
    /// together.
    #[error("{0}")]
    Split(String),
    /// A file that cannot be read.
    #[error("{0}")]
    Io(String),
    /// A script or database test that cannot run (found before the first
    /// run, or a step that failed): the face's own exit code when it gave
    /// one (`loadlab k6 run`'s 107, `loadlab sysbench`'s 20, …).
    #[error("{message}")]
    Workload { code: Option<i32>, message: String },
    /// Every request of a run failed to connect: the target is down. The
    /// run is stored; the study stops.
    #[error("{0}")]
    Unreachable(String),
}
