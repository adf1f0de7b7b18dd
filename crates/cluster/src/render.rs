//! The Kubernetes objects of one distributed attack, typed (k8s-openapi) and
//! serialized: a ConfigMap with the attack's input files and an Indexed Job
//! whose pod i runs segment i of n.
//!
//! Choices, and why:
//! * `completionMode: Indexed`, `parallelism = completions = n`: the Job
//!   controller gives each pod its index in `JOB_COMPLETION_INDEX`; the env
//!   var is also declared in the template (from the pod's
//!   `batch.kubernetes.io/job-completion-index` annotation) so that `$(…)`
//!   expansion in the args never depends on the controller's injection;
//! * `backoffLimitPerIndex: 0`, `maxFailedIndexes: n`, `restartPolicy:
//!   Never`: a worker that dies is not retried — a retry would start its
//!   segment late and send its requests at the wrong instants — and the
//!   other workers go on (a Job-wide `backoffLimit: 0` would delete them);
//!   the dead worker's share is then reported missing by the merge;
//! * the start instant is absolute (`-start-at`), so pods scheduled at
//!   different moments still start together;
//! * S3 credentials come from a Secret (`envFrom`, optional so that
//!   workload identity works without one); a plan's literal credentials go
//!   into a Secret of their own ([`crate::plan`]), never the ConfigMap.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Capabilities, ConfigMap, ConfigMapVolumeSource, Container, EnvFromSource, EnvVar, EnvVarSource,
    KeyToPath, ObjectFieldSelector, PersistentVolumeClaimVolumeSource, PodSpec, PodTemplateSpec,
    ResourceRequirements, SeccompProfile, Secret, SecretEnvSource, SecurityContext,
    TopologySpreadConstraint, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};

pub use crate::error::RenderError;
use crate::flags::{INPUT_DIR, PreparedFlags};

/// Where the pods' results go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Results {
    /// `s3://bucket/prefix`: each worker uploads `prefix/NAME/worker-I.bin`.
    S3 { bucket: String, prefix: String },
    /// `pvc:CLAIM`: a ReadWriteMany claim mounted at `/results` in every pod;
    /// each worker writes `/results/NAME-worker-I.bin`.
    Pvc { claim: String },
}

/// Mount point of the results volume (`pvc:`).
pub const RESULTS_DIR: &str = "/results";

impl Results {
    /// `s3://bucket[/prefix]` or `pvc:CLAIM`.
    pub fn parse(s: &str) -> Result<Results, RenderError> {
        if let Some(rest) = s.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(RenderError::Flag(format!(
                    "--results {s:?}: no bucket; expected s3://BUCKET/PREFIX"
                )));
            }
            return Ok(Results::S3 {
                bucket: bucket.to_string(),
                prefix: prefix.trim_matches('/').to_string(),
            });
        }
        if let Some(claim) = s.strip_prefix("pvc:") {
            check_name(claim, "--results pvc:CLAIM")?;
            return Ok(Results::Pvc {
                claim: claim.to_string(),
            });
        }
        Err(RenderError::Flag(format!(
            "--results {s:?}: expected s3://BUCKET/PREFIX or pvc:CLAIM"
        )))
    }

    /// Where the worker files of the Job `name` land: `s3://bucket/prefix/name/`
    /// (what `loadlab report` and `k8s run` list), or `/results/` in the pods.
    pub fn location(&self, name: &str) -> String {
        match self {
            Results::S3 { bucket, prefix } if prefix.is_empty() => {
                format!("s3://{bucket}/{name}/")
            }
            Results::S3 { bucket, prefix } => format!("s3://{bucket}/{prefix}/{name}/"),
            Results::Pvc { .. } => format!("{RESULTS_DIR}/"),
        }
    }

    /// A worker's `-output`, with `$(JOB_COMPLETION_INDEX)` for the kubelet
    /// to expand. On a volume the files sit side by side (`NAME-worker-I.bin`)
    /// so that no worker needs a folder made first.
    pub fn worker_output(&self, name: &str) -> String {
        match self {
            Results::S3 { .. } => {
                format!("{}worker-$(JOB_COMPLETION_INDEX).bin", self.location(name))
            }
            Results::Pvc { .. } => {
                format!("{RESULTS_DIR}/{name}-worker-$(JOB_COMPLETION_INDEX).bin")
            }
        }
    }
}

