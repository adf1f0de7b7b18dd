//! A k6 script's command line as a worker pod runs it (`k8s render -- k6
//! run [k6 flags] script.js`): the script, the local modules it imports and
//! the files it `open()`s become ConfigMap entries, and the script argument
//! points at the mounted copy.

use std::path::{Path, PathBuf};

use crate::error::RenderError;
use crate::flags::{CONFIG_MAP_LIMIT, INPUT_DIR, PreparedFlags, read, split_flag};

/// `k6 run` flags the renderer sets itself, with the reason.
const SCRIPT_RENDERER_FLAGS: &[(&str, &str)] = &[
    (
        "execution-segment",
        "each worker's segment comes from its JOB_COMPLETION_INDEX (--workers N)",
    ),
    (
        "execution-segment-sequence",
        "the sequence is N equal segments (--workers N)",
    ),
    (
        "execution-segment-index",
        "each worker's segment comes from its JOB_COMPLETION_INDEX (--workers N)",
    ),
    (
        "start-at",
        "the start instant is render's --start-at or now + --start-delay",
    ),
    (
        "summary-export",
        "the file would stay in the worker's pod; the merged report comes from the results (--results)",
    ),
];

/// `k6 run` flags that take a value (the next token when not `=`-joined).
const SCRIPT_VALUE_FLAGS: &[&str] = &[
    "u",
    "vus",
    "d",
    "duration",
    "i",
    "iterations",
    "s",
    "stage",
    "e",
    "env",
    "o",
    "out",
    "summary-export",
    "summary-trend-stats",
    "tag",
    "execution-segment",
    "execution-segment-sequence",
    "execution-segment-index",
    "start-at",
];

