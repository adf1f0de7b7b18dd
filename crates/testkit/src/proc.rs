//! Child processes in tests: bounded waits, kill-on-drop guards, output as
//! text, and the wall clock as a Unix time (for `--start-at`); waits for
//! the signals a process gives (a line on its output, a file growing, a
//! results file's records, a server-side counter), polled with a generous
//! bound that fails the test with a clear message.

use std::io::Read;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Waits for `child` at most `limit`, then returns its output; kills it and
/// fails the test past the limit (every test process stops by itself).
/// Its stdout and stderr (when piped) are read while it runs, so a child
/// that writes more than a pipe holds does not stall.
pub fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    fn drain(r: Option<impl Read + Send + 'static>) -> Option<std::thread::JoinHandle<Vec<u8>>> {
        r.map(|mut r| {
            std::thread::spawn(move || {
                let mut b = Vec::new();
                let _ = r.read_to_end(&mut b);
                b
            })
        })
    }
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "a child process (pid {}) did not finish within {limit:?}",
                child.id()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let joined = |t: Option<std::thread::JoinHandle<Vec<u8>>>| {
        t.map(|t| t.join().unwrap_or_default()).unwrap_or_default()
    };
    Output {
        status,
        stdout: joined(out),
        stderr: joined(err),
    }
}

/// `Command::output()` with a bound, for tests.
pub trait BoundedOutput {
    /// As `Command::output()` (stdin empty, stdout and stderr captured),
    /// but a child still running after [`HANG`] is killed and fails the
    /// test, instead of hanging the test suite.
    fn output_bounded(&mut self) -> std::io::Result<Output>;
}

impl BoundedOutput for Command {
    fn output_bounded(&mut self) -> std::io::Result<Output> {
        let child = self
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()?;
        Ok(wait_bounded(child, HANG))
    }
}

/// Bytes of output as text (lossy).
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Kills and reaps its process when dropped (also when the test fails).
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Seconds since the Unix epoch, as `--start-at` takes them.
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// How long the waits below allow by default: long enough to mean "it
/// never happened" even on a machine loaded by other builds, never a
/// figure a test's result depends on.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// How long a piece of work that ends by itself (a whole script run, say)
/// may take before a test calls it hung: far past any healthy run, even a
/// debug build on a machine whose cores are all busy with other builds.
pub const HANG: Duration = Duration::from_secs(600);

/// Runs `work` on a thread of its own and returns what it returns; a
/// panic in `work` is the caller's. A hang guard, not a timing check:
/// fails the test, naming `what`, only when `work` has not returned
/// within `limit` (use [`HANG`], or a limit as far past a healthy run);
/// the hung thread is then left behind until the test binary exits.
pub fn finish_within<T: Send + 'static>(
    what: &str,
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    let worker = std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    match rx.recv_timeout(limit) {
        Ok(v) => {
            let _ = worker.join();
            v
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => match worker.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the worker sent nothing and did not panic"),
        },
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not finish within {limit:?}: it hung")
        }
    }
}

