//! `loadlab k6 run`'s exit codes where a script's setup() or teardown()
//! fails, an absurd VU count, and unknown option keys: as k6 v1.

use loadlab_testkit::proc::BoundedOutput;
use std::process::{Command, Output};

fn run(script: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.js");
    std::fs::write(&path, script).unwrap();
    let o: Output = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(["k6", "run", "-q"])
        .args(args)
        .arg(&path)
        .current_dir(dir.path())
        .output_bounded()
        .expect("run loadlab");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn an_exception_in_teardown_exits_107_after_the_summary() {
    let (code, out, err) = run(
        "export const options = { vus: 1, iterations: 1 };\n\
         export default function () {}\n\
         export function teardown() { throw new Error('boom'); }\n",
        &[],
    );
    assert_eq!(code, 107, "{err}");
    assert!(err.contains("Error: boom"), "{err}");
    assert!(out.contains("iterations"), "the summary is given: {out}");
}

#[test]
fn teardown_past_its_timeout_exits_101() {
    let (code, out, err) = run(
        "import { sleep } from 'k6';\n\
         export const options = { vus: 1, iterations: 1, teardownTimeout: '100ms' };\n\
         export default function () {}\n\
         export function teardown() { sleep(3); }\n",
        &[],
    );
    assert_eq!(code, 101, "{err}");
    assert!(err.contains("teardown() execution timed out"), "{err}");
    assert!(out.contains("iterations"), "the summary is given: {out}");
}

#[test]
fn setup_past_its_timeout_exits_100() {
    let (code, _, err) = run(
        "import { sleep } from 'k6';\n\
         export const options = { vus: 1, iterations: 1, setupTimeout: '100ms' };\n\
         export default function () {}\n\
         export function setup() { sleep(3); }\n",
        &[],
    );
    assert_eq!(code, 100, "{err}");
    assert!(err.contains("setup() execution timed out"), "{err}");
}

#[test]
fn an_absurd_vu_count_is_an_invalid_option_not_an_abort() {
    for args in [
        &["-u", "99999999999", "-d", "1s"][..],
        &["--stage", "1s:5000000"][..],
    ] {
        let (code, _, err) = run("export default function () {}\n", args);
        assert_eq!(code, 104, "{args:?}: {err}");
        assert!(err.contains("VUs asked for"), "{err}");
        assert_eq!(
            err.lines().filter(|l| l.starts_with("loadlab:")).count(),
            1,
            "{err}"
        );
    }
    let (code, _, err) = run(
        "export const options = { scenarios: { a: { executor: 'constant-arrival-rate', \
         rate: 1, duration: '1s', preAllocatedVUs: 1, maxVUs: 2000000 } } };\n\
         export default function () {}\n",
        &[],
    );
    assert_eq!(code, 104, "{err}");
}

#[test]
fn unknown_option_keys_are_warned_about_as_k6_does() {
    let (code, _, err) = run(
        "export const options = { vuz: 10, iterations: 1 };\n\
         export default function () {}\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
    let warn: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("There were unknown fields in the options exported in the script"))
        .collect();
    assert_eq!(warn.len(), 1, "{err}");
    assert!(
        warn[0].contains("level=warning") && warn[0].contains("vuz"),
        "{err}"
    );
    let (_, _, err) = run(
        "export const options = { vus: 1, iterations: 1 };\nexport default function () {}\n",
        &[],
    );
    assert!(!err.contains("unknown fields"), "{err}");
}

/// An async default function that throws leaves a promise nobody caught:
/// k6 logs `Uncaught (in promise) …` with no `source` field (a synchronous
/// throw has `source=stacktrace`).
#[test]
fn a_rejected_iteration_is_logged_as_k6_logs_an_uncaught_promise() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.js"),
        "export const options = { iterations: 1 };\n\
         export default async function () { await Promise.resolve(); throw 'boom'; }\n",
    )
    .unwrap();
    let errors = |o: &std::process::Output| -> Vec<serde_json::Value> {
        String::from_utf8_lossy(&o.stderr)
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["level"] == "error")
            .collect()
    };
    let ours = std::process::Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "--log-format=json", "a.js"])
        .output_bounded()
        .expect("run loadlab");
    let got = errors(&ours);
    assert_eq!(got.len(), 1, "{}", String::from_utf8_lossy(&ours.stderr));
    assert_eq!(got[0]["msg"], "Uncaught (in promise) boom");
    assert!(got[0].get("source").is_none(), "{:?}", got[0]);
    let Some(k6) = loadlab_testkit::k6::k6_or_skip(
        "a_rejected_iteration_is_logged_as_k6_logs_an_uncaught_promise",
    ) else {
        return;
    };
    let theirs = loadlab_testkit::k6::run_command(&k6)
        .current_dir(dir.path())
        .args(["-q", "--log-format=json", "a.js"])
        .output_bounded()
        .expect("run k6");
    let want = errors(&theirs);
    assert_eq!(want.len(), 1);
    assert_eq!(got[0]["msg"], want[0]["msg"]);
    assert_eq!(got[0].get("source"), want[0].get("source"));
}