/// Names in `-e NAME=…` that look like credentials: written into the Job's
/// args they are readable by whoever can read the Job.
fn credential_env(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    [
        "TOKEN",
        "PASSWORD",
        "PASSWD",
        "SECRET",
        "API_KEY",
        "APIKEY",
        "CREDENTIAL",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Rewrites `raw` (`k6 run [flags] script.js`, as typed after `--`) for a
/// worker pod: the script, the local modules it imports and the files it
/// `open()`s (string literals only: the text is scanned, not run) become
/// ConfigMap entries keyed by their path relative to the folder that holds
/// them all (keys with `/` are mounted at that path, see
/// [`crate::render`]), and the script argument points at the mounted copy.
/// `script` is the script argument as given (found by the caller, which
/// checked the flags as `loadlab k6 run` does). Flags the renderer sets
/// (`--execution-segment*`, `--start-at`, `--out loadlab=`) and outputs
/// that would stay in the pod (`--out json=`, `--summary-export`) are
/// refused with the reason.
pub fn prepare_script_flags(raw: &[String], script: &Path) -> Result<PreparedFlags, RenderError> {
    let mut out = PreparedFlags::default();
    let rest = match raw {
        [k6, run, rest @ ..] if k6 == "k6" && run == "run" => rest,
        _ => {
            return Err(RenderError::Flag(
                "a script worker's command is `k6 run [k6 flags] script.js` after --".into(),
            ));
        }
    };
    // The files, relative to one root folder (their deepest common one).
    let found = script_files(script, &mut out.warnings)?;
    let root = common_root(found.iter().map(|(p, _)| p.as_path()));
    let rel = |p: &Path| -> String {
        p.strip_prefix(&root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let script_key = rel(&found[0].0);
    for (p, data) in &found {
        out.files.insert(rel(p), data.clone());
    }
    let total: usize = out.files.values().map(Vec::len).sum();
    if total > CONFIG_MAP_LIMIT {
        return Err(RenderError::TooLarge { bytes: total });
    }
    out.args.push("k6".into());
    out.args.push("run".into());
    let mut i = 0;
    let mut script_seen = false;
    while i < rest.len() {
        let tok = &rest[i];
        i += 1;
        let Some((name, inline)) = split_flag(tok) else {
            // The positional: the script (given once).
            if !script_seen && Path::new(tok) == script {
                script_seen = true;
                out.args.push(format!("{INPUT_DIR}/{script_key}"));
            } else {
                out.args.push(tok.clone());
            }
            continue;
        };
        if let Some((_, why)) = SCRIPT_RENDERER_FLAGS.iter().find(|(n, _)| *n == name) {
            return Err(RenderError::Flag(format!(
                "--{name}: not for k8s render: {why}"
            )));
        }
        let value = if SCRIPT_VALUE_FLAGS.contains(&name) && inline.is_none() {
            let v = rest.get(i).cloned();
            if v.is_some() {
                i += 1;
            }
            v
        } else {
            inline.map(str::to_string)
        };
        if name == "o" || name == "out" {
            let v = value.as_deref().unwrap_or("");
            let why = if v.starts_with("loadlab=") {
                "the workers' results go where --results says (s3://BUCKET/PREFIX or pvc:CLAIM)"
            } else {
                "the file would stay in the worker's pod; the merged report comes from the results (--results)"
            };
            return Err(RenderError::Flag(format!(
                "--out {v}: not for k8s render: {why}"
            )));
        }
        if (name == "e" || name == "env")
            && let Some((k, v)) = value.as_deref().and_then(|v| v.split_once('='))
            && credential_env(k)
            && !v.contains("$(")
        {
            out.warnings.push(format!(
                "-e {k}=… is written in clear into the Job's args; put the value in a Secret (--secret-env SECRET: its keys become the pod's environment, which the script reads from __ENV) or write -e {k}='$(VAR)'"
            ));
        }
        out.args.push(tok.clone());
        if inline.is_none()
            && let Some(v) = value
        {
            out.args.push(v);
        }
    }
    if !script_seen {
        return Err(RenderError::Flag(format!(
            "the script {} is not among the k6 run arguments",
            script.display()
        )));
    }
    Ok(out)
}

/// The deepest folder holding every path.
fn common_root<'a>(paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let mut root: Option<PathBuf> = None;
    for p in paths {
        let dir = p.parent().unwrap_or(Path::new("/")).to_path_buf();
        root = Some(match root {
            None => dir,
            Some(r) => {
                let mut common = PathBuf::new();
                for (a, b) in r.components().zip(dir.components()) {
                    if a != b {
                        break;
                    }
                    common.push(a);
                }
                common
            }
        });
    }
    root.unwrap_or_default()
}

/// The script and the local files it needs: modules it imports (followed
/// in turn) and files it `open()`s, each as (absolute, normalized path,
/// contents); the script first. Paths are string literals found in the
/// text; a literal that names no file here, and an `open()` of a computed
/// path, are warned about (the script would fail in the pod).
fn script_files(
    script: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, RenderError> {
    let abs = |p: &Path| -> PathBuf {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir().unwrap_or_default().join(p)
        };
        normalize(&p)
    };
    let main = abs(script);
    let main_dir = main.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut queue = vec![main.clone()];
    while let Some(p) = queue.pop() {
        if files.iter().any(|(f, _)| *f == p) {
            continue;
        }
        let is_main = p == main;
        let data = read(
            &p,
            if is_main {
                "the script"
            } else {
                "a module the script imports"
            },
        )?;
        let text = String::from_utf8_lossy(&data).into_owned();
        let dir = p.parent().unwrap_or(Path::new("/")).to_path_buf();
        files.push((p.clone(), data));
        let name = p.display().to_string();
        for (kind, lit) in references(&text) {
            match (kind, lit) {
                (Ref::Import, Some(m)) => {
                    if !(m.starts_with("./") || m.starts_with("../") || m.starts_with('/')) {
                        continue; // k6/…, remote modules: not files
                    }
                    queue.push(normalize(&dir.join(&m)));
                }
                (Ref::Open, Some(f)) => {
                    // Relative to the module, else to the main script.
                    let cands = [normalize(&dir.join(&f)), normalize(&main_dir.join(&f))];
                    match cands.iter().find(|c| c.is_file()) {
                        Some(c) => {
                            if !files.iter().any(|(x, _)| x == c) {
                                let d = read(c, "a file the script open()s")?;
                                files.push((c.clone(), d));
                            }
                        }
                        None => warnings.push(format!(
                            "{name}: open({f:?}) names no file here: it is not in the ConfigMap, and the script will fail in the pod unless the image has it"
                        )),
                    }
                }
                (Ref::Open, None) => {
                    let w = format!(
                        "{name}: open() of a computed path: that file is not in the ConfigMap (only string literals are followed)"
                    );
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                (Ref::Import, None) => {}
            }
        }
    }
    Ok(files)
}

#[derive(Clone, Copy)]
enum Ref {
    Import,
    Open,
}

/// `import … from 'x'`, `import 'x'`, `import('x')` and `open('x')` in a
/// script's text: the string literal, or `None` when the argument is not
/// one (a computed path). A scan, not a parse: a match in a comment counts.
fn references(text: &str) -> Vec<(Ref, Option<String>)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let word_at = |i: usize, w: &str| -> bool {
        b[i..].starts_with(w.as_bytes())
            && (i == 0
                || !(b[i - 1].is_ascii_alphanumeric()
                    || b[i - 1] == b'_'
                    || b[i - 1] == b'.'
                    || b[i - 1] == b'$'))
            && b.get(i + w.len())
                .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_' || *c == b'$'))
    };
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let literal = |i: usize| -> Option<String> {
        let q = *b.get(i)?;
        if q != b'\'' && q != b'"' {
            return None;
        }
        let end = b[i + 1..].iter().position(|c| *c == q || *c == b'\n')? + i + 1;
        (b[end] == q).then(|| text[i + 1..end].to_string())
    };
    let mut i = 0;
    while i < b.len() {
        if word_at(i, "from") || word_at(i, "import") {
            let len = if b[i] == b'f' { 4 } else { 6 };
            let mut j = skip_ws(i + len);
            if b.get(j) == Some(&b'(') {
                j = skip_ws(j + 1);
            }
            if let Some(l) = literal(j) {
                out.push((Ref::Import, Some(l)));
            }
            i += len;
            continue;
        }
        if word_at(i, "open") {
            let j = skip_ws(i + 4);
            if b.get(j) == Some(&b'(') {
                let k = skip_ws(j + 1);
                out.push((Ref::Open, literal(k)));
            }
            i += 4;
            continue;
        }
        i += 1;
    }
    out
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn script_files_and_flags_for_a_worker() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("tests")).unwrap();
        std::fs::create_dir_all(d.path().join("lib")).unwrap();
        std::fs::create_dir_all(d.path().join("data")).unwrap();
        std::fs::write(
            d.path().join("tests/main.js"),
            "import http from 'k6/http';\nimport { f } from \"../lib/util.js\";\nconst users = open('../data/users.csv');\nconst x = open(`${__ENV.F}`);\nconst y = open('./nope.txt');\nexport default function () { f(users); }\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("lib/util.js"),
            "export function f(x) { return open('../data/users.csv'); }\n",
        )
        .unwrap();
        std::fs::write(d.path().join("data/users.csv"), "a,b\n").unwrap();
        let script = d.path().join("tests/main.js");
        let raw = s(&[
            "k6",
            "run",
            "-u",
            "10",
            "-d=30s",
            "-e",
            "API_TOKEN=abc",
            script.to_str().unwrap(),
        ]);
        let p = prepare_script_flags(&raw, &script).unwrap();
        let keys: Vec<&String> = p.files.keys().collect();
        assert_eq!(keys, ["data/users.csv", "lib/util.js", "tests/main.js"]);
        assert_eq!(
            p.args,
            s(&[
                "k6",
                "run",
                "-u",
                "10",
                "-d=30s",
                "-e",
                "API_TOKEN=abc",
                "/loadlab/input/tests/main.js"
            ])
        );
        assert!(
            p.warnings.iter().any(|w| w.contains("computed path")),
            "{:?}",
            p.warnings
        );
        assert!(
            p.warnings.iter().any(|w| w.contains("nope.txt")),
            "{:?}",
            p.warnings
        );
        assert!(
            p.warnings.iter().any(|w| w.contains("API_TOKEN")),
            "{:?}",
            p.warnings
        );
        for bad in [
            &["--execution-segment", "0:1/2"][..],
            &["--start-at=1"],
            &["--out", "loadlab=x.lr"],
            &["-o", "json=x.json"],
            &["--summary-export", "s.json"],
        ] {
            let mut raw = s(&["k6", "run"]);
            raw.extend(s(bad));
            raw.push(script.to_str().unwrap().into());
            let e = prepare_script_flags(&raw, &script).unwrap_err();
            assert!(e.to_string().contains("not for k8s render"), "{bad:?}: {e}");
        }
    }
}
