//! What a k6 user would notice: the figures and layouts of k6 v1.8.1
//! (tests/golden/k6/) on the same scripts, against real loopback servers.

use crate::common;

use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use loadlab_script::{Overrides, RunConfig, RunOutcome, run};

fn run_script(
    dir: &Path,
    src: &str,
    env: Vec<(String, String)>,
    overrides: Overrides,
) -> (RunOutcome, serde_json::Value) {
    // Not quiet: the goldens are k6's output without -q.
    common::run_script_full(dir, src, env, overrides, true, true)
}

/// A raw HTTP/1.1 server on loopback that answers every request with the
/// same bytes and counts every byte it read off its sockets.
struct RawServer {
    addr: SocketAddr,
    read: Arc<AtomicU64>,
}

fn raw_server(response: &'static [u8]) -> RawServer {
    raw_server_with(move |_| response.to_vec())
}

/// [`raw_server`] answering each request (its head, as text) with `answer`.
fn raw_server_with(answer: impl Fn(&str) -> Vec<u8> + Send + Sync + 'static) -> RawServer {
    let answer = Arc::new(answer);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let read = Arc::new(AtomicU64::new(0));
    let counter = read.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let counter = counter.clone();
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                loop {
                    let Some(head) = common::read_request(&mut s, &mut buf, |n| {
                        counter.fetch_add(n as u64, Ordering::SeqCst);
                    }) else {
                        return;
                    };
                    if s.write_all(&answer(&head)).is_err() {
                        return;
                    }
                }
            });
        }
    });
    RawServer { addr, read }
}

fn num(e: &serde_json::Value, metric: &str, field: &str) -> f64 {
    e["metrics"][metric][field]
        .as_f64()
        .unwrap_or_else(|| panic!("no {metric}.{field} in {e}"))
}

/// Item 1: k6 counts the bytes on the wire (status line, header fields and
/// body), both ways; loadlab counted bodies only and estimated data_sent.
#[test]
fn data_sent_and_received_are_the_bytes_on_the_wire() {
    const RESP: &[u8] =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nX-Pad: abcdefghij\r\n\r\nhello";
    let srv = raw_server(RESP);
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
export const options = { vus: 1, iterations: 2 };
export default function () {
  http.get(`${__ENV.BASE}/a`);
  http.get(`${__ENV.BASE}/bb?q=1`, { headers: { 'X-Long': 'x'.repeat(100) } });
  http.post(`${__ENV.BASE}/c`, 'abcdefghijklmnopqrstuvwxyz');
}
"#;
    let (out, e) = run_script(
        dir.path(),
        src,
        vec![("BASE".into(), format!("http://{}", srv.addr))],
        Overrides::default(),
    );
    assert_eq!(out.http_reqs, 6, "{}", out.summary);
    assert_eq!(
        num(&e, "data_received", "count"),
        (6 * RESP.len()) as f64,
        "{}",
        out.summary
    );
    assert_eq!(
        num(&e, "data_sent", "count"),
        srv.read.load(Ordering::SeqCst) as f64,
        "{}",
        out.summary
    );
}

fn golden_dir(case: &str) -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/k6")
        .join(case)
}

fn golden(case: &str, file: &str) -> String {
    std::fs::read_to_string(golden_dir(case).join(file)).unwrap()
}

/// Runs a golden case's script (copied into `dir`) the way make.py ran k6.
fn run_golden(
    dir: &Path,
    case: &str,
    env: Vec<(String, String)>,
) -> (RunOutcome, serde_json::Value) {
    run_golden_with(dir, case, env, Overrides::default())
}

fn run_golden_with(
    dir: &Path,
    case: &str,
    env: Vec<(String, String)>,
    overrides: Overrides,
) -> (RunOutcome, serde_json::Value) {
    let case = match case {
        "checks_groups_full" => "checks_groups",
        "no_thresholds" => "thresholds_fail",
        c => c,
    };
    let src = std::fs::read_dir(golden_dir(case))
        .unwrap()
        .filter_map(|e| e.ok())
        .find(|e| e.path().extension().is_some_and(|x| x == "js"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .unwrap();
    run_script(dir, &src, env, overrides)
}

/// The summary's metric rows: name (dots trimmed) → cells.
fn rows(summary: &str) -> Vec<(String, Vec<String>)> {
    summary
        .lines()
        .filter_map(|l| {
            let (name, rest) = l.split_once(": ")?;
            let name = name.trim().trim_end_matches('.');
            if !name.contains("..") && l.contains("...") {
                Some((
                    name.to_string(),
                    rest.split_whitespace().map(str::to_string).collect(),
                ))
            } else {
                None
            }
        })
        .collect()
}

fn row(summary: &str, name: &str) -> Vec<String> {
    rows(summary)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no row {name:?} in\n{summary}"))
        .1
}

/// Item 2: percentiles of small samples as k6 figures them (linear
/// interpolation between sorted values), in the summary and the export.
#[test]
fn small_sample_percentiles_match_k6() {
    let dir = tempfile::tempdir().unwrap();
    let (out, e) = run_golden(dir.path(), "percentiles", vec![]);
    let k6 = golden("percentiles", "stdout.txt");
    for m in ["my_values", "my_times"] {
        assert_eq!(row(&out.summary, m), row(&k6, m), "{m}\n{}", out.summary);
    }
    let k6e: serde_json::Value =
        serde_json::from_str(&golden("percentiles", "summary-export.json")).unwrap();
    for m in ["my_values", "my_times"] {
        for (stat, v) in k6e["metrics"][m].as_object().unwrap() {
            let ours = num(&e, m, stat);
            assert!(
                (ours - v.as_f64().unwrap()).abs() < 1e-9,
                "{m} {stat}: {ours} vs k6's {v}"
            );
        }
    }
}

const JSON_OK: &[u8] =
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}";

/// The layout of a summary with its figures masked: threshold lines up to
/// their expression, metric rows by label, the last progress lines with
/// their clock's digits masked. `vus`/`vus_max` rows are left out: they
/// exist only when a run lasts a second (k6 samples them each second), and
/// a loaded machine may stretch a short run past it.
fn layout(summary: &str) -> Vec<String> {
    let start = summary.find('█').unwrap_or(0);
    summary[start..]
        .lines()
        .filter(|l| !l.trim_start().starts_with("vus"))
        .map(|l| {
            if let Some(i) = l.find("' ") {
                l[..i + 1].to_string()
            } else if let Some((name, _)) = l.split_once(": ") {
                name.to_string()
            } else if l.starts_with("running (") || l.contains("[ 100% ]") {
                l.chars()
                    .map(|c| if c.is_ascii_digit() { '0' } else { c })
                    .collect()
            } else {
                l.trim_end().to_string()
            }
        })
        .collect()
}

/// Item 3: the summary's layout (thresholds nested under their metric,
/// rows sorted as k6 sorts them, the last progress lines) and the export
/// (integral counts as integers, sub-metrics, groups nested with k6's ids).
#[test]
fn summary_layout_and_export_match_k6() {
    let srv = raw_server(JSON_OK);
    let base = vec![("BASE".into(), format!("http://{}", srv.addr))];
    let dir = tempfile::tempdir().unwrap();
    let (out, e) = run_golden(dir.path(), "custom_metrics", base.clone());
    // k6 was run with --tag run=golden, which makes no row of its own.
    assert_eq!(
        layout(&out.summary),
        layout(&golden("custom_metrics", "stdout.txt")),
        "{}",
        out.summary
    );
    let k6e: serde_json::Value =
        serde_json::from_str(&golden("custom_metrics", "summary-export.json")).unwrap();
    let mut ours: Vec<&String> = e["metrics"].as_object().unwrap().keys().collect();
    let mut theirs: Vec<&String> = k6e["metrics"].as_object().unwrap().keys().collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs);
    assert_eq!(e["metrics"]["my_items"]["count"], serde_json::json!(30));
    assert!(e["metrics"]["my_items"]["count"].is_u64(), "{e}");
    assert!(e["metrics"]["my_depth"]["min"].is_u64(), "{e}");
    assert_eq!(
        e["metrics"]["my_items{kind:apple}"]["thresholds"],
        k6e["metrics"]["my_items{kind:apple}"]["thresholds"]
    );

    let dir = tempfile::tempdir().unwrap();
    let (out, e) = run_golden(dir.path(), "checks_groups", base);
    let k6e: serde_json::Value =
        serde_json::from_str(&golden("checks_groups", "summary-export.json")).unwrap();
    // The same tree, names, paths and ids (every check passes here: the
    // server answers 200 to all).
    fn strip(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(o) => o
                .iter()
                .filter(|(k, _)| *k != "passes" && *k != "fails")
                .map(|(k, v)| (k.clone(), strip(v)))
                .collect(),
            other => other.clone(),
        }
    }
    assert_eq!(strip(&e["root_group"]), strip(&k6e["root_group"]));
    assert_eq!(
        e["root_group"]["groups"]["api"]["checks"]["body says ok"]["passes"],
        6
    );
    let k6 = golden("checks_groups", "stdout.txt");
    let last = |s: &str| layout(s).into_iter().rev().take(2).collect::<Vec<_>>();
    assert_eq!(last(&out.summary), last(&k6), "{}", out.summary);
}

/// Item 4: `handleSummary(data)` gets k6's data object; what it returns is
/// written (files, stdout) and replaces the default summary.
#[test]
fn handle_summary_gets_k6s_data_and_replaces_the_summary() {
    let srv = raw_server(JSON_OK);
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report.json");
    let src = r#"
import http from 'k6/http';
import { check, group } from 'k6';
export const options = { vus: 1, iterations: 2, thresholds: { http_req_duration: ['p(95)<60000'] } };
export default function () {
  group('api', () => {
    const r = http.get(`${__ENV.BASE}/x`);
    check(r, { 'ok': (r) => r.status === 200 });
  });
}
export function handleSummary(data) {
  const m = data.metrics;
  const line = `reqs=${m.http_reqs.values.count} type=${m.http_reqs.type} `
    + `dur=${m.http_req_duration.contains} ok=${m.http_req_duration.thresholds['p(95)<60000'].ok} `
    + `checks=${m.checks.values.passes}/${m.checks.values.rate} `
    + `group=${data.root_group.groups[0].name}:${data.root_group.groups[0].checks[0].name}:${data.root_group.groups[0].checks[0].passes}`;
  return { stdout: line + '\n', [__ENV.REPORT]: JSON.stringify(data) };
}
"#;
    let (out, _) = run_script(
        dir.path(),
        src,
        vec![
            ("BASE".into(), format!("http://{}", srv.addr)),
            ("REPORT".into(), report.display().to_string()),
        ],
        Overrides::default(),
    );
    // Without -q, k6's last progress lines follow what it returned.
    assert!(
        out.summary.starts_with(
            "reqs=2 type=counter dur=time ok=true checks=2/1 group=api:ok:2\n\nrunning (00m00."
        ) && out.summary.ends_with("s/10m0s  2/2 shared iters\n"),
        "{:?}",
        out.summary
    );
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(
        data["root_group"]["groups"][0]["id"],
        "e6550cde192dbabccfbb3b1bac03a92a"
    );
    assert_eq!(data["metrics"]["iterations"]["values"]["count"], 2);
    assert!(data["state"]["testRunDurationMs"].as_f64().unwrap() > 0.0);
}

