//! The crate's errors: [`RenderError`], what can go wrong preparing or
//! rendering a distributed attack, and [`ClusterError`], talking to the
//! cluster.

use std::time::Duration;

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
    /// A script that would not compile in the pods (`file:line:col: …`).
    #[error("{0}")]
    Script(String),
    #[error("cannot write the manifests: {0}")]
    Yaml(String),
}

#[derive(Debug, thiserror::Error)]
pub enum ClusterError {
    /// No kubeconfig and not inside a cluster, or a kubeconfig that does
    /// not parse.
    #[error(
        "no Kubernetes cluster configured: {0} (set KUBECONFIG or ~/.kube/config, or run inside a cluster; `loadlab k8s render … | kubectl apply -f -` is the alternative)"
    )]
    NoConfig(String),
    /// The API server refused, or could not be reached.
    #[error("Kubernetes API: {0}")]
    Api(String),
    /// The Job did not finish before its deadline.
    #[error("the Job {name} was still running after {waited:?}")]
    Timeout { name: String, waited: Duration },
}
