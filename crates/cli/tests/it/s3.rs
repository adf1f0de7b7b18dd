//! Results in S3-compatible object storage, against a real local server:
//! moto's (`pip install 'moto[server]'`; `.ci/run` installs it), started on
//! 127.0.0.1 by each test. `attack -output=s3://…` uploads at the end and
//! after SIGTERM; `report s3://bucket/prefix/` lists, downloads and merges;
//! the secret key never shows in any output.

use loadlab_testkit::proc::BoundedOutput;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::moto::Moto;
use loadlab_testkit::proc::{PATIENCE, origin_requests, text, wait_bounded, wait_origin_requests};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

const SECRET: &str = "wJalrXUtnFEMI-k8s-test-secret-9f2c";

/// A loadlab command with the AWS environment pointing at `moto`.
fn loadlab(moto: &Moto, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args);
    moto.configure(&mut c, SECRET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

fn origin() -> OriginHandle {
    spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes: parse_recipes(
                r#"{"route":"/*","body":"hello","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#,
            )
            .unwrap(),
            workers: Some(1),
            ..Default::default()
        },
    )
    .unwrap()
}

fn run(mut cmd: Command, stdin: &str) -> Output {
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(90));
    assert_no_secret(&out);
    out
}

fn assert_no_secret(out: &Output) {
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!all.contains(SECRET), "the secret key leaked:\n{all}");
}

fn requests(json: &[u8]) -> u64 {
    let v: serde_json::Value =
        serde_json::from_slice(json).unwrap_or_else(|e| panic!("{e}: {}", text(json)));
    v["requests"].as_u64().unwrap()
}

/// The seconds from a run's first to last scheduled send, as its own
/// JSON report says.
fn span(json: &[u8]) -> f64 {
    let v: serde_json::Value =
        serde_json::from_slice(json).unwrap_or_else(|e| panic!("{e}: {}", text(json)));
    v["schedule"]["duration"].as_f64().unwrap() / 1e9
}

/// How many requests a run at `rate` per second sends in the time its own
/// JSON report says it sent them (its schedule's first to last send):
/// what an interrupted run's count is checked against.
fn sent_at(json: &[u8], rate: f64) -> f64 {
    span(json) * rate + 1.0
}

