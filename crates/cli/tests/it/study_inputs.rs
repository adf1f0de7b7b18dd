//! What a study refuses when its plan is loaded, before a store or a run:
//! a plan nested deeper than any plan needs (in well under a second, where
//! the YAML reader alone would take minutes), a monitored process that is
//! not there, and an `--out` folder that cannot be written.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

fn loadlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output_bounded()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A plan that would run one second against a closed port, if nothing
/// stopped it first.
const PLAN: &str =
    "name: p\ntargets:\n  - name: a\n    url: http://127.0.0.1:9/\nload: {rates: [10], step: 1s}\n";

#[test]
fn a_deeply_nested_plan_is_refused_at_its_place_before_the_yaml_reader() {
    let dir = tempfile::tempdir().unwrap();
    for (name, deep) in [
        ("flow.yaml", format!("{PLAN}x: {}\n", "[".repeat(100_000))),
        ("maps.yaml", format!("{PLAN}x: {}\n", "{a: ".repeat(50_000))),
        (
            "dashes.yaml",
            format!("{PLAN}x:\n{}y\n", "- ".repeat(100_000)),
        ),
    ] {
        std::fs::write(dir.path().join(name), &deep).unwrap();
        for args in [
            vec!["study", name, "--db", "s.db"],
            vec!["k8s", "render", "--workers", "2", name],
        ] {
            let t0 = Instant::now();
            let o = loadlab(dir.path(), &args);
            // Seconds, not the minutes the reader took: a generous bound
            // for a loaded machine, far below the failure it guards.
            assert!(t0.elapsed() < Duration::from_secs(20), "{args:?}");
            assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
            let e = stderr(&o);
            assert!(
                e.contains(&format!("{name}:6:")) || e.contains(&format!("{name}:7:")),
                "{e}"
            );
            assert!(e.contains("nested too deeply"), "{e}");
        }
        assert!(!dir.path().join("s.db").exists());
    }
}

#[test]
fn a_monitored_process_that_is_not_there_is_a_plan_error() {
    let dir = tempfile::tempdir().unwrap();
    let plan = format!("{PLAN}monitor:\n  process: no-such-process-here\n");
    std::fs::write(dir.path().join("p.yaml"), plan).unwrap();
    let o = loadlab(dir.path(), &["study", "p.yaml", "--db", "s.db"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("p.yaml:7:12: monitor.process: no process named \"no-such-process-here\""),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!dir.path().join("s.db").exists(), "no store is made");
}

#[test]
fn an_out_folder_that_cannot_be_written_is_refused_before_the_first_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("p.yaml"), PLAN).unwrap();
    std::fs::write(dir.path().join("afile"), "x").unwrap();
    let o = loadlab(
        dir.path(),
        &["study", "p.yaml", "--db", "s.db", "--out", "afile/report"],
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("--out afile/report: afile is not a folder"),
        "{e}"
    );
    assert!(
        !dir.path().join("s.db").exists(),
        "no store is made, no run"
    );
}

#[test]
fn check_validates_a_plan_without_a_store_or_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let plan = root.join("examples/c5-vs-c6g.yaml");
    let o = loadlab(
        dir.path(),
        &["study", "--check", plan.to_str().unwrap(), "--db", "s.db"],
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        out.contains("a valid plan: \"c5-vs-c6g\": 2 target(s)"),
        "{out}"
    );
    assert!(out.contains("estimated time: about"), "{out}");
    assert!(!dir.path().join("s.db").exists(), "no store is made");
    // A script that does not compile: k6's code, found by the check.
    std::fs::write(dir.path().join("bad.js"), "export default function ( {\n").unwrap();
    let plan = "name: p\ntargets:\n  - name: s\n    script: bad.js\nload: {vus: [1], step: 1s}\n";
    std::fs::write(dir.path().join("p.yaml"), plan).unwrap();
    let o = loadlab(dir.path(), &["study", "--check", "p.yaml", "--db", "s.db"]);
    assert_eq!(o.status.code(), Some(107), "{}", stderr(&o));
    assert!(!dir.path().join("s.db").exists());
}
