//! The scheduler's HTTP path (CPU per request: a VU's request
//! is polled by the scheduler itself, not a task of its own): responses
//! that arrive in pieces, keep-alive connections reused, a batch's
//! requests in flight together, and a request in flight when its VU is
//! stopped. Real servers on 127.0.0.1.

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use loadlab_script::{Overrides, RunOutcome};

fn run_script(dir: &Path, src: &str, base: SocketAddr) -> (RunOutcome, serde_json::Value) {
    let env = vec![("BASE".into(), format!("http://{base}"))];
    // With the progress lines: they count the interrupted iterations.
    common::run_script_full(dir, src, env, Overrides::default(), true, true)
}

fn num(e: &serde_json::Value, metric: &str, field: &str) -> f64 {
    e["metrics"][metric][field]
        .as_f64()
        .unwrap_or_else(|| panic!("no {metric}.{field} in {e}"))
}

/// What a connection of [`Server`] saw.
#[derive(Default)]
struct Counts {
    accepted: AtomicU64,
    requests: AtomicU64,
    /// Connections whose client closed them (read returned 0 or failed).
    closed: AtomicU64,
}

/// A raw HTTP/1.1 server on loopback: a thread per connection, each
/// request (no body expected) answered by `answer(path, stream)`, which
/// writes the response itself (in pieces if it likes).
struct Server {
    addr: SocketAddr,
    counts: Arc<Counts>,
}

fn server(answer: impl Fn(&str, &mut TcpStream) + Send + Sync + 'static) -> Server {
    let answer = Arc::new(answer);
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let counts = Arc::new(Counts::default());
    let c = counts.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            c.accepted.fetch_add(1, Ordering::SeqCst);
            let c = c.clone();
            let answer = answer.clone();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                loop {
                    let Some(head) = common::read_request(&mut s, &mut buf, |_| {}) else {
                        c.closed.fetch_add(1, Ordering::SeqCst);
                        return;
                    };
                    c.requests.fetch_add(1, Ordering::SeqCst);
                    let path = head.split(' ').nth(1).unwrap_or("/").to_string();
                    answer(&path, &mut s);
                }
            });
        }
    });
    Server { addr, counts }
}

/// Writes `parts` one by one, flushed, with a pause between them, so the
/// client reads the response in several pieces.
fn write_in_pieces(s: &mut TcpStream, parts: &[&[u8]]) {
    s.set_nodelay(true).unwrap();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(15));
        }
        if s.write_all(p).and_then(|()| s.flush()).is_err() {
            return;
        }
    }
}

