//! A log on disk as a replay source: its format detected from its first
//! bytes, and an [`Opener`] that reads it from its start on every pass.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use super::{Opener, ReplayFormat};
use crate::targets::TargetError;

/// How much of a log [`detect_file`] reads.
pub const HEAD: u64 = 8192;

/// The first [`HEAD`] bytes of the file at `path`.
pub fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(HEAD as usize);
    File::open(path)?.take(HEAD).read_to_end(&mut head)?;
    Ok(head)
}

/// The format of the log at `path`, from its first bytes (see
/// [`ReplayFormat::detect`]); `None` when it cannot be told.
pub fn detect_file(path: &Path) -> std::io::Result<Option<ReplayFormat>> {
    Ok(ReplayFormat::detect(&head(path)?))
}

/// Opens the log at `path` (named `name` in messages) in `format`, from
/// its start, each time it is called.
pub fn file_opener(path: PathBuf, name: String, format: ReplayFormat) -> Opener {
    Box::new(move || {
        let f = File::open(&path).map_err(|err| TargetError::Io {
            source_name: name.clone(),
            err,
        })?;
        Ok(format.source(Box::new(BufReader::with_capacity(1 << 16, f)), &name))
    })
}
