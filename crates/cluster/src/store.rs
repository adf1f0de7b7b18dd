//! Results in S3-compatible object storage: `s3://bucket/key`.
//!
//! Credentials and endpoint come from the usual environment — the
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION`/`AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` variables, or a web
//! identity token in a pod — and are never printed: errors name the bucket
//! and key only. A plain-`http://` endpoint (MinIO in the cluster, a local
//! test server) is allowed because the user named it.
//!
//! A worker writes its results to a local file as usual and uploads it when
//! the attack ends (also after Ctrl-C or SIGTERM), in parts, so that a large
//! file never sits whole in memory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures_util::StreamExt;
use object_store::aws::AmazonS3Builder;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt};
use tokio::io::AsyncWriteExt;

/// `s3://bucket/key` (the key may be empty or end with `/`: a prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Url {
    pub bucket: String,
    pub key: String,
}

impl S3Url {
    /// `None` when `s` is not an `s3://` URL at all.
    pub fn parse(s: &str) -> Option<Result<S3Url, StoreError>> {
        let rest = s.strip_prefix("s3://")?;
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Some(Err(StoreError::Url(format!(
                "{s:?}: no bucket; expected s3://BUCKET/KEY"
            ))));
        }
        Some(Ok(S3Url {
            bucket: bucket.to_string(),
            key: key.to_string(),
        }))
    }
}

impl std::fmt::Display for S3Url {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "s3://{}/{}", self.bucket, self.key)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("bad S3 URL {0}")]
    Url(String),
    #[error("object storage: {0}")]
    Config(String),
    /// The remote side: a refused connection, a missing bucket, denied access.
    #[error("{what}: {err}")]
    Remote { what: String, err: String },
    #[error("{what}: {err}")]
    Local { what: String, err: std::io::Error },
}

impl StoreError {
    /// True when the error is about a local file rather than the store.
    pub fn is_local(&self) -> bool {
        matches!(self, StoreError::Local { .. })
    }
}

fn install_crypto() {
    // reqwest's rustls has no provider of its own here (no aws-lc); ring,
    // which the rest of loadlab uses, is installed once per process.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The store of one bucket, configured from the environment.
fn store(bucket: &str) -> Result<Arc<dyn ObjectStore>, StoreError> {
    install_crypto();
    let mut b = AmazonS3Builder::from_env().with_bucket_name(bucket);
    let endpoint = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"]
        .iter()
        .find_map(|k| std::env::var(k).ok());
    if endpoint.is_some_and(|e| e.starts_with("http://")) {
        b = b.with_allow_http(true);
    }
    // Fail within a minute rather than retry for minutes: the run is over,
    // and the local file is kept when the upload fails.
    b = b.with_retry(object_store::RetryConfig {
        max_retries: 4,
        retry_timeout: std::time::Duration::from_secs(60),
        ..Default::default()
    });
    let s = b
        .build()
        .map_err(|e| StoreError::Config(redact(&e.to_string())))?;
    Ok(Arc::new(s))
}

/// Error texts never carry a secret, but keep it so whatever the store says:
/// the values of the secret variables are cut out.
fn redact(text: &str) -> String {
    let mut t = text.to_string();
    for k in ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"] {
        if let Ok(v) = std::env::var(k)
            && v.len() >= 4
        {
            t = t.replace(&v, "xxxxx");
        }
    }
    t
}

fn remote(what: impl Into<String>, e: impl std::fmt::Display) -> StoreError {
    StoreError::Remote {
        what: what.into(),
        err: one_line(&redact(&e.to_string())),
    }
}