#[test]
fn responses_read_in_pieces_are_whole_and_connections_are_reused() {
    let body: String = (0..3000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let b2 = body.clone();
    let srv = server(move |path, s| match path {
        // Content-Length: the status line, the rest of the head, then
        // the body in three pieces (the first cut inside a header field).
        "/length" => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nX-Cut: abcdef\r\n\r\n",
                b2.len()
            );
            let (h1, h2) = head.split_at(40);
            let b = b2.as_bytes();
            write_in_pieces(
                s,
                &[
                    h1.as_bytes(),
                    h2.as_bytes(),
                    &b[..1000],
                    &b[1000..2500],
                    &b[2500..],
                ],
            );
        }
        // Chunked, cut inside the chunk sizes and the final chunk.
        "/chunked" => {
            let msg = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
            let m = msg.as_bytes();
            write_in_pieces(s, &[&m[..30], &m[30..50], &m[50..58], &m[58..70], &m[70..]]);
        }
        _ => {
            let _ = s.write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{ vus: 3, iterations: 12, thresholds: {{ checks: ['rate==1'] }} }};
const WANT = '{body}';
export default function () {{
  const a = http.get(`${{__ENV.BASE}}/length`);
  check(a, {{
    'length body whole': (r) => r.status === 200 && r.body === WANT,
    'header across pieces': (r) => r.headers['X-Cut'] === 'abcdef',
  }});
  const c = http.get(`${{__ENV.BASE}}/chunked`);
  check(c, {{ 'chunked body whole': (r) => r.status === 200 && r.body === 'hello world' }});
  const b = http.batch([['GET', `${{__ENV.BASE}}/length`], ['GET', `${{__ENV.BASE}}/chunked`]]);
  check(b, {{ 'batch bodies whole': (l) => l[0].body === WANT && l[1].body === 'hello world' }});
}}
"#
    );
    let (out, e) = run_script(dir.path(), &src, srv.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(out.http_reqs, 48, "{}", out.summary);
    assert_eq!(num(&e, "checks", "fails"), 0.0, "{}", out.summary);
    assert_eq!(srv.counts.requests.load(Ordering::SeqCst), 48);
    // Keep-alive: at most one connection per request in flight at once
    // (3 VUs, a batch of 2 each), not one per request.
    let accepted = srv.counts.accepted.load(Ordering::SeqCst);
    assert!(
        (1..=6).contains(&accepted),
        "{accepted} connections for 48 requests"
    );
    // Every body byte counted, pieces or not (plus heads and framing).
    assert!(num(&e, "data_received", "count") as usize > 24 * body.len() + 24 * 11);
}

/// The requests of `http.batch` are in flight together: the server holds
/// every answer until all three requests have arrived.
#[test]
fn a_batch_has_all_its_requests_in_flight_at_once() {
    let gate = Arc::new((Mutex::new(0u32), Condvar::new()));
    let g = gate.clone();
    let srv = server(move |_path, s| {
        let (lock, cv) = &*g;
        let mut n = lock.lock().unwrap();
        *n += 1;
        cv.notify_all();
        let deadline = Instant::now() + Duration::from_secs(10);
        while *n % 3 != 0 && Instant::now() < deadline {
            n = cv.wait_timeout(n, Duration::from_millis(50)).unwrap().0;
        }
        let all = *n % 3 == 0;
        drop(n);
        let status = if all {
            "200 OK"
        } else {
            "503 Service Unavailable"
        };
        let _ = s.write_all(format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\n\r\n").as_bytes());
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 2 };
export default function () {
  const l = http.batch([`${__ENV.BASE}/a`, `${__ENV.BASE}/b`, `${__ENV.BASE}/c`]);
  check(l, { 'all three together': (l) => l.length === 3 && l.every((r) => r.status === 200) });
}
"#;
    let t0 = Instant::now();
    let (out, e) = run_script(dir.path(), src, srv.addr);
    assert_eq!(out.http_reqs, 6, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 2.0, "{}", out.summary);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

/// A VU stopped with its request in flight (the scenario's graceful stop
/// ran out) is interrupted at once, and its connection is closed, not
/// left open until the server answers.
#[test]
fn a_request_in_flight_is_dropped_when_its_vu_is_stopped() {
    let srv = server(|path, s| {
        if path == "/hang" {
            // Never answers; the connection ends when the client closes it.
            let mut b = [0u8; 64];
            while matches!(s.read(&mut b), Ok(n) if n > 0) {}
        } else {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
export const options = { scenarios: { s: { executor: 'constant-vus', vus: 2, duration: '1s', gracefulStop: '0s' } } };
export default function () {
  http.get(`${__ENV.BASE}/ok`);
  http.get(`${__ENV.BASE}/hang`, { timeout: '30s' });
}
"#;
    let t0 = Instant::now();
    let (out, _) = run_script(dir.path(), src, srv.addr);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
    assert!(
        out.summary.contains("2 interrupted"),
        "the two hanging requests' iterations: {}",
        out.summary
    );
    assert_eq!(out.http_reqs, 2, "{}", out.summary);
    // Both connections of the hanging requests were closed by the client.
    let deadline = Instant::now() + Duration::from_secs(5);
    while srv.counts.closed.load(Ordering::SeqCst) < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(srv.counts.closed.load(Ordering::SeqCst) >= 2);
}

/// Requests time out at their own deadlines (the scheduler polls each at
/// its deadline; no timer per request): one left unanswered, one whose
/// body stalls half way, and a batch with two timeouts, each ended at its
/// own.
#[test]
fn requests_time_out_at_their_deadlines() {
    let srv = server(|path, s| match path {
        "/hang" => {
            let mut b = [0u8; 64];
            while matches!(s.read(&mut b), Ok(n) if n > 0) {}
        }
        "/stall" => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf");
            let mut b = [0u8; 64];
            while matches!(s.read(&mut b), Ok(n) if n > 0) {}
        }
        _ => {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { vus: 1, iterations: 1, thresholds: { checks: ['rate==1'] } };
export default function () {
  const t0 = Date.now();
  const h = http.get(`${__ENV.BASE}/hang`, { timeout: '150ms' });
  const t1 = Date.now();
  check(h, {
    'hang timed out': (r) => r.status === 0 && r.error_code === 1050,
    'hang at its deadline': () => t1 - t0 >= 150 && t1 - t0 < 3000,
  });
  const st = http.get(`${__ENV.BASE}/stall`, { timeout: 150 });
  check(st, { 'stalled body timed out': (r) => r.status === 0 && r.error_code === 1050 });
  const t2 = Date.now();
  const b = http.batch([
    ['GET', `${__ENV.BASE}/hang`, null, { timeout: '100ms' }],
    ['GET', `${__ENV.BASE}/hang`, null, { timeout: '600ms' }],
    ['GET', `${__ENV.BASE}/ok`],
  ]);
  const t3 = Date.now();
  check(b, {
    'batch timeouts': (l) => l[0].error_code === 1050 && l[1].error_code === 1050 && l[2].status === 200,
    'batch waited for the longest': () => t3 - t2 >= 600 && t3 - t2 < 5000,
    'each at its own': (l) => l[0].timings.duration < l[1].timings.duration,
  });
}
"#;
    let (out, e) = run_script(dir.path(), src, srv.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "fails"), 0.0, "{}", out.summary);
    assert_eq!(out.http_reqs, 5, "{}", out.summary);
}

/// k6's request options, read as k6 reads them (checked side by side with
/// k6 v1.8.1 against a loopback server): `discardResponseBodies`,
/// `userAgent`, `throw`, `minIterationDuration` (a wait that is not the
/// iteration's) and `noConnectionReuse`.
#[test]
fn k6_request_options_as_k6() {
    let srv = server(|_, s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    let closed = loadlab_testkit::refused::Refused::new();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{
  iterations: 2, discardResponseBodies: true, userAgent: 'my-agent/1', throw: true,
  minIterationDuration: '300ms', noConnectionReuse: true,
  thresholds: {{ checks: ['rate==1'] }},
}};
export default function () {{
  const r = http.get(`${{__ENV.BASE}}/a`);
  const t = http.get(`${{__ENV.BASE}}/b`, {{ responseType: 'text' }});
  let threw = '';
  try {{ http.get('http://{closed}/'); }} catch (e) {{ threw = String(e); }}
  check(null, {{
    'discarded body': () => r.status === 200 && r.body === null,
    'a request may still ask for it': () => t.body === 'ok',
    'userAgent': () => r.request.headers['User-Agent'][0] === 'my-agent/1',
    'throw': () => threw === 'GoError: Get "http://{closed}/": dial tcp {closed}: connect: connection refused',
  }});
}}
"#
    );
    let t0 = Instant::now();
    let (out, e) = run_script(dir.path(), &src, srv.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 8.0, "{}", out.summary);
    // Two iterations of at least 300 ms each, though each took far less.
    assert!(
        t0.elapsed() >= Duration::from_millis(600),
        "{:?}",
        t0.elapsed()
    );
    assert!(
        num(&e, "iteration_duration", "max") < 250.0,
        "{}",
        out.summary
    );
    // A connection per request.
    assert_eq!(srv.counts.requests.load(Ordering::SeqCst), 4);
    assert_eq!(srv.counts.accepted.load(Ordering::SeqCst), 4);
}

/// A TLS server on loopback with a self-signed certificate: every request
/// (no body expected) is answered with `reply` after `delay`, on a
/// keep-alive connection unless `reply` says `Connection: close`. With
/// `h2`, it offers HTTP/2 by ALPN and answers `ok` over it.
fn tls_server(reply: &'static [u8], delay: Duration, h2: bool) -> SocketAddr {
    let alpn: &[&[u8]] = if h2 { &[b"h2", b"http/1.1"] } else { &[] };
    tls_server_with(
        loadlab_testkit::tls::self_signed(alpn).acceptor,
        reply,
        delay,
    )
}

/// [`tls_server`] with the given acceptor (HTTP/1.1 only unless it offers h2).
fn tls_server_with(
    acceptor: loadlab_testkit::tls::TlsAcceptor,
    reply: &'static [u8],
    delay: Duration,
) -> SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            let close = reply.windows(17).any(|w| w == b"Connection: close");
            loop {
                let Ok((sock, _)) = l.accept().await else {
                    return;
                };
                let a = acceptor.clone();
                tokio::spawn(async move {
                    let Ok(mut s) = a.accept(sock).await else {
                        return;
                    };
                    if s.get_ref().1.alpn_protocol() == Some(b"h2") {
                        let svc = hyper::service::service_fn(move |_req| async move {
                            tokio::time::sleep(delay).await;
                            let body = http_body_util::Full::new(hyper::body::Bytes::from("ok"));
                            Ok::<_, std::convert::Infallible>(hyper::Response::new(body))
                        });
                        let exec = hyper_util::rt::TokioExecutor::new();
                        let _ = hyper::server::conn::http2::Builder::new(exec)
                            .serve_connection(hyper_util::rt::TokioIo::new(s), svc)
                            .await;
                        return;
                    }
                    let mut buf = [0u8; 4096];
                    loop {
                        let mut got = Vec::new();
                        while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                            match s.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => got.extend_from_slice(&buf[..n]),
                            }
                        }
                        tokio::time::sleep(delay).await;
                        if s.write_all(reply).await.is_err() || close {
                            let _ = s.shutdown().await;
                            return;
                        }
                    }
                });
            }
        });
    });
    rx.recv().unwrap()
}

