//! `loadlab import log --to k6` (a log's endpoint mix as a k6 script that
//! `loadlab k6 run` runs against a loadlab origin on 127.0.0.1) and
//! `loadlab import har --to plan` (a recording's requests as a study plan
//! whose study sends them all with a 2xx).

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::proc::{text, wait_bounded};
use serde_json::{Value, json};

fn loadlab(dir: &Path, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    wait_bounded(child, Duration::from_secs(120))
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status.code(),
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

fn origin() -> OriginHandle {
    let recipes = parse_recipes(
        r#"[{"route":"/missing","body":"no","stages":[{"at":0,"status":404}]},
            {"route":"/*","body":"ok","stages":[{"at":0,"status":200}]}]"#,
    )
    .unwrap();
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

#[test]
fn a_logs_mix_runs_as_a_k6_script() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 30 requests to /news (with queries), 10 POSTs to /orders, over two
    // seconds, and a malformed line.
    let mut log = String::new();
    for i in 0..40 {
        let (sec, req) = match i {
            0..30 => (i % 2, format!("GET /news?page={i}")),
            _ => (1, "POST /orders".to_string()),
        };
        writeln!(
            log,
            "10.0.0.1 - - [28/Nov/2026:10:00:0{sec} +0000] \"{req} HTTP/1.1\" 200 5 \"-\" \"t\""
        )
        .unwrap();
    }
    log.push_str("garbage\n");
    std::fs::write(d.join("access.log"), log).unwrap();
    ok(&loadlab(
        d,
        &["import", "log", "access.log", "--to", "k6", "-o", "mix.js"],
    ));
    let script = std::fs::read_to_string(d.join("mix.js")).unwrap();
    for want in [
        "executor: 'constant-arrival-rate'",
        "[\"GET\", \"/news\", 30],",
        "[\"POST\", \"/orders\", 10],",
        "// 1 malformed lines skipped.",
        "rate: Number(__ENV.RATE || 40),",
        "const BASE_URL = __ENV.BASE_URL || \"http://127.0.0.1:8080\";",
    ] {
        assert!(script.contains(want), "no {want:?} in:\n{script}");
    }
    let base = format!("BASE_URL={}", o.url());
    ok(&loadlab(
        d,
        &[
            "k6",
            "run",
            "-q",
            "-e",
            &base,
            "-e",
            "RATE=60",
            "-e",
            "DURATION=2s",
            "--summary-export=summary.json",
            "--out",
            "json=points.json",
            "mix.js",
        ],
    ));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("summary.json")).unwrap()).unwrap();
    let checks = &summary["metrics"]["checks"];
    assert_eq!(checks["fails"], json!(0), "{summary}");
    let reqs = summary["metrics"]["http_reqs"]["count"].as_u64().unwrap();
    assert!(
        (100..=121).contains(&reqs),
        "{reqs} requests at 60/s for 2s"
    );
    // Each request tagged with its endpoint; both drawn.
    let points = std::fs::read_to_string(d.join("points.json")).unwrap();
    let mut by_name = std::collections::BTreeMap::<String, u64>::new();
    for l in points.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        if v["type"] == "Point" && v["metric"] == "http_reqs" {
            let name = v["data"]["tags"]["name"].as_str().unwrap_or("").to_string();
            *by_name.entry(name).or_default() += 1;
        }
    }
    let names: Vec<&String> = by_name.keys().collect();
    assert_eq!(names, ["GET /news", "POST /orders"], "{by_name:?}");
    assert_eq!(by_name.values().sum::<u64>(), reqs);
}

#[test]
fn a_har_becomes_a_plan_whose_study_sends_every_request() {
    let o = origin();
    let url = o.url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let entry = |method: &str, path: &str, mime: &str, post: Option<&str>| {
        let mut e = json!({
            "startedDateTime": "2026-03-01T10:00:00.000Z",
            "time": 5,
            "request": {
                "method": method,
                "url": format!("{url}{path}"),
                "headers": [{"name": "Accept", "value": "*/*"}],
            },
            "response": { "status": 200, "content": { "mimeType": mime, "text": "" } },
        });
        if let Some(p) = post {
            e["request"]["postData"] = json!({ "mimeType": "application/json", "text": p });
        }
        e
    };
    let doc = json!({ "log": { "version": "1.2", "entries": [
        entry("GET", "/", "text/html", None),
        entry("GET", "/site.css", "text/css", None),
        entry("POST", "/login", "application/json", Some(r#"{"user":"ann"}"#)),
        entry("GET", "/api/me", "application/json", None),
    ]}});
    std::fs::create_dir_all(d.join("plans")).unwrap();
    std::fs::write(d.join("visit.har"), doc.to_string()).unwrap();
    ok(&loadlab(
        d,
        &[
            "import",
            "har",
            "visit.har",
            "--to",
            "plan",
            "-o",
            "plans/visit.yaml",
        ],
    ));
    let plan = std::fs::read_to_string(d.join("plans/visit.yaml")).unwrap();
    assert!(plan.contains("targets_file: visit.targets.txt"), "{plan}");
    let targets = std::fs::read_to_string(d.join("plans/visit.targets.txt")).unwrap();
    assert!(
        targets.contains("@visit.targets.bodies/2.body"),
        "{targets}"
    );
    assert!(!targets.contains("site.css"), "{targets}");
    assert_eq!(
        std::fs::read_to_string(d.join("plans/visit.targets.bodies/2.body")).unwrap(),
        r#"{"user":"ann"}"#
    );
    let check = ok(&loadlab(d, &["study", "--check", "plans/visit.yaml"]));
    assert!(check.contains("a valid plan"), "{check}");
    // A short study of it (run from another folder: paths are the plan's).
    let short = plan
        .replace("step: 30s", "step: 1s")
        .replace("warmup: 2s", "warmup: 0s");
    std::fs::write(d.join("plans/visit.yaml"), short).unwrap();
    std::fs::create_dir_all(d.join("work")).unwrap();
    ok(&loadlab(
        &d.join("work"),
        &[
            "study",
            "../plans/visit.yaml",
            "--db",
            "s.db",
            "--out",
            "out",
        ],
    ));
    let store = loadlab_study::Store::open(&d.join("work/s.db")).unwrap();
    let runs = store.runs(1).unwrap();
    assert_eq!(runs.len(), 2, "two rates");
    for r in &runs {
        assert!(r.summary.requests >= 3, "{} requests", r.summary.requests);
        assert_eq!(r.summary.success, 1.0, "{:?}", r.summary.errors);
    }
}
