//! A study of replay targets (`replay: FILE`) stepping along
//! `load.speeds`: a combined log sent to the plan's in-process origin
//! (`base: "{origin}"`) and JSON targets recorded against a production
//! host, rewritten (`rewrite:`) to a loadlab origin on 127.0.0.1 with a
//! credential set. Every logged request is sent in every step, the report
//! names the speeds, and the credential is nowhere on disk or on screen.

use loadlab_testkit::proc::BoundedOutput;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

const SECRET: &str = "replay-token-6c1e93ab";

fn origin() -> OriginHandle {
    let recipes =
        parse_recipes(r#"{"route":"/*","body":"ok","stages":[{"at":0,"status":200}]}"#).unwrap();
    spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes,
            workers: Some(1),
            ..Default::default()
        },
    )
    .unwrap()
}

fn loadlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output_bounded()
        .unwrap()
}

/// 30 combined lines over two seconds (20, then 10), and 3 malformed
/// lines among them (lines 6, 12 and 18).
fn combined_log() -> String {
    let mut s = String::new();
    for i in 0..30 {
        if i % 5 == 0 && (5..=15).contains(&i) {
            writeln!(s, "this is not a log line {i}").unwrap();
        }
        let sec = if i < 20 { 0 } else { 1 };
        writeln!(
            s,
            "203.0.113.9 - - [28/Nov/2026:10:00:0{sec} +0000] \"GET /news?i={i} HTTP/1.1\" 200 512 \"-\" \"curl/8.5.0\""
        )
        .unwrap();
    }
    s
}

/// 10 JSON targets, 100 ms apart, to a production host with a cookie.
fn json_targets() -> String {
    let mut s = String::new();
    for i in 0..10 {
        writeln!(
            s,
            r#"{{"timestamp":"2026-11-28T10:00:00.{i}00Z","method":"GET","url":"https://shop.example.com/api/items/{i}","header":{{"Cookie":["sid=abc"]}}}}"#
        )
        .unwrap();
    }
    s
}

fn plan(port: u16) -> String {
    format!(
        r#"name: nightly
question: Does the service keep up with last night's traffic at twice its speed?
origin:
  recipes: [{{route: "/*", body: ok, stages: [{{at: 0, status: 200}}]}}]
targets:
  - name: night
    replay: access.log
    base: "{{origin}}"
  - name: api
    replay: api.jsonl
    rewrite:
      hosts: {{shop.example.com: "http://127.0.0.1:{port}"}}
      drop_headers: [Cookie]
      set_headers: {{Authorization: "Bearer {SECRET}", X-Replayed: "yes"}}
load: {{speeds: [1, 2], step: 3s, timeout: 2s}}
slo: {{success: 99%}}
"#
    )
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

#[test]
fn a_study_replays_every_logged_request_at_each_speed() {
    let o = origin();
    let port: u16 = o.url().rsplit(':').next().unwrap().parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("access.log"), combined_log()).unwrap();
    std::fs::write(d.join("api.jsonl"), json_targets()).unwrap();
    std::fs::write(d.join("plan.yaml"), plan(port)).unwrap();

    let mut printed = Vec::new();
    let mut run = |args: &[&str]| {
        let out = loadlab(d, args);
        printed.extend_from_slice(&out.stdout);
        printed.extend_from_slice(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        text
    };
    let check = run(&["study", "--check", "plan.yaml"]);
    assert!(check.contains("2 step(s) (speed: 1, 2)"), "{check}");
    run(&["study", "plan.yaml", "--db", "s.db", "--out", "out"]);
    run(&["runs", "show", "1", "--db", "s.db"]);

    let store = loadlab_study::Store::open(&d.join("s.db")).unwrap();
    let runs = store.runs(1).unwrap();
    assert_eq!(runs.len(), 4, "2 targets × 2 speeds");
    for r in &runs {
        let want = if r.target == "night" { 30 } else { 10 };
        let s = &r.summary;
        assert_eq!(
            (s.requests + s.warmup_requests, s.unsent),
            (want, 0),
            "{} at ×{}: every logged request is sent",
            r.target,
            r.rate
        );
        assert_eq!(
            s.success, 1.0,
            "{} at ×{}: {:?}",
            r.target, r.rate, s.errors
        );
    }
    let mut speeds: Vec<(String, u64)> = runs.iter().map(|r| (r.target.clone(), r.rate)).collect();
    speeds.sort();
    assert_eq!(
        speeds,
        [
            ("api".to_string(), 1),
            ("api".to_string(), 2),
            ("night".to_string(), 1),
            ("night".to_string(), 2)
        ]
    );

    // The report names the speeds and the replay's command line, the
    // credential redacted.
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    for shown in [
        "replays access.log",
        "speed",
        "-replay=access.log",
        "-speed=2",
        "-rewrite-host=shop.example.com=http://127.0.0.1",
        "-drop-header=Cookie",
        "Authorization: Bearer REDACTED",
    ] {
        assert!(md.contains(shown), "report.md lacks {shown:?}:\n{md}");
    }
    let mut all = Vec::new();
    files(d, &mut all);
    for p in all.iter().filter(|p| !p.ends_with("plan.yaml")) {
        let bytes = std::fs::read(p).unwrap();
        assert!(
            !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
            "{} holds the credential",
            p.display()
        );
    }
    let printed = String::from_utf8_lossy(&printed);
    assert!(!printed.contains(SECRET), "{printed}");

    // The malformed lines are said, on stderr, in the report and in
    // `runs show`, for the log that had them only.
    let skipped = "access.log: 3 malformed lines skipped of 33";
    assert!(
        printed.contains(&format!("target night: {skipped}")),
        "{printed}"
    );
    assert!(printed.contains("access.log:6:"), "{printed}");
    assert!(md.contains(&format!("Replay        {skipped}")), "{md}");
    assert!(
        !md.contains("api.jsonl: "),
        "a clean log says nothing:\n{md}"
    );
    let night = runs.iter().find(|r| r.target == "night").unwrap();
    let shown = loadlab(d, &["runs", "run", &night.id.to_string(), "--db", "s.db"]);
    let shown = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.contains(skipped), "{shown}");
}

