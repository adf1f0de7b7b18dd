//! `loadlab k8s run`: apply the rendered objects through the Kubernetes API
//! and follow the Job until its workers are done.
//!
//! The client is kube's, configured as kubectl is: `KUBECONFIG` or
//! `~/.kube/config`, else the pod's service account inside a cluster. The
//! objects are applied server-side (field manager `loadlab`), so a second
//! run of the same name updates the ConfigMap and the Job rather than
//! failing (a Job's pod template cannot change: delete the old Job first).
//!
//! This path has been compiled and its no-cluster errors tested, but it has
//! not been run against a real cluster here (there is none on this machine).

use std::time::{Duration, Instant};

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret};
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::{Client, Config};

pub use crate::error::ClusterError;
use crate::render::{INSTANCE_LABEL, Manifests};

fn one_line(s: impl std::fmt::Display) -> String {
    s.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A connection to the cluster and the namespace to work in.
pub struct Cluster {
    client: Client,
    pub namespace: String,
}

/// Connects as kubectl would. `namespace`: the objects' own, else the
/// kubeconfig context's (or the service account's), else `default`.
pub async fn connect(namespace: Option<&str>) -> Result<Cluster, ClusterError> {
    // The TLS stack uses ring, as the rest of loadlab.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let config = Config::infer()
        .await
        .map_err(|e| ClusterError::NoConfig(one_line(e)))?;
    let client = Client::try_from(config).map_err(|e| ClusterError::NoConfig(one_line(e)))?;
    let namespace = namespace
        .map(str::to_string)
        .unwrap_or_else(|| client.default_namespace().to_string());
    Ok(Cluster { client, namespace })
}

/// What became of the Job's workers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    pub succeeded: Vec<u32>,
    pub failed: Vec<u32>,
    /// Indexes neither succeeded nor failed when following stopped.
    pub unfinished: Vec<u32>,
    /// Why each failed worker failed, as its pod says (exit code, reason,
    /// the last line of its log).
    pub reasons: std::collections::BTreeMap<u32, String>,
}

/// A pod's state in a word: its phase, or why its container waits
/// (`ImagePullBackOff`, `CreateContainerConfigError`: a missing Secret).
fn pod_state(p: &Pod) -> String {
    let status = p.status.as_ref();
    let waiting = status
        .and_then(|s| s.container_statuses.as_ref())
        .and_then(|cs| cs.first())
        .and_then(|c| c.state.as_ref())
        .and_then(|st| st.waiting.as_ref())
        .and_then(|w| w.reason.clone());
    let phase = status
        .and_then(|s| s.phase.clone())
        .unwrap_or_else(|| "Unknown".into());
    match waiting {
        Some(r) if r != "ContainerCreating" => format!("{phase} ({r})"),
        _ => phase,
    }
}

/// Why a pod's container ended badly: `exit code 5: <last log line>`.
fn failure_reason(p: &Pod) -> Option<String> {
    let t = p
        .status
        .as_ref()?
        .container_statuses
        .as_ref()?
        .first()?
        .state
        .as_ref()?
        .terminated
        .clone()?;
    if t.exit_code == 0 {
        return None;
    }
    let mut r = format!("exit code {}", t.exit_code);
    if let Some(reason) = t.reason.filter(|r| r != "Error") {
        r += &format!(" ({reason})");
    }
    if let Some(m) = t.message
        && let Some(last) = m.lines().rev().find(|l| !l.trim().is_empty())
    {
        r += &format!(": {}", last.trim());
    }
    Some(r)
}

fn pod_index(p: &Pod) -> Option<u32> {
    p.metadata
        .annotations
        .as_ref()?
        .get(crate::render::INDEX_ANNOTATION)?
        .parse()
        .ok()
}

impl Cluster {
    /// Applies the ConfigMap, the Secret if any, then the Job (server-side
    /// apply).
    pub async fn apply(&self, m: &Manifests) -> Result<(), ClusterError> {
        let pp = PatchParams::apply("loadlab").force();
        let cms: Api<ConfigMap> = Api::namespaced(self.client.clone(), &self.namespace);
        let mut cm = m.config_map.clone();
        cm.metadata.namespace = Some(self.namespace.clone());
        let name = cm.metadata.name.clone().unwrap_or_default();
        cms.patch(&name, &pp, &Patch::Apply(&cm))
            .await
            .map_err(|e| {
                ClusterError::Api(one_line(format!("cannot apply ConfigMap {name}: {e}")))
            })?;
        if let Some(secret) = &m.secret {
            let secrets: Api<Secret> = Api::namespaced(self.client.clone(), &self.namespace);
            let mut secret = secret.clone();
            secret.metadata.namespace = Some(self.namespace.clone());
            let name = secret.metadata.name.clone().unwrap_or_default();
            secrets
                .patch(&name, &pp, &Patch::Apply(&secret))
                .await
                .map_err(|e| {
                    ClusterError::Api(one_line(format!("cannot apply Secret {name}: {e}")))
                })?;
        }
        let jobs: Api<Job> = Api::namespaced(self.client.clone(), &self.namespace);
        let mut job = m.job.clone();
        job.metadata.namespace = Some(self.namespace.clone());
        let name = job.metadata.name.clone().unwrap_or_default();
        jobs.patch(&name, &pp, &Patch::Apply(&job))
            .await
            .map_err(|e| ClusterError::Api(one_line(format!("cannot apply Job {name}: {e}"))))?;
        Ok(())
    }

