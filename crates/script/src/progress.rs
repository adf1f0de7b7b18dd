//! k6's progress lines: the `running (…)` line and one bar per scenario.
//!
//! While a test runs they are printed to standard output every second
//! (without `-q`); on a terminal they are redrawn in place every 100 ms,
//! with a drawn bar instead of a percentage, as k6 does. The last ones
//! close the summary. The layout, widths and fixed-width number formats
//! are k6 v1.8.1's.

use std::time::Duration;

use loadlab_core::format_go_duration as go;

use crate::config::{Executor, Scenario};

/// A scenario's state, as its bar's mark shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Status {
    #[default]
    Running,
    /// Before its `startTime`.
    Waiting,
    /// Past its duration, its last iterations finishing (`gracefulStop`).
    Stopping,
    Interrupted,
    Done,
}

impl Status {
    fn mark(self) -> char {
        match self {
            Status::Running => ' ',
            Status::Waiting => '•',
            Status::Stopping => '↓',
            Status::Interrupted => '✗',
            Status::Done => '✓',
        }
    }
}

/// What the scheduler knows of a scenario at one instant.
#[derive(Debug, Clone, Default)]
pub struct ScenView {
    pub status: Status,
    /// Time since the scenario started: its run so far, held where it
    /// ended (just past its duration for the timed executors, as k6 takes
    /// its last figures once the duration is over).
    pub spent: Duration,
    /// Waiting: the time left before it starts.
    pub wait_left: Duration,
    /// VUs in an iteration now.
    pub running: u64,
    /// `ramping-vus`: the VUs the ramp has now.
    pub level: u64,
    /// Iterations ended (`shared-iterations`, `per-vu-iterations`).
    pub iters_done: u64,
    /// `ramping-arrival-rate`: iterations a second its ramp is at now.
    pub rate_now: f64,
}

/// One bar: the scenario's name, its mark, how far it is (0 to 1) and its
/// columns.
#[derive(Debug, Clone)]
pub struct Bar {
    pub name: String,
    pub status: Status,
    pub progress: f64,
    pub right: Vec<String>,
}

/// `v` zero-padded to as many digits as `max` has (k6's fixed-length
/// integers: `01/10 VUs`).
pub fn fixed_int(v: u64, max: u64) -> String {
    let w = max.to_string().len();
    format!("{v:0w$}")
}

/// `v` with 2 decimals, zero-padded to the width of `max`'s integer part
/// (`5.00`, `07.81` when the most is 10 or more).
pub fn fixed_float(v: f64, max: f64) -> String {
    let mut w = 1 + 3;
    let m = max.abs();
    if max < 0.0 {
        w += 1;
    }
    if m >= 10.0 {
        w += m.log10() as usize;
    }
    format!("{v:0w$.2}")
}

/// `d` rounded to 0.1 s in k6's fixed-width clock for a time of at most
/// `max`: `2.0s` (under 10 s), `02.0s` (under a minute), `0m02.0s`,
/// `00m02.0s`, `0h00m02.0s`, `00h00m02.0s`, then days.
pub fn fixed_duration(d: Duration, max: Duration) -> String {
    let max_tenths = tenths(max.max(d));
    let tenths = tenths(d);
    const S: u128 = 10;
    let (t, s, m, h) = (
        tenths % 10,
        (tenths / S) % 60,
        (tenths / (60 * S)) % 60,
        (tenths / (3600 * S)) % 24,
    );
    if max_tenths < 10 * S {
        format!("{s}.{t}s")
    } else if max_tenths < 60 * S {
        format!("{s:02}.{t}s")
    } else if max_tenths < 600 * S {
        format!("{m}m{s:02}.{t}s")
    } else if max_tenths < 3600 * S {
        format!("{m:02}m{s:02}.{t}s")
    } else if max_tenths < 36_000 * S {
        format!("{h}h{m:02}m{s:02}.{t}s")
    } else if max_tenths < 86_400 * S {
        format!("{h:02}h{m:02}m{s:02}.{t}s")
    } else {
        let days = tenths / (86_400 * S);
        let w = (max_tenths / (86_400 * S)).to_string().len();
        format!("{days:0w$}d{h:02}h{m:02}m{s:02}.{t}s")
    }
}

