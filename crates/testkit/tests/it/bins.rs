//! The testkit's programs for users trying the examples on one machine,
//! run as processes: `dsps-like` (the pub/sub server) and `private-db` (a
//! private MariaDB until Ctrl-C). Each is waited on through the line it
//! prints once it is ready, never through time.

use loadlab_testkit::proc::BoundedOutput;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use loadlab_testkit::proc::{PATIENCE, Watch, text, wait_bounded};

const DSPS_LIKE: &str = env!("CARGO_BIN_EXE_dsps-like");
const PRIVATE_DB: &str = env!("CARGO_BIN_EXE_private-db");

/// One HTTP/1.1 request on its own connection: the status and the body.
fn call(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = text(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    (head[9..12].parse().unwrap(), body.to_string())
}

/// Stops a program with a signal when dropped (also when the test fails),
/// so that it cleans up after itself as it does on Ctrl-C.
struct Stop(Option<Child>);

impl Stop {
    fn signal(&mut self, sig: &str) -> std::process::Output {
        let child = self.0.take().unwrap();
        let ok = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(ok.success());
        wait_bounded(child, PATIENCE)
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        if self.0.is_some() {
            let _ = self.signal("TERM");
        }
    }
}

#[test]
fn dsps_like_prints_its_address_and_carries_a_message_to_a_subscriber() {
    // Started as a script's background job is: with SIGINT ignored.
    let mut child = Command::new("sh")
        .args([
            "-c",
            "trap '' INT; exec \"$0\" --listen 127.0.0.1:0",
            DSPS_LIKE,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = Watch::stdout(&mut child);
    let pid = child.id();
    let mut stop = Stop(Some(child));
    let line = out.wait_for_line("listening on http://", PATIENCE);
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{line:?}"))
        .parse()
        .unwrap();
    // What a plan's `monitor: {process: dsps-like}` looks for.
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap();
    assert_eq!(comm.trim(), "dsps-like");

    let sub = "/channel/ch-1/subscription/polling/sbsc-1";
    assert_eq!(call(addr, "PUT", sub, "").0, 200);
    let (st, body) = call(addr, "PUT", "/channel/ch-1/message/m-1", r#"{"at":1}"#);
    assert_eq!(st, 200, "{body}");
    let (st, body) = call(addr, "GET", &format!("{sub}?timeout=3s"), "");
    assert_eq!(st, 200, "{body}");
    let got: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(got["messages"][0]["messageID"], "m-1", "{body}");
    assert_eq!(got["messages"][0]["content"]["at"], 1, "{body}");
    let handle = got["ackHandle"].as_str().unwrap();
    let ack = format!("{sub}/message?ackHandle={handle}");
    assert_eq!(call(addr, "DELETE", &ack, "").0, 204);
    // Ctrl-C stops it all the same.
    let done = stop.signal("INT");
    assert_eq!(done.status.code(), Some(0), "{}", text(&done.stderr));
    assert!(std::net::TcpStream::connect(addr).is_err());
}

#[test]
fn dsps_like_says_what_is_wrong_with_its_command_line_in_one_line() {
    let run = |args: &[&str]| {
        let c = Command::new(DSPS_LIKE)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_bounded(c, PATIENCE)
    };
    let help = run(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(text(&help.stdout).contains("Usage: dsps-like [--listen ADDR]"));
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().to_string();
    for (args, code, want) in [
        (
            vec!["--listen", "localhost:x"],
            2,
            "--listen \"localhost:x\": not an IP:PORT",
        ),
        (
            vec!["--listen", "10.0.0.11:3000"],
            2,
            "not a loopback address",
        ),
        (vec!["--listen"], 2, "--listen needs a value"),
        (vec!["--port", "3000"], 2, "unknown flag --port"),
        (vec!["--listen", &taken], 5, "cannot listen on"),
    ] {
        let out = run(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("dsps-like: ") && err.contains(want),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `private-db` started with `args`; `None` (after a loud note, or a
/// failure under CI) when MariaDB is not installed.
fn private_db(test: &str, args: &[&str], password: Option<&str>) -> Option<(Stop, Ready)> {
    if !loadlab_testkit::db::mariadb_installed() {
        loadlab_testkit::need::missing(
            test,
            "mariadbd",
            "apt-get install -y mariadb-server mariadb-client",
        );
        return None;
    }
    let mut cmd = Command::new(PRIVATE_DB);
    cmd.args(args).stdout(Stdio::piped()).stderr(Stdio::piped());
    match password {
        Some(p) => cmd.env("MYSQL_PASSWORD", p),
        None => cmd.env_remove("MYSQL_PASSWORD"),
    };
    let mut child = cmd.spawn().unwrap();
    let out = Watch::stdout(&mut child);
    let err = Watch::stderr(&mut child);
    Some((Stop(Some(child)), Ready { out, err }))
}

/// private-db's output: stdout, and stderr to say why when it never
/// became ready.
struct Ready {
    out: Watch,
    err: Watch,
}

impl Ready {
    /// Its stdout once it says "ready"; a failure shows its stderr.
    fn wait(&self) -> String {
        let waited = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.out.wait_for_line("ready", PATIENCE)
        }));
        waited.unwrap_or_else(|_| {
            panic!(
                "private-db never said it was ready; stdout:\n{}\nstderr:\n{}",
                self.out.so_far(),
                self.err.so_far()
            )
        })
    }
}

/// The value after `key` on the line that has it.
fn after<'a>(text: &'a str, key: &str) -> &'a str {
    let line = text
        .lines()
        .find(|l| l.contains(key))
        .unwrap_or_else(|| panic!("no {key:?} in {text}"));
    line[line.find(key).unwrap() + key.len()..].trim()
}

/// Runs SQL through the `mariadb` client over TCP as `user`.
fn sql_as(port: &str, user: &str, password: &str, db: &str, sql: &str) -> String {
    let out = Command::new("mariadb")
        .args(["--no-defaults", "-h127.0.0.1", "-N", "-B"])
        .arg(format!("-P{port}"))
        .arg(format!("-u{user}"))
        .arg(format!("-D{db}"))
        .arg("-e")
        .arg(sql)
        .env("MYSQL_PWD", password)
        .output_bounded()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

#[test]
fn private_db_serves_its_user_and_databases_and_cleans_up_on_ctrl_c() {
    let test = "private_db_serves_its_user_and_databases_and_cleans_up_on_ctrl_c";
    let pw = "local 'pw' \\ with quotes";
    let args = ["--mariadb", "--database", "small", "--database", "large"];
    let Some((mut stop, out)) = private_db(test, &args, Some(pw)) else {
        return;
    };
    let shown = out.wait();
    let port = after(&shown, "listening on 127.0.0.1:").to_string();
    let dir = PathBuf::from(after(&shown, "removes ").trim_end_matches(')'));
    assert!(dir.join("sock").exists(), "{shown}");
    assert!(shown.contains("the one in $MYSQL_PASSWORD"), "{shown}");
    assert!(
        !shown.contains(pw),
        "a given password is not printed: {shown}"
    );
    assert!(shown.contains(&format!(
        "--mysql-port={port} --mysql-user=sysbench --mysql-password=\"$MYSQL_PASSWORD\" --mysql-db=small"
    )));
    for db in ["small", "large"] {
        let got = sql_as(
            &port,
            "sysbench",
            pw,
            db,
            "CREATE TABLE t (i INT); SELECT DATABASE(), CURRENT_USER()",
        );
        assert_eq!(got.trim(), format!("{db}\tsysbench@%"));
    }
    let done = stop.signal("INT");
    let err = out.err.finish();
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(err.contains("stopped MariaDB and removed"), "{err}");
    assert!(!dir.exists(), "{} is removed", dir.display());
    assert!(std::net::TcpStream::connect(format!("127.0.0.1:{port}")).is_err());
}

#[test]
fn private_db_prints_a_random_password_when_none_is_given() {
    let test = "private_db_prints_a_random_password_when_none_is_given";
    let Some((mut stop, out)) = private_db(test, &["--mariadb"], None) else {
        return;
    };
    let shown = out.wait();
    let port = after(&shown, "listening on 127.0.0.1:").to_string();
    let pw = after(&shown, "export MYSQL_PASSWORD=").to_string();
    assert!(
        pw.len() == 24 && pw.chars().all(|c| c.is_ascii_hexdigit()),
        "{pw:?}"
    );
    let got = sql_as(&port, "sysbench", &pw, "sysbench", "SELECT DATABASE()");
    assert_eq!(got.trim(), "sysbench");
    assert_eq!(stop.signal("TERM").status.code(), Some(0));
}

#[test]
fn private_db_says_what_is_wrong_with_its_command_line_in_one_line() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let taken = taken.local_addr().unwrap().port().to_string();
    for (args, code, want) in [
        (vec![], 2, "say which server to start: --mariadb"),
        (
            vec!["--mariadb", "--port", "x"],
            2,
            "--port \"x\": not a number",
        ),
        (
            vec!["--mariadb", "--database", "a;b"],
            2,
            "--database \"a;b\": use 1 to 64",
        ),
        (
            vec!["--mariadb", "--max-connections", "5"],
            2,
            "from 10 to 100000",
        ),
        (vec!["--postgres"], 2, "unknown flag --postgres"),
        (vec!["--mariadb", "--port", &taken], 5, "is taken"),
    ] {
        let c = Command::new(PRIVATE_DB)
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = wait_bounded(c, PATIENCE);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.starts_with("private-db: ") && err.contains(want),
            "{err}"
        );
    }
}