/// Errors are one line: an S3 error document (`<Error><Code>…`) is cut down
/// to its code and message, whitespace runs to one space.
fn one_line(text: &str) -> String {
    let tag = |name: &str| -> Option<&str> {
        let open = format!("<{name}>");
        let start = text.find(&open)? + open.len();
        let len = text[start..].find(&format!("</{name}>"))?;
        Some(&text[start..start + len])
    };
    let t = match (
        text.find("<?xml").or_else(|| text.find("<Error>")),
        tag("Code"),
    ) {
        (Some(at), Some(code)) => format!(
            "{}{code}: {}",
            text[..at].trim_end().trim_end_matches(':').to_string() + ": ",
            tag("Message").unwrap_or("")
        ),
        _ => text.to_string(),
    };
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Uploads the local file `from` to `to`, in 8 MiB parts; returns its size.
pub async fn upload_file(from: &Path, to: &S3Url) -> Result<u64, StoreError> {
    if to.key.is_empty() || to.key.ends_with('/') {
        return Err(StoreError::Url(format!(
            "{to}: names a prefix, not an object; expected s3://BUCKET/KEY"
        )));
    }
    let s = store(&to.bucket)?;
    let mut file = tokio::fs::File::open(from)
        .await
        .map_err(|err| StoreError::Local {
            what: format!("cannot read {}", from.display()),
            err,
        })?;
    let mut w = object_store::buffered::BufWriter::with_capacity(
        s,
        ObjPath::from(to.key.as_str()),
        8 << 20,
    );
    let n = tokio::io::copy(&mut file, &mut w)
        .await
        .map_err(|e| remote(format!("cannot upload to {to}"), e))?;
    w.shutdown()
        .await
        .map_err(|e| remote(format!("cannot upload to {to}"), e))?;
    Ok(n)
}

/// What a check of the bucket before an attack found.
#[derive(Debug)]
pub enum Preflight {
    /// The bucket answered a listing.
    Ok,
    /// Listing is not allowed (a write-only policy may still upload): say so
    /// and go on.
    Warn(String),
}

/// Lists (at most one object of) the folder `to` will go in, so that a
/// missing bucket, a wrong endpoint or bad credentials are found before the
/// attack rather than after it. A denied listing is only a warning: a
/// write-only policy can still upload.
pub async fn preflight(to: &S3Url) -> Result<Preflight, StoreError> {
    let s = store(&to.bucket)?;
    let dir = to.key.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let path = (!dir.is_empty()).then(|| ObjPath::from(dir));
    let mut stream = s.list(path.as_ref());
    match stream.next().await {
        None | Some(Ok(_)) => Ok(Preflight::Ok),
        Some(Err(
            e @ (object_store::Error::PermissionDenied { .. }
            | object_store::Error::Unauthenticated { .. }),
        )) => Ok(Preflight::Warn(one_line(&redact(&format!(
            "cannot list s3://{}/{dir}: {e}; the upload at the end may fail too",
            to.bucket
        ))))),
        Some(Err(e)) => Err(remote(format!("cannot write to {to}"), e)),
    }
}

/// The objects under `prefix` (a folder: `s3://b/runs/x/` lists what is in
/// `runs/x`), by key in natural order (`worker-2` before `worker-10`).
pub async fn list(prefix: &S3Url) -> Result<Vec<(String, u64)>, StoreError> {
    let s = store(&prefix.bucket)?;
    let p = prefix.key.trim_matches('/');
    let path = (!p.is_empty()).then(|| ObjPath::from(p));
    let mut stream = s.list(path.as_ref());
    let mut out = Vec::new();
    while let Some(m) = stream.next().await {
        let m = m.map_err(|e| remote(format!("cannot list {prefix}"), e))?;
        out.push((m.location.to_string(), m.size));
    }
    out.sort_by_cached_key(|a| natural_key(&a.0));
    Ok(out)
}

/// Downloads `url` into `dir`: the object itself, or, when `url` names no
/// object (or ends with `/`), every object under it. Returns the local
/// files in natural key order, each with the URL it came from.
pub async fn download(url: &S3Url, dir: &Path) -> Result<Vec<(PathBuf, String)>, StoreError> {
    let s = store(&url.bucket)?;
    let keys: Vec<String> = if url.key.is_empty() || url.key.ends_with('/') {
        list(url).await?.into_iter().map(|(k, _)| k).collect()
    } else {
        match s.head(&ObjPath::from(url.key.as_str())).await {
            Ok(_) => vec![url.key.clone()],
            Err(object_store::Error::NotFound { .. }) => {
                list(url).await?.into_iter().map(|(k, _)| k).collect()
            }
            Err(e) => return Err(remote(format!("cannot read {url}"), e)),
        }
    };
    if keys.is_empty() {
        return Err(StoreError::Remote {
            what: format!("cannot read {url}"),
            err: "no objects there".into(),
        });
    }
    let mut out = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        let from = S3Url {
            bucket: url.bucket.clone(),
            key: key.clone(),
        };
        let local = dir.join(format!("{i:06}.bin"));
        let got = s
            .get(&ObjPath::from(key.as_str()))
            .await
            .map_err(|e| remote(format!("cannot read {from}"), e))?;
        let mut stream = got.into_stream();
        let mut f = tokio::fs::File::create(&local)
            .await
            .map_err(|err| StoreError::Local {
                what: format!("cannot write {}", local.display()),
                err,
            })?;
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(|e| remote(format!("cannot read {from}"), e))?;
            f.write_all(&chunk).await.map_err(|err| StoreError::Local {
                what: format!("cannot write {}", local.display()),
                err,
            })?;
        }
        f.flush().await.map_err(|err| StoreError::Local {
            what: format!("cannot write {}", local.display()),
            err,
        })?;
        out.push((local, from.to_string()));
    }
    Ok(out)
}

