//! The environment a study ran in: recorded with every study so a report
//! says which machine, kernel and loadlab build produced the numbers.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Environment {
    pub host: String,
    pub cpu_model: String,
    pub cores: usize,
    pub kernel: String,
    pub loadlab_version: String,
    pub git_revision: String,
    /// A split study's worker (`study --segment=i/n`): its segment, start
    /// and slack.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker: Option<crate::worker::WorkerStudy>,
    /// A merged study (`study merge`): the workers it was merged from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<crate::worker::WorkerStudy>,
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

impl Environment {
    /// Captures the current machine. `git_revision` comes from the build
    /// (`LOADLAB_GIT_REV` at compile time) or, failing that, `git` in the cwd.
    pub fn capture() -> Environment {
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let git_revision = option_env!("LOADLAB_GIT_REV")
            .map(str::to_string)
            .unwrap_or_else(|| {
                std::process::Command::new("git")
                    .args(["rev-parse", "--short", "HEAD"])
                    .output()
                    .ok()
                    .filter(|o| o.status.success())
                    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
                    .unwrap_or_else(|| "unknown".into())
            });
        Environment {
            host: read("/proc/sys/kernel/hostname"),
            cpu_model,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            kernel: format!(
                "{} {}",
                read("/proc/sys/kernel/ostype"),
                read("/proc/sys/kernel/osrelease")
            ),
            loadlab_version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision,
            worker: None,
            merged_from: Vec::new(),
        }
    }
}
