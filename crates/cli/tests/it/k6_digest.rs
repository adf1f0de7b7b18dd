//! `params.auth: 'digest'` against a server that asks for it: the 401
//! challenge answered by a second try, both measured as k6 v1.8.1
//! measures them (side by side where k6 is installed).

use crate::k6_auth_kit::serve_each;
use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use md5::Digest as _;

const REALM: &str = "loadlab";
const NONCE: &str = "dcd98b7102dd2f0e8b11d0f600bfb0c093";

fn md5_hex(s: &str) -> String {
    md5::Md5::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The fields of a `Digest` answer (values unquoted).
fn fields(v: &str) -> Vec<(String, String)> {
    v.split(", ")
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim_matches('"').to_string()))
        .collect()
}

/// Whether `auth` answers the challenge for user `bob`, password `s:cret`.
fn answers(auth: &str, method: &str) -> bool {
    let Some(rest) = auth.strip_prefix("Digest ") else {
        return false;
    };
    let f = fields(rest);
    let get = |k: &str| {
        f.iter()
            .find(|(n, _)| n == k)
            .map_or("", |(_, v)| v.as_str())
    };
    let ha1 = md5_hex(&format!("bob:{REALM}:s:cret"));
    let ha2 = md5_hex(&format!("{method}:{}", get("uri")));
    let expected = md5_hex(&format!(
        "{ha1}:{}:{}:{}:{}:{ha2}",
        get("nonce"),
        get("nc"),
        get("cnonce"),
        get("qop")
    ));
    get("username") == "bob" && get("opaque") == "xyz" && get("response") == expected
}

/// One keep-alive connection: a 401 with the challenge, or 200 "ok" for
/// a right answer; `seen[0]` counts the 401s, `seen[1]` the 200s.
fn serve(stream: TcpStream, seen: &[AtomicUsize; 2]) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut out = stream;
    loop {
        let mut head = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" {
                break;
            }
            head.push(line.trim_end().to_string());
        }
        let method = head[0].split(' ').next().unwrap_or("").to_string();
        let auth = head
            .iter()
            .find_map(|l| l.strip_prefix("Authorization: "))
            .unwrap_or("");
        let reply = if answers(auth, &method) {
            seen[1].fetch_add(1, Ordering::SeqCst);
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".to_string()
        } else {
            seen[0].fetch_add(1, Ordering::SeqCst);
            format!(
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"{REALM}\", qop=\"auth\", nonce=\"{NONCE}\", opaque=\"xyz\", algorithm=MD5\r\nContent-Length: 2\r\n\r\nno"
            )
        };
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// A right password answered on the second try, a wrong one refused
/// twice: 8 requests in 2 iterations, 6 of them 401s, the 2 final 401s
/// the only failed ones (the challenges are expected responses).
const SCRIPT: &str = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = {
  iterations: 2,
  thresholds: {
    http_reqs: ['count==8'],
    'http_reqs{status:401}': ['count==6'],
    'http_reqs{status:200}': ['count==2'],
    http_req_failed: ['rate==0.25'],
    checks: ['rate==1'],
  },
};
export default function () {
  const r = http.get(`http://bob:s%3Acret@${__ENV.ADDR}/dig?x=1`, { auth: 'digest' });
  const wrong = http.get(`http://bob:nope@${__ENV.ADDR}/dig`, { auth: 'digest' });
  check(r, {
    'answered': (r) => r.status === 200 && r.body === 'ok',
    'a wrong password stays refused': () => wrong.status === 401,
  });
}
"#;

#[test]
fn digest_challenges_are_answered_and_measured_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("digest.js");
    std::fs::write(&script, SCRIPT).unwrap();
    for tool in crate::side_by_side::tools("digest_challenges_are_answered_and_measured_as_k6") {
        let seen: Arc<[AtomicUsize; 2]> = Arc::new(Default::default());
        let addr = serve_each(seen.clone(), serve);
        let (mut cmd, name) = (tool.command(), tool.name);
        let points = dir.path().join(format!("{name}.json"));
        let o = cmd
            .args(["-q", "-e", &format!("ADDR={addr}")])
            .arg(format!("--out=json={}", points.display()))
            .arg(&script)
            .output_bounded()
            .expect("run");
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("4 out of 4"), "{name}:\n{out}");
        let sent = [0, 1].map(|i| seen[i].load(Ordering::SeqCst));
        assert_eq!(sent, [6, 2], "{name}: 401s and 200s the server sent");
        // The tags carry the URL without the credentials, in both.
        let points = std::fs::read_to_string(&points).unwrap();
        let url = format!("\"url\":\"http://{addr}/dig?x=1\"");
        assert!(points.matches(url.as_str()).count() >= 4, "{name}: {url}");
        assert!(
            !points.contains("cret") && !points.contains("nope"),
            "{name}"
        );
    }
}