/// Everything a render needs, validated.
#[derive(Debug, Clone)]
pub struct RenderSpec {
    /// The Job's name; the ConfigMap is `NAME-input`.
    pub name: String,
    pub namespace: Option<String>,
    pub image: String,
    pub workers: u32,
    /// The start instant, ns since the Unix epoch (whole seconds).
    pub start_at_unix_ns: i128,
    pub results: Results,
    /// The Secret whose keys (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
    /// AWS_REGION, AWS_ENDPOINT_URL, …) become the workers' environment.
    pub s3_secret: String,
    /// A non-secret S3 endpoint (`AWS_ENDPOINT_URL`), e.g. a MinIO service.
    pub s3_endpoint: Option<String>,
    /// Further Secrets whose keys become env vars, for `$(VAR)` in flags.
    pub secret_env: Vec<String>,
    /// CPU request and limit of each worker (one core: the attack's runtime
    /// is single-threaded).
    pub cpu: String,
    pub memory: String,
    /// How long the attack lasts, if known (bounds the Job's deadline).
    pub attack_duration: Option<Duration>,
    /// Now, ns since the Unix epoch (for the deadline).
    pub now_unix_ns: i128,
    pub flags: PreparedFlags,
}

/// The objects, typed: the ConfigMap, a Secret when some input file holds
/// credentials (a plan's, see [`crate::plan`]), and the Job.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifests {
    pub config_map: ConfigMap,
    pub secret: Option<Secret>,
    pub job: Job,
}

/// A DNS-1123 label (Job, ConfigMap, Secret and claim names).
pub fn check_name(name: &str, what: &str) -> Result<(), RenderError> {
    let ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(RenderError::Flag(format!(
            "{what} {name:?}: a Kubernetes name is 1-63 lowercase letters, digits and '-', starting and ending with a letter or digit"
        )))
    }
}

pub const APP_LABEL: &str = "app.kubernetes.io/name";
pub const INSTANCE_LABEL: &str = "app.kubernetes.io/instance";
/// The annotation the Job controller sets on each pod of an Indexed Job.
pub const INDEX_ANNOTATION: &str = "batch.kubernetes.io/job-completion-index";

fn labels(name: &str) -> BTreeMap<String, String> {
    BTreeMap::from([
        (APP_LABEL.to_string(), "loadlab".to_string()),
        (INSTANCE_LABEL.to_string(), name.to_string()),
    ])
}

impl RenderSpec {
    /// The worker's command line: `loadlab attack -segment=$(JOB_COMPLETION_INDEX)/N …`
    /// (or, for a script, [`RenderSpec::script_worker_args`]).
    pub fn worker_args(&self) -> Vec<String> {
        if self.is_script() {
            return self.script_worker_args();
        }
        let n = self.workers;
        let output = self.results.worker_output(&self.name);
        let start = loadlab_metrics::timefmt::rfc3339(self.start_at_unix_ns);
        let mut args = vec![
            "attack".to_string(),
            format!("-segment=$(JOB_COMPLETION_INDEX)/{n}"),
            format!("-start-at={start}"),
            format!("-output={output}"),
            "-tag=worker=$(JOB_COMPLETION_INDEX)".to_string(),
            "-quiet".to_string(),
        ];
        args.extend(self.flags.args.iter().cloned());
        args
    }