/// A jslib module loadlab does not answer is a remote import: the error
/// says what to do.
#[test]
fn another_jslib_import_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.js");
    std::fs::write(
        &path,
        "import { totp } from 'https://jslib.k6.io/totp/1.0.0/index.js';\n\
         export default function () { totp(); }\n",
    )
    .unwrap();
    let cfg = RunConfig {
        script: path,
        quiet: true,
        ..Default::default()
    };
    let err = run(cfg, std::future::pending()).unwrap_err().to_string();
    assert!(err.contains("totp"), "{err}");
    assert!(
        err.contains(
            "loadlab answers k6-utils, k6-summary, url, formdata, papaparse, httpx, k6chaijs and expect"
        ),
        "{err}"
    );
    assert!(err.contains("import it by a local path"), "{err}");
}

/// The `Cookie` field of a request head ("" when there is none).
fn cookie_of(head: &str) -> String {
    head.lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case("cookie"))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default()
}

/// A server for cookies: `/set` sets `a=1` (path /) and `b=2` (path /sub);
/// every answer's body is the request's `Cookie` header.
fn cookie_server() -> RawServer {
    raw_server_with(|head| {
        let cookie = cookie_of(head);
        let set = if head.starts_with("GET /set ") {
            "Set-Cookie: a=1; Path=/\r\nSet-Cookie: b=2; Path=/sub; HttpOnly\r\n"
        } else {
            ""
        };
        format!(
            "HTTP/1.1 200 OK\r\n{set}Content-Length: {}\r\n\r\n{cookie}",
            cookie.len()
        )
        .into_bytes()
    })
}

/// The cookie script of item 5: also run with real k6 v1.8.1 against the
/// same server's behaviour, where every check passed.
const COOKIES_JS: &str = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 2, thresholds: { checks: ['rate==1'] } };
const sorted = (s) => s.split('; ').filter((x) => x).sort().join('; ');
export default function () {
  const B = __ENV.BASE;
  const first = http.get(`${B}/echo`);
  const set = http.get(`${B}/set`);
  const again = http.get(`${B}/echo`);
  const sub = http.get(`${B}/sub/echo`);
  const extra = http.get(`${B}/echo`, { cookies: { c: '3' } });
  const replaced = http.get(`${B}/echo`, { cookies: { a: { value: '9', replace: true } } });
  const jar = http.cookieJar();
  jar.set(`${B}/`, 'd', '4');
  // k6 (Go's jar) drops a cookie for another domain silently.
  jar.set(`${B}/`, 'x', '1', { domain: 'other.example' });
  const withD = http.get(`${B}/echo`);
  const forUrl = jar.cookiesForURL(`${B}/sub/x`);
  jar.delete(`${B}/`, 'd');
  const noD = http.get(`${B}/echo`);
  const own = new http.CookieJar();
  own.set(`${B}/`, 'e', '5');
  const viaOwn = http.get(`${B}/echo`, { jar: own });
  jar.clear(`${B}/sub/x`); // k6: the cookies of path /sub only
  const cleared = http.get(`${B}/sub/echo`);
  check(null, {
    'empty at iteration start': () => first.body === '',
    'res.cookies': () => set.cookies.a[0].value === '1' && set.cookies.b[0].path === '/sub'
      && set.cookies.b[0].http_only === true,
    'sent back': () => again.body === 'a=1',
    'by path': () => sorted(sub.body) === 'a=1; b=2',
    'params.cookies added': () => sorted(extra.body) === 'a=1; c=3',
    'params.cookies replace': () => replaced.body === 'a=9',
    'jar.set': () => sorted(withD.body) === 'a=1; d=4',
    'cookiesForURL': () => forUrl.a[0] === '1' && forUrl.b[0] === '2' && forUrl.d[0] === '4',
    'jar.set for another domain dropped': () => forUrl.x === undefined,
    'jar.delete': () => noD.body === 'a=1',
    'own jar': () => viaOwn.body === 'e=5',
    'jar.clear': () => cleared.body === 'a=1',
  });
}
"#;

/// Item 5: a per-VU cookie jar, emptied at each iteration's start, as k6.
#[test]
fn cookies_as_k6_keeps_them() {
    let srv = cookie_server();
    let dir = tempfile::tempdir().unwrap();
    let (out, e) = run_script(
        dir.path(),
        COOKIES_JS,
        vec![("BASE".into(), format!("http://{}", srv.addr))],
        Overrides::default(),
    );
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 24.0, "{}", out.summary);
}

/// Item 6: `res.json(selector)`, gjson's common paths; what real k6 v1.8.1
/// answered for each selector on the same body (`undefined` when absent).
#[test]
fn json_selectors_answer_as_k6() {
    const BODY: &str = "{\"name\": {\"first\": \"Tom\", \"last\": \"Anderson\"}, \"age\": 37, \"children\": [\"Sara\", \"Alex\", \"Jack\"], \"fav.movie\": \"Deer Hunter\", \"friends\": [{\"first\": \"Dale\", \"last\": \"Murphy\", \"age\": 44, \"nets\": [\"ig\", \"fb\", \"tw\"]}, {\"first\": \"Roger\", \"last\": \"Craig\", \"age\": 68, \"nets\": [\"fb\", \"tw\"]}, {\"first\": \"Jane\", \"last\": \"Murphy\", \"age\": 47, \"nets\": [\"ig\", \"tw\"]}], \"messages\": [], \"nothing\": null, \"flag\": true}";
    let resp: &'static [u8] = Box::leak(
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{BODY}",
            BODY.len()
        )
        .into_bytes()
        .into_boxed_slice(),
    );
    let srv = raw_server(resp);
    let dir = tempfile::tempdir().unwrap();
    let src = r##"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const want = {
  "name.last": "\"Anderson\"",
  "age": "37",
  "children": "[\"Sara\",\"Alex\",\"Jack\"]",
  "children.#": "3",
  "children.1": "\"Alex\"",
  "child*.2": "\"Jack\"",
  "c?ildren.0": "\"Sara\"",
  "fav\\.movie": "\"Deer Hunter\"",
  "friends.#.first": "[\"Dale\",\"Roger\",\"Jane\"]",
  "friends.1.last": "\"Craig\"",
  "friends.#.nets": "[[\"ig\",\"fb\",\"tw\"],[\"fb\",\"tw\"],[\"ig\",\"tw\"]]",
  "friends.#.nets.#": "[3,2,2]",
  "messages.#": "0",
  "nothing": "null",
  "flag": "true",
  "missing": "undefined",
  "name.missing": "undefined",
  "friends.5": "undefined",
  "name": "{\"first\":\"Tom\",\"last\":\"Anderson\"}",
  "friends.#(last==\"Murphy\").first": "\"Dale\"",
  "": "undefined",
  "friends.-1": "undefined",
  "age.x": "undefined",
  "children.#.x": "[]"
};
export default function () {
  const r = http.get(__ENV.BASE);
  for (const [sel, shown] of Object.entries(want)) {
    const v = r.json(sel);
    check(v, { [sel]: (v) => (v === undefined ? 'undefined' : JSON.stringify(v)) === shown });
  }
}
"##;
    let (out, e) = run_script(
        dir.path(),
        src,
        vec![("BASE".into(), format!("http://{}/", srv.addr))],
        Overrides::default(),
    );
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 24.0, "{}", out.summary);
}

