//! Checks over the whole workspace's manifests and sources.
//!
//! `every_declared_dependency_is_used`: each dependency a crate declares
//! (normal, dev or build) is named somewhere in that crate's Rust sources,
//! as `cargo machete` finds it (the same method: a `name::` path, a
//! `use name`, an `extern crate name`, with `-` read as `_`), and
//! honouring the same `[package.metadata.cargo-machete] ignored` lists (a
//! dependency declared for its features only, or whose library has another
//! name, such as md-5's `md5`). An unused dependency costs every build its
//! compile time.

use loadlab_testkit::proc::BoundedOutput;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// `cargo metadata` of the workspace's own packages (no resolution: it
/// neither reads nor writes Cargo.lock).
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output_bounded()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Every `.rs` file under `dir`, outside `target/`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_files(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// True when `text` names the crate `lib` (`lib::`, `use lib`, `extern
/// crate lib`) as a whole word.
fn names(text: &str, lib: &str) -> bool {
    text.match_indices(lib).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return false;
        }
        let after = &text[i + lib.len()..];
        let prefix = text[..i].trim_end();
        after.starts_with("::")
            || ((prefix.ends_with("use") || prefix.ends_with("extern crate"))
                && after.starts_with([';', ' ', '{']))
    })
}

#[test]
fn every_declared_dependency_is_used() {
    let meta = metadata();
    let mut unused = Vec::new();
    for p in meta["packages"].as_array().unwrap() {
        let manifest = PathBuf::from(p["manifest_path"].as_str().unwrap());
        let mut files = Vec::new();
        rust_files(manifest.parent().unwrap(), &mut files);
        let text: String = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let ignored: Vec<&str> = p["metadata"]["cargo-machete"]["ignored"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for d in p["dependencies"].as_array().unwrap() {
            let name = d["name"].as_str().unwrap();
            if ignored.contains(&name) {
                continue;
            }
            let lib = d["rename"].as_str().unwrap_or(name).replace('-', "_");
            if !names(&text, &lib) {
                unused.push(format!(
                    "{}: {name} ({})",
                    manifest.display(),
                    d["kind"].as_str().unwrap_or("normal")
                ));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared and never used (remove them, or list them in \
         [package.metadata.cargo-machete] ignored with the reason):\n{}",
        unused.join("\n")
    );
}

#[test]
fn the_dependency_check_sees_what_it_must() {
    assert!(names("use serde_json::Value;", "serde_json"));
    assert!(names("let v = md5::Md5::digest(b);", "md5"));
    assert!(names("use tempfile;", "tempfile"));
    assert!(names("extern crate libc;", "libc"));
    assert!(!names("use my_serde_json::Value;", "serde_json"));
    assert!(!names("// serde_json is not needed", "serde_json"));
    assert!(!names("let tokio_rt = 1;", "tokio"));
}
