//! `attack -dashboard` and `-dashboard-export`: the real binary against an
//! in-process origin, the page read by headless Chromium over DevTools.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

use loadlab_testkit::browser::chromium_or_skip;
use loadlab_testkit::cdp::Browser;
use loadlab_testkit::proc::{PATIENCE, Watch, text, wait_bounded};
use serde_json::Value;

use super::dashboard_kit::{
    assert_matches, attack, bin, keep_screenshot, origin, page_url, report, shown,
};

#[test]
fn the_live_page_follows_the_run_and_its_stop_button_ends_it() {
    let Some(exe) = chromium_or_skip("the_live_page_follows_the_run_and_its_stop_button_ends_it")
    else {
        return;
    };
    let mut b = Browser::launch(exe, &[]);
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let out = format!("-output={}", results.display());
    let (child, w) = attack(
        dir.path(),
        &o,
        &["-rate=100", "-duration=60s", "-dashboard", &out],
    );
    let url = page_url(&w);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let tab = b.open(&url, 1300, 1100);
    // Two seconds' points arrive live, and a second sent at the intended
    // rate shows as such (on a busy machine a second may send late, and the
    // next catch up: the run is long enough for one on time).
    b.wait_for(
        &tab,
        "two live points, the last at the intended rate",
        "+document.body.dataset.points >= 2 && \
         Math.abs(+document.getElementById('sent').dataset.value - 100) <= 10",
    );
    let live = shown(&mut b, &tab);
    assert_eq!(live["state"], "running", "{live}");
    assert!(
        live["p99"].as_f64().unwrap() >= 5.0,
        "the origin answers in 5ms: {live}"
    );
    keep_screenshot(&b.screenshot(&tab), "DASHBOARD_SCREENSHOT");
    b.eval(&tab, "document.getElementById('stop').click()");
    b.wait_for(
        &tab,
        "the end of the run",
        "document.body.dataset.state === 'finished'",
    );
    let page = shown(&mut b, &tab);
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert!(status.success(), "{err}");
    let rep = report(&results);
    let n = rep["requests"].as_u64().unwrap();
    assert!(n > 0 && n < 6000, "{rep}");
    assert!(
        err.contains(&format!(
            "stopped from the dashboard; {n} requests recorded"
        )),
        "{err}"
    );
    assert_matches(&page, &rep);
}

#[test]
fn the_page_ends_with_the_reports_figures() {
    let Some(exe) = chromium_or_skip("the_page_ends_with_the_reports_figures") else {
        return;
    };
    let mut b = Browser::launch(exe, &[]);
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let out = format!("-output={}", results.display());
    let (child, w) = attack(
        dir.path(),
        &o,
        // Long enough for the browser to be there before the end, even
        // on a busy machine (the end is what this test reads).
        &["-rate=50", "-duration=6s", "-dashboard", &out],
    );
    let tab = b.open(&page_url(&w), 1000, 800);
    b.wait_for(
        &tab,
        "the end of the run",
        "document.body.dataset.state === 'finished'",
    );
    let page = shown(&mut b, &tab);
    let status = wait_bounded(child, PATIENCE).status;
    assert!(status.success(), "{}", w.so_far());
    assert_matches(&page, &report(&results));
    assert_eq!(page["requests"].as_u64(), Some(300), "{page}");
}

#[test]
fn a_hundred_clients_coming_and_going_leave_the_run_alone() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let out = format!("-output={}", results.display());
    let (child, w) = attack(
        dir.path(),
        &o,
        &[
            "-rate=200",
            "-max-requests=600",
            "-duration=20s",
            "-dashboard",
            &out,
        ],
    );
    let url = page_url(&w);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let mut kept = Vec::new();
    for i in 0..100 {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        // The hello event is the signal the stream is open.
        let mut buf = [0u8; 256];
        let n = s.read(&mut buf).unwrap();
        assert!(
            text(&buf[..n]).contains("text/event-stream"),
            "{}",
            text(&buf[..n])
        );
        // Half go away at once, half stay and vanish mid-run, unread.
        if i % 2 == 0 {
            drop(s);
        } else {
            kept.push(s);
        }
    }
    drop(kept);
    let status = wait_bounded(child, PATIENCE).status;
    assert!(status.success(), "{}", w.so_far());
    let rep = report(&results);
    assert_eq!(rep["requests"].as_u64(), Some(600), "{rep}");
    assert_eq!(rep["success"].as_f64(), Some(1.0), "{rep}");
}