/// `insecureSkipTLSVerify: true` accepts a self-signed certificate; without
/// it the request fails with k6's TLS error code.
#[test]
fn insecure_skip_tls_verify_as_k6() {
    let addr = tls_server(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
        Duration::ZERO,
        false,
    );
    let dir = tempfile::tempdir().unwrap();
    for (insecure, want) in [
        ("true", "r.status === 200 && r.body === 'ok'"),
        (
            "false",
            "r.status === 0 && r.error_code === 1310 && r.error === 'tls: failed to verify certificate: x509: certificate signed by unknown authority'",
        ),
    ] {
        let src = format!(
            r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{ iterations: 1, insecureSkipTLSVerify: {insecure}, thresholds: {{ checks: ['rate==1'] }} }};
export default function () {{
  const r = http.get('https://{addr}/');
  check(r, {{ 'as k6': (r) => {want} }});
}}
"#
        );
        let (out, _) = run_script(dir.path(), &src, addr);
        assert!(
            !out.thresholds_failed,
            "insecureSkipTLSVerify {insecure}: {}",
            out.summary
        );
    }
}

/// `tlsVersion` and `tlsCipherSuites` as k6 v1.8.1 reads them (side by
/// side against a server that speaks TLS 1.2 and 1.3): a version, or
/// `{min, max}`, chooses what is offered; the suites choose among TLS
/// 1.2's (as in Go, TLS 1.3's are not chosen); Go's names throughout;
/// `exec.test.options.tlsVersion` is k6's `{min, max}`.
#[test]
fn tls_version_and_cipher_suites_as_k6() {
    let addr = tls_server(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        Duration::ZERO,
        false,
    );
    let dir = tempfile::tempdir().unwrap();
    for (version, suites, want_version, want_suite, shown) in [
        ("null", "null", "tls1.3", None, "null"),
        (
            "'tls1.2'",
            "null",
            "tls1.2",
            None,
            r#"{"min":"tls1.2","max":"tls1.2"}"#,
        ),
        (
            "{ min: 'tls1.3' }",
            "null",
            "tls1.3",
            None,
            r#"{"min":"tls1.3","max":""}"#,
        ),
        (
            "{ max: 'tls1.2' }",
            "['TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305']",
            "tls1.2",
            Some("TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305"),
            r#"{"min":"","max":"tls1.2"}"#,
        ),
        (
            "null",
            "['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256']",
            "tls1.3",
            None,
            "null",
        ),
    ] {
        let want_suite = match want_suite {
            Some(s) => format!("r.tls_cipher_suite === '{s}'"),
            None => "true".to_string(),
        };
        let src = format!(
            r#"
import http from 'k6/http';
import {{ check }} from 'k6';
import exec from 'k6/execution';
export const options = {{
  iterations: 1, insecureSkipTLSVerify: true, tlsVersion: {version}, tlsCipherSuites: {suites},
  thresholds: {{ checks: ['rate==1'] }},
}};
export default function () {{
  const r = http.get('https://{addr}/');
  check(r, {{
    'the version': (r) => r.status === 200 && r.tls_version === '{want_version}',
    'the suite': (r) => {want_suite},
    'the options': () => JSON.stringify(exec.test.options.tlsVersion) === '{shown}',
  }});
}}
"#
        );
        let (out, _) = run_script(dir.path(), &src, addr);
        assert!(
            !out.thresholds_failed,
            "{version} {suites}: {}",
            out.summary
        );
    }
    // What k6 cannot read is refused in its words; what loadlab cannot
    // offer, before any load.
    for (options, want) in [
        ("tlsVersion: 'tls9'", "unknown TLS version 'tls9'"),
        (
            "tlsCipherSuites: ['TLS_FOO']",
            "unknown cipher suite 'TLS_FOO'",
        ),
        (
            "tlsVersion: 'tls1.1'",
            "loadlab k6 speaks TLS 1.2 and 1.3 only",
        ),
        (
            "tlsCipherSuites: ['TLS_RSA_WITH_AES_128_CBC_SHA', 'TLS_AES_128_GCM_SHA256']",
            "options.tlsCipherSuites: TLS_RSA_WITH_AES_128_CBC_SHA not offered by loadlab k6",
        ),
    ] {
        let e = common::refused(dir.path(), options);
        assert!(e.contains(want), "{options}: {e}");
    }
}

