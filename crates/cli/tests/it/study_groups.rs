//! Concurrent groups whose members are scripts or database tests: every
//! member's load starts on the group's common instant (`--start-at` of
//! the member's process), and the group's run says how far apart they
//! began.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output};

use loadlab_testkit::db::{DATABASE, MariaDb, PASSWORD, USER};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

fn study(dir: &Path) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .env("LL_DB_PW", PASSWORD)
        .args(["study", "plan.yaml", "--db", "s.db", "--out", "out"])
        .output_bounded()
        .unwrap()
}

/// The group's run and its members' runs, by target name.
fn runs(dir: &Path) -> Vec<loadlab_study::store::RunRow> {
    loadlab_study::Store::open(&dir.join("s.db"))
        .unwrap()
        .runs(1)
        .unwrap()
}

fn spread(runs: &[loadlab_study::store::RunRow], group: &str) -> Option<u64> {
    let g = runs
        .iter()
        .find(|r| r.target == group)
        .expect("the group's run");
    g.summary
        .group
        .as_ref()
        .expect("a group note")
        .start_spread_ns
}

#[test]
fn script_members_start_on_the_groups_instant() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.js"),
        "import http from 'k6/http';\nexport default function () { http.get(`${__ENV.BASE_URL}/a`); }\n",
    )
    .unwrap();
    let plan = r#"name: scripts
origin:
  recipes:
    - {route: /a, body: "x", stages: [{at: 0, status: 200}]}
targets:
  - name: g
    concurrent:
      - {name: one, script: t.js, env: {BASE_URL: "{origin}"}}
      - {name: two, script: t.js, env: {BASE_URL: "{origin}"}}
load:
  vus: [1]
  step: 1s
"#;
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let runs = runs(d);
    assert_eq!(runs.len(), 3, "the group and its two members");
    for r in &runs {
        assert!(r.summary.requests > 0, "{}: {:?}", r.target, r.summary);
    }
    // Both scripts' processes report when their scenarios began, so the
    // spread is measured (a script started when launched has none).
    assert!(spread(&runs, "g").is_some(), "{err}");
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(
        md.contains("Concurrent    2 workloads together (start spread "),
        "{md}"
    );
}

#[test]
fn a_database_member_starts_with_the_http_one() {
    let Some(db) = MariaDb::start_or_skip("a_database_member_starts_with_the_http_one") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let c = format!(
        "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={} --mysql-user={USER} --mysql-db={DATABASE}",
        db.port
    );
    let prep = Command::new(BIN)
        .current_dir(d)
        .env("MYSQL_PWD", PASSWORD)
        .args(format!("sysbench {c} --table-size=100 oltp_point_select prepare").split_whitespace())
        .output_bounded()
        .unwrap();
    assert!(
        prep.status.success(),
        "{}",
        String::from_utf8_lossy(&prep.stderr)
    );
    let plan = format!(
        r#"name: web-and-db
origin:
  recipes:
    - {{route: /a, body: "x", stages: [{{at: 0, status: 200}}]}}
targets:
  - name: g
    concurrent:
      - {{name: web, url: "{{origin}}/a"}}
      - {{name: db, sysbench: "oltp_point_select {c} --mysql-password=${{LL_DB_PW}} --table-size=100"}}
load:
  rates: [20]
  step: 2s
"#
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = study(d);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let runs = runs(d);
    assert_eq!(runs.len(), 3, "the group and its two members");
    let db_run = runs.iter().find(|r| r.target == "g/db").expect("db member");
    assert!(db_run.summary.queries.is_some(), "{:?}", db_run.summary);
    assert!(spread(&runs, "g").is_some(), "{err}");
}
