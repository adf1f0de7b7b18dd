//! `loadlab k6 run`: real scripts, the real binary, a real origin on
//! 127.0.0.1, real files; k6's exit codes.

use loadlab_testkit::proc::BoundedOutput;
use std::process::{Command, Output};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::proc::{PATIENCE, Watch, wait_origin_requests, wait_results};

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
    k6_with(dir, script, args, true)
}

/// [`k6`] without `-q`: the summary ends with k6's progress lines.
fn k6_progress(dir: &std::path::Path, script: &str, args: &[&str]) -> Output {
    k6_with(dir, script, args, false)
}

fn k6_with(dir: &std::path::Path, script: &str, args: &[&str], quiet: bool) -> Output {
    let path = dir.join("script.js");
    std::fs::write(&path, script).unwrap();
    Command::new(bin())
        .args(["k6", "run"])
        .args(quiet.then_some("-q"))
        .args(args)
        .arg(&path)
        .current_dir(dir)
        .output_bounded()
        .expect("run loadlab")
}

/// The log lines of standard error (k6's logfmt, as off a terminal):
/// each line's level and message, unquoted.
fn log_lines(stderr: &str) -> Vec<(String, String)> {
    fn value(rest: &str) -> String {
        let Some(q) = rest.strip_prefix('"') else {
            return rest.split(' ').next().unwrap_or("").to_string();
        };
        let mut out = String::new();
        let mut chars = q.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                },
                c => out.push(c),
            }
        }
        out
    }
    stderr
        .lines()
        .filter(|l| l.starts_with("time="))
        .filter_map(|l| {
            let level = value(&l[l.find(" level=")? + 7..]);
            let msg = value(&l[l.find(" msg=")? + 5..]);
            Some((level, msg))
        })
        .collect()
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
        .output_bounded()
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
    // k6's last line, naming the metric.
    assert!(
        stderr
            .contains("level=error msg=\"thresholds on metrics 'http_reqs' have been crossed\"\n"),
        "{stderr}"
    );
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
        "import { chromium } from 'k6/browser';\nexport default function () {}\n",
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(stderr.contains("k6/browser"), "{stderr}");
    let out = k6(
        dir.path(),
        "import { requestAsync } from 'k6/http';\nexport default function () {}\n",
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(
        stderr.contains("Could not find export 'requestAsync' in module 'k6/http'"),
        "{stderr}"
    );
}

