//! vegeta's flags are Go flags: `-rate=400` and `-rate 400` (single dash, long
//! name). clap wants `--rate`, so single-dash long flags are rewritten before
//! parsing. Subcommands with real short flags (`ab`, `wrk`) are left alone.

use std::ffi::OsString;

/// Subcommands whose flags are single-letter and must not be rewritten.
const SHORT_FLAG_FACES: &[&str] = &["ab", "wrk", "sysbench", "k6"];

pub fn normalize(argv: Vec<OsString>) -> Vec<OsString> {
    let mut out = Vec::with_capacity(argv.len());
    let mut face: Option<String> = None;
    let mut after_double_dash = false;
    for (i, arg) in argv.into_iter().enumerate() {
        if i == 0 {
            out.push(arg);
            continue;
        }
        let Some(s) = arg.to_str() else {
            out.push(arg);
            continue;
        };
        if face.is_none() && !s.starts_with('-') {
            face = Some(s.to_string());
            out.push(arg);
            continue;
        }
        if s == "--" {
            after_double_dash = true;
        }
        let keep_short = face
            .as_deref()
            .is_some_and(|f| SHORT_FLAG_FACES.contains(&f));
        if !after_double_dash && !keep_short && is_single_dash_long(s) {
            out.push(OsString::from(format!("-{s}")));
        } else {
            out.push(arg);
        }
    }
    out
}

/// `-rate=400`, `-rate`, `-max-body` but not `-h`, `-5`, `-`, `--rate`.
fn is_single_dash_long(s: &str) -> bool {
    let Some(rest) = s.strip_prefix('-') else {
        return false;
    };
    if rest.starts_with('-') {
        return false;
    }
    let name = rest.split('=').next().unwrap_or("");
    name.len() > 1 && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
}

#[cfg(test)]
mod tests {
    use super::*;
    fn n(v: &[&str]) -> Vec<String> {
        normalize(v.iter().map(OsString::from).collect())
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect()
    }
    #[test]
    fn rewrites_go_style_flags() {
        assert_eq!(
            n(&[
                "loadlab",
                "attack",
                "-rate=400",
                "-duration",
                "1s",
                "-h",
                "--workers=2",
                "-"
            ]),
            [
                "loadlab",
                "attack",
                "--rate=400",
                "--duration",
                "1s",
                "-h",
                "--workers=2",
                "-"
            ]
        );
    }
    #[test]
    fn leaves_short_flag_faces_alone() {
        assert_eq!(
            n(&["loadlab", "ab", "-c", "10", "-n", "5"]),
            ["loadlab", "ab", "-c", "10", "-n", "5"]
        );
        assert_eq!(
            n(&["loadlab", "wrk", "-t2", "-c10", "-d30s"]),
            ["loadlab", "wrk", "-t2", "-c10", "-d30s"]
        );
    }
}
