//! `--verbosity` (sysbench's log levels: 0 errors only … 3 notices, the
//! default, 4 info, 5 debug) and `--percentile=0` on a private MariaDB,
//! beside Debian's sysbench 1.0.20 where its output is deterministic.

use crate::common;

use common::{mysql_args, run, sysbench, sysbench_or_skip};
use loadlab_testkit::db::MariaDb;

/// The text between `Threads started!` and `SQL statistics:`.
fn middle(out: &str) -> &str {
    let a = out.find("Threads started!\n").expect(out) + 17;
    let b = out.find("SQL statistics:").expect(out);
    &out[a..b]
}

#[test]
fn each_verbosity_prints_what_sysbench_1_0_prints() {
    let Some(db) = MariaDb::start_or_skip("each_verbosity_prints_what_sysbench_1_0_prints") else {
        return;
    };
    let a = format!("{} --table-size=100", mysql_args(db.port));
    // prepare and cleanup: sysbench's Lua scripts print their table lines
    // whatever the verbosity; the banner is a notice.
    let out = run(&format!("{a} --verbosity=0 oltp_read_only prepare")).unwrap();
    assert_eq!(
        out,
        "Creating table 'sbtest1'...\nInserting 100 records into 'sbtest1'\n\
         Creating a secondary index on 'sbtest1'...\n"
    );
    // 0 to 2: a run that goes well prints nothing.
    for v in 0..=2 {
        let out = run(&format!(
            "{a} --verbosity={v} --events=10 --time=0 oltp_read_only run"
        ))
        .unwrap();
        assert_eq!(out, "", "--verbosity={v}");
    }
    // 3, the default: the notices.
    let v3 = run(&format!(
        "{a} --verbosity=3 --events=10 --time=0 oltp_read_only run"
    ))
    .unwrap();
    let default = run(&format!("{a} --events=10 --time=0 oltp_read_only run")).unwrap();
    for out in [&v3, &default] {
        assert!(out.starts_with("loadlab "), "{out}");
        assert_eq!(middle(out), "\n", "{out}");
        assert!(out.contains("\nThreads fairness:\n"), "{out}");
    }
    // 4: each thread's word on the limit that ended the run, and Done.
    let out = run(&format!(
        "{a} --verbosity=4 --threads=2 --events=10 --time=0 oltp_read_only run"
    ))
    .unwrap();
    assert_eq!(
        middle(&out),
        "\nEvent limit exceeded, exiting...\n(last message repeated 1 times)\nDone.\n\n"
    );
    let out = run(&format!(
        "{a} --verbosity=4 --threads=3 --time=1 oltp_read_only run"
    ))
    .unwrap();
    assert_eq!(
        middle(&out),
        "\nTime limit exceeded, exiting...\n(last message repeated 2 times)\nDone.\n\n"
    );
    // 5: the threads as they start.
    let out = run(&format!(
        "{a} --verbosity=5 --threads=2 --time=1 --rate=20 --report-interval=1 oltp_read_only run"
    ))
    .unwrap();
    assert!(
        out.contains(
            "\n\n\nDEBUG: Reporting thread started\nDEBUG: Event generating thread started\n\
             Initializing worker threads...\n\n\
             DEBUG: Worker thread (#0) started\nDEBUG: Worker thread (#1) started\n\
             DEBUG: Worker thread (#0) initialized\nDEBUG: Worker thread (#1) initialized\n\
             Threads started!\n\n"
        ),
        "{out}"
    );
    assert!(out.contains("\nTime limit exceeded, exiting...\n"), "{out}");
    let out = run(&format!("{a} --verbosity=0 oltp_read_only cleanup")).unwrap();
    assert_eq!(out, "Dropping table 'sbtest1'...\n");

    // A 0.4 line at 5: 0.4's runner threads.
    let legacy = format!(
        "--test=oltp --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={} \
         --mysql-user=sbtest --mysql-password={} --oltp-table-size=100",
        db.port,
        loadlab_testkit::db::PASSWORD
    );
    run(&format!("{legacy} prepare")).unwrap();
    let out = run(&format!(
        "{legacy} --verbosity=5 --num-threads=2 --max-requests=10 run"
    ))
    .unwrap();
    assert!(
        out.contains(
            "Threads started!\nDEBUG: Runner thread started (0)!\n\
             DEBUG: Runner thread started (1)!\nDone.\n\nOLTP test statistics:\n"
        ),
        "{out}"
    );
    // And at 2, nothing.
    assert_eq!(
        run(&format!("{legacy} --verbosity=2 --max-requests=10 run")).unwrap(),
        ""
    );
    assert_eq!(run(&format!("{legacy} --verbosity=2 cleanup")).unwrap(), "");
}