#[test]
fn exception_in_iteration_is_counted_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
export const options = { iterations: 5 };
export default function () { if (__ITER % 2 === 0) throw new Error('boom'); }
"#;
    let out = k6_progress(dir.path(), script, &["-u", "1"]);
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
fn negative_and_zero_flags_are_read_and_refused_in_k6s_words() {
    // k6 v1.8.1 reads `-u -1`, `-d -1s`, `-s -1s:2` (and `-d 0s`) and
    // refuses them with exit 104 in these words; nothing runs.
    let dir = tempfile::tempdir().unwrap();
    let script = "export default function () { console.log('ran'); }\n";
    for (flags, want) in [
        (
            &["-u", "-1", "-d", "1s"][..],
            "scenario default has configuration errors: the number of VUs must be more than 0",
        ),
        (
            &["-d", "-1s"][..],
            "`duration` option should be more than 0, for infinite duration use the \
             externally-controlled executor",
        ),
        (
            &["-d", "0s"][..],
            "`duration` option should be more than 0, for infinite duration use the \
             externally-controlled executor",
        ),
        (
            &["-s", "-1s:2"][..],
            "scenario default has configuration errors: the duration for stage 1 can't be \
             negative",
        ),
        (
            &["-i", "-1"][..],
            "the number of iterations (-1) can't be less than the number of VUs (1)",
        ),
        (
            &["-d", "1s", "-s", "1s:1"][..],
            "using `duration` and `stages` options simultaneously is not allowed",
        ),
    ] {
        let out = k6(dir.path(), script, flags);
        let (stdout, stderr) = text(&out);
        assert_eq!(
            out.status.code(),
            Some(104),
            "{flags:?}: {stdout}\n{stderr}"
        );
        assert!(stderr.contains(want), "{flags:?}: {stderr}");
        assert!(!stderr.contains("ran"), "{flags:?}: {stderr}");
    }
    // `-u -1` alone: k6's warning, and one iteration of one VU.
    let out = k6(dir.path(), script, &["-u", "-1"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("`vus=-1` option will be ignored"),
        "{stderr}"
    );
    assert_eq!(stderr.matches("ran").count(), 1, "{stderr}");
    // A stage flag without a duration is a usage error, as k6 refuses it.
    let out = k6(dir.path(), script, &["-s", ":2"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("stage \":2\": no duration"), "{stderr}");
}

#[test]
fn k6s_option_variables_are_a_layer_between_the_script_and_the_flags() {
    // As k6 v1.8.1 layers them: K6_* over the script's options, flags over
    // K6_*; K6_OUT when no --out is given; an unsupported one refused.
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { vus: 1, duration: '30s' };\n\
                  export default function () { console.log('it ' + __VU); }\n";
    std::fs::write(dir.path().join("script.js"), script).unwrap();
    let run = |env: &[(&str, &str)], args: &[&str]| {
        Command::new(bin())
            .args(["k6", "run", "-q"])
            .args(args)
            .arg("script.js")
            .envs(env.iter().copied())
            .current_dir(dir.path())
            .output_bounded()
            .expect("run loadlab")
    };
    // K6_VUS and K6_ITERATIONS replace the script's 30 s (a shared 4
    // iterations of 2 VUs), and write to K6_OUT's file.
    let out = run(
        &[
            ("K6_VUS", "2"),
            ("K6_ITERATIONS", "4"),
            ("K6_OUT", "json=points.json"),
        ],
        &[],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stderr.matches("it ").count(), 4, "{stderr}");
    assert!(stderr.contains("it 2"), "{stderr}");
    let points = std::fs::read_to_string(dir.path().join("points.json")).unwrap();
    assert!(points.contains("\"metric\":\"iterations\""), "{points}");
    // A flag wins over the variable: -i 1.
    let out = run(&[("K6_ITERATIONS", "4")], &["-i", "1"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("it ").count(), 1, "{stderr}");
    // k6's checks and words apply to them too.
    let out = run(&[("K6_DURATION", "0s")], &[]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(104), "{stderr}");
    assert!(
        stderr.contains("`duration` option should be more than 0"),
        "{stderr}"
    );
    for (k, v, want) in [
        ("K6_VUS", "x", "K6_VUS=\"x\": not a whole number"),
        ("K6_THROW", "maybe", "K6_THROW=\"maybe\": not true or false"),
        ("K6_RPS", "many", "K6_RPS=\"many\": not a whole number"),
        ("K6_BATCH", "-1", "options.batch: -1 can't be negative"),
        (
            "K6_DNS",
            "ttl=never",
            "K6_DNS=\"ttl=never\": invalid DNS TTL: never",
        ),
        (
            "K6_LINGER",
            "true",
            "K6_LINGER=\"true\": the option is not supported by loadlab k6",
        ),
    ] {
        let out = run(&[(k, v)], &[]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(104), "{k}: {stderr}");
        assert!(stderr.contains(want), "{k}: {stderr}");
        assert!(!stderr.contains("it "), "{k}: {stderr}");
    }
}

#[test]
fn no_setup_and_no_teardown_skip_them_as_k6() {
    // As k6 v1.8.1: without setup() the iterations and teardown() get
    // `undefined`; the option, the flag and K6_NO_* do the same.
    let dir = tempfile::tempdir().unwrap();
    let body = "export function setup() { console.log('SETUP'); return { a: 1 }; }\n\
                export default function (d) { console.log('DEFAULT ' + JSON.stringify(d)); }\n\
                export function teardown(d) { console.log('TEARDOWN ' + JSON.stringify(d)); }\n";
    let lines = |out: &Output| -> Vec<String> {
        let (_, stderr) = text(out);
        log_lines(&stderr)
            .into_iter()
            .filter(|(level, _)| level == "info")
            .map(|(_, msg)| msg)
            .collect()
    };
    let out = k6(dir.path(), body, &["--no-setup"]);
    assert_eq!(lines(&out), ["DEFAULT undefined", "TEARDOWN undefined"]);
    let out = k6(dir.path(), body, &["--no-teardown"]);
    assert_eq!(lines(&out), ["SETUP", "DEFAULT {\"a\":1}"]);
    let with_option =
        format!("export const options = {{ noSetup: true, noTeardown: true }};\n{body}");
    let out = k6(dir.path(), &with_option, &[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(lines(&out), ["DEFAULT undefined"]);
}

#[test]
fn a_script_from_standard_input_as_k6_run_dash() {
    // `k6 run - <script.js`, as k6's docs run it in a container; its
    // relative imports come from the working folder.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.js"), "export const x = 5;\n").unwrap();
    let run = |script: &str| {
        let mut child = Command::new(bin())
            .args(["k6", "run", "-q", "-i", "2", "-"])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run loadlab");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(
        "import { x } from './lib.js';\nexport default function () { console.log('x=' + x); }\n",
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert_eq!(stderr.matches("x=5").count(), 2, "{stderr}");
    assert!(stdout.contains("iterations"), "{stdout}");
    // Its errors name it `-`, with line and column.
    let out = run("export default function () {\n  let x = ;\n}\n");
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stderr}");
    assert!(stderr.contains("-:2:11: SyntaxError"), "{stderr}");
}

#[test]
fn console_output_goes_to_its_file_in_k6s_logfmt() {
    // As k6 v1.8.1: setup(), the iterations and teardown() write there
    // (appended), the init code to standard error.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("console.log");
    std::fs::write(&file, "kept\n").unwrap();
    let script = "import http from 'k6/http';\n\
                  console.log('init ' + __VU);\n\
                  export function setup() { console.log('in setup'); }\n\
                  export default function () {\n\
                    console.log('iter'); console.warn('a \"b\"');\n\
                    http.get('http://127.0.0.1:1/a%zz');\n\
                  }\n\
                  export function teardown() { console.error('in teardown'); }\n";
    let out = k6(
        dir.path(),
        script,
        &["--console-output", file.to_str().unwrap()],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let written = std::fs::read_to_string(&file).unwrap();
    let lines: Vec<&str> = written.lines().collect();
    assert_eq!(lines.len(), 5, "{written}");
    assert_eq!(lines[0], "kept");
    let tail: Vec<&str> = lines[1..]
        .iter()
        .map(|l| {
            assert!(
                l.starts_with("time=\"20") && l.contains("Z\" level="),
                "{l}"
            );
            &l[l.find(" level=").unwrap() + 1..]
        })
        .collect();
    assert_eq!(
        tail,
        [
            "level=info msg=\"in setup\"",
            "level=info msg=iter",
            "level=warning msg=\"a \\\"b\\\"\"",
            "level=error msg=\"in teardown\"",
        ]
    );
    assert!(stderr.contains("init 1"), "{stderr}");
    assert!(!stderr.contains("iter"), "{stderr}");
    // k6's own warnings are not the console's: they stay on standard error.
    assert!(stderr.contains("Request Failed"), "{stderr}");
    // A file that cannot be made: refused before any load (exit 104).
    let out = k6(
        dir.path(),
        script,
        &["--console-output", "/nonexistent/dir/c.log"],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(104), "{stderr}");
    assert!(stderr.contains("cannot create it"), "{stderr}");
    assert!(!stderr.contains("in setup"), "{stderr}");
}

#[test]
fn k6_version_says_what_it_is() {
    // CI pipelines check `k6 version` before a run; loadlab's says which
    // k6 its behaviour follows, not that it is k6.
    let out = Command::new(bin())
        .args(["k6", "version"])
        .output_bounded()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.starts_with(&format!(
            "loadlab v{} (k6 v1.8.1 ",
            env!("CARGO_PKG_VERSION")
        )),
        "{stdout}"
    );
}

#[test]
fn more_vus_than_iterations_is_refused_before_any_load_as_k6() {
    // k6 v1.8.1 exits 104 here; it used to run with fewer VUs.
    let dir = tempfile::tempdir().unwrap();
    let script = "export default function () { console.log('ran'); }\n";
    let out = k6(dir.path(), script, &["-u", "5", "-i", "2"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(104), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "there were problems with the specified script configuration:\n\t- scenario default \
             has configuration errors: the number of iterations (2) can't be less than the \
             number of VUs (5)"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("ran") && !stdout.contains("iterations"),
        "{stdout}\n{stderr}"
    );
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
    // k6's warning, once.
    let warning = "level=warning msg=\"Insufficient VUs, reached 1 active VUs and cannot initialize more\" \
                   executor=constant-arrival-rate scenario=open";
    assert_eq!(stderr.matches(warning).count(), 1, "{stderr}");
}

#[test]
fn unsupported_member_of_a_default_import_is_named_at_init() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import http from 'k6/http';\nexport default function () {\n  http.requestAsync('GET', 'x');\n}\n";
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(107), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("script.js:3:3: http.requestAsync"),
        "{stderr}"
    );
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
    let out = k6_progress(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(108), "{stdout}\n{stderr}");
    // Stopped by the abort, not by the 20 s: the run's own clock says so.
    let t = run_clock(&stdout);
    assert!(t < 20.0, "{t} s: {stdout}");
    // The reason is the run's error line, as in k6, not an iteration's.
    assert!(
        stderr.contains("level=error msg=\"test aborted: enough\"\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("source=stacktrace"), "{stderr}");
    assert!(stdout.contains("TOTAL RESULTS"), "{stdout}");
    // As k6: the scenario line shows the run cut short, and how far it got.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("default "))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.contains("✗ [") && !line.contains("100%"), "{line}");
}

#[test]
fn ctrl_c_ends_with_a_summary_and_a_readable_results_file() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin();
    let path = dir.path().join("script.js");
    std::fs::write(
        &path,
        "import http from 'k6/http';\nimport { sleep } from 'k6';\nexport const options = { vus: 3, duration: '60s' };\nexport function setup() { return { n: 7 }; }\nexport default function () { http.get(__ENV.BASE + '/'); sleep(0.05); }\nexport function teardown(d) { http.get(__ENV.BASE + '/bye'); console.log('TEARDOWN RAN ' + d.n); }\n",
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
    // Setup has returned and the VUs are sending (the origin has answered
    // some of their requests): Ctrl-C now lands mid-run.
    wait_origin_requests(o.addr, 3, PATIENCE);
    // SAFETY-free: kill(1) with SIGINT through the shell's kill command.
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let t0 = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    // Well short of the script's 60 s: the interrupt ended the run.
    assert!(t0.elapsed() < std::time::Duration::from_secs(40));
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(105), "{stdout}\n{stderr}");
    assert!(stdout.contains("http_reqs"), "{stdout}");
    // As in k6, teardown still runs, with setup's data; the last line
    // says why the run ended.
    assert!(stderr.contains("TEARDOWN RAN 7"), "{stderr}");
    assert!(
        stderr.ends_with(
            " level=error msg=\"test run was aborted because loadlab received a 'interrupt' signal\"\n"
        ),
        "{stderr}"
    );
    let rep = Command::new(bin())
        .args(["report", "run.lr"])
        .current_dir(dir.path())
        .output_bounded()
        .unwrap();
    let (rs, re) = text(&rep);
    assert_eq!(rep.status.code(), Some(0), "{rs}\n{re}");
    assert!(rs.contains("Requests"), "{rs}");
}

/// A second Ctrl-C stops at once, as in k6, even in a long teardown.
#[test]
fn a_second_ctrl_c_stops_a_long_teardown_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.js");
    std::fs::write(
        &path,
        "import { sleep } from 'k6';\nexport const options = { vus: 1, duration: '60s', teardownTimeout: '60s' };\nexport default function () { sleep(0.05); }\nexport function teardown() { console.log('TEARDOWN STARTED'); sleep(50); }\n",
    )
    .unwrap();
    let mut child = Command::new(bin())
        .args(["k6", "run", "-q", "--out", "loadlab=run.lr"])
        .arg(&path)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let err = Watch::stderr(&mut child);
    let int = || {
        let st = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    };
    // The run is under way (iterations are in the results file), so the
    // first Ctrl-C ends it and starts the teardown.
    wait_results(&dir.path().join("run.lr"), &[0x03, 0x06], 1, PATIENCE);
    int();
    err.wait_for_line("TEARDOWN STARTED", PATIENCE);
    int();
    let t0 = std::time::Instant::now();
    let out = child.wait_with_output().unwrap();
    // Without the second Ctrl-C the teardown would sleep 50 s.
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(40),
        "the second Ctrl-C did not stop it"
    );
    let stdout = text(&out).0;
    let stderr = err.finish();
    assert_eq!(out.status.code(), Some(105), "{stdout}\n{stderr}");
    assert!(stderr.contains("TEARDOWN STARTED"), "{stderr}");
    assert!(stderr.contains("second interrupt"), "{stderr}");
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
    // -s replaces the script's duration: up to 2 VUs in 1.1 s, then down
    // (k6 starts a stage ramp at `vus`, 1 here; vus_max is sampled each
    // second from 1 s on, as in k6).
    let out = k6(
        dir.path(),
        script,
        &[
            "-s",
            "1100ms:2",
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

/// `--system-tags`, repeated or comma-separated as k6's, over the script's
/// `systemTags` and `K6_SYSTEM_TAGS`; empty keeps none.
#[test]
fn system_tags_flag_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import exec from 'k6/execution';
export const options = { iterations: 1, systemTags: ['url'] };
export default function () { console.log(`tags ${JSON.stringify(exec.test.options.systemTags)}`); }
"#;
    for (args, want) in [
        (vec![], r#"tags ["url"]"#),
        (
            vec!["--system-tags", "status,vu", "--system-tags=ip"],
            r#"tags ["ip","status","vu"]"#,
        ),
        (vec!["--system-tags="], "tags null"),
    ] {
        let out = k6(dir.path(), script, &args);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{stdout}\n{stderr}");
        let msgs: Vec<String> = log_lines(&stderr).into_iter().map(|(_, m)| m).collect();
        assert!(msgs.iter().any(|m| m == want), "{args:?}: {msgs:?}");
    }
}

/// `--block-hostnames` and `--blacklist-ip` (repeatable, comma-separated)
/// replace the script's lists, as k6's flags do, with k6's warning line.
#[test]
fn block_flags_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
export const options = { iterations: 1, blockHostnames: ['nothing.test'] };
export default function () {
  const a = http.get('http://localhost:1/');
  const b = http.get('http://127.0.0.1:1/');
  console.log(`codes ${a.error_code} ${b.error_code}`);
}
"#;
    let out = k6(
        dir.path(),
        script,
        &[
            "--block-hostnames",
            "*.test,localhost",
            "--blacklist-ip",
            "127.0.0.0/8",
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let lines = log_lines(&stderr);
    assert!(
        lines.iter().any(|(_, m)| m == "codes 1111 1110"),
        "{lines:?}"
    );
    assert!(
        stderr.contains(r#"error="Get \"http://localhost:1/\": hostname (localhost) is in a blocked pattern (localhost)""#),
        "{stderr}"
    );
    assert!(
        stderr.contains(r#"error="Get \"http://127.0.0.1:1/\": IP (127.0.0.1) is in a blacklisted range (127.0.0.0/8)""#),
        "{stderr}"
    );
}

/// `--dns` over the script's `dns`, field by field, as k6; a bad one is
/// refused before any load with k6's words (exit 104).
#[test]
fn dns_flag_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import exec from 'k6/execution';
export const options = { iterations: 1, dns: { ttl: '1m', policy: 'any' } };
export default function () { console.log(`dns ${JSON.stringify(exec.test.options.dns)}`); }
"#;
    let out = k6(dir.path(), script, &["--dns", "select=first,ttl=inf"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let msgs: Vec<String> = log_lines(&stderr).into_iter().map(|(_, m)| m).collect();
    let want = r#"dns {"ttl":"inf","select":"first","policy":"any"}"#;
    assert!(msgs.iter().any(|m| m == want), "{msgs:?}");
    let out = k6(dir.path(), script, &["--dns", "policy=ipv6"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(104), "{stderr}");
    assert!(
        stderr.contains("ipv6 does not belong to DNSPolicy values"),
        "{stderr}"
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
    let out = k6_progress(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
    // Checked every 2 s of the run's clock: stopped at a check, well
    // before the 30 s, as the run's last progress lines say.
    let t = run_clock(&stdout);
    assert!((2.0..30.0).contains(&t), "{t} s: {stdout}");
    assert!(stdout.contains("✗ 'count<5'"), "{stdout}");
    assert!(
        stderr.contains(
            "msg=\"thresholds on metrics 'iterations' were crossed; at least one has abortOnFail enabled, stopping test prematurely\""
        ),
        "{stderr}"
    );
}

#[test]
fn http_debug_logs_each_request_and_response_as_k6_without_credentials() {
    let o = origin();
    let closed = loadlab_testkit::refused::Refused::new();
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "import http from 'k6/http';\n\
         export const options = {{ iterations: 1 }};\n\
         export default function () {{\n\
         \x20 http.post(__ENV.BASE + '/p?q=1', 'BODY-1', {{ headers: {{ Authorization: 'Bearer s3cr3t-t0ken' }} }});\n\
         \x20 http.get('http://{closed}/down');\n\
         }}\n"
    );
    let base = format!("BASE={}", o.url());
    // Heads only: a Request and a Response joined by one request_id, then
    // the failed request's Request alone (no response, as in k6).
    let out = k6(dir.path(), &script, &["--http-debug", "-e", &base]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("s3cr3t"), "{stderr}");
    let dumps: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains(" source=http-debug "))
        .collect();
    assert_eq!(dumps.len(), 3, "{stderr}");
    let id = |l: &str| l.split(" request_id=").nth(1).unwrap()[..36].to_string();
    assert_eq!(id(dumps[0]), id(dumps[1]));
    assert_ne!(id(dumps[1]), id(dumps[2]));
    let msgs: Vec<String> = log_lines(&stderr)
        .into_iter()
        .filter(|(_, m)| m.starts_with("Request:\n") || m.starts_with("Response:\n"))
        .map(|(_, m)| m)
        .collect();
    let addr = o.url().trim_start_matches("http://").to_string();
    assert!(
        msgs[0].starts_with(&format!("Request:\nPOST /p?q=1 HTTP/1.1\nHost: {addr}\n"))
            && msgs[0].contains("\nAuthorization: Bearer REDACTED\n")
            && msgs[0].contains("\nContent-Length: 6\n")
            && msgs[0].ends_with("\n\n\n"),
        "{:?}",
        msgs[0]
    );
    assert!(
        msgs[1].starts_with("Response:\nHTTP/1.1 200 OK\n")
            && msgs[1].contains("\nContent-Length: 17\n")
            && msgs[1].ends_with("\n\n\n"),
        "{:?}",
        msgs[1]
    );
    assert!(
        msgs[2].starts_with("Request:\nGET /down HTTP/1.1\n"),
        "{:?}",
        msgs[2]
    );
    // k6's fields, sorted.
    assert!(
        dumps[0].contains("\" group= iter=0 request_id=")
            && dumps[0].ends_with(" scenario=default source=http-debug vu=1"),
        "{}",
        dumps[0]
    );
    // full: the bodies too; from k6's variable, and from the option.
    for (args, env) in [(vec!["--http-debug=full"], None), (vec![], Some("full"))] {
        let mut c = Command::new(bin());
        c.current_dir(dir.path())
            .args(["k6", "run", "-q", "-e", &base])
            .args(&args)
            .arg("script.js");
        if let Some(v) = env {
            c.env("K6_HTTP_DEBUG", v);
        }
        let out = c.output_bounded().unwrap();
        let (_, stderr) = text(&out);
        let msgs: Vec<String> = log_lines(&stderr).into_iter().map(|(_, m)| m).collect();
        assert!(
            msgs.iter()
                .any(|m| m.starts_with("Request:\nPOST") && m.ends_with("\n\nBODY-1\n")),
            "{args:?} {env:?}: {stderr}"
        );
        assert!(
            msgs.iter().any(|m| m.starts_with("Response:\n") && m.ends_with("\n\n{\"ok\":true,\"n\":3}\n")),
            "{args:?} {env:?}: {stderr}"
        );
        assert!(!stderr.contains("s3cr3t"), "{stderr}");
    }
    let with_option = script.replace("{ iterations: 1 }", "{ iterations: 1, httpDebug: 'full' }");
    let out = k6(dir.path(), &with_option, &["-e", &base]);
    let (_, stderr) = text(&out);
    assert!(stderr.contains("BODY-1"), "{stderr}");
    // Without it, no dump.
    let out = k6(dir.path(), &script, &["-e", &base]);
    assert!(!text(&out).1.contains("http-debug"), "{}", text(&out).1);
}

/// A remote-write endpoint on loopback: each push's fields (names in
/// lower case) and its decoded series; answers every push with `status`.
struct RwReceiver {
    url: String,
    pushes: std::sync::Arc<std::sync::Mutex<Vec<RwPush>>>,
}

struct RwPush {
    headers: Vec<(String, String)>,
    series: Vec<loadlab_metrics::remote_write::TimeSeries>,
}

impl RwReceiver {
    fn start(status: u16) -> RwReceiver {
        use std::io::{BufRead, BufReader, Read, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/api/v1/write", l.local_addr().unwrap());
        let pushes = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let got = pushes.clone();
        std::thread::spawn(move || {
            for conn in l.incoming() {
                let Ok(conn) = conn else { return };
                let got = got.clone();
                std::thread::spawn(move || {
                    let mut r = BufReader::new(conn.try_clone().unwrap());
                    let mut w = conn;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).unwrap_or(0) == 0 {
                            return;
                        }
                        let mut headers = Vec::new();
                        let mut len = 0;
                        loop {
                            let mut h = String::new();
                            r.read_line(&mut h).unwrap();
                            let h = h.trim_end();
                            if h.is_empty() {
                                break;
                            }
                            let (k, v) = h.split_once(':').unwrap();
                            let (k, v) = (k.to_ascii_lowercase(), v.trim().to_string());
                            if k == "content-length" {
                                len = v.parse().unwrap();
                            }
                            headers.push((k, v));
                        }
                        let mut body = vec![0; len];
                        r.read_exact(&mut body).unwrap();
                        let req = loadlab_metrics::remote_write::decode(&body).unwrap();
                        got.lock().unwrap().push(RwPush {
                            headers,
                            series: req.timeseries,
                        });
                        write!(w, "HTTP/1.1 {status} X\r\nContent-Length: 0\r\n\r\n").unwrap();
                    }
                });
            }
        });
        RwReceiver { url, pushes }
    }
}

#[test]
fn prometheus_remote_write_pushes_k6s_series() {
    use loadlab_metrics::remote_write::STALE_NAN;
    let o = origin();
    let rw = RwReceiver::start(204);
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
import { check } from 'k6';
import { Trend } from 'k6/metrics';
const t = new Trend('my_trend', true);
export const options = { vus: 2, duration: '2500ms' };
export default function () {
  check(http.get(__ENV.BASE + '/'), { ok: (r) => r.status === 200 });
  t.add(12.5, { kind: 'a' });
}
"#;
    std::fs::write(dir.path().join("script.js"), script).unwrap();
    let out = Command::new(bin())
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "-o", "experimental-prometheus-rw", "-e"])
        .arg(format!("BASE={}", o.url()))
        .arg("script.js")
        .env("K6_PROMETHEUS_RW_SERVER_URL", &rw.url)
        .env("K6_PROMETHEUS_RW_PUSH_INTERVAL", "1s")
        .env("K6_PROMETHEUS_RW_BEARER_TOKEN", "tok-s3cr3t")
        .env("K6_PROMETHEUS_RW_STALE_MARKERS", "true")
        .output_bounded()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stderr.contains("s3cr3t"), "{stderr}");
    let pushes = rw.pushes.lock().unwrap();
    // Every second while the test runs, the last push, the stale markers.
    assert!((3..=6).contains(&pushes.len()), "{} pushes", pushes.len());
    for p in pushes.iter() {
        let h = |k: &str| {
            p.headers
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(h("content-encoding"), Some("snappy"));
        assert_eq!(h("content-type"), Some("application/x-protobuf"));
        assert_eq!(h("x-prometheus-remote-write-version"), Some("0.1.0"));
        assert_eq!(h("authorization"), Some("Bearer tok-s3cr3t"));
    }
    let (last, stale) = (&pushes[pushes.len() - 2], &pushes[pushes.len() - 1]);
    let find = |name: &str| {
        last.series
            .iter()
            .filter(|s| s.label("__name__") == Some(name))
            .collect::<Vec<_>>()
    };
    // The summary's count of requests is the counter's last value.
    let reqs = find("k6_http_reqs_total");
    assert_eq!(reqs.len(), 1, "{:?}", reqs);
    let r = reqs[0];
    for (k, v) in [
        ("method", "GET"),
        ("status", "200"),
        ("scenario", "default"),
        ("expected_response", "true"),
    ] {
        assert_eq!(r.label(k), Some(v), "{k}");
    }
    let n = r.samples[0].value;
    let summary_n = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("http_reqs"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(n, summary_n, "{stdout}");
    // A trend is its p(99), in seconds; a rate is `_rate`; gauges as they are.
    let p99 = find("k6_http_req_duration_p99")[0].samples[0].value;
    assert!(p99 > 0.0 && p99 < 1.0, "{p99}");
    let mine = find("k6_my_trend_p99");
    assert_eq!(mine[0].samples[0].value, 0.0125);
    assert_eq!(mine[0].label("kind"), Some("a"));
    assert_eq!(find("k6_checks_rate")[0].samples[0].value, 1.0);
    assert_eq!(find("k6_checks_rate")[0].label("check"), Some("ok"));
    assert!(!find("k6_iterations_total").is_empty());
    // Labels sorted by name, `__name__` first.
    for s in &last.series {
        let names: Vec<&str> = s.labels.iter().map(|l| l.name.as_str()).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names[0], "__name__");
    }
    // Staleness markers end every series pushed.
    assert!(stale.series.len() >= last.series.len());
    assert!(
        stale
            .series
            .iter()
            .all(|s| s.samples[0].value.to_bits() == STALE_NAN.to_bits())
    );
}

#[test]
fn prometheus_remote_write_failures_are_logged_and_bad_settings_refused() {
    let rw = RwReceiver::start(500);
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { iterations: 3 };\nexport default function () {}\n";
    std::fs::write(dir.path().join("script.js"), script).unwrap();
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut c = Command::new(bin());
        c.current_dir(dir.path())
            .args(["k6", "run", "-q"])
            .args(args)
            .arg("script.js");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output_bounded().unwrap()
    };
    // The endpoint refuses: k6's error line; the run itself is not failed.
    let out = run(
        &[
            "--out",
            &format!("experimental-prometheus-rw=url={}", rw.url),
        ],
        &[
            ("K6_PROMETHEUS_RW_PASSWORD", "pw-s3cr3t"),
            ("K6_PROMETHEUS_RW_USERNAME", "u"),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "level=error msg=\"Failed to send the time series data to the endpoint\" \
             error=\"got status code: 500 instead expected a 2xx successful status code\" \
             output=\"Prometheus remote write\""
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("s3cr3t"), "{stderr}");
    assert_eq!(rw.pushes.lock().unwrap().len(), 1);
    for (args, env, words) in [
        (
            vec!["-o", "experimental-prometheus-rw=foo=1"],
            vec![],
            "\"foo\" is an unknown option's key",
        ),
        (
            vec!["-o", "experimental-prometheus-rw"],
            vec![("K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM", "true")],
            "not supported",
        ),
        (
            vec!["-o", "experimental-prometheus-rw"],
            vec![("K6_PROMETHEUS_RW_PUSH_INTERVAL", "often")],
            "K6_PROMETHEUS_RW_PUSH_INTERVAL \"often\": not a duration",
        ),
    ] {
        let out = run(&args, &env);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(104), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(!stdout.contains("TOTAL RESULTS"), "{stdout}");
    }
}

#[test]
fn hosts_option_dials_names_at_the_given_addresses() {
    let o = origin();
    let port = o
        .url()
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_string();
    let dir = tempfile::tempdir().unwrap();
    // Names under .test (reserved: never a real host), dialled on loopback.
    let script = format!(
        "import http from 'k6/http';\n\
         import {{ check }} from 'k6';\n\
         export const options = {{ iterations: 1, hosts: {{\n\
         \x20 'api.loadlab.test': '127.0.0.1:{port}',\n\
         \x20 '*.svc.loadlab.test': '127.0.0.1',\n\
         }} }};\n\
         export default function () {{\n\
         \x20 const a = http.get('http://api.loadlab.test/x');\n\
         \x20 const b = http.get('http://v1.svc.loadlab.test:{port}/y');\n\
         \x20 check(a, {{ 'name and port': (r) => r.status === 200 && r.remote_ip === '127.0.0.1' && r.remote_port === {port} }});\n\
         \x20 check(b, {{ 'pattern, the URL\\'s port': (r) => r.status === 200 }});\n\
         }}\n"
    );
    let out = k6(dir.path(), &script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("checks_succeeded...: 100.00% 2 out of 2"),
        "{stdout}\n{stderr}"
    );
    // What k6 refuses is refused, naming it.
    for (hosts, words) in [
        (
            "{ 'bad host': '127.0.0.1' }",
            "invalid host pattern 'bad host'",
        ),
        ("{ 'a.test': 'not-an-ip' }", "is not an IP address"),
        ("{ 'a.test': 1 }", "is not a string"),
    ] {
        let script = format!(
            "export const options = {{ hosts: {hosts} }};\nexport default function () {{}}\n"
        );
        let out = k6(dir.path(), &script, &[]);
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(104), "{hosts}: {stderr}");
        assert!(stderr.contains(words), "{hosts}: {stderr}");
    }
}

#[test]
fn rps_limits_requests_across_vus_as_k6() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    // 21 requests at most 20 a second: the first at once, then one every
    // 50 ms, whatever 4 VUs ask; the whole run cannot take under 1 s.
    let script = "import http from 'k6/http';\n\
                  export const options = { vus: 4, iterations: 21, rps: 20 };\n\
                  export default function () { http.get(__ENV.BASE + '/'); }\n";
    let base = format!("BASE={}", o.url());
    let reqs = |out: &Output| {
        let (stdout, _) = text(out);
        stdout
            .lines()
            .find(|l| l.trim_start().starts_with("http_reqs"))
            .map(|l| {
                l.split(':')
                    .nth(1)
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string()
            })
            .unwrap_or_default()
    };
    for (args, env) in [
        (vec!["-e", &base], None),
        // The flag over the script's; K6_RPS under the flag.
        (vec!["-e", &base, "--rps", "20"], Some("1000")),
    ] {
        let script = if env.is_some() {
            script.replace("rps: 20", "rps: 1000")
        } else {
            script.to_string()
        };
        std::fs::write(dir.path().join("script.js"), &script).unwrap();
        let mut c = Command::new(bin());
        c.current_dir(dir.path())
            .args(["k6", "run", "-q"])
            .args(&args)
            .arg("script.js");
        if let Some(v) = env {
            c.env("K6_RPS", v);
        }
        let t0 = std::time::Instant::now();
        let out = c.output_bounded().unwrap();
        let took = t0.elapsed();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        assert_eq!(reqs(&out), "21", "{stdout}");
        assert!(
            took >= std::time::Duration::from_millis(1000),
            "{args:?}: {took:?}"
        );
    }
    // K6_RPS over the script's `rps: 0` (which alone is no limit).
    std::fs::write(
        dir.path().join("script.js"),
        script.replace("rps: 20", "rps: 0"),
    )
    .unwrap();
    let t0 = std::time::Instant::now();
    let out = Command::new(bin())
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "-e", &base, "script.js"])
        .env("K6_RPS", "10")
        .output_bounded()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{:?}", text(&out));
    assert!(t0.elapsed() >= std::time::Duration::from_millis(2000));
}

#[test]
fn batch_limits_are_k6s() {
    // Every answer takes 150 ms: a batch of 12 to one host takes at least
    // one round per `batchPerHost` (k6's default 6) or `batch` requests.
    let recipes = parse_recipes(
        r#"{"route":"/*","body":"ok","stages":[{"at":0,"status":200,"latency":"150ms"}]}"#,
    )
    .unwrap();
    let o = spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes,
            ..Default::default()
        },
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let script = "import http from 'k6/http';\n\
                  export const options = { iterations: 1 };\n\
                  export default function () {\n\
                  \x20 const reqs = [];\n\
                  \x20 for (let i = 0; i < 12; i++) reqs.push(['GET', __ENV.BASE + '/x' + i]);\n\
                  \x20 const t0 = Date.now();\n\
                  \x20 const rs = http.batch(reqs);\n\
                  \x20 console.log('TOOK ' + (Date.now() - t0) + ' OK ' + rs.filter((r) => r.status === 200).length);\n\
                  }\n";
    std::fs::write(dir.path().join("script.js"), script).unwrap();
    let base = format!("BASE={}", o.url());
    let took = |args: &[&str], env: &[(&str, &str)]| -> u64 {
        let mut c = Command::new(bin());
        c.current_dir(dir.path())
            .args(["k6", "run", "-q", "-e", &base])
            .args(args)
            .arg("script.js");
        for (k, v) in env {
            c.env(k, v);
        }
        let out = c.output_bounded().unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
        let msg = log_lines(&stderr)
            .into_iter()
            .find_map(|(_, m)| m.strip_prefix("TOOK ").map(str::to_string))
            .unwrap_or_else(|| panic!("{stderr}"));
        let (ms, ok) = msg.split_once(" OK ").unwrap();
        assert_eq!(ok, "12", "{args:?}: {msg}");
        ms.parse().unwrap()
    };
    // k6's defaults: 6 to one host at a time, so 2 rounds.
    let t = took(&[], &[]);
    assert!(t >= 290, "{t} ms");
    // --batch 3 (per host: no limit): 4 rounds; K6_BATCH_PER_HOST=4: 3.
    let t = took(&["--batch", "3", "--batch-per-host", "0"], &[]);
    assert!(t >= 590, "{t} ms");
    let t = took(&[], &[("K6_BATCH_PER_HOST", "4")]);
    assert!(t >= 440, "{t} ms");
    // All 12 at once when the limits allow: under 2 rounds.
    let t = took(&["--batch-per-host", "12"], &[]);
    assert!(t < 290, "{t} ms");
}

#[test]
fn log_output_and_format_are_k6s() {
    // Checked side by side with k6 v1.8.1: the same script, the same
    // lines (but the time, and the stack's file names).
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
export const options = { iterations: 2, thresholds: { iterations: ['count>100'] } };
export default function () {
  console.log('hello <you>', 3);
  console.debug('not shown');
  if (__ITER === 1) throw new Error('boom');
}
"#;
    // JSON: one object a line, keys sorted, Go's escapes.
    let out = k6(dir.path(), script, &["--log-format", "json"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
    let lines: Vec<serde_json::Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 5, "{stderr}");
    assert!(
        stderr.starts_with("{\"level\":\"info\",\"msg\":\"hello \\u003cyou\\u003e 3\",\"source\":\"console\",\"time\":\""),
        "{stderr}"
    );
    assert_eq!(lines[2]["source"], "stacktrace");
    assert_eq!(lines[2]["executor"], "shared-iterations");
    assert!(
        lines[2]["msg"]
            .as_str()
            .unwrap()
            .starts_with("Error: boom\n\tat default ("),
        "{stderr}"
    );
    assert_eq!(
        lines[4]["msg"],
        "thresholds on metrics 'iterations' have been crossed"
    );
    // Raw, from k6's variable: the messages alone; -v shows debug lines.
    let out = Command::new(bin())
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "-v", "script.js"])
        .env("K6_LOG_FORMAT", "raw")
        .output_bounded()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(
        stderr.starts_with("hello <you> 3\nnot shown\nhello <you> 3\nnot shown\nError: boom\n"),
        "{stderr}"
    );
    // A file takes the lines of its level and more severe ones, and
    // standard error none of them.
    let log = dir.path().join("k6.log");
    let out = k6(
        dir.path(),
        script,
        &[
            "--log-output",
            &format!("file={},level=warning", log.display()),
        ],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
    assert_eq!(stderr, "", "{stderr}");
    let file = std::fs::read_to_string(&log).unwrap();
    let levels: Vec<String> = log_lines(&file).into_iter().map(|(l, _)| l).collect();
    assert_eq!(levels, ["error", "warning", "error"], "{file}");
    // none: nothing; stdout: the lines before the summary.
    let out = k6(dir.path(), script, &["--log-output", "none"]);
    assert_eq!(text(&out).1, "");
    let out = k6(
        dir.path(),
        script,
        &["--log-output=stdout", "--log-format=raw"],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(stderr, "");
    assert!(stdout.starts_with("hello <you> 3\n"), "{stdout}");
    // What cannot be used is refused before the run, naming it.
    for (flag, code, words) in [
        ("--log-output=syslog", 2, "unsupported log output 'syslog'"),
        ("--log-output=loki", 2, "does not send logs to Loki"),
        ("--log-output=file=", 2, "filepath must not be empty"),
        (
            "--log-output=file=x.log,level=loud",
            2,
            "unknown log level loud",
        ),
        (
            "--log-output=file=no/such/x.log",
            4,
            "provided directory 'no/such' does not exist",
        ),
        (
            "--log-format=jsn",
            2,
            "the formats are text (the default), json and raw",
        ),
    ] {
        let out = k6(dir.path(), script, &[flag]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(code), "{flag}: {stderr}");
        assert!(stderr.contains(words), "{flag}: {stderr}");
        assert!(!stdout.contains("TOTAL RESULTS"), "{flag}: {stdout}");
    }
}

/// `--execution-segment` with `--execution-segment-sequence`, as k6: the
/// parts of a sequence's segments (equal, and unequal) add up to the whole
/// test (arrivals, iterations, VUs), each arrival-rate part runs the whole
/// test's arrivals that k6 gives it (its `iterationInTest`; the lists are
/// those k6 v1.8.1 printed for the same options and sequence), their results
/// files merge in `loadlab report`, and malformed segments are usage errors.
#[test]
fn execution_segments_add_up_to_the_whole_test() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
import exec from 'k6/execution';
export const options = {
  scenarios: {
    a: { executor: 'constant-arrival-rate', rate: 12, timeUnit: '1s', duration: '1s',
         preAllocatedVUs: 7, maxVUs: 9 },
    s: { executor: 'shared-iterations', vus: 5, iterations: 17, exec: 'shared' },
    p: { executor: 'per-vu-iterations', vus: 5, iterations: 2, exec: 'shared' },
  },
};
export default function () {
  console.log(`ARRIVAL ${exec.scenario.iterationInTest}`);
  http.get(`${__ENV.BASE_URL}/a`);
}
export function shared() { http.get(`${__ENV.BASE_URL}/s`); }
"#;
    let base = format!("BASE_URL=http://{}", o.addr);
    let run = |seg: &[&str], out: &str| {
        let res = format!("loadlab={out}");
        let mut args = vec!["-e", &base, "--out", &res];
        args.extend_from_slice(seg);
        let r = k6(dir.path(), script, &args);
        assert!(r.status.success(), "{seg:?}: {:?}", text(&r));
        let rep = Command::new(bin())
            .args(["report", "-type=json", out])
            .current_dir(dir.path())
            .output_bounded()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        let mut arrivals: Vec<u64> = log_lines(&text(&r).1)
            .iter()
            .filter_map(|(_, msg)| msg.strip_prefix("ARRIVAL "))
            .map(|n| n.trim().parse().unwrap())
            .collect();
        arrivals.sort_unstable();
        (j["requests"].as_u64().unwrap(), arrivals)
    };
    let (whole, all) = run(&[], "whole.lr");
    // 12 arrivals (0..=11: loadlab ends the schedule before t = duration;
    // k6 also starts one at exactly 1 s), 17 shared, 10 per-VU iterations.
    assert_eq!(all, (0..12).collect::<Vec<_>>());
    assert_eq!(whole, 12 + 17 + 10);
    let check = |seq: &str, segs: &[&str], want: &[(u64, &[u64])]| {
        let mut files = Vec::new();
        let mut union = Vec::new();
        for (i, (seg, (reqs, arr))) in segs.iter().zip(want).enumerate() {
            let f = format!("{}-{i}.lr", seq.replace(['/', ','], "_"));
            let (n, a) = run(
                &[
                    "--execution-segment",
                    seg,
                    "--execution-segment-sequence",
                    seq,
                ],
                &f,
            );
            assert_eq!(a, *arr, "{seq} {seg}: arrivals");
            assert_eq!(n, *reqs, "{seq} {seg}: requests");
            union.extend(a);
            files.push(f);
        }
        union.sort_unstable();
        assert_eq!(union, all, "{seq}: the union of the arrivals");
        let rep = Command::new(bin())
            .args(["report", "-type=json"])
            .args(&files)
            .current_dir(dir.path())
            .output_bounded()
            .unwrap();
        let j: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        assert_eq!(j["requests"].as_u64(), Some(whole), "{seq}: merged");
    };
    // Equal, odd: k mod 3 for the arrivals (maxVUs 9: 3 each); 17 shared
    // iterations over VUs 2, 2, 1 (k6's rule: striped in proportion to the
    // VUs) → 7, 7, 3; per-VU: VUs 2, 2, 1 → 4, 4, 2 iterations.
    check(
        "0,1/3,2/3,1",
        &["0:1/3", "1/3:2/3", "2/3:1"],
        &[
            (4 + 7 + 4, &[0, 3, 6, 9]),
            (4 + 7 + 4, &[1, 4, 7, 10]),
            (4 + 3 + 2, &[2, 5, 8, 11]),
        ],
    );
    // Unequal (1/3, 1/6, 1/2) in k6's other forms: k6 v1.8.1 ran the
    // arrivals 1,3,7,10,(12) / 5 / 0,2,4,6,8,9,11, shared iterations 7, 0,
    // 10 and per-VU iterations 4, 0, 6.
    check(
        "0,1/3,0.5,1",
        &["0:1/3", "1/3:50%", "0.5:1"],
        &[
            (4 + 7 + 4, &[1, 3, 7, 10]),
            (1, &[5]),
            (7 + 10 + 6, &[0, 2, 4, 6, 8, 9, 11]),
        ],
    );
    // Malformed segments, and a segment not in the sequence, are refused
    // before anything runs.
    for bad in [
        &["--execution-segment", "2/4:1/4"][..],
        &["--execution-segment", "x:1"],
        &[
            "--execution-segment",
            "1/4:1/2",
            "--execution-segment-sequence",
            "0,1/3,1",
        ],
        &["--execution-segment-sequence", "0,1/2,1"],
        &[
            "--execution-segment",
            "0:1/2",
            "--execution-segment-sequence",
            "0,1/2,1/4,1",
        ],
    ] {
        let r = k6(dir.path(), script, bad);
        assert_eq!(r.status.code(), Some(2), "{bad:?}: {:?}", text(&r));
        assert!(text(&r).1.contains("--execution-segment"), "{:?}", text(&r));
    }
}

/// Three script workers (`--execution-segment i/3` of one sequence, a
/// common `--start-at`) against a server on loopback, one killed with
/// SIGKILL mid-run: each file carries its worker record and plan, and
/// `loadlab report` over the files names the killed worker's share as
/// missing, with the count; without its file, the whole share is missing.
#[test]
fn script_workers_killed_and_absent_show_as_missing() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
export const options = {
  scenarios: {
    a: { executor: 'constant-arrival-rate', rate: 60, timeUnit: '1s', duration: '3s',
         preAllocatedVUs: 6 },
  },
};
export default function () { http.get(`${__ENV.BASE_URL}/a`); }
"#;
    let path = dir.path().join("split.js");
    std::fs::write(&path, script).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let start_at = format!("{:.3}", now + 2.0);
    let base = format!("BASE_URL=http://{}", o.addr);
    let seq = "0,1/3,2/3,1";
    let segs = ["0:1/3", "1/3:2/3", "2/3:1"];
    let mut children: Vec<std::process::Child> = segs
        .iter()
        .enumerate()
        .map(|(i, seg)| {
            Command::new(bin())
                .args(["k6", "run", "-q", "-e", &base])
                .args([
                    "--execution-segment",
                    seg,
                    "--execution-segment-sequence",
                    seq,
                ])
                .args(["--start-at", &start_at])
                .arg("--out")
                .arg(format!("loadlab=w{i}.lr"))
                .arg(&path)
                .current_dir(dir.path())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // Kill worker 1 mid-run: once its file holds its first iterations
    // (each one a sample and three metric values), well before its 60.
    wait_results(&dir.path().join("w1.lr"), &[0x06], 9, PATIENCE);
    children[1].kill().unwrap();
    let _ = children[1].wait();
    for (i, c) in children.iter_mut().enumerate() {
        if i == 1 {
            continue;
        }
        let out = c.wait().unwrap();
        assert!(out.success(), "worker {i}: {out:?}");
    }
    let report = |files: &[&str], typ: &str| {
        let r = Command::new(bin())
            .arg("report")
            .arg(format!("-type={typ}"))
            .args(files)
            .current_dir(dir.path())
            .output_bounded()
            .unwrap();
        assert!(r.status.success(), "{:?}", text(&r));
        String::from_utf8(r.stdout).unwrap()
    };
    let t = report(&["w0.lr", "w1.lr", "w2.lr"], "text");
    assert!(t.contains("3 of 3, 0s"), "{t}");
    // "N iterations missing: segment 1/3 (1/3:2/3) stopped after S of 60".
    let line = t
        .lines()
        .find(|l| l.contains("segment 1/3 (1/3:2/3) stopped after"))
        .unwrap_or_else(|| panic!("{t}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let n: u64 = words[words.iter().position(|w| *w == "iterations").unwrap() - 1]
        .parse()
        .unwrap();
    let after = words.iter().position(|w| *w == "after").unwrap();
    let s: u64 = words[after + 1].parse().unwrap();
    assert_eq!(words[after + 2..after + 4], ["of", "60"], "{line}");
    assert!(s > 0 && s < 60, "{line}");
    assert_eq!(n, 60 - s, "{line}");
    assert!(
        line.contains("missing") && line.contains("no end record"),
        "{line}"
    );
    assert!(t.contains(&format!("{n} missing of 180 scheduled")), "{t}");
    // The complete workers are not named.
    // (A loaded host may make one begin late: a Warning line, not Missing.)
    let missing: Vec<&str> = t.lines().filter(|l| l.starts_with("Missing")).collect();
    assert!(
        missing
            .iter()
            .all(|l| !l.contains("segment 0/3") && !l.contains("segment 2/3")),
        "{t}"
    );
    // Without the killed worker's file, its whole share is missing.
    let t = report(&["w0.lr", "w2.lr"], "text");
    assert!(
        t.contains("60 iterations missing: segment 1/3 (1/3:2/3) absent"),
        "{t}"
    );
    let j: serde_json::Value = serde_json::from_str(&report(&["w0.lr", "w2.lr"], "json")).unwrap();
    let w = &j["workers"][0];
    assert_eq!(w["unit"], "iterations", "{w}");
    assert_eq!(w["missing"], 60, "{w}");
    assert_eq!(w["scheduled"], 180, "{w}");
    assert_eq!(w["segments"], 3, "{w}");
    // The two complete workers ran their 60 each: 120 iterations, each a
    // request, less those the run itself says it dropped (a VU short, on
    // a loaded machine).
    let metric = |name: &str| {
        j["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == name)
            .map_or(0, |m| m["total"].as_u64().unwrap())
    };
    let dropped = metric("dropped_iterations");
    assert_eq!(metric("iterations") + dropped, 120, "{j}");
    assert_eq!(j["requests"].as_u64(), Some(120 - dropped), "{j}");
}

/// `--start-at` is checked as `attack -start-at` is (usage errors, exit 2,
/// naming the flag), and `--execution-segment-index I/N` is segment I of
/// N equal ones.
#[test]
fn start_at_and_segment_index_flags_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export default function () {}\n";
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let past = format!("--start-at={}", now - 60);
    for (bad, want) in [
        (vec!["--start-at=yesterday"], "invalid --start-at"),
        (vec![past.as_str()], "--start-at passed"),
        (
            vec!["--execution-segment-index=3/3"],
            "--execution-segment-index",
        ),
        (
            vec!["--execution-segment-index=0/2", "--execution-segment=0:1/2"],
            "cannot be used with",
        ),
    ] {
        let r = k6(dir.path(), script, &bad);
        assert_eq!(r.status.code(), Some(2), "{bad:?}: {:?}", text(&r));
        assert!(text(&r).1.contains(want), "{bad:?}: {:?}", text(&r));
    }
    let r = k6_progress(
        dir.path(),
        script,
        &["--execution-segment-index=1/2", "-u", "2", "-i", "9"],
    );
    assert!(r.status.success(), "{:?}", text(&r));
    // 9 shared iterations, 2 VUs: segment 1/2:1 of 0,1/2,1 has 1 VU and
    // runs iterations 1, 3, 5, 7 (with -u 1 it would have no VU and, as in
    // k6, no iterations).
    let (o, e) = text(&r);
    assert!(format!("{o}{e}").contains("4 complete"), "{o}{e}");
}

/// A script that is not there: one line naming it, exit 4 (a file that
/// cannot be read), and no banner as if a run were starting.
#[test]
fn a_missing_script_is_one_line_without_a_banner() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .args(["k6", "run", "no-such-script.js"])
        .current_dir(dir.path())
        .output_bounded()
        .expect("run loadlab");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("cannot read no-such-script.js"), "{err}");
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

/// A loopback server whose `/r/N` answers 302 to `/r/N-1`, `/r/0` 200.
fn redirect_server() -> std::net::SocketAddr {
    use std::io::{BufRead, BufReader, Write};
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(s) = s else { return };
            std::thread::spawn(move || {
                let mut w = s.try_clone().unwrap();
                let mut r = BufReader::new(s);
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    // The rest of the head (GET requests: no body).
                    loop {
                        let mut h = String::new();
                        if r.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        if h == "\r\n" {
                            break;
                        }
                    }
                    let path = line.split(' ').nth(1).unwrap_or("/");
                    let n: u32 = path
                        .strip_prefix("/r/")
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0);
                    let resp = if n > 0 {
                        format!(
                            "HTTP/1.1 302 Found\r\nLocation: /r/{}\r\nContent-Length: 0\r\n\r\n",
                            n - 1
                        )
                    } else {
                        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".to_string()
                    };
                    if w.write_all(resp.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

/// As k6 v1.8.1 (checked with it on the same scripts): the redirect limit
/// is `params.redirects`, else `--max-redirects` over `options.maxRedirects`,
/// else 10; the request that reaches it answers with the last 302, and
/// only the default limit is warned about, with k6's words.
#[test]
fn redirect_limit_flag_option_and_warning_as_k6() {
    let addr = redirect_server();
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 1, maxRedirects: 2, thresholds: { checks: ['rate==1'] } };
export default function () {
  const r = http.get(`${__ENV.BASE}/r/12`);
  const p = http.get(`${__ENV.BASE}/r/3`, { redirects: 1 });
  check(r, {
    'url': (r) => r.url === `${__ENV.BASE}/r/${__ENV.WANT}`,
    'status': (r) => r.status === 302 && r.error_code === 0,
  });
  check(p, { 'params win': (p) => p.url === `${__ENV.BASE}/r/2` && p.status === 302 });
}
"#;
    let base = format!("BASE=http://{addr}");
    // (final URL wanted, flags, the script's maxRedirects, warned)
    for (want, args, option, warned) in [
        (
            "11",
            &["--max-redirects", "1"][..],
            " maxRedirects: 2,",
            false,
        ),
        ("10", &[][..], " maxRedirects: 2,", false),
        ("12", &[][..], " maxRedirects: -1,", false), // k6: below 0 is 0
        ("2", &[][..], "", true),
    ] {
        let s = script.replace(" maxRedirects: 2,", option);
        let want_env = format!("WANT={want}");
        let mut a = vec!["-e", base.as_str(), "-e", want_env.as_str()];
        a.extend_from_slice(args);
        let out = k6(dir.path(), &s, &a);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{args:?}\n{stdout}\n{stderr}");
        let n = stderr
            .matches(
                "Stopped after 11 redirects and returned the redirection; pass { redirects: n } \
                 in request params or set global maxRedirects to silence this",
            )
            .count();
        assert_eq!(n, usize::from(warned), "{stderr}");
        if warned {
            assert!(
                stderr.contains(&format!("url=\"http://{addr}/r/12\"")),
                "{stderr}"
            );
        }
    }
    let bad = k6(
        dir.path(),
        &script.replace("maxRedirects: 2", "maxRedirects: 'x'"),
        &["-e", &base],
    );
    let (_, stderr) = text(&bad);
    assert_ne!(bad.status.code(), Some(0));
    assert!(stderr.contains("options.maxRedirects"), "{stderr}");
}

/// As in k6, `console.debug` is printed only with `-v/--verbose`; the other
/// levels always are.
#[test]
fn console_debug_needs_verbose() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { vus: 1, iterations: 1 };\nexport default function () { console.debug('DBG-LINE'); console.log('LOG-LINE'); }\n";
    let quiet = k6(dir.path(), script, &[]);
    let (_, err) = text(&quiet);
    assert_eq!(quiet.status.code(), Some(0), "{err}");
    assert!(
        err.contains("LOG-LINE") && !err.contains("DBG-LINE"),
        "{err}"
    );
    let verbose = k6(dir.path(), script, &["-v"]);
    let (_, err) = text(&verbose);
    assert_eq!(verbose.status.code(), Some(0), "{err}");
    assert!(
        err.contains("level=debug msg=DBG-LINE source=console"),
        "{err}"
    );
}

#[test]
fn quiet_leaves_out_the_progress_lines_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { iterations: 3 };\nexport default function () {}\n";
    let loud = text(&k6_progress(dir.path(), script, &[])).0;
    assert!(loud.contains("\nrunning ("), "{loud}");
    assert!(loud.contains("\ndefault ✓ [ 100% ]"), "{loud}");
    assert!(loud.contains("\n     execution: local\n"), "{loud}");
    let quiet = text(&k6(dir.path(), script, &[])).0;
    assert!(quiet.contains("iterations"), "{quiet}");
    assert!(!quiet.contains("running ("), "{quiet}");
    assert!(!quiet.contains("execution: local"), "{quiet}");
    assert!(!quiet.contains("default ✓"), "{quiet}");
    // k6 v1.8.1's last line, then three empty lines (no more).
    assert!(quiet.ends_with("0 B/s\n\n\n\n"), "{quiet:?}");
}

/// The run's clock in the last progress lines of `out` (`running
/// (00.2s), …` or `running (1m02.0s), …`), in seconds: how long the run
/// says it ran.
fn run_clock(out: &str) -> f64 {
    let line = out
        .lines()
        .rfind(|l| l.starts_with("running ("))
        .unwrap_or_else(|| panic!("no progress lines in {out}"));
    let clock = line["running (".len()..]
        .split_once("s)")
        .unwrap_or_else(|| panic!("{line}"))
        .0;
    let (m, s) = clock.split_once('m').unwrap_or(("0", clock));
    let (m, s): (f64, f64) = (m.parse().unwrap(), s.parse().unwrap());
    m * 60.0 + s
}

/// The lines after `head` in `out`, up to the next empty line.
fn block_after<'a>(out: &'a str, head: &str) -> Vec<&'a str> {
    let at = out
        .find(head)
        .unwrap_or_else(|| panic!("no {head:?} in {out}"));
    out[at..].lines().take_while(|l| !l.is_empty()).collect()
}

#[test]
fn live_progress_lines_every_second_as_k6() {
    // Standard output is not a terminal here: as k6 v1.8.1 does, a block
    // of progress lines each second, in its layout (checked side by side
    // on this script), then the summary and its last block.
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import { sleep } from 'k6';
export const options = { scenarios: {
  steady: { executor: 'constant-vus', vus: 2, duration: '2500ms' },
  later: { executor: 'shared-iterations', vus: 2, iterations: 4, startTime: '1500ms', exec: 'f' },
} };
export default function () { sleep(0.2); }
export function f() { sleep(0.1); }
"#;
    let out = k6_progress(dir.path(), script, &[]);
    let (o, err) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let summary_at = o.find("TOTAL RESULTS").expect("a summary");
    let live = &o[..summary_at];
    // k6's banner (its logo aside), byte for byte, then the blocks.
    let banner = format!(
        "\n     execution: local\n        script: {}\n        output: -\n\n     \
         scenarios: (100.00%) 2 scenarios, 4 max VUs, 10m31.5s max duration (incl. graceful stop):\n              \
         * steady: 2 looping VUs for 2.5s (gracefulStop: 30s)\n              \
         * later: 4 iterations shared among 2 VUs (maxDuration: 10m0s, exec: f, startTime: 1.5s, gracefulStop: 30s)\n\n",
        dir.path().join("script.js").display()
    );
    assert!(
        live.starts_with(&format!("{banner}\nrunning (00m01.")),
        "{o}"
    );
    assert!(live.matches("\nrunning (").count() >= 2, "{o}");

    // At 1 s: `later` waits for its start (scenarios by start time, as k6).
    let b = block_after(live, "running (00m01.");
    assert_eq!(b.len(), 3, "{b:#?}");
    assert!(
        b[0].ends_with(" complete and 0 interrupted iterations"),
        "{b:#?}"
    );
    assert!(b[0].contains("/4 VUs, "), "{b:#?}");
    assert!(
        b[2].starts_with("later  • [   0% ] waiting  0.") && b[2].ends_with('s'),
        "{b:#?}"
    );
    assert!(
        b[1].starts_with("steady   [  4")
            && b[1].contains("% ] 2 VUs    1.")
            && b[1].ends_with("s/2.5s"),
        "{b:#?}"
    );
    // At 2 s: its 4 iterations are done, in ~0.2 s.
    let b = block_after(live, "running (00m02.");
    assert!(
        b[2].starts_with("later  ✓ [ 100% ] 2 VUs  00m00.")
            && b[2].ends_with("s/10m0s  4/4 shared iters"),
        "{b:#?}"
    );
    assert!(
        b[1].starts_with("steady   [  8")
            && b[1].contains("% ] 2 VUs  2.")
            && b[1].ends_with("s/2.5s      "),
        "{b:#?}"
    );

    // The summary's last block: both over.
    let b = block_after(&o[summary_at..], "running (00m0");
    assert!(
        b[0].starts_with("running (00m02.") || b[0].starts_with("running (00m03."),
        "{b:#?}"
    );
    assert!(
        b[2].starts_with("later  ✓ [ 100% ] 2 VUs  00m00.")
            && b[2].ends_with("s/10m0s  4/4 shared iters"),
        "{b:#?}"
    );
    assert_eq!(b[1], "steady ✓ [ 100% ] 2 VUs  2.5s           ", "{b:#?}");
    // With -q: none of them.
    let quiet = text(&k6(dir.path(), script, &[])).0;
    assert!(!quiet.contains("running ("), "{quiet}");
}

#[test]
fn on_a_terminal_the_progress_lines_are_redrawn_in_place_as_k6() {
    // A pseudo-terminal from util-linux's `script` (Debian's bsdutils).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tty.js");
    std::fs::write(
        &path,
        "import { sleep } from 'k6';\n\
         export const options = { vus: 2, duration: '1s' };\n\
         export default function () { sleep(0.3); if (__ITER === 1 && __VU === 1) console.log('hello'); }\n",
    )
    .unwrap();
    let cmd = format!("{} k6 run {}", bin(), path.display());
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &cmd, "/dev/null"])
        .env("TERM", "xterm")
        .env_remove("NO_COLOR")
        .output_bounded()
        .expect("script (util-linux) runs the command on a pseudo-terminal");
    let o = String::from_utf8_lossy(&out.stdout).to_string();
    assert_eq!(out.status.code(), Some(0), "{o}");
    // A block on the 100 ms grid of the run's own clock, drawn bar and
    // all, then the cursor back up over it (k6's escape sequences, checked
    // side by side). A loaded machine may skip ticks, so each block is
    // checked against the time it shows, not against a count of them.
    let summary = o.rfind("TOTAL RESULTS").expect("summary");
    let frames: Vec<&str> = o[..summary].split("\r\x1b[J\x1b[3A").collect();
    let (mut last_tenths, mut last_fill, mut drawn, mut same) = (0, 0, 0, 0);
    for f in &frames[..frames.len() - 1] {
        // A log line takes the block's place; the block is drawn again
        // under it, unchanged.
        let (logged, block) = match f.split_once("\x1b[0K\r\n\x1b[K\r\nrunning (") {
            Some((log, rest)) if log.starts_with("\x1b[36mINFO\x1b[0m[") => (true, rest),
            _ => (
                false,
                f.split_once("\x1b[K\r\nrunning (").map_or("", |x| x.1),
            ),
        };
        let (t, rest) = block
            .split_once("s), 2/2 VUs, ")
            .unwrap_or_else(|| panic!("a block: {f:?}"));
        let tenths: u32 = match t.split_once('.') {
            Some((s, d)) if s.len() == 2 && d.len() == 1 => format!("{s}{d}").parse().unwrap(),
            _ => panic!("the run's clock: {f:?}"),
        };
        let (count, line) = rest
            .split_once(" complete and 0 interrupted iterations\x1b[K\r\ndefault ")
            .unwrap_or_else(|| panic!("the head and bar: {f:?}"));
        assert!(count.parse::<u32>().is_ok(), "{f:?}");
        // Past its 1 s the scenario is stopping (↓), its last iterations
        // running out.
        let (mark, right) = match tenths {
            ..10 => (" ", format!("{}.{}s/1s", tenths / 10, tenths % 10)),
            _ => ("↓", "1s".to_string()),
        };
        let bar = line
            .strip_prefix(&format!("{mark} ["))
            .unwrap_or_else(|| panic!("the bar: {f:?}"));
        assert!(
            bar.ends_with(&format!("] 2 VUs  {right}\x1b[K\r\n")),
            "{f:?}"
        );
        let inside = &bar[..38];
        let fill = inside.matches('=').count() + inside.matches('>').count();
        let drawn_as = match fill {
            0 | 38 => "=".repeat(fill) + &"-".repeat(38 - fill),
            _ => format!("{}>{}", "=".repeat(fill - 1), "-".repeat(38 - fill)),
        };
        assert_eq!(inside, drawn_as, "{f:?}");
        // 38 cells for 1 s, filled as far as the clock shown (in tenths,
        // so within a tenth of it).
        let t = f64::from(tenths) / 10.0;
        assert!(
            (((38.0 * (t - 0.05)) as usize).min(38)..=(38.0 * (t + 0.1)) as usize).contains(&fill),
            "{fill} cells at {t} s: {f:?}"
        );
        if logged {
            assert_eq!((tenths, fill), (last_tenths, last_fill), "{f:?}");
        } else {
            // One block per tick of the run's clock. A tick drawn late on
            // a loaded machine shows its time rounded up to the next
            // tick's tenth, which that tick then shows again: never more
            // than two blocks with one time.
            assert!(tenths >= last_tenths && fill >= last_fill, "{f:?}");
            same = if drawn > 0 && tenths == last_tenths {
                same + 1
            } else {
                0
            };
            assert!(same <= 1, "three blocks at {tenths} tenths: {o:?}");
            drawn += 1;
        }
        (last_tenths, last_fill) = (tenths, fill);
    }
    // The run's 1 s holds 9 ticks; skipping all but one would be a hang.
    assert!(drawn >= 2, "{drawn} blocks: {o:?}");
    assert!(
        o.contains(&format!(
            "hello{} \x20\x1b[36msource\x1b[0m=console\x1b[0K\r\n\x1b[K\r\nrunning (",
            " ".repeat(39)
        )),
        "the log line above the block: {o:?}"
    );
    // The last block closes the summary, its bar drawn full.
    // Before the summary, the last live block is wiped.
    assert!(
        o[..summary].ends_with("\r\x1b[J\x1b[3A\x1b[J\r\n\r\n  █ "),
        "{o:?}"
    );
    assert!(
        o.ends_with("default ✓ [======================================] 2 VUs  1s\x1b[K\r\n"),
        "{o:?}"
    );
}

#[test]
fn the_last_progress_lines_mark_unfinished_scenarios_as_k6() {
    // Checked side by side with k6 v1.8.1: shared iterations left at the
    // maxDuration are ✗ with the count done; per-VU iterations past theirs
    // show full and ✓; after Ctrl-C every scenario is ✗ where it was, a
    // ramp with no VU left.
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
import { sleep } from 'k6';
export const options = { scenarios: {
  it: { executor: 'shared-iterations', vus: 2, iterations: 100, maxDuration: '1s', gracefulStop: '0s' },
  pv: { executor: 'per-vu-iterations', vus: 1, iterations: 50, maxDuration: '1200ms' },
} };
export default function () { sleep(0.1); }
"#;
    let out = k6_progress(dir.path(), script, &[]);
    let (o, err) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let b = block_after(&o[o.find("TOTAL RESULTS").unwrap()..], "running (");
    // How many iterations a scenario's line says it ran (the number before
    // `/{of}`); the counts hang on the machine's speed, so the lines are
    // checked against one another.
    let done = |line: &str, of: &str| -> u32 {
        line.split_once(of)
            .and_then(|(l, _)| l.rsplit(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{b:#?}"))
    };
    let shared = done(b[1], "/100 shared iters");
    let per_vu = done(b[2], "/50 iters, 50 per VU");
    assert!(
        b[0].ends_with(&format!(
            ", 0/3 VUs, {} complete and 2 interrupted iterations",
            shared + per_vu
        )),
        "{b:#?}"
    );
    assert!((1..100).contains(&shared), "{b:#?}");
    assert!(
        b[1].starts_with(&format!(
            "it   ✗ [ {shared:>3}% ] 2 VUs  1.0s/1s  {shared:03}/"
        )),
        "{b:#?}"
    );
    assert!(
        b[2].starts_with("pv   ✓ [ 100% ] 1 VUs  1.2s     ")
            && b[2].ends_with(&format!(" {per_vu}/50 iters, 50 per VU")),
        "{b:#?}"
    );

    let path = dir.path().join("long.js");
    std::fs::write(
        &path,
        r#"
import { sleep } from 'k6';
export const options = { scenarios: {
  steady: { executor: 'constant-vus', vus: 2, duration: '10s' },
  rr: { executor: 'ramping-vus', stages: [{ duration: '5s', target: 4 }], exec: 'f' },
} };
export default function () { sleep(0.2); }
export function f() { sleep(0.1); }
"#,
    )
    .unwrap();
    let mut child = Command::new(bin())
        .args(["k6", "run"])
        .arg(&path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Ctrl-C once the run's own progress lines say 2 s have passed: both
    // scenarios are under way, neither is done.
    let live = Watch::stdout(&mut child);
    live.wait_for_line("running (02.", PATIENCE);
    assert!(
        Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap()
            .success()
    );
    let out = child.wait_with_output().unwrap();
    let err = text(&out).1;
    let o = live.finish();
    assert_eq!(out.status.code(), Some(105), "{o}\n{err}");
    let b = block_after(&o[o.find("TOTAL RESULTS").unwrap()..], "running (0");
    // The last block shows the run's clock at the interrupt: from the 2 s
    // of the line above on, and each scenario's bar at that same instant.
    let at = b[0]
        .strip_prefix("running (")
        .and_then(|r| r.split_once("s)"))
        .map(|(t, _)| t)
        .unwrap_or_else(|| panic!("{b:#?}"));
    let t: f64 = at.parse().unwrap_or_else(|_| panic!("{b:#?}"));
    assert!(at.len() == 4 && (2.0..5.0).contains(&t), "{b:#?}");
    assert!(b[0].contains("0/6 VUs, "), "{b:#?}");
    assert!(
        b[1].starts_with("rr     ✗ [  ") && b[1].contains("% ] 0/4 VUs  "),
        "{b:#?}"
    );
    assert!(b[1].ends_with(&format!(" {t:.1}s/5.0s")), "{b:#?}");
    assert!(
        b[2].starts_with("steady ✗ [  ") && b[2].contains("% ] 2 VUs    0"),
        "{b:#?}"
    );
    assert!(b[2].ends_with(&format!(" {at}s/10s")), "{b:#?}");
}

#[test]
fn thresholds_on_a_missing_metric_or_a_foreign_aggregation_exit_104_before_any_load() {
    // A listener nobody must connect to: the errors come before any load.
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.set_nonblocking(true).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (thresholds, want) in [
        (
            "{ nosuch: ['count>1'] }",
            r#"invalid threshold defined on nosuch; reason: no metric name "nosuch" found"#,
        ),
        (
            "{ my_trend: ['count>1'] }",
            "unsupported aggregation method count on metric of type trend",
        ),
        (
            "{ http_req_failed: ['p(95)<1'] }",
            "unsupported aggregation method p(95) on metric of type rate",
        ),
    ] {
        let script = format!(
            "import http from 'k6/http';\nimport {{ Trend }} from 'k6/metrics';\n\
             const t = new Trend('my_trend');\n\
             export const options = {{ iterations: 1, thresholds: {thresholds} }};\n\
             export default function () {{ http.get('http://{}/'); t.add(1); }}\n",
            l.local_addr().unwrap()
        );
        let out = k6(dir.path(), &script, &[]);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(104), "{stdout}\n{stderr}");
        assert!(stderr.contains(want), "{stderr}");
        assert!(l.accept().is_err(), "a connection before the error");
    }
}

#[test]
fn failed_requests_warn_on_stderr_as_k6() {
    let closed = loadlab_testkit::refused::Refused::new();
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "import http from 'k6/http';\nexport const options = {{ iterations: 2 }};\n\
         export default function () {{ http.post('http://{closed}/x'); }}\n"
    );
    let out = k6(dir.path(), &script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let want = format!(
        r#"level=warning msg="Request Failed" error="Post \"http://{closed}/x\": dial tcp {closed}: connect: connection refused""#
    );
    assert_eq!(stderr.matches(&want).count(), 2, "{stderr}");
}

#[test]
fn vus_alone_run_one_iteration_with_k6s_warning() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export default function () {}\n";
    let out = k6(dir.path(), script, &["-u", "3"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("`vus=3` option will be ignored, it only works in conjunction with `iterations`, `duration`, or `stages`"),
        "{stderr}"
    );
    let iterations = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("iterations."))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(iterations.contains(": 1 "), "{iterations}");
}

#[test]
fn console_prints_values_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
export const options = { iterations: 1 };
export default function () {
  console.log({ a: 1, b: 'x', c: [1, 2, { d: null }], e: undefined, 'k-2': [] });
  console.log('s', 1, true, null, undefined, [1, 'a'], { n: { m: {} } });
  console.log(new Error('boom'));
  console.log(function f() {});
  console.warn('w', { z: 2 });
}
"#;
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    // The lines k6 v1.8.1 prints for the same calls.
    let got = log_lines(&stderr);
    for (level, msg) in [
        (
            "info",
            r#"{ a: 1, b: "x", c: [ 1, 2, { d: null } ], e: null, k-2: [] }"#,
        ),
        (
            "info",
            r#"s 1 true null undefined [ 1, "a" ] { n: { m: {} } }"#,
        ),
        ("info", "Error: boom"),
        ("info", "[object Function]"),
        ("warning", "w { z: 2 }"),
    ] {
        assert!(
            got.iter().any(|(l, m)| l == level && m == msg),
            "{level} {msg}\n{stderr}"
        );
    }
    // Each with k6's field.
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.ends_with(" source=console"))
            .count(),
        5,
        "{stderr}"
    );
}

