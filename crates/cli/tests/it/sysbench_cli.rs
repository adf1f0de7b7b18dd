//! `loadlab sysbench` end to end: the real binary against a private MariaDB
//! on 127.0.0.1. Each error a user hits is one line on stderr starting with
//! `loadlab: sysbench:`, nothing on stdout, its own exit code
//! (docs/exit-codes.md), and never the password. A run's results file is
//! read by `loadlab report -by=statement`.

use loadlab_testkit::proc::BoundedOutput;
use std::process::{Command, Output};

use loadlab_testkit::db::{MariaDb, PASSWORD};

fn loadlab(args: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(args.split_whitespace())
        .output_bounded()
        .unwrap()
}

fn db_args(port: u16) -> String {
    format!(
        "--mysql-host=127.0.0.1 --mysql-port={port} --mysql-user=sbtest --mysql-password={PASSWORD} --mysql-db=sbtest"
    )
}

#[track_caller]
fn fails_with(args: &str, code: i32, needle: &str) {
    let out = loadlab(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{args}\n{err}");
    assert!(
        out.stdout.is_empty(),
        "stdout stays empty: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("loadlab: sysbench: "), "{err}");
    assert!(err.contains(needle), "'{needle}' in: {err}");
    assert!(
        !err.contains(PASSWORD) && !err.contains("Xyzzy"),
        "no password: {err}"
    );
}

#[test]
fn help_and_test_help_exit_0_and_unsupported_options_exit_2() {
    for (args, head) in [
        (
            "sysbench --help",
            "Usage:\n  loadlab sysbench [options]... [testname] [command]\n",
        ),
        (
            "sysbench oltp_read_write help",
            "(sysbench 1.0.20 compatible)\n\noltp_read_write options:\n  --auto_inc[=on|off] ",
        ),
    ] {
        let out = loadlab(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args}");
        assert!(text.contains(head), "{args}: {text}");
    }
    fails_with(
        "sysbench --thread-stack-size=64K oltp_read_only run",
        2,
        "'--thread-stack-size' is a sysbench option that loadlab does not support",
    );
    fails_with(
        "sysbench --verbosity=7 oltp_read_only run",
        2,
        "--verbosity=7",
    );
}

#[test]
fn errors_have_their_own_exit_codes_and_results_feed_report() {
    // Bad command lines: exit 2, no database needed.
    fails_with("sysbench --treads=4 oltp_read_only run", 2, "'--threads'");
    fails_with("sysbench oltp_raed_only run", 2, "unknown test");
    let Some(db) = MariaDb::start_or_skip("sysbench_cli_errors") else {
        return;
    };
    let a = db_args(db.port);
    let refused = loadlab_testkit::refused::Refused::new();
    let dead = refused.port();
    fails_with(
        &format!("sysbench {} --events=1 oltp_read_only run", db_args(dead)),
        5,
        "cannot connect",
    );
    fails_with(
        &format!("sysbench {a} --mysql-password=Xyzzy-Bad-Pw --events=1 oltp_read_only run"),
        20,
        "refused the login",
    );
    fails_with(
        &format!("sysbench {a} --mysql-db=nosuch --events=1 oltp_read_only run"),
        21,
        "'nosuch'",
    );
    fails_with(
        &format!("sysbench {a} --events=1 oltp_read_only run"),
        22,
        "prepare",
    );
    let out = loadlab(&format!(
        "sysbench {a} --table-size=100 oltp_read_only prepare"
    ));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    fails_with(
        &format!("sysbench {a} --table-size=100 oltp_read_only prepare"),
        23,
        "already exists",
    );

    // A run with a results file, split by statement kind.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.bin");
    let out = loadlab(&format!(
        "sysbench {a} --table-size=100 --events=20 --threads=2 -o {} oltp_read_only run",
        file.display()
    ));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("transactions:                        20 "),
        "{text}"
    );
    assert!(!text.contains(PASSWORD));
    let out = loadlab(&format!("report -by=statement {}", file.display()));
    let rep = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for stmt in [
        "transaction",
        "point_select",
        "simple_range",
        "begin",
        "commit",
    ] {
        assert!(rep.contains(stmt), "{stmt} in:\n{rep}");
    }
    let out = loadlab(&format!(
        "report -by=tag:test -type=json {}",
        file.display()
    ));
    assert!(String::from_utf8_lossy(&out.stdout).contains("oltp_read_only"));
}

/// A server that stops answering mid-run (SIGSTOP) does not hold a run
/// with `--time`: the binary exits 0 soon after the limit and its grace,
/// prints the figures of what completed, and says on stderr, in one line,
/// that the threads were cut off.
#[test]
fn a_server_that_stops_answering_is_cut_off_after_the_time_limit() {
    let Some(db) = MariaDb::start_or_skip("sysbench_cli_server_stops_answering") else {
        return;
    };
    let a = db_args(db.port);
    let out = loadlab(&format!(
        "sysbench {a} --table-size=100 oltp_point_select prepare"
    ));
    assert!(out.status.success(), "{out:?}");
    let pid = std::fs::read_to_string(db.dir().join("pid")).unwrap();
    let pid = pid.trim().to_string();
    let statements = || {
        db.root_sql(
            "SELECT SUM(VARIABLE_VALUE) FROM information_schema.GLOBAL_STATUS \
             WHERE VARIABLE_NAME IN ('COM_SELECT', 'COM_STMT_EXECUTE')",
        )
        .unwrap()
        .trim()
        .parse::<u64>()
        .unwrap()
    };
    let before = statements();
    let child = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(
            format!("sysbench {a} --table-size=100 --threads=1 --time=2 oltp_point_select run")
                .split_whitespace(),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stop the server once it is serving the run's queries.
    loadlab_testkit::proc::wait_until(
        "the server to see the run's queries",
        loadlab_testkit::proc::PATIENCE,
        || statements() >= before + 20,
    );
    let stop = Command::new("kill")
        .arg("-STOP")
        .arg(&pid)
        .status()
        .unwrap();
    assert!(stop.success());
    // Bounded: the run must end by itself; if it does not within 30 s,
    // it is killed and the test fails.
    let (tx, rx) = std::sync::mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(30));
    if r.is_err() {
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(id.to_string())
            .status();
    }
    let _ = Command::new("kill").arg("-CONT").arg(&pid).status();
    let out = r.expect("the run ended within 30 s").unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{err}");
    // Soon after the limit and its grace (2 s each), by the run's own clock.
    let total: f64 = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("total time:"))
        .and_then(|t| t.trim().trim_end_matches('s').parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        (4.0..6.0).contains(&total),
        "total time {total} s: {stdout}"
    );
    assert!(stdout.contains("transactions:"), "{stdout}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("loadlab: sysbench: warning: 1 of 1 threads had no reply"),
        "{err}"
    );
}