/// `d` in tenths of a second, rounded half up (as Go's `Round(100ms)`).
fn tenths(d: Duration) -> u128 {
    (d.as_nanos() + 50_000_000) / 100_000_000
}

/// The most iterations a second an arrival-rate scenario asks for.
fn max_rate_per_s(ex: &Executor) -> f64 {
    match ex {
        Executor::ConstantArrivalRate {
            rate, time_unit, ..
        } => rate / time_unit.as_secs_f64().max(1e-9),
        Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            ..
        } => {
            stages.iter().map(|s| s.target).fold(*start_rate, f64::max)
                / time_unit.as_secs_f64().max(1e-9)
        }
        _ => 0.0,
    }
}

/// A scenario's bar, as k6's executor draws it.
pub fn bar(sc: &Scenario, v: &ScenView) -> Bar {
    let (progress, right) = if v.status == Status::Waiting {
        (
            0.0,
            vec![
                "waiting".to_string(),
                fixed_duration(v.wait_left, sc.start_time),
            ],
        )
    } else {
        columns(&sc.executor, v)
    };
    Bar {
        name: sc.name.clone(),
        status: v.status,
        progress: progress.clamp(0.0, 1.0),
        right,
    }
}

fn columns(ex: &Executor, v: &ScenView) -> (f64, Vec<String>) {
    let spent = v.spent;
    let frac = |total: Duration| spent.as_secs_f64() / total.as_secs_f64().max(1e-9);
    // `spent/total`, or the total alone once it is over.
    let timed = |total: Duration| {
        if spent > total {
            go(total)
        } else {
            format!("{}/{}", fixed_duration(spent, total), go(total))
        }
    };
    match ex {
        Executor::ConstantVus { vus, duration } => {
            let p = if spent > *duration {
                1.0
            } else {
                frac(*duration)
            };
            (p, vec![format!("{vus} VUs"), timed(*duration)])
        }
        Executor::RampingVus { .. } => {
            let max = ex.max_vus();
            let regular = ex.duration();
            let vus = format!("{}/{} VUs", fixed_int(v.level, max), fixed_int(max, max));
            if spent > regular {
                (1.0, vec![vus, go(regular)])
            } else {
                let clock = format!(
                    "{}/{}",
                    fixed_duration(spent, regular),
                    fixed_duration(regular, regular)
                );
                (frac(regular), vec![vus, clock])
            }
        }
        Executor::SharedIterations {
            vus,
            iterations,
            max_duration,
        } => (
            v.iters_done as f64 / (*iterations).max(1) as f64,
            vec![
                format!("{} VUs", fixed_int(*vus, *vus)),
                format!(
                    "{}/{}",
                    fixed_duration(spent, *max_duration),
                    go(*max_duration)
                ),
                format!(
                    "{}/{} shared iters",
                    fixed_int(v.iters_done, *iterations),
                    fixed_int(*iterations, *iterations)
                ),
            ],
        ),
        Executor::PerVuIterations {
            vus,
            iterations,
            max_duration,
        } => {
            let total = vus * iterations;
            // Past its maxDuration it shows as full, as k6's does.
            let p = if spent > *max_duration {
                1.0
            } else {
                v.iters_done as f64 / total.max(1) as f64
            };
            (
                p,
                vec![
                    format!("{} VUs", fixed_int(*vus, *vus)),
                    timed(*max_duration),
                    format!(
                        "{}/{} iters, {iterations} per VU",
                        fixed_int(v.iters_done, total),
                        fixed_int(total, total)
                    ),
                ],
            )
        }
        Executor::ConstantArrivalRate { max_vus, .. }
        | Executor::RampingArrivalRate { max_vus, .. } => {
            let duration = ex.duration();
            let p = if spent > duration {
                1.0
            } else {
                frac(duration).min(1.0)
            };
            // A constant rate shows itself; a ramp the rate it is at now.
            let most = max_rate_per_s(ex);
            let rate = match ex {
                Executor::RampingArrivalRate { .. } => v.rate_now,
                _ => most,
            };
            (
                p,
                vec![
                    format!(
                        "{}/{} VUs",
                        fixed_int(v.running, *max_vus),
                        fixed_int(*max_vus, *max_vus)
                    ),
                    timed(duration),
                    format!("{} iters/s", fixed_float(rate, most)),
                ],
            )
        }
    }
}