/// A thrown value that is not an `Error` is logged as k6 logs it:
/// `String(value)`, then the frames of its last `throw`, the innermost at
/// the throw's own line and column (QuickJS keeps no stack for such a
/// value: loadlab marks the throws, see `js/throw_sites.rs`). Columns of
/// the outer frames differ (QuickJS marks a call where its callee
/// starts); files, functions and lines agree.
#[test]
fn thrown_values_name_their_place_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let scripts = [
        (
            "fn.js",
            "export const options = { iterations: 1 };\nfunction inner() {\n  if (__ITER === 0) throw 'boom'; inner();\n}\nexport default function () {\n  inner();\n}\n",
        ),
        (
            "obj.js",
            "export const options = { iterations: 1 };\nexport default function () {\n  const o = { code: 7 }; throw o;\n}\n",
        ),
        (
            "again.js",
            "export const options = { iterations: 1 };\nexport default function () {\n  try { throw 'inner'; } catch (e) { throw e; }\n}\n",
        ),
    ];
    // `msg` of each error line, with k6's `file:///dir/` and bytecode
    // offsets (`:3:3(2)`) taken out; each frame as (function, file, line)
    // and the first frame's column.
    let shape = |msg: &str, dir: &str| -> (String, Vec<String>, String) {
        let msg = msg.replace(&format!("file://{dir}/"), "");
        let mut lines = msg.trim_end().split("\n\tat ");
        let text = lines.next().unwrap_or("").to_string();
        let frames: Vec<&str> = lines.collect();
        let first_col = frames
            .first()
            .and_then(|f| f.rsplit(':').next())
            .map(|c| {
                c.trim_end_matches(')')
                    .split('(')
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .unwrap_or_default();
        let frames = frames
            .iter()
            .map(|f| f.rsplit_once(':').map_or("", |x| x.0).to_string())
            .collect();
        (text, frames, first_col)
    };
    let dir_s = dir.path().canonicalize().unwrap().display().to_string();
    for (name, code) in scripts {
        std::fs::write(dir.path().join(name), code).unwrap();
        let mut seen = Vec::new();
        for tool in crate::side_by_side::tools("thrown_values_name_their_place_as_k6") {
            let o = tool
                .command()
                .current_dir(dir.path())
                .args(["-q", "--log-format=json", name])
                .output_bounded()
                .unwrap();
            let errors: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stderr)
                .lines()
                .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .filter(|v| v["level"] == "error")
                .collect();
            assert_eq!(errors.len(), 1, "{} {name}: {errors:?}", tool.name);
            assert_eq!(errors[0]["source"], "stacktrace", "{} {name}", tool.name);
            seen.push(shape(errors[0]["msg"].as_str().unwrap(), &dir_s));
        }
        let ours = &seen[0];
        let (text, frames, col) = match name {
            "fn.js" => ("boom", vec!["inner (fn.js:3", "default (fn.js:6"], "21"),
            "obj.js" => ("[object Object]", vec!["default (obj.js:3"], "26"),
            _ => ("inner", vec!["default (again.js:3"], "38"),
        };
        assert_eq!(ours.0, text, "{name}");
        assert_eq!(ours.1, frames, "{name}");
        assert_eq!(ours.2, col, "{name}");
        if let Some(k6) = seen.get(1) {
            assert_eq!(k6, ours, "{name}: k6 against loadlab");
        }
    }
}
