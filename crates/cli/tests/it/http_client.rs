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
    let refused = loadlab_testkit::refused::Refused::new();
    let down = refused.port();
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

/// A 60,065-byte HTML page, compressible as pages are.
fn page() -> Vec<u8> {
    let mut p = Vec::with_capacity(60_065);
    let mut i = 0;
    while p.len() < 60_065 {
        p.extend_from_slice(format!("<li class=\"item\">entry {}</li>\n", i % 50).as_bytes());
        i += 1;
    }
    p.truncate(60_065);
    p
}

/// Serves `page` gzip-compressed (`Content-Encoding: gzip`) to requests
/// that accept gzip, plain to the others; records each request head.
fn page_server(
    page: &[u8],
) -> (
    std::net::SocketAddr,
    usize,
    std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) {
    let zipped = loadlab_origin::payload::gzip_bytes(page);
    let respond = |encoding: &str, body: &[u8]| {
        let mut r = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{encoding}Content-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        r.extend_from_slice(body);
        std::sync::Arc::new(r)
    };
    let (gz, plain) = (
        respond("Content-Encoding: gzip\r\n", &zipped),
        respond("", page),
    );
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    std::thread::spawn(move || {
        for c in l.incoming().take(64) {
            let Ok(mut c) = c else { return };
            let (gz, plain, seen) = (gz.clone(), plain.clone(), seen2.clone());
            std::thread::spawn(move || {
                while let Some(got) = loadlab_testkit::raw::read_head_blocking(&mut c) {
                    let head = String::from_utf8_lossy(&got).into_owned();
                    let gzip = head.lines().any(|l| {
                        l.to_ascii_lowercase().starts_with("accept-encoding:") && l.contains("gzip")
                    });
                    seen.lock().unwrap().push(head);
                    if c.write_all(if gzip { &gz } else { &plain }).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, zipped.len(), seen)
}

/// The figures after a report line's label and brackets.
fn figures<'a>(report: &'a str, label: &str) -> Option<&'a str> {
    report
        .lines()
        .find(|l| l.starts_with(label))
        .map(|l| l.rsplit("  ").next().unwrap().trim())
}

#[test]
fn bytes_in_counts_gzip_pages_decoded_as_vegeta_and_wire_in_as_they_came() {
    let page = page();
    let (addr, zipped, seen) = page_server(&page);
    assert!(zipped < 60_065 / 4, "{zipped}");
    let target = format!("GET http://{addr}/page\n");
    let out = run(
        &["attack", "-rate=20", "-max-requests=4"],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&run(&["report"], &out.stdout).stdout);
    // vegeta's line: the page as Go's client hands it to vegeta, decoded.
    assert_eq!(
        figures(&report, "Bytes In"),
        Some("240260, 60065.00"),
        "{report}"
    );
    // loadlab's own line: the gzip bytes that came over the wire.
    assert_eq!(
        figures(&report, "Wire In"),
        Some(format!("{}, {zipped}.00", 4 * zipped).as_str()),
        "{report}"
    );
    let heads = seen.lock().unwrap().clone();
    assert_eq!(heads.len(), 4);
    for h in heads {
        assert!(
            h.lines()
                .any(|l| l.eq_ignore_ascii_case("accept-encoding: gzip")),
            "{h}"
        );
    }
    // vegeta's encodings carry vegeta's figure.
    let json = text(&run(&["encode", "-to=json"], &out.stdout).stdout);
    for l in json.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert_eq!(v["bytes_in"], 60_065, "{l}");
    }
    // The JSON report has both.
    let rep = text(&run(&["report", "-type=json"], &out.stdout).stdout);
    let v: serde_json::Value = serde_json::from_str(&rep).unwrap();
    assert_eq!(v["bytes_in"]["total"], 240_260);
    assert_eq!(v["wire_in"]["total"], 4 * zipped as u64);
}

#[test]
fn a_request_with_its_own_accept_encoding_counts_the_gzip_bytes() {
    let page = page();
    let (addr, zipped, seen) = page_server(&page);
    let target = format!("GET http://{addr}/page\nAccept-Encoding: gzip\n");
    let out = run(
        &["attack", "-rate=20", "-max-requests=2"],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&run(&["report"], &out.stdout).stdout);
    // As Go's client: a body asked for by the request is not decoded.
    assert_eq!(
        figures(&report, "Bytes In"),
        Some(format!("{}, {zipped}.00", 2 * zipped).as_str()),
        "{report}"
    );
    assert_eq!(figures(&report, "Wire In"), None, "{report}");
    assert_eq!(seen.lock().unwrap().len(), 2);
    // Without compression nothing is asked for: the plain page.
    seen.lock().unwrap().clear();
    let target = format!("GET http://{addr}/page\n");
    let out = run(
        &[
            "attack",
            "-rate=20",
            "-max-requests=2",
            "-compression=false",
        ],
        target.as_bytes(),
    );
    let report = text(&run(&["report"], &out.stdout).stdout);
    assert_eq!(
        figures(&report, "Bytes In"),
        Some("120130, 60065.00"),
        "{report}"
    );
    for h in seen.lock().unwrap().iter() {
        assert!(!h.to_ascii_lowercase().contains("accept-encoding"), "{h}");
    }
}

#[test]
fn a_body_labelled_gzip_that_is_not_fails_as_in_vegeta() {
    let (addr, _) = raw_server(
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\n<p>hi</p>\n"
            .to_vec(),
    );
    let target = format!("GET http://{addr}/\n");
    let out = run(
        &["attack", "-rate=20", "-max-requests=2"],
        target.as_bytes(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report = text(&run(&["report"], &out.stdout).stdout);
    assert!(
        report
            .lines()
            .any(|l| l.starts_with("Status Codes") && l.contains("0:2")),
        "{report}"
    );
    assert_eq!(
        error_set(&report),
        vec![format!(
            "Get \"http://{addr}/\": gzip: invalid compressed body"
        )]
    );
    // Its bytes, as they came.
    assert_eq!(figures(&report, "Bytes In"), Some("20, 10.00"), "{report}");
}