/// The `running (…)` line above the bars.
pub fn head(
    elapsed: Duration,
    test_max: Duration,
    active: u64,
    vus_max: u64,
    done: u64,
    interrupted: u64,
) -> String {
    format!(
        "running ({}), {}/{} VUs, {done} complete and {interrupted} interrupted iterations",
        fixed_duration(elapsed, test_max),
        fixed_int(active, vus_max),
        fixed_int(vus_max, vus_max),
    )
}

/// k6's description of a scenario in the banner (`2 looping VUs for 3s
/// (gracefulStop: 30s)`), for this instance's part of the test.
pub fn describe(sc: &Scenario, segment: &crate::segment::Tuple) -> String {
    let mut facts = Vec::new();
    let vus_range = |max: u64| {
        let pre = segment.scale(sc.pre_allocated_vus);
        if max > pre {
            format!("maxVUs: {pre}-{max}")
        } else {
            format!("maxVUs: {pre}")
        }
    };
    let text = match &sc.executor {
        Executor::ConstantVus { vus, duration } => {
            format!("{vus} looping VUs for {}", go(*duration))
        }
        Executor::RampingVus { stages, .. } => {
            facts.push(format!("gracefulRampDown: {}", go(sc.graceful_ramp_down)));
            // The whole test's most, this instance's share of it.
            let max = match &sc.whole {
                Executor::RampingVus { start_vus, stages } => stages
                    .iter()
                    .map(|s| s.target as u64)
                    .fold(*start_vus, u64::max),
                _ => sc.executor.max_vus(),
            };
            format!(
                "Up to {} looping VUs for {} over {} stages",
                segment.scale(max),
                go(sc.executor.duration()),
                stages.len()
            )
        }
        Executor::SharedIterations {
            vus,
            iterations,
            max_duration,
        } => {
            facts.push(format!("maxDuration: {}", go(*max_duration)));
            format!("{iterations} iterations shared among {vus} VUs")
        }
        Executor::PerVuIterations {
            vus,
            iterations,
            max_duration,
        } => {
            facts.push(format!("maxDuration: {}", go(*max_duration)));
            format!("{iterations} iterations for each of {vus} VUs")
        }
        Executor::ConstantArrivalRate {
            duration, max_vus, ..
        } => {
            facts.push(vus_range(*max_vus));
            format!(
                "{:.2} iterations/s for {}",
                max_rate_per_s(&sc.whole) * segment_share(segment),
                go(*duration)
            )
        }
        Executor::RampingArrivalRate {
            stages, max_vus, ..
        } => {
            facts.push(vus_range(*max_vus));
            format!(
                "Up to {:.2} iterations/s for {} over {} stages",
                max_rate_per_s(&sc.whole) * segment_share(segment),
                go(sc.executor.duration()),
                stages.len()
            )
        }
    };
    if sc.exec != "default" {
        facts.push(format!("exec: {}", sc.exec));
    }
    if !sc.start_time.is_zero() {
        facts.push(format!("startTime: {}", go(sc.start_time)));
    }
    if !sc.graceful_stop.is_zero() {
        facts.push(format!("gracefulStop: {}", go(sc.graceful_stop)));
    }
    if facts.is_empty() {
        text
    } else {
        format!("{text} ({})", facts.join(", "))
    }
}

/// How much of the whole test this instance runs (`0:1/4`: 0.25).
fn segment_share(t: &crate::segment::Tuple) -> f64 {
    let (from, to) = (t.from(), t.to());
    to.num as f64 / to.den.max(1) as f64 - from.num as f64 / from.den.max(1) as f64
}

