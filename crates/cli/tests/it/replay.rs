//! `loadlab attack -replay`: a seeded, bursty combined log replayed at ×1
//! and ×4 against a real origin on 127.0.0.1. Every request is sent, in
//! the log's order, and the per-second counts of the intended send times
//! are the log's own (compressed ×4), read back from the results file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::proc::{text, wait_bounded};

fn origin() -> OriginHandle {
    let recipes = parse_recipes(
        r#"{"route":"/*","body":"ok","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#,
    )
    .expect("recipe");
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

/// A small seeded generator (xorshift64*): the log is the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The generated log: its text, the requests' paths in time order (a
/// stable sort of the lines by their second), and the count per second.
struct Log {
    text: String,
    order: Vec<String>,
    per_second: BTreeMap<u64, u64>,
    malformed: usize,
}

/// `seconds` seconds of traffic: a base of 60–200 requests a second and
/// bursts of 400–700; a line now and then written a second late (out of
/// order), and a few garbage lines.
fn generate(seed: u64, seconds: u64) -> Log {
    let mut rng = Rng(seed);
    let mut lines: Vec<(u64, String)> = Vec::new();
    let mut per_second = BTreeMap::new();
    for s in 0..seconds {
        let n = if rng.below(4) == 0 {
            400 + rng.below(300)
        } else {
            60 + rng.below(140)
        };
        per_second.insert(s, n);
        for _ in 0..n {
            let path = format!("/r/{}?u={}", lines.len(), rng.below(1000));
            lines.push((s, path));
        }
    }
    // Swap a few neighbours across a second's boundary: written out of order.
    let mut written: Vec<usize> = (0..lines.len()).collect();
    for i in 1..written.len() {
        if lines[written[i - 1]].0 != lines[written[i]].0 && rng.below(2) == 0 {
            written.swap(i - 1, i);
        }
    }
    let mut text = String::new();
    let mut malformed = 0;
    for (k, &i) in written.iter().enumerate() {
        let (s, path) = &lines[i];
        let (m, sec) = (s / 60, s % 60);
        let method = if rng.below(10) == 0 { "POST" } else { "GET" };
        writeln!(
            text,
            r#"10.0.{}.{} - - [28/Nov/2026:10:{m:02}:{sec:02} +0000] "{method} {path} HTTP/1.1" 200 {} "-" "replay-test/1""#,
            k % 250,
            rng.below(250),
            rng.below(5000)
        )
        .unwrap();
        if k % 997 == 500 {
            text.push_str("this is not a log line\n");
            malformed += 1;
        }
    }
    // Time order: by second, then as written (the reorder window is stable).
    let mut sorted: Vec<(u64, usize)> = written.iter().map(|&i| (lines[i].0, i)).collect();
    sorted.sort_by_key(|&(s, _)| s);
    let order = sorted.iter().map(|&(_, i)| lines[i].1.clone()).collect();
    Log {
        text,
        order,
        per_second,
        malformed,
    }
}

fn replay(log: &std::path::Path, base: &str, speed: &str, out: &std::path::Path) -> String {
    let child = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args([
            "attack",
            &format!("-replay={}", log.display()),
            &format!("-replay-base={base}"),
            &format!("-speed={speed}"),
            &format!("-output={}", out.display()),
            "-quiet",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    let done = wait_bounded(child, Duration::from_secs(120));
    let err = text(&done.stderr);
    assert!(done.status.success(), "{err}");
    err
}

/// The results' samples in sequence order: (intended ns, path, status).
fn samples(path: &std::path::Path) -> Vec<(u64, u64, String, u16)> {
    let f = std::fs::File::open(path).unwrap();
    let mut v: Vec<_> = loadlab_metrics::open_results(f, "results")
        .unwrap()
        .map(|r| {
            let r = r.unwrap();
            let p = r.url.split_once("//").unwrap().1;
            let p = &p[p.find('/').unwrap()..];
            (
                r.sample.seq,
                r.sample.intended_ns,
                p.to_string(),
                r.sample.status,
            )
        })
        .collect();
    v.sort_by_key(|s| s.0);
    v
}

#[test]
fn a_bursty_log_replays_at_its_own_timing_at_x1_and_x4() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let log = generate(0x5eed_1e55, 6);
    let file = dir.path().join("access.log");
    std::fs::write(&file, &log.text).unwrap();
    let total: u64 = log.per_second.values().sum();
    assert!(total > 1500, "{total} requests");
    for speed in [1u64, 4] {
        let out = dir.path().join(format!("x{speed}.bin"));
        let err = replay(&file, &o.url(), &speed.to_string(), &out);
        // The garbage lines are counted and shown with their place.
        assert!(
            err.contains(&format!("{} malformed lines skipped", log.malformed)),
            "{err}"
        );
        assert!(err.contains("access.log:"), "{err}");
        assert!(err.contains("timestamps went backwards"), "{err}");
        let got = samples(&out);
        assert_eq!(got.len() as u64, total, "every request is sent");
        assert!(got.iter().all(|s| s.3 == 200), "every request answered");
        let paths: Vec<&str> = got.iter().map(|s| s.2.as_str()).collect();
        let want: Vec<&str> = log.order.iter().map(String::as_str).collect();
        assert_eq!(paths, want, "sent in the log's time order");
        let mut bins: BTreeMap<u64, u64> = BTreeMap::new();
        for s in &got {
            *bins.entry(s.1 * speed / 1_000_000_000).or_default() += 1;
        }
        assert_eq!(bins, log.per_second, "per-second counts at x{speed}");
        // Compressed: the last request is due within the log's span / speed.
        let last = got.iter().map(|s| s.1).max().unwrap();
        assert!(last < 6_000_000_000 / speed, "last due at {last} ns");
    }
}

fn loadlab(args: &[&str]) -> std::process::Output {
    let child = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    wait_bounded(child, Duration::from_secs(60))
}

#[test]
fn a_custom_format_with_hosts_is_rewritten_and_strict_names_the_line() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("timed.log");
    std::fs::write(
        &log,
        "1764324000.000 https shop.example.com \"GET /a HTTP/1.1\" 0.000\n\
         1764324000.100 https shop.example.com \"POST /b HTTP/1.1\" 0.000\n\
         not a line\n\
         1764324000.300 https shop.example.com \"GET /c HTTP/1.1\" 0.000\n",
    )
    .unwrap();
    let out = dir.path().join("r.bin");
    let origin_url = o.url();
    let args = |strict: &str| {
        vec![
            "attack".to_string(),
            format!("-replay={}", log.display()),
            r#"-log-format=$msec $scheme $host "$request" $request_time"#.to_string(),
            format!("-rewrite-host=shop.example.com={origin_url}"),
            "-set-header=Authorization: Bearer sekrit".to_string(),
            format!("-output={}", out.display()),
            format!("-strict={strict}"),
            "-quiet".to_string(),
        ]
    };
    let a = args("false");
    let done = loadlab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let err = text(&done.stderr);
    assert!(done.status.success(), "{err}");
    assert!(
        err.contains("timed.log:3: the line does not match the log format"),
        "{err}"
    );
    let got = samples(&out);
    let paths: Vec<&str> = got.iter().map(|s| s.2.as_str()).collect();
    assert_eq!(paths, ["/a", "/b", "/c"]);
    let at: Vec<u64> = got.iter().map(|s| s.1 / 1_000_000).collect();
    assert_eq!(at, [0, 100, 300], "ms offsets as recorded");
    assert!(got.iter().all(|s| s.3 == 200));

    let a = args("true");
    let done = loadlab(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let err = text(&done.stderr);
    assert_eq!(done.status.code(), Some(3), "{err}");
    assert!(
        err.contains("timed.log:3: the line does not match the log format"),
        "{err}"
    );

    // A bad -set-header is refused without showing its value.
    let bad = format!("-replay={}", log.display());
    let done = loadlab(&["attack", &bad, "-set-header=Bad Name: sekrit"]);
    let err = text(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "{err}");
    assert!(
        err.contains("-set-header") && !err.contains("sekrit"),
        "{err}"
    );
}

#[test]
fn import_log_writes_the_endpoint_mix_with_its_weights() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("access.log");
    let mut body = String::new();
    for (path, n) in [
        ("/news?id=1", 7),
        ("/sport", 2),
        ("/news?id=2", 3),
        ("/sounds", 1),
    ] {
        for _ in 0..n {
            writeln!(
                body,
                r#"1.2.3.4 - - [28/Nov/2026:10:00:00 +0000] "GET {path} HTTP/1.1" 200 5 "-" "t""#
            )
            .unwrap();
        }
    }
    body.push_str("garbage\n");
    std::fs::write(&log, body).unwrap();
    let out = dir.path().join("mix.txt");
    let done = loadlab(&[
        "import",
        "log",
        &log.display().to_string(),
        "--base=http://127.0.0.1:9",
        "--top=2",
        &format!("--output={}", out.display()),
    ]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let mix = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = mix.lines().collect();
    assert_eq!(lines[0], "# loadlab attack -targets=FILE -weights=10,2");
    assert!(
        lines[1].contains("1 requests to other endpoints left out"),
        "{mix}"
    );
    assert!(lines[1].contains("1 malformed lines skipped"), "{mix}");
    assert_eq!(
        &lines[2..],
        [
            "GET http://127.0.0.1:9/news",
            "GET http://127.0.0.1:9/sport"
        ]
    );
    // As a study plan: the mix with its weights, which `study --check` accepts.
    let plan = dir.path().join("mix.yaml");
    let done = loadlab(&[
        "import",
        "log",
        &log.display().to_string(),
        "--base=http://127.0.0.1:9",
        "--to=plan",
        &format!("--output={}", plan.display()),
    ]);
    assert!(done.status.success(), "{}", text(&done.stderr));
    let yaml = std::fs::read_to_string(&plan).unwrap();
    assert!(yaml.contains("weights: [10, 2, 1]"), "{yaml}");
    assert!(dir.path().join("mix.targets.txt").is_file());
    let check = loadlab(&["study", "--check", &plan.display().to_string()]);
    assert!(check.status.success(), "{}\n{yaml}", text(&check.stderr));
    let done = loadlab(&["import", "pcap", "x.yaml"]);
    assert_eq!(done.status.code(), Some(2));
}
