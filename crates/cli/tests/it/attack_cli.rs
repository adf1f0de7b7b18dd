//! `loadlab attack | report | encode` end to end: the real binary against a
//! real in-process origin on 127.0.0.1, real pipes, real files.

use loadlab_testkit::proc::BoundedOutput;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::proc::{PATIENCE, Watch, text, wait_bounded, wait_results};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

fn origin(recipe: &str) -> OriginHandle {
    let recipes = parse_recipes(recipe).expect("recipe");
    spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes,
            workers: Some(1),
            ..Default::default()
        },
    )
    .expect("origin")
}

fn fast_origin() -> OriginHandle {
    origin(
        r#"{"route":"/*","body":"hello world","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#,
    )
}

/// Runs loadlab with `args`, feeding `stdin`, bounded by a generous timeout.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    let mut si = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = si.write_all(&data);
    });
    let out = wait_bounded(child, Duration::from_secs(60));
    writer.join().unwrap();
    out
}

fn field<'a>(report: &'a str, label: &str) -> &'a str {
    report
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label} line in:\n{report}"))
}

#[test]
fn attack_pipe_report_has_vegetas_layout_and_exact_counts() {
    let o = fast_origin();
    let target = format!("GET {}/foobar\n", o.url());
    let results = run(
        &[
            "attack",
            "-header=replayed-traffic: true",
            "-duration=1s",
            "-rate=100",
            "-workers=20",
        ],
        target.as_bytes(),
    );
    assert!(results.status.success(), "{}", text(&results.stderr));
    assert!(
        results.stdout.len() < 100 * 40,
        "results are compact: {} bytes for 100 requests",
        results.stdout.len()
    );

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.bin");
    std::fs::write(&path, &results.stdout).unwrap();
    let rep = run(&["report", path.to_str().unwrap()], b"");
    assert!(rep.status.success(), "{}", text(&rep.stderr));
    let report = text(&rep.stdout);
    let labels = [
        "Requests      [total, rate, throughput]",
        "Duration      [total, attack, wait]",
        "Latencies     [min, mean, 50, 90, 95, 99, max]",
        "Bytes In      [total, mean]",
        "Bytes Out     [total, mean]",
        "Success       [ratio]",
        "Status Codes  [code:count]",
        "Error Set:",
    ];
    let mut last = 0;
    for l in labels {
        let pos = report
            .find(l)
            .unwrap_or_else(|| panic!("missing {l:?} in:\n{report}"));
        assert!(pos >= last, "{l:?} out of order in:\n{report}");
        last = pos;
    }
    assert!(field(&report, "Requests").contains(" 100, "), "{report}");
    assert!(
        field(&report, "Status Codes").contains("200:100"),
        "{report}"
    );
    assert!(
        field(&report, "Bytes In").contains("1100, 11.00"),
        "{report}"
    );
    assert!(field(&report, "Success").contains("100.00%"), "{report}");

    // The same file through stdin, and as JSON.
    let rep2 = run(&["report", "-type=json"], &results.stdout);
    let json: serde_json::Value = serde_json::from_slice(&rep2.stdout).expect("json report");
    assert_eq!(json["requests"], 100);
    assert_eq!(json["status_codes"]["200"], 100);
}

