//! Samples CPU % and RSS of the system under test from `/proc` on a thread,
//! once per interval, while a run is in flight.

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use loadlab_engine::StopSignal;

use crate::plan::MonitorPlan;
use crate::store::MonitorPoint;

/// Finds a pid by process name (`/proc/<pid>/comm`, exact match), lowest pid first.
pub fn find_process(name: &str) -> Option<u32> {
    let mut pids: Vec<u32> = std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    pids.sort_unstable();
    pids.into_iter().find(|p| {
        std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == name)
    })
}

/// Resolves the plan's pid or process name.
pub fn resolve(plan: &MonitorPlan) -> Result<u32, String> {
    match (plan.pid, &plan.process) {
        (Some(p), _) if std::path::Path::new(&format!("/proc/{p}")).exists() => Ok(p),
        (Some(p), _) => Err(format!("monitor: no process with pid {p}")),
        (None, Some(n)) => {
            find_process(n).ok_or_else(|| format!("monitor: no process named {n:?}"))
        }
        (None, None) => Err("monitor: needs pid or process".into()),
    }
}

/// (utime + stime in clock ticks, RSS in bytes).
fn read_proc(pid: u32) -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may contain spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let rss_kb = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()?;
    Some((ticks, rss_kb * 1024))
}

/// A running sampler; [`Monitor::stop`] returns its points.
pub struct Monitor {
    stop: Arc<StopSignal>,
    handle: JoinHandle<Vec<MonitorPoint>>,
}

/// Linux reports CPU time in clock ticks; 100 Hz everywhere that matters.
const TICKS_PER_SEC: f64 = 100.0;

impl Monitor {
    pub fn start(pid: u32, interval: Duration) -> Monitor {
        let stop = Arc::new(StopSignal::new());
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let t0 = Instant::now();
            let mut out = Vec::new();
            let mut prev = read_proc(pid).map(|(t, _)| (Instant::now(), t));
            let mut next = t0 + interval;
            while !flag.is_set() {
                let now = Instant::now();
                if now < next {
                    flag.wait_timeout(next - now);
                    continue;
                }
                next += interval;
                let Some((ticks, rss)) = read_proc(pid) else {
                    break;
                };
                let at = Instant::now();
                if let Some((pt, pticks)) = prev {
                    let wall = at.duration_since(pt).as_secs_f64().max(1e-6);
                    let cpu = (ticks.saturating_sub(pticks)) as f64 / TICKS_PER_SEC / wall * 100.0;
                    out.push(MonitorPoint {
                        t: at.duration_since(t0).as_secs_f64(),
                        cpu,
                        rss,
                    });
                }
                prev = Some((at, ticks));
            }
            out
        });
        Monitor { stop, handle }
    }

    pub fn stop(self) -> Vec<MonitorPoint> {
        self.stop.fire();
        self.handle.join().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn samples_a_busy_process() {
        let m = Monitor::start(std::process::id(), Duration::from_millis(100));
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed() < Duration::from_millis(450) {
            x = x.wrapping_mul(31).wrapping_add(7);
        }
        std::hint::black_box(x);
        let pts = m.stop();
        assert!(pts.len() >= 2, "{pts:?}");
        assert!(pts.iter().all(|p| p.rss > 0));
        assert!(pts.iter().any(|p| p.cpu > 10.0), "{pts:?}");
        assert_eq!(find_process("definitely-not-a-process-name"), None);
        let me = std::fs::read_to_string("/proc/self/comm").unwrap();
        assert!(find_process(me.trim()).is_some());
    }
}