/// Item 3: `--summary-mode=full`: every http_req_* trend, and k6's section
/// per group (`█ GROUP: api`, `↳ GROUP: nested`) with the checks and
/// requests made directly in it.
#[test]
fn full_summary_has_k6s_group_sections() {
    // As make.py's origin: /err answers 503, the rest 200 JSON.
    let srv = raw_server_with(|head| {
        if head.starts_with("GET /err ") {
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 6\r\n\r\nunused".to_vec()
        } else {
            JSON_OK.to_vec()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_golden_with(
        dir.path(),
        "checks_groups_full",
        vec![("BASE".into(), format!("http://{}", srv.addr))],
        Overrides {
            summary_full: true,
            ..Default::default()
        },
    );
    assert_eq!(
        layout(&out.summary),
        layout(&golden("checks_groups_full", "stdout.txt")),
        "{}",
        out.summary
    );
}

/// `--no-thresholds` drops the THRESHOLDS section but, as in k6, keeps the
/// rows of the sub-metrics the thresholds name.
#[test]
fn no_thresholds_keeps_k6s_submetric_rows() {
    let srv = raw_server_with(|head| {
        if head.starts_with("GET /err ") {
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 6\r\n\r\nunused".to_vec()
        } else {
            JSON_OK.to_vec()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run_golden_with(
        dir.path(),
        "no_thresholds",
        vec![("BASE".into(), format!("http://{}", srv.addr))],
        Overrides {
            no_thresholds: true,
            ..Default::default()
        },
    );
    assert!(!out.thresholds_failed);
    assert_eq!(
        layout(&out.summary),
        layout(&golden("no_thresholds", "stdout.txt")),
        "{}",
        out.summary
    );
}

/// k6's request tags `url`, `name`, `proto` and `error_code` can be
/// filtered on by a threshold, and go with every HTTP point of
/// `--out json`, as in k6: `url` and `name` are the URL unless the script
/// named the request; then both are the name (k6 v1.8.1 does the same).
#[test]
fn url_name_proto_and_error_code_tags_as_in_k6() {
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
const base = 'http://{addr}';
export const options = {{
  vus: 1, iterations: 2,
  thresholds: {{
    'http_reqs{{url:{base}/a?id=1}}': ['count==2'],
    'http_reqs{{name:{base}/a?id=1}}': ['count==2'],
    'http_reqs{{name:named}}': ['count==2'],
    'http_reqs{{url:named}}': ['count==2'],
    'http_req_failed{{proto:HTTP/1.1}}': ['rate>0.3', 'rate<0.4'],
    'http_reqs{{error_code:1404}}': ['count==2'],
    'http_reqs': ['count>0'],
  }},
}};
export default function () {{
  http.get(`${{base}}/a?id=1`);
  http.get(`${{base}}/b?id=2`, {{ tags: {{ name: 'named' }} }});
  http.get(`${{base}}/status/404`);
}}
"#,
        base = format!("http://{addr}")
    );
    let path = dir.path().join("s.js");
    std::fs::write(&path, src).unwrap();
    let points = dir.path().join("points.json");
    let cfg = loadlab_script::RunConfig {
        script: path,
        quiet: true,
        json_out: Some(points.clone()),
        ..Default::default()
    };
    let out = loadlab_script::run(cfg, std::future::pending()).unwrap();
    assert_eq!(out.http_reqs, 6, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
    let text = std::fs::read_to_string(&points).unwrap();
    let reqs: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "Point" && v["metric"] == "http_reqs")
        .collect();
    assert_eq!(reqs.len(), 6);
    // k6's declaration of a metric: its own thresholds, and a sub-metric
    // per tag filter a threshold names, in order.
    let decl = |m: &str| {
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["type"] == "Metric" && v["metric"] == m)
            .unwrap()
    };
    let d = decl("http_reqs");
    assert_eq!(
        d["data"]["thresholds"],
        serde_json::json!(["count>0"]),
        "{d}"
    );
    let subs = d["data"]["submetrics"].as_array().unwrap();
    assert_eq!(subs.len(), 5, "{d}");
    assert_eq!(subs[0]["name"], "http_reqs{error_code:1404}", "{d}");
    assert_eq!(subs[0]["suffix"], "error_code:1404", "{d}");
    assert_eq!(subs[0]["tags"]["error_code"], "1404", "{d}");
    let d = decl("http_req_failed");
    assert_eq!(d["data"]["thresholds"], serde_json::json!([]), "{d}");
    assert_eq!(
        d["data"]["submetrics"][0]["suffix"], "proto:HTTP/1.1",
        "{d}"
    );
    let d = decl("http_req_duration");
    assert_eq!(
        d["data"]["submetrics"][0]["name"], "http_req_duration{expected_response:true}",
        "{d}"
    );
    let d = decl("http_req_waiting");
    assert!(d["data"]["submetrics"].is_null(), "{d}");
    let tags = |i: usize| &reqs[i]["data"]["tags"];
    assert_eq!(tags(0)["url"], format!("http://{addr}/a?id=1"));
    assert_eq!(tags(0)["name"], format!("http://{addr}/a?id=1"));
    assert_eq!(tags(0)["proto"], "HTTP/1.1");
    assert!(tags(0).get("error_code").is_none(), "{}", tags(0));
    assert_eq!(tags(1)["url"], "named");
    assert_eq!(tags(1)["name"], "named");
    assert_eq!(tags(2)["error_code"], "1404");
    assert_eq!(tags(2)["status"], "404");
}

/// A server whose `/r/N` answers 302 to `/r/N-1` (with a `Set-Cookie:
/// hopN=1`) and `/r/0` 200 `final` (its body, the `Cookie` it got).
fn redirect_server() -> RawServer {
    raw_server_with(|head| {
        let path = head.split(' ').nth(1).unwrap_or("/");
        let n: u32 = path
            .strip_prefix("/r/")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        if n > 0 {
            format!(
                "HTTP/1.1 302 Found\r\nLocation: /r/{}\r\nSet-Cookie: hop{n}=1; Path=/\r\nContent-Length: 0\r\n\r\n",
                n - 1
            )
            .into_bytes()
        } else {
            let body = format!("final {path}");
            format!(
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        }
    })
}

/// What real k6 v1.8.1 did with the same requests against a server
/// answering as [`redirect_server`]: each hop is a request of its own
/// (`http_reqs`, its own `url` and `status` tags), `res.url` is the final
/// URL, and a request stopped by its redirect limit answers with the last
/// 3xx (status 302, `error_code` 0, not failed).
const REDIRECTS_JS: &str = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 1 };
export default function () {
  const B = __ENV.BASE;
  const a = http.get(`${B}/r/2`);
  const none = http.get(`${B}/r/2`, { redirects: 0 });
  const one = http.get(`${B}/r/3`, { redirects: 1 });
  const dflt = http.get(`${B}/r/12`);
  const post = http.post(`${B}/r/1`, 'abc');
  const jar = http.cookieJar().cookiesForURL(`${B}/`);
  check(null, {
    'followed: status': () => a.status === 200,
    'followed: url': () => a.url === `${B}/r/0`,
    'followed: body': () => a.body === 'final /r/0',
    'redirects 0: status': () => none.status === 302,
    'redirects 0: url': () => none.url === `${B}/r/2`,
    'redirects 0: error_code': () => none.error_code === 0 && none.error === '',
    'redirects 0: Location': () => none.headers['Location'] === '/r/1',
    'redirects 1: status': () => one.status === 302,
    'redirects 1: url': () => one.url === `${B}/r/2`,
    'redirects 1: error_code': () => one.error_code === 0,
    'default 10: url': () => dflt.status === 302 && dflt.url === `${B}/r/2`,
    'hop cookies stored': () => jar.hop2 !== undefined && jar.hop12 !== undefined,
    'post: 302 turns it into a GET': () => post.status === 200 && post.body === 'final /r/0',
  });
}
"#;

/// Redirects as k6 v1.8.1 handles them (checked with it: see REDIRECTS_JS).
#[test]
fn redirects_are_requests_of_their_own_as_in_k6() {
    let srv = redirect_server();
    let dir = tempfile::tempdir().unwrap();
    let base = format!("http://{}", srv.addr);
    let path = dir.path().join("s.js");
    std::fs::write(&path, REDIRECTS_JS).unwrap();
    let results = dir.path().join("run.lr");
    let export = dir.path().join("export.json");
    let cfg = RunConfig {
        script: path,
        env: vec![("BASE".into(), base.clone())],
        quiet: true,
        results_out: Some(results.clone()),
        summary_export: Some(export.clone()),
        ..Default::default()
    };
    let out = run(cfg, std::future::pending()).unwrap();
    let e: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(export).unwrap()).unwrap();
    let failed: Vec<&String> = e["root_group"]["checks"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, c)| c["fails"].as_u64() != Some(0))
        .map(|(k, _)| k)
        .collect();
    assert!(
        failed.is_empty(),
        "failed checks {failed:?}\n{}",
        out.summary
    );
    // k6: 3 + 1 + 2 + 11 + 2 requests, none failed.
    assert_eq!(out.http_reqs, 19, "{}", out.summary);
    assert_eq!(num(&e, "http_req_failed", "passes"), 0.0, "{}", out.summary);
    // Each hop is a request of its own in the results file (`--out
    // loadlab=FILE`), with its own URL, status and method. (loadlab's `--out json`
    // points carry no `url` tag for an unnamed request: see docs/k6.md.)
    let mut r =
        loadlab_metrics::ResultsReader::new(std::fs::File::open(&results).unwrap(), "run.lr")
            .unwrap();
    let mut hops: Vec<(String, String, String)> = Vec::new();
    while let Some(item) = r.next_item() {
        if let loadlab_metrics::Item::Request(q) = item.unwrap() {
            let url = q.url.strip_prefix(base.as_str()).unwrap_or(&q.url);
            hops.push((
                q.method.to_string(),
                url.to_string(),
                q.sample.status.to_string(),
            ));
        }
    }
    let hop = |m: &str, u: &str, s: &str| (m.to_string(), u.to_string(), s.to_string());
    let mut want = vec![
        hop("GET", "/r/2", "302"),
        hop("GET", "/r/1", "302"),
        hop("GET", "/r/0", "200"),
        hop("GET", "/r/2", "302"),
        hop("GET", "/r/3", "302"),
        hop("GET", "/r/2", "302"),
    ];
    want.extend(
        (2..=12)
            .rev()
            .map(|n| hop("GET", &format!("/r/{n}"), "302")),
    );
    want.push(hop("POST", "/r/1", "302"));
    want.push(hop("GET", "/r/0", "200"));
    assert_eq!(hops, want);
}

#[test]
fn vu_tags_and_url_templates_tag_samples_as_in_k6() {
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
import exec from 'k6/execution';
export const options = {{
  vus: 1, iterations: 3,
  thresholds: {{
    'http_reqs{{vut:x}}': ['count==2'],
    'http_reqs{{vut:y}}': ['count==1'],
    'http_reqs{{name:http://{addr}/x/${{}}}}': ['count==3'],
    'checks{{vut:y}}': ['rate==1'],
    'checks': ['rate==1'],
  }},
}};
export default function () {{
  const i = exec.vu.iterationInScenario;
  exec.vu.tags['vut'] = i < 2 ? 'x' : 'y';
  const u = http.url`http://{addr}/x/${{i}}`;
  const res = http.get(u);
  check(res, {{
    'the URL is the filled template': (r) => r.url === `http://{addr}/x/${{i}}`,
    'the tag reads back': () => exec.vu.tags.vut === (i < 2 ? 'x' : 'y'),
    'the scenario tag is there': () => exec.vu.tags.scenario === 'default',
    'a template is an object': () => typeof u === 'object' && String(u) === '[object Object]',
  }});
  let threw = false;
  try {{ exec.vu.tags.bad = {{ a: 1 }}; }} catch (e) {{ threw = true; }}
  check(threw, {{ 'an object is refused as a tag value': (t) => t }});
}}
"#
    );
    let out = common::run_script_with(dir.path(), &src, vec![], Overrides::default(), false).0;
    assert_eq!(out.http_reqs, 3, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert!(out.summary.contains("{ vut:y }"), "{}", out.summary);
}

#[test]
fn failed_requests_read_as_in_k6() {
    // A port nothing listens on, and a server that answers too late.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let slow = raw_server_with(|_| {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".to_vec()
    });
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{ vus: 1, iterations: 1, thresholds: {{ checks: ['rate==1'] }} }};
const KEYS = 'duration,blocked,looking_up,connecting,tls_handshaking,sending,waiting,receiving';
export default function () {{
  const refused = http.get('http://{closed}/');
  check(refused, {{
    'refused: status 0': (r) => r.status === 0,
    'refused: k6 text': (r) => r.error === 'dial: connection refused',
    'refused: code': (r) => r.error_code === 1212,
    'refused: no body': (r) => r.body === null,
    'refused: k6 timing keys in order': (r) => Object.keys(r.timings).join() === KEYS,
  }});
  const late = http.get('http://{slow}/', {{ timeout: '200ms' }});
  check(late, {{
    'timeout: k6 text': (r) => r.error === 'request timeout',
    'timeout: code': (r) => r.error_code === 1050,
    'timeout: no body': (r) => r.body === null,
  }});
}}
"#,
        slow = slow.addr
    );
    let out = common::run_script_with(dir.path(), &src, vec![], Overrides::default(), false).0;
    assert_eq!(out.http_reqs, 2, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// A login flow: `/login` answers 302 to `/step` setting `sid=abc`, `/step`
/// 302 to `/home` setting `two=2`, and `/home` 200 with the `Cookie` field
/// it got as its body (`cookie=…`).
fn login_server() -> RawServer {
    raw_server_with(|head| {
        let path = head.split(' ').nth(1).unwrap_or("/");
        let redirect = |to: &str, cookie: &str| {
            format!(
                "HTTP/1.1 302 Found\r\nLocation: {to}\r\nSet-Cookie: {cookie}; Path=/\r\nContent-Length: 0\r\n\r\n"
            )
            .into_bytes()
        };
        match path {
            "/login" => redirect("/step", "sid=abc"),
            "/step" => redirect("/home", "two=2"),
            _ => {
                let body = format!("cookie={}", cookie_of(head));
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
                .into_bytes()
            }
        }
    })
}

/// The `Cookie` fields k6 v1.8.1 sent to [`login_server`] for the same
/// requests: a redirect's cookies go with the next hop, and a field is the
/// script's own `Cookie` header, then `params.cookies`, then the jar's
/// (older first).
#[test]
fn cookies_follow_redirects_and_come_in_k6s_order() {
    let srv = login_server();
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const B = __ENV.BASE;
  const login = http.post(`${B}/login`, 'u=1');
  const own = http.get(`${B}/login`, { headers: { Cookie: 'mine=1' } });
  const param = http.get(`${B}/login`, { cookies: { extra: 'x' } });
  const direct = http.get(`${B}/home`, { cookies: { extra: 'x' } });
  const header = http.get(`${B}/home`, { headers: { Cookie: 'mine=1' } });
  const replace = http.get(`${B}/home`, { cookies: { sid: { value: 'new', replace: true } } });
  check(null, {
    'login: the final hop got both redirects\' cookies': () =>
      login.url === `${B}/home` && login.body === 'cookie=sid=abc; two=2',
    'own header: not carried past a redirect': () => own.body === 'cookie=sid=abc; two=2',
    'params.cookies: first, on every hop': () => param.body === 'cookie=extra=x; sid=abc; two=2',
    'params.cookies then the jar, older first': () => direct.body === 'cookie=extra=x; sid=abc; two=2',
    'own header then the jar': () => header.body === 'cookie=mine=1; sid=abc; two=2',
    'replace': () => replace.body === 'cookie=sid=new; two=2',
    // res.request: the first hop as sent (k6's shape).
    'request: method, first URL, body': () => login.request.method === 'POST'
      && login.request.url === `${B}/login` && login.request.body === 'u=1',
    'request: header values as lists': () => header.request.headers.Cookie[0] === 'mine=1; sid=abc; two=2'
      && header.request.headers['User-Agent'].length === 1,
    'request: the cookies sent, by name': () => direct.request.cookies.extra[0].value === 'x'
      && direct.request.cookies.sid[0].value === 'abc' && direct.request.cookies.sid[0].replace === false,
  });
}
"#;
    let (out, _) = run_script(
        dir.path(),
        src,
        vec![("BASE".into(), format!("http://{}", srv.addr))],
        Overrides::default(),
    );
    assert_eq!(out.http_reqs, 12, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// `summaryTimeUnit` (and `--summary-time-unit`): every time in one unit
/// with two decimals; the cells k6 v1.8.1 printed for the same values.
#[test]
fn summary_time_unit_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = |unit: &str| {
        format!(
            r#"
import {{ Trend }} from 'k6/metrics';
const t = new Trend('my_t', true);
const u = new Trend('my_u');
export const options = {{ iterations: 3, summaryTimeUnit: '{unit}' }};
export default function () {{ t.add(1234.5678); t.add(0.0123); u.add(5); }}
"#
        )
    };
    for (unit, want) in [
        (
            "ms",
            "avg=617.29ms min=0.01ms med=617.29ms max=1234.57ms p(90)=1234.57ms p(95)=1234.57ms",
        ),
        (
            "s",
            "avg=0.62s min=0.00s med=0.62s max=1.23s p(90)=1.23s p(95)=1.23s",
        ),
        (
            "us",
            "avg=617290.05µs min=12.30µs med=617290.05µs max=1234567.80µs p(90)=1234567.80µs p(95)=1234567.80µs",
        ),
    ] {
        let (out, e) = run_script(dir.path(), &src(unit), vec![], Overrides::default());
        assert_eq!(row(&out.summary, "my_t").join(" "), want, "{}", out.summary);
        // Not a time: as it was.
        assert_eq!(row(&out.summary, "my_u")[0], "avg=5", "{}", out.summary);
        // The export keeps milliseconds.
        assert_eq!(e["metrics"]["my_t"]["max"], 1234.5678, "{e}");
    }
    let overrides = Overrides {
        summary_time_unit: Some("s".into()),
        ..Default::default()
    };
    let (out, _) = run_script(dir.path(), &src("ms"), vec![], overrides);
    assert!(
        row(&out.summary, "my_t")[0] == "avg=0.62s",
        "{}",
        out.summary
    );
}

/// `k6/data`'s SharedArray and `k6/encoding`'s base64, each value and error
/// text as k6 v1.8.1 gave them for the same calls: the array made once per
/// name (a second constructor's function is not called), its elements
/// through JSON and frozen all the way down, writes refused, init context
/// only; the four alphabets, decoding to an ArrayBuffer or a string, and
/// Go's errors (`GoError`, the byte where decoding stopped, Go's type names).
#[test]
fn shared_array_and_base64_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("users.json"),
        r#"[{"name":"ann","tags":["a","b"]},{"name":"bob","n":2,"when":null}]"#,
    )
    .unwrap();
    let src = r#"
