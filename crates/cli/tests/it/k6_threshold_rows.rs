//! Metrics a threshold names are in the summary even without a sample
//! (`0   0/s`, `0.00% 0 out of 0`, zero times), as k6 v1.8.1 shows them,
//! and not under `--no-thresholds`; side by side where k6 is installed.

use loadlab_testkit::proc::BoundedOutput;
use std::process::Command;

const SCRIPT: &str = r#"
export const options = {
  scenarios: { a: { executor: 'constant-arrival-rate', rate: 10, timeUnit: '1s', duration: '1s', preAllocatedVUs: 2 } },
  thresholds: { dropped_iterations: ['count<1'], http_req_failed: ['rate<0.1'], http_req_duration: ['p(95)<100'] },
};
export default function () {}
"#;

/// The summary's value columns of metric `name` (dots and spaces between
/// them dropped), or None when it has no row.
fn row(summary: &str, name: &str) -> Option<String> {
    summary.lines().find_map(|l| {
        let l = l.trim_start();
        let rest = l.strip_prefix(name)?.strip_prefix('.')?;
        let (_, values) = rest.split_once(": ")?;
        Some(values.split_whitespace().collect::<Vec<_>>().join(" "))
    })
}

#[test]
fn threshold_metrics_without_samples_are_shown_as_k6_shows_them() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("t.js");
    std::fs::write(&script, SCRIPT).unwrap();
    let k6 = loadlab_testkit::k6::k6_or_skip(
        "threshold_metrics_without_samples_are_shown_as_k6_shows_them",
    );
    let tools = std::iter::once(None).chain(k6.as_deref().map(Some));
    for tool in tools {
        for no_thresholds in [false, true] {
            let mut cmd = match tool {
                Some(k6) => loadlab_testkit::k6::run_command(k6),
                None => {
                    let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
                    c.args(["k6", "run"]);
                    c
                }
            };
            cmd.arg("-q");
            if no_thresholds {
                cmd.arg("--no-thresholds");
            }
            let o = cmd.arg(&script).output_bounded().expect("run");
            let out = String::from_utf8_lossy(&o.stdout);
            let seen = format!("{tool:?} --no-thresholds={no_thresholds}:\n{out}");
            assert_eq!(o.status.code(), Some(0), "{seen}");
            if no_thresholds {
                assert_eq!(row(&out, "dropped_iterations"), None, "{seen}");
                assert_eq!(row(&out, "http_req_failed"), None, "{seen}");
                continue;
            }
            assert_eq!(
                row(&out, "dropped_iterations").as_deref(),
                Some("0 0/s"),
                "{seen}"
            );
            assert_eq!(
                row(&out, "http_req_failed").as_deref(),
                Some("0.00% 0 out of 0"),
                "{seen}"
            );
            assert_eq!(
                row(&out, "http_req_duration").as_deref(),
                Some("avg=0s min=0s med=0s max=0s p(90)=0s p(95)=0s"),
                "{seen}"
            );
        }
    }
}

/// `delayAbortEval`: a threshold that fails from the first iteration
/// aborts the test (exit 99) only once the delay is over, as in k6. The
/// time from setup() to teardown(), which the script measures itself, is
/// at least the delay in both tools; a busy machine can only make it
/// longer.
#[test]
fn delay_abort_eval_holds_an_abort_back_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("d.js"),
        r#"
import { check, sleep } from 'k6';
export const options = {
  vus: 1,
  duration: '60s',
  thresholds: { checks: [{ threshold: 'rate==1', abortOnFail: true, delayAbortEval: '3s' }] },
};
export default function () { check(null, { 'never': () => false }); sleep(0.2); }
export function setup() { return Date.now(); }
export function teardown(start) { console.log(`ran ${Date.now() - start} ms`); }
"#,
    )
    .unwrap();
    for tool in crate::side_by_side::tools("delay_abort_eval_holds_an_abort_back_as_k6") {
        let o = tool
            .command()
            .current_dir(dir.path())
            .args(["-q", "--log-format=raw", "d.js"])
            .output_bounded()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(99), "{}: {err}", tool.name);
        let ran: u64 = err
            .lines()
            .find_map(|l| l.strip_prefix("ran ")?.strip_suffix(" ms")?.parse().ok())
            .unwrap_or_else(|| panic!("{}: {err}", tool.name));
        assert!(ran >= 3000, "{}: aborted after {ran} ms", tool.name);
    }
}
