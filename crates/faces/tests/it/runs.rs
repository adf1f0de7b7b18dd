//! End-to-end runs of the ab and wrk faces against a real HTTP/1.1 server on
//! 127.0.0.1:0 that records when each request arrived and on which connection.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use loadlab_faces::{ab, wrk};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

const BODY: &str = "hello world\n";

#[derive(Default)]
struct Seen {
    /// (arrival since server start, connection number)
    arrivals: Vec<(Duration, u64)>,
    connections: u64,
}

/// Serves one connection: a fixed response per request head, closing after
/// `Connection: close`.
async fn handle<S: AsyncRead + AsyncWrite + Unpin>(
    mut sock: S,
    seen: Arc<Mutex<Seen>>,
    conn: u64,
    t0: Instant,
) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        buf.drain(..end + 4);
        seen.lock().unwrap().arrivals.push((t0.elapsed(), conn));
        let close = head.contains("connection: close");
        let is_head = head.starts_with("head ");
        let resp = format!(
            "HTTP/1.1 200 OK\r\nServer: test/1\r\nContent-Length: {}\r\n\r\n{}",
            BODY.len(),
            if is_head { "" } else { BODY }
        );
        if sock.write_all(resp.as_bytes()).await.is_err() || close {
            let _ = sock.shutdown().await;
            return;
        }
    }
}

/// Starts the server (HTTPS with a self-signed certificate when `tls`) on its
/// own thread and runtime; returns its base URL.
fn server_with(tls: bool) -> (String, Arc<Mutex<Seen>>) {
    let seen = Arc::new(Mutex::new(Seen::default()));
    let s2 = seen.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let acceptor = tls.then(|| loadlab_testkit::tls::self_signed(&[]).acceptor);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(l.local_addr().unwrap()).unwrap();
            let t0 = Instant::now();
            loop {
                let Ok((sock, _)) = l.accept().await else {
                    return;
                };
                let seen = s2.clone();
                let conn = {
                    let mut s = seen.lock().unwrap();
                    s.connections += 1;
                    s.connections
                };
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    match acceptor {
                        None => handle(sock, seen, conn, t0).await,
                        Some(a) => {
                            if let Ok(tls) = a.accept(sock).await {
                                handle(tls, seen, conn, t0).await;
                            }
                        }
                    }
                });
            }
        });
    });
    let addr = rx.recv().unwrap();
    (
        format!("{}://{addr}", if tls { "https" } else { "http" }),
        seen,
    )
}

fn server() -> (String, Arc<Mutex<Seen>>) {
    server_with(false)
}

