//! `loadlab sysbench` against a private MariaDB (Debian's mariadb-server in
//! a temporary directory on a free 127.0.0.1 port): every test, the
//! results file, `--rate`, the MySQL thread sweep's 0.4 lines, tables
//! shared with Debian's sysbench 1.0.20 both ways, and the errors a user
//! hits.

use crate::common;

use std::time::{Duration, Instant};

use common::{
    figure, mariadb_status, mysql_args, run, sysbench, sysbench_or_skip, wait_mariadb_status,
};

/// MariaDB's counters of committed transactions, text or prepared.
const COMMITS: &[&str] = &["Com_commit"];
/// MariaDB's counters of the statements a run sends, text or prepared.
use loadlab_sql::Error;
use loadlab_testkit::db::{MariaDb, MariaDbOptions, PASSWORD};

/// Statements per transaction by class (read, write, other) with the
/// default options, from sysbench's Lua scripts.
fn per_tx(test: &str) -> (u64, u64, u64) {
    match test {
        "oltp_read_only" => (14, 0, 2),
        "oltp_read_write" => (14, 4, 2),
        "oltp_write_only" => (0, 4, 2),
        "oltp_point_select" => (1, 0, 0),
        "oltp_update_index" | "oltp_update_non_index" | "oltp_insert" => (0, 1, 0),
        // A write when the row was there, else "other" (tests::counts).
        "oltp_delete" => (0, 0, 0),
        "select_random_points" | "select_random_ranges" => (1, 0, 0),
        _ => unreachable!(),
    }
}

#[test]
fn every_test_prepares_runs_and_cleans_up() {
    let Some(db) = MariaDb::start_or_skip("every_test_prepares_runs_and_cleans_up") else {
        return;
    };
    let a = mysql_args(db.port);
    for (i, test) in [
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
    ]
    .into_iter()
    .enumerate()
    {
        // Each thread model in turn: both connections tasks of one client
        // thread; the default (tasks on a client thread per CPU); an OS
        // thread per connection with a blocking socket.
        let ct = ["--client-threads=1", "", "--client-threads=2"][i % 3];
        let out = run(&format!("{a} --table-size=200 {test} prepare")).unwrap();
        assert!(out.contains("Creating table 'sbtest1'..."), "{out}");
        let out = run(&format!(
            "{a} --table-size=200 --threads=2 --events=40 --time=30 --rand-seed=7 {ct} {test} run"
        ))
        .unwrap_or_else(|e| panic!("{test}: {e}"));
        assert_eq!(figure(&out, "transactions:"), 40.0, "{test}\n{out}");
        let (r, w, o) = per_tx(test);
        let errors = figure(&out, "ignored errors:") as u64;
        if test == "oltp_delete" {
            // One DELETE per event: a write for each row it removed, the
            // others (the row already gone) "other".
            let n = db.root_sql("SELECT COUNT(*) FROM sbtest.sbtest1").unwrap();
            let deleted = 200 - n.trim().parse::<u64>().unwrap();
            assert_eq!(figure(&out, "write:") as u64, deleted, "{out}");
            assert_eq!(figure(&out, "other:") as u64, 40 - deleted, "{out}");
            assert_eq!(figure(&out, "read:"), 0.0, "{out}");
            assert_eq!(figure(&out, "events (avg/stddev):"), 20.0, "{out}");
            run(&format!("{a} {test} cleanup")).unwrap();
            continue;
        }
        // Ignored deadlocks add a rollback and a retry each: at least the
        // statements of 40 whole transactions.
        assert!(figure(&out, "read:") as u64 >= 40 * r, "{test}\n{out}");
        assert!(figure(&out, "write:") as u64 >= 40 * w, "{test}\n{out}");
        assert_eq!(
            figure(&out, "other:") as u64,
            40 * o + errors * u64::from(o > 0),
            "{test}\n{out}"
        );
        if errors == 0 {
            assert_eq!(figure(&out, "read:") as u64, 40 * r, "{test}\n{out}");
            assert_eq!(figure(&out, "write:") as u64, 40 * w, "{test}\n{out}");
        }
        assert_eq!(figure(&out, "events (avg/stddev):"), 20.0, "{test}\n{out}");
        if test == "oltp_insert" {
            let n = db.root_sql("SELECT COUNT(*) FROM sbtest.sbtest1").unwrap();
            assert_eq!(n.trim(), "240", "40 rows inserted");
        }
        let out = run(&format!("{a} {test} cleanup")).unwrap();
        assert!(out.contains("Dropping table 'sbtest1'..."), "{out}");
        let left = db.root_sql("SHOW TABLES FROM sbtest").unwrap();
        assert_eq!(left.trim(), "", "{test}: tables left after cleanup");
    }
}

