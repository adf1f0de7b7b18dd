//! `loadlab k6 run`: real scripts, the real binary, a real origin on
//! 127.0.0.1, real files; k6's exit codes.

use std::process::{Command, Output};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

fn origin() -> OriginHandle {
    let recipes = parse_recipes(
        r#"{"route":"/*","body":"{\"ok\":true,\"n\":3}","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#,
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

fn k6(dir: &std::path::Path, script: &str, args: &[&str]) -> Output {
    let path = dir.join("script.js");
    std::fs::write(&path, script).unwrap();
    Command::new(bin())
        .arg("k6")
        .arg("run")
        .arg("-q")
        .args(args)
        .arg(&path)
        .current_dir(dir)
        .output()
        .expect("run loadlab")
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

const API_SCRIPT: &str = r#"
import http from 'k6/http';
import { check, group, sleep } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import exec from 'k6/execution';
const c = new Counter('my_counter');
const g = new Gauge('my_gauge');
const r = new Rate('my_rate');
const t = new Trend('my_trend', true);
export const options = {
  thresholds: {
    'http_req_duration{endpoint:x}': ['p(95)<5000'],
    checks: ['rate==1'],
    my_counter: ['count==8'],
  },
};
export function setup() { return { base: __ENV.BASE }; }
export default function (data) {
  group('g', () => {
    const res = http.get(`${data.base}/a`, { tags: { endpoint: 'x' }, headers: { 'X-A': '1' } });
    check(res, {
      'status 200': (r) => r.status === 200,
      'json': (r) => r.json().n === 3,
      'timings': (r) => r.timings.duration >= 0 && r.timings.waiting >= 0,
    });
    const p = http.post(`${data.base}/b`, JSON.stringify({ a: 1 }), { headers: { 'Content-Type': 'application/json' } });
    check(p, { 'post 200': (r) => r.status === 200 });
    const b = http.batch([['GET', `${data.base}/c`], ['PUT', `${data.base}/d`, 'x']]);
    check(b, { 'batch': (b) => b.length === 2 && b[0].status === 200 && b[1].status === 200 });
  });
  c.add(2, { k: 'v' });
  g.add(__VU);
  r.add(true);
  t.add(5);
  if (exec.vu.idInTest < 1) throw new Error('no vu id');
}
"#;

#[test]
fn api_script_passes_its_thresholds_and_writes_outputs() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let out = k6(
        dir.path(),
        API_SCRIPT,
        &[
            "-u",
            "2",
            "-i",
            "4",
            "-e",
            &format!("BASE={}", o.url()),
            "--out",
            "json=points.json",
            "--out",
            "loadlab=run.lr",
            "--summary-export",
            "export.json",
            "--no-usage-report",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("█ THRESHOLDS"), "{stdout}");
    assert!(stdout.contains("✓ 'count==8'"), "{stdout}");
    assert!(stdout.contains("✓ status 200"), "{stdout}");
    assert!(stdout.contains("http_reqs"), "{stdout}");
    assert!(stdout.contains("{ endpoint:x }"), "{stdout}");
    assert!(stdout.contains("my_trend"), "{stdout}");
    // 4 iterations x 4 requests.
    let export: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("export.json")).unwrap())
            .unwrap();
    assert_eq!(export["metrics"]["http_reqs"]["count"], 16.0);
    assert_eq!(export["metrics"]["iterations"]["count"], 4.0);
    let points = std::fs::read_to_string(dir.path().join("points.json")).unwrap();
    assert!(
        points
            .lines()
            .any(|l| l.contains("\"type\":\"Point\"") && l.contains("my_counter"))
    );
    assert!(
        points.lines().any(|l| l.contains("\"type\":\"Metric\"")
            && l.contains("\"name\":\"my_trend\"")
            && l.contains("\"type\":\"trend\"")
            && l.contains("\"contains\":\"time\"")),
        "{points}"
    );
    // loadlab report reads the script run.
    let rep = Command::new(bin())
        .args(["report", "run.lr"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (rs, re) = text(&rep);
    assert_eq!(rep.status.code(), Some(0), "{rs}\n{re}");
    assert!(rs.contains("Requests") && rs.contains("16"), "{rs}");
}

#[test]
fn failed_threshold_exits_99() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
export const options = { iterations: 2, thresholds: { http_reqs: ['count>100'] } };
export default function () { http.get(__ENV.BASE + '/'); }
"#;
    let out = k6(dir.path(), script, &["-e", &format!("BASE={}", o.url())]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
    assert!(stdout.contains("✗ 'count>100' count=2"), "{stdout}");
}

#[test]
fn syntax_error_names_file_line_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = k6(
        dir.path(),
        "export default function () {\n  let x = ;\n}\n",
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(stderr.contains("script.js:2:"), "{stderr}");
    assert!(stderr.contains("SyntaxError"), "{stderr}");
}

#[test]
fn unsupported_module_and_function_are_named_at_init() {
    let dir = tempfile::tempdir().unwrap();
    let out = k6(
        dir.path(),
        "import ws from 'k6/ws';\nexport default function () {}\n",
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(stderr.contains("k6/ws"), "{stderr}");
    let out = k6(
        dir.path(),
        "import { cookieJar } from 'k6/http';\nexport default function () {}\n",
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(stderr.contains("cookieJar"), "{stderr}");
}

#[test]
fn exception_in_iteration_is_counted_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
export const options = { iterations: 5 };
export default function () { if (__ITER % 2 === 0) throw new Error('boom'); }
"#;
    let out = k6(dir.path(), script, &["-u", "1"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("Error: boom"), "{stderr}");
    assert!(
        stderr.contains("3 iterations ended with an exception"),
        "{stderr}"
    );
    assert!(stdout.contains("5 complete"), "{stdout}");
}

#[test]
fn externally_controlled_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
export const options = { scenarios: { x: { executor: 'externally-controlled', vus: 1, duration: '1s' } } };
export default function () {}
"#;
    let out = k6(dir.path(), script, &[]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(104), "{stderr}");
    assert!(stderr.contains("externally-controlled"), "{stderr}");
}

#[test]
fn arrival_rate_drops_iterations_without_a_free_vu() {
    let dir = tempfile::tempdir().unwrap();
    // 1 VU, 20 iterations/s for 1 s, each iteration sleeping 300 ms: at most
    // ~4 start, the rest are dropped.
    let script = r#"
import { sleep } from 'k6';
export const options = { scenarios: { open: { executor: 'constant-arrival-rate', rate: 20, timeUnit: '1s', duration: '1s', preAllocatedVUs: 1, maxVUs: 1 } } };
export default function () { sleep(0.3); }
"#;
    let out = k6(dir.path(), script, &["--summary-export", "e.json"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let e: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("e.json")).unwrap()).unwrap();
    let done = e["metrics"]["iterations"]["count"].as_f64().unwrap();
    let dropped = e["metrics"]["dropped_iterations"]["count"]
        .as_f64()
        .unwrap();
    assert!((2.0..=5.0).contains(&done), "{done}");
    assert_eq!(done + dropped, 20.0, "{stdout}");
    assert!(stdout.contains("iteration_duration_corrected"), "{stdout}");
}

#[test]
fn unsupported_member_of_a_default_import_is_named_at_init() {
    let dir = tempfile::tempdir().unwrap();
    let script =
        "import http from 'k6/http';\nexport default function () {\n  http.cookieJar();\n}\n";
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stdout}\n{stderr}");
    assert!(stderr.contains("script.js:3:3: http.cookieJar"), "{stderr}");
    assert!(
        !stdout.contains("running"),
        "no load before the error: {stdout}"
    );
}

#[test]
fn test_abort_stops_with_108_and_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import exec from 'k6/execution';
import { sleep } from 'k6';
export const options = { vus: 2, duration: '20s' };
export default function () { sleep(0.05); if (__ITER === 2) exec.test.abort('enough'); }
"#;
    let t0 = std::time::Instant::now();
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(108), "{stdout}\n{stderr}");
    assert!(t0.elapsed() < std::time::Duration::from_secs(15));
    assert!(stderr.contains("enough"), "{stderr}");
    assert!(stdout.contains("TOTAL RESULTS"), "{stdout}");
}

#[test]
fn ctrl_c_ends_with_a_summary_and_a_readable_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin();
    let path = dir.path().join("script.js");
    std::fs::write(
        &path,
        "import http from 'k6/http';\nimport { sleep } from 'k6';\nexport const options = { vus: 3, duration: '60s' };\nexport default function () { http.get(__ENV.BASE + '/'); sleep(0.05); }\n",
    )
    .unwrap();
    let child = Command::new(bin())
        .args(["k6", "run", "-q", "-e"])
        .arg(format!("BASE={}", o.url()))
        .args(["--out", "loadlab=run.lr"])
        .arg(&path)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // SAFETY-free: kill(1) with SIGINT through the shell's kill command.
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let t0 = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t0.elapsed() < std::time::Duration::from_secs(15));
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(105), "{stdout}\n{stderr}");
    assert!(stdout.contains("http_reqs"), "{stdout}");
    let rep = Command::new(bin())
        .args(["report", "run.lr"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let (rs, re) = text(&rep);
    assert_eq!(rep.status.code(), Some(0), "{rs}\n{re}");
    assert!(rs.contains("Requests"), "{rs}");
}

#[test]
fn stage_tag_and_trend_stats_flags() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import { sleep } from 'k6';
import exec from 'k6/execution';
import { Trend } from 'k6/metrics';
const t = new Trend('t');
export const options = { duration: '1m' };
export default function () { t.add(1); if (exec.vu.tags.team !== 'a') throw new Error('no tag'); sleep(0.05); }
"#;
    // -s replaces the script's duration: up to 2 VUs in 400 ms, then down
    // (k6 starts a stage ramp at `vus`, 1 here).
    let out = k6(
        dir.path(),
        script,
        &[
            "-s",
            "400ms:2",
            "-s",
            "100ms:0",
            "--tag",
            "team=a",
            "--summary-trend-stats",
            "avg,p(99),count",
            "--summary-export",
            "e.json",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("p(99)=") && stdout.contains("count="),
        "{stdout}"
    );
    assert!(!stdout.contains("p(95)="), "{stdout}");
    let e: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("e.json")).unwrap()).unwrap();
    assert_eq!(e["metrics"]["vus_max"]["value"], 2.0, "{stdout}");
    assert!(
        e["metrics"]["t"]["count"].as_f64().unwrap() >= 4.0,
        "{stdout}"
    );
}