fn args(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

#[test]
fn ab_runs_the_seed_command_shape() {
    let (base, seen) = server();
    let dir = tempfile::tempdir().unwrap();
    let g = dir.path().join("out.data");
    let e = dir.path().join("p.csv");
    let url = format!("{base}/~Lars/md3/");
    let a = args(&[
        "-c",
        "4",
        "-n",
        "200",
        "-g",
        g.to_str().unwrap(),
        "-e",
        e.to_str().unwrap(),
        &url,
    ]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    let run = ab::run(
        &o,
        &mut out,
        Box::new(std::io::sink()),
        std::future::pending(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    let head_len = run.probe.head_len;
    assert_eq!(
        head_len,
        "HTTP/1.1 200 OK\r\nServer: test/1\r\nContent-Length: 12\r\n\r\n".len() as u64
    );
    for line in [
        "Benchmarking 127.0.0.1 (be patient)\n",
        "Server Software:        test/1\n",
        "Document Path:          /~Lars/md3/\n",
        "Document Length:        12 bytes\n",
        "Concurrency Level:      4\n",
        "Complete requests:      200\n",
        "Failed requests:        0\n",
        &format!("Total transferred:      {} bytes\n", 200 * (12 + head_len)),
        "HTML transferred:       2400 bytes\n",
        "Connection Times (ms)\n",
        " 100%  ",
    ] {
        assert!(text.contains(line), "missing {line:?} in:\n{text}");
    }
    assert_eq!(run.summary.requests, 200);
    // Without -k every request has its own connection (plus the probe's).
    let s = seen.lock().unwrap();
    assert_eq!(s.arrivals.len(), 201);
    assert_eq!(s.connections, 201);
    drop(s);
    let tsv = std::fs::read_to_string(&g).unwrap();
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "starttime\tseconds\tctime\tdtime\tttime\twait");
    assert_eq!(lines.len(), 201);
    let ttimes: Vec<u64> = lines[1..]
        .iter()
        .map(|l| l.split('\t').nth(4).unwrap().parse().unwrap())
        .collect();
    assert!(
        ttimes.windows(2).all(|w| w[0] <= w[1]),
        "not sorted by ttime"
    );
    let csv = std::fs::read_to_string(&e).unwrap();
    assert_eq!(csv.lines().count(), 102);
    assert!(csv.starts_with("Percentage served,Time in ms\n0,"));
}

#[test]
fn ab_keepalive_reuses_connections() {
    let (base, seen) = server();
    let a = args(&["-k", "-q", "-c", "3", "-n", "90", &format!("{base}/")]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    ab::run(
        &o,
        &mut out,
        Box::new(std::io::sink()),
        std::future::pending(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Keep-Alive requests:    90\n"), "{text}");
    assert!(text.contains("(be patient)...")); // -q: no progress lines
    let s = seen.lock().unwrap();
    assert_eq!(s.arrivals.len(), 91);
    assert!(s.connections <= 4, "{} connections", s.connections);
}

#[test]
fn wrk_honours_a_rate_below_the_thread_count() {
    let (base, seen) = server();
    let a = args(&["-t4", "-c8", "-d2s", "-R2", "-L", "-U", &format!("{base}/")]);
    let wrk::WrkCommand::Run(o) = wrk::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    let run = wrk::run(&o, &mut out, std::future::pending()).unwrap();
    let text = String::from_utf8(out).unwrap();
    // 2/s for 2 s: 4 requests (wrk2 would send ~0 or an uncontrolled rate).
    assert!((3..=5).contains(&run.report.complete), "{text}");
    assert_eq!(
        seen.lock().unwrap().arrivals.len() as u64,
        run.report.complete + 1
    );
    assert_eq!(
        text.matches("  Thread calibration: mean lat.: ").count(),
        4,
        "{text}"
    );
    assert!(text.starts_with(&format!(
        "Running 2s test @ {base}/\n  4 threads and 8 connections\n"
    )));
    assert!(text.contains("  Latency Distribution (HdrHistogram - Recorded Latency)\n"));
    assert!(text.contains("  Latency Distribution (HdrHistogram - Uncorrected Latency (measured without taking delayed starts into account))\n"));
    assert_eq!(
        text.matches("#[Buckets =           27, SubBuckets     =         2048]\n")
            .count(),
        2
    );
    assert!(
        text.contains(&format!("  {} requests in 2.", run.report.complete)),
        "{text}"
    );
    assert!(text.contains("\nRequests/sec: ") && text.contains("\nTransfer/sec: "));
}

#[test]
fn wrk_spreads_requests_over_many_connections_without_bursts() {
    let (base, seen) = server();
    let a = args(&["-t2", "-c100", "-d1500ms", "-R200", &format!("{base}/")]);
    let wrk::WrkCommand::Run(o) = wrk::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    let run = wrk::run(&o, &mut out, std::future::pending()).unwrap();
    // 200/s for 1.5 s.
    assert!(
        (270..=310).contains(&run.report.complete),
        "{}",
        run.report.complete
    );
    let s = seen.lock().unwrap();
    // Skip the probe; count arrivals in every 50 ms window. A steady 200/s
    // puts 10 in each; connection-synchronised bursts would put dozens.
    let t: Vec<Duration> = s.arrivals.iter().skip(1).map(|a| a.0).collect();
    let worst = t
        .iter()
        .map(|&start| {
            t.iter()
                .filter(|&&x| x >= start && x < start + Duration::from_millis(50))
                .count()
        })
        .max()
        .unwrap();
    // A client that falls behind (a starved machine) sends what is due at
    // once, as an open model must, and reports it as send lag: only a
    // burst that the run's own lag does not explain is the connections'.
    // `worst` requests at 200/s span (worst - 1) / 200 s of the schedule.
    let lag_explains = Duration::from_secs_f64((worst as f64 - 1.0) / 200.0)
        .saturating_sub(Duration::from_millis(100));
    assert!(
        worst <= 30 || run.summary.max_send_lag >= lag_explains,
        "{worst} requests within 50 ms, with the run's largest send lag {:?}",
        run.summary.max_send_lag
    );
}

#[test]
fn wrk_closed_loop_without_rate() {
    let (base, _seen) = server();
    let a = args(&["-t1", "-c2", "-d1s", &format!("{base}/")]);
    let wrk::WrkCommand::Run(o) = wrk::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    let run = wrk::run(&o, &mut out, std::future::pending()).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(run.report.complete > 50, "{text}");
    assert!(!text.contains("Thread calibration"));
    assert!(text.contains("  Thread Stats   Avg      Stdev     Max   +/- Stdev\n"));
}

#[test]
fn unreachable_server_is_a_clear_error() {
    let refused = loadlab_testkit::refused::Refused::new();
    let addr = refused.addr();
    let a = args(&["-n", "5", &format!("http://{addr}/")]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    let e = ab::run(
        &o,
        &mut Vec::new(),
        Box::new(std::io::sink()),
        std::future::pending(),
    )
    .unwrap_err();
    assert!(e.to_string().contains(&addr.to_string()), "{e}");
}

#[test]
fn ab_and_wrk_speak_https() {
    let (base, seen) = server_with(true);
    let a = args(&["-k", "-c", "2", "-n", "20", &format!("{base}/secure")]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    let mut out = Vec::new();
    let run = ab::run(
        &o,
        &mut out,
        Box::new(std::io::sink()),
        std::future::pending(),
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("SSL/TLS Protocol:       TLSv1."), "{text}");
    assert!(
        text.contains("Complete requests:      20\n")
            && text.contains("Failed requests:        0\n"),
        "{text}"
    );
    assert!(
        !text.contains("TLS Server Name"),
        "no SNI line for an IP address"
    );
    assert_eq!(run.report.html_transferred, 20 * BODY.len() as u64);
    let w = args(&["-t1", "-c2", "-d1s", "-R50", &format!("{base}/")]);
    let wrk::WrkCommand::Run(o) = wrk::parse(&w).unwrap() else {
        panic!()
    };
    let run = wrk::run(&o, &mut Vec::new(), std::future::pending()).unwrap();
    assert!(
        (45..=51).contains(&run.report.complete),
        "{}",
        run.report.complete
    );
    assert!(!run.report.errors.any());
    assert_eq!(
        seen.lock().unwrap().arrivals.len() as u64,
        20 + 1 + run.report.complete + 1
    );
}

#[test]
fn ab_accepts_a_url_without_scheme_as_http() {
    // ab assumes http:// when the URL has no scheme: `ab -n 10 127.0.0.1:PORT/`.
    let (base, seen) = server();
    let bare = format!("{}/bare?x=1", base.strip_prefix("http://").unwrap());
    let a = args(&["-q", "-n", "10", &bare]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    assert!(!o.endpoint.https);
    assert_eq!(o.endpoint.path, "/bare?x=1");
    let mut out = Vec::new();
    let run = ab::run(
        &o,
        &mut out,
        Box::new(std::io::sink()),
        std::future::pending(),
    )
    .unwrap();
    assert_eq!(run.summary.requests, 10);
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("Complete requests:      10\n"), "{text}");
    assert!(
        text.contains("Document Path:          /bare?x=1\n"),
        "{text}"
    );
    // The probe plus ten requests reached the server.
    assert_eq!(seen.lock().unwrap().arrivals.len(), 11);
    // Without a path, as with a scheme, `/` is requested.
    let a = args(&["-n", "1", base.strip_prefix("http://").unwrap()]);
    let ab::AbCommand::Run(o) = ab::parse(&a).unwrap() else {
        panic!()
    };
    assert_eq!(o.endpoint.path, "/");
    // A scheme other than http/https is still refused by name.
    let e = ab::parse(&args(&["-n", "1", "ftp://127.0.0.1/"]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("ftp://127.0.0.1/"), "{e}");
}

#[test]
fn ab_and_wrk_long_help_is_the_usage() {
    assert!(matches!(
        ab::parse(&args(&["--help"])).unwrap(),
        ab::AbCommand::Help
    ));
    assert!(matches!(
        ab::parse(&args(&["-n", "5", "--help", "http://h/"])).unwrap(),
        ab::AbCommand::Help
    ));
    assert!(matches!(
        wrk::parse(&args(&["--help"])).unwrap(),
        wrk::WrkCommand::Help
    ));
}
