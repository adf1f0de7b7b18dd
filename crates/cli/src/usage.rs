//! Usage errors as docs/exit-codes.md promises them: one line on stderr,
//! starting `loadlab:`, exit code 2. clap's own message (several lines, a
//! `tip:` with the nearest flag or subcommand, a usage block) is folded into
//! that line, keeping the tip.

use std::ffi::OsString;

use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The one line for a clap error (without the trailing newline).
/// `original` is the command line as typed (before Go-style flags were
/// rewritten), used for the suggestion when `attack` is given a URL.
pub fn one_line(e: &clap::Error, original: &[OsString]) -> String {
    if let Some(s) = url_as_argument(e, original) {
        return s;
    }
    if let Some(s) = script_without_run(e, original) {
        return s;
    }
    let rendered = e.render().to_string();
    let mut message = Vec::new();
    let mut tips = Vec::new();
    let mut usage_of = None;
    let mut in_message = true;
    for line in rendered.lines() {
        let t = line.trim();
        if t.is_empty() {
            in_message = false;
            continue;
        }
        if let Some(rest) = t.strip_prefix("error:") {
            message.push(rest.trim().to_string());
        } else if let Some(tip) = t.strip_prefix("tip:") {
            tips.push(tip.trim().to_string());
        } else if let Some(usage) = t.strip_prefix("Usage:") {
            // `Usage: loadlab attack --duration <DURATION>` → `loadlab attack`.
            let words: Vec<&str> = usage
                .split_whitespace()
                .take_while(|w| !w.starts_with(['-', '<', '[']))
                .collect();
            usage_of = Some(words.join(" "));
            in_message = false;
        } else if t.starts_with("For more information") {
            in_message = false;
        } else if in_message {
            // A message continued on the next lines (e.g. the list of
            // missing required arguments).
            message.push(t.to_string());
        }
    }
    let mut out = String::from("loadlab: ");
    out.push_str(&join_message(&message));
    for tip in tips {
        out.push_str(" (");
        out.push_str(&tip);
        out.push(')');
    }
    let cmd = usage_of
        .filter(|c| !c.is_empty())
        .or_else(|| subcommand(original).map(|s| format!("loadlab {s}")))
        .unwrap_or_else(|| "loadlab".to_string());
    if typed_go_style(e, original) {
        // The user writes flags as Go does (`-duraton`): name them that way.
        out = out.replace("'--", "'-");
    }
    out.push_str(&format!("; see '{cmd} --help'"));
    out
}

/// True when the flag clap complains about was typed with one dash
/// (`-duraton=1s`), as vegeta's users write every flag.
fn typed_go_style(e: &clap::Error, original: &[OsString]) -> bool {
    let Some(ContextValue::String(bad)) = e.get(ContextKind::InvalidArg) else {
        return false;
    };
    let Some(name) = bad.strip_prefix("--") else {
        return false;
    };
    let name = name.split(['=', ' ']).next().unwrap_or(name);
    original.iter().any(|a| {
        a.to_str().is_some_and(|a| {
            a.strip_prefix('-')
                .is_some_and(|r| !r.starts_with('-') && r.split('=').next() == Some(name))
        })
    })
}

/// `a:` followed by items on their own lines reads `a: x, y` on one line.
fn join_message(parts: &[String]) -> String {
    let mut s = String::new();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            s.push_str(if s.ends_with(':') || p.starts_with('[') {
                " "
            } else {
                ", "
            });
        }
        s.push_str(p);
    }
    s
}

/// The subcommand as typed (the first argument that is not a flag).
fn subcommand(original: &[OsString]) -> Option<String> {
    let mut words = original
        .iter()
        .skip(1)
        .filter_map(|a| a.to_str())
        .filter(|a| !a.starts_with('-'));
    let first = words.next()?;
    // The subcommands that have their own (`k6 run`, `k8s render`): the
    // help to see is the inner one's.
    let inner: &[&str] = match first {
        "k6" => &["run"],
        "k8s" => &["render", "run", "gather"],
        _ => &[],
    };
    match words.next() {
        Some(second) if inner.contains(&second) => Some(format!("{first} {second}")),
        _ => Some(first.to_string()),
    }
}

fn looks_like_url(s: &str) -> bool {
    let l = s.to_ascii_lowercase();
    l.starts_with("http://") || l.starts_with("https://")
}

const METHODS: &[&str] = &[
    "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
];

