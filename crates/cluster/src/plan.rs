//! A split study as an Indexed Job (`loadlab k8s render --workers N
//! PLAN.yaml`), beside the attack mode of [`crate::render`]: the plan and
//! the files it names go into the ConfigMap, mounted with their paths
//! relative to the plan kept (so the plan is used as written), and pod `i`
//! runs
//!
//! ```text
//! loadlab study /loadlab/input/PLAN.yaml --segment=$(JOB_COMPLETION_INDEX)/N
//!     --start-at=T --step-slack=S --db STORE --out /loadlab/scratch/report
//! ```
//!
//! where STORE is `s3://BUCKET/PREFIX/NAME/worker-I.db` (the study uploads
//! its store when it ends, or is stopped) or `/results/NAME-worker-I.db` on
//! a shared volume. `loadlab study merge` (or `k8s gather`) merges the
//! stores. A file that holds credentials (marked [`PlanFile::secret`] by
//! the caller) goes into a Secret `NAME-credentials` instead of the
//! ConfigMap, and the input volume projects both. Everything else of the Job — the index, no retries, the
//! resources, the security context — is the attack mode's.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::{
    ConfigMapProjection, EmptyDirVolumeSource, EnvVar, KeyToPath, ProjectedVolumeSource, Secret,
    SecretProjection, Volume, VolumeMount, VolumeProjection,
};

use crate::error::RenderError;
use crate::flags::{CONFIG_MAP_LIMIT, INPUT_DIR, PreparedFlags};
use crate::render::{Manifests, RESULTS_DIR, RenderSpec, Results};

/// A scratch folder of each worker (an `emptyDir`): the study's report, and
/// its store before the upload.
pub const SCRATCH_DIR: &str = "/loadlab/scratch";

/// One file of the ConfigMap: its key and where it is mounted, relative to
/// [`INPUT_DIR`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    pub key: String,
    pub path: String,
    pub data: Vec<u8>,
    /// It holds credentials: it goes into the Secret, not the ConfigMap.
    pub secret: bool,
}

/// The plan and the files it names, as the pods see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedPlan {
    /// The plan's path in the pods, relative to [`INPUT_DIR`].
    pub plan: String,
    pub files: Vec<PlanFile>,
}

/// A ConfigMap key (`[-._a-zA-Z0-9]+`) for the `i`-th file.
fn key_for(i: usize, path: &str) -> String {
    let base: String = Path::new(path)
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(200)
        .collect();
    format!("f{i}-{base}")
}

/// Reads the plan and the files it names (`referenced`: as written in the
/// plan, relative to its folder). A file outside the plan's folder (an
/// absolute path, `..`) cannot be mounted where the plan looks for it and
/// is refused, naming it.
pub fn prepare_plan(plan_path: &Path, referenced: &[PathBuf]) -> Result<PreparedPlan, RenderError> {
    let read = |p: &Path, what: &str| {
        std::fs::read(p).map_err(|err| RenderError::Io {
            what: format!("{what} {}", p.display()),
            err,
        })
    };
    let name = plan_path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| RenderError::Flag(format!("{}: not a plan file", plan_path.display())))?;
    let dir = plan_path.parent().unwrap_or(Path::new(""));
    let mut files = vec![PlanFile {
        key: key_for(0, &name),
        path: name.clone(),
        data: read(plan_path, "plan")?,
        secret: false,
    }];
    for r in referenced {
        let inside = r
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        if !inside {
            return Err(RenderError::Flag(format!(
                "the plan names {}, outside its folder: the pods mount the plan's folder only; copy the file beside the plan and name it relatively",
                r.display()
            )));
        }
        let rel: PathBuf = r
            .components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect();
        let rel = rel.to_string_lossy().into_owned();
        if files.iter().any(|f| f.path == rel) {
            continue;
        }
        let data = read(&dir.join(&rel), "file named by the plan:")?;
        files.push(PlanFile {
            key: key_for(files.len(), &rel),
            path: rel,
            data,
            secret: false,
        });
    }
    let total: usize = files.iter().map(|f| f.data.len()).sum();
    if total > CONFIG_MAP_LIMIT {
        return Err(RenderError::TooLarge { bytes: total });
    }
    Ok(PreparedPlan { plan: name, files })
}

/// Where worker `$(JOB_COMPLETION_INDEX)` keeps its store: uploaded to
/// `s3://…/NAME/worker-I.db`, or written to the volume as
/// `/results/NAME-worker-I.db`.
pub fn worker_store(results: &Results, name: &str) -> String {
    match results {
        Results::S3 { .. } => format!(
            "{}worker-$(JOB_COMPLETION_INDEX).db",
            results.location(name)
        ),
        Results::Pvc { .. } => format!("{RESULTS_DIR}/{name}-worker-$(JOB_COMPLETION_INDEX).db"),
    }
}

/// Everything a plan render needs: the attack mode's spec (its `flags`
/// are ignored: the files are the plan's) and the plan.
#[derive(Debug, Clone)]
pub struct PlanRenderSpec {
    /// Name, namespace, image, workers, start, results, secrets,
    /// resources; `attack_duration` is the whole study's length (the
    /// Job's deadline).
    pub base: RenderSpec,
    pub plan: PreparedPlan,
    /// The study's `--step-slack`.
    pub step_slack: Duration,
}