import { SharedArray } from 'k6/data';
import { b64encode, b64decode } from 'k6/encoding';
import encoding from 'k6/encoding';
import { check, fail } from 'k6';
const users = new SharedArray('users', function () { return JSON.parse(open('./users.json')); });
const again = new SharedArray('users', function () { throw new Error('not called again'); });
const odd = new SharedArray('odd', () => [1, 'x', null, new Date(0), { f() {} }]);
export const options = { iterations: 2, vus: 2, thresholds: { checks: ['rate==1'] } };
function t(f) { try { return String(f()); } catch (e) { return 'threw ' + e.name + ': ' + e.message; } }
export default function () {
  check(null, {
    'shared': () => users.length === 2 && users[0].name === 'ann' && users[1].n === 2 && again.length === 2
      && Array.isArray(users) && JSON.stringify(users[0]) === '{"name":"ann","tags":["a","b"]}',
    'through JSON': () => JSON.stringify(odd) === '[1,"x",null,"1970-01-01T00:00:00.000Z",{}]' && odd.length === 5,
    'immutable': () => t(() => { users[0] = 1; }) === 'threw TypeError: SharedArray is immutable'
      && t(() => { users.push(1); }) === 'threw TypeError: SharedArray is immutable',
    'frozen elements': () => t(() => { users[0].name = 'x'; }).startsWith('threw TypeError')
      && t(() => { users[0].tags.push('c'); }).startsWith('threw TypeError') && users[0].tags.length === 2,
    'init context only': () => t(() => new SharedArray('late', () => [])) === 'threw GoError: new SharedArray must be called in the init context',
    'array methods': () => users.map((u) => u.name).join(',') === 'ann,bob' && users.filter((u) => u.n).length === 1 && [...users].length === 2,
    'encode': () => [b64encode('hello, wörld'), b64encode('hi', 'rawstd'), b64encode('\xff\xfe?', 'url'), b64encode('\xff\xfe?', 'rawurl')].join(' ')
      === 'aGVsbG8sIHfDtnJsZA== aGk w7_Dvj8= w7_Dvj8',
    'encode bytes': () => b64encode(new Uint8Array([1, 2, 3]).buffer) === 'AQID' && encoding.b64encode('x') === 'eA=='
      && b64encode(new Uint8Array([250, 251, 252, 253])) === '+vv8/Q==' && b64encode('hi', 'bogus') === 'aGk=',
    'decode': () => b64decode('aGVsbG8=', 'std', 's') === 'hello' && b64decode('aGVsbG8', 'rawstd', 's') === 'hello'
      && b64decode('aGVsbG8=') instanceof ArrayBuffer && b64decode('aGVsbG8=').byteLength === 5,
    'decode errors': () => t(() => b64decode('aGV$bG8=')) === 'threw GoError: illegal base64 data at input byte 3'
      && t(() => b64decode('aGVsbG8', 'std')) === 'threw GoError: illegal base64 data at input byte 4'
      && t(() => b64decode('aGVsbG8=', 'rawstd')) === 'threw GoError: illegal base64 data at input byte 7',
    'type errors': () => t(() => b64encode(5)) === 'threw GoError: invalid type int64, expected string, []byte or ArrayBuffer'
      && t(() => b64encode({})) === 'threw GoError: invalid type map[string]interface {}, expected string, []byte or ArrayBuffer'
      && t(() => b64encode(null)) === 'threw GoError: invalid type <nil>, expected string, []byte or ArrayBuffer',
    'fail': () => t(() => fail('boom')) === 'threw GoError: boom' && t(() => fail()) === 'threw GoError: ',
  });
}
"#;
    let (out, e) = run_script(dir.path(), src, Vec::new(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 24.0, "{}", out.summary);
}

