//! The report's equivalent command lines, run by hand (issue 10 item 4): the
//! `loadlab attack …` line of each run, taken from report.md and run through
//! `sh` with the real binary against the same server on 127.0.0.1, sends what
//! the run sent (methods, URLs, headers, bodies, several requests of a
//! targets file) with the run's settings (rate and duration, keep-alive, the
//! connection cap), and still shows no credential.

use loadlab_testkit::proc::BoundedOutput;
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");
const TOKEN: &str = "cmd-token-from-env-41b7";
const API_KEY: &str = "literal-cmd-key-8c1f2e";

/// One request as the server read it: method, target, header lines (name
/// lower-cased, in order) and body.
type Req = (String, String, Vec<(String, String)>, Vec<u8>);

#[derive(Default)]
struct Seen {
    requests: Mutex<Vec<Req>>,
    /// Requests being served right now, and the most at once.
    busy: AtomicUsize,
    most: AtomicUsize,
}

impl Seen {
    fn take(&self) -> (Vec<Req>, usize) {
        let r = std::mem::take(&mut *self.requests.lock().unwrap());
        (r, self.most.swap(0, Ordering::SeqCst))
    }
}

/// An HTTP/1.1 server answering 200 "ok" (after 300 ms under /slow/),
/// recording every request and how many it serves at once.
fn server() -> (u16, Arc<Seen>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let seen = Arc::new(Seen::default());
    let s = seen.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(conn) = conn else { return };
            let s = s.clone();
            std::thread::spawn(move || serve(conn, &s));
        }
    });
    (port, seen)
}

fn serve(conn: TcpStream, seen: &Seen) {
    let mut w = conn.try_clone().unwrap();
    let mut r = BufReader::new(conn);
    loop {
        let mut first = String::new();
        if r.read_line(&mut first).unwrap_or(0) == 0 {
            return;
        }
        let n = seen.busy.fetch_add(1, Ordering::SeqCst) + 1;
        seen.most.fetch_max(n, Ordering::SeqCst);
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).unwrap_or(0) == 0 {
                seen.busy.fetch_sub(1, Ordering::SeqCst);
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (k, v) = line.split_once(':').unwrap();
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .map_or(0, |(_, v)| v.parse().unwrap());
        let mut body = vec![0; len];
        r.read_exact(&mut body).unwrap();
        let mut parts = first.split_whitespace();
        let (method, target) = (parts.next().unwrap(), parts.next().unwrap());
        if target.starts_with("/slow/") {
            std::thread::sleep(Duration::from_millis(300));
        }
        let close = headers
            .iter()
            .any(|(k, v)| k == "connection" && v.eq_ignore_ascii_case("close"));
        seen.requests
            .lock()
            .unwrap()
            .push((method.into(), target.into(), headers, body));
        // Done serving before the client can see the answer.
        seen.busy.fetch_sub(1, Ordering::SeqCst);
        let head = if close {
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        } else {
            "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
        };
        if w.write_all(head.as_bytes()).is_err() || close {
            return;
        }
    }
}

/// The distinct requests of one target (by path prefix), credentials aside:
/// what a run sent, whatever the count.
fn distinct(reqs: &[Req], prefix: &str) -> BTreeSet<Req> {
    reqs.iter()
        .filter(|r| r.1.starts_with(prefix))
        .map(|(m, t, h, b)| {
            // `loadlab attack` adds vegeta's `X-Vegeta-Seq` (one number per
            // request), which a study's own requests do not carry.
            let h = h
                .iter()
                .filter(|(k, _)| k != "x-api-key" && k != "x-vegeta-seq")
                .cloned()
                .collect();
            (m.clone(), t.clone(), h, b.clone())
        })
        .collect()
}

