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

/// A number left-aligned in 6 columns (`%-6d`), as 0.4's counts before
/// their rate.
const PAD6: &str = r"(?:\d{6,}|\d{5} |\d{4} {2}|\d{3} {3}|\d{2} {4}|\d {5})";

/// A number with 2 decimals right-aligned in 10 columns (`%10.2f`).
const W10: &str = r"(?: {6}\d\.\d\d| {5}\d{2}\.\d\d| {4}\d{3}\.\d\d| {3}\d{4}\.\d\d| {2}\d{5}\.\d\d| \d{6}\.\d\d|\d{7,}\.\d\d)";

/// 0.4.12's final blocks, a pattern per line: labels and widths exact,
/// figures by their format.
fn final_layout() -> Vec<String> {
    let rate = r" \(\d+\.\d\d per sec\.\)";
    let mut v: Vec<String> = [
        r"OLTP test statistics:",
        r"    queries performed:",
        r"        read:                            \d+",
        r"        write:                           \d+",
        r"        other:                           \d+",
        r"        total:                           \d+",
    ]
    .map(String::from)
    .to_vec();
    for label in [
        "transactions:                        ",
        "deadlocks:                           ",
        "read/write requests:                 ",
        "other operations:                    ",
    ] {
        v.push(format!("    {}{PAD6}{rate}", regex::escape(label)));
    }
    v.extend(
        [
            "",
            "Test execution summary:",
            r"    total time:                          \d+\.\d{4}s",
            r"    total number of events:              \d+",
            r"    total time taken by event execution: \d+\.\d{4}",
            r"    per-request statistics:",
        ]
        .map(String::from),
    );
    for label in ["min:", "avg:", "max:"] {
        v.push(format!(
            "         {label}                            {W10}ms"
        ));
    }
    v.push(format!(
        r"         approx\. (?: {{2}}\d| \d{{2}}|\d{{3}}) percentile:         {W10}ms"
    ));
    v.extend(
        [
            "",
            "Threads fairness:",
            r"    events \(avg/stddev\):           \d+\.\d{4}/\d+\.\d\d",
            r"    execution time \(avg/stddev\):   \d+\.\d{4}/\d+\.\d\d",
            "",
        ]
        .map(String::from),
    );
    v
}

/// Every line of `text` matches its pattern, and there are as many.
fn assert_layout(text: &str, layout: &[String], what: &str) {
    let lines: Vec<&str> = text.lines().collect();
    for (i, (line, pat)) in lines.iter().zip(layout).enumerate() {
        let re = regex::Regex::new(&format!("^{pat}$")).unwrap();
        assert!(
            re.is_match(line),
            "{what}: line {} {line:?} is not /{pat}/\n{text}",
            i + 1
        );
    }
    assert_eq!(lines.len(), layout.len(), "{what}: lines\n{text}");
}

/// The lines of a 0.4 run before its final blocks: `mode` the lines after
/// "Doing OLTP test.", `end` those after "Threads started!".
fn run_layout(no_driver: bool, threads: u32, mode: &[&str], end: &[&str]) -> Vec<String> {
    let mut v = vec![
        r"loadlab \S+ sysbench \(sysbench 0\.4\.12 compatible\):  multi-threaded system evaluation benchmark"
            .to_string(),
        String::new(),
    ];
    if no_driver {
        v.push("No DB drivers specified, using mysql".into());
    }
    v.push("Running the test with following options:".into());
    v.push(format!("Number of threads: {threads}"));
    v.push(String::new());
    v.push(r"Doing OLTP test\.".into());
    v.extend(mode.iter().map(|m| regex::escape(m)));
    v.push("Threads started!".into());
    v.extend(end.iter().map(|m| regex::escape(m)));
    v.extend(final_layout());
    v
}

