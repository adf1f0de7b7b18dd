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
    (
        "config",
        "the file is not mounted in the workers' pods; put its options in the script's `options`",
    ),
    (
        "c",
        "the file is not mounted in the workers' pods; put its options in the script's `options`",
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

/// `p` as the user would write it: relative to the current folder when
/// it is under it.
fn shown(p: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    match p.strip_prefix(&cwd) {
        Ok(r) if r.as_os_str().is_empty() => ".".to_string(),
        Ok(r) => r.display().to_string(),
        Err(_) => p.display().to_string(),
    }
}

/// The script and the local files it needs: modules it imports (followed
/// in turn) and files it `open()`s, each as (absolute, normalized path,
/// contents); the script first. The references are read from the code
/// (never from comments or strings, see
/// [`loadlab_script::static_opens`]); each module is compiled, so that a
/// syntax error is found here rather than in every pod. A file opened
/// outside the script's folder (an absolute path, `..`) is refused; a
/// literal that names no file here, and an `open()` of a computed path,
/// are warned about (the script would fail in the pod).
fn script_files(
    script: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<(PathBuf, Vec<u8>)>, RenderError> {
    use loadlab_script::static_opens::{self, RefKind};
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
    // Each module, with where it is imported (`file:line:col`).
    let mut queue: Vec<(PathBuf, Option<String>)> = vec![(main.clone(), None)];
    while let Some((p, importer)) = queue.pop() {
        if files.iter().any(|(f, _)| *f == p) {
            continue;
        }
        let data = std::fs::read(&p).map_err(|err| RenderError::Io {
            what: match &importer {
                None => format!("the script {}", shown(&p)),
                Some(at) => format!("the module {} that {at} imports", shown(&p)),
            },
            err,
        })?;
        let text = String::from_utf8_lossy(&data).into_owned();
        let name = shown(&p);
        static_opens::check_syntax(&text, &name).map_err(|e| RenderError::Script(e.to_string()))?;
        let dir = p.parent().unwrap_or(Path::new("/")).to_path_buf();
        files.push((p.clone(), data));
        for r in static_opens::references(&text) {
            let at = format!("{name}:{}:{}", r.line, r.column);
            match (r.kind, r.path) {
                (RefKind::Import, Some(m)) => {
                    if m.starts_with('/') {
                        return Err(RenderError::Flag(format!(
                            "{at}: import {m:?}: an absolute path cannot be mounted in the pods; import the module by a path relative to the script"
                        )));
                    }
                    if !(m.starts_with("./") || m.starts_with("../")) {
                        continue; // k6/…, remote modules: not files
                    }
                    let mut module = normalize(&dir.join(&m));
                    if module.extension().is_none() {
                        module.set_extension("js");
                    }
                    queue.push((module, Some(at)));
                }
                (RefKind::Open, Some(f)) => {
                    opened(&f, &at, [&dir, &main_dir], &mut files, warnings)?;
                }
                (RefKind::Open, None) => {
                    let w = format!(
                        "{at}: open() of a computed path: that file is not in the ConfigMap (only string literals are followed)"
                    );
                    if !warnings.contains(&w) {
                        warnings.push(w);
                    }
                }
                (RefKind::Import, None) => {}
            }
        }
    }
    Ok(files)
}

/// The file a literal `open(f)` at `at` names, relative to the module's
/// folder, else to the script's (`dirs`), added to `files`; refused when
/// it is outside the script's folder (the pods mount that folder only, and
/// nothing else of this machine belongs in a ConfigMap).
fn opened(
    f: &str,
    at: &str,
    [dir, main_dir]: [&Path; 2],
    files: &mut Vec<(PathBuf, Vec<u8>)>,
    warnings: &mut Vec<String>,
) -> Result<(), RenderError> {
    let cands = [normalize(&dir.join(f)), normalize(&main_dir.join(f))];
    let found = cands.iter().find(|c| c.is_file());
    let chosen = found.unwrap_or(&cands[0]);
    if Path::new(f).is_absolute() || !chosen.starts_with(main_dir) {
        return Err(RenderError::Flag(format!(
            "{at}: open({f:?}) names a file outside the script's folder ({}): the pods mount that folder only; copy the file into it and open it by a relative path",
            shown(main_dir)
        )));
    }
    match found {
        Some(c) => {
            if !files.iter().any(|(x, _)| x == c) {
                let d = read(c, "a file the script open()s")?;
                files.push((c.clone(), d));
            }
        }
        None => warnings.push(format!(
            "{at}: open({f:?}) names no file here: it is not in the ConfigMap, and the script will fail in the pod unless the image has it"
        )),
    }
    Ok(())
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
        std::fs::create_dir_all(d.path().join("tests/data")).unwrap();
        std::fs::write(
            d.path().join("tests/main.js"),
            "import http from 'k6/http';\nimport { f } from \"../lib/util.js\";\n// open('/etc/shadow') and open('../../x') in a comment\nconst users = open('./data/users.csv');\nconst x = open(`${__ENV.F}`);\nconst y = open('./nope.txt');\nexport default function () { f(users); }\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("lib/util.js"),
            "export function f(x) { return open('data/users.csv'); }\n",
        )
        .unwrap();
        std::fs::write(d.path().join("tests/data/users.csv"), "a,b\n").unwrap();
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
        assert_eq!(
            keys,
            ["lib/util.js", "tests/data/users.csv", "tests/main.js"]
        );
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
            &["--config", "c.json"],
            &["-c", "c.json"],
        ] {
            let mut raw = s(&["k6", "run"]);
            raw.extend(s(bad));
            raw.push(script.to_str().unwrap().into());
            let e = prepare_script_flags(&raw, &script).unwrap_err();
            assert!(e.to_string().contains("not for k8s render"), "{bad:?}: {e}");
        }
    }

    #[test]
    fn opens_outside_the_scripts_folder_and_bad_syntax_are_refused() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("s")).unwrap();
        std::fs::write(d.path().join("x.csv"), "secret\n").unwrap();
        let script = d.path().join("s/main.js");
        let raw = s(&["k6", "run", script.to_str().unwrap()]);
        for (js, place, path) in [
            (
                "const a = open('/etc/hostname');\n",
                ":1:11:",
                "/etc/hostname",
            ),
            ("const a = 1;\n  open('../x.csv');\n", ":2:3:", "../x.csv"),
        ] {
            std::fs::write(&script, js).unwrap();
            let e = prepare_script_flags(&raw, &script).unwrap_err().to_string();
            assert!(e.contains(&format!("main.js{place} open({path:?})")), "{e}");
            assert!(e.contains("outside the script's folder"), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
        std::fs::write(
            &script,
            "// open('/etc/shadow')\nconst s = \"open('/etc/passwd')\";\n",
        )
        .unwrap();
        let p = prepare_script_flags(&raw, &script).unwrap();
        assert_eq!(p.files.keys().collect::<Vec<_>>(), ["main.js"]);
        std::fs::write(
            &script,
            "import { f } from './lib.js';\nexport default function () { f() }\n",
        )
        .unwrap();
        std::fs::write(
            d.path().join("s/lib.js"),
            "export function f() {\n  return 1 +;\n}\n",
        )
        .unwrap();
        let e = prepare_script_flags(&raw, &script).unwrap_err();
        assert!(matches!(e, RenderError::Script(_)), "{e:?}");
        assert!(e.to_string().contains("lib.js:2:"), "{e}");
        std::fs::remove_file(d.path().join("s/lib.js")).unwrap();
        let e = prepare_script_flags(&raw, &script).unwrap_err().to_string();
        assert!(e.contains("cannot read the module "), "{e}");
        assert!(e.contains("lib.js that "), "{e}");
        assert!(e.contains("main.js:1:19 imports: "), "{e}");
    }
}