/// `http.expectedStatuses`, `http.setResponseCallback` and
/// `params.responseCallback` decide `expected_response` and
/// `http_req_failed` as in k6 v1.8.1 (the same script there gave these
/// counts): a `null` callback tags nothing and adds no `http_req_failed`
/// sample; a callback not made by `expectedStatuses` is refused with k6's
/// GoError texts.
#[test]
fn response_callbacks_as_k6() {
    // Answers the status its path names: `/404` is a 404.
    let srv = raw_server_with(|head| {
        let code: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|p| p.trim_start_matches('/').parse().ok())
            .unwrap_or(200);
        format!("HTTP/1.1 {code} X\r\nContent-Length: 2\r\n\r\nok").into_bytes()
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
const B = __ENV.BASE;
http.setResponseCallback(http.expectedStatuses(200, { min: 404, max: 405 }));
export const options = { iterations: 1, thresholds: {
  checks: ['rate==1'],
  'http_reqs{expected_response:true}': ['count==3'],
  'http_reqs{expected_response:false}': ['count==2'],
} };
function t(f) { try { f(); return 'ok'; } catch (e) { return 'threw ' + e.name + ': ' + e.message; } }
export default function () {
  http.get(`${B}/200`); http.get(`${B}/404`); http.get(`${B}/500`); http.get(`${B}/302`);
  http.get(`${B}/500`, { responseCallback: http.expectedStatuses(500) });
  http.get(`${B}/500`, { responseCallback: null });
  check(null, {
    'no arguments': () => t(() => http.expectedStatuses()) === 'threw GoError: no arguments',
    'not a status': () => t(() => http.expectedStatuses('x')) ===
      'threw GoError: argument number 1 to expectedStatuses was neither an integer nor an object like {min:100, max:329}',
    'not integers': () => t(() => http.expectedStatuses({ min: 1.5, max: 3 })) ===
      'threw GoError: both min and max need to be integers for argument number 1',
    'not a callback': () => t(() => http.setResponseCallback(() => true)) ===
      'threw GoError: unsupported argument, expected http.expectedStatuses',
  });
  http.setResponseCallback(null);
  http.get(`${B}/500`);
}
"#;
    let env = vec![("BASE".into(), format!("http://{}", srv.addr))];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "http_reqs", "count"), 7.0, "{}", out.summary);
    // Five samples, two of them failures (the 500 and the 302).
    assert_eq!(num(&e, "http_req_failed", "passes"), 2.0, "{e}");
    assert_eq!(num(&e, "http_req_failed", "fails"), 3.0, "{e}");
}

/// `k6/crypto`: every hash, HMACs, hashers that go on after `digest()`,
/// the output encodings and the errors, each as k6 v1.8.1 printed them for
/// the same calls.
#[test]
fn crypto_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import crypto from 'k6/crypto';
import { sha256, hmac, createHash, createHMAC, randomBytes, hexEncode, md4, ripemd160, sha512_224 } from 'k6/crypto';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
function t(f) { try { return String(f()); } catch (e) { return 'threw ' + e.name + ': ' + e.message; } }
export default function () {
  const h = createHash('sha256'); h.update('a'); h.update(new Uint8Array([98]).buffer);
  const d1 = h.digest('hex'); h.update('c');
  const m = createHMAC('sha1', 'k'); m.update('data');
  const bin = sha256('abc', 'binary');
  check(null, {
    'hashes': () => [sha256('abc', 'hex'), crypto.md5('abc', 'base64'), crypto.sha1('abc', 'base64url'), crypto.sha384('', 'base64rawurl')].join(' ') ===
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad kAFQmDzST7DWlj99KOF/cg== qZk-NkcGgWq6PiVxeFDCbJzQ2J0= OLBgp1GsljhM2TJ-sbHjaiH9txEUvgdDTAzHv2P24donTt6_529l-9Ua0vFImLlb',
    'more hashes': () => [md4('abc', 'hex'), ripemd160('abc', 'hex'), sha512_224('abc', 'hex'), crypto.sha512_256('abc', 'hex'), crypto.sha512('a', 'hex').length].join(' ') ===
      'a448017aaf21d8525fc10ae87aa6729d 8eb208f7e05d987a9b044a8e98c6b087f15a0bfc 4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa 53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23 128',
    'hmac': () => hmac('sha256', 'Jefe', 'what do ya want for nothing?', 'hex') === '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843'
      && hmac('md5', new Uint8Array([1, 2]).buffer, 'x', 'base64') === 'Q9Z2uV1dQI8u9u/0jgbkwA==',
    'hasher goes on after digest': () => d1 === 'fb8e20fc2e4c3f248c60c39bd652f3c1347298bb977b8b4d5903b85055620603'
      && h.digest('hex') === 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    'hmac hasher': () => m.digest('hex') === '970dc226f21e3c274024b9a9f5ccbf8fe4acaaa0' && m.digest('base64') === 'lw3CJvIePCdAJLmp9cy/j+SsqqA=',
    'binary': () => bin instanceof ArrayBuffer && bin.byteLength === 32 && hexEncode(bin).slice(0, 8) === 'ba7816bf' && hexEncode('hi') === '6869',
    'random': () => randomBytes(16).byteLength === 16 && t(() => randomBytes(0)) === 'threw GoError: invalid size',
    'errors': () => t(() => sha256('abc', 'bogus')) === 'threw GoError: invalid output encoding: bogus'
      && t(() => createHMAC('sha3', 'k')) === 'threw GoError: invalid algorithm: sha3'
      && t(() => sha256(5, 'hex')) === 'threw GoError: sha256 failed: invalid type int64, expected string, []byte or ArrayBuffer'
      && t(() => hmac('nope', 'k', 'x', 'hex')) === 'threw GoError: invalid algorithm: nope',
  });
}
"#;
    let (out, e) = run_script(dir.path(), src, Vec::new(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 8.0, "{}", out.summary);
}

/// Basic credentials in the URL are sent as k6 (Go) sends them, with or
/// without `auth: 'basic'`; an `auth` loadlab does not know is refused,
/// naming it.
#[test]
fn basic_auth_from_the_url_as_k6() {
    let srv = raw_server_with(|head| {
        let auth = head
            .lines()
            .find_map(|l| l.strip_prefix("Authorization: "))
            .unwrap_or("none")
            .to_string();
        format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{auth}",
            auth.len()
        )
        .into_bytes()
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const u = `http://user:p%40ss@${__ENV.HOST}/`;
  let bearer = '';
  try { http.get(u, { auth: 'bearer' }); } catch (e) { bearer = e.message; }
  check(null, {
    'from the URL': () => http.get(u).body === 'Basic dXNlcjpwQHNz',
    'auth basic': () => http.get(u, { auth: 'basic' }).body === 'Basic dXNlcjpwQHNz',
    'none without': () => http.get(`http://${__ENV.HOST}/`).body === 'none',
    'bearer refused': () => bearer === 'params.auth "bearer" is not supported by loadlab k6; only "basic", "digest" and "ntlm" (see docs/k6.md)',
  });
}
"#;
    let env = vec![("HOST".into(), srv.addr.to_string())];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 4.0, "{}", out.summary);
}

/// `http.file()` in an object body makes it multipart, written byte for
/// byte as k6 v1.8.1 wrote the same bodies (the boundary aside: random in
/// both); an object without files is form-encoded with its keys sorted and
/// an array's values repeated, as k6 (Go's `url.Values`) does.
#[test]
fn multipart_and_form_bodies_as_k6() {
    let (addr, _srv) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
function sent(r) {
  const e = r.json();
  const ct = e.headers['content-type'];
  const b = ct.includes('boundary=') ? ct.split('boundary=')[1] : 'NONE';
  return [ct.replace(b, 'B'), e.body.split(b).join('B').replace(/filename="\d+"/, 'filename="N"')];
}
export default function () {
  const B = `http://${__ENV.HOST}/`;
  const [ct1, b1] = sent(http.post(B, { f: http.file('hello "x"\n', 'a "b".txt', 'text/plain') }));
  const [ct2, b2] = sent(http.post(B, { z: '1', a: ['x', 'y'], m: 'a b&c' }));
  const [ct3, b3] = sent(http.post(B, { f: http.file('raw') }));
  let e = '';
  try { http.file(5); } catch (x) { e = x.name + ': ' + x.message; }
  check(null, {
    'a named file': () => ct1 === 'multipart/form-data; boundary=B'
      && b1 === '--B\r\nContent-Disposition: form-data; name="f"; filename="a \\"b\\".txt"\r\nContent-Type: text/plain\r\n\r\nhello "x"\n\r\n--B--\r\n',
    'a form': () => ct2 === 'application/x-www-form-urlencoded' && b2 === 'a=x&a=y&m=a+b%26c&z=1',
    'defaults': () => b3 === '--B\r\nContent-Disposition: form-data; name="f"; filename="N"\r\nContent-Type: application/octet-stream\r\n\r\nraw\r\n--B--\r\n',
    'bad data': () => e === 'GoError: invalid type int64, expected string or ArrayBuffer',
  });
}
"#;
    let env = vec![("HOST".into(), addr.to_string())];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 4.0, "{}", out.summary);
}

/// Imports of k6's utility library by its URL (any version) are answered
/// by loadlab's own module, without the network: the five functions
/// scripts use most, with the library's documented results.
#[test]
fn k6_utils_from_jslib_without_the_network() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { randomIntBetween, randomItem, randomString, uuidv4, findBetween } from 'https://jslib.k6.io/k6-utils/1.4.0/index.js';
import { randomString as rs } from 'https://jslib.k6.io/k6-utils/1.2.0/index.js';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export default function () {
  const ints = Array.from({ length: 300 }, () => randomIntBetween(1, 3));
  check(null, {
    'ints in range, both ends': () => Math.min(...ints) === 1 && Math.max(...ints) === 3 && ints.every(Number.isInteger),
    'items and strings': () => randomItem(['a']) === 'a' && /^[a-z]{8}$/.test(randomString(8)) && rs(5, 'x') === 'xxxxx',
    'uuids': () => UUID.test(uuidv4()) && UUID.test(uuidv4(true)) && uuidv4() !== uuidv4(),
    'findBetween': () => JSON.stringify([findBetween('<a>1</a><a>2</a>', '<a>', '</a>'), findBetween('<a>1</a><a>2</a>', '<a>', '</a>', true),
      findBetween('x', '<', '>'), findBetween('x', '<', '>', true)]) === '["1",["1","2"],"",[]]',
  });
}
"#;
    let (out, e) = run_script(dir.path(), src, Vec::new(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 4.0, "{}", out.summary);
}