#[test]
fn the_final_layout_patterns_match_sysbench_0_4_12s_own_output() {
    for (name, _) in crate::golden04::RUNS {
        let text = crate::golden04::golden(name);
        let blocks = &text[text.find("OLTP test statistics:").unwrap()..];
        assert_layout(blocks, &final_layout(), name);
    }
}

#[test]
fn oltp_04_prints_0_4_12s_layout() {
    let Some(db) = MariaDb::start_or_skip("oltp_04_prints_0_4_12s_layout") else {
        return;
    };
    let port = db.port;
    let conn = format!(
        "--mysql-host=127.0.0.1 --mysql-port={port} --mysql-db=sbtest --mysql-user=sbtest \
         --mysql-password={PASSWORD}"
    );
    // prepare and cleanup as 0.4.12's (the table is 1.0's sbtest1, not
    // sbtest; the first line names loadlab).
    let as_ours = |name: &str| {
        let g = crate::golden04::golden(name).replace("'sbtest'", "'sbtest1'");
        g[g.find('\n').unwrap()..].to_string()
    };
    let out = run(&format!(
        "--test=oltp {conn} --oltp-table-size=10000 prepare"
    ))
    .unwrap();
    assert_eq!(
        out[out.find('\n').unwrap()..],
        as_ours("sysbench-0.4.12-oltp-prepare.txt")
    );

    // 0.4's defaults (no --db-driver, BEGIN/COMMIT), a request limit.
    let out = run(&format!(
        "--test=oltp {conn} --oltp-table-size=10000 --max-requests=200 --num-threads=2 run"
    ))
    .unwrap();
    let mode = [
        "Running mixed OLTP test",
        "Using Special distribution (12 iterations,  1 pct of values are returned in 75 pct cases)",
        "Using \"BEGIN\" for starting transactions",
        "Using auto_inc on the id column",
        "Maximum number of requests for OLTP test is limited to 200",
    ];
    assert_layout(
        &out,
        &run_layout(true, 2, &mode, &["Done.", ""]),
        "requests",
    );
    let [r, w, o] = counts(&out);
    assert_eq!((r, w, o), (14 * 200, 5 * 200, 2 * 200), "{out}");
    assert_eq!(figure(&out, "read/write requests:") as u64, r + w, "{out}");
    assert_eq!(figure(&out, "other operations:") as u64, o, "{out}");
    assert_eq!(figure(&out, "total number of events:"), 200.0, "{out}");
    assert_eq!(figure(&out, "events (avg/stddev):"), 100.0, "{out}");
    assert!(out.contains("         approx.  95 percentile:"), "{out}");

    // The MySQL thread sweep's read-only line, shorter: a time limit that
    // each of the 3 threads reports, another percentile.
    let out = run(&format!(
        "--test=oltp --db-driver=mysql {conn} --oltp-table-size=10000 --max-time=1 \
         --max-requests=0 --oltp-read-only --oltp-skip-trx --oltp-nontrx-mode=select \
         --num-threads=3 --percentile=99 run"
    ))
    .unwrap();
    let mode = [
        "Running mixed OLTP test",
        "Doing read-only test",
        "Using Special distribution (12 iterations,  1 pct of values are returned in 75 pct cases)",
        "Skipping BEGIN/COMMIT",
        "Using auto_inc on the id column",
    ];
    let end = [
        "Time limit exceeded, exiting...",
        "(last message repeated 2 times)",
        "Done.",
        "",
    ];
    assert_layout(&out, &run_layout(false, 3, &mode, &end), "time");
    assert!(out.contains("         approx.  99 percentile:"), "{out}");
    let [r, w, o] = counts(&out);
    assert_eq!((r, w, o), (14 * figure(&out, "transactions:") as u64, 0, 0));

    let out = run(&format!("--test=oltp {conn} cleanup")).unwrap();
    assert_eq!(
        out[out.find('\n').unwrap()..],
        as_ours("sysbench-0.4.12-oltp-cleanup.txt")
    );
}
