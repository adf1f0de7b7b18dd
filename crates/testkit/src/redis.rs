//! A private Redis server (Debian's `redis-server`) for the tests of
//! k6's redis module: on a free 127.0.0.1 port, in a temporary directory,
//! with nothing saved to disk; killed when the handle is dropped.

use std::process::{Child, Command, Stdio};

use crate::db::{free_port, wait_for_port, which};

/// A running server; killed on drop.
pub struct Redis {
    child: Child,
    _dir: tempfile::TempDir,
    pub port: u16,
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
        let Some(prog) = which("redis-server") else {
            crate::need::missing(test, "redis-server", "apt-get install -y redis-server");
            return None;
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let log = dir.path().join("redis.log");
        // A port can be taken between finding it free and the server
        // binding it: try a few.
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let mut child = Command::new(&prog)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
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
