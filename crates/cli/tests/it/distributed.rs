//! A split run end to end with real processes: `loadlab attack
//! -segment=i/n -start-at=T` workers, `loadlab report` over their files.
//!
//! * `four_workers_in_namespaces_equal_one`: the done-when test of issue
//!   13. Four workers, each in its own network namespace, against `loadlab
//!   origin` in another, all on a bridge the test made (198.18.0.0/15);
//!   4 × 2,500/s with a common start give the same schedule and counts as
//!   one worker at 10,000/s; a worker killed mid-run (SIGKILL) shows as
//!   missing requests. Skipped, saying why, when not root.
//! * `killed_and_absent_workers_show_as_missing`: the same checks on
//!   loopback, which runs everywhere.

use loadlab_testkit::proc::BoundedOutput;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use loadlab_testkit::netns::{Lab, skip_reason};
use loadlab_testkit::proc::{Guard, unix_now};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

/// `launcher` (`prlimit` itself, or `ip netns exec NS prlimit`) set to run
/// loadlab with the soft open-file limit most Linux systems start processes
/// with (1,024; the hard limit left as it is), whatever this host's is.
fn with_default_fd_limit(mut launcher: Command) -> Command {
    launcher.arg("--nofile=1024:").arg(bin());
    launcher
}

const RECIPE: &str =
    r#"{"route":"/*","body":"hello world","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#;

/// Starts `loadlab origin` with `cmd` (already holding the program) and
/// waits until it listens.
fn start_origin(mut cmd: Command, listen: &str, dir: &Path) -> Guard {
    let recipe = dir.join("recipe.json");
    std::fs::write(&recipe, RECIPE).unwrap();
    cmd.args([
        "origin",
        "--listen",
        listen,
        "--admin-token",
        "t0ken",
        "--workers",
        "1",
    ])
    .arg("--recipe")
    .arg(&recipe)
    .stdout(Stdio::null())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn origin");
    let err = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if line.contains("listening on") {
                let _ = tx.send(());
            } else {
                // E.g. why it cannot accept connections: beside the failure.
                eprintln!("origin: {line}");
            }
        }
    });
    let guard = Guard(child);
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the origin did not start listening");
    guard
}

/// How long a worker of `scenario` may take before the test calls it hung:
/// its second of load, plus a request's default 30 s timeout (on a host
/// busy with other work a request can wait that long for the origin), plus
/// room to write its results.
const WORKER_LIMIT: Duration = Duration::from_secs(90);

/// Starts one worker with `cmd`: `attack` with the targets on stdin.
fn start_worker(mut cmd: Command, url: &str, args: &[String], out: &Path) -> Guard {
    cmd.arg("attack")
        .args(args)
        .arg(format!("-output={}", out.display()))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn worker");
    let mut si = child.stdin.take().unwrap();
    writeln!(si, "GET {url}").unwrap();
    drop(si);
    Guard(child)
}

fn finish(mut g: Guard, limit: Duration) -> Output {
    let start = Instant::now();
    while g.0.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < limit,
            "a worker did not finish within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut err = String::new();
    if let Some(mut e) = g.0.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut err);
    }
    let status = g.0.wait().unwrap();
    Output {
        status,
        stdout: Vec::new(),
        stderr: err.into_bytes(),
    }
}

fn report(files: &[PathBuf], kind: &str) -> String {
    let out = Command::new(bin())
        .arg("report")
        .arg(format!("-type={kind}"))
        .args(files)
        .output_bounded()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Every request of the files: global sequence number → intended offset
/// from the start, and the count of requests read.
fn schedule_of(files: &[PathBuf]) -> (BTreeMap<u64, u64>, u64) {
    let mut seen = BTreeMap::new();
    let mut n = 0;
    for f in files {
        let file = std::fs::File::open(f).unwrap();
        let mut r =
            loadlab_metrics::open_results(Box::new(file), &f.display().to_string()).unwrap();
        for rec in r.by_ref() {
            let rec = rec.unwrap();
            n += 1;
            let dup = seen.insert(rec.sample.seq, rec.sample.intended_ns);
            assert!(dup.is_none(), "request {} twice", rec.sample.seq);
        }
    }
    (seen, n)
}

struct ScheduleSegmentName(u64, u64);

impl std::fmt::Display for ScheduleSegmentName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.0, self.1)
    }
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap()
}

/// How each worker is started: a command holding the program to run
/// (`loadlab` itself, or `ip netns exec NS loadlab`).
type Launcher<'a> = &'a dyn Fn(usize) -> Command;