#[test]
fn rate_infinity_with_a_request_limit_runs_as_fast_as_allowed() {
    let o = fast_origin();
    let target = format!("GET {}/\n", o.url());
    let out = run(
        &[
            "attack",
            "-rate=infinity",
            "-max-workers=4",
            "-max-requests=300",
        ],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep = run(&["report", "-type=json"], &out.stdout);
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(json["requests"], 300);
    // Not paced at vegeta's 50/s default: 300 requests take well under the 6 s that would need.
    assert!(json["duration"].as_u64().unwrap() < 5_000_000_000, "{json}");
}

#[test]
fn encode_round_trips_through_vegeta_json_and_csv() {
    let o = fast_origin();
    let target = format!("GET {}/x\n", o.url());
    let out = run(
        &["attack", "-rate=200", "-max-requests=50"],
        target.as_bytes(),
    );
    assert!(out.status.success());
    for to in ["json", "csv"] {
        let enc = run(&["encode", &format!("-to={to}")], &out.stdout);
        assert!(enc.status.success(), "{}", text(&enc.stderr));
        let lines = text(&enc.stdout);
        assert_eq!(lines.lines().count(), 50, "{to}:\n{lines}");
        let rep = run(&["report", "-type=json"], &enc.stdout);
        let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        assert_eq!(json["requests"], 50, "{to}");
        assert_eq!(json["status_codes"]["200"], 50, "{to}");
    }
}

#[test]
fn refused_target_is_measured_not_a_crash() {
    let refused = loadlab_testkit::refused::Refused::new();
    let port = refused.port();
    let target = format!("GET http://127.0.0.1:{port}/down\n");
    let out = run(
        &["attack", "-rate=50", "-max-requests=10", "-timeout=2s"],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep = run(&["report"], &out.stdout);
    let report = text(&rep.stdout);
    assert!(field(&report, "Status Codes").contains("0:10"), "{report}");
    assert!(report.contains("connection refused"), "{report}");
    assert!(field(&report, "Success").contains("0.00%"), "{report}");
}

#[test]
fn ctrl_c_mid_run_leaves_a_readable_file_and_exits_zero() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.bin");
    let mut child = Command::new(bin())
        .args([
            "attack",
            "-rate=200",
            "-duration=60s",
            &format!("-output={}", path.display()),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        let mut si = child.stdin.take().unwrap();
        writeln!(si, "GET {}/", o.url()).unwrap();
    }
    // Mid-run: the results file holds its first requests.
    wait_results(&path, &[0x03], 20, PATIENCE);
    let started = Instant::now();
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let out = wait_bounded(child, Duration::from_secs(45));
    // Well short of the 60 s asked for: the interrupt ended the attack.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?} to stop",
        started.elapsed()
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = run(&["report", "-type=json", path.to_str().unwrap()], b"");
    assert!(rep.status.success(), "{}", text(&rep.stderr));
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    let n = json["requests"].as_u64().unwrap();
    // As many requests as the run's own schedule reached at 200/s (its
    // first to its last intended send), give or take one at either end.
    let span = json["schedule"]["duration"].as_f64().unwrap() / 1e9;
    let want = span * 200.0 + 1.0;
    assert!(
        n >= 20 && (n as f64 - want).abs() <= 2.0 + want * 0.01,
        "{n} requests in a schedule of {span} s at 200/s"
    );
}

#[test]
fn truncated_results_are_read_up_to_the_last_whole_record() {
    let o = fast_origin();
    let out = run(
        &["attack", "-rate=500", "-max-requests=200"],
        format!("GET {}/\n", o.url()).as_bytes(),
    );
    let mut bytes = out.stdout.clone();
    bytes.truncate(bytes.len() - 7);
    let rep = run(&["report", "-type=json"], &bytes);
    assert!(rep.status.success(), "{}", text(&rep.stderr));
    assert!(
        text(&rep.stderr).contains("warning"),
        "{}",
        text(&rep.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    let n = json["requests"].as_u64().unwrap();
    assert!((190..200).contains(&n), "{n}");
}

#[test]
fn bad_input_gets_a_clear_error_and_a_distinct_exit_code() {
    // Unknown flag: usage error, nearest flag suggested.
    let out = run(&["attack", "-duraton=1s"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("'-duration'"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    // Bad rate, duration, size or send clock window; vegeta flags loadlab
    // does not support say so, instead of "unknown".
    for (flag, what) in [
        ("-rate=fast", "invalid rate"),
        ("-duration=10", "missing unit"),
        ("-max-body=ten", "invalid size"),
        ("-resolution=1s", "-resolution must be at most 100ms"),
        ("-dns-ttl=soon", "invalid"),
        ("-resolvers=127.0.0.1:53", "-resolvers is not supported"),
        ("-proxy-header=X-A: 1", "-proxy-header is not supported"),
        ("-prometheus-addr=nowhere", "invalid -prometheus-addr"),
    ] {
        let out = run(&["attack", flag], b"GET http://127.0.0.1:1/\n");
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            text(&out.stderr).contains(what),
            "{flag}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
    // Unlimited rate without a cap.
    let out = run(&["attack", "-rate=0"], b"GET http://127.0.0.1:1/\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("-max-workers"),
        "{}",
        text(&out.stderr)
    );
    // Malformed targets: line named.
    let out = run(
        &["attack", "-max-requests=1"],
        b"GET http://127.0.0.1:1/\nFETCH nothing\n",
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("stdin:2"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    // Unreadable file.
    let out = run(&["attack", "-targets=/nonexistent/targets.txt"], b"");
    assert_eq!(out.status.code(), Some(4));
    assert!(text(&out.stderr).contains("/nonexistent/targets.txt"));
    // A results file of another format.
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "these are my notes, not results\n").unwrap();
    let out = run(&["report", p.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("notes.txt"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    // Bad report type.
    let out = run(&["report", "-type=hist[0,5xs]"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("5xs"));
    // Missing results file.
    let out = run(&["report", "/nonexistent/results.bin"], b"");
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn ramp_and_pace_plans_run_from_the_command_line() {
    let o = fast_origin();
    let target = format!("GET {}/\n", o.url());
    // 1 s at 50/s then 1 s ramping 50 -> 150/s: 50 + 100 = 150 requests, then the plan ends.
    let out = run(&["attack", "-pace=1s@50,1s@50->150"], target.as_bytes());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep = run(&["report", "-type=json"], &out.stdout);
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    let n = json["requests"].as_u64().unwrap();
    assert!((149..=151).contains(&n), "{n}");
    // Linear ramp flags, bounded by -duration.
    let out = run(
        &[
            "attack",
            "-rate=10",
            "-ramp-to=110",
            "-ramp-duration=1s",
            "-duration=1s",
        ],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep = run(&["report", "-type=json"], &out.stdout);
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    let n = json["requests"].as_u64().unwrap();
    assert!(
        (59..=61).contains(&n),
        "(10+110)/2 = 60 requests in the first second, got {n}"
    );
    // A bad plan is a usage error naming the segment.
    let out = run(&["attack", "-pace=1s@50,oops"], target.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("segment 2"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn report_every_prints_growing_reports_from_a_live_pipe() {
    let o = fast_origin();
    let mut attack = Command::new(bin())
        .args(["attack", "-rate=100", "-duration=2500ms"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    writeln!(attack.stdin.take().unwrap(), "GET {}/", o.url()).unwrap();
    let report = Command::new(bin())
        .args(["report", "-every=1s"])
        .stdin(attack.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(report, Duration::from_secs(30));
    let _ = attack.wait();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let totals: Vec<u64> = text(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("Requests"))
        .map(|l| {
            l.split_whitespace()
                .nth(4)
                .unwrap()
                .trim_end_matches(',')
                .parse()
                .unwrap()
        })
        .collect();
    assert!(totals.len() >= 2, "{totals:?}");
    assert!(
        totals[0] > 0,
        "the first periodic report already counts requests: {totals:?}"
    );
    assert!(totals.windows(2).all(|w| w[0] <= w[1]), "{totals:?}");
    assert_eq!(*totals.last().unwrap(), 250, "{totals:?}");
}

#[test]
fn live_progress_is_drawn_on_a_terminal_and_results_stay_clean() {
    // `script` (util-linux) gives the attack a pseudo-terminal, as a user's shell would.
    if !loadlab_testkit::need::program(
        "live_progress_is_drawn_on_a_terminal_and_results_stay_clean",
        "script",
        "util-linux's script: apt-get install -y bsdutils",
    ) {
        return;
    }
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let targets = dir.path().join("targets.txt");
    std::fs::write(&targets, format!("GET {}/\n", o.url())).unwrap();
    let results = dir.path().join("r.bin");
    let typescript = dir.path().join("typescript");
    let cmd = format!(
        "stty cols 200; {} attack -targets={} -rate=100 -duration=1500ms -output={}",
        bin(),
        targets.display(),
        results.display()
    );
    let child = Command::new("script")
        .args(["-qec", &cmd, typescript.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(30));
    assert!(out.status.success());
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(
        screen.contains("requests") && screen.contains("rate") && screen.contains("p99"),
        "{screen}"
    );
    assert!(screen.contains("/ 1.5s"), "elapsed / total shown: {screen}");
    // The results file is untouched by the progress line, and says what the
    // attack did: the schedule's 150 requests, sent or (on a machine too
    // busy to send them all in time) counted as unsent.
    let rep = run(&["report", "-type=json", results.to_str().unwrap()], b"");
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).expect("clean results");
    let sent = json["requests"].as_u64().unwrap();
    assert_eq!(sent + json["unsent"].as_u64().unwrap(), 150, "{json}");
    // The last frame stays, with the attack's whole duration and every request
    // it sent (the time used to be truncated to whole seconds: "1s / 1.5s").
    let at = screen.rfind("/ 1.5s  requests").unwrap();
    let (before, last) = screen.split_at(at);
    assert!(
        before.ends_with(" 1.5s ") && last.starts_with(&format!("/ 1.5s  requests {sent} ")),
        "last frame, after {sent} requests sent: {:?}",
        &last[..last.len().min(60)]
    );
}

#[test]
fn vegetas_chunked_dns_ttl_and_session_ticket_flags_are_accepted() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, "{\"n\":1}").unwrap();
    let targets = format!("POST http://localhost:{}/chunked\n", o.addr.port());
    let out = run(
        &[
            "attack",
            "-rate=100",
            "-max-requests=5",
            "-chunked",
            "-dns-ttl=-1",
            "-session-tickets",
            &format!("-body={}", body.display()),
            "-output=-",
        ],
        targets.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut rep = Command::new(bin())
        .args(["report"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    rep.stdin.take().unwrap().write_all(&out.stdout).unwrap();
    let rep = rep.wait_with_output().unwrap();
    let rep = text(&rep.stdout);
    assert!(field(&rep, "Success").contains("100.00%"), "{rep}");
    assert!(field(&rep, "Bytes Out").contains(" 35, 7.00"), "{rep}");
}

#[test]
fn report_by_target_or_attack_splits_the_report() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.bin");
    let b = dir.path().join("b.bin");
    let two = format!("GET {0}/one\nHEAD {0}/two\n", o.url());
    let out = run(
        &[
            "attack",
            "-rate=200",
            "-max-requests=10",
            "-name=alpha",
            &format!("-output={}", a.display()),
        ],
        two.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let one = format!("GET {}/one\n", o.url());
    let out = run(
        &[
            "attack",
            "-rate=200",
            "-max-requests=4",
            "-name=beta",
            &format!("-output={}", b.display()),
        ],
        one.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (a, b) = (a.display().to_string(), b.display().to_string());

    // By target: the two files' GET /one merge; one block per target, in order.
    let out = run(&["report", "-by=target", &a, &b], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = text(&out.stdout);
    let heads: Vec<&str> = rep.lines().filter(|l| l.starts_with("Target: ")).collect();
    assert_eq!(
        heads,
        [
            format!("Target: GET {}/one", o.url()),
            format!("Target: HEAD {}/two", o.url())
        ],
        "{rep}"
    );
    let totals: Vec<&str> = rep
        .lines()
        .filter(|l| l.starts_with("Requests"))
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(totals, ["9,", "5,"], "{rep}");

    // By attack, as JSON: one object keyed by -name.
    let out = run(&["report", "-by=attack", "-type=json", &a, &b], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["alpha"]["requests"], 10);
    assert_eq!(v["beta"]["requests"], 4);
    assert_eq!(v.as_object().unwrap().len(), 2);

    // A grouping that does not exist is a usage error.
    let out = run(&["report", "-by=color", &a], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("target"),
        "{}",
        text(&out.stderr)
    );
}

/// `-by=` splits by any series tag: `-tag=worker=w1` on each worker's
/// attack, `report -by=tag:worker` (or `-by=worker`) over their files; the
/// well-known tags by name (`-by=method`); records without the tag in a
/// `(none)` block; unsent requests attributed as with `-by=target`.
#[test]
fn report_by_tag_splits_by_any_series_tag() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let two = format!("GET {0}/one\nHEAD {0}/two\n", o.url());
    let mut files = Vec::new();
    for (worker, n) in [("w1", "6"), ("w2", "4")] {
        let f = dir.path().join(format!("{worker}.bin"));
        let out = run(
            &[
                "attack",
                "-rate=200",
                &format!("-max-requests={n}"),
                &format!("-tag=worker={worker}"),
                "-tag=endpoint=api",
                &format!("-output={}", f.display()),
            ],
            two.as_bytes(),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        files.push(f.display().to_string());
    }
    let untagged = dir.path().join("plain.bin");
    let out = run(
        &[
            "attack",
            "-rate=200",
            "-max-requests=3",
            &format!("-output={}", untagged.display()),
        ],
        two.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let mut args = vec!["report", "-by=tag:worker"];
    args.extend(files.iter().map(String::as_str));
    let untagged = untagged.display().to_string();
    args.push(&untagged);
    let out = run(&args, b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = text(&out.stdout);
    let heads: Vec<&str> = rep.lines().filter(|l| l.starts_with("Worker: ")).collect();
    assert_eq!(
        heads,
        ["Worker: w1", "Worker: w2", "Worker: (none)"],
        "{rep}"
    );
    let totals: Vec<&str> = rep
        .lines()
        .filter(|l| l.starts_with("Requests"))
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(totals, ["6,", "4,", "3,"], "{rep}");
    // The bare name of a well-known tag is the same grouping.
    args[1] = "-by=worker";
    assert_eq!(run(&args, b"").stdout, out.stdout);

    // By method, as JSON: the two files' GETs and HEADs, keyed by method.
    let out = run(
        &["report", "-by=method", "-type=json", &files[0], &files[1]],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["GET"]["requests"], 5);
    assert_eq!(v["HEAD"]["requests"], 5);
    let out = run(
        &[
            "report",
            "-by=tag:endpoint",
            "-type=json",
            &files[0],
            &files[1],
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["api"]["requests"], 10);

    // A bad tag, and an empty tag name, are usage errors.
    for bad in ["-tag=worker", "-tag==x", "-tag=url=x"] {
        let out = run(&["attack", bad, "-max-requests=1"], two.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("-tag"), "{}", text(&out.stderr));
    }
    let out = run(&["report", "-by=tag:", &files[0]], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("tag name"),
        "{}",
        text(&out.stderr)
    );
}

/// Splits a loadlab results file (one attack) into `n` files, request `i`
/// going to file `i % n`, as `n` workers sharing one schedule would have
/// written them: each with the attack's begin record and the series its
/// requests use; the unsent count (if any) in the first.
fn split_results(whole: &std::path::Path, parts: &[std::path::PathBuf]) {
    use loadlab_core::{Sink, TargetInfo};
    use loadlab_metrics::{Item, ResultsReader, ResultsWriter};
    let mut r = ResultsReader::new(std::fs::File::open(whole).unwrap(), "whole").unwrap();
    let mut writers: Vec<ResultsWriter<Vec<u8>>> = parts
        .iter()
        .map(|_| ResultsWriter::new(Vec::new()))
        .collect();
    let mut known: Vec<Vec<u32>> = vec![Vec::new(); parts.len()];
    let mut i = 0;
    while let Some(item) = r.next_item() {
        let Item::Request(rec) = item.unwrap() else {
            panic!("an attack writes requests only")
        };
        let k = i % parts.len();
        i += 1;
        let w = &mut writers[k];
        if w.samples() == 0 && known[k].is_empty() {
            w.begin(r.attack_info());
        }
        let id = rec.sample.target;
        if !known[k].contains(&id) {
            known[k].push(id);
            match &rec.series {
                Some(s) => w.register_series(id, &s.to_info()),
                None => w.register_target(
                    id,
                    &TargetInfo {
                        method: rec.method.to_string(),
                        url: rec.url.to_string(),
                    },
                ),
            }
        }
        w.record(&rec.sample);
    }
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let unsent: u64 = r.unsent().iter().map(|(_, n)| n).sum();
    for (k, (mut w, path)) in writers.into_iter().zip(parts).enumerate() {
        if k == 0 {
            w.write_unsent(unsent);
        }
        std::fs::write(path, w.into_inner().unwrap()).unwrap();
    }
}

/// Exact merge: one real attack's results split by request into 4 files
/// (as 4 workers would write them) report exactly as the whole file, line
/// for line, in every report type: histograms and counters add up, no
/// figure is averaged. The library's `Metrics::merge` of per-file metrics
/// (what a controller collecting workers' figures does) gives the same.
#[test]
fn four_files_split_from_one_report_exactly_as_the_whole() {
    let o = origin(
        r#"{"route":"/*","body":"hello world","stages":[{"at":0,"status":200,"latency":"0ms..4ms","errors":{"rate":"10%","status":503}}]}"#,
    );
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole.bin");
    // Two targets of the origin (10 % of their requests fail with 503) and
    // one refused address: failures of two kinds in the error set.
    let targets = format!(
        "GET {0}/a\nPOST {0}/b\nGET http://127.0.0.1:1/refused\n",
        o.url()
    );
    let out = run(
        &[
            "attack",
            "-rate=300",
            "-duration=2s",
            "-tag=worker=w0",
            &format!("-output={}", whole.display()),
        ],
        targets.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let parts: Vec<std::path::PathBuf> = (0..4)
        .map(|k| dir.path().join(format!("part{k}.bin")))
        .collect();
    split_results(&whole, &parts);
    let whole_s = whole.display().to_string();
    let part_s: Vec<String> = parts.iter().map(|p| p.display().to_string()).collect();
    for kind in ["text", "json", "hdrplot", "hist[0,1ms,2ms,3ms,5ms]"] {
        let t = format!("-type={kind}");
        let a = run(&["report", &t, &whole_s], b"");
        assert_eq!(a.status.code(), Some(0), "{}", text(&a.stderr));
        let mut args = vec!["report", t.as_str()];
        args.extend(part_s.iter().map(String::as_str));
        let b = run(&args, b"");
        assert_eq!(b.status.code(), Some(0), "{}", text(&b.stderr));
        let (a, b) = (text(&a.stdout), text(&b.stdout));
        assert!(!a.trim().is_empty(), "-type={kind}: empty report");
        for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
            assert_eq!(x, y, "-type={kind}, line {}", n + 1);
        }
        assert_eq!(a, b, "-type={kind}");
        if kind == "text" {
            assert!(a.contains("503 Service Unavailable"), "{a}");
            assert!(a.contains("connection refused"), "{a}");
            let n: u64 = field(&a, "Requests")
                .split_whitespace()
                .nth(4)
                .unwrap()
                .trim_end_matches(',')
                .parse()
                .unwrap();
            assert!(n >= 400, "{a}");
        }
    }
    // The same through per-file metrics merged, in any order.
    let metrics_of = |path: &std::path::Path| {
        let mut m = loadlab_metrics::Metrics::new();
        let mut res =
            loadlab_metrics::open_results(std::fs::File::open(path).unwrap(), "f").unwrap();
        for r in res.by_ref() {
            m.add(&r.unwrap());
        }
        for (_, n) in res.unsent() {
            m.add_unsent(*n);
        }
        m
    };
    let all = metrics_of(&whole);
    let mut merged = loadlab_metrics::Metrics::new();
    for p in parts.iter().rev() {
        merged.merge(&metrics_of(p));
    }
    assert_eq!(merged.summary(), all.summary());
    for kind in [
        loadlab_metrics::ReportType::Text,
        loadlab_metrics::ReportType::Json,
    ] {
        assert_eq!(
            loadlab_metrics::render(&kind, &merged),
            loadlab_metrics::render(&kind, &all)
        );
    }
    assert_eq!(merged.latency().histogram(), all.latency().histogram());
}

/// One HTTP/1.1 GET over a plain socket; the response body.
fn http_get(addr: &str) -> Option<String> {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut buf = String::new();
    s.read_to_string(&mut buf).ok()?;
    buf.split_once("\r\n\r\n").map(|(_, b)| b.to_string())
}

#[test]
fn prometheus_metrics_are_served_while_the_attack_runs() {
    use std::io::{BufRead, BufReader};
    let o = fast_origin();
    let mut child = Command::new(bin())
        .args([
            "attack",
            "-rate=100",
            "-duration=3s",
            "-prometheus-addr=127.0.0.1:0",
            "-output=/dev/null",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let targets = format!("GET {0}/ok\nGET http://127.0.0.1:1/down\n", o.url());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(targets.as_bytes())
        .unwrap();
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let addr = line
        .trim()
        .strip_prefix("loadlab: Prometheus metrics on http://")
        .and_then(|r| r.strip_suffix("/metrics"))
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .to_string();
    // Scrape until both targets show up (samples reach the sink in batches,
    // each worker's at least every 200 ms), for as long as the attack runs.
    let body = loop {
        let body = http_get(&addr).expect("the exporter answers during the attack");
        if body.contains("status=\"200\"") && body.contains("request_fail_count{") {
            break body;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let ok = format!("method=\"GET\",url=\"{}/ok\",status=\"200\"", o.url());
    let count: u64 = body
        .lines()
        .find_map(|l| l.strip_prefix(&format!("request_seconds_count{{{ok}}} ")))
        .unwrap_or_else(|| panic!("no count for {ok} in\n{body}"))
        .parse()
        .unwrap();
    assert!((1..=300).contains(&count), "{count}");
    assert!(body.contains("# TYPE request_seconds histogram"), "{body}");
    assert!(
        body.lines().any(|l| l.starts_with("request_fail_count{")
            && l.contains("url=\"http://127.0.0.1:1/down\"")
            && l.contains("connection refused")),
        "{body}"
    );
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = std::io::Read::read_to_string(&mut err, &mut rest);
        rest
    });
    let out = wait_bounded(child, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", rest.join().unwrap());
    // Gone with the attack.
    assert!(http_get(&addr).is_none());
}

#[test]
fn bad_input_leaves_an_existing_results_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("results.bin");
    std::fs::write(&f, b"yesterday's results").unwrap();
    let out_flag = format!("-output={}", f.display());
    // Malformed targets.
    let out = run(
        &["attack", "-max-requests=1", &out_flag],
        b"FETCH nothing\n",
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    // A metrics port already taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let prom = format!("-prometheus-addr={}", taken.local_addr().unwrap());
    let out = run(
        &["attack", "-max-requests=1", &out_flag, &prom],
        b"GET http://127.0.0.1:1/\n",
    );
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("cannot listen on -prometheus-addr"));
    assert_eq!(std::fs::read(&f).unwrap(), b"yesterday's results");
}

#[test]
fn ab_takes_a_url_without_scheme_and_faces_print_usage_on_help() {
    let o = fast_origin();
    let bare = format!("{}/", o.url().trim_start_matches("http://"));
    let out = run(&["ab", "-n", "10", &bare], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Complete requests:      10\n"),
        "{}",
        text(&out.stdout)
    );
    // A body file that cannot be read: exit 4, as every unreadable file.
    let out = run(&["ab", "-n", "1", "-p", "no-such-body.json", &bare], b"");
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot read -p file no-such-body.json"),
        "{}",
        text(&out.stderr)
    );
    for args in [
        &["ab", "--help"][..],
        &["ab", "-h"],
        &["wrk", "--help"],
        &["wrk", "-h"],
    ] {
        let out = run(args, b"");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert!(
            text(&out.stdout).starts_with(&format!("Usage: loadlab {} ", args[0])),
            "{args:?}: {}",
            text(&out.stdout)
        );
    }
}

#[test]
fn the_version_names_the_commit_built() {
    let out = run(&["--version"], b"");
    assert_eq!(out.status.code(), Some(0));
    let head = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output_bounded()
        .ok()
        .filter(|o| o.status.success())
        .map_or("unknown".to_string(), |o| {
            text(&o.stdout).trim().to_string()
        });
    assert_eq!(
        text(&out.stdout),
        format!("loadlab {} ({head})\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn the_top_help_names_the_demo_as_the_place_to_start() {
    let out = run(&["--help"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        text(&out.stdout).contains("Start with `loadlab demo`"),
        "{}",
        text(&out.stdout)
    );
}

#[test]
fn help_shows_each_default_once() {
    for cmd in [
        "attack", "report", "encode", "plot", "origin", "study", "runs",
    ] {
        let out = run(&[cmd, "--help"], b"");
        assert_eq!(out.status.code(), Some(0), "{cmd}");
        for line in text(&out.stdout).lines() {
            assert!(
                line.matches("[default:").count() <= 1,
                "loadlab {cmd} --help: {line:?}"
            );
        }
    }
}

/// Writes a loadlab results file of `samples` (one target, `GET http://127.0.0.1:1/`).
fn results_file(path: &std::path::Path, samples: &[loadlab_core::Sample]) {
    use loadlab_core::{AttackInfo, Sink, TargetInfo};
    let mut w = loadlab_metrics::ResultsWriter::new(std::fs::File::create(path).unwrap());
    w.begin(&AttackInfo {
        name: String::new(),
        start_unix_ns: 1_700_000_000_000_000_000,
        ..Default::default()
    });
    w.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://127.0.0.1:1/".into(),
        },
    );
    for s in samples {
        w.record(s);
    }
    w.finish().unwrap();
}

fn ok_sample(seq: u64, intended: u64, sent: u64, done: u64) -> loadlab_core::Sample {
    loadlab_core::Sample {
        seq,
        intended_ns: intended,
        sent_ns: sent,
        first_byte_ns: done - 1_000,
        done_ns: done,
        status: 200,
        bytes_in: 11,
        ..Default::default()
    }
}

#[test]
fn report_rounds_durations_as_vegeta_does() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.bin");
    results_file(
        &f,
        &[
            ok_sample(0, 0, 0, 1_020_135),
            ok_sample(1, 1_990_135_281, 1_990_135_281, 1_992_844_404),
        ],
    );
    let out = run(&["report", f.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = text(&out.stdout);
    assert!(
        field(&rep, "Duration").ends_with("  1.993s, 1.99s, 2.709ms"),
        "{rep}"
    );
    assert!(field(&rep, "Latencies").contains("  1.02ms, "), "{rep}");
    // Nothing was late: vegeta's eight lines only.
    assert_eq!(rep.lines().count(), 8, "{rep}");
}

fn slow_origin(latency: &str) -> OriginHandle {
    origin(&format!(
        r#"{{"route":"/*","body":"slow","stages":[{{"at":0,"status":200,"latency":"{latency}"}}]}}"#
    ))
}

/// The number after `label` in a text report line, e.g. the rate of
/// `Requests [total, rate, throughput]  20, 10.26, 10.01` is item 1.
fn item(report: &str, label: &str, i: usize) -> String {
    let line = field(report, label);
    let values = line.rsplit("  ").next().unwrap();
    values.split(", ").nth(i).unwrap().trim().to_string()
}

/// Parses a Go duration as the text report prints it (`1.99s`, `780ms`).
fn go_secs(s: &str) -> f64 {
    let (num, unit) = s
        .find(|c: char| c.is_ascii_alphabetic() || c == 'µ')
        .map(|i| s.split_at(i))
        .unwrap();
    let n: f64 = num.parse().unwrap_or_else(|_| panic!("duration {s:?}"));
    n * match unit {
        "s" => 1.0,
        "ms" => 1e-3,
        "µs" => 1e-6,
        "ns" => 1e-9,
        u => panic!("unit {u} in {s:?}"),
    }
}

#[test]
fn a_generator_that_falls_behind_reports_its_actual_send_rate_and_span() {
    // One worker against a server that takes 100 ms: at most ~10 sends a
    // second although the schedule asks for 50/s.
    let o = slow_origin("100ms");
    let target = format!("GET {}/\n", o.url());
    let out = run(
        &["attack", "-rate=50", "-duration=2s", "-max-workers=1"],
        target.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = run(&["report"], &out.stdout);
    let rep = text(&rep.stdout);
    let n: f64 = item(&rep, "Requests", 0).parse().unwrap();
    let rate: f64 = item(&rep, "Requests", 1).parse().unwrap();
    let attack = go_secs(&item(&rep, "Duration", 1));
    let wait = go_secs(&item(&rep, "Duration", 2));
    assert!(n >= 3.0, "{rep}");
    // Sends are at least 100 ms apart: the actual span and rate say so.
    assert!(attack >= (n - 1.0) * 0.099, "{rep}");
    assert!(rate <= n / ((n - 1.0) * 0.099), "{rep}");
    assert!(rate < 16.0, "{rep}");
    // wait = last done − last send: one response time, not the backlog.
    assert!((0.099..1.0).contains(&wait), "{rep}");
    // The schedule the sends were meant to keep is on its own line, after vegeta's.
    let sched_rate: f64 = item(&rep, "Schedule", 0).parse().unwrap();
    assert!(sched_rate > 40.0, "{rep}");
    let pos = |l: &str| rep.find(l).unwrap_or_else(|| panic!("no {l} in {rep}"));
    assert!(pos("Error Set:") < pos("Schedule"), "{rep}");
    assert!(pos("Schedule") < pos("Send Lag"), "{rep}");
    // The JSON report agrees and keeps the schedule too.
    let rep = run(&["report", "-type=json"], &out.stdout);
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    let duration = json["duration"].as_u64().unwrap() as f64 / 1e9;
    assert!(duration >= (n - 1.0) * 0.099, "{json}");
    assert!(json["schedule"]["rate"].as_f64().unwrap() > 40.0, "{json}");
    assert!(
        json["schedule"]["duration"].as_u64().unwrap() as f64 / 1e9 < duration,
        "{json}"
    );
}

#[test]
fn scheduled_requests_never_sent_show_in_every_report() {
    // One worker, a 100 ms server, 50/s for 2 s: the schedule calls for 100
    // requests, about 20 go out; the rest are counted, not hidden.
    let o = slow_origin("100ms");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.bin");
    let target = format!("GET {}/\n", o.url());
    let out = run(
        &[
            "attack",
            "-rate=50",
            "-duration=2s",
            "-max-workers=1",
            "-name=capped",
            &format!("-output={}", f.display()),
        ],
        target.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let f = f.to_str().unwrap();
    let rep = text(&run(&["report", f], b"").stdout);
    let sent: u64 = item(&rep, "Requests", 0).parse().unwrap();
    let unsent: u64 = item(&rep, "Unsent", 0).parse().unwrap();
    assert_eq!(sent + unsent, 100, "{rep}");
    assert!(unsent >= 50, "{rep}");
    let pos = |l: &str| rep.find(l).unwrap_or_else(|| panic!("no {l} in {rep}"));
    assert!(pos("Error Set:") < pos("Unsent"), "{rep}");
    // The attack said so on stderr too.
    assert!(
        text(&out.stderr).contains(&format!("; {unsent} scheduled requests never sent")),
        "{}",
        text(&out.stderr)
    );
    // JSON, and the blocks of -by=attack and -by=target.
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["report", "-type=json", f], b"").stdout).unwrap();
    assert_eq!(json["unsent"].as_u64(), Some(unsent), "{json}");
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["report", "-type=json", "-by=attack", f], b"").stdout)
            .unwrap();
    assert_eq!(json["capped"]["unsent"].as_u64(), Some(unsent), "{json}");
    for by in ["-by=attack", "-by=target"] {
        let rep = text(&run(&["report", by, f], b"").stdout);
        assert_eq!(
            item(&rep, "Unsent", 0).parse::<u64>().unwrap(),
            unsent,
            "{by}: {rep}"
        );
    }
}

#[test]
fn a_failing_target_is_summed_up_on_stderr() {
    let refused = loadlab_testkit::refused::Refused::new();
    let port = refused.port();
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.bin");
    let target = format!("GET http://127.0.0.1:{port}/down\n");
    let out = run(
        &[
            "attack",
            "-rate=50",
            "-max-requests=10",
            "-timeout=2s",
            &format!("-output={}", f.display()),
        ],
        target.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one line: {err}");
    let l = lines[0];
    assert!(l.starts_with("loadlab: "), "{l}");
    assert!(l.contains("0.00% success"), "{l}");
    assert!(
        l.contains(&format!("127.0.0.1:{port}/down")) && l.contains("connection refused"),
        "{l}"
    );
    assert!(l.contains("10 of 10"), "{l}");

    // Two targets that both answer 404: one error text, counted over both.
    let o =
        origin(r#"{"route":"/*","body":"no","stages":[{"at":0,"status":404,"latency":"0ms"}]}"#);
    let out = run(
        &[
            "attack",
            "-rate=50",
            "-max-requests=10",
            &format!("-output={}", f.display()),
        ],
        format!("GET {0}/a\nGET {0}/b\n", o.url()).as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("top error: 404 Not Found (10 of 10)"), "{err}");

    // A healthy run says nothing.
    let o = fast_origin();
    let out = run(
        &[
            "attack",
            "-rate=50",
            "-max-requests=5",
            &format!("-output={}", f.display()),
        ],
        format!("GET {}/\n", o.url()).as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn usage_errors_are_one_line_starting_with_loadlab() {
    for (args, want) in [
        (
            &["attack", "-duraton=1s"][..],
            "'-duraton' found (a similar argument exists: '-duration')",
        ),
        (&["attack", "-rate=fast"][..], "invalid rate \"fast\""),
        (&["attack", "-ramp-to=5"][..], "--ramp-duration"),
        (&["report", "-typ=json"][..], "'-type'"),
        (&["report", "-by"][..], "-by"),
        (&["encode", "-too=csv"][..], "'-to'"),
        (&["origin", "--listen"][..], "--listen"),
        (&["plot", "-titel=x"][..], "'-title'"),
        (
            &["attack", "--duraton=1s"][..],
            "'--duraton' found (a similar argument exists: '--duration')",
        ),
        (&["atack"][..], "'attack'"),
        (&["runs", "--bogus"][..], "--bogus"),
        (
            &["k6", "hello.js"][..],
            "did you mean 'loadlab k6 run hello.js'?",
        ),
        (
            &["k8s", "render", "--workers", "2", "--", "-duraton=1s"][..],
            "in the attack flags after --: unexpected argument '-duraton' found (a similar argument exists: '-duration')",
        ),
    ] {
        let out = run(args, b"");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: one line, got:\n{err}");
        assert!(err.starts_with("loadlab: "), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {want:?} in {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn report_reads_a_file_and_a_copy_of_a_segment_once() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    let out = run(
        &[
            "attack",
            "-rate=100",
            "-max-requests=10",
            "-segment=0/2",
            &format!("-output={}", a.display()),
        ],
        format!("GET {}/\n", o.url()).as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    std::fs::copy(&a, &b).unwrap();
    let (a, b) = (a.display().to_string(), b.display().to_string());
    for (files, warning) in [
        ([&a, &a], format!("{a} is {a} again; read once")),
        (
            [&a, &b],
            format!("{b} holds the same worker's results as {a} (attack \"\", segment 0/2"),
        ),
    ] {
        let out = run(&["report", files[0], files[1]], b"");
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{e}");
        assert!(
            o.starts_with("Requests      [total, rate, throughput]         5, "),
            "{o}"
        );
        assert!(e.contains(&warning), "{e}");
    }
    // A pipe given by name is read whole, not peeked at.
    let out = run(&["report", "/dev/stdin"], &std::fs::read(&a).unwrap());
    let o = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        o.starts_with("Requests      [total, rate, throughput]         5, "),
        "{o}"
    );
}

/// The status of `GET /_admin/status` with `token` (if any) as a bearer.
fn admin_status(addr: &str, token: Option<&str>) -> u16 {
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    let auth = token.map_or(String::new(), |t| format!("Authorization: Bearer {t}\r\n"));
    write!(
        s,
        "GET /_admin/status HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_origin_admin_token_comes_from_a_file_or_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, "s3cret-file\n").unwrap();
    let file_arg = file.display().to_string();
    for (args, env, token) in [
        (
            vec!["--admin-token-file", file_arg.as_str()],
            None,
            "s3cret-file",
        ),
        (vec![], Some("s3cret-env"), "s3cret-env"),
    ] {
        let mut cmd = Command::new(bin());
        cmd.args(["origin", "--listen", "127.0.0.1:0", "--workers", "1"])
            .args(&args)
            .env_remove("LOADLAB_ORIGIN_ADMIN_TOKEN")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if let Some(v) = env {
            cmd.env("LOADLAB_ORIGIN_ADMIN_TOKEN", v);
        }
        let mut child = loadlab_testkit::proc::Guard(cmd.spawn().unwrap());
        let watch = Watch::stderr(&mut child.0);
        let line = watch.wait_for_line("listening on http://", PATIENCE);
        let addr = line
            .split("listening on http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        assert_eq!(admin_status(&addr, None), 401, "{args:?} {env:?}");
        assert_eq!(admin_status(&addr, Some("wrong")), 401);
        assert_eq!(admin_status(&addr, Some(token)), 200, "{args:?} {env:?}");
    }
    // An empty token file is refused, by name.
    std::fs::write(&file, "\n").unwrap();
    let out = run(&["origin", "--admin-token-file", &file_arg], b"");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("the admin token is empty"));
}

#[test]
fn a_full_disk_is_a_file_error() {
    // /dev/full takes the open and refuses every write with ENOSPC.
    let o = fast_origin();
    let out = run(
        &[
            "attack",
            "-rate=2000",
            "-max-requests=4000",
            "-output=/dev/full",
        ],
        format!("GET {}/\n", o.url()).as_bytes(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn a_target_without_scheme_and_an_empty_plot_are_named() {
    let out = run(
        &["attack", "-rate=1", "-duration=1s"],
        b"GET 127.0.0.1:8080/\n",
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("missing scheme (did you mean \"http://127.0.0.1:8080/\"?)"),
        "{err}"
    );
    let out = run(&["plot"], b"");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("the input holds no results"), "{err}");
    assert!(text(&out.stdout).starts_with("<!doctype html>"));
}

#[test]
fn a_url_given_to_attack_as_an_argument_gets_the_pipe_suggested() {
    for (args, want) in [
        (
            &["attack", "http://127.0.0.1:8080/"][..],
            "echo \"GET http://127.0.0.1:8080/\" | loadlab attack",
        ),
        (
            &[
                "attack",
                "-rate=10",
                "-duration=5s",
                "https://example.test/a?b=1",
            ][..],
            "echo \"GET https://example.test/a?b=1\" | loadlab attack -rate=10 -duration=5s",
        ),
        (
            &["attack", "POST", "http://127.0.0.1:8080/upload", "-rate=5"][..],
            "echo \"POST http://127.0.0.1:8080/upload\" | loadlab attack -rate=5",
        ),
    ] {
        let out = run(args, b"");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("loadlab: "), "{err}");
        assert!(err.contains(want), "{args:?}: {want:?} in {err}");
    }
}

#[test]
fn a_repeated_flag_is_not_an_error_the_last_one_wins() {
    // As with Go's flag package, which wrapper scripts rely on:
    // `wrapper -duration=5s "$@"` with the user's own -duration.
    let o = fast_origin();
    let target = format!("GET {}/\n", o.url());
    let out = run(
        &[
            "attack",
            "-duration=30s",
            "-rate=10",
            "-rate=200",
            "-max-requests=1000",
            "-max-requests=20",
            "-header=X-A: 1",
            "-header=X-B: 2",
            "-keepalive=false",
            "-keepalive",
        ],
        target.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rep = run(&["report", "-type=json", "-type=text"], &out.stdout);
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    let rep = text(&rep.stdout);
    assert!(field(&rep, "Requests").contains(" 20, "), "{rep}");
    // 20 requests at 200/s, not 10/s.
    let attack = go_secs(&item(&rep, "Duration", 1));
    assert!(attack < 1.0, "{rep}");

    // Flags meant to repeat still accumulate: both headers are sent.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        use std::io::Read;
        let (mut s, _) = l.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = s.read(&mut b).unwrap();
            if n == 0 {
                break;
            }
            head.extend_from_slice(&b[..n]);
        }
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .unwrap();
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    });
    let out = run(
        &[
            "attack",
            "-max-requests=1",
            "-max-requests=1",
            "-header=X-A: 1",
            "-header=X-B: 2",
        ],
        format!("GET http://{addr}/\n").as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let head = server.join().unwrap();
    assert!(head.contains("x-a: 1") && head.contains("x-b: 2"), "{head}");
}

#[test]
fn vegetas_gob_results_are_reported_from_a_pipe() {
    // `vegeta attack | loadlab report`: vegeta's default output is a gob
    // stream. The fixture and vegeta's own report of it were written by vegeta.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../metrics/tests/fixtures");
    let gob = std::fs::read(format!("{dir}/vegeta_mixed.gob")).unwrap();
    let want = std::fs::read_to_string(format!("{dir}/vegeta_mixed.gob.report.txt")).unwrap();
    let out = run(&["report"], &gob);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let got = text(&out.stdout);
    for label in [
        "Requests",
        "Duration",
        "Bytes In",
        "Success",
        "Status Codes",
    ] {
        assert_eq!(field(&got, label), field(&want, label), "{got}");
    }
    assert!(
        got.ends_with(want.split("Error Set:\n").nth(1).unwrap()),
        "{got}"
    );
    // And on to vegeta's JSON.
    let out = run(&["encode"], &gob);
    assert_eq!(text(&out.stdout).lines().count(), 30);
}

#[test]
fn report_buckets_as_in_vegeta() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("r.bin");
    results_file(
        &f,
        &[
            ok_sample(0, 0, 0, 500_000),
            ok_sample(1, 10_000_000, 10_000_000, 12_000_000),
            ok_sample(2, 20_000_000, 20_000_000, 40_000_000),
            ok_sample(3, 30_000_000, 30_000_000, 31_000_000),
        ],
    );
    let f = f.to_str().unwrap();
    // -type=json -buckets: the JSON report carries the bucket counts.
    let out = run(&["report", "-type=json", "-buckets=[0,1ms,10ms]", f], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        json["buckets"],
        serde_json::json!({"0": 1, "1000000": 2, "10000000": 1}),
        "{json}"
    );
    // -type=hist -buckets: the histogram of those buckets (and -buckets
    // wins over hist[...]).
    for t in ["-type=hist", "-type=hist[0,5ms]"] {
        let out = run(&["report", t, "-buckets=[0,1ms,10ms]", f], b"");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let rep = text(&out.stdout);
        assert_eq!(rep.lines().count(), 4, "{rep}");
        assert!(rep.contains("[1ms,   10ms]  2 "), "{rep}");
    }
    // Other report types ignore it, as vegeta's do; a bad value is named.
    let out = run(&["report", "-buckets=[0,1ms]", f], b"");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = run(&["report", "-type=json", "-buckets=[0,1xs]", f], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("1xs"), "{}", text(&out.stderr));
}

#[test]
fn timeout_zero_means_no_timeout() {
    let o = slow_origin("300ms");
    let target = format!("GET {}/\n", o.url());
    let report_of = |timeout: &str| {
        let out = run(
            &["attack", "-rate=20", "-max-requests=2", timeout],
            target.as_bytes(),
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{timeout}: {}",
            text(&out.stderr)
        );
        text(&run(&["report"], &out.stdout).stdout)
    };
    let rep = report_of("-timeout=0");
    assert!(field(&rep, "Status Codes").contains("200:2"), "{rep}");
    // The same server with a timeout below its latency fails: the flag is used.
    let rep = report_of("-timeout=100ms");
    assert!(field(&rep, "Status Codes").contains("0:2"), "{rep}");
}

#[test]
fn report_every_clears_the_screen_on_a_terminal_only() {
    if !loadlab_testkit::need::program(
        "report_every_clears_the_screen_on_a_terminal_only",
        "script",
        "util-linux's script: apt-get install -y bsdutils",
    ) {
        return;
    }
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let targets = dir.path().join("targets.txt");
    std::fs::write(&targets, format!("GET {}/\n", o.url())).unwrap();
    let typescript = dir.path().join("typescript");
    let pipeline = format!(
        "{0} attack -quiet -targets={1} -rate=50 -duration=1500ms | {0} report -every=400ms",
        bin(),
        targets.display()
    );
    let child = Command::new("script")
        .args(["-qec", &pipeline, typescript.to_str().unwrap()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(30));
    assert!(out.status.success());
    let screen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    const CLEAR: &str = "\x1b[2J\x1b[0;0H";
    let reports = screen.matches("Requests").count();
    assert!(reports >= 2, "{screen}");
    // Every report is drawn on a cleared screen.
    assert_eq!(screen.matches(CLEAR).count(), reports, "{screen:?}");
    assert!(screen.contains(&format!("{CLEAR}Requests")), "{screen:?}");

    // Into a pipe or a file: no escape codes.
    let mut attack = Command::new(bin())
        .args(["attack", "-rate=50", "-duration=1s"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    writeln!(attack.stdin.take().unwrap(), "GET {}/", o.url()).unwrap();
    let report = Command::new(bin())
        .args(["report", "-every=300ms"])
        .stdin(attack.stdout.take().unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(report, Duration::from_secs(30));
    let _ = attack.wait();
    let piped = text(&out.stdout);
    assert!(piped.matches("Requests").count() >= 2, "{piped}");
    assert!(!piped.contains('\x1b'), "{piped:?}");
}

#[test]
fn targets_typed_on_a_terminal_end_with_one_ctrl_d() {
    // `script` (util-linux) runs the attack on a pseudo-terminal whose input
    // we type: a target line, then a single Ctrl-D (the terminal's EOF).
    if !loadlab_testkit::need::program(
        "targets_typed_on_a_terminal_end_with_one_ctrl_d",
        "script",
        "util-linux's script: apt-get install -y bsdutils",
    ) {
        return;
    }
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let typescript = dir.path().join("typescript");
    let cmd = format!(
        "{} attack -quiet -rate=10 -max-requests=2 -output={}",
        bin(),
        results.display()
    );
    let mut child = Command::new("script")
        .args(["-qec", &cmd, typescript.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The terminal shows attack's prompt: it is reading targets from it.
    let screen = Watch::stdout(&mut child);
    screen.wait_for_line("loadlab: reading targets from stdin", PATIENCE);
    let mut keys = child.stdin.take().expect("piped stdin");
    let url = o.url();
    let mut typed = || -> std::io::Result<()> {
        writeln!(keys, "GET {url}/typed")?;
        keys.flush()?;
        keys.write_all(b"\x04")?;
        keys.flush()
    };
    let typed = typed();
    // The terminal stays open (no more keys): one Ctrl-D must be enough
    // (without it the attack waits for more typing for ever).
    let start = Instant::now();
    let mut exited = false;
    while typed.is_ok() && start.elapsed() < Duration::from_secs(30) {
        if let Ok(Some(_)) = child.try_wait() {
            exited = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if !exited {
        // A second Ctrl-D would release it: that was the defect.
        let _ = child.kill();
    }
    let _ = child.wait();
    typed.expect("typing into the terminal");
    assert!(exited, "attack still waited for targets after one Ctrl-D");
    drop(keys);
    let rep = run(&["report", "-type=json", results.to_str().unwrap()], b"");
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).expect("results");
    assert_eq!(json["requests"], 2, "{json}");
}

/// As `vegeta attack`, each request says which one it is (`X-Vegeta-Seq`,
/// the `seq` of its result) and, with `-name`, which attack sent it.
#[test]
fn requests_carry_vegetas_sequence_and_attack_headers() {
    use std::io::Read as _;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let heads = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen = heads.clone();
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut c) = conn else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                while let Some(head) = loadlab_testkit::raw::read_head_blocking(&mut c) {
                    seen.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&head).into_owned());
                    if c.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .is_err()
                    {
                        return;
                    }
                }
                let _ = c.read(&mut [0u8; 1]);
            });
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.bin");
    let target = format!("GET http://{addr}/\n");
    let o = run(
        &[
            "attack",
            "-name=nightly",
            "-rate=100",
            "-max-requests=3",
            "-workers=1",
            "-header=X-Vegeta-Seq: mine",
            &format!("-output={}", out.display()),
        ],
        target.as_bytes(),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let heads = heads.lock().unwrap().clone();
    assert_eq!(heads.len(), 3, "{heads:?}");
    let mut seqs: Vec<&str> = heads
        .iter()
        .map(|h| {
            assert!(h.contains("\r\nX-Vegeta-Attack: nightly\r\n"), "{h}");
            assert_eq!(h.matches("X-Vegeta-Seq").count(), 1, "{h}");
            h.split("\r\nX-Vegeta-Seq: ")
                .nth(1)
                .unwrap()
                .split("\r\n")
                .next()
                .unwrap()
        })
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, vec!["0", "1", "2"]);
}
