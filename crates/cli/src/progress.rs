//! Live progress on stderr (only when stderr is a terminal): elapsed / total,
//! requests, current rate, success ratio and p99 so far. Counts come from the
//! engine's [`LiveStats`] (updated per request); the p99 comes from a [`Sink`]
//! keeping loadlab's one latency [`Distribution`] of the sample stream (which arrives in per-worker batches). A small
//! thread redraws the line. `loadlab study` uses the same line for its
//! current run, with a label in front (which run of how many, time left).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use loadlab_core::{Sample, Sink, format_go_duration};
use loadlab_engine::LiveStats;
use loadlab_metrics::Distribution;

#[derive(Default)]
struct Shared {
    p99_ns: u64,
}

/// Records samples for the progress line.
pub struct ProgressSink {
    shared: Arc<Mutex<Shared>>,
    latency: Distribution,
    completed: u64,
    last_publish: Instant,
}

impl Sink for ProgressSink {
    fn record(&mut self, s: &Sample) {
        self.completed += 1;
        self.latency.record(s.latency_ns());
        if self.completed.is_multiple_of(256)
            || self.last_publish.elapsed() > Duration::from_millis(100)
        {
            self.publish();
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.publish();
        Ok(())
    }
}

impl ProgressSink {
    fn publish(&mut self) {
        self.last_publish = Instant::now();
        if let Ok(mut g) = self.shared.lock() {
            g.p99_ns = self.latency.quantile(0.99);
        }
    }
}

/// The drawing side: call [`Progress::stop`] when the attack ends.
pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Starts a progress line if stderr is a terminal; returns the sink to add to
/// the attack's sinks and the handle that stops the drawing.
pub fn start(total: Option<Duration>, live: Arc<LiveStats>) -> Option<(ProgressSink, Progress)> {
    start_labelled(total, live, String::new(), None)
}

/// [`start`] with `label` in front of the figures and, given the time left
/// beyond this attack when it starts (`left`), a countdown after the label.
pub fn start_labelled(
    total: Option<Duration>,
    live: Arc<LiveStats>,
    label: String,
    left: Option<Duration>,
) -> Option<(ProgressSink, Progress)> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let shared = Arc::new(Mutex::new(Shared::default()));
    let stop = Arc::new(AtomicBool::new(false));
    let sink = ProgressSink {
        shared: shared.clone(),
        latency: Distribution::new(),
        completed: 0,
        last_publish: Instant::now(),
    };
    let stop2 = stop.clone();
    let thread = std::thread::spawn(move || draw(shared, live, stop2, total, label, left));
    Some((
        sink,
        Progress {
            stop,
            thread: Some(thread),
        },
    ))
}

fn draw(
    shared: Arc<Mutex<Shared>>,
    live: Arc<LiveStats>,
    stop: Arc<AtomicBool>,
    total: Option<Duration>,
    label: String,
    left: Option<Duration>,
) {
    let bar = match total {
        Some(t) if !t.is_zero() => ProgressBar::new(t.as_millis() as u64),
        _ => ProgressBar::new_spinner(),
    };
    bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(4));
    let style = match (total.is_some_and(|t| !t.is_zero()), label.is_empty()) {
        (true, true) => "{bar:20} {msg}",
        (false, true) => "{spinner} {msg}",
        // The label on a line of its own: the figures stay where `attack` has them.
        (true, false) => "{prefix}\n{bar:20} {msg}",
        (false, false) => "{prefix}\n{spinner} {msg}",
    };
    bar.set_style(
        ProgressStyle::with_template(style).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(label.clone());
    let start = Instant::now();
    let (mut last_n, mut last_t) = (0u64, start);
    let mut rate = 0.0;
    let total = total.filter(|t| !t.is_zero());
    let line = |elapsed: Duration, n: u64, ok: u64, rate: f64, p99: u64| {
        let el = format_go_duration(shown_elapsed(elapsed, total));
        let of = total
            .map(|t| format!(" / {}", format_go_duration(t)))
            .unwrap_or_default();
        let success = if n == 0 {
            100.0
        } else {
            ok as f64 * 100.0 / n as f64
        };
        format!(
            "{el}{of}  requests {n}  rate {rate:.1}/s  success {success:.2}%  p99 {}",
            format_go_duration(Duration::from_micros(p99 / 1000))
        )
    };
    let mut p99 = 0;
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(250));
        p99 = match shared.lock() {
            Ok(g) => g.p99_ns,
            Err(_) => break,
        };
        let (n, ok) = (live.completed(), live.successes());
        let now = Instant::now();
        let dt = now.duration_since(last_t).as_secs_f64();
        if dt >= 0.5 {
            rate = n.saturating_sub(last_n) as f64 / dt;
            last_n = n;
            last_t = now;
        }
        let elapsed = now.duration_since(start);
        bar.set_position(elapsed.as_millis() as u64);
        if let Some(l) = left {
            let l = loadlab_study::runner::approx(l.saturating_sub(elapsed));
            bar.set_prefix(format!("{label}, about {l} left"));
        }
        bar.set_message(line(elapsed, n, ok, rate, p99));
    }
    if !label.is_empty() {
        // A study's run: its own summary line follows, and the next run redraws.
        bar.finish_and_clear();
        return;
    }
    // The last frame: the whole attack (its time, and its mean rate), left on
    // screen, so a 2s attack ends on "2s / 2s" rather than on the last tick's "1s".
    let elapsed = start.elapsed();
    let p99 = shared.lock().map_or(p99, |g| g.p99_ns);
    let (n, ok) = (live.completed(), live.successes());
    let mean = n as f64 / elapsed.as_secs_f64().max(1e-3);
    bar.set_position(elapsed.as_millis() as u64);
    bar.finish_with_message(line(elapsed, n, ok, mean, p99));
}

/// Elapsed time as the line shows it: to the nearest second (a tick at 1.75s
/// of a 2s attack shows 2s, not 1s), never past the attack's planned total,
/// which it reaches at the end even when that is not whole seconds (1.5s).
fn shown_elapsed(elapsed: Duration, total: Option<Duration>) -> Duration {
    let rounded = Duration::from_secs(elapsed.as_secs_f64().round() as u64);
    match total {
        Some(t) if elapsed >= t || rounded > t => t,
        _ => rounded,
    }
}

impl Progress {
    pub fn stop(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
