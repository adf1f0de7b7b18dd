//! The attack's command line as a worker pod runs it.
//!
//! The flags are taken as the user typed them (`-rate=400`, `--rate 400`,
//! `-H 'Name: v'`) and passed on verbatim, except those that name files on
//! the user's machine: their contents become ConfigMap entries and the flags
//! point at the mounted copies. The flags that say where and when a worker
//! runs (`-output`, `-segment`, `-start-at`) belong to the renderer and are
//! refused here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::RenderError;

/// Where the ConfigMap is mounted in every worker.
pub const INPUT_DIR: &str = "/loadlab/input";

/// A ConfigMap (data plus binaryData) holds at most 1 MiB; what is left for
/// the files once the object's own fields are counted.
pub const CONFIG_MAP_LIMIT: usize = 1_000_000;

/// Header names whose values are credentials: written into a ConfigMap or a
/// Job's args they are readable by whoever can read those objects.
const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
];

/// The worker's flags and the files they refer to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreparedFlags {
    /// The attack's flags, files rewritten to [`INPUT_DIR`].
    pub args: Vec<String>,
    /// ConfigMap key → file contents.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Things the user should know (credential headers in clear), one line each.
    pub warnings: Vec<String>,
}

/// One flag as typed: its long name, its value if it has one here, and
/// whether the value was the next token.
fn split_flag(tok: &str) -> Option<(&str, Option<&str>)> {
    let body = tok.strip_prefix("--").or_else(|| tok.strip_prefix('-'))?;
    if body.is_empty() {
        return None;
    }
    Some(match body.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (body, None),
    })
}

/// Flags whose value names a file read on this machine.
const FILE_FLAGS: &[&str] = &["targets", "body", "root-certs"];
/// Flags the renderer sets itself, with the reason given when a user sets one.
const RENDERER_FLAGS: &[(&str, &str)] = &[
    (
        "output",
        "the workers' results go where --results says (s3://BUCKET/PREFIX or pvc:CLAIM)",
    ),
    (
        "segment",
        "each worker's segment comes from its JOB_COMPLETION_INDEX (--workers N)",
    ),
    (
        "start-at",
        "the start instant is render's --start-at or now + --start-delay",
    ),
    (
        "cert",
        "a client key does not belong in a ConfigMap; client certificates are not supported by k8s render yet",
    ),
    (
        "key",
        "a client key does not belong in a ConfigMap; client certificates are not supported by k8s render yet",
    ),
    (
        "unix-socket",
        "a worker pod cannot reach a Unix socket of this machine",
    ),
];

/// Rewrites `raw` (the attack's flags, as typed) for a worker. `stdin` gives
/// the targets when no `-targets=FILE` names them (called only then).
/// Relative paths, as in `attack`, are relative to the current directory.
pub fn prepare_attack_flags(
    raw: &[String],
    stdin: impl FnOnce() -> Option<Vec<u8>>,
) -> Result<PreparedFlags, RenderError> {
    let mut out = PreparedFlags::default();
    let mut targets: Option<String> = None;
    let mut json_format = false;
    let mut i = 0;
    while i < raw.len() {
        let tok = &raw[i];
        i += 1;
        let Some((name, inline)) = split_flag(tok) else {
            out.args.push(tok.clone());
            continue;
        };
        if let Some((_, why)) = RENDERER_FLAGS.iter().find(|(n, _)| *n == name) {
            return Err(RenderError::Flag(format!(
                "-{name}: not for k8s render: {why}"
            )));
        }
        if name == "format" {
            let v = inline.or_else(|| raw.get(i).map(String::as_str));
            json_format = v == Some("json");
        }
        if name == "header" || name == "H" {
            let v = match inline {
                Some(v) => Some(v.to_string()),
                None => raw.get(i).cloned(),
            };
            if let Some(v) = v
                && let Some((h, value)) = v.split_once(':')
                && is_credential(h)
                && !value.contains("$(")
            {
                out.warnings.push(format!(
                    "header {} (in -header) is written in clear into the Job's args; put the value in a Secret and write -header='{}: $(VAR)' with --secret-env SECRET",
                    h.trim(),
                    h.trim()
                ));
            }
        }
        if !FILE_FLAGS.contains(&name) {
            out.args.push(tok.clone());
            continue;
        }
        let value = match inline {
            Some(v) => v.to_string(),
            None => {
                let v = raw
                    .get(i)
                    .ok_or_else(|| RenderError::Flag(format!("-{name} needs a value")))?;
                i += 1;
                v.clone()
            }
        };
        match name {
            "targets" => targets = Some(value),
            "body" => {
                let data = read(Path::new(&value), "-body")?;
                out.files.insert("body".into(), data);
                out.args.push(format!("-body={INPUT_DIR}/body"));
            }
            _ => {
                let mut mounted = Vec::new();
                for (k, p) in value.split(',').filter(|p| !p.is_empty()).enumerate() {
                    let key = format!("root-cert-{k}");
                    out.files
                        .insert(key.clone(), read(Path::new(p), "-root-certs")?);
                    mounted.push(format!("{INPUT_DIR}/{key}"));
                }
                out.args.push(format!("-root-certs={}", mounted.join(",")));
            }
        }
    }

    let (text, source) = match targets.as_deref() {
        None | Some("stdin") | Some("-") => (
            stdin().ok_or_else(|| {
                RenderError::Flag(
                    "k8s render needs the targets: -targets=FILE, or pipe them in".into(),
                )
            })?,
            "stdin".to_string(),
        ),
        Some(path) => (read(Path::new(path), "-targets")?, path.to_string()),
    };
    let text = if json_format {
        for h in json_credential_headers(&text) {
            out.warnings.push(credential_warning(&h, &source));
        }
        text
    } else {
        rewrite_http_targets(&text, &source, &mut out)?
    };
    out.files.insert("targets".into(), text);
    out.args.push(format!("-targets={INPUT_DIR}/targets"));

    let total: usize = out.files.values().map(Vec::len).sum();
    if total > CONFIG_MAP_LIMIT {
        return Err(RenderError::TooLarge { bytes: total });
    }
    Ok(out)
}

