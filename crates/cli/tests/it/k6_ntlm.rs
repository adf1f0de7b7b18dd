//! `params.auth: 'ntlm'` against a server that asks for it: the anonymous
//! try, the NEGOTIATE and the AUTHENTICATE message on one connection, each
//! exchange measured as k6 v1.8.1 measures them (side by side where k6 is
//! installed). The server checks the NTLMv2 answer against the password.

use crate::k6_auth_kit::serve_each;
use base64::Engine as _;
use hmac::{KeyInit, Mac};
use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const PASSWORD: &str = "s3cret";

/// What the server saw: anonymous tries, challenges sent, right answers,
/// wrong answers.
type Seen = [AtomicUsize; 4];

fn utf16le(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn hmac_md5(key: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut mac = hmac::Hmac::<md5::Md5>::new_from_slice(key).unwrap();
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().to_vec()
}

fn field(m: &[u8], at: usize) -> Option<&[u8]> {
    let len = usize::from(u16::from_le_bytes(m.get(at..at + 2)?.try_into().ok()?));
    let off = u32::from_le_bytes(m.get(at + 4..at + 8)?.try_into().ok()?) as usize;
    m.get(off..off + len)
}

/// The CHALLENGE message: `server` as the server challenge, a target
/// information list with the domain's name and the end.
fn challenge(server: [u8; 8]) -> String {
    let mut info = vec![2, 0];
    let domain = utf16le("CORP");
    info.extend_from_slice(&(domain.len() as u16).to_le_bytes());
    info.extend_from_slice(&domain);
    info.extend_from_slice(&[0, 0, 0, 0]);
    let mut m = b"NTLMSSP\0".to_vec();
    m.extend_from_slice(&2u32.to_le_bytes());
    m.extend_from_slice(&[0, 0, 0, 0, 48, 0, 0, 0]); // no target name
    m.extend_from_slice(&(1u32 | 1 << 9 | 1 << 19 | 1 << 23).to_le_bytes());
    m.extend_from_slice(&server);
    m.extend_from_slice(&[0; 8]);
    m.extend_from_slice(&(info.len() as u16).to_le_bytes());
    m.extend_from_slice(&(info.len() as u16).to_le_bytes());
    m.extend_from_slice(&48u32.to_le_bytes());
    m.extend_from_slice(&info);
    B64.encode(m)
}

/// Whether an AUTHENTICATE message answers `server` with PASSWORD for
/// CORP\bob (NTLMv2: the proof is the HMAC of the challenge and the blob).
fn answers(m: &[u8], server: [u8; 8]) -> bool {
    if m.get(..12) != Some(b"NTLMSSP\0\x03\0\0\0".as_slice()) {
        return false;
    }
    let (Some(nt), Some(domain), Some(user)) = (field(m, 20), field(m, 28), field(m, 36)) else {
        return false;
    };
    if nt.len() < 16 || domain != utf16le("CORP") || user != utf16le("bob") {
        return false;
    }
    use md4::Digest as _;
    let key = hmac_md5(&md4::Md4::digest(utf16le(PASSWORD)), &[&utf16le("BOBCORP")]);
    hmac_md5(&key, &[&server, &nt[16..]]) == nt[..16]
}

/// One keep-alive connection: every request must authenticate (the
/// connection is not remembered), and an AUTHENTICATE message counts only
/// after a challenge sent on the same connection.
fn serve(stream: TcpStream, seen: &Seen) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut out = stream;
    let mut challenged: Option<[u8; 8]> = None;
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
        let len: usize = head
            .iter()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length: ")
                    .map(|v| v.parse().unwrap_or(0))
            })
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let token = head
            .iter()
            .find_map(|l| l.strip_prefix("Authorization: NTLM "))
            .and_then(|t| B64.decode(t).ok());
        let reply = match token {
            Some(m) if m.get(8) == Some(&1) => {
                let server: [u8; 8] = std::array::from_fn(|i| (i as u8) * 17 + 3);
                challenged = Some(server);
                seen[1].fetch_add(1, Ordering::SeqCst);
                format!(
                    "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: NTLM {}\r\nContent-Length: 0\r\n\r\n",
                    challenge(server)
                )
            }
            Some(m) if challenged.take().is_some_and(|s| answers(&m, s)) => {
                seen[2].fetch_add(1, Ordering::SeqCst);
                let body = format!("ok {}", body.len());
                format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                )
            }
            Some(_) => {
                seen[3].fetch_add(1, Ordering::SeqCst);
                "HTTP/1.1 401 Unauthorized\r\nContent-Length: 6\r\n\r\nwrong!".to_string()
            }
            None => {
                seen[0].fetch_add(1, Ordering::SeqCst);
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Negotiate\r\nWWW-Authenticate: NTLM\r\nContent-Length: 2\r\n\r\nno".to_string()
            }
        };
        if out.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

