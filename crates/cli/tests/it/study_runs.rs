//! What a study run is and when a study stops: a crossed k6 threshold is a
//! measurement, scripts and databases are checked before the first run,
//! a target that is down stops the study, a run whose generator fell
//! behind is marked, and a sysbench run counts transactions.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output};

use loadlab_testkit::db::{DATABASE, MariaDb, PASSWORD, USER};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

fn study(dir: &Path, pw: &str) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .env("LL_DB_PW", pw)
        .args(["study", "plan.yaml", "--db", "s.db", "--out", "out"])
        .output_bounded()
        .unwrap()
}

fn runs(dir: &Path) -> Vec<loadlab_study::store::RunRow> {
    loadlab_study::Store::open(&dir.join("s.db"))
        .unwrap()
        .runs(1)
        .unwrap()
}

#[test]
fn a_crossed_threshold_is_recorded_and_the_study_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.js"),
        r#"import http from 'k6/http';
export const options = { thresholds: { http_req_duration: ['p(95)<50'] } };
export default function () { http.get(`${__ENV.BASE_URL}/slow`); }
"#,
    )
    .unwrap();
    let plan = r#"name: thresholds
origin:
  recipes:
    - {route: /slow, body: "x", stages: [{at: 0, status: 200, latency: 80ms}]}
targets:
  - name: s
    script: t.js
    env: {BASE_URL: "{origin}"}
load:
  vus: [1, 2]
  step: 1s
"#;
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("thresholds crossed: http_req_duration p(95)<50"),
        "{err}"
    );
    let runs = runs(d);
    assert_eq!(runs.len(), 2, "both steps run");
    for r in &runs {
        assert!(r.summary.requests > 0, "{:?}", r.summary);
        assert_eq!(
            r.summary.thresholds,
            vec![loadlab_study::collect::ThresholdVerdict {
                metric: "http_req_duration".into(),
                threshold: "p(95)<50".into(),
                ok: false,
            }]
        );
    }
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(
        md.contains("Threshold     http_req_duration p(95)<50: crossed"),
        "{md}"
    );
    // The summary table has the step's verdict beside the SLO's.
    assert!(md.contains("| SLO | Thresholds |"), "{md}");
    assert!(
        md.contains("| crossed: http_req_duration p(95)<50 in 1 of 1 runs |"),
        "{md}"
    );
}

#[test]
fn a_script_that_does_not_compile_stops_the_study_before_its_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("bad.js"),
        "export default function () { let x = ; }\n",
    )
    .unwrap();
    let plan = "name: bad-script
targets:
  - name: s
    script: bad.js
load:
  vus: [1, 2]
  step: 1s
";
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(107), "{err}");
    assert_eq!(err.matches("loadlab:").count(), 1, "{err}");
    assert!(err.contains("target s: k6: bad.js:1:"), "{err}");
    assert!(err.contains("SyntaxError"), "{err}");
    assert!(!err.contains("engine:"), "{err}");
    assert!(
        !d.join("s.db").exists(),
        "no store for a study that cannot run"
    );
}

#[test]
fn a_target_that_is_down_stops_the_study_after_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let plan = format!(
        "name: down
targets:
  - name: api
    url: http://127.0.0.1:{port}/
load:
  rates: [5, 10, 20]
  step: 1s
repetitions: 2
"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(7), "{err}");
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.starts_with(
            "loadlab: target api: connection refused on every request: is the target up?"
        ),
        "{err}"
    );
    // The run line says it too.
    assert!(
        err.lines()
            .any(|l| l.starts_with("[run 1/6") && l.contains("connection refused on every request")),
        "{err}"
    );
    let runs = runs(d);
    assert_eq!(runs.len(), 1, "the run is stored, the others are not run");
    assert!(runs[0].summary.unreachable());
}

#[test]
fn a_run_whose_generator_fell_behind_is_marked_and_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // One worker, one connection, a 200 ms route: at most 5 requests a
    // second leave, where the schedule asks for 50.
    let plan = "name: behind
origin:
  recipes:
    - {route: /slow, body: \"x\", stages: [{at: 0, status: 200, latency: 200ms}]}
targets:
  - name: a
    url: \"{origin}/slow\"
load:
  rates: [50]
  step: 2s
  workers: 1
  max_workers: 1
  connections: 1
  max_connections: 1
hypotheses:
  - a.p99 < 10s
";
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let runs = runs(d);
    assert_eq!(runs.len(), 1);
    let s = &runs[0].summary;
    assert!(s.generator_behind(), "{s:?}");
    assert!(
        err.contains("the generator fell behind: this run measures the client"),
        "{err}"
    );
    // The terminal answer flags the verdict and names the run.
    assert!(
        err.contains("[flagged: 1 run(s) where the generator fell behind]"),
        "{err}"
    );
    assert!(err.contains("sweep 50/s a #1"), "{err}");
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(
        md.contains("Generator     the generator fell behind"),
        "{md}"
    );
    // The report names the run where its readers look first, beside the
    // verdicts, and the verdict says it is flagged.
    let listed = md
        .split("## Runs that did not measure the target")
        .nth(1)
        .unwrap_or_else(|| panic!("no list of the runs: {md}"));
    assert!(
        listed.contains("In 1 run(s) the generator fell behind"),
        "{md}"
    );
    assert!(listed.contains("- sweep 50/s a #1"), "{md}");
    assert!(md.contains("Flagged: 1 of the runs it rests on"), "{md}");
}

