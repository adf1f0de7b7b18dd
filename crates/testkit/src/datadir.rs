//! Database data directories made once and copied for each server.
//!
//! A fresh data directory is a bootstrap: `mariadb-install-db` or
//! `initdb`, about 4 s on a 2-core machine, and the SQL tests start some
//! forty private servers one after the other. The first server of a
//! machine makes a *template* (the same bootstrap, once) under the
//! temporary directory, named by the server program's size and time and
//! the bootstrap's arguments; every server after it starts from a copy
//! (`cp -a`, ownership kept: about 0.3 s). A template is complete or
//! absent: it is made under a name of its own and renamed into place, so
//! processes racing to make one each keep the first that landed. The name
//! also holds the week: a template is at most a week old (younger than
//! what a cleaner of old temporary files removes), and making the next
//! one removes the others of its kind.

use std::ffi::OsStr;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::proc::BoundedOutput;

/// Copies `kind`'s template data directory to `dest` (which must not
/// exist), making the template first if this machine has none:
/// `make(dir)` bootstraps a data directory at `dir/data` (`dir` exists,
/// empty, and may be handed to another user first). `key` names what
/// makes the template different (the program, its arguments).
pub(crate) fn copy_template(
    kind: &str,
    key: &[&OsStr],
    dest: &Path,
    make: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let template = template_dir(kind, key);
    if !template.join("ready").exists() {
        make_template(&template, make)?;
    }
    let out = Command::new("cp")
        .arg("-a")
        .arg("--reflink=auto")
        .arg(template.join("data"))
        .arg(dest)
        .output_bounded()
        .map_err(|e| format!("cp: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "copying {} to {}: {}",
            template.display(),
            dest.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}

/// `$TMPDIR/loadlab-test-KIND-HASH-UID`: HASH covers the key's parts and,
/// for each part that is a file (the server program), its size and time;
/// and the week.
fn template_dir(kind: &str, key: &[&OsStr]) -> PathBuf {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let week = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() / (7 * 86_400));
    week.hash(&mut h);
    for part in key {
        part.hash(&mut h);
        if let Ok(m) = std::fs::metadata(part) {
            m.len().hash(&mut h);
            m.modified().ok().hash(&mut h);
        }
    }
    let uid = std::fs::metadata("/proc/self").map_or(0, |m| {
        use std::os::unix::fs::MetadataExt;
        m.uid()
    });
    std::env::temp_dir().join(format!("loadlab-test-{kind}-{:016x}-{uid}", h.finish()))
}

fn make_template(
    template: &Path,
    make: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    let parent = template.parent().ok_or("no temporary directory")?;
    let name = template
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("a template's name")?;
    let building = tempfile::Builder::new()
        .prefix(&format!("{name}.making-"))
        .tempdir_in(parent)
        .map_err(|e| e.to_string())?;
    make(building.path())?;
    std::fs::write(building.path().join("ready"), b"").map_err(|e| e.to_string())?;
    let building = building.keep();
    if std::fs::rename(&building, template).is_err() {
        // Another process made one meanwhile: keep theirs.
        let _ = std::fs::remove_dir_all(&building);
        if !template.join("ready").exists() {
            return Err(format!("{} could not be made", template.display()));
        }
        return Ok(());
    }
    // The same kind's older templates (another week, another program),
    // and any left half made by a process killed an hour ago or more.
    let (kind, uid) = name
        .rsplit_once('-')
        .and_then(|(head, uid)| Some((head.rsplit_once('-')?.0, uid)))
        .ok_or("a template's name")?;
    for e in std::fs::read_dir(parent).into_iter().flatten().flatten() {
        let other = e.file_name();
        let other = other.to_string_lossy();
        let abandoned = other.contains(".making-")
            && e.metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age.as_secs() >= 3600);
        let older =
            other != name && !other.contains(".making-") && other.ends_with(&format!("-{uid}"));
        if other.starts_with(&format!("{kind}-")) && (older || abandoned) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    Ok(())
}
