//! Real k6, for tests that run a script through it side by side with
//! `loadlab k6 run` (layouts, exit codes, what a server receives).

use crate::proc::BoundedOutput;
use std::path::PathBuf;
use std::process::Command;

/// The k6 release the project compares itself with.
pub const VERSION: &str = "v1.8.1";

/// A k6 binary that runs: `$K6`, else `~/go/bin/k6` (where
/// `go install go.k6.io/k6@v1.8.1` puts it), else `k6` on `PATH`.
pub fn k6() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(p) = std::env::var_os("K6") {
        candidates.push(PathBuf::from(p));
    }
    if let Some(home) = std::env::var_os("HOME") {
        candidates.push(PathBuf::from(home).join("go/bin/k6"));
    }
    candidates.push(PathBuf::from("k6"));
    candidates.into_iter().find(|c| {
        Command::new(c)
            .arg("version")
            .output_bounded()
            .is_ok_and(|o| o.status.success())
    })
}

/// [`k6`], or `None` after a loud note that `test` was skipped (under `CI`
/// a missing k6 fails the test instead: see [`crate::need`]).
pub fn k6_or_skip(test: &str) -> Option<PathBuf> {
    let found = k6();
    if found.is_none() {
        crate::need::missing(
            test,
            "k6",
            &format!("set K6, or go install go.k6.io/k6@{VERSION}"),
        );
    }
    found
}

/// A `k6 run` command that stays on this machine: no usage report, and no
/// automatic extension resolution (k6 v1 otherwise asks a remote build
/// service for a binary when a script imports a module it lacks).
pub fn run_command(k6: &std::path::Path) -> Command {
    let mut c = Command::new(k6);
    c.arg("run")
        .arg("--no-usage-report")
        // Its REST API on a port of its own: tests run side by side, and
        // the one that lost the default port logs "Error from API server".
        .args(["--address", "127.0.0.1:0"])
        .env("K6_AUTO_EXTENSION_RESOLUTION", "false")
        .env("K6_NO_USAGE_REPORT", "true");
    c
}
