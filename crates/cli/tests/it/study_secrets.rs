//! No secret of a plan reaches a shared artefact: a real study through the
//! real binary against a real server on 127.0.0.1, then every byte of the
//! report folder, the store (and any -wal/-journal beside it) and every line
//! the commands printed is scanned for the secret values.

use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

const TOKEN: &str = "tok-from-env-8d2c71f0";
const URL_PASS_ENV: &str = "url-pass-from-env-3e8f";
const API_KEY: &str = "literal-api-key-5f3a9c";
const COOKIE: &str = "cookie-secret-77c1a0";
const SESSION: &str = "listed-header-secret-0b2e4";
const URL_PASS: &str = "url-password-91d4b6";

/// A keep-alive HTTP/1.1 server answering 200 "ok", recording request heads.
fn server() -> (u16, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    let heads = Arc::new(Mutex::new(Vec::new()));
    let h = heads.clone();
    std::thread::spawn(move || {
        for conn in l.incoming() {
            let Ok(conn) = conn else { return };
            let h = h.clone();
            std::thread::spawn(move || serve(conn, h));
        }
    });
    (port, heads)
}

fn serve(conn: TcpStream, heads: Arc<Mutex<Vec<String>>>) {
    let mut w = conn.try_clone().unwrap();
    let mut r = BufReader::new(conn);
    loop {
        let mut head = String::new();
        loop {
            let mut line = String::new();
            match r.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            head.push_str(&line);
        }
        heads.lock().unwrap().push(head);
        if w.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .is_err()
        {
            return;
        }
    }
}

fn plan(port: u16) -> String {
    format!(
        r#"name: secrets
question: Are credentials kept out of the report?
targets:
  - name: a
    url: "http://127.0.0.1:{port}/a"
    headers:
      Authorization: "Bearer ${{LOADLAB_TEST_TOKEN}}"
      X-Api-Key: "{API_KEY}"
      Cookie: "session={COOKIE}"
      X-Session: {SESSION}
      Accept: text/plain
  - name: b
    url: "http://bob:{URL_PASS}@127.0.0.1:{port}/b"
  - name: c
    url: "http://carol:${{LOADLAB_TEST_PASS}}@127.0.0.1:1/c"
redact: [X-Session]
load: {{rates: [20], step: 600ms, timeout: 2s}}
slo: {{success: 50%}}
"#
    )
}

fn loadlab(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .env("LOADLAB_TEST_TOKEN", TOKEN)
        .env("LOADLAB_TEST_PASS", URL_PASS_ENV)
        .output_bounded()
        .unwrap()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn no_secret_reaches_the_report_the_store_or_the_terminal() {
    let (port, heads) = server();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("plan")).unwrap();
    std::fs::create_dir_all(d.join("work")).unwrap();
    std::fs::write(d.join("plan/plan.yaml"), plan(port)).unwrap();
    let w = d.join("work");

    let mut printed: Vec<u8> = Vec::new();
    let mut run = |args: &[&str]| {
        let o = loadlab(&w, args);
        printed.extend_from_slice(&o.stdout);
        printed.extend_from_slice(&o.stderr);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["study", "../plan/plan.yaml", "--db", "s.db", "--out", "out"]);
    let show = run(&["runs", "show", "1", "--db", "s.db"]);
    run(&["runs", "--db", "s.db"]);
    for id in ["1", "2", "3"] {
        run(&["runs", "run", id, "--db", "s.db"]);
    }
    run(&["runs", "report", "1", "--db", "s.db", "--out", "again"]);
    assert!(show.contains("sweep"), "{show}");

    // The secrets were sent: the server saw the expanded token.
    let seen = heads.lock().unwrap().join("\n");
    assert!(
        seen.to_ascii_lowercase()
            .contains(&format!("authorization: bearer {TOKEN}").to_ascii_lowercase()),
        "{seen}"
    );
    assert!(seen.contains(API_KEY), "{seen}");

    let secrets = [TOKEN, URL_PASS_ENV, API_KEY, COOKIE, SESSION, URL_PASS];
    let mut all = Vec::new();
    files(&w, &mut all);
    assert!(all.iter().any(|p| p.ends_with("s.db")), "{all:?}");
    assert!(
        all.iter().any(|p| p.ends_with("out/report.html")),
        "{all:?}"
    );
    for p in &all {
        let bytes = std::fs::read(p).unwrap();
        for s in secrets {
            assert!(
                !contains(&bytes, s),
                "{} holds the secret {s:?}",
                p.display()
            );
        }
    }
    for s in secrets {
        assert!(
            !contains(&printed, s),
            "the commands printed the secret {s:?}:\n{}",
            String::from_utf8_lossy(&printed)
        );
    }

    // What the report shows instead: references kept (the shell expands
    // them when the command line is run), credentials redacted.
    let md = std::fs::read_to_string(w.join("out/report.md")).unwrap();
    for shown in [
        "-header=\"Authorization: Bearer ${LOADLAB_TEST_TOKEN}\"",
        "-header=\"X-Api-Key: REDACTED\"",
        "-header=\"Cookie: REDACTED\"",
        "-header=\"X-Session: REDACTED\"",
        "-header=\"Accept: text/plain\"",
        "http://bob:xxxxx@127.0.0.1",
        "http://carol:${LOADLAB_TEST_PASS}@127.0.0.1:1/c",
    ] {
        assert!(md.contains(shown), "report.md lacks {shown:?}:\n{md}");
    }
    // The error set names the URL with its password masked (the engine's
    // labels carry the expanded URL, masked as Go masks it).
    assert!(
        md.lines()
            .any(|l| l.starts_with("GET http://carol:xxxxx@127.0.0.1:1/c: ")),
        "{md}"
    );
    let store = loadlab_study::Store::open(&w.join("s.db")).unwrap();
    let row = store.study(1).unwrap();
    assert!(row.plan_yaml.contains("Bearer ${LOADLAB_TEST_TOKEN}"));
    assert!(row.plan_json.contains("${LOADLAB_TEST_TOKEN}"));
}

#[test]
fn a_missing_variable_names_the_file_line_and_variable() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = "name: missing\n# ${LOADLAB_TEST_NOT_SET_ANYWHERE} in a comment does not count\ntargets:\n  - name: a\n    url: http://127.0.0.1:1/\n    headers: {Authorization: \"Bearer ${LOADLAB_TEST_NOT_SET_ANYWHERE}\"}\nload: {rates: [10], step: 1s}\n";
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    let o = Command::new(BIN)
        .current_dir(d)
        .args(["study", "plan.yaml", "--db", "s.db"])
        .env_remove("LOADLAB_TEST_NOT_SET_ANYWHERE")
        .output_bounded()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("plan.yaml:6:") && err.contains("LOADLAB_TEST_NOT_SET_ANYWHERE is not set"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!d.join("s.db").exists());
}
