//! The crate's error: what can go wrong preparing or rendering a
//! distributed attack.

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("{0}")]
    Flag(String),
    #[error("cannot read {what}: {err}")]
    Io { what: String, err: std::io::Error },
    #[error(
        "the targets and files the flags name are {bytes} bytes; a ConfigMap holds at most about 1 MB (serve large bodies from the target, or split the targets)"
    )]
    TooLarge { bytes: usize },
    #[error("cannot write the manifests: {0}")]
    Yaml(String),
}