/// `--mysql-*` options of the private server, without the password.
fn conn(db: &MariaDb) -> String {
    format!(
        "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={} --mysql-user={USER} --mysql-db={DATABASE}",
        db.port
    )
}

#[test]
fn a_database_that_refuses_the_login_stops_the_study_before_its_store() {
    let Some(db) = MariaDb::start_or_skip(
        "a_database_that_refuses_the_login_stops_the_study_before_its_store",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = format!(
        "name: db-login
targets:
  - name: points
    sysbench: oltp_point_select {} --mysql-password=${{LL_DB_PW}} --table-size=100
load:
  threads: [1, 2]
  step: 1s
",
        conn(&db)
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "wrong");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(20), "{err}");
    assert_eq!(err.matches("loadlab:").count(), 1, "{err}");
    // The server's words survive the redaction of the password `wrong`.
    assert!(err.contains("wrong user name or password"), "{err}");
    assert!(!err.contains("REDACTED user name"), "{err}");
    assert!(
        !d.join("s.db").exists(),
        "no store for a study that cannot run"
    );
}

#[test]
fn a_sysbench_study_counts_transactions_and_shows_queries() {
    let Some(db) = MariaDb::start_or_skip("a_sysbench_study_counts_transactions_and_shows_queries")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let c = conn(&db);
    let prep = Command::new(BIN)
        .current_dir(d)
        .args(
            format!(
                "sysbench {c} --mysql-password={PASSWORD} --table-size=200 oltp_read_only prepare"
            )
            .split_whitespace(),
        )
        .output_bounded()
        .unwrap();
    assert!(
        prep.status.success(),
        "{}",
        String::from_utf8_lossy(&prep.stderr)
    );
    let plan = format!(
        "name: db-unit
targets:
  - name: ro
    sysbench: oltp_read_only {c} --mysql-password=${{LL_DB_PW}} --table-size=200
load:
  threads: [1]
  step: 2s
"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, PASSWORD);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let runs = runs(d);
    assert_eq!(runs.len(), 1);
    let s = &runs[0].summary;
    let q = s.queries.as_ref().expect("queries counted");
    // oltp_read_only: 14 statements per transaction, plus BEGIN and COMMIT.
    assert!(s.requests > 5, "{s:?}");
    assert!(
        q.count >= 14 * s.requests && q.count <= 16 * s.requests + 16,
        "{} statements for {} transactions",
        q.count,
        s.requests
    );
    assert!(q.per_second > 10.0 * s.throughput, "{q:?} {}", s.throughput);
    assert!(err.contains(" tps, ") && err.contains(" qps, "), "{err}");
    assert!(!err.contains("ok/s"), "{err}");
    let shown = Command::new(BIN)
        .current_dir(d)
        .args(["runs", "run", &runs[0].id.to_string(), "--db", "s.db"])
        .output_bounded()
        .unwrap();
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(
        shown.status.success(),
        "{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(
        !text.contains("200:"),
        "no HTTP status for transactions:\n{text}"
    );
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(md.contains(" tps, ") && md.contains(" qps ("), "{md}");
    // The summary table speaks of transactions, not HTTP.
    assert!(md.contains("| tps | qps |"), "{md}");
    assert!(
        !md.contains("Status codes") && !md.contains("coordinated omission"),
        "{md}"
    );
}

#[test]
fn a_database_that_is_down_stops_the_study_before_its_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let plan = format!(
        "name: db-down
targets:
  - name: points
    sysbench: oltp_point_select --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={port} --mysql-password=${{LL_DB_PW}}
load:
  threads: [1, 2]
  step: 1s
"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "hunter22");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("loadlab: target points: sysbench: "),
        "{err}"
    );
    assert!(!err.contains("hunter22"), "{err}");
    assert!(
        !d.join("s.db").exists(),
        "no store for a study that cannot run"
    );
}

#[test]
fn a_step_that_fails_keeps_its_faces_exit_code_and_one_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // It compiles, and its init code runs: only its setup() throws, when
    // the first step starts.
    std::fs::write(
        d.join("t.js"),
        "export function setup() { throw new Error('no fixtures'); }\nexport default function () {}\n",
    )
    .unwrap();
    let plan = "name: setup-throws
targets:
  - name: s
    script: t.js
load:
  vus: [1, 2]
  step: 1s
";
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(107), "{err}");
    let last = err.lines().last().unwrap_or("");
    assert!(
        last.starts_with("loadlab: target s at 1 VUs: k6 failed (exit status 107): "),
        "{err}"
    );
    assert!(last.contains("no fixtures"), "{err}");
    assert_eq!(last.matches("loadlab").count(), 1, "{err}");
    assert!(!err.contains("engine:"), "{err}");
}