/// Runs `f` on a runtime of its own (the CLI is synchronous around the engine).
pub fn block_on<F: std::future::Future>(f: F) -> Result<F::Output, StoreError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::Config(format!("cannot start a runtime: {e}")))?;
    Ok(rt.block_on(f))
}

/// `worker-10` after `worker-9`: runs of digits compare as numbers.
fn natural_key(s: &str) -> Vec<(u8, u128, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut digits = false;
    for c in s.chars() {
        if c.is_ascii_digit() != digits && !cur.is_empty() {
            out.push(part(&cur, digits));
            cur.clear();
        }
        digits = c.is_ascii_digit();
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(part(&cur, digits));
    }
    out
}

fn part(s: &str, digits: bool) -> (u8, u128, String) {
    if digits {
        (0, s.parse().unwrap_or(u128::MAX), s.to_string())
    } else {
        (1, 0, s.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_s3_urls() {
        assert!(S3Url::parse("/tmp/x").is_none());
        let u = S3Url::parse("s3://b/runs/w-1.bin").unwrap().unwrap();
        assert_eq!((u.bucket.as_str(), u.key.as_str()), ("b", "runs/w-1.bin"));
        let u = S3Url::parse("s3://b").unwrap().unwrap();
        assert_eq!(u.key, "");
        assert!(S3Url::parse("s3:///k").unwrap().is_err());
    }

    #[test]
    fn s3_error_documents_become_one_line() {
        let e = "Error performing PUT http://h/b/k - 404 Not Found: <?xml version=\"1.0\"?>\n<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><RequestId>x</RequestId></Error>";
        assert_eq!(
            one_line(e),
            "Error performing PUT http://h/b/k - 404 Not Found: NoSuchBucket: The specified bucket does not exist"
        );
        assert_eq!(one_line("a\n  b"), "a b");
    }

    #[test]
    fn natural_order_puts_worker_10_after_worker_9() {
        let mut v = vec!["p/worker-10.bin", "p/worker-9.bin", "p/worker-0.bin"];
        v.sort_by_key(|s| natural_key(s));
        assert_eq!(v, ["p/worker-0.bin", "p/worker-9.bin", "p/worker-10.bin"]);
    }
}
