//! Child processes in tests: bounded waits, kill-on-drop guards, output as
//! text, and the wall clock as a Unix time (for `--start-at`).

use std::process::{Child, Output};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Waits for `child` at most `limit`, then returns its output; kills it and
/// fails the test past the limit (every test process stops by itself).
/// For children whose output fits in the pipes (a few KB): they are read
/// once the child has exited.
pub fn wait_bounded(mut child: Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("loadlab did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
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
