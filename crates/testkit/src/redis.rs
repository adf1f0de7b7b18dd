//! A private Redis server (Debian's `redis-server`) for the tests of
//! k6's redis module: on a free 127.0.0.1 port, in a temporary directory,
//! with nothing saved to disk, plain or over TLS (a fresh self-signed
//! certificate for `localhost`); killed when the handle is dropped.

use std::process::{Child, Command, Stdio};

use crate::db::{free_port, wait_for_port, which};

/// A running server; killed on drop.
pub struct Redis {
    child: Child,
    _dir: tempfile::TempDir,
    pub port: u16,
    /// Over TLS: the server's certificate, PEM (a client's CA).
    pub cert_pem: Option<String>,
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Redis {
    /// Starts one, or returns `None` after a loud note when
    /// `redis-server` is not installed (under `CI` that fails the test).
    pub fn start_or_skip(test: &str) -> Option<Redis> {
        Self::start(test, false)
    }

    /// [`Self::start_or_skip`], the server speaking TLS only.
    pub fn start_tls_or_skip(test: &str) -> Option<Redis> {
        Self::start(test, true)
    }

    fn start(test: &str, tls: bool) -> Option<Redis> {
        let Some(prog) = which("redis-server") else {
            crate::need::missing(test, "redis-server", "apt-get install -y redis-server");
            return None;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("redis.log");
        let cert_pem = tls.then(|| {
            let ck = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
            std::fs::write(dir.path().join("cert.pem"), ck.cert.pem()).unwrap();
            std::fs::write(dir.path().join("key.pem"), ck.signing_key.serialize_pem()).unwrap();
            ck.cert.pem()
        });
        // A port can be taken between finding it free and the server
        // binding it: try a few.
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut cmd = Command::new(&prog);
            if tls {
                let file = |f: &str| dir.path().join(f).display().to_string();
                cmd.args(["--port", "0", "--tls-port", &port.to_string()])
                    .args(["--tls-cert-file", &file("cert.pem")])
                    .args(["--tls-key-file", &file("key.pem")])
                    .args(["--tls-ca-cert-file", &file("cert.pem")])
                    .args(["--tls-auth-clients", "no"]);
            } else {
                cmd.args(["--port", &port.to_string()]);
            }
            let mut child = cmd
                .args(["--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .arg("--dir")
                .arg(dir.path())
                .arg("--logfile")
                .arg(&log)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("{test}: redis-server: {e}"));
            match wait_for_port(port, &mut child, &log, "redis-server") {
                Ok(()) => {
                    return Some(Redis {
                        child,
                        _dir: dir,
                        port,
                        cert_pem,
                    });
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last = e;
                }
            }
        }
        panic!("{test}: {last}");
    }
}