fn is_credential(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    CREDENTIAL_HEADERS.contains(&n.as_str())
}

fn credential_warning(header: &str, source: &str) -> String {
    format!(
        "header {header} (in the targets from {source}) is written in clear into the ConfigMap; anyone who can read ConfigMaps in the namespace can read it"
    )
}

fn read(path: &Path, flag: &str) -> Result<Vec<u8>, RenderError> {
    std::fs::read(path).map_err(|e| RenderError::Io {
        what: format!("{flag} file {}", path.display()),
        err: e,
    })
}

/// http-format targets: every `@path` body line becomes `@INPUT_DIR/body-K`
/// and the file a ConfigMap entry (one entry per distinct path).
fn rewrite_http_targets(
    text: &[u8],
    source: &str,
    out: &mut PreparedFlags,
) -> Result<Vec<u8>, RenderError> {
    let text = std::str::from_utf8(text)
        .map_err(|e| RenderError::Flag(format!("targets from {source} are not UTF-8 text: {e}")))?;
    let mut bodies: BTreeMap<PathBuf, String> = BTreeMap::new();
    let mut rewritten = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        let ending = &line[content.len()..];
        let t = content.trim();
        if let Some(p) = t.strip_prefix('@') {
            let path = PathBuf::from(p.trim());
            let key = match bodies.get(&path) {
                Some(k) => k.clone(),
                None => {
                    let key = format!("body-{}", bodies.len());
                    let data = read(&path, "@body")?;
                    out.files.insert(key.clone(), data);
                    bodies.insert(path, key.clone());
                    key
                }
            };
            rewritten.push_str(&format!("@{INPUT_DIR}/{key}"));
            rewritten.push_str(ending);
            continue;
        }
        if !t.starts_with('#')
            && let Some((name, _)) = t.split_once(':')
            && is_credential(name)
            && !name.contains(' ')
        {
            let w = credential_warning(name.trim(), source);
            if !out.warnings.contains(&w) {
                out.warnings.push(w);
            }
        }
        rewritten.push_str(line);
    }
    Ok(rewritten.into_bytes())
}

/// Credential header names in json-format targets (`"header": {"Name": [...]}`).
fn json_credential_headers(text: &[u8]) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            continue;
        };
        if let Some(h) = v.get("header").and_then(|h| h.as_object()) {
            for k in h.keys() {
                if is_credential(k) && !found.contains(k) {
                    found.push(k.clone());
                }
            }
        }
    }
    found
}

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
    fn targets_from_stdin_become_a_config_map_entry() {
        let p = prepare_attack_flags(&s(&["-rate=100", "--duration", "10s"]), || {
            Some(b"GET http://127.0.0.1:1/\n".to_vec())
        })
        .unwrap();
        assert_eq!(
            p.args,
            s(&[
                "-rate=100",
                "--duration",
                "10s",
                "-targets=/loadlab/input/targets"
            ])
        );
        assert_eq!(p.files["targets"], b"GET http://127.0.0.1:1/\n");
    }

    #[test]
    fn renderer_flags_are_refused_with_the_reason() {
        for f in [
            "-output=x",
            "--segment=0/2",
            "-start-at=1",
            "-key",
            "-cert=c",
        ] {
            let e = prepare_attack_flags(&s(&[f]), || Some(Vec::new())).unwrap_err();
            assert!(e.to_string().contains("not for k8s render"), "{e}");
        }
    }

    #[test]
    fn body_files_are_mounted_once_each() {
        let d = tempfile::tempdir().unwrap();
        let b = d.path().join("b.json");
        std::fs::write(&b, b"{}").unwrap();
        let t = d.path().join("t.txt");
        std::fs::write(
            &t,
            format!(
                "POST http://h/a\n@{0}\n\nPOST http://h/b\r\n@ {0}\r\n",
                b.display()
            ),
        )
        .unwrap();
        let p = prepare_attack_flags(
            &s(&[
                "-targets",
                t.to_str().unwrap(),
                "-body",
                b.to_str().unwrap(),
            ]),
            || None,
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(p.files["targets"].clone()).unwrap(),
            "POST http://h/a\n@/loadlab/input/body-0\n\nPOST http://h/b\r\n@/loadlab/input/body-0\r\n"
        );
        assert_eq!(p.files["body-0"], b"{}");
        assert_eq!(p.files["body"], b"{}");
        assert!(p.args.contains(&"-body=/loadlab/input/body".to_string()));
    }

    #[test]
    fn credential_headers_are_warned_about() {
        let p = prepare_attack_flags(
            &s(&["-H", "Authorization: Bearer x", "-header=X-Trace: 1"]),
            || Some(b"GET http://h/\nCookie: a=b\n".to_vec()),
        )
        .unwrap();
        assert_eq!(p.warnings.len(), 2, "{:?}", p.warnings);
        let p = prepare_attack_flags(&s(&["-header=Authorization: $(TOKEN)"]), || {
            Some(b"GET http://h/\n".to_vec())
        })
        .unwrap();
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn missing_files_name_the_flag_and_path() {
        let e = prepare_attack_flags(&s(&["-targets=/nonexistent/t"]), || None).unwrap_err();
        assert!(
            e.to_string().contains("-targets file /nonexistent/t"),
            "{e}"
        );
        let e = prepare_attack_flags(&s(&[]), || None).unwrap_err();
        assert!(e.to_string().contains("needs the targets"), "{e}");
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
