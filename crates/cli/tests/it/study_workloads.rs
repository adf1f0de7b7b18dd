//! Studies whose targets are a sysbench test (against a private MariaDB)
//! and a k6 script (against the in-process origin): the real binary, each
//! step a child `loadlab sysbench|k6`, figures in the store and the report,
//! and no password anywhere on disk.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::Command;

use loadlab_testkit::db::{DATABASE, MariaDb, PASSWORD, USER};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

fn loadlab(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(dir)
        .env("LL_DB_PW", PASSWORD)
        .args(args)
        .output_bounded()
        .unwrap()
}

/// Every file under `dir`, read as bytes.
fn all_files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            all_files(&p, out);
        } else {
            out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
}

#[test]
fn a_sysbench_thread_sweep_runs_as_a_study() {
    let Some(db) = MariaDb::start_or_skip("a_sysbench_thread_sweep_runs_as_a_study") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let conn = format!(
        "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={} --mysql-user={USER} --mysql-db={DATABASE}",
        db.port
    );
    let prep: Vec<String> = format!(
        "sysbench {conn} --mysql-password={PASSWORD} --table-size=500 oltp_point_select prepare"
    )
    .split_whitespace()
    .map(str::to_string)
    .collect();
    let prep: Vec<&str> = prep.iter().map(String::as_str).collect();
    let out = loadlab(d, &prep);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = format!(
        "name: db-sweep
targets:
  - name: points
    sysbench: oltp_point_select {conn} --mysql-password=${{LL_DB_PW}} --table-size=500
  - name: ranges
    sysbench: select_random_ranges {conn} --mysql-password=${{LL_DB_PW}} --table-size=500
load:
  threads: [1, 2]
  step: 2s
repetitions: 1
hypotheses:
  - points.tps > ranges.tps at threads >= 1
"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = loadlab(d, &["study", "plan.yaml", "--db", "s.db", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // One line per run, on the threads axis.
    assert!(err.contains("sweep 2 thr points #1"), "{err}");
    let store = loadlab_study::Store::open(&d.join("s.db")).unwrap();
    let runs = store.runs(1).unwrap();
    assert_eq!(runs.len(), 4);
    for r in &runs {
        // Transactions were measured: at least a few per second per thread.
        assert!(
            r.summary.requests > 10,
            "{} {}: {:?}",
            r.target,
            r.rate,
            r.summary
        );
        assert_eq!(r.summary.success, 1.0, "{:?}", r.summary.errors);
    }
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(md.contains("Summary by threads and target"), "{md}");
    assert!(md.contains("--threads=2 --time=2 run"), "{md}");
    assert!(md.contains("--mysql-password=${LL_DB_PW}"), "{md}");
    // The password is nowhere: not in the store, the report or its pages.
    let mut files = Vec::new();
    all_files(d, &mut files);
    for (name, bytes) in files {
        let hit = bytes
            .windows(PASSWORD.len())
            .any(|w| w == PASSWORD.as_bytes());
        assert!(!hit, "the password is in {name}");
    }
}

#[test]
fn a_script_steps_along_its_env_list() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.js"),
        r#"import http from 'k6/http';
import { Counter } from 'k6/metrics';
const hits = new Counter('hits');
export const options = { vus: Number(__ENV.N), duration: '1s' };
export default function () {
  http.get(`${__ENV.BASE_URL}/a`);
  hits.add(1);
}
"#,
    )
    .unwrap();
    let plan = r#"name: script-sweep
origin:
  recipes:
    - {route: /a, body: "hello", stages: [{at: 0, status: 200, latency: 20ms}]}
targets:
  - name: s
    script: t.js
    env: {BASE_URL: "{origin}", N: [1, 4]}
load:
  step: 1s
hypotheses:
  - s.p50 < 1s at N >= 1
"#;
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    // k6's option variables in the shell that runs the study do not reach
    // its steps (they would make a 9-VU, 3 s step of each): the plan says.
    let out = Command::new(BIN)
        .current_dir(d)
        .env("K6_VUS", "9")
        .env("K6_DURATION", "3s")
        .args(["study", "plan.yaml", "--db", "s.db", "--out", "out"])
        .output_bounded()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let store = loadlab_study::Store::open(&d.join("s.db")).unwrap();
    let runs = store.runs(1).unwrap();
    assert_eq!(runs.len(), 2);
    let (one, four) = (&runs[0].summary, &runs[1].summary);
    // A 20 ms origin: about 50 iterations a second per VU.
    assert!(one.requests >= 10 && one.requests <= 60, "{one:?}");
    assert!(four.requests > 2 * one.requests, "{one:?}\n{four:?}");
    let hits = four
        .metrics
        .iter()
        .find(|m| m.label == "hits")
        .unwrap_or_else(|| panic!("no hits counter in {:?}", four.metrics));
    assert_eq!(hits.kind, "counter");
    assert!(
        hits.value >= four.requests as f64 - 4.0,
        "{hits:?} {four:?}"
    );
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(md.contains("Script and database metrics"), "{md}");
    assert!(md.contains("N=4"), "{md}");
}