/// `loadlab attack http://…` (the usual first try): targets are not
/// arguments. Suggests the pipe, with the rest of the command line kept.
fn url_as_argument(e: &clap::Error, original: &[OsString]) -> Option<String> {
    if e.kind() != ErrorKind::UnknownArgument || subcommand(original)? != "attack" {
        return None;
    }
    let Some(ContextValue::String(bad)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let args: Vec<&str> = original.iter().filter_map(|a| a.to_str()).collect();
    let at = args.iter().position(|a| a == bad)?;
    let (method, url, used) = if looks_like_url(bad) {
        ("GET".to_string(), bad.clone(), vec![at])
    } else if METHODS.contains(&bad.to_ascii_uppercase().as_str())
        && args.get(at + 1).is_some_and(|u| looks_like_url(u))
    {
        (
            bad.to_ascii_uppercase(),
            args[at + 1].to_string(),
            vec![at, at + 1],
        )
    } else {
        return None;
    };
    let attack_at = args.iter().position(|a| *a == "attack")?;
    let rest: Vec<String> = args
        .iter()
        .enumerate()
        .skip(attack_at + 1)
        .filter(|(i, _)| !used.contains(i))
        .map(|(_, a)| shell_word(a))
        .collect();
    let mut cmd = "loadlab attack".to_string();
    for a in rest {
        cmd.push(' ');
        cmd.push_str(&a);
    }
    Some(format!(
        "loadlab: attack reads its targets from stdin (or -targets=FILE), not from its arguments: try echo \"{method} {url}\" | {cmd} | loadlab report"
    ))
}

/// `loadlab k6 hello.js` (k6's own `k6 run` left out): the script is not a
/// subcommand; suggests the command that runs it.
fn script_without_run(e: &clap::Error, original: &[OsString]) -> Option<String> {
    if e.kind() != ErrorKind::InvalidSubcommand || subcommand(original)? != "k6" {
        return None;
    }
    let Some(ContextValue::String(bad)) = e.get(ContextKind::InvalidSubcommand) else {
        return None;
    };
    let script = [".js", ".mjs", ".cjs", ".ts"]
        .iter()
        .any(|x| bad.to_ascii_lowercase().ends_with(x))
        || std::path::Path::new(bad).is_file();
    if !script {
        return None;
    }
    let args: Vec<&str> = original.iter().filter_map(|a| a.to_str()).collect();
    let k6_at = args.iter().position(|a| *a == "k6")?;
    let rest: Vec<String> = args[k6_at + 1..].iter().map(|a| shell_word(a)).collect();
    Some(format!(
        "loadlab: k6 has no subcommand '{bad}': did you mean 'loadlab k6 run {}'?; see 'loadlab k6 run --help'",
        rest.join(" ")
    ))
}

/// Quotes a word for a POSIX shell when it needs it.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_=./:,@%+".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_list_messages() {
        assert_eq!(
            join_message(&[
                "the following required arguments were not provided:".into(),
                "--ramp-duration <RAMP_DURATION>".into(),
                "--other".into()
            ]),
            "the following required arguments were not provided: --ramp-duration <RAMP_DURATION>, --other"
        );
    }

    #[test]
    fn keeps_possible_values_with_their_message() {
        assert_eq!(
            join_message(&[
                "invalid value 'x' for '--by <BY>'".into(),
                "[possible values: target, attack]".into()
            ]),
            "invalid value 'x' for '--by <BY>' [possible values: target, attack]"
        );
    }

    #[test]
    fn names_the_inner_subcommand_whose_help_to_see() {
        let words = |l: &[&str]| -> Vec<OsString> { l.iter().map(OsString::from).collect() };
        assert_eq!(
            subcommand(&words(&["loadlab", "k6", "run", "-u", "abc", "x.js"])).as_deref(),
            Some("k6 run")
        );
        assert_eq!(
            subcommand(&words(&["loadlab", "k8s", "render", "--workers", "x"])).as_deref(),
            Some("k8s render")
        );
        assert_eq!(
            subcommand(&words(&["loadlab", "attack", "-rate=abc"])).as_deref(),
            Some("attack")
        );
        assert_eq!(
            subcommand(&words(&["loadlab", "-x", "study", "plan.yaml"])).as_deref(),
            Some("study")
        );
        assert_eq!(subcommand(&words(&["loadlab"])), None);
    }

    #[test]
    fn a_script_without_run_gets_the_command_that_runs_it() {
        use clap::Parser;
        let argv = ["loadlab", "k6", "hello.js"];
        let words: Vec<OsString> = argv.iter().map(OsString::from).collect();
        let e = crate::Cli::try_parse_from(&words).unwrap_err();
        assert_eq!(
            one_line(&e, &words),
            "loadlab: k6 has no subcommand 'hello.js': did you mean 'loadlab k6 run hello.js'?; see 'loadlab k6 run --help'"
        );
        // Another word keeps clap's own answer.
        let words: Vec<OsString> = ["loadlab", "k6", "rum"]
            .iter()
            .map(OsString::from)
            .collect();
        let e = crate::Cli::try_parse_from(&words).unwrap_err();
        assert!(
            one_line(&e, &words).contains("'rum'"),
            "{}",
            one_line(&e, &words)
        );
    }

    #[test]
    fn quotes_shell_words() {
        assert_eq!(shell_word("-rate=10"), "-rate=10");
        assert_eq!(shell_word("-header=X-A: 1"), "'-header=X-A: 1'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
    }
}