/// `tlsAuth` as k6 v1.8.1 reads it (side by side against `openssl
/// s_server -Verify`): the server gets the client certificate its CA
/// issued, whichever place it has in the list; with none it trusts, the
/// handshake fails; a key that is not the certificate's is refused before
/// any load, naming its place. A key encrypted the legacy PEM way is
/// decrypted with its `password` (a wrong one refused in Go's words).
#[test]
fn tls_auth_client_certificates_as_k6() {
    let m = loadlab_testkit::tls::mutual();
    let (trusted, foreign) = (m.trusted.clone(), m.foreign.clone());
    let addr = tls_server_with(
        m.acceptor,
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        Duration::ZERO,
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, (c, k)) in [("trusted", &trusted), ("foreign", &foreign)] {
        std::fs::write(dir.path().join(format!("{name}.pem")), c).unwrap();
        std::fs::write(dir.path().join(format!("{name}-key.pem")), k).unwrap();
    }
    // The trusted key encrypted the legacy PEM way (`password`).
    let encrypted = loadlab_testkit::tls::TRUSTED_KEY_ENCRYPTED[3].1;
    std::fs::write(dir.path().join("trusted-key.des3.pem"), encrypted).unwrap();
    for (auth, want) in [
        (
            "[{ cert: open('foreign.pem'), key: open('foreign-key.pem') }, { cert: open('trusted.pem'), key: open('trusted-key.pem'), domains: ['x'] }]",
            "r.status === 200",
        ),
        (
            "[{ cert: open('trusted.pem'), key: open('trusted-key.des3.pem'), password: 's3cret' }]",
            "r.status === 200",
        ),
        (
            "[{ cert: open('foreign.pem'), key: open('foreign-key.pem') }]",
            "r.status === 0 && r.error_code >= 1300 && r.error_code < 1400",
        ),
        (
            "[]",
            "r.status === 0 && r.error_code >= 1300 && r.error_code < 1400",
        ),
    ] {
        let src = format!(
            r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{ iterations: 1, insecureSkipTLSVerify: true, tlsAuth: {auth}, thresholds: {{ checks: ['rate==1'] }} }};
export default function () {{
  const r = http.get('https://{addr}/');
  check(r, {{ 'as k6': (r) => {want} }});
}}
"#
        );
        let (out, _) = run_script(dir.path(), &src, addr);
        assert!(!out.thresholds_failed, "{auth}: {}", out.summary);
    }
    let e = common::refused(
        dir.path(),
        "tlsAuth: [{ cert: open('trusted.pem'), key: open('foreign-key.pem') }]",
    );
    assert!(
        e.contains("options.tlsAuth[0]: the private key does not match the certificate"),
        "{e}"
    );
    let e = common::refused(
        dir.path(),
        "tlsAuth: [{ cert: open('trusted.pem'), key: open('trusted-key.des3.pem'), password: 'nope' }]",
    );
    assert!(
        e.contains("options.tlsAuth[0]: x509: decryption password incorrect"),
        "{e}"
    );
}

