//! jslib's httpx, answered by loadlab's own module: the requests a
//! session sends (base URL, shared headers and tags, per-request params,
//! http.url names, batches, the error metric), as the published module
//! sends them under k6 v1.8.1 (recorded from it: the same script, the
//! same echo server).

use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;

const SCRIPT: &str = r#"
import { Httpx, Get } from 'https://jslib.k6.io/httpx/0.1.0/index.js';
import http from 'k6/http';
import { Rate } from 'k6/metrics';
const errors = new Rate('my_errors');
const session = new Httpx({ baseURL: __ENV.BASE, headers: { 'X-Session': 's' }, tags: { team: 'a' }, timeout: 5000, errorMetric: errors });
export const options = { iterations: 1 };
export default function () {
  session.addHeader('X-Added', '1');
  const r1 = session.get('/one?x=1', null, { headers: { 'X-Req': 'r' } });
  session.clearHeader('X-Added');
  const r2 = session.post('/two', 'payload', { tags: { kind: 'post' }, expect: (r) => r.status === 201 });
  session.setBaseUrl(__ENV.BASE + '/v2');
  const r3 = session.request('PUT', http.url`/items/${7}`);
  const b = session.batch([new Get('/b1').addHeader('X-B', 'b1'), ['POST', '/b2', 'bb', { headers: { 'X-B': 'b2' } }]], { tags: { batch: 'yes' } });
  let bad = ''; try { session.request('FETCH', '/x'); } catch (e) { bad = e.message; }
  for (const r of [r1, r2, r3, ...b]) console.log(r.body);
  console.log(bad, typeof session.lastRequestChainDuration, JSON.stringify(session.k6params));
}
"#;

/// What the published module's requests gave under k6 (the console's
/// messages, logfmt-quoted).
const FROM_K6: [&str; 6] = [
    r#"msg="GET /one?x=1\nx-added: 1\nx-req: r\nx-session: s\n""#,
    r#"msg="POST /two\nx-session: s\npayload""#,
    r#"msg="PUT /v2/items/7\nx-session: s\n""#,
    r#"msg="GET /v2/b1\nx-b: b1\nx-session: s\n""#,
    r#"msg="POST /v2/b2\nx-b: b2\nx-session: s\nbb""#,
    r#"msg="Invalid method: FETCH. Expected one of GET,HEAD,POST,PUT,DELETE,CONNECT,OPTIONS,TRACE,PATCH number {\"headers\":{\"X-Session\":\"s\"},\"tags\":{\"team\":\"a\"},\"timeout\":5000}""#,
];

/// Answers each request with its request line, its `X-` fields (lower
/// case, sorted) and its body.
fn echo_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut r = BufReader::new(s.try_clone().unwrap());
                let mut w = s;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let mut xs = Vec::new();
                    let mut len = 0;
                    loop {
                        let mut h = String::new();
                        r.read_line(&mut h).unwrap();
                        let h = h.trim_end().to_string();
                        if h.is_empty() {
                            break;
                        }
                        let (k, v) = h.split_once(':').unwrap();
                        let k = k.to_ascii_lowercase();
                        if k == "content-length" {
                            len = v.trim().parse().unwrap();
                        }
                        if k.starts_with("x-") {
                            xs.push(format!("{k}: {}", v.trim()));
                        }
                    }
                    let mut body = vec![0; len];
                    r.read_exact(&mut body).unwrap();
                    xs.sort();
                    let mut parts = line.split(' ');
                    let out = format!(
                        "{} {}\n{}\n{}",
                        parts.next().unwrap(),
                        parts.next().unwrap(),
                        xs.join("\n"),
                        String::from_utf8_lossy(&body)
                    )
                    .replace("\n\n", "\n");
                    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", out.len());
                    w.write_all(head.as_bytes()).unwrap();
                    w.write_all(out.as_bytes()).unwrap();
                }
            });
        }
    });
    format!("http://{addr}")
}

#[test]
fn an_httpx_session_sends_what_the_module_sends() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("h.js"), SCRIPT).unwrap();
    let base = echo_server();
    let json = dir.path().join("out.json");
    let o = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run", "-q", "-e", &format!("BASE={base}")])
        .arg(format!("--out=json={}", json.display()))
        .arg("h.js")
        .output_bounded()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("source=console"))
        .map(|l| l[l.find("msg=").unwrap()..l.rfind(" source=console").unwrap()].trim_end())
        .collect();
    assert_eq!(said, FROM_K6, "{err}");
    assert!(out.contains("my_errors"), "{out}");
    assert!(out.contains("33.33% 1 out of 3"), "{out}");
    // The requests' names and tags, as k6 tagged the module's.
    let mut tags: Vec<String> = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["metric"] == "http_reqs" && v["type"] == "Point")
        .map(|v| {
            let t = &v["data"]["tags"];
            let get = |k: &str| t[k].as_str().unwrap_or("-").replace(&base, "BASE");
            format!(
                "{} {} team={} kind={} batch={}",
                get("method"),
                get("name"),
                get("team"),
                get("kind"),
                get("batch")
            )
        })
        .collect();
    tags.sort();
    assert_eq!(
        tags,
        [
            "GET BASE/one?x=1 team=a kind=- batch=-",
            "GET BASE/v2/b1 team=a kind=- batch=yes",
            "POST BASE/two team=a kind=post batch=-",
            "POST BASE/v2/b2 team=a kind=- batch=yes",
            "PUT /items/${} team=a kind=- batch=-",
        ]
    );
}
