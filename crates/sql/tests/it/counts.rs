//! What a run counts, side by side with Debian's sysbench 1.0.20 on the
//! same server: a statement that returns no rows is a write only when it
//! changed a row, as sysbench's drivers count it (affected rows), so
//! `oltp_delete`'s DELETE of an id already gone is "other".

use crate::common;

use common::{figure, mysql_args, pgsql_args, run, sysbench, sysbench_or_skip};
use loadlab_testkit::db::{MariaDb, Postgres};

const ROWS: u64 = 10_000;
const EVENTS: u64 = 2_000;

/// read, write, other of a run's final blocks.
fn counts(out: &str) -> [u64; 3] {
    ["read:", "write:", "other:"].map(|l| figure(out, l) as u64)
}

/// `oltp_delete` over `EVENTS` events on `ROWS` fresh rows, by sysbench
/// then by loadlab; `left` counts the rows still in sbtest1.
fn deletes_side_by_side(a: &str, left: &dyn Fn() -> u64) {
    let prep = format!("{a} --table-size={ROWS} oltp_delete prepare");
    let go =
        format!("{a} --table-size={ROWS} --threads=2 --events={EVENTS} --time=0 oltp_delete run");
    sysbench(&prep);
    let theirs = counts(&sysbench(&go));
    let their_deleted = ROWS - left();
    sysbench(&format!("{a} oltp_delete cleanup"));
    run(&prep).unwrap();
    let out = run(&go).unwrap();
    let ours = counts(&out);
    let our_deleted = ROWS - left();
    run(&format!("{a} oltp_delete cleanup")).unwrap();
    assert_eq!(figure(&out, "transactions:") as u64, EVENTS, "{out}");
    // One statement per event, no read; a write per row removed.
    for (who, c, deleted) in [
        ("sysbench", theirs, their_deleted),
        ("loadlab", ours, our_deleted),
    ] {
        assert_eq!(c[0], 0, "{who}: {c:?}");
        assert_eq!(c[1] + c[2], EVENTS, "{who}: {c:?}");
        assert_eq!(c[1], deleted, "{who}: writes are the rows deleted: {c:?}");
    }
    // Most draws of the default distribution hit a few hot ids: most
    // DELETEs find their row gone. The same distribution removes about
    // as many rows in either tool.
    eprintln!("oltp_delete read/write/other: loadlab {ours:?}, sysbench {theirs:?}");
    assert!(theirs[1] < EVENTS / 2, "sysbench {theirs:?}");
    let (w_l, w_s) = (ours[1] as f64, theirs[1] as f64);
    assert!(
        (w_l - w_s).abs() <= 0.15 * w_s,
        "writes: loadlab {ours:?}, sysbench {theirs:?}"
    );
}

#[test]
fn oltp_delete_counts_as_sysbench_on_mariadb() {
    let Some(_) = sysbench_or_skip("oltp_delete_counts_as_sysbench_on_mariadb") else {
        return;
    };
    let Some(db) = MariaDb::start_or_skip("oltp_delete_counts_as_sysbench_on_mariadb") else {
        return;
    };
    let left = || {
        db.root_sql("SELECT COUNT(*) FROM sbtest.sbtest1")
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    deletes_side_by_side(&mysql_args(db.port), &left);
}

#[test]
fn oltp_delete_counts_as_sysbench_on_postgres() {
    let Some(_) = sysbench_or_skip("oltp_delete_counts_as_sysbench_on_postgres") else {
        return;
    };
    let Some(db) = Postgres::start_or_skip("oltp_delete_counts_as_sysbench_on_postgres") else {
        return;
    };
    let left = || {
        db.superuser_sql("sbtest", "SELECT count(*) FROM sbtest1")
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    deletes_side_by_side(&pgsql_args(db.port), &left);
}

/// Every test, one thread, on the same tables: sysbench's read, write and
/// other per event, exactly (`oltp_delete`: its writes depend on the
/// random ids drawn, so only reads and statements per event).
fn every_test_side_by_side(a: &str) {
    for test in [
        "oltp_read_only",
        "oltp_read_write",
        "oltp_write_only",
        "oltp_point_select",
        "oltp_update_index",
        "oltp_update_non_index",
        "oltp_insert",
        "oltp_delete",
        "select_random_points",
        "select_random_ranges",
    ] {
        sysbench(&format!("{a} --table-size=1000 {test} prepare"));
        let go = format!("{a} --table-size=1000 --threads=1 --events=100 --time=0 {test} run");
        let theirs = counts(&sysbench(&go));
        let out = run(&go).unwrap_or_else(|e| panic!("{test}: {e}"));
        let ours = counts(&out);
        sysbench(&format!("{a} {test} cleanup"));
        assert_eq!(figure(&out, "transactions:"), 100.0, "{test}\n{out}");
        if test == "oltp_delete" {
            assert_eq!(
                ours[0], theirs[0],
                "{test}: loadlab {ours:?}, sysbench {theirs:?}"
            );
            assert_eq!(ours[1] + ours[2], theirs[1] + theirs[2], "{test}");
        } else {
            assert_eq!(
                ours, theirs,
                "{test}: loadlab {ours:?}, sysbench {theirs:?}"
            );
        }
    }
}

#[test]
fn every_test_counts_as_sysbench_on_mariadb() {
    let Some(_) = sysbench_or_skip("every_test_counts_as_sysbench_on_mariadb") else {
        return;
    };
    let Some(db) = MariaDb::start_or_skip("every_test_counts_as_sysbench_on_mariadb") else {
        return;
    };
    every_test_side_by_side(&mysql_args(db.port));
}

#[test]
fn every_test_counts_as_sysbench_on_postgres() {
    let Some(_) = sysbench_or_skip("every_test_counts_as_sysbench_on_postgres") else {
        return;
    };
    let Some(db) = Postgres::start_or_skip("every_test_counts_as_sysbench_on_postgres") else {
        return;
    };
    every_test_side_by_side(&pgsql_args(db.port));
}