#[test]
fn an_exception_shows_every_frame_of_the_script_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = "import { fail } from 'k6';\n\
                  export const options = { iterations: 2 };\n\
                  function inner(x) { if (x) throw new Error('boom'); }\n\
                  function outer() { inner(1); }\n\
                  export default function () {\n\
                  \x20 if (__ITER === 0) outer();\n\
                  \x20 fail('nope');\n\
                  }\n";
    let out = k6(dir.path(), script, &[]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let errors: Vec<String> = log_lines(&stderr)
        .into_iter()
        .filter(|(level, _)| level == "error")
        .map(|(_, msg)| msg)
        .collect();
    assert_eq!(errors.len(), 2, "{stderr}");
    let e = &errors[0];
    assert!(
        e.starts_with("Error: boom\n\tat inner (")
            && e.contains("script.js:3:38)\n\tat outer (")
            && e.contains("script.js:4:20)\n\tat default (")
            && e.ends_with("script.js:6:21)\n"),
        "{e}"
    );
    // `fail` is loadlab's own module code: its frame is left out.
    let e = &errors[1];
    assert!(
        e.starts_with("GoError: nope\n\tat default (") && e.ends_with("script.js:7:3)\n"),
        "{e}"
    );
    // k6's fields on an iteration's exception.
    assert!(
        stderr.contains("\" executor=shared-iterations scenario=default source=stacktrace\n"),
        "{stderr}"
    );
    assert!(!stderr.contains("(k6:"), "{stderr}");
}