#[test]
fn rate_results_file_and_thread_sweep_lines() {
    let Some(db) = MariaDb::start_or_skip("rate_results_file_and_thread_sweep_lines") else {
        return;
    };
    let a = mysql_args(db.port);
    // The MySQL thread sweep's prepare line, only the binary and the size changed.
    run(&format!(
        "--test=oltp --db-driver=mysql --oltp-table-size=500 --mysql-host=127.0.0.1 --mysql-port={} \
         --mysql-db=sbtest --mysql-user=sbtest --mysql-password={PASSWORD} prepare",
        db.port
    ))
    .unwrap();
    // The MySQL thread sweep's read-only line, shorter.
    let out = run(&format!(
        "--test=oltp --db-driver=mysql --oltp-table-size=500 --mysql-host=127.0.0.1 --mysql-port={} \
         --mysql-db=sbtest --mysql-user=sbtest --mysql-password={PASSWORD} --max-time=1 \
         --max-requests=0 --oltp-read-only --oltp-skip-trx --oltp-nontrx-mode=select --num-threads=4 run",
        db.port
    ))
    .unwrap();
    let tx = figure(&out, "transactions:");
    assert!(tx > 0.0, "{out}");
    // Read-only, no transactions: 14 reads each, no writes, no BEGIN/COMMIT.
    assert_eq!(figure(&out, "read:"), 14.0 * tx, "{out}");
    assert_eq!((figure(&out, "write:"), figure(&out, "other:")), (0.0, 0.0));
    assert!(out.contains("Number of threads: 4"), "{out}");

    // Text queries, the histogram, another percentile.
    let out = run(&format!(
        "{a} --table-size=500 --threads=2 --events=30 --db-ps-mode=disable --histogram --percentile=99 oltp_read_write run"
    ))
    .unwrap();
    assert_eq!(figure(&out, "transactions:"), 30.0, "{out}");
    assert!(
        out.contains("Latency histogram (values are in milliseconds)\n"),
        "{out}"
    );
    assert!(out.contains("         99th percentile:"), "{out}");
    assert!(!out.contains("95th"), "{out}");

    // --rate: open model, interval and queue lines, the no-queue line;
    // in both thread models (tasks of client threads, and an OS thread
    // per connection with a blocking socket).
    for ct in ["", "--client-threads=2"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("run.bin");
        let out = run(&format!(
        "{a} --table-size=500 --threads=2 --rate=100 --time=2 --report-interval=1 {ct} -o {} oltp_read_only run",
        file.display()
    ))
    .unwrap();
        let tx = figure(&out, "transactions:") as u64;
        // Never more than the schedule; at least half of it even when a
        // busy machine leaves the rest queued at the time limit.
        assert!((100..=201).contains(&tx), "{tx} at 100/s for 2 s\n{out}");
        assert!(out.contains("[ 1s ] thds: 2 tps: "), "{out}");
        assert!(out.contains("[ 1s ] queue length: "), "{out}");
        assert!(out.contains("Target transaction rate: 100/sec"), "{out}");
        assert!(out.contains("95th percentile (no queue):"), "{out}");
        // As sysbench 1.0's, the latency counts from the intended start
        // (queue wait included): never less than the percentile from the
        // moment a thread started the transaction.
        let pct = |l: &str| figure(&out, l);
        assert!(
            pct("95th percentile:") >= pct("95th percentile (no queue):"),
            "{out}"
        );

        // The results file: one sample per transaction and per statement, in
        // series tagged by statement kind.
        let f = std::fs::File::open(&file).unwrap();
        let mut r = loadlab_metrics::open_results(f, "run.bin").unwrap();
        let mut by_stmt = std::collections::BTreeMap::<String, u64>::new();
        while let Some(item) = r.next_item() {
            if let loadlab_metrics::Item::Request(rec) = item.unwrap() {
                let s = rec.series.as_ref().expect("a series");
                assert_eq!(s.tag("test"), Some("oltp_read_only"));
                *by_stmt
                    .entry(s.tag("statement").unwrap().to_string())
                    .or_default() += 1;
            }
        }
        assert_eq!(by_stmt["transaction"], tx, "{by_stmt:?}");
        assert!(by_stmt["point_select"] >= 10 * tx, "{by_stmt:?}");
        assert!(
            by_stmt["begin"] >= tx && by_stmt["commit"] >= tx,
            "{by_stmt:?}"
        );
        assert!(
            !std::fs::read(&file)
                .unwrap()
                .windows(PASSWORD.len())
                .any(|w| w == PASSWORD.as_bytes())
        );
    }
}