/// `res.timings` and the `http_req_*` trends split a request's time as k6
/// does (and the response's `tls_version`, `tls_cipher_suite`, `ocsp`,
/// `remote_ip`, `remote_port` and `status_text` are k6's): a new connection's TCP connect (`connecting`) and TLS handshake
/// (`tls_handshaking`) inside `blocked`, none of them on a reused one, and
/// `duration` = `sending` + `waiting` + `receiving`.
#[test]
fn timings_split_connect_handshake_and_send_as_k6() {
    let tls = tls_server(
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        Duration::from_millis(150),
        false,
    );
    // A reason phrase of its own, which `status_text` keeps.
    let plain = server(|_, s| {
        let _ = s.write_all(b"HTTP/1.1 200 Fine\r\nContent-Length: 2\r\n\r\nok");
    });
    let tls_port = tls.port();
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{ iterations: 1, insecureSkipTLSVerify: true, thresholds: {{ checks: ['rate==1'] }} }};
const sum = (t) => Math.abs(t.duration - (t.sending + t.waiting + t.receiving)) < 1e-6;
export default function () {{
  const a = http.get('https://{tls}/');
  const b = http.get('https://{tls}/');
  const c = http.get(`${{__ENV.BASE}}/`);
  const ta = a.timings, tb = b.timings, tc = c.timings;
  check(null, {{
    'statuses': () => a.status === 200 && b.status === 200 && c.status === 200,
    'new TLS connection: connect and handshake timed': () => ta.connecting > 0 && ta.tls_handshaking > 0,
    'new TLS connection: both inside blocked': () => ta.blocked >= ta.connecting + ta.tls_handshaking,
    'reused connection: no connect, no handshake': () => tb.connecting === 0 && tb.tls_handshaking === 0,
    'reused connection: blocked shorter than a dial': () => tb.blocked < ta.blocked,
    'new plain connection: connect timed, no handshake': () => tc.connecting > 0 && tc.tls_handshaking === 0 && tc.blocked >= tc.connecting,
    'waiting holds the server delay': () => ta.waiting >= 140 && tb.waiting >= 140,
    'duration is sending + waiting + receiving': () => sum(ta) && sum(tb) && sum(tc),
    'sending is the write': () => [ta, tb, tc].every((t) => t.sending >= 0 && t.sending < 100),
    'looking_up is 0, as in k6': () => [ta, tb, tc].every((t) => t.looking_up === 0),
    'TLS parameters': () => a.tls_version === 'tls1.3' && /^TLS_[A-Z0-9_]+$/.test(a.tls_cipher_suite)
      && !a.tls_cipher_suite.startsWith('TLS13_') && a.ocsp.status === 'unknown' && a.ocsp.produced_at === 0,
    'none in the clear': () => c.tls_version === '' && c.tls_cipher_suite === '' && c.ocsp.status === '',
    'peer': () => a.remote_ip === '127.0.0.1' && a.remote_port === {tls_port} && c.remote_port === +__ENV.BASE.split(':')[2],
    'status text': () => a.status_text === '200 OK' && c.status_text === '200 Fine',
  }});
}}
"#
    );
    let (out, e) = run_script(dir.path(), &src, plain.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 14.0, "{}", out.summary);
    // The trends: one handshake among three requests, two connects.
    assert_eq!(num(&e, "http_req_tls_handshaking", "min"), 0.0);
    assert!(num(&e, "http_req_tls_handshaking", "max") > 0.0, "{e}");
    assert!(num(&e, "http_req_connecting", "max") > 0.0, "{e}");
    assert!(
        num(&e, "http_req_blocked", "max") >= num(&e, "http_req_tls_handshaking", "max"),
        "{e}"
    );
    assert_eq!(plain.counts.accepted.load(Ordering::SeqCst), 1);
}