/// As in k6, `__ITER` is defined in iterations only: the init code,
/// `setup()` and `teardown()` get a ReferenceError (`__VU` is 0 in the
/// last two), and `typeof __ITER` is `"undefined"` there (k6 v1.8.1's
/// answers; it used to throw).
#[test]
fn iter_is_defined_in_iterations_only_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import { check } from 'k6';
import { Counter } from 'k6/metrics';
const seen = new Counter('seen');
function iter() { try { return String(__ITER); } catch (e) { return e.name + ': ' + e.message; } }
const atInit = iter() + ' ' + typeof __ITER;
export const options = { iterations: 2, thresholds: { checks: ['rate==1'] } };
export function setup() { return { s: iter(), t: typeof __ITER, vu: __VU }; }
export default function (d) {
  check(d, {
    'not in init': () => atInit === 'ReferenceError: __ITER is not defined undefined',
    'not in setup': (d) => d.s === 'ReferenceError: __ITER is not defined' && d.t === 'undefined' && d.vu === 0,
    'in iterations': () => iter() === String(__ITER) && __ITER >= 0 && typeof __ITER === 'number',
  });
}
export function teardown() {
  if (iter() === 'ReferenceError: __ITER is not defined' && typeof __ITER === 'undefined') seen.add(1);
}
"#;
    let (out, e) = run_script(dir.path(), src, Vec::new(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 6.0, "{}", out.summary);
    assert_eq!(num(&e, "seen", "count"), 1.0, "{}", out.summary);
}

/// A request k6 cannot make (a URL that is not http(s), a bad path escape,
/// a bad method or timeout, a callback `expectedStatuses` did not make) is
/// logged as `Request Failed` and answered with a failed response, the
/// iteration going on, as k6 v1.8.1 did for the same calls (texts and
/// codes); with `throw` it is a GoError. Nothing is sent; as in k6, the
/// ones that fail in Go's transport rather than while being built (no
/// scheme or another than http(s), a bad method) still count as failed
/// requests: 4 `http_reqs` and 3 `http_req_failed` here, as k6 gave.
#[test]
fn requests_k6_cannot_make_fail_without_throwing_as_k6() {
    let srv = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const B = `http://${__ENV.HOST}`;
function t(f) { try { const r = f(); return JSON.stringify([r.status, r.error, r.error_code, r.body]); } catch (e) { return 'threw ' + e.name + ': ' + e.message; } }
export default function () {
  check(null, {
    'no scheme': () => t(() => http.get('not a url')) === '[0,"unsupported protocol scheme \\"\\"",1000,null]',
    'ftp': () => t(() => http.get('ftp://127.0.0.1/')) === '[0,"unsupported protocol scheme \\"ftp\\"",1000,null]',
    'bad escape': () => t(() => http.get(`${B}/%zz`)) === `[0,"invalid URL: parse \\"${B}/%zz\\": invalid URL escape \\"%zz\\"",1020,null]`,
    'timeout': () => t(() => http.get(B, { timeout: 'fast' })) === '[0,"invalid timeout value: time: invalid duration \\"fast\\"",0,null]',
    'method': () => t(() => http.request('BAD METHOD', B)) === '[0,"net/http: invalid method \\"BAD METHOD\\"",1000,null]',
    'callback': () => t(() => http.get(B, { responseCallback: () => 1 })) === '[0,"unsupported responseCallback",0,null]',
    'a good one still goes': () => http.get(`${B}/?q=%zz`).status === 200,
  });
}
"#;
    let env = vec![("HOST".into(), srv.addr.to_string())];
    let (out, e) = run_script(dir.path(), src, env.clone(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 7.0, "{}", out.summary);
    assert_eq!(num(&e, "http_reqs", "count"), 4.0, "{}", out.summary);
    assert_eq!(num(&e, "http_req_failed", "passes"), 3.0, "{}", out.summary);
    // With `throw`, the same request throws k6's GoError.
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, throw: true, thresholds: { checks: ['rate==1'] } };
export default function () {
  let e = '';
  try { http.get('ftp://127.0.0.1/'); } catch (x) { e = x.name + ': ' + x.message; }
  check(e, { 'thrown': (e) => e === 'GoError: Get "ftp://127.0.0.1/": unsupported protocol scheme "ftp"' });
}
"#;
    let (out, _) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// `--out csv=FILE` (also `.gz`, and `timeFormat`): k6's header, a row per
/// point with its tags in k6's columns and the others in `extra_tags`, as
/// k6 v1.8.1 wrote the same script's rows (times and values aside).
#[test]
fn csv_output_as_k6() {
    use std::io::Read;
    let srv = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check, group }} from 'k6';
import {{ Counter }} from 'k6/metrics';
const c = new Counter('my_counter');
export const options = {{ iterations: 1 }};
export default function () {{
  group('g1', () => {{ const r = http.get('http://{addr}/', {{ tags: {{ mine: 'x' }} }}); check(r, {{ 'ok, "quoted"': (r) => r.status === 200 }}); }});
  c.add(2, {{ t: 'v' }});
}}
"#,
        addr = srv.addr
    );
    let path = dir.path().join("s.js");
    std::fs::write(&path, src).unwrap();
    for (arg, gz) in [
        ("points.csv".to_string(), false),
        (
            "fileName=points.csv.gz,timeFormat=unix_milli".to_string(),
            true,
        ),
    ] {
        let mut csv = loadlab_script::out::CsvOut::parse(&arg).unwrap();
        csv.path = dir.path().join(&csv.path);
        let cfg = loadlab_script::RunConfig {
            script: path.clone(),
            quiet: true,
            csv_out: Some(csv.clone()),
            ..Default::default()
        };
        let out = loadlab_script::run(cfg, std::future::pending()).unwrap();
        assert_eq!(out.http_reqs, 1, "{}", out.summary);
        let mut text = String::new();
        let file = std::fs::File::open(&csv.path).unwrap();
        if gz {
            flate2::read::GzDecoder::new(file)
                .read_to_string(&mut text)
                .unwrap();
        } else {
            std::io::BufReader::new(file)
                .read_to_string(&mut text)
                .unwrap();
        }
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata"
        );
        let row = |metric: &str| -> Vec<String> {
            let l = lines
                .iter()
                .find(|l| l.starts_with(&format!("{metric},")))
                .unwrap_or_else(|| panic!("no {metric} row in {text}"));
            let mut cells: Vec<String> = l.split(',').map(str::to_string).collect();
            let ts = cells[1].parse::<u64>().unwrap();
            // Seconds, or milliseconds with timeFormat=unix_milli.
            assert!(
                if gz {
                    ts > 1_000_000_000_000
                } else {
                    ts < 10_000_000_000
                },
                "{l}"
            );
            cells[1] = "T".into();
            cells
        };
        let url = format!("http://{}/", srv.addr);
        assert_eq!(
            row("http_reqs").join(","),
            format!(
                "http_reqs,T,1.000000,,,,true,::g1,GET,{url},HTTP/1.1,default,,200,,,{url},mine=x,"
            )
        );
        assert_eq!(
            row("my_counter").join(","),
            "my_counter,T,2.000000,,,,,,,,,default,,,,,,t=v,"
        );
        // A field with a comma or a quote is quoted, as Go's encoding/csv.
        assert!(text.contains(",\"ok, \"\"quoted\"\"\","), "{text}");
    }
}

/// `exec.test.options` is the test's options as k6 v1.8.1 shows them
/// (byte for byte for this script): every option in k6's order, `null`
/// where unset, each scenario in its executor's shape, durations in Go's
/// form. (The shortcut options' `default` scenario: unit tests in
/// test_options.rs.)
#[test]
fn exec_test_options_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const same = new Counter('same');
export const options = { scenarios: {
  a: { executor: 'shared-iterations', vus: 1, iterations: 1 },
  b: { executor: 'per-vu-iterations', vus: 1, iterations: 1, startTime: '0s', tags: { x: 'y' }, env: { E: '1' }, exec: 'default', gracefulStop: '1s' },
  c: { executor: 'constant-vus', vus: 1, duration: '1s' },
  d: { executor: 'ramping-vus', stages: [{ duration: '1s', target: 1 }] },
  e: { executor: 'constant-arrival-rate', rate: 1, duration: '1s', preAllocatedVUs: 1 },
  f: { executor: 'ramping-arrival-rate', preAllocatedVUs: 1, stages: [{ duration: '1s', target: 1 }] },
}, minIterationDuration: '300ms', setupTimeout: '10s', maxRedirects: 3, userAgent: 'u', noConnectionReuse: true };
export default function () {
  if (exec.scenario.name === 'a' && JSON.stringify(exec.test.options) === __ENV.WANT) same.add(1);
}
"#;
    let want = r#"{"paused":null,"scenarios":{"a":{"executor":"shared-iterations","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":1,"iterations":1,"maxDuration":null},"b":{"executor":"per-vu-iterations","startTime":"0s","gracefulStop":"1s","env":{"E":"1"},"exec":"default","tags":{"x":"y"},"vus":1,"iterations":1,"maxDuration":null},"c":{"executor":"constant-vus","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":1,"duration":"1s"},"d":{"executor":"ramping-vus","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"startVUs":null,"stages":[{"duration":"1s","target":1}],"gracefulRampDown":null},"e":{"executor":"constant-arrival-rate","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"rate":1,"timeUnit":null,"duration":"1s","preAllocatedVUs":1,"maxVUs":null},"f":{"executor":"ramping-arrival-rate","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"startRate":null,"timeUnit":null,"stages":[{"duration":"1s","target":1}],"preAllocatedVUs":1,"maxVUs":null}},"executionSegment":null,"executionSegmentSequence":null,"noSetup":null,"setupTimeout":"10s","noTeardown":null,"teardownTimeout":null,"rps":null,"dns":{"ttl":null,"select":null,"policy":null},"maxRedirects":3,"userAgent":"u","batch":null,"batchPerHost":null,"httpDebug":null,"insecureSkipTLSVerify":null,"tlsCipherSuites":null,"tlsVersion":null,"tlsAuth":null,"throw":null,"thresholds":null,"blacklistIPs":null,"blockHostnames":null,"hosts":null,"noConnectionReuse":true,"noVUConnectionReuse":null,"minIterationDuration":"300ms","ext":null,"summaryTrendStats":["avg","min","med","max","p(90)","p(95)"],"summaryTimeUnit":null,"systemTags":["check","error","error_code","expected_response","group","method","name","proto","scenario","service","status","subproto","tls_version","url"],"tags":null,"metricSamplesBufferSize":null,"noCookiesReset":null,"discardResponseBodies":null,"consoleOutput":null,"localIPs":null}"#;
    let env = vec![("WANT".into(), want.to_string())];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert_eq!(num(&e, "same", "count"), 1.0, "{}", out.summary);
}

