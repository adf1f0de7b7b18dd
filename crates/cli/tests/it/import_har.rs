//! `loadlab import har`: a visit recorded by headless Chromium (a login
//! that hands out a token a later request must send back) converted to a
//! k6 script that `loadlab k6 run` passes against the same site, and to a
//! targets file `attack` replays; static assets left out or kept;
//! correlated values; bad input.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::Ordering;
use std::time::Duration;

use loadlab_testkit::browser::chromium_or_skip;
use loadlab_testkit::cdp::Browser;
use loadlab_testkit::proc::{text, wait_bounded};
use loadlab_testkit::{har, site};
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

/// Chromium's visit of the site: the page, its assets, the login and the
/// authorized read.
fn record(exe: &str, s: &site::Site) -> Value {
    let mut b = Browser::launch(exe, &[]);
    let tab = b.blank(800, 600);
    har::record(&mut b, &tab);
    b.navigate(&tab, &format!("http://{}/", s.addr));
    b.wait_for(&tab, "the login and /api/me", "document.body.dataset.done");
    let done = b.eval(&tab, "document.body.dataset.done");
    assert_eq!(done, json!("ann"), "the browser's own visit was refused");
    har::finish(&mut b, &tab, "Sign in")
}

#[test]
fn chromium_recording_runs_as_k6_script_and_replays_as_targets() {
    let Some(exe) = chromium_or_skip("import_har::chromium_recording_runs_as_k6_script") else {
        return;
    };
    let s = site::serve();
    let doc = record(exe, &s);
    let urls: Vec<&str> = doc["log"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["request"]["url"].as_str().unwrap())
        .collect();
    for path in [
        "/static/site.css",
        "/static/app.js",
        "/static/logo.png",
        "/login",
        "/api/me",
    ] {
        assert!(
            urls.iter().any(|u| u.contains(path)),
            "{path} not recorded: {urls:?}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("visit.har"), doc.to_string()).unwrap();

    ok(&loadlab(
        dir.path(),
        &["import", "har", "visit.har", "--to", "k6", "-o", "visit.js"],
    ));
    let script = std::fs::read_to_string(dir.path().join("visit.js")).unwrap();
    assert!(script.contains("import http from 'k6/http';"), "{script}");
    assert!(script.contains("group(\"Sign in\""), "{script}");
    assert!(script.contains("res.json(\"session.token\")"), "{script}");
    assert!(script.contains("`Bearer ${token}`"), "{script}");
    assert!(
        !script.contains("/static/"),
        "static assets kept:\n{script}"
    );

    // The site only takes the latest token: the script logs in anew and
    // must send the token it got, not the recorded one.
    let before = s.stats.authorized.load(Ordering::Relaxed);
    let run = loadlab(dir.path(), &["k6", "run", "-q", "visit.js"]);
    ok(&run);
    assert_eq!(s.stats.authorized.load(Ordering::Relaxed), before + 1);
    assert_eq!(s.stats.refused.load(Ordering::Relaxed), 0);

    // A targets file cannot carry a value over: replayed as recorded, to
    // the site taking any token it handed out.
    s.stats.strict.store(false, Ordering::Relaxed);
    ok(&loadlab(
        dir.path(),
        &[
            "import",
            "har",
            "visit.har",
            "--to",
            "targets",
            "-o",
            "visit.txt",
            "--keep-static",
        ],
    ));
    let targets = std::fs::read_to_string(dir.path().join("visit.txt")).unwrap();
    assert!(targets.contains("/static/logo.png"), "{targets}");
    assert!(targets.contains("POST http://"), "{targets}");
    let n = targets
        .lines()
        .filter(|l| l.starts_with("GET ") || l.starts_with("POST "))
        .count();
    let max = format!("-max-requests={}", 2 * n);
    let out = loadlab(
        dir.path(),
        &[
            "attack",
            "-targets=visit.txt",
            "-rate=infinity",
            "-max-workers=1",
            &max,
            "-output=r.bin",
        ],
    );
    ok(&out);
    let rep = ok(&loadlab(dir.path(), &["report", "-type=json", "r.bin"]));
    let rep: Value = serde_json::from_str(&rep).unwrap();
    assert_eq!(rep["requests"], json!(2 * n), "{rep}");
    let codes = rep["status_codes"].as_object().unwrap();
    assert!(codes.keys().all(|c| c.starts_with('2')), "{rep}");
}

fn entry(
    method: &str,
    url: &str,
    mime: &str,
    response: &str,
    headers: Value,
    post: Option<&str>,
) -> Value {
    let mut e = json!({
        "startedDateTime": "2026-03-01T10:00:00.000Z",
        "time": 5,
        "request": { "method": method, "url": url, "headers": headers },
        "response": { "status": 200, "content": { "mimeType": mime, "text": response } },
    });
    if let Some(p) = post {
        e["request"]["postData"] = json!({ "mimeType": "application/json", "text": p });
    }
    e
}

fn write_har(dir: &Path, entries: Vec<Value>) {
    let doc = json!({ "log": { "version": "1.2", "entries": entries } });
    std::fs::write(dir.join("in.har"), doc.to_string()).unwrap();
}

#[test]
fn static_assets_left_out_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let h = json!([{ "name": "Accept", "value": "*/*" }, { "name": ":authority", "value": "x" }, { "name": "Connection", "value": "keep-alive" }]);
    write_har(
        dir.path(),
        vec![
            entry(
                "GET",
                "http://127.0.0.1:9/",
                "text/html",
                "<p>",
                h.clone(),
                None,
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/a.css",
                "text/css",
                "",
                h.clone(),
                None,
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/img?id=1",
                "image/png",
                "",
                h.clone(),
                None,
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/f.woff2?v=2",
                "",
                "",
                h.clone(),
                None,
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/app.js",
                "application/javascript",
                "",
                h.clone(),
                None,
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/api/items",
                "application/json",
                "[]",
                h,
                None,
            ),
        ],
    );
    let t = ok(&loadlab(
        dir.path(),
        &["import", "har", "in.har", "--to", "targets"],
    ));
    let reqs: Vec<&str> = t.lines().filter(|l| l.starts_with("GET ")).collect();
    assert_eq!(
        reqs,
        [
            "GET http://127.0.0.1:9/",
            "GET http://127.0.0.1:9/api/items"
        ],
        "{t}"
    );
    assert!(t.contains("Accept: */*"), "{t}");
    assert!(
        !t.contains(":authority") && !t.contains("Connection"),
        "{t}"
    );
    let kept = ok(&loadlab(
        dir.path(),
        &[
            "import",
            "har",
            "in.har",
            "--to",
            "targets",
            "--keep-static",
        ],
    ));
    assert_eq!(
        kept.lines().filter(|l| l.starts_with("GET ")).count(),
        6,
        "{kept}"
    );
}

#[test]
fn a_value_from_a_response_is_carried_to_later_requests() {
    let dir = tempfile::tempdir().unwrap();
    let none = json!([]);
    write_har(
        dir.path(),
        vec![
            entry(
                "POST",
                "http://127.0.0.1:9/orders",
                "application/json",
                r#"{"data":{"id":"ord-20260301-7781","status":"accepted"},"note":"password"}"#,
                none.clone(),
                Some(r#"{"item":"password"}"#),
            ),
            entry(
                "GET",
                "http://127.0.0.1:9/orders/ord-20260301-7781?fields=status",
                "application/json",
                "{}",
                json!([{ "name": "X-Order", "value": "ord-20260301-7781" }]),
                None,
            ),
        ],
    );
    let script = ok(&loadlab(
        dir.path(),
        &["import", "har", "in.har", "--to", "k6"],
    ));
    assert!(script.contains("id = res.json(\"data.id\");"), "{script}");
    assert!(script.contains("check(id, "), "{script}");
    assert!(
        script.contains("from entry 0 (POST http://127.0.0.1:9/orders), JSON field data.id"),
        "{script}"
    );
    assert!(
        script.contains("`http://127.0.0.1:9/orders/${id}?fields=status`"),
        "{script}"
    );
    assert!(script.contains("\"X-Order\": id,"), "{script}");
    // A word seen in a response and a later request is no token.
    assert!(!script.contains("res.json(\"note\")"), "{script}");
}

#[test]
fn bad_har_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("junk.har"), "<html>not json").unwrap();
    write_har(dir.path(), vec![]);
    for (file, says) in [("junk.har", "not a HAR document"), ("in.har", "no entries")] {
        let o = loadlab(dir.path(), &["import", "har", file, "--to", "k6"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.contains(file) && err.contains(says), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
