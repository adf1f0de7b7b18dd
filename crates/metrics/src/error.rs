//! Errors of the readers: each names the source (file) and, where it helps,
//! the line or byte offset.

use std::io;

/// Why results could not be read. Truncation is *not* an error: readers stop
/// at the last whole record and report a warning instead.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The underlying reader failed.
    #[error("{name}: {error}")]
    Io {
        name: String,
        #[source]
        error: io::Error,
    },
    /// The file is not in any format we read.
    #[error(
        "{name}: not a loadlab results file, vegeta gob, JSON or CSV results (starts with {start})"
    )]
    UnknownFormat { name: String, start: String },
    /// A loadlab results file written by a newer version.
    #[error(
        "{name}: loadlab results format version {version} is newer than this loadlab understands (version {supported})"
    )]
    UnsupportedVersion {
        name: String,
        version: u8,
        supported: u8,
    },
    /// A record that cannot be decoded (line numbers are 1-based).
    #[error("{name}: {location}: {message}")]
    Malformed {
        name: String,
        location: String,
        message: String,
    },
}

impl ReadError {
    /// True when the failure is the I/O layer's, not the content's (the CLI
    /// maps the two to different exit codes).
    pub fn is_io(&self) -> bool {
        matches!(self, ReadError::Io { .. })
    }

    pub(crate) fn io(name: &str, error: io::Error) -> Self {
        ReadError::Io {
            name: name.to_string(),
            error,
        }
    }

    pub(crate) fn malformed(
        name: &str,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        ReadError::Malformed {
            name: name.to_string(),
            location: location.into(),
            message: message.into(),
        }
    }
}