/// k6's banner under its logo: where the test runs, its script, its
/// outputs, and its scenarios (by start time, then name).
pub fn banner(script: &str, outputs: &[String], options: &crate::config::Options) -> String {
    let t = &options.segment;
    let share = segment_share(t);
    let max = options.max_test_duration();
    let max = Duration::from_millis(tenths(max) as u64 * 100);
    let n = options.scenarios.len();
    let mut s = format!(
        "\n     execution: local\n        script: {script}\n        output: {}\n\n     scenarios: ({:.2}%) {}, {} max VUs, {} max duration (incl. graceful stop):\n",
        if outputs.is_empty() {
            "-".to_string()
        } else {
            outputs.join(", ")
        },
        share * 100.0,
        if n == 1 {
            "1 scenario".to_string()
        } else {
            format!("{n} scenarios")
        },
        options.max_vus(),
        go(max),
    );
    for sc in options
        .start_order()
        .into_iter()
        .map(|i| &options.scenarios[i])
    {
        s.push_str(&format!(
            "              * {}: {}\n",
            sc.name,
            describe(sc, t)
        ));
    }
    s.push('\n');
    s
}

/// The narrowest a drawn bar gets before it turns into a percentage, and
/// the widest.
const MIN_WIDTH: i64 = 8;
const MAX_WIDTH: i64 = 40;
const MAX_LEFT: usize = 30;

/// Draws the lines as k6 does: in a terminal, a bar as wide as the
/// terminal allows (up to 40 columns) and the block redrawn in place;
/// elsewhere, percentages.
#[derive(Debug)]
pub struct Painter {
    tty: bool,
    term_width: usize,
    /// Each bar's width, as it was last drawn.
    widths: Vec<i64>,
    /// How much the bars may grow (or must shrink) to fit the terminal.
    delta: i64,
}

impl Painter {
    pub fn new(tty: bool, term_width: Option<usize>) -> Painter {
        Painter {
            tty,
            term_width: term_width.filter(|&w| w > 0).unwrap_or(80),
            widths: Vec::new(),
            delta: if tty { 0 } else { -MAX_WIDTH },
        }
    }

    /// The text of one block: an empty line, `head`, a line per bar. With
    /// `go_back` (a terminal), it ends by moving the cursor back to the
    /// block's first line, so the next block, or any other line, is
    /// written over it.
    pub fn paint(&mut self, head: &str, bars: &[Bar], go_back: bool) -> String {
        let end = if self.tty { "\x1b[K\n" } else { "\n" };
        let runes = |s: &str| s.chars().count() as i64;
        let tw = self.term_width as i64;
        self.widths.resize(bars.len(), MAX_WIDTH);
        // The init bar's "init" is one of k6's left texts: names take 4 at least.
        let max_left = bars
            .iter()
            .map(|b| b.name.chars().count())
            .max()
            .unwrap_or(0)
            .clamp(4, MAX_LEFT);
        let mut col_max = [0usize; 2];
        for b in bars {
            for (i, c) in b
                .right
                .iter()
                .enumerate()
                .take(b.right.len().saturating_sub(1))
            {
                if i < 2 {
                    col_max[i] = col_max[i].max(c.chars().count());
                }
            }
        }
        let mut out = String::from(end);
        out.push_str(head);
        out.push_str(end);
        let mut line_breaks = (runes(head) - 1).max(0) / tw;
        let mut longest = 0;
        for (b, width) in bars.iter().zip(self.widths.iter_mut()) {
            *width = (*width + self.delta).clamp(MIN_WIDTH, MAX_WIDTH);
            let body = if *width > MIN_WIDTH {
                let space = (*width - 2) as usize;
                let filled = ((space as f64) * b.progress) as usize;
                let fill = match filled {
                    0 => String::new(),
                    f if f < space => format!("{}>", "=".repeat(f - 1)),
                    f => "=".repeat(f),
                };
                format!("{fill}{}", "-".repeat(space.saturating_sub(filled)))
            } else {
                format!(" {:3.0}% ", b.progress * 100.0)
            };
            let name: String = if b.name.chars().count() > max_left {
                let mut n: String = b.name.chars().take(max_left - 3).collect();
                n.push_str("...");
                n
            } else {
                b.name.clone()
            };
            let mut line = format!("{name:<max_left$} {} [{body}]", b.status.mark());
            for (i, c) in b.right.iter().enumerate() {
                let pad = col_max.get(i).copied().unwrap_or(0) + 1;
                line.push(' ');
                line.push_str(&format!("{c:<pad$}"));
            }
            longest = longest.max(runes(&line));
            line_breaks += (runes(&line) - 1).max(0) / tw;
            out.push_str(&line);
            out.push_str(end);
        }
        if self.tty {
            self.delta = tw - longest - 1;
        }
        if self.tty && go_back {
            out.push_str(&format!(
                "\r\x1b[J\x1b[{}A",
                bars.len() as i64 + 1 + line_breaks + 1
            ));
        }
        out
    }
}

