//! A quick engine benchmark: `blast URL RATE SECONDS CONCURRENCY`
//! (RATE 0 = as fast as possible with CONCURRENCY workers; otherwise an open
//! model at RATE/s with at most CONCURRENCY workers). Prints requests, the
//! achieved rate, the process CPU time per request, and corrected/uncorrected
//! latency percentiles. Pin it with `taskset -c 1`.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use loadlab_core::{PacerSpec, Rate, Sample, Sink};
use loadlab_engine::{AttackConfig, LiveStats, Target, TargetSource};

#[derive(Clone, Default)]
struct Keep(Arc<Mutex<Vec<Sample>>>);

impl Sink for Keep {
    fn record(&mut self, s: &Sample) {
        self.0.lock().unwrap().push(*s);
    }
}

/// CPU seconds used by all threads of this process (ns-precise, from
/// /proc/self/task/*/schedstat; threads that already exited are not counted,
/// which only matters for the short-lived target reader).
fn cpu_seconds() -> f64 {
    let mut ns = 0u64;
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for t in dir.flatten() {
            let s = std::fs::read_to_string(t.path().join("schedstat")).unwrap_or_default();
            ns += s
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    ns as f64 / 1e9
}

fn pct(v: &mut [u64], p: f64) -> Duration {
    v.sort_unstable();
    let i = ((p / 100.0) * v.len() as f64).ceil() as usize;
    Duration::from_nanos(v[i.clamp(1, v.len()) - 1])
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 5 {
        eprintln!("usage: blast URL RATE SECONDS CONCURRENCY");
        std::process::exit(2);
    }
    let rate: u64 = a[2].parse().expect("rate");
    let secs: u64 = a[3].parse().expect("seconds");
    let conc: u64 = a[4].parse().expect("concurrency");
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(if rate == 0 {
            Rate::UNLIMITED
        } else {
            Rate::per_second(rate)
        }),
        duration: Some(Duration::from_secs(secs)),
        max_workers: Some(conc),
        workers: conc.min(10),
        ..Default::default()
    };
    let target = Target {
        method: http::Method::GET,
        url: a[1].clone(),
        headers: vec![],
        body: Default::default(),
    };
    let keep = Keep::default();
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let (sum, _) = loadlab_engine::run_blocking(
        cfg,
        TargetSource::Static(vec![target]),
        Box::new(keep.clone()),
        std::future::pending(),
        LiveStats::new(),
    )
    .expect("attack");
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let s = keep.0.lock().unwrap();
    let ok = s.iter().filter(|s| s.status == 200).count();
    let mut lat: Vec<u64> = s.iter().map(|s| s.latency_ns()).collect();
    let mut svc: Vec<u64> = s.iter().map(|s| s.service_ns()).collect();
    let mut lag: Vec<u64> = s.iter().map(|s| s.send_lag_ns()).collect();
    let span = sum.attack_duration.as_secs_f64();
    println!(
        "requests {} ok {} wall {:.3}s rate {:.1}/s cpu {:.3}s ({:.1}% of a core, {:.2} us/request) late {} unsent {} workers {}",
        sum.requests,
        ok,
        wall,
        (sum.requests.saturating_sub(1)) as f64 / span,
        cpu,
        100.0 * cpu / wall,
        1e6 * cpu / sum.requests as f64,
        sum.late,
        sum.unsent,
        sum.workers
    );
    println!(
        "latency p50 {:?} p99 {:?} | service p50 {:?} p99 {:?} | send lag p50 {:?} p99 {:?}",
        pct(&mut lat, 50.0),
        pct(&mut lat, 99.0),
        pct(&mut svc, 50.0),
        pct(&mut svc, 99.0),
        pct(&mut lag, 50.0),
        pct(&mut lag, 99.0)
    );
}