    /// Polls the Job (every 2 s) until it has finished or `limit` has
    /// passed; `say` gets one line per change (pods pending, running,
    /// finished).
    pub async fn follow(
        &self,
        name: &str,
        workers: u32,
        limit: Option<Duration>,
        mut say: impl FnMut(&str),
    ) -> Result<Outcome, ClusterError> {
        let jobs: Api<Job> = Api::namespaced(self.client.clone(), &self.namespace);
        let pods: Api<Pod> = Api::namespaced(self.client.clone(), &self.namespace);
        let started = Instant::now();
        let mut last = String::new();
        loop {
            let job = jobs
                .get(name)
                .await
                .map_err(|e| ClusterError::Api(one_line(format!("cannot read Job {name}: {e}"))))?;
            let status = job.status.unwrap_or_default();
            let done_indexes = parse_indexes(status.completed_indexes.as_deref().unwrap_or(""));
            let failed_indexes = parse_indexes(status.failed_indexes.as_deref().unwrap_or(""));
            let finished = status
                .conditions
                .iter()
                .flatten()
                .any(|c| c.status == "True" && (c.type_ == "Complete" || c.type_ == "Failed"));
            let list = pods
                .list(&ListParams::default().labels(&format!("{INSTANCE_LABEL}={name}")))
                .await
                .map_err(|e| ClusterError::Api(one_line(format!("cannot list pods: {e}"))))?;
            let mut phases = std::collections::BTreeMap::<String, u32>::new();
            let mut reasons = std::collections::BTreeMap::new();
            for p in &list.items {
                *phases.entry(pod_state(p)).or_default() += 1;
                if let (Some(i), Some(r)) = (pod_index(p), failure_reason(p)) {
                    reasons.insert(i, r);
                }
            }
            let line = format!(
                "Job {name}: {} of {workers} workers done, {} failed; pods: {}",
                done_indexes.len(),
                failed_indexes.len(),
                if phases.is_empty() {
                    "none yet".to_string()
                } else {
                    phases
                        .iter()
                        .map(|(k, v)| format!("{v} {k}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            );
            if line != last {
                say(&line);
                last = line;
            }
            let all = done_indexes.len() + failed_indexes.len() >= workers as usize;
            if finished || all {
                let unfinished = (0..workers)
                    .filter(|i| !done_indexes.contains(i) && !failed_indexes.contains(i))
                    .collect();
                return Ok(Outcome {
                    succeeded: done_indexes,
                    failed: failed_indexes,
                    unfinished,
                    reasons,
                });
            }
            if let Some(l) = limit
                && started.elapsed() > l
            {
                return Err(ClusterError::Timeout {
                    name: name.to_string(),
                    waited: started.elapsed(),
                });
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
    }
}

/// The Job status' index sets: `"0,2-4,7"` → `[0, 2, 3, 4, 7]`.
pub fn parse_indexes(s: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    out.extend(a..=b.min(a.saturating_add(1_000_000)));
                }
            }
            None => {
                if let Ok(a) = part.parse() {
                    out.push(a);
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: serde_json::Value) -> Pod {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn pods_say_why_they_wait_or_failed() {
        // As the API server returns them.
        let pulling = pod(serde_json::json!({
            "metadata": {"name": "j-0-abc", "annotations": {"batch.kubernetes.io/job-completion-index": "0"}},
            "status": {"phase": "Pending", "containerStatuses": [{
                "name": "loadlab", "image": "x", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}}]}
        }));
        assert_eq!(pod_state(&pulling), "Pending (ImagePullBackOff)");
        assert_eq!(failure_reason(&pulling), None);
        let failed = pod(serde_json::json!({
            "metadata": {"name": "j-2-xyz", "annotations": {"batch.kubernetes.io/job-completion-index": "2"}},
            "status": {"phase": "Failed", "containerStatuses": [{
                "name": "loadlab", "image": "x", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"terminated": {"exitCode": 5, "reason": "Error",
                    "message": "loadlab: warning: x\nloadlab: cannot write to s3://b/k: NoSuchBucket\n"}}}]}
        }));
        assert_eq!(pod_state(&failed), "Failed");
        assert_eq!(pod_index(&failed), Some(2));
        assert_eq!(
            failure_reason(&failed).as_deref(),
            Some("exit code 5: loadlab: cannot write to s3://b/k: NoSuchBucket")
        );
        let oom = pod(serde_json::json!({
            "metadata": {"name": "j-1"},
            "status": {"phase": "Failed", "containerStatuses": [{
                "name": "loadlab", "image": "x", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled"}}}]}
        }));
        assert_eq!(
            failure_reason(&oom).as_deref(),
            Some("exit code 137 (OOMKilled)")
        );
    }

    #[test]
    fn index_sets_as_the_job_status_writes_them() {
        assert_eq!(parse_indexes(""), Vec::<u32>::new());
        assert_eq!(parse_indexes("0,2-4,7"), vec![0, 2, 3, 4, 7]);
        assert_eq!(parse_indexes("3"), vec![3]);
    }
}