/// The live lines while a test runs: a block every second, or on a
/// terminal redrawn in place every 100 ms (k6's rates).
#[derive(Debug)]
pub struct Live {
    painter: Painter,
    tty: bool,
    /// The block last drawn (a terminal: drawn again under a log line).
    last: String,
    pub every: Duration,
}

impl Live {
    /// For standard output as it is: a terminal unless `TERM=dumb`.
    pub fn for_stdout() -> Live {
        let tty = stdout_is_terminal();
        Live {
            painter: Painter::new(tty, term_width()),
            tty,
            last: String::new(),
            every: Duration::from_millis(if tty { 100 } else { 1000 }),
        }
    }

    pub fn draw(&mut self, head: &str, bars: &[Bar]) {
        if self.tty {
            self.painter.term_width = term_width().unwrap_or(self.painter.term_width);
        }
        self.last = self.painter.paint(head, bars, true);
        write_out(&self.last);
    }

    /// A log line (to standard error). On a terminal it takes the block's
    /// place (each of its lines erased to its end, as k6 writes them) and
    /// the block is drawn again under it.
    pub fn above(&self, text: &str) {
        use std::io::{IsTerminal, Write};
        let mut err = std::io::stderr().lock();
        if self.tty && err.is_terminal() {
            let _ = writeln!(err, "{}\x1b[0K", text.replace('\n', "\x1b[0K\n"));
        } else {
            let _ = writeln!(err, "{text}");
        }
        drop(err);
        if self.tty && !self.last.is_empty() {
            write_out(&self.last);
        }
    }

    /// The test is over: on a terminal the block is wiped (the summary
    /// ends with the last lines).
    pub fn finish(&mut self) {
        if self.tty && !self.last.is_empty() {
            write_out("\x1b[J");
        }
        self.last.clear();
    }
}

/// Standard output is a terminal (and `TERM` is not `dumb`), as k6 decides.
pub fn stdout_is_terminal() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var("TERM").ok().as_deref() != Some("dumb")
}

/// The painter for the summary's last block: drawn bars on a terminal.
pub fn last_block_painter() -> Painter {
    let tty = stdout_is_terminal();
    Painter::new(tty, if tty { term_width() } else { None })
}

fn term_width() -> Option<usize> {
    terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| w.0 as usize)
}

