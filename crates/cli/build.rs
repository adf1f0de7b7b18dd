//! Records the git commit loadlab is built from (`LOADLAB_BUILD_REV`): a
//! study's environment and `loadlab --version` name it. Not a git checkout
//! (a source tarball, `cargo install` from a registry): "unknown".
//! `LOADLAB_GIT_REV` set at build time (the Dockerfile) wins.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
        .filter(|s| !s.is_empty())
}

fn main() {
    println!("cargo:rerun-if-env-changed=LOADLAB_GIT_REV");
    // A new commit or checkout changes HEAD or the ref it points to.
    // (Only files that exist: cargo reruns a script whose watched file is
    // missing on every build.)
    let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watch.push(r);
    }
    for path in watch {
        if let Some(p) = git(&["rev-parse", "--path-format=absolute", "--git-path", &path])
            && std::path::Path::new(&p).exists()
        {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    let rev = std::env::var("LOADLAB_GIT_REV")
        .ok()
        .filter(|r| !r.trim().is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=LOADLAB_BUILD_REV={rev}");
}
