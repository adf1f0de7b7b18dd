//! Optionally keeps every sample of an ab or wrk run in a loadlab results
//! file as well (`LOADLAB_RESULTS=run.bin loadlab ab ...`), so the run can be
//! re-reported, encoded or plotted like any `loadlab attack` run.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use loadlab_metrics::{ResultsWriter, Unfinished};

/// The environment variable the CLI reads for [`results_file`].
pub const RESULTS_ENV: &str = "LOADLAB_RESULTS";

/// Why the results file could not be created or written.
#[derive(Debug, thiserror::Error)]
#[error("cannot {doing} results file {path}: {err}")]
pub struct ResultsFileError {
    /// "create" or "write".
    pub doing: &'static str,
    pub path: PathBuf,
    pub err: std::io::Error,
}

/// The results writer of a face's run, if a file was asked for: its end
/// record waits for [`close`], which records the requests the schedule
/// called for that were never sent.
pub type ResultsFile = Option<Unfinished<BufWriter<File>>>;

/// A results writer on `path` (none without a path), to run beside the
/// face's collector: `(collector, results_file(path)?)`.
pub fn results_file(path: Option<&Path>) -> Result<ResultsFile, ResultsFileError> {
    let Some(path) = path else { return Ok(None) };
    let f = File::create(path).map_err(|err| ResultsFileError {
        doing: "create",
        path: path.to_path_buf(),
        err,
    })?;
    Ok(Some(Unfinished(ResultsWriter::new(
        BufWriter::with_capacity(256 * 1024, f),
    ))))
}

/// Ends the results file the engine handed back: the run's `unsent`
/// count, then the end record.
pub fn close(
    results: ResultsFile,
    path: Option<&Path>,
    unsent: u64,
) -> Result<(), ResultsFileError> {
    let (Some(w), Some(path)) = (results, path) else {
        return Ok(());
    };
    w.close(unsent).map_err(|err| ResultsFileError {
        doing: "write",
        path: path.to_path_buf(),
        err,
    })
}