pub(crate) fn write_out(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_formats_are_k6s() {
        assert_eq!(fixed_int(3, 10), "03");
        assert_eq!(fixed_int(0, 7), "0");
        assert_eq!(fixed_float(5.0, 5.0), "5.00");
        assert_eq!(fixed_float(7.8125, 8.0), "7.81");
        assert_eq!(fixed_float(7.8125, 50.0), "07.81");
        assert_eq!(fixed_float(500.0, 500.0), "500.00");
        let s = Duration::from_secs_f64;
        assert_eq!(fixed_duration(s(1.0), s(2.5)), "1.0s");
        assert_eq!(fixed_duration(s(0.96), s(2.5)), "1.0s");
        assert_eq!(fixed_duration(s(0.5), s(1.5)), "0.5s");
        assert_eq!(fixed_duration(s(2.1), s(40.0)), "02.1s");
        assert_eq!(fixed_duration(s(0.3), s(600.0)), "00m00.3s");
        assert_eq!(fixed_duration(s(62.0), s(61.0)), "1m02.0s");
        assert_eq!(fixed_duration(s(1.0), s(631.5)), "00m01.0s");
        assert_eq!(fixed_duration(s(1.0), s(3600.0)), "0h00m01.0s");
        assert_eq!(fixed_duration(s(1.0), s(36_000.0)), "00h00m01.0s");
        assert_eq!(fixed_duration(s(90_000.0), s(200_000.0)), "1d01h00m00.0s");
    }

    #[test]
    fn the_banner_is_k6s() {
        // k6 v1.8.1's lines for the same options.
        use crate::config::{Options, Overrides};
        let o = Options::resolve(
            &serde_json::json!({ "scenarios": {
              "a": { "executor": "constant-arrival-rate", "rate": 5, "timeUnit": "1s", "duration": "2s",
                     "preAllocatedVUs": 1, "maxVUs": 10 },
              "bb": { "executor": "ramping-arrival-rate", "startRate": 2, "timeUnit": "1s",
                      "stages": [{ "target": 8, "duration": "2s" }], "preAllocatedVUs": 2, "maxVUs": 12, "exec": "f" },
              "later": { "executor": "shared-iterations", "vus": 2, "iterations": 6, "startTime": "1500ms", "exec": "f" },
              "pv": { "executor": "per-vu-iterations", "vus": 2, "iterations": 3, "gracefulStop": "0s" },
            } }),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(
            banner("pre.js", &["json (o.json)".to_string()], &o),
            "\n     execution: local\n        script: pre.js\n        output: json (o.json)\n\n     \
             scenarios: (100.00%) 4 scenarios, 26 max VUs, 10m31.5s max duration (incl. graceful stop):\n              \
             * a: 5.00 iterations/s for 2s (maxVUs: 1-10, gracefulStop: 30s)\n              \
             * bb: Up to 8.00 iterations/s for 2s over 1 stages (maxVUs: 2-12, exec: f, gracefulStop: 30s)\n              \
             * pv: 3 iterations for each of 2 VUs (maxDuration: 10m0s)\n              \
             * later: 6 iterations shared among 2 VUs (maxDuration: 10m0s, exec: f, startTime: 1.5s, gracefulStop: 30s)\n\n"
        );
        let o = Options::resolve(
            &serde_json::json!({ "stages": [{ "duration": "1s", "target": 3 }, { "duration": "1s", "target": 0 }] }),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(
            describe(&o.scenarios[0], &o.segment),
            "Up to 3 looping VUs for 2s over 2 stages (gracefulRampDown: 30s, gracefulStop: 30s)"
        );
    }

    #[test]
    fn a_block_off_a_terminal_is_k6s() {
        // k6 v1.8.1, p.js of the fidelity tests, at 1 s (standard output
        // not a terminal).
        let bars = vec![
            Bar {
                name: "rate".into(),
                status: Status::Running,
                progress: 0.4,
                right: vec!["0/2 VUs".into(), "1.0s/2.5s".into(), "5.00 iters/s".into()],
            },
            Bar {
                name: "steady".into(),
                status: Status::Running,
                progress: 1.0 / 3.0,
                right: vec!["2 VUs".into(), "1.0s/3s".into()],
            },
        ];
        let mut p = Painter::new(false, None);
        assert_eq!(
            p.paint(
                "running (01.0s), 2/4 VUs, 13 complete and 0 interrupted iterations",
                &bars,
                true
            ),
            "\nrunning (01.0s), 2/4 VUs, 13 complete and 0 interrupted iterations\n\
             rate     [  40% ] 0/2 VUs  1.0s/2.5s  5.00 iters/s\n\
             steady   [  33% ] 2 VUs    1.0s/3s   \n"
        );
    }

    #[test]
    fn a_terminal_gets_drawn_bars_that_fit_and_a_way_back() {
        let bars = vec![Bar {
            name: "default".into(),
            status: Status::Running,
            progress: 0.5,
            right: vec!["2 VUs".into(), "05.0s/10s".into()],
        }];
        let mut p = Painter::new(true, Some(80));
        let text = p.paint(
            "running (05.0s), 2/2 VUs, 9 complete and 0 interrupted iterations",
            &bars,
            true,
        );
        assert_eq!(
            text,
            "\x1b[K\nrunning (05.0s), 2/2 VUs, 9 complete and 0 interrupted iterations\x1b[K\n\
             default   [==================>-------------------] 2 VUs  05.0s/10s\x1b[K\n\
             \r\x1b[J\x1b[3A"
        );
        // A narrow terminal: the bar shrinks to fit on the next drawing.
        let mut p = Painter::new(true, Some(50));
        p.paint("x", &bars, true);
        let text = p.paint("x", &bars, true);
        let line = text.lines().nth(2).unwrap().trim_end_matches("\x1b[K");
        assert!(line.chars().count() < 50, "{line:?}");
        assert!(line.contains("[=") && line.contains(">-"), "{line:?}");
    }
}