#[test]
fn request_option_flags_and_a_disabled_summary_as_k6() {
    let o = origin();
    let closed = loadlab_testkit::refused::Refused::new();
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "import http from 'k6/http';\nimport {{ check }} from 'k6';\n\
         export const options = {{ thresholds: {{ checks: ['rate==1'] }} }};\n\
         export default function () {{\n\
         \x20 const r = http.get('http://{}/');\n\
         \x20 let threw = false;\n\
         \x20 try {{ http.get('http://{closed}/'); }} catch (e) {{ threw = true; }}\n\
         \x20 check(r, {{ 'flags': (r) => r.body === null && threw\n\
         \x20   && r.request.headers['User-Agent'][0] === 'my-agent/1' }});\n\
         }}\n",
        o.addr
    );
    let args = [
        "-i",
        "2",
        "--user-agent",
        "my-agent/1",
        "--discard-response-bodies",
        "--throw",
        "--no-connection-reuse",
        "--min-iteration-duration",
        "300ms",
        "--no-color",
        "--summary-export",
        "e.json",
    ];
    let t0 = std::time::Instant::now();
    let out = k6(dir.path(), &script, &args);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(t0.elapsed() >= std::time::Duration::from_millis(600));
    assert!(stdout.contains("✓ 'rate==1'"), "{stdout}");
    // --summary-mode=disabled (and the deprecated --no-summary): no summary,
    // no export; the thresholds still decide the exit code.
    std::fs::remove_file(dir.path().join("e.json")).unwrap();
    for disabled in [&["--summary-mode", "disabled"][..], &["--no-summary"][..]] {
        let mut a = args.to_vec();
        a.extend_from_slice(disabled);
        a.push("--user-agent=other");
        let out = k6(dir.path(), &script, &a);
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(99), "{stdout}\n{stderr}");
        assert!(!stdout.contains("TOTAL RESULTS"), "{stdout}");
        assert!(!dir.path().join("e.json").exists());
    }
}