#[test]
fn the_export_opens_offline_with_the_same_figures() {
    let Some(exe) = chromium_or_skip("the_export_opens_offline_with_the_same_figures") else {
        return;
    };
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let html = dir.path().join("run.html");
    let (out, exp) = (
        format!("-output={}", results.display()),
        format!("-dashboard-export={}", html.display()),
    );
    // A credential header and a named attack: the name shows, the secret never.
    let (child, w) = attack(
        dir.path(),
        &o,
        &[
            "-rate=100",
            "-duration=2s",
            "-name=nightly",
            "-header=Authorization: Bearer s3cret-value",
            "-header=X-Api-Key: k3y-value",
            &out,
            &exp,
        ],
    );
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert!(status.success(), "{err}");
    assert!(
        !err.contains("dashboard on"),
        "no server without -dashboard: {err}"
    );
    let page_src = std::fs::read_to_string(&html).unwrap();
    assert!(page_src.contains("nightly"));
    assert!(
        !page_src.contains("s3cret-value") && !page_src.contains("k3y-value"),
        "a credential reached the page"
    );
    assert!(!page_src.contains("<script src") && !page_src.contains("<link"));
    // No network: every request goes to a proxy that is not there.
    let mut b = Browser::launch(exe, &["--proxy-server=127.0.0.1:9"]);
    let tab = b.open(&format!("file://{}", html.display()), 1300, 1100);
    b.wait_for(
        &tab,
        "the figures",
        "document.body.dataset.state === 'finished'",
    );
    let page = shown(&mut b, &tab);
    assert_matches(&page, &report(&results));
    // One point a second, the last one the part-second at the end.
    let points = page["points"].as_u64().unwrap();
    assert!((2..=4).contains(&points), "{page}");
    keep_screenshot(&b.screenshot(&tab), "DASHBOARD_EXPORT_SCREENSHOT");
}

#[test]
fn a_busy_port_is_named_and_the_run_does_not_start() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("r.bin");
    let out = format!("-output={}", results.display());
    let dash = format!("-dashboard=127.0.0.1:{port}");
    let (child, w) = attack(dir.path(), &o, &["-rate=100", "-duration=2s", &dash, &out]);
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(&format!("127.0.0.1:{port}")) && err.contains("in use"),
        "{err}"
    );
    assert!(
        !results.exists(),
        "no results file for a run that did not start"
    );
    assert_eq!(loadlab_testkit::proc::origin_requests(o.addr), 0);

    // Every interface without a token: refused, by name.
    let (child, w) = attack(
        dir.path(),
        &o,
        &["-rate=100", "-duration=2s", "-dashboard=:0", &out],
    );
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(err.contains("without a token"), "{err}");
}

#[test]
fn a_token_guards_a_non_loopback_dashboard() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let (child, w) = attack(
        dir.path(),
        &o,
        &[
            "-rate=50",
            "-max-requests=100",
            "-duration=20s",
            "-dashboard=0.0.0.0:0",
            "-dashboard-token=s3cret",
            "-output=/dev/null",
        ],
    );
    let url = page_url(&w);
    assert!(!url.contains("s3cret"), "the token is not printed: {url}");
    let addr = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let get = |path: &str| {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
        )
        .unwrap();
        let mut buf = [0u8; 64];
        let n = s.read(&mut buf).unwrap();
        text(&buf[..n])
    };
    assert!(get("/").starts_with("HTTP/1.1 401"), "{}", get("/"));
    assert!(get("/?token=wrong").starts_with("HTTP/1.1 401"));
    assert!(get("/?token=s3cret").starts_with("HTTP/1.1 200"));
    let status = wait_bounded(child, PATIENCE).status;
    assert!(status.success(), "{}", w.so_far());
}