#[test]
fn verbosity_matches_sysbench_1_0_20_side_by_side() {
    if sysbench_or_skip("verbosity_matches_sysbench_1_0_20_side_by_side").is_none() {
        return;
    }
    let Some(db) = MariaDb::start_or_skip("verbosity_matches_sysbench_1_0_20_side_by_side") else {
        return;
    };
    let a = format!("{} --table-size=100", mysql_args(db.port));
    let prep = format!("{a} --verbosity=0 oltp_read_only prepare");
    let ours = run(&prep).unwrap();
    run(&format!("{a} oltp_read_only cleanup")).unwrap();
    assert_eq!(ours, sysbench(&prep));
    for v in [0, 2] {
        let go = format!("{a} --verbosity={v} --events=10 --time=0 oltp_read_only run");
        assert_eq!(run(&go).unwrap(), sysbench(&go), "--verbosity={v}");
    }
    let go = format!("{a} --verbosity=4 --threads=3 --events=30 --time=0 oltp_read_only run");
    assert_eq!(middle(&run(&go).unwrap()), middle(&sysbench(&go)));
    let clean = format!("{a} --verbosity=0 oltp_read_only cleanup");
    assert_eq!(run(&clean).unwrap(), "Dropping table 'sbtest1'...\n");
    run(&prep).unwrap();
    assert_eq!(sysbench(&clean), "Dropping table 'sbtest1'...\n");
}

#[test]
fn ignored_errors_are_logged_at_debug() {
    let Some(db) = MariaDb::start_or_skip("ignored_errors_are_logged_at_debug") else {
        return;
    };
    let a = format!("{} --auto-inc=off", mysql_args(db.port));
    run(&format!("{a} oltp_insert prepare")).unwrap();
    // Without --auto-inc the ids count up from the seed's low 30 bits,
    // minus 2^31: with --rand-seed=5 the first is -2147483643. A row with
    // that id makes the first INSERT fail with 1062, ignored and retried.
    db.root_sql("INSERT INTO sbtest.sbtest1 (id, k, c, pad) VALUES (-2147483643, 1, 'c', 'p')")
        .unwrap();
    let out = run(&format!(
        "{a} --verbosity=5 --rand-seed=5 --events=3 --time=0 --mysql-ignore-errors=1062 oltp_insert run"
    ))
    .unwrap();
    assert!(
        out.contains(
            "DEBUG: Ignoring error 1062 Duplicate entry '-2147483643' for key 'PRIMARY', \n\
             DEBUG: Ignored error encountered, restarting transaction\n"
        ),
        "{out}"
    );
    assert_eq!(common::figure(&out, "ignored errors:"), 1.0, "{out}");
    assert_eq!(common::figure(&out, "write:"), 3.0, "{out}");
}

#[test]
fn percentile_0_is_disabled_as_in_sysbench_1_0_20() {
    let Some(db) = MariaDb::start_or_skip("percentile_0_is_disabled_as_in_sysbench_1_0_20") else {
        return;
    };
    let a = format!("{} --table-size=100", mysql_args(db.port));
    run(&format!("{a} oltp_read_only prepare")).unwrap();
    let out = run(&format!(
        "{a} --percentile=0 --threads=2 --time=2 --rate=50 --report-interval=1 oltp_read_only run"
    ))
    .unwrap();
    assert!(
        out.contains("\n         percentile stats:               disabled\n         sum:"),
        "{out}"
    );
    assert!(
        !out.contains("percentile:"),
        "no percentile line, corrected or not:\n{out}"
    );
    assert!(out.contains(" lat (ms,0%): 0.00 err/s: "), "{out}");
    let args: Vec<String> = format!("{a} --percentile=0 --histogram oltp_read_only run")
        .split_whitespace()
        .map(String::from)
        .collect();
    let e = loadlab_sql::parse(&args).unwrap_err().to_string();
    assert_eq!(e, "--histogram cannot be used with --percentile=0");
}