#[test]
fn the_last_progress_lines_follow_any_summary_as_k6() {
    // As k6 v1.8.1: under handleSummary's output, and with no summary at
    // all; `-q` leaves them out.
    let dir = tempfile::tempdir().unwrap();
    let hs = "export const options = { iterations: 2 };\nexport default function () {}\n\
              export function handleSummary(data) { return { stdout: 'MY SUMMARY\\n' }; }\n";
    let (o, err) = text(&k6_progress(dir.path(), hs, &[]));
    let tail = &o[o.find("MY SUMMARY").unwrap_or_else(|| panic!("{o}\n{err}"))..];
    assert!(
        tail.starts_with("MY SUMMARY\n\nrunning (00m00."),
        "{tail:?}"
    );
    let last =
        ", 0/1 VUs, 2 complete and 0 interrupted iterations\ndefault ✓ [ 100% ] 1 VUs  00m00.";
    assert!(
        tail.contains(last) && tail.ends_with("s/10m0s  2/2 shared iters\n"),
        "{tail:?}"
    );
    assert_eq!(text(&k6(dir.path(), hs, &[])).0, "MY SUMMARY\n");
    let plain = "export const options = { iterations: 2 };\nexport default function () {}\n";
    let (o, _) = text(&k6_progress(
        dir.path(),
        plain,
        &["--summary-mode=disabled"],
    ));
    let at = o
        .find("(maxDuration: 10m0s, gracefulStop: 30s)\n\n\nrunning (00m00.")
        .unwrap_or_else(|| panic!("{o:?}"));
    assert!(o[at..].ends_with("s/10m0s  2/2 shared iters\n"), "{o:?}");
    assert!(!o.contains("TOTAL RESULTS"), "{o}");
}