impl PlanRenderSpec {
    /// `loadlab study /loadlab/input/PLAN --segment=$(JOB_COMPLETION_INDEX)/N …`
    pub fn worker_args(&self) -> Vec<String> {
        let b = &self.base;
        vec![
            "study".to_string(),
            format!("{INPUT_DIR}/{}", self.plan.plan),
            format!("--segment=$(JOB_COMPLETION_INDEX)/{}", b.workers),
            format!(
                "--start-at={}",
                loadlab_metrics::timefmt::rfc3339(b.start_at_unix_ns)
            ),
            format!("--step-slack={}ms", self.step_slack.as_millis()),
            format!("--db={}", worker_store(&b.results, &b.name)),
            format!("--out={SCRATCH_DIR}/report"),
        ]
    }

    /// The Secret of the files that hold credentials: `NAME-credentials`.
    pub fn secret_name(&self) -> String {
        format!("{}-credentials", self.base.name)
    }

    /// The ConfigMap (the plan's files), the Secret (those of them that
    /// hold credentials, if any) and the Indexed Job. With a Secret, the
    /// input volume projects both, each file at its path.
    pub fn render(&self) -> Result<Manifests, RenderError> {
        let (secret_files, public): (Vec<&PlanFile>, Vec<&PlanFile>) =
            self.plan.files.iter().partition(|f| f.secret);
        let mut base = self.base.clone();
        base.flags = PreparedFlags {
            args: Vec::new(),
            files: public
                .iter()
                .map(|f| (f.key.clone(), f.data.clone()))
                .collect::<BTreeMap<_, _>>(),
            warnings: Vec::new(),
        };
        let mut m = base.render()?;
        let args = self.worker_args();
        let items = |files: &[&PlanFile]| -> Option<Vec<KeyToPath>> {
            (!files.is_empty()).then(|| {
                files
                    .iter()
                    .map(|f| KeyToPath {
                        key: f.key.clone(),
                        path: f.path.clone(),
                        ..Default::default()
                    })
                    .collect()
            })
        };
        if !secret_files.is_empty() {
            m.secret = Some(Secret {
                metadata: base.meta(&self.secret_name()),
                data: Some(
                    secret_files
                        .iter()
                        .map(|f| (f.key.clone(), ByteString(f.data.clone())))
                        .collect(),
                ),
                type_: Some("Opaque".into()),
                immutable: Some(true),
                ..Default::default()
            });
        }
        let pod = m
            .job
            .spec
            .as_mut()
            .and_then(|s| s.template.spec.as_mut())
            .ok_or_else(|| RenderError::Yaml("the Job has no pod template".into()))?;
        for v in pod.volumes.iter_mut().flatten() {
            let Some(mut cm) = v.config_map.take() else {
                continue;
            };
            cm.items = items(&public);
            if secret_files.is_empty() {
                v.config_map = Some(cm);
                continue;
            }
            v.projected = Some(ProjectedVolumeSource {
                sources: Some(vec![
                    VolumeProjection {
                        config_map: Some(ConfigMapProjection {
                            name: cm.name,
                            items: cm.items,
                            optional: None,
                        }),
                        ..Default::default()
                    },
                    VolumeProjection {
                        secret: Some(SecretProjection {
                            name: self.secret_name(),
                            items: items(&secret_files),
                            optional: Some(false),
                        }),
                        ..Default::default()
                    },
                ]),
                ..Default::default()
            });
        }
        pod.volumes.get_or_insert_with(Vec::new).push(Volume {
            name: "scratch".into(),
            empty_dir: Some(EmptyDirVolumeSource::default()),
            ..Default::default()
        });
        for c in &mut pod.containers {
            c.args = Some(args.clone());
            // The store is written here before it is uploaded.
            c.env.get_or_insert_with(Vec::new).push(EnvVar {
                name: "TMPDIR".into(),
                value: Some(SCRATCH_DIR.into()),
                ..Default::default()
            });
            c.volume_mounts
                .get_or_insert_with(Vec::new)
                .push(VolumeMount {
                    name: "scratch".into(),
                    mount_path: SCRATCH_DIR.into(),
                    ..Default::default()
                });
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_keep_their_place_beside_the_plan() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("data")).unwrap();
        std::fs::write(d.path().join("plan.yaml"), "name: x\n").unwrap();
        std::fs::write(d.path().join("data/t t.txt"), "GET http://h/\n").unwrap();
        let p = prepare_plan(
            &d.path().join("plan.yaml"),
            &["./data/t t.txt".into(), "data/t t.txt".into()],
        )
        .unwrap();
        assert_eq!(p.plan, "plan.yaml");
        let got: Vec<(&str, &str)> = p
            .files
            .iter()
            .map(|f| (f.key.as_str(), f.path.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("f0-plan.yaml", "plan.yaml"),
                ("f1-t_t.txt", "data/t t.txt")
            ]
        );
        for bad in ["../t.txt", "/etc/hosts"] {
            let e = prepare_plan(&d.path().join("plan.yaml"), &[bad.into()]).unwrap_err();
            assert!(e.to_string().contains("outside its folder"), "{e}");
        }
    }
}
