//! The HTTP client as a user sees it through the binary: what the report's
//! Error Set says about failures, and the client's flags. Real servers on
//! 127.0.0.1, real pipes.

use loadlab_testkit::proc::text;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

/// Runs loadlab with `args`, feeding `stdin`, bounded by a generous timeout.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    let mut si = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = si.write_all(&data);
    });
    let start = Instant::now();
    let out = loop {
        if child.try_wait().unwrap().is_some() {
            break child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("loadlab did not finish within 60s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    out
}

/// The lines of the report's Error Set.
fn error_set(report: &str) -> Vec<String> {
    report
        .lines()
        .skip_while(|l| !l.starts_with("Error Set:"))
        .skip(1)
        // A blank line ends the error set: loadlab's own lines (Send Lag,
        // Schedule, …) may follow on a loaded machine.
        .take_while(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Accepts connections and never answers.
fn silent_server() -> std::net::SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    std::thread::spawn(move || {
        let mut keep = Vec::new();
        for c in l.incoming().take(64) {
            keep.push(c);
        }
    });
    addr
}

#[test]
fn error_set_names_the_dialled_address_and_the_timeout() {
    let down = free_port();
    let silent = silent_server();
    let targets = format!(
        "GET http://127.0.0.1:{down}/down\n\nGET http://app.test/moved\n\nGET http://{silent}/slow\n"
    );
    let connect_to = format!("-connect-to=app.test:80:127.0.0.1:{down}");
    let out = run(
        &[
            "attack",
            "-rate=20",
            "-max-requests=6",
            "-timeout=300ms",
            &connect_to,
        ],
        targets.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let rep = run(&["report"], &out.stdout);
    let report = text(&rep.stdout);
    let mut errors = error_set(&report);
    errors.sort();
    let mut want = vec![
        format!(
            "Get \"http://127.0.0.1:{down}/down\": connect 127.0.0.1:{down}: connection refused"
        ),
        format!("Get \"http://{silent}/slow\": timeout awaiting response after 300ms"),
        format!("Get \"http://app.test/moved\": connect 127.0.0.1:{down}: connection refused"),
    ];
    want.sort();
    assert_eq!(errors, want, "{report}");
    let enc = run(&["encode", "-to=json"], &out.stdout);
    assert!(
        text(&enc.stdout).contains("timeout awaiting response after 300ms"),
        "{}",
        text(&enc.stdout)
    );
}

/// An HTTP/1.1 server answering every request on every connection with
/// `response`; returns its address. Each request head is recorded in `seen`.
fn raw_server(
    response: Vec<u8>,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for c in l.incoming().take(64) {
            let Ok(mut c) = c else { return };
            let (response, seen) = (response.clone(), seen2.clone());
            std::thread::spawn(move || {
                while let Some(got) = loadlab_testkit::raw::read_head_blocking(&mut c) {
                    seen.lock()
                        .unwrap()
                        .push(String::from_utf8_lossy(&got).into_owned());
                    if c.write_all(&response).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, seen)
}

#[test]
fn max_headers_size_accepts_large_heads_and_names_the_limit() {
    let mut response = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n".to_vec();
    for i in 0..200 {
        response.extend_from_slice(format!("X-Field-{i}: some value\r\n").as_bytes());
    }
    response.extend_from_slice(b"\r\nok");
    let (addr, _) = raw_server(response);
    let target = format!("GET http://{addr}/\n");
    for (limit, want) in [
        (None, None),
        (
            Some("-max-headers-size=2kb"),
            Some("response headers larger than -max-headers-size=2kb"),
        ),
    ] {
        let mut args = vec!["attack", "-rate=20", "-max-requests=3"];
        args.extend(limit);
        let out = run(&args, target.as_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&run(&["report"], &out.stdout).stdout);
        match want {
            None => assert!(report.contains("200:3"), "{report}"),
            Some(w) => assert_eq!(
                error_set(&report),
                vec![format!("Get \"http://{addr}/\": {w}")],
                "{report}"
            ),
        }
    }
    let bad = run(
        &["attack", "-max-headers-size=12", "-max-requests=1"],
        target.as_bytes(),
    );
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("-max-headers-size"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn requests_ask_for_gzip_unless_compression_is_off() {
    let (addr, seen) = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
            .to_vec(),
    );
    let target = format!("GET http://{addr}/\n");
    for (flag, want) in [(None, true), (Some("-compression=false"), false)] {
        seen.lock().unwrap().clear();
        let mut args = vec!["attack", "-rate=20", "-max-requests=2"];
        args.extend(flag);
        let out = run(&args, target.as_bytes());
        assert!(out.status.success(), "{}", text(&out.stderr));
        let report = text(&run(&["report"], &out.stdout).stdout);
        // The compressed bytes, as they came.
        assert!(
            report
                .lines()
                .any(|l| l.starts_with("Bytes In") && l.contains("20, 10.00")),
            "{report}"
        );
        let heads = seen.lock().unwrap().clone();
        assert_eq!(heads.len(), 2);
        for h in heads {
            let asked = h
                .lines()
                .any(|l| l.eq_ignore_ascii_case("accept-encoding: gzip"));
            assert_eq!(asked, want, "{flag:?}: {h}");
        }
    }
}
