//! The tools a side-by-side test runs a script with: `loadlab k6 run`,
//! then k6 v1.8.1's `run` where it is installed (under `CI` a missing k6
//! fails the test, see `loadlab_testkit::k6::k6_or_skip`).

use std::path::PathBuf;
use std::process::Command;

pub struct Tool {
    /// `loadlab` or `k6`.
    pub name: &'static str,
    k6: Option<PathBuf>,
}

impl Tool {
    /// A new `… run` command of this tool (its script and flags to add).
    pub fn command(&self) -> Command {
        match &self.k6 {
            Some(k6) => loadlab_testkit::k6::run_command(k6),
            None => {
                let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
                c.args(["k6", "run"]);
                c
            }
        }
    }

    /// Runs `… run ARGS` in `dir` and waits for it, at most testkit's
    /// `HANG` (past it the test fails).
    pub fn run_in(&self, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
        let child = self
            .command()
            .current_dir(dir)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        loadlab_testkit::proc::wait_bounded(child, loadlab_testkit::proc::HANG)
    }
}

/// loadlab alone.
pub fn loadlab() -> Tool {
    Tool {
        name: "loadlab",
        k6: None,
    }
}

/// loadlab, then k6 when it is installed (`test` names the test in the
/// note of a skip).
pub fn tools(test: &str) -> Vec<Tool> {
    let mut out = vec![loadlab()];
    if let Some(k6) = loadlab_testkit::k6::k6_or_skip(test) {
        out.push(Tool {
            name: "k6",
            k6: Some(k6),
        });
    }
    out
}