/// Polls `ready` every 20 ms until it holds; fails the test, naming
/// `what`, when `limit` passes first. For waiting on a signal another
/// process or thread gives (a counter, a file, a port), never on time.
pub fn wait_until(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > limit {
            panic!("gave up after {limit:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// [`wait_until`] for async code, polling on tokio's timer: e.g. an
/// engine attack's shutdown future that fires once its server has seen N
/// requests, or a test server that waits for the client's own counter.
pub async fn until(what: &str, limit: Duration, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > limit {
            panic!("gave up after {limit:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Awaits `fut`; a hang guard, not a timing check: fails the test, naming
/// `what`, only when `fut` is still pending after `limit` (use
/// [`PATIENCE`] or more).
pub async fn within<F: std::future::Future>(what: &str, limit: Duration, fut: F) -> F::Output {
    match tokio::time::timeout(limit, fut).await {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish within {limit:?}: it hung"),
    }
}

/// Waits (see [`wait_until`]) until the file at `path` has at least
/// `bytes` bytes.
pub fn wait_file_len(path: &std::path::Path, bytes: u64, limit: Duration) {
    wait_until(
        &format!("{} to reach {bytes} bytes", path.display()),
        limit,
        || std::fs::metadata(path).is_ok_and(|m| m.len() >= bytes),
    );
}

/// The types of the whole records in a loadlab results file so far
/// (every segment's header skipped; a record cut short or not yet
/// written ends the list). Sample records are `0x03`, metric records
/// `0x06` (docs/results-format.md).
pub fn results_records(path: &std::path::Path) -> Vec<u8> {
    const MAGIC: &[u8] = b"\x89LLRES\r\n";
    let b = std::fs::read(path).unwrap_or_default();
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        if b[i..].starts_with(MAGIC) {
            i += MAGIC.len() + 2;
            continue;
        }
        let Some(&typ) = b.get(i) else { break };
        let (mut len, mut shift, mut j) = (0usize, 0, i + 1);
        loop {
            let Some(&byte) = b.get(j) else { return out };
            len |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            j += 1;
            if byte & 0x80 == 0 {
                break;
            }
        }
        let end = j + len + 1;
        if end > b.len() {
            break;
        }
        out.push(typ);
        i = end;
    }
    out
}

/// Waits (see [`wait_until`]) until the loadlab results file at `path`
/// holds at least `n` whole records of a type in `types` (`0x03` for
/// samples, `0x06` for metric values): the run is under way and its
/// writer has flushed them.
pub fn wait_results(path: &std::path::Path, types: &[u8], n: usize, limit: Duration) {
    wait_until(
        &format!("{} records of types {types:02x?} in {}", n, path.display()),
        limit,
        || {
            results_records(path)
                .iter()
                .filter(|t| types.contains(t))
                .count()
                >= n
        },
    );
}

/// One blocking `GET path` over HTTP/1.1 to `addr` (a test's own server on
/// loopback): the status and the body. For reading a server-side counter,
/// e.g. `loadlab origin`'s `/_admin/current_count`.
pub fn http_get(addr: std::net::SocketAddr, path: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(PATIENCE)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read the response");
    let raw = text(&raw);
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {raw:?}"));
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(body)
    } else {
        body.to_string()
    };
    (status, body)
}

fn unchunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// The requests a `loadlab origin` at `addr` has answered since it started
/// (`total_requests` of `/_admin/current_count`): a server-side counter
/// to wait on.
pub fn origin_requests(addr: std::net::SocketAddr) -> u64 {
    let (status, body) = http_get(addr, "/_admin/current_count");
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    v["total_requests"].as_u64().expect("total_requests")
}

/// Waits (see [`wait_until`]) until the `loadlab origin` at `addr` has
/// answered at least `n` requests (its own counter, not counting these
/// polls' own).
pub fn wait_origin_requests(addr: std::net::SocketAddr, n: u64, limit: Duration) {
    wait_until(
        &format!("the origin at {addr} to answer {n} requests"),
        limit,
        || origin_requests(addr) >= n,
    );
}

/// What a [`Watch`] has read so far, and whether the stream has ended.
type Stream = (Vec<u8>, bool);

/// A child's output stream (its stdout or stderr) read on a thread as it
/// comes, so that a test can wait for a line the process prints, act
/// (send a signal, kill it, read a file), and still have the whole stream
/// at the end.
pub struct Watch {
    shared: std::sync::Arc<(std::sync::Mutex<Stream>, std::sync::Condvar)>,
    reader: Option<std::thread::JoinHandle<()>>,
}

impl Watch {
    /// Watches `child`'s stderr (spawned with `Stdio::piped()`); the
    /// child's `wait_with_output` then has an empty stderr.
    pub fn stderr(child: &mut Child) -> Watch {
        Watch::new(child.stderr.take().expect("stderr piped"))
    }

    /// Watches `child`'s stdout (spawned with `Stdio::piped()`).
    pub fn stdout(child: &mut Child) -> Watch {
        Watch::new(child.stdout.take().expect("stdout piped"))
    }

    /// Watches any stream.
    pub fn new(mut from: impl std::io::Read + Send + 'static) -> Watch {
        let shared = std::sync::Arc::new((
            std::sync::Mutex::new((Vec::new(), false)),
            std::sync::Condvar::new(),
        ));
        let s = shared.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                let n = from.read(&mut buf).unwrap_or(0);
                let (lock, cv) = &*s;
                let mut g = lock.lock().unwrap();
                if n == 0 {
                    g.1 = true;
                } else {
                    g.0.extend_from_slice(&buf[..n]);
                }
                cv.notify_all();
                if n == 0 {
                    break;
                }
            }
        });
        Watch {
            shared,
            reader: Some(reader),
        }
    }

    /// The stream so far, as text.
    pub fn so_far(&self) -> String {
        text(&self.shared.0.lock().unwrap().0)
    }

    /// Waits until the stream so far satisfies `ready`, and returns it;
    /// fails the test, naming `what` and showing the stream, when the
    /// stream ends first or `limit` passes.
    pub fn wait_until(&self, what: &str, limit: Duration, ready: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        let (lock, cv) = &*self.shared;
        let mut g = lock.lock().unwrap();
        loop {
            let t = text(&g.0);
            if ready(&t) {
                return t;
            }
            if g.1 {
                panic!("the stream ended before {what}:\n{t}");
            }
            let left = limit.saturating_sub(start.elapsed());
            if left.is_zero() {
                panic!("gave up after {limit:?} waiting for {what}:\n{t}");
            }
            g = cv.wait_timeout(g, left).unwrap().0;
        }
    }

    /// Waits (as [`Watch::wait_until`]) until the stream shows a line that
    /// contains `needle`, whole (ended by a newline).
    pub fn wait_for_line(&self, needle: &str, limit: Duration) -> String {
        self.wait_until(&format!("a line with {needle:?}"), limit, |t| {
            t.lines()
                .zip(t.split_inclusive('\n'))
                .any(|(l, whole)| whole.ends_with('\n') && l.contains(needle))
        })
    }

    /// The whole stream, once the child has closed it (exited): call after
    /// waiting for the child.
    pub fn finish(mut self) -> String {
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        self.so_far()
    }
}