#[test]
fn replay_targets_are_checked_where_they_are_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("access.log"), combined_log()).unwrap();
    let cases = [
        // A log without hosts and no base.
        (
            "targets:\n  - name: night\n    replay: access.log\nload: {speeds: [1], step: 1s}\n",
            "plan.yaml:4:13: targets[0].replay: access.log records no host",
        ),
        // A replay target on a rate axis.
        (
            "targets:\n  - name: night\n    replay: access.log\n    base: http://127.0.0.1:1\nload: {rates: [10], step: 1s}\n",
            "plan.yaml:3:5: targets[0]: target \"night\" cannot step along load.rates: a replay target steps along `speeds`",
        ),
        (
            "targets:\n  - name: night\n    replay: nothing.log\n    base: http://127.0.0.1:1\nload: {speeds: [1], step: 1s}\n",
            "plan.yaml:4:13: targets[0].replay: cannot read nothing.log",
        ),
        (
            "targets:\n  - name: night\n    replay: access.log\n    base: http://127.0.0.1:1\n    speed: 0\nload: {speeds: [1], step: 1s}\n",
            "plan.yaml:6:12: targets[0].speed: 0 is not a speed",
        ),
        (
            "targets:\n  - name: a\n    url: http://127.0.0.1:1/\n    rewrite: {drop_headers: [Cookie]}\nload: {rates: [1], step: 1s}\n",
            "plan.yaml:5:5: targets[0].rewrite: `rewrite` is for a `replay` target",
        ),
    ];
    for (body, want) in cases {
        std::fs::write(d.join("plan.yaml"), format!("name: bad\n{body}")).unwrap();
        let out = loadlab(d, &["study", "--check", "plan.yaml"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{body}");
        assert!(err.contains(want), "{body}\nwanted {want:?} in:\n{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// A replay target inside a concurrent group: the log is replayed at each
/// speed while an HTTP member runs at its own fixed rate beside it, from
/// one start instant. Each member's run is stored, every logged request is
/// sent, and the group's combined run holds both members' requests.
#[test]
fn a_replay_runs_beside_an_http_member_in_a_concurrent_group() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("access.log"), combined_log()).unwrap();
    std::fs::write(
        d.join("plan.yaml"),
        r#"name: beside
question: Does the night's traffic still get through beside a steady load?
origin:
  recipes: [{route: "/*", body: ok, stages: [{at: 0, status: 200}]}]
targets:
  - name: both
    concurrent:
      - {name: night, replay: access.log, base: "{origin}"}
      - {name: steady, url: "{origin}/steady", level: 20}
load: {speeds: [1, 2], step: 3s, timeout: 2s}
"#,
    )
    .unwrap();
    let out = loadlab(d, &["study", "plan.yaml", "--db", "s.db", "--out", "out"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let store = loadlab_study::Store::open(&d.join("s.db")).unwrap();
    let runs = store.runs(1).unwrap();
    let mut seen: Vec<(String, u64, u64)> = runs
        .iter()
        .map(|r| {
            let s = &r.summary;
            assert_eq!(s.unsent, 0, "{} at {}: {err}", r.target, r.rate);
            assert_eq!(s.success, 1.0, "{} at {}: {:?}", r.target, r.rate, s.errors);
            (r.target.clone(), r.rate, s.requests + s.warmup_requests)
        })
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            // The combined run: the log's 30 and the steady member's 60.
            ("both".to_string(), 1, 90),
            ("both".to_string(), 2, 90),
            ("both/night".to_string(), 1, 30),
            ("both/night".to_string(), 2, 30),
            ("both/steady".to_string(), 1, 60),
            ("both/steady".to_string(), 2, 60),
        ],
        "{err}"
    );
    // Both members began on the group's instant, and the report says how
    // far apart.
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(md.contains("2 workloads together (start spread"), "{md}");
}