/// A server that answers `HTTP/1.0` is reported as k6 v1.8.1 reports it:
/// `proto` is `HTTP/1.0` on the response and in the `proto` tag.
#[test]
fn proto_is_http10_where_the_server_says_so_as_k6() {
    let srv = server(|_, s| {
        let _ = s.write_all(b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok");
        let _ = s.shutdown(std::net::Shutdown::Both);
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { check } from 'k6';
export const options = { iterations: 2, thresholds: { 'http_reqs{proto:HTTP/1.0}': ['count==2'], checks: ['rate==1'] } };
export default function () {
  const r = http.get(`${__ENV.BASE}/`);
  check(r, { 'HTTP/1.0': (r) => r.proto === 'HTTP/1.0' && r.status === 200 && r.body === 'ok' });
}
"#;
    let (out, _) = run_script(dir.path(), src, srv.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
}

/// Over TLS a server that offers HTTP/2 gets it, as from k6: `proto` is
/// `HTTP/2.0` on the response and in the `proto` tag (a threshold filters
/// on it); a plain request stays `HTTP/1.1`.
#[test]
fn proto_is_http2_where_tls_offers_it_as_k6() {
    let h2 = tls_server(b"", Duration::ZERO, true);
    let plain = server(|_, s| {
        let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    });
    let dir = tempfile::tempdir().unwrap();
    let src = format!(
        r#"
import http from 'k6/http';
import {{ check }} from 'k6';
export const options = {{
  iterations: 1, insecureSkipTLSVerify: true,
  thresholds: {{
    checks: ['rate==1'], 'http_reqs{{proto:HTTP/2.0}}': ['count==2'], 'http_reqs{{proto:HTTP/1.1}}': ['count==1'],
    'http_reqs{{tls_version:tls1.3}}': ['count==2'],
  }},
}};
export default function () {{
  const a = http.get('https://{h2}/');
  const b = http.get('https://{h2}/');
  const c = http.get(`${{__ENV.BASE}}/`);
  check(null, {{
    'HTTP/2 over TLS': () => a.status === 200 && a.body === 'ok' && a.proto === 'HTTP/2.0' && b.proto === 'HTTP/2.0'
      && a.status_text === '200 OK' && a.tls_version === 'tls1.3' && b.remote_ip === '127.0.0.1',
    'HTTP/1.1 in the clear': () => c.proto === 'HTTP/1.1',
    'the first request made the connection': () => a.timings.tls_handshaking > 0 && b.timings.tls_handshaking === 0,
  }});
}}
"#
    );
    let (out, e) = run_script(dir.path(), &src, plain.addr);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert_eq!(num(&e, "checks", "passes"), 3.0, "{}", out.summary);
}

/// `noVUConnectionReuse`, as k6's: a VU's keep-alive connections are its
/// own and closed when each of its iterations ends, so every iteration
/// opens one (its requests share it); without it the VUs keep theirs.
#[test]
fn no_vu_connection_reuse_gives_each_iteration_its_own_connection_as_k6() {
    for (option, want_accepted) in [("false", None), ("true", Some(6))] {
        let srv = server(|_path, s| {
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        });
        let dir = tempfile::tempdir().unwrap();
        let src = format!(
            r#"
import http from 'k6/http';
import {{ sleep }} from 'k6';
export const options = {{ scenarios: {{ s: {{ executor: 'per-vu-iterations', vus: 2, iterations: 3 }} }}, noVUConnectionReuse: {option} }};
export default function () {{
  http.get(`${{__ENV.BASE}}/a`);
  sleep(0.02);
  http.get(`${{__ENV.BASE}}/b`);
}}
"#
        );
        let (out, _) = run_script(dir.path(), &src, srv.addr);
        assert_eq!(out.http_reqs, 12, "{}", out.summary);
        let accepted = srv.counts.accepted.load(Ordering::SeqCst);
        match want_accepted {
            Some(n) => {
                assert_eq!(accepted, n, "noVUConnectionReuse {option}");
                // Each closed by the client when its iteration ended.
                let t0 = Instant::now();
                while srv.counts.closed.load(Ordering::SeqCst) < n
                    && t0.elapsed() < Duration::from_secs(5)
                {
                    std::thread::sleep(Duration::from_millis(20));
                }
                assert_eq!(srv.counts.closed.load(Ordering::SeqCst), n);
            }
            None => assert!(accepted <= 2, "noVUConnectionReuse {option}: {accepted}"),
        }
    }
}

/// `--local-ips`, as k6's: VU n dials from the pool's address n - 1 (modulo
/// its size), and keeps its own keep-alive connection. Loopback addresses
/// 127.0.0.2 and .3 are this host's too.
#[test]
fn local_ips_give_each_vu_its_source_address_as_k6() {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let peers: Arc<Mutex<Vec<String>>> = Arc::default();
    let p = peers.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            p.lock()
                .unwrap()
                .push(s.peer_addr().unwrap().ip().to_string());
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                while common::read_request(&mut s, &mut buf, |_| {}).is_some() {
                    if s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .is_err()
                    {
                        return;
                    }
                }
            });
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let src = r#"
import http from 'k6/http';
import { sleep } from 'k6';
export const options = { scenarios: { s: { executor: 'per-vu-iterations', vus: 3, iterations: 2 } } };
export default function () {
  http.get(`${__ENV.BASE}/a`);
  sleep(0.02);
}
"#;
    let env = vec![("BASE".into(), format!("http://{addr}"))];
    let ov = Overrides {
        local_ips: Some("127.0.0.2-127.0.0.3".into()),
        ..Default::default()
    };
    let (out, _) = common::run_script_full(dir.path(), src, env, ov, true, false);
    assert_eq!(out.http_reqs, 6, "{}", out.summary);
    let mut got = peers.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, ["127.0.0.2", "127.0.0.2", "127.0.0.3"]);
}