#[test]
fn system_env_vars_flags_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { iterations: 1 };\n\
                  export default function () { console.log(`env ${__ENV.LOADLAB_T_ENV} ${__ENV.X}`); }\n";
    let path = dir.path().join("script.js");
    std::fs::write(&path, script).unwrap();
    for (flags, want) in [
        (&[][..], "env yes 1"),
        (&["--include-system-env-vars"][..], "env yes 1"),
        (&["--include-system-env-vars=false"][..], "env undefined 1"),
        (&["--no-system-env-vars"][..], "env undefined 1"),
    ] {
        let out = Command::new(bin())
            .args(["k6", "run", "-q", "-e", "X=1"])
            .args(flags)
            .arg(&path)
            .env("LOADLAB_T_ENV", "yes")
            .output_bounded()
            .unwrap();
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {stdout}\n{stderr}");
        assert!(stderr.contains(want), "{flags:?}: {stderr}");
    }
}

#[test]
fn csv_output_flag_and_its_bad_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let script = "export const options = { iterations: 1 };\nexport default function () {}\n";
    let csv = dir.path().join("out.csv");
    let out = k6(
        dir.path(),
        script,
        &["--out", &format!("csv={}", csv.display())],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let written = std::fs::read_to_string(&csv).unwrap();
    assert!(
        written.starts_with("metric_name,timestamp,metric_value,check,"),
        "{written}"
    );
    assert!(written.contains("\niterations,"), "{written}");
    let out = k6(
        dir.path(),
        script,
        &["--out", "csv=fileName=a.csv,colour=red"],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("unknown key \"colour\" as argument for csv output"),
        "{stderr}"
    );
    let out = k6(
        dir.path(),
        script,
        &["--out", "influxdb=http://127.0.0.1:1"],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("json=FILE and csv=FILE") && stderr.contains("experimental-prometheus-rw"),
        "{stderr}"
    );
}