#[test]
fn a_k6_scripts_page_shows_its_vus_and_a_threshold_failing() {
    let Some(exe) = chromium_or_skip("a_k6_scripts_page_shows_its_vus_and_a_threshold_failing")
    else {
        return;
    };
    let mut b = Browser::launch(exe, &[]);
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.js");
    std::fs::write(
        &script,
        r#"import http from 'k6/http';
import { check, sleep } from 'k6';
import { Trend } from 'k6/metrics';
const mine = new Trend('my_trend', true);
export const options = {
  vus: 3, duration: '60s',
  thresholds: { http_req_duration: ['p(95)<1'], checks: ['rate>0.5'] },
};
export default function () {
  const r = http.get(__ENV.URL);
  check(r, { 'is 200': (r) => r.status === 200 });
  mine.add(r.timings.duration);
  sleep(0.05);
}
"#,
    )
    .unwrap();
    let summary = dir.path().join("summary.json");
    let html = dir.path().join("k6.html");
    let mut child = Command::new(bin())
        .args(["k6", "run", "-q", "--out", "web-dashboard=port=0"])
        .arg(format!("--summary-export={}", summary.display()))
        .args(["-e", &format!("URL={}/", o.url())])
        .arg(&script)
        .env("K6_WEB_DASHBOARD_EXPORT", &html)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let w = Watch::stderr(&mut child);
    let tab = b.open(&page_url(&w), 1300, 1100);
    // Live: the VUs, and the latency threshold failed (the origin answers in 5ms).
    b.wait_for(
        &tab,
        "3 VUs and a failed threshold",
        "document.getElementById('vus').dataset.value === '3' && \
         document.querySelector('#thresholds tr[data-metric=\"http_req_duration\"][data-ok=\"false\"]')",
    );
    let passing = b.eval(
        &tab,
        "document.querySelector('#thresholds tr[data-metric=\"checks\"]').dataset.ok",
    );
    assert_eq!(passing, "true");
    keep_screenshot(&b.screenshot(&tab), "DASHBOARD_K6_SCREENSHOT");
    // Stop ends the script run as Ctrl-C does: teardown, summary, files.
    b.eval(&tab, "document.getElementById('stop').click()");
    b.wait_for(
        &tab,
        "the end of the run",
        "document.body.dataset.state === 'finished'",
    );
    let iterations = b.eval(&tab, "+document.getElementById('iterations').dataset.value");
    let status = wait_bounded(child, PATIENCE).status;
    // k6's exit code for crossed thresholds.
    assert_eq!(status.code(), Some(99), "{}", w.so_far());
    let s: Value = serde_json::from_str(&std::fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(iterations, s["metrics"]["iterations"]["count"], "{s}");
    assert!(iterations.as_u64().unwrap() > 0);
    // The export: the same page, offline.
    let mut b2 = Browser::launch(exe, &["--proxy-server=127.0.0.1:9"]);
    let tab = b2.open(&format!("file://{}", html.display()), 1300, 1100);
    b2.wait_for(
        &tab,
        "the figures",
        "document.body.dataset.state === 'finished'",
    );
    assert_eq!(
        b2.eval(&tab, "+document.getElementById('iterations').dataset.value"),
        iterations
    );
    assert_eq!(b2.eval(&tab, "document.body.dataset.thresholdsFailed"), "1");
}

#[test]
fn a_studys_page_shows_its_ladder_of_runs() {
    let Some(exe) = chromium_or_skip("a_studys_page_shows_its_ladder_of_runs") else {
        return;
    };
    let mut b = Browser::launch(exe, &[]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("plan.yaml"),
        r#"
name: ladder
origin:
  recipes:
    - {route: /a, body: "hello a", stages: [{at: 0, status: 200, latency: 2ms}]}
targets:
  - {name: a, url: "{origin}/a"}
load: {rates: [50, 100, 200], step: 2s, warmup: 100ms}
slo: {success: 99%, p99: 1s}
"#,
    )
    .unwrap();
    let mut child = Command::new(bin())
        .current_dir(d)
        .args([
            "study",
            "plan.yaml",
            "--db",
            "s.db",
            "--out",
            "out",
            "--dashboard",
        ])
        .arg("--dashboard-export=study.html")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let w = Watch::stderr(&mut child);
    let tab = b.open(&page_url(&w), 1300, 1100);
    // The ladder grows while the study runs: the first run's row, and the
    // current run named with the time left.
    b.wait_for(&tab, "a finished run", "+document.body.dataset.runs >= 1");
    let current = b.eval(&tab, "document.getElementById('current').textContent");
    assert!(current.as_str().unwrap().contains(" left"), "{current}");
    keep_screenshot(&b.screenshot(&tab), "DASHBOARD_STUDY_SCREENSHOT");
    b.wait_for(
        &tab,
        "the end of the study",
        "document.body.dataset.state === 'finished'",
    );
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert!(status.success(), "{err}");
    // One row per run, at the plan's rates, each with the study's own
    // verdict as its lines print it (a busy machine may miss the SLO: the
    // page must say so as the study does); the ceiling as found.
    let rows = b.eval(
        &tab,
        "[...document.querySelectorAll('#ladder tbody tr')].map(r => [+r.dataset.rate, +r.dataset.achieved, r.cells[9].textContent])",
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 3, "{rows:?}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("[run ")).collect();
    assert_eq!(lines.len(), 3, "{err}");
    for ((row, rate), line) in rows.iter().zip([50.0, 100.0, 200.0]).zip(&lines) {
        assert_eq!(row[0].as_f64(), Some(rate), "{row}");
        assert!(line.contains(&format!(" sweep {rate}/s ")), "{line}");
        assert!(row[1].as_f64().unwrap() > 0.0, "{row}");
        let want = if line.contains("within SLO") {
            "✓"
        } else {
            "✗"
        };
        assert_eq!(row[2], want, "as the study says ({line}): {row}");
    }
    let ceiling = b.eval(
        &tab,
        "document.querySelector('#ceiling tbody tr').textContent",
    );
    let said = err
        .lines()
        .find(|l| l.starts_with("  a  "))
        .unwrap_or_else(|| panic!("no ceiling line: {err}"));
    let found: String = said
        .split_whitespace()
        .find(|w| w.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("no rate in {said:?}"))
        .to_string();
    assert!(
        ceiling.as_str().unwrap().contains(&format!("{found}/s")),
        "{ceiling} vs the study's {said:?}"
    );
    // The export holds the same ladder, offline.
    let mut b2 = Browser::launch(exe, &["--proxy-server=127.0.0.1:9"]);
    let tab = b2.open(
        &format!("file://{}", d.join("study.html").display()),
        1300,
        1100,
    );
    b2.wait_for(
        &tab,
        "the figures",
        "document.body.dataset.state === 'finished'",
    );
    assert_eq!(b2.eval(&tab, "document.body.dataset.runs"), "3");
}
