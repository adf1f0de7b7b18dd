//! A VU whose JavaScript never yields (`while (true) {}`) cannot hang
//! `loadlab k6 run`: it is interrupted at its scenario's graceful stop, at
//! setup()'s timeout and at the first Ctrl-C, as k6 v1 does; side by side
//! with real k6 where it is installed.

use std::path::Path;
use std::process::{Command, Stdio};

use loadlab_testkit::proc::{PATIENCE, Watch, text, wait_bounded};

fn loadlab(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
    c.args(["k6", "run", "-q"]).current_dir(dir);
    c
}

fn k6(dir: &Path, test: &str) -> Option<Command> {
    let k6 = loadlab_testkit::k6::k6_or_skip(test)?;
    let mut c = loadlab_testkit::k6::run_command(&k6);
    c.arg("-q").current_dir(dir);
    Some(c)
}

/// Runs `cmd` on `script` (bounded); its exit code, stdout and stderr.
fn run(mut cmd: Command, script: &Path) -> (i32, String, String) {
    let child = cmd
        .arg(script)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_bounded(child, PATIENCE);
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

fn script(dir: &Path, body: &str) -> std::path::PathBuf {
    let p = dir.join("script.js");
    std::fs::write(&p, body).unwrap();
    p
}

const ENDLESS: &str = "export const options = { scenarios: { s: { executor: 'constant-vus', \
     vus: 2, duration: '1s', gracefulStop: '1s' } } };\n\
     export default function () { while (true) {} }\n\
     export function teardown() { console.log('TEARDOWN RAN'); }\n";

#[test]
fn an_endless_loop_is_interrupted_at_the_graceful_stop_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let p = script(dir.path(), ENDLESS);
    let (code, out, err) = run(loadlab(dir.path()), &p);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("TEARDOWN RAN"), "{err}");
    assert!(err.contains("No script iterations fully finished"), "{err}");
    assert!(out.contains("vus_max"), "the summary is given: {out}");
    if let Some(k6) = k6(
        dir.path(),
        "an_endless_loop_is_interrupted_at_the_graceful_stop_as_k6",
    ) {
        let (kcode, kout, kerr) = run(k6, &p);
        assert_eq!(kcode, code, "k6:\n{kout}\n{kerr}");
        assert!(kerr.contains("TEARDOWN RAN"), "{kerr}");
        assert!(
            kerr.contains("No script iterations fully finished"),
            "{kerr}"
        );
    }
}

#[test]
fn an_endless_setup_ends_at_its_timeout_with_k6s_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let p = script(
        dir.path(),
        "export const options = { vus: 1, iterations: 1, setupTimeout: '1s' };\n\
         export function setup() { while (true) {} }\n\
         export default function () {}\n",
    );
    let (code, out, err) = run(loadlab(dir.path()), &p);
    assert_eq!(code, 100, "{out}\n{err}");
    assert!(err.contains("setup() execution timed out"), "{err}");
    if let Some(k6) = k6(
        dir.path(),
        "an_endless_setup_ends_at_its_timeout_with_k6s_exit_code",
    ) {
        let (kcode, kout, kerr) = run(k6, &p);
        assert_eq!(kcode, code, "k6:\n{kout}\n{kerr}");
    }
}

/// Ctrl-C while VUs spin: k6 interrupts them, runs teardown, prints the
/// summary and exits 105 at once (not at the graceful stop's end).
fn ctrl_c_in_an_endless_loop(cmd: Command, p: &Path) -> (i32, String, String) {
    let mut cmd = cmd;
    let mut child = cmd
        .arg(p)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = Watch::stderr(&mut child);
    err.wait_until("a VU to start its loop", PATIENCE, |s| {
        s.contains("SPINNING")
    });
    let st = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    let o = wait_bounded(child, PATIENCE);
    (o.status.code().unwrap_or(-1), text(&o.stdout), err.finish())
}

#[test]
fn the_first_ctrl_c_interrupts_an_endless_loop_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    // The graceful stop's end is far beyond the test's patience: only the
    // interrupt can end the run in time.
    let p = script(
        dir.path(),
        "export const options = { scenarios: { s: { executor: 'constant-vus', \
         vus: 1, duration: '10m', gracefulStop: '10m' } } };\n\
         export default function () { console.log('SPINNING'); while (true) {} }\n\
         export function teardown() { console.log('TEARDOWN RAN'); }\n",
    );
    let (code, out, err) = ctrl_c_in_an_endless_loop(loadlab(dir.path()), &p);
    assert_eq!(code, 105, "{out}\n{err}");
    assert!(err.contains("TEARDOWN RAN"), "{err}");
    assert!(err.contains("received a 'interrupt' signal"), "{err}");
    assert!(out.contains("TOTAL RESULTS"), "the summary is given: {out}");
    if let Some(k6) = k6(
        dir.path(),
        "the_first_ctrl_c_interrupts_an_endless_loop_as_k6",
    ) {
        let (kcode, kout, kerr) = ctrl_c_in_an_endless_loop(k6, &p);
        assert_eq!(kcode, code, "k6:\n{kout}\n{kerr}");
        assert!(kerr.contains("TEARDOWN RAN"), "{kerr}");
    }
}

/// One VU's long synchronous JavaScript (300 ms a turn) holds the others'
/// 50 ms sleeps: the run says how long VUs waited for the JS thread.
#[test]
fn a_cpu_heavy_vu_is_reported_as_holding_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let p = script(
        dir.path(),
        "import { sleep } from 'k6';\n\
         export const options = { scenarios: {\n\
           busy: { executor: 'per-vu-iterations', vus: 1, iterations: 2, exec: 'busy' },\n\
           sleepy: { executor: 'per-vu-iterations', vus: 3, iterations: 10, exec: 'sleepy' } } };\n\
         export function busy() { const end = Date.now() + 300; while (Date.now() < end) {} sleep(0.01); }\n\
         export function sleepy() { sleep(0.05); }\n",
    );
    let (code, out, err) = run(loadlab(dir.path()), &p);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        err.contains("in all for the JS thread (the longest wait "),
        "{err}"
    );
}