/// A right password (a POST: its body goes with each exchange), a wrong
/// one, and a batch of one: 18 exchanges in 2 iterations.
const SCRIPT: &str = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = {
  iterations: 2,
  thresholds: {
    http_reqs: ['count==18'],
    'http_reqs{status:401}': ['count==14'],
    'http_reqs{status:200}': ['count==4'],
    'http_req_failed': ['rate>0.444', 'rate<0.445'],
    checks: ['rate==1'],
  },
};
export default function () {
  const base = `http://CORP%5Cbob:${__ENV.PASS}@${__ENV.ADDR}`;
  const r = http.post(`${base}/ntlm?x=1`, 'hello', { auth: 'ntlm' });
  const wrong = http.get(`http://CORP%5Cbob:nope@${__ENV.ADDR}/ntlm`, { auth: 'ntlm' });
  const [b] = http.batch([['GET', `${base}/batch`, null, { auth: 'ntlm' }]]);
  check(null, {
    'answered, with the body': () => r.status === 200 && r.body === 'ok 5',
    'a wrong password stays refused': () => wrong.status === 401 && wrong.body === 'wrong!',
    'a batch answered': () => b.status === 200,
  });
}
"#;

#[test]
fn ntlm_handshakes_are_answered_and_measured_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ntlm.js");
    std::fs::write(&script, SCRIPT).unwrap();
    for tool in crate::side_by_side::tools("ntlm_handshakes_are_answered_and_measured_as_k6") {
        let seen: Arc<Seen> = Arc::new(Default::default());
        let addr = serve_each(seen.clone(), serve);
        let (mut cmd, name) = (tool.command(), tool.name);
        let points = dir.path().join(format!("{name}.json"));
        let o = cmd
            .args([
                "-q",
                "-e",
                &format!("ADDR={addr}"),
                "-e",
                &format!("PASS={PASSWORD}"),
            ])
            .arg(format!("--out=json={}", points.display()))
            .arg(&script)
            .output_bounded()
            .expect("run");
        let out = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{name}:\n{out}\n{err}");
        assert!(out.contains("6 out of 6"), "{name}:\n{out}");
        let sent = seen.each_ref().map(|n| n.load(Ordering::SeqCst));
        assert_eq!(
            sent,
            [6, 6, 4, 2],
            "{name}: anonymous tries, challenges, right and wrong answers"
        );
        // The tags carry the URL with its credentials masked, in both
        // (k6 v1.8.1 miscounts a user name with a %-escape and keeps the
        // password's last two letters, `http://****:****et@…`; loadlab
        // masks all of it).
        let points = std::fs::read_to_string(&points).unwrap();
        let tail = format!("@{addr}/ntlm?x=1\"");
        assert!(points.matches(tail.as_str()).count() >= 6, "{name}: {tail}");
        assert!(
            !points.contains(PASSWORD) && !points.contains("nope"),
            "{name}"
        );
        if name == "loadlab" {
            let url = format!("\"url\":\"http://****:****@{addr}/ntlm?x=1\"");
            assert!(points.matches(url.as_str()).count() >= 6, "{url}");
        }
    }
}
