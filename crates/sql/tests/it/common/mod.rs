#![allow(dead_code)]

use loadlab_sql::{Error, Options, Parsed};
use loadlab_testkit::proc::BoundedOutput;

/// Options from a command line (whitespace-separated).
pub fn opts(line: &str) -> Options {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    match loadlab_sql::parse(&args).unwrap_or_else(|e| panic!("{line}: {e}")) {
        Parsed::Do(o) => *o,
        other => panic!("{line}: {other:?}"),
    }
}

/// Runs a command line; returns what it printed, or the error.
pub fn run(line: &str) -> Result<String, Error> {
    let mut out = Vec::new();
    loadlab_sql::execute(opts(line), &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

pub fn mysql_args(port: u16) -> String {
    format!(
        "--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={port} --mysql-user={} --mysql-password={} --mysql-db={}",
        loadlab_testkit::db::USER,
        loadlab_testkit::db::PASSWORD,
        loadlab_testkit::db::DATABASE
    )
}

pub fn pgsql_args(port: u16) -> String {
    format!(
        "--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port={port} --pgsql-user={} --pgsql-password={} --pgsql-db={}",
        loadlab_testkit::db::USER,
        loadlab_testkit::db::PASSWORD,
        loadlab_testkit::db::DATABASE
    )
}

/// The figure after `label` in sysbench's final blocks (`transactions:`…).
pub fn figure(out: &str, label: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no '{label}' in:\n{out}"));
    line.split_once(':')
        .unwrap()
        .1
        .split(|c: char| c.is_whitespace() || c == '/')
        .find(|w| !w.is_empty())
        .unwrap()
        .trim_end_matches('s')
        .parse()
        .unwrap()
}

/// Debian's sysbench, if installed (CI installs it; elsewhere the
/// cross-tool checks say loudly that they were skipped).
pub fn sysbench_or_skip(test: &str) -> Option<&'static str> {
    let ok = std::process::Command::new("sysbench")
        .arg("--version")
        .output_bounded()
        .is_ok_and(|o| o.status.success());
    if !ok {
        if std::env::var_os("CI").is_some() {
            panic!("{test}: sysbench is required in CI (apt-get install -y sysbench)");
        }
        eprintln!("\n!!!!!!!!!! SKIPPED {test}: no sysbench on PATH !!!!!!!!!!\n");
        return None;
    }
    Some("sysbench")
}

/// Runs Debian's sysbench with `line`; panics unless it succeeds.
pub fn sysbench(line: &str) -> String {
    let out = std::process::Command::new("sysbench")
        .args(line.split_whitespace())
        .output_bounded()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && !text.contains("FATAL"),
        "sysbench {line}:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// The sum of MariaDB's global status counters `names` (e.g. `Com_commit`):
/// what the server has seen of a run, to wait on.
pub fn mariadb_status(db: &loadlab_testkit::db::MariaDb, names: &[&str]) -> u64 {
    let list = names
        .iter()
        .map(|n| format!("'{n}'"))
        .collect::<Vec<_>>()
        .join(",");
    let out = db
        .root_sql(&format!(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
        ))
        .unwrap();
    out.lines()
        .filter_map(|l| l.split('\t').nth(1)?.trim().parse::<u64>().ok())
        .sum()
}

/// Waits until MariaDB's counters `names` have grown by `by` from `from`
/// (a run is under way on the server); bounded, see
/// [`loadlab_testkit::proc::wait_until`].
pub fn wait_mariadb_status(db: &loadlab_testkit::db::MariaDb, names: &[&str], from: u64, by: u64) {
    loadlab_testkit::proc::wait_until(
        &format!("MariaDB's {names:?} to grow by {by}"),
        loadlab_testkit::proc::PATIENCE,
        || mariadb_status(db, names) >= from + by,
    );
}

/// The transactions committed in PostgreSQL's database `db_name`, as its
/// statistics say (`pg_stat_database.xact_commit`).
pub fn pg_commits(db: &loadlab_testkit::db::Postgres, db_name: &str) -> u64 {
    db.superuser_sql(
        "postgres",
        &format!("SELECT xact_commit FROM pg_stat_database WHERE datname = '{db_name}'"),
    )
    .unwrap()
    .trim()
    .parse()
    .unwrap_or(0)
}