/// A `--rate` the threads cannot keep up with: sysbench 1.0 stops with
/// "FATAL: The event queue is full" once 131,072 transactions are due and
/// not started; so does loadlab, with the figures of the time it ran.
#[test]
fn an_unreachable_rate_stops_when_the_event_queue_is_full() {
    let Some(db) = MariaDb::start_or_skip("an_unreachable_rate_stops_when_the_event_queue_is_full")
    else {
        return;
    };
    let a = mysql_args(db.port);
    run(&format!("{a} --table-size=100 oltp_point_select prepare")).unwrap();
    // Ten million a second on one connection: the queue passes the limit
    // within milliseconds on any machine; --time bounds the run if not.
    let line =
        format!("{a} --table-size=100 --threads=1 --rate=10000000 --time=30 oltp_point_select run");
    let mut out = Vec::new();
    let ended =
        loadlab_sql::execute_until(common::opts(&line), &mut out, std::future::pending()).unwrap();
    let out = String::from_utf8(out).unwrap();
    let loadlab_sql::Ended::QueueFull {
        queued, seconds, ..
    } = ended
    else {
        panic!("ended {ended:?}, not on a full queue\n{out}");
    };
    assert!(queued > loadlab_sql::QUEUE_LIMIT, "{queued}");
    assert!(
        seconds < 30.0,
        "stopped by --time, not the queue: {seconds}"
    );
    assert!(
        out.contains(
            "FATAL: The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate\n"
        ),
        "{out}"
    );
    // The figures of the time it ran follow; the queue wait is in them.
    assert!(figure(&out, "transactions:") > 0.0, "{out}");
    let pct = |l: &str| figure(&out, l);
    assert!(
        pct("95th percentile:") >= pct("95th percentile (no queue):"),
        "{out}"
    );
}

