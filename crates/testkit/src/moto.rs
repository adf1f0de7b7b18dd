//! A real S3-compatible server for tests: moto's (`pip install
//! 'moto[server]'`; `.ci/run` installs it), on a free 127.0.0.1 port,
//! killed when dropped. moto does not check request signatures, so buckets
//! and objects are made here with plain HTTP requests.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A moto S3 server on 127.0.0.1, killed when dropped.
pub struct Moto {
    child: Child,
    pub port: u16,
}

impl Drop for Moto {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Moto {
    /// Starts `moto_server` (or `$MOTO_SERVER`) and waits until it listens
    /// (30 s at most).
    pub fn start() -> Moto {
        let exe = std::env::var("MOTO_SERVER").unwrap_or_else(|_| "moto_server".into());
        // A free port: bound, then released for moto to take.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(&exe)
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start {exe} ({e}): pip install 'moto[server]' (.ci/run does)")
            });
        let m = Moto { child, port };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "moto_server did not listen on {port} within 30 s"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        m
    }

    /// Kills the server (a storage outage); dropping does it too.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Creates a bucket.
    pub fn bucket(&self, name: &str) {
        self.request(&format!("PUT /{name}"), b"", "create bucket");
    }

    /// Stores an object as is.
    pub fn put(&self, bucket: &str, key: &str, body: &[u8]) {
        self.request(&format!("PUT /{bucket}/{key}"), body, "put object");
    }

    fn request(&self, line: &str, body: &[u8], what: &str) {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            s,
            "{line} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        )
        .unwrap();
        s.write_all(body).unwrap();
        let mut resp = String::new();
        s.read_to_string(&mut resp).unwrap();
        assert!(resp.starts_with("HTTP/1.1 200"), "{what}: {resp}");
    }

    /// The AWS environment that points a client at this server, with the
    /// given secret key (tests check that it never shows in any output).
    pub fn env(&self, secret: &str) -> Vec<(String, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID".into(), "AKIDLOADLABTEST".into()),
            ("AWS_SECRET_ACCESS_KEY".into(), secret.into()),
            ("AWS_REGION".into(), "us-east-1".into()),
            ("AWS_ENDPOINT_URL".into(), self.endpoint()),
        ]
    }

    /// `command` with every inherited `AWS_*` variable removed and this
    /// server's environment set.
    pub fn configure<'c>(&self, command: &'c mut Command, secret: &str) -> &'c mut Command {
        for (k, _) in std::env::vars() {
            if k.starts_with("AWS_") {
                command.env_remove(k);
            }
        }
        command.envs(self.env(secret))
    }
}
