//! The examples that run on one machine as shipped
//! (examples/dsps-channels-local.yaml, examples/mysql-local.yaml), through
//! the real binary: each is checked with `study --check` as shipped but
//! for the address of the test's own server, then run shortened (fewer
//! steps, shorter, one repetition). The servers are the ones the examples'
//! header comments start, in-process: `loadlab_testkit::pubsub` (the
//! `dsps-like` program's server; the plan's `monitor` then names this
//! process by pid) and a private MariaDB made as `private-db --mariadb
//! --database small --database large` makes it.

use loadlab_testkit::proc::BoundedOutput;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use loadlab_testkit::db::{MariaDb, MariaDbOptions};
use loadlab_testkit::pubsub;

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");
const PASSWORD: &str = "local-example-pw";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(name: &str) -> String {
    std::fs::read_to_string(repo().join("examples").join(name)).unwrap()
}

/// `yaml` with each `(from, to)` replaced once (each must be there).
fn edited(yaml: &str, edits: &[(&str, &str)]) -> String {
    let mut y = yaml.to_string();
    for (from, to) in edits {
        assert!(y.contains(from), "{from:?} is not in the example");
        y = y.replacen(from, to, 1);
    }
    y
}

fn loadlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .env("MYSQL_PASSWORD", PASSWORD)
        .args(args)
        .output_bounded()
        .unwrap()
}

/// Writes `yaml` as `name` in `dir` and checks it with `study --check`:
/// its outline on stdout.
fn check(dir: &Path, name: &str, yaml: &str) -> String {
    std::fs::write(dir.join(name), yaml).unwrap();
    let out = loadlab(dir, &["study", "--check", name]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{name}: {err}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs the plan `name` in `dir`; the report's Markdown and the stderr.
fn study(dir: &Path, name: &str) -> (String, String) {
    let out = loadlab(dir, &["study", name, "--db", "s.db", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let md = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    (md, err)
}

#[test]
fn the_local_dsps_channel_sweep_checks_and_runs_against_the_dsps_like_server() {
    let (addr, srv) = pubsub::serve_blocking();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let script = repo().join("crates/script/tests/scripts/dsps_loadtest.k6.js");
    let base = format!("BASE_URL: http://{addr}");
    let pid = format!("pid: {}", std::process::id());
    let script = format!("script: {}", script.display());
    let local = [
        ("BASE_URL: http://127.0.0.1:3000", base.as_str()),
        ("process: dsps-like", pid.as_str()),
        (
            "script: ../crates/script/tests/scripts/dsps_loadtest.k6.js",
            script.as_str(),
        ),
    ];
    let shipped = edited(&example("dsps-channels-local.yaml"), &local);
    let outline = check(d, "shipped.yaml", &shipped);
    assert!(
        outline.contains("3 step(s) (CHANNELS: 10, 20, 40) × 3 repetition(s) = 9 runs of 8s"),
        "{outline}"
    );

    let short = edited(
        &shipped,
        &[
            ("CHANNELS: [10, 20, 40]", "CHANNELS: [2, 4]"),
            ("TEST_DURATION_SEC: 6", "TEST_DURATION_SEC: 1"),
            ("step: 8s", "step: 3s"),
            ("repetitions: 3", "repetitions: 1"),
            ("interval: 1s", "interval: 200ms"),
        ],
    );
    check(d, "short.yaml", &short);
    let (md, err) = study(d, "short.yaml");
    let runs = loadlab_study::Store::open(&d.join("s.db"))
        .unwrap()
        .runs(1)
        .unwrap();
    assert_eq!(runs.len(), 2, "{err}");
    for r in &runs {
        assert_eq!(r.summary.success, 1.0, "{:?}", r.summary.errors);
        assert!(!r.monitor.is_empty(), "the monitor sampled: {err}");
    }
    // Twice the channels, about twice the requests.
    let (two, four) = (runs[0].summary.requests, runs[1].summary.requests);
    assert!(four > two * 3 / 2, "{two} {four}\n{err}");
    // The server carried the script's messages; the report has the
    // script's own figures and the hypothesis' verdict.
    let n = srv.counts();
    assert!(n.published > 0 && n.delivered > 0 && n.acks > 0, "{n:?}");
    for want in [
        "| CHANNELS=4 | dsps | dsps_msg_delay_ms | trend |",
        "| CHANNELS=4 | dsps | dsps_fetched_messages | counter |",
        "1. `dsps.cpu < 100 at CHANNELS <= 40`",
    ] {
        assert!(md.contains(want), "{want} in\n{md}");
    }
}

#[test]
fn the_local_mysql_thread_sweep_checks_and_runs_against_a_private_mariadb() {
    let test = "the_local_mysql_thread_sweep_checks_and_runs_against_a_private_mariadb";
    let opts = MariaDbOptions {
        user: "sysbench".into(),
        password: PASSWORD.into(),
        databases: vec!["small".into(), "large".into()],
        ..MariaDbOptions::default()
    };
    let Some(db) = MariaDb::start_with_or_skip(test, opts) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The header's prepare commands, with the test server's port and
    // smaller tables (the plan's sizes are not checked against the rows).
    let port = format!("--mysql-port={}", db.port);
    for (name, rows) in [("small", 200), ("large", 2000)] {
        let line = format!(
            "sysbench oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 {port} \
             --mysql-user=sysbench --mysql-password={PASSWORD} --mysql-db={name} \
             --table-size={rows} prepare"
        );
        let out = loadlab(d, &line.split_whitespace().collect::<Vec<_>>());
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let shipped = example("mysql-local.yaml").replace("--mysql-port=3307", &port);
    let outline = check(d, "shipped.yaml", &shipped);
    assert!(
        outline.contains("2 target(s) (small, large) × 3 step(s) (threads: 1, 4, 16) × 3 repetition(s) = 18 runs of 4s"),
        "{outline}"
    );

    let short = edited(
        &shipped,
        &[
            ("--table-size=10000\n", "--table-size=200\n"),
            ("--table-size=1000000", "--table-size=2000"),
            ("threads: [1, 4, 16]", "threads: [1, 2]"),
            ("step: 4s", "step: 2s"),
            ("warmup: 1s", "warmup: 500ms"),
            ("cooldown: 1s", "cooldown: 200ms"),
            ("repetitions: 3", "repetitions: 1"),
        ],
    );
    check(d, "short.yaml", &short);
    let (md, err) = study(d, "short.yaml");
    let runs = loadlab_study::Store::open(&d.join("s.db"))
        .unwrap()
        .runs(1)
        .unwrap();
    assert_eq!(runs.len(), 4, "{err}");
    for r in &runs {
        assert!(
            r.summary.requests > 10,
            "{} {}: {:?}",
            r.target,
            r.rate,
            r.summary
        );
        assert_eq!(r.summary.success, 1.0, "{:?}", r.summary.errors);
    }
    for want in [
        "1. `small.tps > large.tps at threads <= 4`",
        "2. `small.p95 < large.p95 at threads <= 4`",
        "--mysql-password=${MYSQL_PASSWORD}",
        "Summary by threads and target",
    ] {
        assert!(md.contains(want), "{want} in\n{md}");
    }
    assert!(!md.contains(PASSWORD), "the password is not in the report");
}