    /// A k6 script's workers (`-- k6 run [k6 flags] script.js`, see
    /// [`crate::script::prepare_script_flags`]) rather than an attack's.
    pub fn is_script(&self) -> bool {
        self.flags.args.first().is_some_and(|a| a == "k6")
    }

    /// A script worker's command line: `loadlab k6 run
    /// --execution-segment-index $(JOB_COMPLETION_INDEX)/N --start-at T
    /// --out loadlab=… …`: segment I of N equal ones (k6's segment
    /// `I/N:(I+1)/N` of the sequence `0,1/N,…,1`; the kubelet's `$(…)`
    /// expansion cannot compute `I+1`, hence loadlab's shorthand).
    pub fn script_worker_args(&self) -> Vec<String> {
        let n = self.workers;
        let output = self.results.worker_output(&self.name);
        let start = loadlab_metrics::timefmt::rfc3339(self.start_at_unix_ns);
        let mut args = vec![
            "k6".to_string(),
            "run".to_string(),
            format!("--execution-segment-index=$(JOB_COMPLETION_INDEX)/{n}"),
            format!("--start-at={start}"),
            format!("--out=loadlab={output}"),
            "--tag=worker=$(JOB_COMPLETION_INDEX)".to_string(),
        ];
        if !self.flags.args.iter().any(|a| a == "-q" || a == "--quiet") {
            args.push("--quiet".to_string());
        }
        args.extend(self.flags.args.iter().skip(2).cloned());
        args
    }

    pub fn render(&self) -> Result<Manifests, RenderError> {
        self.check()?;
        let input = format!("{}-input", self.name);
        let (config_map, items) = self.config_map(&input);
        let (env, env_from, mounts, volumes) = self.env_and_volumes(&input, items)?;
        let container = self.container(env, env_from, mounts);
        let pod = self.pod_spec(container, volumes);
        let job = self.job(pod);
        Ok(Manifests {
            config_map,
            secret: None,
            job,
        })
    }

