//! Where `s3://` inputs and outputs go: `loadlab_cluster::store` in a build
//! with the `cluster` feature. Without it an `s3://` URL is answered with
//! the feature it needs (exit 8) before anything runs, and the rest of
//! this module cannot be reached: no [`S3Url`] can be made.

use crate::exit::CliError;

#[cfg(feature = "cluster")]
pub use loadlab_cluster::store::*;

#[cfg(not(feature = "cluster"))]
pub use standin::*;

/// `s` as an `s3://` URL, `None` when it is not one. A malformed URL is a
/// usage error after `what` (`-output`, `--db`; nothing when empty).
pub fn s3_url(s: &str, what: &str) -> Result<Option<S3Url>, CliError> {
    let prefixed = |e: &dyn std::fmt::Display| match what {
        "" => e.to_string(),
        w => format!("{w}: {e}"),
    };
    #[cfg(not(feature = "cluster"))]
    if s.starts_with("s3://") {
        return Err(crate::absent::not_built(&prefixed(&s), "cluster"));
    }
    match S3Url::parse(s) {
        None => Ok(None),
        Some(Ok(url)) => Ok(Some(url)),
        Some(Err(e)) => Err(CliError::usage(prefixed(&e))),
    }
}

/// `s` as an `s3://` URL naming one object, `None` when it is not an
/// `s3://` URL. A prefix (no key, or one ending in `/`) is a usage error
/// saying the form expected (`form`: `s3://BUCKET/KEY`), after `what` as
/// in [`s3_url`].
pub fn s3_object(s: &str, what: &str, form: &str) -> Result<Option<S3Url>, CliError> {
    let Some(url) = s3_url(s, what)? else {
        return Ok(None);
    };
    if url.key.is_empty() || url.key.ends_with('/') {
        return Err(CliError::usage(format!(
            "{what}: {url} names a prefix, not an object; expected {form}"
        )));
    }
    Ok(Some(url))
}

/// The stand-in of a build without `cluster`: the same names. Nothing
/// makes an [`S3Url`] ([`s3_url`] has answered every `s3://` URL), and
/// were one made, every operation would answer that it is not built.
#[cfg(not(feature = "cluster"))]
#[allow(dead_code)] // mirrors the real store's names; nothing makes them
mod standin {
    use std::path::{Path, PathBuf};

    #[derive(Debug, Clone)]
    pub struct S3Url {
        pub bucket: String,
        pub key: String,
    }

    impl S3Url {
        /// `None`: [`super::s3_url`] has answered every `s3://` URL.
        pub fn parse(_: &str) -> Option<Result<S3Url, StoreError>> {
            None
        }
    }

    impl std::fmt::Display for S3Url {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "s3://{}/{}", self.bucket, self.key)
        }
    }

    #[derive(Debug)]
    pub enum StoreError {
        Url(String),
        Local { what: String },
        NotBuilt,
    }

    impl std::fmt::Display for StoreError {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            match self {
                StoreError::Url(s) | StoreError::Local { what: s } => f.write_str(s),
                StoreError::NotBuilt => {
                    f.write_str("this loadlab was built without the `cluster` feature")
                }
            }
        }
    }

    impl StoreError {
        pub fn is_local(&self) -> bool {
            matches!(self, StoreError::Local { .. })
        }
    }

    pub enum Preflight {
        Ok,
        Warn(String),
    }

    pub async fn preflight(_: &S3Url) -> Result<Preflight, StoreError> {
        Err(StoreError::NotBuilt)
    }
    pub async fn upload_file(_: &Path, _: &S3Url) -> Result<u64, StoreError> {
        Err(StoreError::NotBuilt)
    }
    pub async fn list(_: &S3Url) -> Result<Vec<(String, u64)>, StoreError> {
        Err(StoreError::NotBuilt)
    }
    pub async fn download(_: &S3Url, _: &Path) -> Result<Vec<(PathBuf, String)>, StoreError> {
        Err(StoreError::NotBuilt)
    }

    /// Runs `f` on a runtime of its own, as the real store does.
    pub fn block_on<F: std::future::Future>(f: F) -> Result<F::Output, StoreError> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Local {
                what: format!("cannot start a runtime: {e}"),
            })?;
        Ok(rt.block_on(f))
    }
}
