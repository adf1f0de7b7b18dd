//! `loadlab sysbench --help` and `loadlab sysbench TESTNAME help` beside
//! Debian's sysbench 1.0.20's own (`sysbench --help`, `sysbench
//! oltp_read_write help`): the same sections in the same order, the same
//! descriptions and defaults for the options both have, and every option
//! sysbench lists that loadlab does not named as not supported.

use crate::common::sysbench_or_skip;
use loadlab_sql::Test;
use loadlab_testkit::proc::BoundedOutput;

fn sysbench_stdout(args: &[&str]) -> String {
    let out = std::process::Command::new("sysbench")
        .args(args)
        .output_bounded()
        .unwrap();
    assert!(out.status.success(), "sysbench {args:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn test_help_is_sysbench_1_0_20s_but_the_two_options_loadlab_lacks() {
    if sysbench_or_skip("test_help_is_sysbench_1_0_20s_but_the_two_options_loadlab_lacks").is_none()
    {
        return;
    }
    for t in Test::ALL {
        let theirs = sysbench_stdout(&[t.name(), "help"]);
        let ours = loadlab_sql::test_help(t);
        // From the second line (the first names the program).
        let theirs: Vec<&str> = theirs
            .lines()
            .skip(1)
            .filter(|l| !l.starts_with("  --pgsql_variant=") && !l.starts_with("  --secondary["))
            .collect();
        let ours: Vec<&str> = ours.lines().skip(1).collect();
        let (last, ours) = ours.split_last().unwrap();
        assert_eq!(
            *last,
            "Not supported by loadlab: --pgsql_variant, --secondary",
            "{}",
            t.name()
        );
        assert_eq!(ours, &theirs[..], "{}", t.name());
    }
}

/// A help text's sections: each header (a line ending in `:` at the
/// margin) with its options (`--name`, then what follows the
/// `=TYPE` column: the description and the default).
fn sections(text: &str) -> Vec<(String, Vec<(String, String)>)> {
    let mut v: Vec<(String, Vec<(String, String)>)> = Vec::new();
    for line in text.lines() {
        if !line.starts_with(' ') && line.ends_with(':') {
            v.push((line.to_string(), Vec::new()));
        } else if let Some(rest) = line.strip_prefix("  --") {
            let end = rest.find(['=', '[', ' ']).unwrap();
            let name = rest[..end].to_string();
            let after_type = rest[end..].split_once(' ').unwrap().1.trim_start();
            v.last_mut().unwrap().1.push((name, after_type.to_string()));
        }
    }
    v
}

/// Where loadlab's help says, on purpose, something else than sysbench's.
const DIFFERENT: &[&str] = &[
    // loadlab's default is 2 s (sysbench's is off).
    "forced-shutdown",
    // loadlab's lists only what it supports.
    "rand-type",
    "db-driver",
    // where the password comes from when it is not given.
    "mysql-password",
    "pgsql-password",
];

/// Whether `--name` is in `text` as a whole option name.
fn names(text: &str, name: &str) -> bool {
    let pat = format!("--{name}");
    text.match_indices(&pat).any(|(i, _)| {
        !text[i + pat.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    })
}

#[test]
fn help_has_sysbench_1_0_20s_sections_and_names_what_it_lacks() {
    if sysbench_or_skip("help_has_sysbench_1_0_20s_sections_and_names_what_it_lacks").is_none() {
        return;
    }
    let theirs = sysbench_stdout(&["--help"]);
    let ours = loadlab_sql::usage();
    let not_supported = &ours[ours.find("Not supported by loadlab").unwrap()..];
    let (theirs_s, ours_s) = (sections(&theirs), sections(&ours));
    // Their sections, in their order, up to the tests (which differ).
    let shared: Vec<&str> = theirs_s
        .iter()
        .map(|(h, _)| h.as_str())
        .take_while(|h| !h.starts_with("Compiled-in tests"))
        .collect();
    let ours_heads: Vec<&str> = ours_s.iter().map(|(h, _)| h.as_str()).collect();
    assert_eq!(&ours_heads[..shared.len()], &shared[..], "{ours}");
    for ((head, their_opts), (_, our_opts)) in theirs_s.iter().zip(&ours_s).take(shared.len()) {
        for (name, rest) in our_opts {
            let Some((_, their_rest)) = their_opts.iter().find(|(n, _)| n == name) else {
                panic!("{head} --{name}: not in sysbench's help");
            };
            if !DIFFERENT.contains(&name.as_str()) {
                assert_eq!(rest, their_rest, "{head} --{name}");
            }
        }
        for (name, _) in their_opts {
            if !our_opts.iter().any(|(n, _)| n == name) {
                assert!(
                    names(not_supported, name),
                    "{head} --{name}: neither listed nor said to be unsupported\n{not_supported}"
                );
            }
        }
    }
    // Their tests that are not loadlab's are named too.
    let tests = &theirs[theirs.find("Compiled-in tests:").unwrap()..];
    for line in tests.lines().skip(1).take_while(|l| !l.is_empty()) {
        let t = line.split_whitespace().next().unwrap();
        assert!(not_supported.contains(t), "test {t}");
    }
    assert!(ours.ends_with(
        "See 'loadlab sysbench <testname> help' for a list of options for each test.\n\n"
    ));
}

#[test]
fn help_lists_every_test_and_the_0_4_options() {
    let ours = loadlab_sql::usage();
    for t in Test::ALL {
        assert!(
            ours.contains(&format!("\n  {} - ", t.name())),
            "{}",
            t.name()
        );
    }
    for o in [
        "--test=STRING",
        "--oltp-read-only[=on|off]",
        "--oltp-table-size=N",
    ] {
        assert!(ours.contains(o), "{o}");
    }
}