/// Runs the whole test in `launch`'s network: one worker at `rate` as the
/// reference, `n` workers splitting it, then `n` workers with one killed.
fn scenario(launch: Launcher, url: &str, dir: &Path, rate: u64, n: u64) {
    let secs = 1.0;
    let total = (rate as f64 * secs) as u64;
    let common = |start_at: f64| -> Vec<String> {
        // A count rather than -duration: a generator that falls behind on a
        // loaded machine sends late (send lag), never fewer, so the counts
        // stay exact.
        vec![
            format!("-rate={rate}"),
            format!("-max-requests={total}"),
            format!("-start-at={start_at:.3}"),
        ]
    };
    // A generator that falls more than the attack's span behind reports
    // the rest as unsent (never silently): on a host loaded by other work
    // that can happen to the 10,000/s reference. Such a round says nothing
    // about the split, so it is run again (at most 3 rounds). Errors are
    // not such a case: the origin answers every request, however late.
    let mut round = 0;
    let (files, whole, n_single, merged, n_merged, a, b) = loop {
        round += 1;
        // One worker: the whole schedule.
        let single = dir.join("single.bin");
        let t = unix_now() + 1.0;
        let w = start_worker(launch(n as usize), url, &common(t), &single);
        let out = finish(w, WORKER_LIMIT);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );

        // n workers, one common start.
        let t = unix_now() + 1.5;
        let mut guards = Vec::new();
        let mut files = Vec::new();
        for i in 0..n {
            let f = dir.join(format!("w{i}.bin"));
            let mut args = common(t);
            args.push(format!("-segment={i}/{n}"));
            guards.push(start_worker(launch(i as usize), url, &args, &f));
            files.push(f);
        }
        for g in guards {
            let out = finish(g, WORKER_LIMIT);
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }

        // The same schedule: every sequence number once, at the same intended
        // offset, the same counts.
        let (whole, n_single) = schedule_of(std::slice::from_ref(&single));
        let (merged, n_merged) = schedule_of(&files);
        if (n_single < total || n_merged < total) && round < 3 {
            eprintln!(
                "round {round}: the host was too loaded ({n_single} and {n_merged} of {total} sent); again"
            );
            continue;
        }
        let a = json(&report(std::slice::from_ref(&single), "json"));
        let b = json(&report(&files, "json"));
        break (files, whole, n_single, merged, n_merged, a, b);
    };
    assert_eq!(n_single, total, "the single worker fell behind");
    assert_eq!(n_merged, total);
    assert_eq!(merged, whole, "the split schedule differs from the whole");
    for key in ["requests", "status_codes", "unsent", "success"] {
        assert_eq!(
            a[key], b[key],
            "{key}; the errors: single {}, split {}",
            a["errors"], b["errors"]
        );
    }
    assert_eq!(a["schedule"]["duration"], b["schedule"]["duration"]);
    assert_eq!(a["schedule"]["rate"], b["schedule"]["rate"]);
    let wk = &b["workers"][0];
    assert_eq!(wk["segments"], n);
    assert_eq!(wk["present"], n);
    assert_eq!(wk["missing"], 0);
    assert_eq!(wk["scheduled"], total);
    // All started on the same instant: no start warning.
    assert_eq!(wk["start_spread"], 0);
    assert!(wk["start_spread"].as_u64().unwrap() <= wk["resolution"].as_u64().unwrap());
    // The attack spans agree within the send clock's resolution plus the
    // worst send lag either run had.
    let lag = |v: &serde_json::Value| v["send_lag"]["max"].as_u64().unwrap();
    let span = |v: &serde_json::Value| v["duration"].as_u64().unwrap() as i64;
    let slack = 1_000_000 + lag(&a).max(lag(&b)) as i64;
    assert!(
        (span(&a) - span(&b)).abs() <= slack,
        "attack spans {} vs {} (slack {slack})",
        span(&a),
        span(&b)
    );
    let text = report(&files, "text");
    assert!(
        text.contains(&format!(
            "Workers  [segments, start spread]  {n} of {n}, 0s"
        )),
        "{text}"
    );
    assert!(!text.contains("missing"), "{text}");
    // Each segment's series carry worker=i/n: the report splits by it.
    let out = Command::new(bin())
        .args(["report", "-by=worker", "-type=json"])
        .args(&files)
        .output_bounded()
        .unwrap();
    let by = json(&String::from_utf8_lossy(&out.stdout));
    for i in 0..n {
        let seg = ScheduleSegmentName(i, n).to_string();
        assert_eq!(by[&seg]["requests"], (total - i).div_ceil(n), "{seg}: {by}");
    }

    // n workers again; one is killed (SIGKILL) half way through.
    let t = unix_now() + 1.0;
    let victim = 2 % n;
    let mut guards = Vec::new();
    let mut files = Vec::new();
    for i in 0..n {
        let f = dir.join(format!("k{i}.bin"));
        let mut args = common(t);
        args.push(format!("-segment={i}/{n}"));
        guards.push(Some(start_worker(launch(i as usize), url, &args, &f)));
        files.push(f);
    }
    let kill_at = t + secs / 2.0;
    std::thread::sleep(Duration::from_secs_f64((kill_at - unix_now()).max(0.0)));
    let mut killed = guards[victim as usize].take().unwrap();
    killed.0.kill().unwrap(); // SIGKILL
    killed.0.wait().unwrap();
    for g in guards.into_iter().flatten() {
        let out = finish(g, WORKER_LIMIT);
        assert!(out.status.success());
    }
    let (_, got) = schedule_of(std::slice::from_ref(&files[victim as usize]));
    let share = (total - victim).div_ceil(n);
    assert!(got < share, "the killed worker wrote {got} of {share}");
    let missing = share - got;
    let text = report(&files, "text");
    let line =
        format!("{missing} requests missing: segment {victim}/{n} stopped after {got} of {share}");
    assert!(text.contains(&line), "no {line:?} in\n{text}");
    assert!(
        text.contains(&format!("{missing} missing of {total} scheduled")),
        "{text}"
    );
    let j = json(&report(&files, "json"));
    assert_eq!(j["workers"][0]["missing"], missing);
    assert_eq!(j["requests"], total - missing);
    // Without the killed worker's file at all: its whole share is missing.
    let rest: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| *i as u64 != victim)
        .map(|(_, f)| f.clone())
        .collect();
    let text = report(&rest, "text");
    let line = format!("{share} requests missing: segment {victim}/{n} absent");
    assert!(text.contains(&line), "no {line:?} in\n{text}");
}

