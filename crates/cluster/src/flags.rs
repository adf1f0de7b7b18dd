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

// Header names whose values are credentials (the list every face and
// report shares): written into a ConfigMap or a Job's args they are
// readable by whoever can read those objects.
use loadlab_core::credentials::CREDENTIAL_HEADERS;

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
pub(crate) fn split_flag(tok: &str) -> Option<(&str, Option<&str>)> {
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
        for (n, line) in text.split(|&b| b == b'\n').enumerate() {
            if has_url_password(&String::from_utf8_lossy(line)) {
                out.warnings.push(url_password_warning(&source, n + 1));
            }
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

/// Whether `text` holds a URL with a password (`scheme://user:pass@host`;
/// a password that is only a `$(VAR)` or `${VAR}` reference holds none).
pub fn has_url_password(text: &str) -> bool {
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let tail = &rest[i + 3..];
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '`' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        if let Some(at) = authority.rfind('@')
            && let Some((_, pass)) = authority[..at].split_once(':')
        {
            let reference = (pass.starts_with("$(") && pass.ends_with(')'))
                || (pass.starts_with("${") && pass.ends_with('}'));
            if !pass.is_empty() && !reference {
                return true;
            }
        }
        rest = &tail[end..];
    }
    false
}

fn url_password_warning(source: &str, line: usize) -> String {
    format!(
        "a URL password (in the targets from {source}, line {line}) is written in clear into the ConfigMap; anyone who can read ConfigMaps in the namespace can read it"
    )
}

fn credential_warning(header: &str, source: &str) -> String {
    format!(
        "header {header} (in the targets from {source}) is written in clear into the ConfigMap; anyone who can read ConfigMaps in the namespace can read it"
    )
}

pub(crate) fn read(path: &Path, flag: &str) -> Result<Vec<u8>, RenderError> {
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
    for (n, line) in text.split_inclusive('\n').enumerate() {
        let content = line.trim_end_matches(['\n', '\r']);
        if !content.trim_start().starts_with('#') && has_url_password(content) {
            out.warnings.push(url_password_warning(source, n + 1));
        }
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
    fn url_passwords_are_warned_about() {
        assert!(has_url_password("GET http://u:pw@h/"));
        assert!(!has_url_password("GET http://u@h/ and http://h:80/"));
        assert!(!has_url_password("http://u:$(PASS)@h/ http://u:${P}@h/"));
        let p = prepare_attack_flags(&s(&[]), || {
            Some(b"GET http://h/\nGET http://me:hunter22@h/x\n# GET http://a:b@h/\n".to_vec())
        })
        .unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
        assert!(p.warnings[0].contains("line 2"), "{:?}", p.warnings);
        assert!(!p.warnings[0].contains("hunter22"), "{:?}", p.warnings);
        let p = prepare_attack_flags(&s(&["-format=json"]), || {
            Some(b"{\"method\":\"GET\",\"url\":\"http://me:hunter22@h/\"}\n".to_vec())
        })
        .unwrap();
        assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
    }
}
