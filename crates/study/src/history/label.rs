//! The default label of a study: the git commit of the current directory.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The short hash of the commit checked out in the current directory, with
/// `-dirty` when tracked files are modified; empty outside a git work tree
/// (or without git), and the study is then named by its start time.
pub fn default_label() -> String {
    let Some(head) = git(&["rev-parse", "--short", "HEAD"]).filter(|h| !h.is_empty()) else {
        return String::new();
    };
    match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(s) if !s.is_empty() => format!("{head}-dirty"),
        _ => head,
    }
}