#[test]
fn four_workers_in_namespaces_equal_one() {
    if let Some(why) = skip_reason() {
        eprintln!("{why}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Dropped last: the processes' guards below go first, then the namespaces.
    let mut lab = Lab::new().expect("make the lab");
    let origin_node = lab.node("198.18.0.1".parse().unwrap()).unwrap();
    let mut nodes = Vec::new();
    for i in 0..5u8 {
        nodes.push(
            lab.node(format!("198.18.0.{}", 10 + i).parse().unwrap())
                .unwrap(),
        );
    }
    // The origin starts at the same soft limit and raises it to the hard
    // one, as loadlab does at start-up. Held at 1,024 soft and hard it ran
    // out of descriptors and closed idle keep-alive connections, and a
    // worker reusing one as it closed got EOF (1 of 5 runs beside two CPU
    // burners): the engine does not yet retry a request whose reused
    // connection closed before any byte of the answer, as Go's does.
    let mut oc = with_default_fd_limit(origin_node.command("prlimit"));
    oc.env_remove("RUST_LOG");
    let _origin = start_origin(oc, "198.18.0.1:8080", dir.path());
    let launch = |i: usize| with_default_fd_limit(nodes[i].command("prlimit"));
    scenario(&launch, "http://198.18.0.1:8080/", dir.path(), 10_000, 4);
    let names: Vec<String> = lab.namespaces().to_vec();
    drop(_origin);
    drop(lab);
    // The namespaces are gone.
    let list = Command::new("ip")
        .args(["netns", "list"])
        .output_bounded()
        .unwrap();
    let list = String::from_utf8_lossy(&list.stdout);
    for ns in names {
        assert!(
            !list
                .lines()
                .any(|l| l.split_whitespace().next() == Some(&ns)),
            "{ns} left behind"
        );
    }
}

#[test]
fn killed_and_absent_workers_show_as_missing() {
    let dir = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let listen = format!("127.0.0.1:{port}");
    let _origin = start_origin(
        with_default_fd_limit(Command::new("prlimit")),
        &listen,
        dir.path(),
    );
    let launch = |_: usize| with_default_fd_limit(Command::new("prlimit"));
    scenario(&launch, &format!("http://{listen}/"), dir.path(), 2_000, 3);
}

#[test]
fn bad_segment_and_start_at_are_usage_errors() {
    let now = unix_now();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["-segment=4/4".into()],
            "index 4 is not below the number of segments 4",
        ),
        (vec!["-segment=1/0".into()], "at least 1"),
        (vec!["-segment=x".into()], "expected i/n"),
        (
            vec!["-segment=1/2".into(), "-lazy".into()],
            "-lazy cannot be combined with -segment",
        ),
        (vec!["-start-at=yesterday".into()], "invalid -start-at"),
        (
            vec![format!("-start-at={:.0}", now - 60.0)],
            "ago (at most 1s late is accepted)",
        ),
        (
            vec![format!("-start-at={:.0}", now * 1000.0)],
            "milliseconds given as seconds",
        ),
        (
            vec![format!("-start-at={:.0}", now + 30.0 * 86400.0)],
            "ahead; at most 24h0m0s",
        ),
        (
            vec!["-start-at=2001-01-01T00:00:00Z".into()],
            "-start-at passed",
        ),
    ];
    for (args, want) in cases {
        let mut c = Command::new(bin());
        c.arg("attack")
            .args(&args)
            .arg("-duration=1s")
            .stdin(Stdio::null());
        let out = c.output_bounded().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}