    /// The names, the worker count and the resource quantities.
    fn check(&self) -> Result<(), RenderError> {
        check_name(&self.name, "--name")?;
        if let Some(ns) = &self.namespace {
            check_name(ns, "--namespace")?;
        }
        check_name(&self.s3_secret, "--s3-secret")?;
        if self.workers == 0 || self.workers > 100_000 {
            return Err(RenderError::Flag(format!(
                "--workers {}: expected 1 to 100000",
                self.workers
            )));
        }
        for q in [&self.cpu, &self.memory] {
            if q.is_empty() || !q.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'.') {
                return Err(RenderError::Flag(format!(
                    "resource quantity {q:?}: expected e.g. 1, 500m, 256Mi"
                )));
            }
        }
        Ok(())
    }

    pub(crate) fn meta(&self, name: &str) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.to_string()),
            namespace: self.namespace.clone(),
            labels: Some(labels(&self.name)),
            ..Default::default()
        }
    }

    /// The ConfigMap `input` of the flags' files, and the volume's `items`
    /// when the files sit at paths.
    fn config_map(&self, input: &str) -> (ConfigMap, Option<Vec<KeyToPath>>) {
        let mut data = BTreeMap::new();
        let mut binary = BTreeMap::new();
        // Files at paths (a script's `lib/util.js`, `../data/x.csv` made
        // relative to their common folder): a ConfigMap key cannot hold a
        // '/', so each gets a key of its own and the volume's `items` put
        // it back at its path.
        let mut items: Option<Vec<KeyToPath>> = None;
        let mut files: Vec<(String, &Vec<u8>)> = Vec::new();
        if self.flags.files.keys().any(|k| k.contains('/')) {
            let mut list = Vec::new();
            for (n, (path, v)) in self.flags.files.iter().enumerate() {
                let base = path.rsplit('/').next().unwrap_or(path);
                let clean: String = base
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || "-._".contains(c) {
                            c
                        } else {
                            '_'
                        }
                    })
                    .take(200)
                    .collect();
                let key = format!("f{n}-{clean}");
                list.push(KeyToPath {
                    key: key.clone(),
                    path: path.clone(),
                    mode: None,
                });
                files.push((key, v));
            }
            items = Some(list);
        } else {
            files.extend(self.flags.files.iter().map(|(k, v)| (k.clone(), v)));
        }
        for (k, v) in files {
            match String::from_utf8(v.clone()) {
                Ok(s) => {
                    data.insert(k.clone(), s);
                }
                Err(_) => {
                    binary.insert(k.clone(), ByteString(v.clone()));
                }
            }
        }
        let config_map = ConfigMap {
            metadata: self.meta(input),
            data: (!data.is_empty()).then_some(data),
            binary_data: (!binary.is_empty()).then_some(binary),
            immutable: Some(true),
        };

        (config_map, items)
    }

    /// The container's environment and mounts and the pod's volumes.
    #[allow(clippy::type_complexity)]
    fn env_and_volumes(
        &self,
        input: &str,
        items: Option<Vec<KeyToPath>>,
    ) -> Result<
        (
            Vec<EnvVar>,
            Vec<EnvFromSource>,
            Vec<VolumeMount>,
            Vec<Volume>,
        ),
        RenderError,
    > {
        let mut env = vec![EnvVar {
            name: "JOB_COMPLETION_INDEX".into(),
            value_from: Some(EnvVarSource {
                field_ref: Some(ObjectFieldSelector {
                    field_path: format!("metadata.annotations['{INDEX_ANNOTATION}']"),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }];
        let mut env_from = Vec::new();
        let mut mounts = vec![VolumeMount {
            name: "input".into(),
            mount_path: INPUT_DIR.into(),
            read_only: Some(true),
            ..Default::default()
        }];
        let mut volumes = vec![Volume {
            name: "input".into(),
            config_map: Some(ConfigMapVolumeSource {
                name: input.to_string(),
                items,
                ..Default::default()
            }),
            ..Default::default()
        }];
        match &self.results {
            Results::S3 { .. } => {
                env_from.push(EnvFromSource {
                    secret_ref: Some(SecretEnvSource {
                        name: self.s3_secret.clone(),
                        optional: Some(true),
                    }),
                    ..Default::default()
                });
                if let Some(ep) = &self.s3_endpoint {
                    env.push(EnvVar {
                        name: "AWS_ENDPOINT_URL".into(),
                        value: Some(ep.clone()),
                        ..Default::default()
                    });
                }
            }
            Results::Pvc { claim } => {
                mounts.push(VolumeMount {
                    name: "results".into(),
                    mount_path: RESULTS_DIR.into(),
                    ..Default::default()
                });
                volumes.push(Volume {
                    name: "results".into(),
                    persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                        claim_name: claim.clone(),
                        read_only: Some(false),
                    }),
                    ..Default::default()
                });
            }
        }
        for s in &self.secret_env {
            check_name(s, "--secret-env")?;
            env_from.push(EnvFromSource {
                secret_ref: Some(SecretEnvSource {
                    name: s.clone(),
                    optional: Some(false),
                }),
                ..Default::default()
            });
        }
        Ok((env, env_from, mounts, volumes))
    }

    /// The worker's container.
    fn container(
        &self,
        env: Vec<EnvVar>,
        env_from: Vec<EnvFromSource>,
        mounts: Vec<VolumeMount>,
    ) -> Container {
        let quantity = |q: &str| Quantity(q.to_string());
        let resources = ResourceRequirements {
            requests: Some(BTreeMap::from([
                ("cpu".to_string(), quantity(&self.cpu)),
                ("memory".to_string(), quantity(&self.memory)),
            ])),
            limits: Some(BTreeMap::from([
                ("cpu".to_string(), quantity(&self.cpu)),
                ("memory".to_string(), quantity(&self.memory)),
            ])),
            ..Default::default()
        };
        Container {
            name: "loadlab".into(),
            image: Some(self.image.clone()),
            image_pull_policy: Some("IfNotPresent".into()),
            command: Some(vec!["loadlab".into()]),
            args: Some(self.worker_args()),
            env: Some(env),
            env_from: (!env_from.is_empty()).then_some(env_from),
            volume_mounts: Some(mounts),
            resources: Some(resources),
            // A worker that fails leaves its last log lines (loadlab's
            // one-line error) as the termination message `k8s run` prints.
            termination_message_policy: Some("FallbackToLogsOnError".into()),
            // What the "restricted" Pod Security Standard asks, so that the
            // Job runs in namespaces that enforce it; the image's user is
            // not root (uid 10001 in the Dockerfile).
            security_context: Some(SecurityContext {
                allow_privilege_escalation: Some(false),
                capabilities: Some(Capabilities {
                    drop: Some(vec!["ALL".into()]),
                    ..Default::default()
                }),
                run_as_non_root: Some(true),
                seccomp_profile: Some(SeccompProfile {
                    type_: "RuntimeDefault".into(),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// The pod of each worker.
    fn pod_spec(&self, container: Container, volumes: Vec<Volume>) -> PodSpec {
        PodSpec {
            restart_policy: Some("Never".into()),
            // Workers never talk to the API server.
            automount_service_account_token: Some(false),
            // SIGTERM ends the attack; the results are then closed and
            // uploaded, which needs some seconds.
            termination_grace_period_seconds: Some(60),
            // One worker per node where possible: co-located workers share
            // a NIC and CPU caches and skew each other's latencies.
            topology_spread_constraints: Some(vec![TopologySpreadConstraint {
                max_skew: 1,
                topology_key: "kubernetes.io/hostname".into(),
                when_unsatisfiable: "ScheduleAnyway".into(),
                label_selector: Some(LabelSelector {
                    match_labels: Some(labels(&self.name)),
                    ..Default::default()
                }),
                ..Default::default()
            }]),
            containers: vec![container],
            volumes: Some(volumes),
            ..Default::default()
        }
    }

    /// The Indexed Job around the pod.
    fn job(&self, pod: PodSpec) -> Job {
        let n = i32::try_from(self.workers).unwrap_or(i32::MAX);
        // Until the start, the attack, then 5 minutes for stragglers and
        // uploads; an attack of unknown length has no deadline.
        let deadline = self.attack_duration.map(|d| {
            let wait = ((self.start_at_unix_ns - self.now_unix_ns).max(0) / 1_000_000_000) as i64;
            wait + d.as_secs() as i64 + 300
        });
        Job {
            metadata: self.meta(&self.name),
            spec: Some(JobSpec {
                completion_mode: Some("Indexed".into()),
                completions: Some(n),
                parallelism: Some(n),
                backoff_limit_per_index: Some(0),
                max_failed_indexes: Some(n),
                active_deadline_seconds: deadline,
                template: PodTemplateSpec {
                    metadata: Some(ObjectMeta {
                        labels: Some(labels(&self.name)),
                        ..Default::default()
                    }),
                    spec: Some(pod),
                },
                ..Default::default()
            }),
            status: None,
        }
    }
}

impl Manifests {
    /// Multi-document YAML, ConfigMap and Secret first (the Job mounts
    /// them).
    pub fn to_yaml(&self) -> Result<String, RenderError> {
        let cm = serde_norway::to_string(&self.config_map)
            .map_err(|e| RenderError::Yaml(e.to_string()))?;
        let secret = match &self.secret {
            Some(s) => {
                let s = serde_norway::to_string(s).map_err(|e| RenderError::Yaml(e.to_string()))?;
                format!("---\n{s}")
            }
            None => String::new(),
        };
        let job =
            serde_norway::to_string(&self.job).map_err(|e| RenderError::Yaml(e.to_string()))?;
        Ok(format!("---\n{cm}{secret}---\n{job}"))
    }
}