#[test]
fn abort_on_fail_threshold_stops_the_test_with_99() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import { sleep } from 'k6';
export const options = {
  vus: 2, duration: '30s',
  thresholds: { iterations: [{ threshold: 'count<5', abortOnFail: true }] },
};
export default function () { sleep(0.05); }
"#;
    let t0 = std::time::Instant::now();
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
    // Checked every 2 s: well before the 30 s.
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(15),
        "{:?}",
        t0.elapsed()
    );
    assert!(stdout.contains("✗ 'count<5'"), "{stdout}");
}

/// `--execution-segment`: the shares of an equal split add up to the whole
/// test (arrivals dealt out in turn, iterations and VUs split), their
/// results files merge in `loadlab report`, and a segment that is not one
/// of equal shares is a usage error.
#[test]
fn execution_segments_add_up_to_the_whole_test() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
export const options = {
  scenarios: {
    a: { executor: 'constant-arrival-rate', rate: 40, timeUnit: '1s', duration: '1s',
         preAllocatedVUs: 8, maxVUs: 8 },
    s: { executor: 'shared-iterations', vus: 2, iterations: 9, exec: 'shared' },
  },
};
export default function () { http.get(`${__ENV.BASE_URL}/a`); }
export function shared() { http.get(`${__ENV.BASE_URL}/s`); }
"#;
    let base = format!("BASE_URL=http://{}", o.addr);
    let run = |seg: &str, out: &str| {
        let res = format!("loadlab={out}");
        let r = k6(
            dir.path(),
            script,
            &["-e", &base, "--execution-segment", seg, "--out", &res],
        );
        assert!(r.status.success(), "{seg}: {:?}", text(&r));
        let rep = Command::new(bin())
            .args(["report", "-type=json", out])
            .current_dir(dir.path())
            .output()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        j["requests"].as_u64().unwrap()
    };
    let whole = run("0:1", "whole.lr");
    assert_eq!(whole, 40 + 9);
    let shares: Vec<u64> = ["0:1/4", "1/4:2/4", "50%:75%", "0.75:1"]
        .iter()
        .enumerate()
        .map(|(i, s)| run(s, &format!("s{i}.lr")))
        .collect();
    // Arrivals 10 each; iterations 9 dealt out in turn: 3, 2, 2, 2.
    assert_eq!(shares, [13, 12, 12, 12]);
    let rep = Command::new(bin())
        .args(["report", "-type=json", "s0.lr", "s1.lr", "s2.lr", "s3.lr"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let j: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(j["requests"].as_u64(), Some(whole));
    // Unequal or malformed segments are refused before anything runs.
    for bad in ["1/3:3/4", "2/4:1/4", "x:1"] {
        let r = k6(dir.path(), script, &["--execution-segment", bad]);
        assert_eq!(r.status.code(), Some(2), "{bad}: {:?}", text(&r));
        assert!(text(&r).1.contains("--execution-segment"), "{:?}", text(&r));
    }
}

#[test]
fn ignored_get_params_warn_once_and_the_run_exits_cleanly() {
    // http.get(url, undefined, params) on every request (as DSPS's script
    // does): one warning per method, whatever the VUs and requests; and the
    // CLI's run leaves the JavaScript heap to the process exit (#11).
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
export const options = { vus: 3, iterations: 30 };
export default function () {
  http.get(__ENV.BASE + '/', undefined, { tags: { endpoint: 'x' } });
  http.head(__ENV.BASE + '/', undefined, { tags: { endpoint: 'y' } });
}
"#;
    let out = k6(dir.path(), script, &["-e", &format!("BASE={}", o.url())]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.matches("http.get() takes (url, params)").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("http.head() takes (url, params)").count(),
        1,
        "{stderr}"
    );
    assert!(stdout.contains("http_reqs"), "{stdout}");
}