#[test]
fn attack_uploads_its_results_and_report_merges_a_prefix() {
    let moto = Moto::start();
    moto.bucket("results");
    let o = origin();
    let target = format!("GET {}/a\n", o.url());
    for w in 0..2 {
        let out = run(
            loadlab(
                &moto,
                &[
                    "attack",
                    "-rate=50",
                    "-duration=1s",
                    &format!("-output=s3://results/runs/r1/worker-{w}.bin"),
                ],
            ),
            &target,
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
    }
    // One object.
    let out = run(
        loadlab(
            &moto,
            &["report", "-type=json", "s3://results/runs/r1/worker-1.bin"],
        ),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(requests(&out.stdout), 50);
    // The prefix: both workers merged.
    let out = run(
        loadlab(&moto, &["report", "-type=json", "s3://results/runs/r1/"]),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(requests(&out.stdout), 100);
    // The same without the trailing slash (no object of that name).
    let out = run(loadlab(&moto, &["report", "s3://results/runs/r1"]), "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = text(&out.stdout);
    let line = report.lines().find(|l| l.starts_with("Requests")).unwrap();
    assert_eq!(line.split_whitespace().nth(4), Some("100,"), "{report}");
    // A file cut short mid-record: the warning names the object, not the
    // local copy it was read from.
    let local = tempfile::tempdir().unwrap();
    let path = local.path().join("r.bin");
    let out = run(
        loadlab(
            &moto,
            &[
                "attack",
                "-rate=50",
                "-duration=1s",
                &format!("-output={}", path.display()),
            ],
        ),
        &target,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let bytes = std::fs::read(&path).unwrap();
    moto.put(
        "results",
        "runs/cut/worker-0.bin",
        &bytes[..bytes.len() - 7],
    );
    let out = run(loadlab(&moto, &["report", "s3://results/runs/cut/"]), "");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning: s3://results/runs/cut/worker-0.bin"),
        "{err}"
    );
    // Nothing there: one line, network exit code.
    let out = run(loadlab(&moto, &["report", "s3://results/none/"]), "");
    assert_eq!(out.status.code(), Some(5), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no objects there"));
}

#[test]
fn sigterm_mid_attack_still_uploads_what_was_recorded() {
    let moto = Moto::start();
    moto.bucket("results");
    let o = origin();
    let mut child = loadlab(
        &moto,
        &[
            "attack",
            "-rate=200",
            "-duration=60s",
            "-output=s3://results/cut.bin",
        ],
    )
    .spawn()
    .unwrap();
    writeln!(child.stdin.take().unwrap(), "GET {}/", o.url()).unwrap();
    // Mid-attack: the origin has answered its first requests.
    wait_origin_requests(o.addr, 20, PATIENCE);
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // A hang guard: whether SIGTERM ended the attack is the report's word.
    let out = wait_bounded(child, 3 * PATIENCE);
    assert_no_secret(&out);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("interrupted"));
    let out = run(
        loadlab(&moto, &["report", "-type=json", "s3://results/cut.bin"]),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Well short of the 60 s asked for: SIGTERM ended the attack.
    assert!(span(&out.stdout) < 60.0, "{}", text(&out.stdout));
    let n = requests(&out.stdout);
    let want = sent_at(&out.stdout, 200.0);
    assert!(
        n >= 20 && (n as f64 - want).abs() <= 2.0 + want * 0.01,
        "{n} requests where the run's own schedule reached {want} at 200/s"
    );
}

#[test]
fn a_missing_bucket_is_found_before_the_attack() {
    let moto = Moto::start();
    let o = origin();
    let out = run(
        loadlab(
            &moto,
            &[
                "attack",
                "-rate=20",
                "-duration=30s",
                "-output=s3://missing-bucket/r.bin",
            ],
        ),
        &format!("GET {}/\n", o.url()),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    // Before the attack, not after it: the origin never saw a request.
    assert_eq!(origin_requests(o.addr), 0, "the attack ran: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("s3://missing-bucket/r.bin") && err.contains("NoSuchBucket"),
        "{err}"
    );
    // A prefix is not an object: a usage error naming the option and the
    // form expected, before anything runs (in each face that writes one).
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("t.js");
    std::fs::write(&script, "export default function () {}\n").unwrap();
    let plan = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/c5-vs-c6g.yaml");
    let cases: [(&[&str], &str); 3] = [
        (
            &["attack", "-rate=1", "-output=s3://b/dir/"],
            "-output: s3://b/dir/ names a prefix, not an object; expected s3://BUCKET/KEY",
        ),
        (
            &["study", plan, "--db", "s3://b"],
            "--db: s3://b/ names a prefix, not an object; expected s3://BUCKET/KEY",
        ),
        (
            &[
                "k6",
                "run",
                "--out",
                "loadlab=s3://b/d/",
                script.to_str().unwrap(),
            ],
            "--out \"loadlab=s3://b/d/\": s3://b/d/ names a prefix, not an object; \
             expected loadlab=s3://BUCKET/KEY",
        ),
    ];
    for (args, line) in cases {
        let out = run(loadlab(&moto, args), "GET http://127.0.0.1:1/\n");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end(), format!("loadlab: {line}"), "{args:?}");
    }
    assert_eq!(origin_requests(o.addr), 0);
}

#[test]
fn a_failed_upload_keeps_the_results_and_says_where_without_the_secret() {
    let mut moto = Moto::start();
    moto.bucket("results");
    // moto answers its first listing slowly: warm it up, so that the
    // attack's check of the bucket is done well before moto is stopped.
    let _ = run(loadlab(&moto, &["report", "s3://results/"]), "");
    let o = origin();
    let mut child = loadlab(
        &moto,
        &[
            "attack",
            "-rate=20",
            "-duration=4s",
            "-output=s3://results/r.bin",
        ],
    )
    .spawn()
    .unwrap();
    writeln!(child.stdin.take().unwrap(), "GET {}/", o.url()).unwrap();
    // The store goes away during the attack: once the attack has checked
    // the bucket and is sending (the origin has answered it).
    wait_origin_requests(o.addr, 1, PATIENCE);
    moto.stop();
    let out = wait_bounded(child, Duration::from_secs(120));
    assert_no_secret(&out);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{err}");
    assert!(err.contains("cannot upload to s3://results/r.bin"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    let kept = err
        .split("the results are kept in ")
        .nth(1)
        .unwrap_or_else(|| panic!("no kept file in {err}"))
        .trim();
    let rep = Command::new(bin())
        .args(["report", "-type=json", kept])
        .output_bounded()
        .unwrap();
    assert_eq!(requests(&rep.stdout), 80);
    let _ = std::fs::remove_file(kept);
}

#[test]
fn k8s_gather_names_the_worker_that_uploaded_nothing_and_merges_the_rest() {
    let moto = Moto::start();
    moto.bucket("results");
    let o = origin();
    // Workers 0 and 2 of 3 uploaded; worker 1 died before it could.
    for w in [0, 2] {
        let out = run(
            loadlab(
                &moto,
                &[
                    "attack",
                    "-rate=40",
                    "-duration=500ms",
                    &format!("-output=s3://results/runs/job7/worker-{w}.bin"),
                ],
            ),
            &format!("GET {}/\n", o.url()),
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let out = run(
        loadlab(
            &moto,
            &[
                "k8s",
                "gather",
                "--workers=3",
                "--name=job7",
                "--results=s3://results/runs",
                "--type=json",
            ],
        ),
        "",
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("worker 1 uploaded no results") && err.contains("missing"),
        "{err}"
    );
    assert!(
        !err.contains("worker 0") && !err.contains("worker 2"),
        "{err}"
    );
    assert_eq!(requests(&out.stdout), 40);
}

/// `loadlab k6 run --out loadlab=s3://…` (a script worker in a pod):
/// uploaded when the run ends, and after SIGTERM (what Kubernetes sends a
/// pod it stops) with a finished file; the secret key never shows.
#[test]
fn k6_run_uploads_its_results_also_after_sigterm() {
    let moto = Moto::start();
    moto.bucket("results");
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.js");
    std::fs::write(
        &script,
        r#"import http from 'k6/http';
import { sleep } from 'k6';
export const options = { scenarios: {
  a: { executor: 'constant-arrival-rate', rate: 50, timeUnit: '1s', duration: __ENV.D,
       preAllocatedVUs: 5 } } };
export default function () { http.get(`${__ENV.BASE_URL}/k`); }
"#,
    )
    .unwrap();
    let base = format!("BASE_URL={}", o.url());
    let k6 = |d: &str, key: &str| {
        loadlab(
            &moto,
            &[
                "k6",
                "run",
                "-q",
                "-e",
                &base,
                "-e",
                &format!("D={d}"),
                "--execution-segment-index=0/1",
                &format!("--out=loadlab=s3://results/{key}"),
                script.to_str().unwrap(),
            ],
        )
    };
    let out = run(k6("1s", "k6/worker-0.bin"), "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = run(
        loadlab(&moto, &["report", "-type=json", "s3://results/k6/"]),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(requests(&out.stdout), 50);

    let child = k6("60s", "k6/cut.bin").spawn().unwrap();
    // Mid-run: the origin has answered this run's first requests too.
    wait_origin_requests(o.addr, 50 + 20, PATIENCE);
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    // A hang guard: whether SIGTERM ended the run is the report's word.
    let out = wait_bounded(child, 3 * PATIENCE);
    assert_no_secret(&out);
    // k6's exit code for a run stopped from outside, and its last line.
    assert_eq!(out.status.code(), Some(105), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("received a 'terminated' signal"),
        "{}",
        text(&out.stderr)
    );
    let out = run(
        loadlab(&moto, &["report", "-type=json", "s3://results/k6/cut.bin"]),
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("no end record"),
        "{}",
        text(&out.stderr)
    );
    // Well short of the 60 s asked for: SIGTERM ended the run.
    assert!(span(&out.stdout) < 60.0, "{}", text(&out.stdout));
    let n = requests(&out.stdout);
    let want = sent_at(&out.stdout, 50.0);
    assert!(
        n >= 20 && (n as f64 - want).abs() <= 2.0 + want * 0.05,
        "{n} requests where the run's own span reached {want} at 50/s"
    );
}