/// The flags over the script's options, as k6 v1.8.1 layers them (the
/// scenarios and tags below are k6's, byte for byte, for the same script
/// and flags): `-i` replaces the script's `duration` (and `scenarios`),
/// `-u` its `vus`, and `--tag` its `tags`, in `exec.test.options` and on
/// the samples (no `a:b` tag left on any).
#[test]
fn flags_over_the_scripts_options_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
const same = new Counter('same');
export const options = { vus: 1, duration: '1s', tags: { a: 'b' },
  thresholds: { 'iterations{a:b}': ['count==0'], 'iterations{x:y}': ['count==4'] } };
export default function () {
  const o = exec.test.options;
  if (JSON.stringify(o.scenarios) === __ENV.SCEN && JSON.stringify(o.tags) === '{"x":"y"}') same.add(1);
}
"#;
    let scen = r#"{"default":{"executor":"shared-iterations","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":2,"iterations":4,"maxDuration":null}}"#;
    let flags = Overrides {
        vus: Some(2),
        iterations: Some(4),
        tags: vec![("x".into(), "y".into())],
        ..Default::default()
    };
    let (out, e) = run_script(dir.path(), src, vec![("SCEN".into(), scen.into())], flags);
    assert_eq!(num(&e, "same", "count"), 4.0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// `res.cookies` as k6 v1.8.1 gave them for the same three `Set-Cookie`
/// fields: attributes as sent, `expires` in ms from the `Expires`
/// attribute only, and Go's zero time as k6 converts it without one.
#[test]
fn response_cookies_as_k6() {
    let srv = raw_server(
        b"HTTP/1.1 200 OK\r\nSet-Cookie: s=1; Path=/\r\n\
          Set-Cookie: p=2; Max-Age=60; Domain=127.0.0.1; HttpOnly; Secure\r\n\
          Set-Cookie: e=3; Expires=Wed, 21 Oct 2099 07:28:00 GMT\r\nContent-Length: 2\r\n\r\nok",
    );
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const r = http.get(`http://${__ENV.HOST}/`);
  const c = r.cookies;
  check(null, {
    'session': () => JSON.stringify(c.s) === '[{"name":"s","value":"1","domain":"","path":"/","http_only":false,"secure":false,"max_age":0,"expires":-6795364578871}]',
    'max-age': () => JSON.stringify(c.p) === '[{"name":"p","value":"2","domain":"127.0.0.1","path":"","http_only":true,"secure":true,"max_age":60,"expires":-6795364578871}]',
    'expires': () => JSON.stringify(c.e) === '[{"name":"e","value":"3","domain":"","path":"","http_only":false,"secure":false,"max_age":0,"expires":4096250880000}]',
  });
}
"#;
    let env = vec![("HOST".into(), srv.addr.to_string())];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 3.0, "{}", out.summary);
}

/// `k6/html`: parseHTML and the Selection and Element methods, each value
/// as k6 v1.8.1 printed it for the same script (tests/scripts/html.k6.js,
/// which passes all its checks on k6 too).
#[test]
fn html_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = include_str!("../scripts/html.k6.js");
    let (out, e) = run_script(dir.path(), src, Vec::new(), Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 57.0, "{}", out.summary);
}

/// `res.html(selector)`: the body parsed (text or binary), the Selection's
/// `url` the response's, and k6's GoError when there is no body.
#[test]
fn html_of_responses_as_k6() {
    let srv = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 240\r\n\r\n\
<html><head><title>Shop</title></head><body>\n\
<a href=\"/a?x=1\" class=\"nav\">A</a><a href=\"b.html\" class=\"nav\">B</a>\n\
<form action=\"/login\" method=\"post\"><input type=\"hidden\" name=\"csrf\" value=\"tok123\"><input name=\"user\"></form>\n\
</body></html>\n",
    );
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let refused = format!("http://{}/", closed.local_addr().unwrap());
    drop(closed);
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
function t(f) { try { return JSON.stringify(f()); } catch (e) { return 'threw ' + e.name + ': ' + e.message; } }
const NO_BODY = "threw GoError: the body is null so we can't transform it to HTML - this likely was because of a request error getting the response";
export default function () {
  const res = http.get(__ENV.URL);
  const bin = http.get(__ENV.URL, { responseType: 'binary' });
  const none = http.get(__ENV.URL, { responseType: 'none' });
  const bad = http.get(__ENV.REFUSED);
  check(res, {
    'title': (r) => r.html().find('title').text() === 'Shop',
    'url': (r) => r.html().url === __ENV.URL && JSON.stringify(r.html('a')) === JSON.stringify({ url: __ENV.URL }),
    'selector': (r) => r.html('input[name=csrf]').val() === 'tok123',
    'map': (r) => t(() => r.html('a.nav').map((i, s) => s.attr('href'))) === '["/a?x=1","b.html"]',
    'form': (r) => r.html().find('form').serialize() === 'csrf=tok123&user=',
    'binary body': () => bin.html('title').text() === 'Shop',
    'no body': () => t(() => none.html()) === NO_BODY && t(() => bad.html('a')) === NO_BODY,
    // As k6: URL attributes made absolute by the response's URL.
    'urls': (r) => t(() => r.html('a').get(0).href()) === JSON.stringify(__ENV.BASE + '/a?x=1')
      && t(() => r.html('a').get(1).href()) === JSON.stringify(__ENV.BASE + '/b.html')
      && t(() => r.html('form').get(0).action()) === JSON.stringify(__ENV.BASE + '/login')
      && t(() => r.html('form').get(0).method()) === '"post"',
  });
}
"#;
    let env = vec![
        ("URL".to_string(), format!("http://{}/page.html", srv.addr)),
        ("BASE".to_string(), format!("http://{}", srv.addr)),
        ("REFUSED".to_string(), refused),
    ];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 8.0, "{}", out.summary);
}

/// `http.asyncRequest`, as k6 v1.8.1 answers this script: a promise of
/// the response; requests awaited together are in flight together (two
/// 200 ms requests take ~200 ms, not 400); a refused connection resolves
/// with k6's failed response (1212); one never awaited is still made
/// before the iteration ends. k6/http's TLS and OCSP constants are k6's.
#[test]
fn async_request_as_k6() {
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ asyncRequest, TLS_1_3 }} from 'k6/http';
import {{ check }} from 'k6';
const base = 'http://{addr}';
export const options = {{ iterations: 1, thresholds: {{ checks: ['rate==1'] }} }};
export default async function () {{
  const one = await asyncRequest('POST', `${{base}}/one`, 'b');
  const t0 = Date.now();
  const [a, b] = await Promise.all([http.asyncRequest('GET', `${{base}}/slow`), http.asyncRequest('GET', `${{base}}/slow`)]);
  const both = Date.now() - t0;
  const refused = await http.asyncRequest('GET', 'http://127.0.0.1:1/');
  http.asyncRequest('GET', `${{base}}/late`);
  check(null, {{
    'one': () => one.status === 200 && one.json().path === '/one' && one.json().body === 'b',
    'together': () => a.status === 200 && b.status === 200 && both >= 190 && both < 390,
    'refused': () => refused.status === 0 && refused.error_code === 1212,
    'constants': () => TLS_1_3 === 'tls1.3' && http.OCSP_STATUS_GOOD === 'good'
      && http.OCSP_REASON_PRIVILEGE_WITHDRAWN === 'privilege_withdrawn',
  }});
}}
"#
    );
    let (out, e) = run_script(dir.path(), &src, vec![], Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(e["metrics"]["checks"]["passes"], 4, "{}", out.summary);
    // one, a, b, the refused one and the late one.
    assert_eq!(num(&e, "http_reqs", "count"), 5.0, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
}

/// `params.throw` chooses per request what `options.throw` chooses for
/// all, as in k6 v1.8.1: a refused connection throws k6's `GoError` with
/// Go's text (no "Request Failed" warning counted as a script error),
/// and `throw: false` keeps another request's failure a response even
/// under `options.throw`.
#[test]
fn params_throw_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  let e = '';
  try { http.get('http://127.0.0.1:1/', { throw: true }); } catch (x) { e = x.name + ': ' + x.message; }
  const kept = http.get('http://127.0.0.1:1/');
  check(e, {
    'thrown': (e) => e.startsWith('GoError: Get "http://127.0.0.1:1/": dial tcp 127.0.0.1:1: connect:'),
    'kept': () => kept.status === 0 && kept.error_code === 1212,
  });
}
"#;
    let (out, e) = run_script(dir.path(), src, vec![], Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "http_reqs", "count"), 2.0, "{}", out.summary);
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, throw: true, thresholds: { checks: ['rate==1'] } };
export default function () {
  const r = http.get('http://127.0.0.1:1/', { throw: false });
  check(r, { 'a response': (r) => r.status === 0 && r.error_code === 1212 });
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    // A request that cannot be built (a bad escape) throws by
    // `options.throw` alone; one Go's transport refuses (a scheme, a
    // method) by `params.throw`, an own key of the params only (k6 v1.8.1:
    // true, false, false, true).
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const threw = (f) => { try { f(); return false; } catch (e) { return true; } };
export default function () {
  check(null, {
    'scheme, own': () => threw(() => http.get('x://h/p', { throw: true })),
    'scheme, inherited': () => !threw(() => http.get('x://h/p', Object.create({ throw: true }))),
    'escape': () => !threw(() => http.get('http://127.0.0.1:1/a%zz', { throw: true })),
    'method': () => threw(() => http.request('BAD METHOD', 'http://127.0.0.1:1/', null, { throw: true })),
  });
}
"#;
    let (out, _) = run_script(dir.path(), src, vec![], Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// In `http.batch`, a request with a scheme other than http(s) fails on
/// its own, as in k6 v1.8.1: the others are made, its response is k6's
/// failed one, and it counts as a failed request (2 `http_reqs`, 1
/// failed). A bad path escape fails the whole batch, as in k6: nothing
/// of it is sent, it answers k6's failed response for that request and
/// `null` for the others (a GoError with `options.throw`; a request's
/// `params.throw` does not make it one, as k6 v1.8.1 showed).
#[test]
fn a_batch_keeps_going_past_an_unsupported_scheme_as_k6() {
    let srv = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 1, thresholds: { checks: ['rate==1'] } };
const B = `http://${__ENV.HOST}`;
export default function () {
  const [bad, good] = http.batch(['x://h/p', B]);
  const whole = http.batch([`${B}/%zz`, B]);
  let thrown = 'none';
  try { http.batch([[`GET`, `${B}/%zz`, null, { throw: true }], B]); } catch (e) { thrown = e.name; }
  check(null, {
    'the bad one failed': () => bad.status === 0 && bad.error === 'unsupported protocol scheme "x"' && bad.error_code === 1000,
    'the good one went': () => good.status === 200 && good.body === 'ok',
    'a bad escape fails the batch': () => whole.length === 2 && whole[0].status === 0 && whole[0].error_code === 1020 && whole[1] === null,
    'params.throw does not throw it': () => thrown === 'none',
  });
}
"#;
    let env = vec![("HOST".into(), srv.addr.to_string())];
    let (out, e) = run_script(dir.path(), src, env, Overrides::default());
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "http_reqs", "count"), 2.0, "{}", out.summary);
    assert_eq!(num(&e, "http_req_failed", "passes"), 1.0, "{}", out.summary);
}

