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

/// The commit the running binary was built from, set once by the binary.
static BUILD_REVISION: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Records the commit this binary was built from (the CLI's build script
/// finds it), for every study's environment. The first call wins.
pub fn set_build_revision(rev: &str) {
    let _ = BUILD_REVISION.set(rev.to_string());
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path)
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

impl Environment {
    /// Captures the current machine. `git_revision` is the commit the
    /// binary was built from ([`set_build_revision`]), never the current
    /// folder's: "unknown" when the build did not record one.
    pub fn capture() -> Environment {
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .unwrap_or_else(|| std::env::consts::ARCH.to_string());
        let git_revision = BUILD_REVISION
            .get()
            .cloned()
            .unwrap_or_else(|| "unknown".into());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_revision_is_the_builds_never_the_current_folders() {
        // This test runs inside a git checkout; the library records no
        // build of its own, so it must not read the folder's commit.
        assert_eq!(Environment::capture().git_revision, "unknown");
        set_build_revision("0123456789ab");
        assert_eq!(Environment::capture().git_revision, "0123456789ab");
    }
}
