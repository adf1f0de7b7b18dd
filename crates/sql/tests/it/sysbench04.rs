//! sysbench 0.4's `--test=oltp` command lines against a private MariaDB:
//! the statement mix of sysbench 0.4.12's default (complex) mode, counted
//! as 0.4 counts it, checked against the server's own counters of the
//! statements it ran.

use crate::common;

use common::{figure, mysql_args, run};
use loadlab_testkit::db::{MariaDb, PASSWORD};

/// A 0.4 command line's connection part, as the MySQL thread sweep's lines
/// give it.
fn legacy_args(port: u16) -> String {
    format!(
        "--test=oltp --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={port} \
         --mysql-db=sbtest --mysql-user=sbtest --mysql-password={PASSWORD}"
    )
}

/// MariaDB's counters of the statements run, by kind (text and prepared
/// alike), read in one query.
const KINDS: [&str; 6] = [
    "Com_select",
    "Com_update",
    "Com_delete",
    "Com_insert",
    "Com_begin",
    "Com_commit",
];

fn server_counts(db: &MariaDb) -> [u64; 6] {
    let list = KINDS.map(|k| format!("'{k}'")).join(",");
    let out = db
        .root_sql(&format!(
            "SHOW GLOBAL STATUS WHERE Variable_name IN ({list})"
        ))
        .unwrap();
    KINDS.map(|k| {
        out.lines()
            .find_map(|l| {
                let (name, v) = l.split_once('\t')?;
                (name == k).then(|| v.trim().parse().unwrap())
            })
            .unwrap_or_else(|| panic!("no {k} in {out}"))
    })
}

/// What a run did on the server: `after - before`, kind by kind.
fn delta(before: [u64; 6], after: [u64; 6]) -> [u64; 6] {
    std::array::from_fn(|i| after[i] - before[i])
}

/// read, write, other of a run's report.
fn counts(out: &str) -> [u64; 3] {
    ["read:", "write:", "other:"].map(|l| figure(out, l) as u64)
}

#[test]
fn oltp_04_runs_0_4_12s_statement_mix() {
    let Some(db) = MariaDb::start_or_skip("oltp_04_runs_0_4_12s_statement_mix") else {
        return;
    };
    let a = legacy_args(db.port);
    run(&format!("{a} --oltp-table-size=1000 prepare")).unwrap();

    // The default line: complex mode, BEGIN/COMMIT, 300 requests.
    let before = server_counts(&db);
    let out = run(&format!(
        "{a} --oltp-table-size=1000 --max-requests=300 run"
    ))
    .unwrap();
    let server = delta(before, server_counts(&db));
    let n = 300;
    assert_eq!(figure(&out, "transactions:") as u64, n, "{out}");
    // 14 reads, 5 writes, BEGIN and COMMIT per transaction, as 0.4.12's
    // reports show (140000/50000/20000 for its default 10000 requests).
    assert_eq!(counts(&out), [14 * n, 5 * n, 2 * n], "{out}");
    // The server ran them: 10 point and 4 range SELECTs (and the one
    // SELECT of the check that the table exists), 3 UPDATEs (on the index,
    // off it, and on the id deleted and put back), a DELETE and an INSERT.
    assert_eq!(server, [14 * n + 1, 3 * n, n, n, n, n], "{out}");

    // The MySQL thread sweep's read-write line (shorter): no BEGIN/COMMIT,
    // so 14 reads and 5 writes a transaction and nothing else, the ratio
    // of its reports (100072 reads, 35740 writes in 7148 transactions).
    let before = server_counts(&db);
    let out = run(&format!(
        "{a} --oltp-table-size=1000 --max-time=1 --max-requests=0 --oltp-skip-trx \
         --oltp-nontrx-mode=select --num-threads=1 run"
    ))
    .unwrap();
    let server = delta(before, server_counts(&db));
    let n = figure(&out, "transactions:") as u64;
    assert!(n > 0, "{out}");
    assert_eq!(counts(&out), [14 * n, 5 * n, 0], "{out}");
    assert_eq!(server, [14 * n + 1, 3 * n, n, n, 0, 0], "{out}");

    // Read-only: the 14 reads between BEGIN and COMMIT, nothing written.
    let before = server_counts(&db);
    let out = run(&format!(
        "{a} --oltp-table-size=1000 --max-requests=50 --oltp-read-only run"
    ))
    .unwrap();
    assert_eq!(counts(&out), [14 * 50, 0, 2 * 50], "{out}");
    assert_eq!(
        delta(before, server_counts(&db)),
        [14 * 50 + 1, 0, 0, 0, 50, 50]
    );

    // Every DELETE put its row back: the table still has its 1000 rows.
    let rows = db.root_sql("SELECT COUNT(*) FROM sbtest.sbtest1").unwrap();
    assert_eq!(rows.trim(), "1000");

    // sysbench 1.0's oltp_read_write on the same tables keeps 1.0's mix:
    // 4 writes, counted by the rows they changed.
    let out = run(&format!(
        "{} --table-size=1000 --events=100 --time=0 oltp_read_write run",
        mysql_args(db.port)
    ))
    .unwrap();
    assert_eq!(counts(&out), [14 * 100, 4 * 100, 2 * 100], "{out}");
}

#[test]
fn oltp_04_counts_by_statement_kind() {
    let Some(db) = MariaDb::start_or_skip("oltp_04_counts_by_statement_kind") else {
        return;
    };
    let a = legacy_args(db.port);
    run(&format!("{a} --oltp-table-size=100 prepare")).unwrap();
    // An UPDATE that changes no row is still one of 0.4's writes (1.0
    // would count it "other"): with every row gone, most UPDATEs and
    // DELETEs find nothing, and only the INSERTs put rows back.
    db.root_sql("DELETE FROM sbtest.sbtest1").unwrap();
    let before = server_counts(&db);
    let out = run(&format!("{a} --oltp-table-size=100 --max-requests=20 run")).unwrap();
    assert_eq!(counts(&out), [14 * 20, 5 * 20, 2 * 20], "{out}");
    assert_eq!(
        delta(before, server_counts(&db)),
        [14 * 20 + 1, 3 * 20, 20, 20, 20, 20]
    );
}
