//! Optionally keeps every sample of an ab or wrk run in a loadlab results
//! file as well (`LOADLAB_RESULTS=run.bin loadlab ab ...`), so the run can be
//! re-reported, encoded or plotted like any `loadlab attack` run.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use loadlab_core::{Sink, Tee};
use loadlab_metrics::ResultsWriter;

/// The environment variable the CLI reads for [`with_results_file`].
pub const RESULTS_ENV: &str = "LOADLAB_RESULTS";

/// Why the results file could not be created.
#[derive(Debug, thiserror::Error)]
#[error("cannot create results file {path}: {err}")]
pub struct ResultsFileError {
    pub path: PathBuf,
    pub err: std::io::Error,
}

/// `sink` alone, or `sink` plus a results writer on `path`.
pub fn with_results_file(
    sink: Box<dyn Sink>,
    path: Option<&Path>,
) -> Result<Box<dyn Sink>, ResultsFileError> {
    let Some(path) = path else { return Ok(sink) };
    let f = File::create(path).map_err(|err| ResultsFileError {
        path: path.to_path_buf(),
        err,
    })?;
    let writer = ResultsWriter::new(BufWriter::with_capacity(256 * 1024, f));
    Ok(Box::new(Tee(vec![sink, Box::new(writer)])))
}