/// Runs a command line with `loadlab` on the PATH, killed after 30 s.
fn sh(dir: &Path, line: &str) -> (bool, String) {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(line)
        .current_dir(dir)
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("LOADLAB_TEST_CMD_TOKEN", TOKEN)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn the_reports_command_lines_reproduce_their_runs() {
    let (port, seen) = server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("b.txt"),
        format!(
            "GET http://127.0.0.1:{port}/slow/b1\nX-B: 1\n\n\
             POST http://127.0.0.1:{port}/slow/b2\nContent-Type: text/plain\n@b2.txt\n"
        ),
    )
    .unwrap();
    std::fs::write(d.join("b2.txt"), "line one\nline 'two' 100%s \\n \"$x\"\n").unwrap();
    let plan = format!(
        r#"name: command
targets:
  - name: a
    url: "http://127.0.0.1:{port}/a?x=1&y=$z"
    method: POST
    headers:
      Authorization: "Bearer ${{LOADLAB_TEST_CMD_TOKEN}}"
      X-Api-Key: "{API_KEY}"
      Content-Type: application/json
      X-Quote: "say \"hi\" to `x` for $$5 and $${{NOT}}"
    body: "{{\"n\": 1, \"s\": \"50% of $5 isn't \\\\ `2.5`\"}}\n"
  - name: b
    targets_file: b.txt
    headers: {{X-All: y}}
load: {{rates: [20], step: 1s, workers: 3, max_workers: 4, connections: 7, max_connections: 2, timeout: 3s, keepalive: false}}
"#
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let out = Command::new(BIN)
        .current_dir(d)
        .args(["study", "plan.yaml", "--db", "s.db", "--out", "out"])
        .env("LOADLAB_TEST_CMD_TOKEN", TOKEN)
        .output_bounded()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (study, study_most) = seen.take();

    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(!md.contains(API_KEY) && !md.contains(TOKEN), "{md}");
    let commands: Vec<&str> = md
        .lines()
        .filter(|l| l.ends_with("| tee results.bin | loadlab report"))
        .collect();
    // One per run, and one per target in the setup (`-rate=X`).
    assert_eq!(commands.len(), 4, "{md}");
    assert_eq!(
        commands.iter().filter(|c| c.contains(" -rate=X ")).count(),
        2
    );
    let run = |path: &str| {
        *commands
            .iter()
            .find(|c| c.contains(" -rate=20 ") && c.contains(path))
            .unwrap_or_else(|| panic!("no run command for {path}:\n{md}"))
    };
    for c in [run("/a?"), run("/slow/b1")] {
        let flags = " -duration=1s -rate=20 -workers=3 -max-workers=4 -connections=7 -max-connections=2 -timeout=3s -keepalive=false ";
        assert!(c.contains(flags), "{c}");
    }
    assert!(
        run("/a?").contains("-header=\"X-Api-Key: REDACTED\""),
        "{}",
        run("/a?")
    );

    // Each command, run by hand in an empty folder.
    for (cmd, prefix) in [(run("/a?"), "/a"), (run("/slow/b1"), "/slow/")] {
        let work = tempfile::tempdir().unwrap();
        let (ok, text) = sh(work.path(), cmd);
        assert!(ok, "`{cmd}` failed:\n{text}");
        assert!(
            text.contains("Requests      [total, rate, throughput]"),
            "{text}"
        );
        let (by_hand, most) = seen.take();
        assert_eq!(
            distinct(&by_hand, prefix),
            distinct(&study, prefix),
            "`{cmd}` sent other requests than its run"
        );
        assert!(most <= 2, "`{cmd}` served {most} requests at once");
        if prefix == "/a" {
            // Rate and duration: 20/s for 1s, as the run (a loaded machine
            // may leave a few unsent, in both).
            let n = |r: &[Req]| r.iter().filter(|r| r.1.starts_with("/a")).count();
            assert!((16..=20).contains(&n(&study)), "{}", n(&study));
            assert!((16..=20).contains(&n(&by_hand)), "{}", n(&by_hand));
            // The literal credential is not in the command; the one from
            // the environment is expanded by the shell.
            let h = &by_hand[0].2;
            assert!(
                h.contains(&("x-api-key".into(), "REDACTED".into())),
                "{h:?}"
            );
            assert!(
                h.contains(&("authorization".into(), format!("Bearer {TOKEN}"))),
                "{h:?}"
            );
            assert!(h.contains(&("connection".into(), "close".into())), "{h:?}");
        }
    }
    assert!(study_most <= 2, "the study served {study_most} at once");
    assert_eq!(distinct(&study, "/slow/").len(), 2);
    let b2 = distinct(&study, "/slow/b2");
    assert_eq!(
        b2.first().unwrap().3,
        b"line one\nline 'two' 100%s \\n \"$x\"\n"
    );
}