#[test]
fn tables_are_shared_with_sysbench_both_ways() {
    let Some(sb) = sysbench_or_skip("tables_are_shared_with_sysbench_both_ways") else {
        return;
    };
    let _ = sb;
    let Some(db) = MariaDb::start_or_skip("tables_are_shared_with_sysbench_both_ways") else {
        return;
    };
    let a = mysql_args(db.port);
    let schema = || {
        let s = db.root_sql("SHOW CREATE TABLE sbtest.sbtest1").unwrap();
        // The AUTO_INCREMENT counter differs by a batch boundary at most.
        s.split_whitespace()
            .filter(|w| !w.starts_with("AUTO_INCREMENT="))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let shapes = || {
        db.root_sql(
            "SELECT COUNT(*), MIN(id), MAX(id), MIN(k) >= 1, MAX(k) <= 300, \
             SUM(c REGEXP '^([0-9]{11}-){9}[0-9]{11}$'), SUM(pad REGEXP '^([0-9]{11}-){4}[0-9]{11}$') \
             FROM sbtest.sbtest1",
        )
        .unwrap()
    };
    // sysbench prepares, loadlab runs.
    sysbench(&format!(
        "{a} --table-size=300 --tables=2 oltp_read_write prepare"
    ));
    let theirs = schema();
    let their_shapes = shapes();
    let out = run(&format!(
        "{a} --table-size=300 --tables=2 --threads=2 --events=50 oltp_read_write run"
    ))
    .unwrap();
    assert_eq!(figure(&out, "transactions:"), 50.0, "{out}");
    run(&format!("{a} --tables=2 oltp_read_write cleanup")).unwrap();
    // loadlab prepares, sysbench runs.
    run(&format!(
        "{a} --table-size=300 --tables=2 oltp_read_write prepare"
    ))
    .unwrap();
    assert_eq!(schema(), theirs, "same columns, keys, index, engine");
    assert_eq!(
        shapes(),
        their_shapes,
        "same row count, ids, k range and value shapes"
    );
    assert_eq!(their_shapes.trim(), "300\t1\t300\t1\t1\t300\t300");
    let out = sysbench(&format!(
        "{a} --table-size=300 --tables=2 --threads=2 --events=50 --time=0 oltp_read_write run"
    ));
    assert!(
        out.contains("transactions:                        50 "),
        "{out}"
    );
    sysbench(&format!("{a} --tables=2 oltp_read_write cleanup"));
}

#[test]
fn errors_are_one_clear_line_and_leave_the_data() {
    let Some(db) = MariaDb::start_or_skip("errors_are_one_clear_line_and_leave_the_data") else {
        return;
    };
    let a = mysql_args(db.port);
    let check = |e: &Error| {
        let s = e.to_string();
        assert!(!s.contains('\n'), "one line: {s}");
        assert!(!s.contains(PASSWORD), "no password: {s}");
        s
    };
    // Connection refused: a port nothing listens on.
    let refused = loadlab_testkit::refused::Refused::new();
    let dead = refused.port();
    let e = run(&format!(
        "{} --events=1 oltp_read_only run",
        mysql_args(dead)
    ))
    .unwrap_err();
    assert!(matches!(e, Error::Refused { .. }), "{e:?}");
    assert!(check(&e).contains(&format!("127.0.0.1:{dead}")));
    // Wrong password.
    let e = run(&format!(
        "{} --mysql-password=Xyzzy-Bad-Pw --events=1 oltp_read_only run",
        a
    ))
    .unwrap_err();
    assert!(matches!(e, Error::Auth { code: 1045, .. }), "{e:?}");
    assert!(check(&e).contains("user 'sbtest'") && !e.to_string().contains("Xyzzy"));
    // Unknown database.
    let e = run(&format!(
        "{a} --mysql-db=nosuchdb --events=1 oltp_read_only run"
    ))
    .unwrap_err();
    assert!(matches!(e, Error::UnknownDb { .. }), "{e:?}");
    assert!(check(&e).contains("'nosuchdb'"));
    // Tables not prepared: none, then one of two.
    let e = run(&format!("{a} --events=1 oltp_read_only run")).unwrap_err();
    assert!(
        matches!(e, Error::TablesMissing { ref table, .. } if table == "sbtest1"),
        "{e:?}"
    );
    assert!(check(&e).contains("prepare"));
    run(&format!("{a} --table-size=100 oltp_read_only prepare")).unwrap();
    let e = run(&format!("{a} --tables=2 --events=1 oltp_read_only run")).unwrap_err();
    assert!(
        matches!(e, Error::TablesMissing { ref table, .. } if table == "sbtest2"),
        "{e:?}"
    );
    let e = run(&format!(
        "{a} --tables=2 --events=1 --db-ps-mode=disable oltp_read_only run"
    ))
    .unwrap_err();
    assert!(
        matches!(e, Error::TablesMissing { ref table, .. } if table == "sbtest2"),
        "{e:?}"
    );
    // Prepare on tables that exist: nothing changes, not even the
    // missing second table.
    let before = db.root_sql("CHECKSUM TABLE sbtest.sbtest1").unwrap();
    let e = run(&format!(
        "{a} --tables=2 --table-size=100 oltp_read_only prepare"
    ))
    .unwrap_err();
    assert!(
        matches!(e, Error::TablesExist { ref table, count: 1, .. } if table == "sbtest1"),
        "{e:?}"
    );
    check(&e);
    assert_eq!(
        db.root_sql("CHECKSUM TABLE sbtest.sbtest1").unwrap(),
        before
    );
    assert_eq!(
        db.root_sql("SHOW TABLES FROM sbtest").unwrap().trim(),
        "sbtest1"
    );
}

#[test]
fn too_many_connections_fails_or_is_counted_per_interval() {
    let test = "too_many_connections_fails_or_is_counted_per_interval";
    let Some(db) = MariaDb::start_with_or_skip(
        test,
        MariaDbOptions {
            max_connections: 10,
            ..Default::default()
        },
    ) else {
        return;
    };
    let a = mysql_args(db.port);
    run(&format!("{a} --table-size=100 oltp_point_select prepare")).unwrap();
    // Both thread models: tasks of client threads, and (`--client-threads`
    // ≥ `--threads`) an OS thread per connection with a blocking socket.
    for ct in ["", "--client-threads=16"] {
        let e = run(&format!(
            "{a} --table-size=100 --threads=16 --time=2 {ct} oltp_point_select run"
        ))
        .unwrap_err();
        assert!(
            matches!(
                e,
                Error::TooManyConnections {
                    code: 1040,
                    threads: 16,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("Too many connections"), "{e}");
        // Ignored: 10 threads run, 6 keep trying, and each failed attempt is
        // an error of its interval.
        let out = run(&format!(
        "{a} --table-size=100 --threads=16 --time=2 --report-interval=1 --mysql-ignore-errors=1040 {ct} oltp_point_select run"
    ))
    .unwrap();
        assert!(figure(&out, "transactions:") > 0.0, "{out}");
        assert!(figure(&out, "ignored errors:") >= 6.0, "{out}");
        let iv: Vec<&str> = out.lines().filter(|l| l.starts_with("[ ")).collect();
        assert!(!iv.is_empty(), "{out}");
        for l in &iv {
            let errs: f64 = l
                .split("err/s: ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap();
            assert!(errs > 0.0, "errors counted in every interval: {l}");
        }
    }
}

#[test]
fn a_server_killed_mid_run_ends_the_run_with_one_line() {
    // Both thread models: tasks of client threads (the default at 2
    // connections), an OS thread per connection with a blocking socket.
    for ct in ["", "--client-threads=2"] {
        let Some(mut db) =
            MariaDb::start_or_skip("a_server_killed_mid_run_ends_the_run_with_one_line")
        else {
            return;
        };
        let a = mysql_args(db.port);
        run(&format!("{a} --table-size=200 oltp_read_only prepare")).unwrap();
        let line = format!("{a} --table-size=200 --threads=2 --time=30 {ct} oltp_read_only run");
        let before = mariadb_status(&db, COMMITS);
        let h = std::thread::spawn(move || run(&line));
        // Kill the server mid-run, once it has committed some of the run's
        // transactions (a thread commits again only after its last commit
        // was answered: so some have completed on the client too).
        wait_mariadb_status(&db, COMMITS, before, 5);
        let t0 = Instant::now();
        db.kill();
        let e = h.join().unwrap().unwrap_err();
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "ended soon after the kill, not after its 30 s"
        );
        match &e {
            Error::Lost { transactions, .. } => assert!(*transactions > 0, "{e}"),
            other => panic!("{other:?}"),
        }
        assert!(!e.to_string().contains('\n'));
    }
}

/// The server stops answering (SIGSTOP: its socket still accepts, nothing
/// replies) in the middle of a run with `--time`: the run still ends, soon
/// after the time limit and its grace, with the figures of what completed
/// and its threads cut off, for both thread models (an OS thread per
/// connection with a blocking socket, and tasks of one client thread).
#[test]
fn the_time_limit_ends_threads_blocked_on_a_server_that_stopped_answering() {
    let Some(db) = MariaDb::start_or_skip(
        "the_time_limit_ends_threads_blocked_on_a_server_that_stopped_answering",
    ) else {
        return;
    };
    let a = mysql_args(db.port);
    run(&format!("{a} --table-size=200 oltp_read_only prepare")).unwrap();
    let pid = std::fs::read_to_string(db.dir().join("pid")).unwrap();
    let pid = pid.trim().to_string();
    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(&pid)
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill -{sig} {pid}");
    };
    // (model, grace): the default grace of 2 s, and --forced-shutdown.
    for (ct, grace) in [
        ("--client-threads=2", 2),
        ("--client-threads=1 --forced-shutdown=4", 4),
    ] {
        let line = format!(
            "{a} --table-size=200 --threads=2 --time=2 --report-interval=1 {ct} oltp_read_only run"
        );
        let before = mariadb_status(&db, &["Com_commit"]);
        let t0 = Instant::now();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(run(&line));
        });
        // Stop the server once the run has completed transactions: with
        // three commits seen, one thread has begun its next transaction,
        // so its first commit's answer reached the client.
        wait_mariadb_status(&db, &["Com_commit"], before, 3);
        signal("STOP");
        let r = rx.recv_timeout(Duration::from_secs(30));
        let took = t0.elapsed();
        signal("CONT");
        let out = r
            .unwrap_or_else(|_| panic!("[{ct}] the run did not end within 30 s"))
            .unwrap_or_else(|e| panic!("[{ct}] {e}"));
        // It ran its 2 s and the grace (the test's clock: never less), and
        // ended then, by its own clock: the cut-off comes at the grace's
        // end, not whenever the server answers (the 30 s bound above).
        assert!(
            took >= Duration::from_secs(2 + grace),
            "[{ct}] took {took:?}"
        );
        let total = figure(&out, "total time:");
        assert!(
            total >= (2 + grace) as f64 && total < (2 + grace) as f64 + 2.0,
            "[{ct}] total time {total} s: {out}"
        );
        assert!(figure(&out, "transactions:") > 0.0, "[{ct}] {out}");
        assert!(out.contains("[ 1s ] thds: 2"), "[{ct}] {out}");
        // The server answers again, and is in a state to run once more.
        loadlab_testkit::proc::wait_until(
            "the server to answer again",
            loadlab_testkit::proc::PATIENCE,
            || db.root_sql("SELECT 1").is_ok(),
        );
    }
    let out = run(&format!(
        "{a} --table-size=200 --threads=2 --events=20 --time=30 oltp_read_only run"
    ))
    .unwrap();
    assert_eq!(figure(&out, "transactions:"), 20.0, "{out}");
}