/// Ctrl-C (SIGINT) mid-run: sysbench's final blocks over the time run,
/// one line on stderr, exit 130 (docs/exit-codes.md), long before the
/// run's own time limit; with either thread model (one connection: an OS
/// thread with a blocking socket; two: tasks of a runtime).
#[test]
fn ctrl_c_prints_the_partial_statistics_and_exits_130() {
    let Some(db) = MariaDb::start_or_skip("sysbench_cli_ctrl_c") else {
        return;
    };
    let a = db_args(db.port);
    let out = loadlab(&format!(
        "sysbench {a} --table-size=100 oltp_read_only prepare"
    ));
    assert!(out.status.success(), "{out:?}");
    for threads in [1, 2] {
        interrupted_run(&a, threads);
    }
}

fn interrupted_run(a: &str, threads: u32) {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(
            format!(
                "sysbench {a} --table-size=100 --threads={threads} --time=120 --report-interval=1 oltp_read_only run"
            )
            .split_whitespace(),
        )
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    // Bounded: a run that has not ended 30 s after this point is killed.
    let (ended, watch) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if watch
            .recv_timeout(std::time::Duration::from_secs(30))
            .is_err()
        {
            let _ = Command::new("kill")
                .arg("-KILL")
                .arg(id.to_string())
                .status();
        }
    });
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut text = String::new();
    // The first interval line says the run is under way.
    loop {
        let mut line = String::new();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "ended early: {text}"
        );
        text.push_str(&line);
        if line.starts_with("[ 1s ]") {
            break;
        }
    }
    let int = Command::new("kill")
        .arg("-INT")
        .arg(id.to_string())
        .status()
        .unwrap();
    assert!(int.success());
    std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
    let out = child.wait_with_output().unwrap();
    let _ = ended.send(());
    let _ = watchdog.join();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}\n{text}");
    for block in [
        "SQL statistics:",
        "transactions:",
        "General statistics:",
        "Latency (ms):",
        "Threads fairness:",
    ] {
        assert!(text.contains(block), "{block} in:\n{text}");
    }
    let total: f64 = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("total time:"))
        .and_then(|t| t.trim().trim_end_matches('s').parse().ok())
        .unwrap_or_else(|| panic!("{text}"));
    assert!((1.0..20.0).contains(&total), "total time {total} s: {text}");
    let events = loadlab_sql_figure(&text, "transactions:");
    assert!(events > 0.0, "{text}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.starts_with("loadlab: sysbench: interrupted after "),
        "{err}"
    );
    assert!(
        err.contains(&format!("{} transactions", events as u64)),
        "{err}\n{text}"
    );
}

/// The count after `label` in sysbench's final blocks.
fn loadlab_sql_figure(text: &str, label: &str) -> f64 {
    text.lines()
        .find_map(|l| l.trim().strip_prefix(label))
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{label} in:\n{text}"))
}