/// k6/ws through the command: the summary's `WEBSOCKET` section after
/// `NETWORK`, as k6 v1.8.1 lays it out; and k6's warning when no iteration
/// ended (the one session outlives the scenario).
#[test]
fn websocket_summary_section_and_the_no_iteration_warning_as_k6() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let s = rt.block_on(loadlab_testkit::ws::start());
    let dir = tempfile::tempdir().unwrap();
    let ws = format!("WS=ws://{}", s.addr);
    let out = k6(
        dir.path(),
        "import ws from 'k6/ws';\n\
         export const options = { iterations: 1 };\n\
         export default function () {\n\
           let n = 0;\n\
           ws.connect(`${__ENV.WS}/push/2`, (s) => { s.on('message', () => { if (++n === 2) s.close(); }); });\n\
         }\n",
        &["-e", &ws],
    );
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let net = stdout.find("    NETWORK\n").expect(&stdout);
    let wsec = stdout.find("    WEBSOCKET\n").expect(&stdout);
    assert!(net < wsec, "{stdout}");
    let rows: Vec<&str> = stdout[wsec..]
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split('.').next().unwrap().trim())
        .collect();
    assert_eq!(
        rows,
        [
            "ws_connecting",
            "ws_msgs_received",
            "ws_session_duration",
            "ws_sessions"
        ],
        "{stdout}"
    );
    assert!(!stderr.contains("No script iterations"), "{stderr}");

    let out = k6(
        dir.path(),
        "import ws from 'k6/ws';\n\
         export const options = { scenarios: { s: { executor: 'constant-vus', vus: 1, duration: '1s', gracefulStop: '0s' } } };\n\
         export default function () { ws.connect(`${__ENV.WS}/echo`, () => {}); }\n",
        &["-e", &ws],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "level=warning msg=\"No script iterations fully finished, consider making the test duration longer\""
        ),
        "{stderr}"
    );
}

/// Timers an iteration leaves behind (an exception, the end of the test)
/// get k6's warning, with k6's ids (counted from 1 in each VU), before the
/// exception's line; the next iteration runs none of them.
#[test]
fn timers_left_by_an_interrupted_iteration_are_warned_about_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let out = k6(
        dir.path(),
        r#"
import { sleep } from 'k6';
export const options = { iterations: 2, vus: 1 };
export default function () {
  const i = __ITER;
  setTimeout(() => { console.log(`late ${i}`); }, 300);
  if (__ITER == 0) {
    setInterval(() => {}, 1000);
    throw 'just error';
  } else {
    sleep(0.5);
  }
}
"#,
        &[],
    );
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("was stopped") || l.contains("just error") || l.contains("late"))
        .collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(
        lines[0].contains(
            r#"level=warning msg="setTimeout 1 was stopped because the VU iteration was interrupted""#
        ),
        "{stderr}"
    );
    assert!(
        lines[1].contains("setInterval 2 was stopped because the VU iteration was interrupted"),
        "{stderr}"
    );
    assert!(lines[2].contains("just error"), "{stderr}");
    // The second iteration's own timeout (id 3) runs, in its iteration.
    assert!(lines[3].contains("late 1"), "{stderr}");
}