/// The progress lines under the summary give a scenario's name at least
/// the width of k6's "Init" bar, as k6 v1.8.1 prints them (`a    ✓`).
#[test]
fn short_scenario_names_are_padded_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let src = "export const options = { scenarios: { a: { executor: 'shared-iterations', vus: 1, iterations: 1 } } };\n\
               export default function () {}\n";
    let (out, _) = run_script(dir.path(), src, vec![], Overrides::default());
    assert!(
        out.summary.contains("\na    ✓ [ 100% ] 1 VUs  "),
        "{}",
        out.summary
    );
}

/// `systemTags` as k6 v1.8.1 reads it (checked side by side on this
/// script): only the system tags it keeps are set, a tag the script gives
/// stays, `vu` and `iter` go to the points' metadata, `ip` is the peer's
/// address, the CSV has a column per tag kept, and without
/// `expected_response` there is no `{ expected_response:true }` row.
#[test]
fn system_tags_as_k6() {
    let srv = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check, group }} from 'k6';
import {{ Counter }} from 'k6/metrics';
import exec from 'k6/execution';
const c = new Counter('my_counter');
export const options = {{
  iterations: 2, vus: 1,
  systemTags: ['status', 'vu', 'iter', 'ip', 'check', 'staus'],
}};
export default function () {{
  group('g', () => {{
    const r = http.get('http://{addr}/', {{ tags: {{ name: 'home' }} }});
    check(r, {{ 'ok': (r) => r.status === 200 }});
    http.get(http.url`http://{addr}/?x=${{1}}`);
  }});
  c.add(1);
  check(exec.test.options.systemTags, {{
    'the options show the set': (t) => JSON.stringify(t) === '["check","ip","iter","status","vu"]',
  }});
}}
"#,
        addr = srv.addr
    );
    let path = dir.path().join("s.js");
    std::fs::write(&path, src).unwrap();
    let points = dir.path().join("points.json");
    let mut csv = loadlab_script::out::CsvOut::parse("points.csv").unwrap();
    csv.path = dir.path().join(&csv.path);
    let cfg = loadlab_script::RunConfig {
        script: path,
        quiet: true,
        json_out: Some(points.clone()),
        csv_out: Some(csv.clone()),
        ..Default::default()
    };
    let out = loadlab_script::run(cfg, std::future::pending()).unwrap();
    assert_eq!(out.http_reqs, 4, "{}", out.summary);
    assert!(
        out.summary.contains("100.00% 4 out of 4"),
        "{}",
        out.summary
    );
    assert!(
        !out.summary.contains("expected_response"),
        "{}",
        out.summary
    );
    let text = std::fs::read_to_string(&points).unwrap();
    let pts: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "Point")
        .collect();
    let of = |m: &str| -> Vec<&serde_json::Value> {
        pts.iter()
            .filter(|p| p["metric"] == m)
            .map(|p| &p["data"])
            .collect()
    };
    let ip = srv.addr.ip().to_string();
    let reqs = of("http_reqs");
    assert_eq!(reqs.len(), 4);
    assert_eq!(
        reqs[0]["tags"],
        serde_json::json!({"ip": ip, "name": "home", "status": "200"})
    );
    // The template's name is a system tag: left out.
    assert_eq!(
        reqs[1]["tags"],
        serde_json::json!({"ip": ip, "status": "200"})
    );
    assert_eq!(
        reqs[0]["metadata"],
        serde_json::json!({"vu": "1", "iter": "0"})
    );
    assert_eq!(
        reqs[3]["metadata"],
        serde_json::json!({"vu": "1", "iter": "1"})
    );
    assert_eq!(of("checks")[0]["tags"], serde_json::json!({"check": "ok"}));
    // No scenario, no group.
    assert_eq!(of("my_counter")[0]["tags"], serde_json::json!({}));
    let iters = of("iterations");
    assert_eq!(
        iters[1]["metadata"],
        serde_json::json!({"vu": "1", "iter": "1"})
    );
    let decl = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["type"] == "Metric" && v["metric"] == "http_req_duration")
        .unwrap();
    assert!(decl["data"]["submetrics"].is_null(), "{decl}");
    let csv_text = std::fs::read_to_string(&csv.path).unwrap();
    let mut lines = csv_text.lines();
    assert_eq!(
        lines.next(),
        Some("metric_name,timestamp,metric_value,check,ip,status,extra_tags,metadata")
    );
    let row = lines.next().unwrap();
    let cells: Vec<&str> = row.split(',').collect();
    assert_eq!(cells[0], "http_reqs", "{row}");
    assert_eq!(
        cells[3..].join(","),
        format!(",{ip},200,name=home,vu=1&iter=0"),
        "{row}"
    );
}

/// `dns` as k6 v1.8.1 reads it (side by side on this script): `policy`
/// keeps one IP version of a name's addresses (`localhost` is 127.0.0.1
/// alone here: `onlyIPv6` leaves none, and the request fails with Go's
/// words; `preferIPv6` falls back to it); an IP in the URL is dialled as
/// it is; `exec.test.options.dns` shows what was set.
#[test]
fn dns_policy_as_k6() {
    let srv = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let port = srv.addr.port();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
import exec from 'k6/execution';
export const options = {{ iterations: 1, dns: {{ policy: __ENV.P, ttl: '1m', select: 'roundRobin' }} }};
export default function () {{
  const byName = http.get('http://localhost:{port}/');
  const byIp = http.get('http://127.0.0.1:{port}/');
  check(byName, {{
    'by name': (r) => __ENV.P === 'onlyIPv6'
      ? r.status === 0 && r.error === 'lookup localhost: no such host'
      : r.status === 200,
  }});
  check(byIp, {{ 'an IP is dialled as it is': (r) => r.status === 200 }});
  check(exec.test.options.dns, {{
    'the options show it': (d) => d.policy === __ENV.P && d.ttl === '1m' && d.select === 'roundRobin',
  }});
}}
"#
    );
    // The cases need `localhost` to be 127.0.0.1 alone (as in this
    // repository's CI image); where it is ::1 too, only `onlyIPv4` is sure.
    use std::net::ToSocketAddrs;
    let v6 = ("localhost", port)
        .to_socket_addrs()
        .map(|mut a| a.any(|a| a.is_ipv6()))
        .unwrap_or(true);
    let policies: &[&str] = if v6 {
        eprintln!("localhost has an IPv6 address here: only onlyIPv4 is checked");
        &["onlyIPv4"]
    } else {
        &["onlyIPv6", "preferIPv6", "onlyIPv4", "any"]
    };
    for p in policies {
        let env = vec![("P".to_string(), p.to_string())];
        let out = common::run_script_with(dir.path(), &src, env, Overrides::default(), false).0;
        assert_eq!(out.http_reqs, 2, "{p}: {}", out.summary);
        assert!(
            out.summary.contains("100.00% 3 out of 3"),
            "{p}: {}",
            out.summary
        );
    }
}

/// `blockHostnames` and `blacklistIPs` as k6 v1.8.1 reads them (side by
/// side on this script): a blocked name is neither looked up nor dialled
/// (error_code 1111, `hostname is blocked`), nor is an address in a
/// blocked range (1110, `ip is blacklisted`); the servers behind them see
/// no connection; what k6 cannot read is refused in its words.
#[test]
fn blocked_hostnames_and_ips_as_k6() {
    let blocked = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let open = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    let dir = tempfile::tempdir().unwrap();
    let (b, o) = (blocked.addr.port(), open.addr.port());
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{
  iterations: 1, blockHostnames: ['*host'], blacklistIPs: ['127.0.0.2/32', 'fd00::/8'],
  thresholds: {{ checks: ['rate==1'] }},
}};
export default function () {{
  const byName = http.get('http://localhost:{b}/');
  const inRange = http.get('http://127.0.0.2:{b}/');
  const fine = http.get('http://127.0.0.1:{o}/');
  check(null, {{
    'a blocked name': () => byName.status === 0 && byName.error_code === 1111
      && byName.error === 'hostname is blocked',
    'a blocked range': () => inRange.status === 0 && inRange.error_code === 1110
      && inRange.error === 'ip is blacklisted',
    'the rest': () => fine.status === 200,
  }});
}}
"#
    );
    let out = common::run_script_with(dir.path(), &src, vec![], Overrides::default(), false).0;
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(out.http_reqs, 3, "{}", out.summary);
    assert_eq!(blocked.read.load(Ordering::SeqCst), 0);
    assert!(open.read.load(Ordering::SeqCst) > 0);
    for (opt, want) in [
        (
            "blockHostnames: ['bad host']",
            "invalid hostname pattern 'bad host'",
        ),
        (
            "blacklistIPs: ['10.0.0.1']",
            "failed to parse CIDR '10.0.0.1': invalid CIDR address: 10.0.0.1",
        ),
    ] {
        let e = common::refused(dir.path(), opt);
        assert!(e.contains(want), "{opt}: {e}");
    }
}
