//! `loadlab sysbench --db-driver=pgsql` against a private PostgreSQL 15
//! (Debian's, in a temporary directory on a free 127.0.0.1 port, run as
//! `nobody` when the tests run as root).

use crate::common;

use common::{figure, pg_commits, pgsql_args, run, sysbench, sysbench_or_skip};
use loadlab_sql::Error;
use loadlab_testkit::db::{PASSWORD, Postgres};

#[test]
fn postgres_runs_every_test_and_reports_errors() {
    let Some(db) = Postgres::start_or_skip("postgres_runs_every_test_and_reports_errors") else {
        return;
    };
    let a = pgsql_args(db.port);
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
        run(&format!("{a} --table-size=200 {test} prepare")).unwrap();
        for ps in ["auto", "disable"] {
            let out = run(&format!(
                "{a} --table-size=200 --threads=2 --events=30 --db-ps-mode={ps} {test} run"
            ))
            .unwrap_or_else(|e| panic!("{test} {ps}: {e}"));
            assert_eq!(figure(&out, "transactions:"), 30.0, "{test}\n{out}");
        }
        run(&format!("{a} {test} cleanup")).unwrap();
    }
    let left = db
        .superuser_sql(
            "sbtest",
            "SELECT count(*) FROM pg_tables WHERE tablename LIKE 'sbtest%'",
        )
        .unwrap();
    assert_eq!(left.trim(), "0");

    let e = run(&format!(
        "{a} --pgsql-password=Xyzzy-Bad-Pw --events=1 oltp_read_only run"
    ))
    .unwrap_err();
    assert!(matches!(e, Error::Auth { .. }), "{e:?}");
    assert!(!e.to_string().contains(PASSWORD) && !e.to_string().contains("Xyzzy"));
    let e = run(&format!(
        "{a} --pgsql-db=nosuchdb --events=1 oltp_read_only run"
    ))
    .unwrap_err();
    assert!(matches!(e, Error::UnknownDb { .. }), "{e:?}");
    let e = run(&format!("{a} --events=1 oltp_read_only run")).unwrap_err();
    assert!(matches!(e, Error::TablesMissing { .. }), "{e:?}");
    run(&format!("{a} --table-size=100 oltp_read_only prepare")).unwrap();
    let e = run(&format!("{a} --table-size=100 oltp_read_only prepare")).unwrap_err();
    assert!(matches!(e, Error::TablesExist { .. }), "{e:?}");
    let refused = loadlab_testkit::refused::Refused::new();
    let dead = refused.port();
    let e = run(&format!(
        "{} --events=1 oltp_read_only run",
        pgsql_args(dead)
    ))
    .unwrap_err();
    assert!(matches!(e, Error::Refused { .. }), "{e:?}");
}

#[test]
fn postgres_tables_are_shared_with_sysbench_both_ways() {
    let Some(_) = sysbench_or_skip("postgres_tables_are_shared_with_sysbench_both_ways") else {
        return;
    };
    let Some(db) = Postgres::start_or_skip("postgres_tables_are_shared_with_sysbench_both_ways")
    else {
        return;
    };
    let a = pgsql_args(db.port);
    let schema = || {
        db.superuser_sql(
            "sbtest",
            "SELECT string_agg(column_name || ' ' || data_type || ' ' || coalesce(character_maximum_length::text, '') \
             || ' ' || coalesce(column_default, ''), ', ' ORDER BY ordinal_position) FROM information_schema.columns \
             WHERE table_name = 'sbtest1'",
        )
        .unwrap()
            + &db
                .superuser_sql("sbtest", "SELECT string_agg(indexdef, '; ' ORDER BY indexname) FROM pg_indexes WHERE tablename = 'sbtest1'")
                .unwrap()
    };
    sysbench(&format!("{a} --table-size=200 oltp_read_write prepare"));
    let theirs = schema();
    let out = run(&format!(
        "{a} --table-size=200 --threads=2 --events=40 oltp_read_write run"
    ))
    .unwrap();
    assert_eq!(figure(&out, "transactions:"), 40.0, "{out}");
    run(&format!("{a} oltp_read_write cleanup")).unwrap();
    run(&format!("{a} --table-size=200 oltp_read_write prepare")).unwrap();
    assert_eq!(schema(), theirs);
    let out = sysbench(&format!(
        "{a} --table-size=200 --threads=2 --events=40 --time=0 oltp_read_write run"
    ));
    assert!(
        out.contains("transactions:                        40 "),
        "{out}"
    );
}

#[test]
fn postgres_killed_mid_run_ends_the_run_with_one_line() {
    let Some(mut db) =
        Postgres::start_or_skip("postgres_killed_mid_run_ends_the_run_with_one_line")
    else {
        return;
    };
    let a = pgsql_args(db.port);
    run(&format!("{a} --table-size=200 oltp_read_only prepare")).unwrap();
    let line = format!("{a} --table-size=200 --threads=2 --time=30 oltp_read_only run");
    let before = pg_commits(&db, "sbtest");
    let h = std::thread::spawn(move || run(&line));
    // Kill the server mid-run, once it has committed some of the run's
    // transactions (so some of them have completed on the client too).
    loadlab_testkit::proc::wait_until(
        "the run's first commits",
        loadlab_testkit::proc::PATIENCE,
        || pg_commits(&db, "sbtest") >= before + 5,
    );
    let t0 = std::time::Instant::now();
    db.kill();
    let e = h.join().unwrap().unwrap_err();
    // Ended by the kill, well before its 30 s.
    assert!(t0.elapsed() < std::time::Duration::from_secs(20));
    assert!(
        matches!(e, Error::Lost { transactions, .. } if transactions > 0),
        "{e:?}"
    );
    assert!(!e.to_string().contains('\n'));
}
