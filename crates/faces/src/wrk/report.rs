//! wrk2's text report, line for line: the header, per-thread calibration
//! lines, the `Thread Stats` table, the `-L`/`-U` HdrHistogram blocks with
//! their detailed percentile spectrum and footer, and the summary lines.
//! Pure: figures in, text out, pinned by golden tests.

use std::fmt::Write as _;

use crate::hist::{Dist, shape, spectrum};
use crate::units::{binary, metric, pad_units, time_us};

/// Mean, standard deviation, maximum and share within one deviation of the
/// mean: one row of `Thread Stats`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RowStats {
    pub mean: f64,
    pub stdev: f64,
    pub max: f64,
    pub within_stdev_pct: f64,
}

impl RowStats {
    /// From a list of values (Req/Sec samples): sample deviation, as wrk.
    pub fn from_values(v: &[f64]) -> RowStats {
        if v.is_empty() {
            return RowStats::default();
        }
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let stdev = if v.len() > 1 {
            (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt()
        } else {
            0.0
        };
        let max = v.iter().copied().fold(0.0, f64::max);
        let within = v.iter().filter(|x| (**x - mean).abs() <= stdev).count() as f64;
        RowStats {
            mean,
            stdev,
            max,
            within_stdev_pct: 100.0 * within / n,
        }
    }

    /// From a latency distribution (microseconds).
    pub fn from_dist(d: &Dist) -> RowStats {
        if d.count() == 0 {
            return RowStats::default();
        }
        let mean = d.mean();
        let stdev = d.sample_stdev();
        let lo = (mean - stdev).max(0.0).ceil() as u64;
        let hi = (mean + stdev).floor() as u64;
        let within = if hi >= lo {
            d.histogram().count_between(lo, hi)
        } else {
            0
        };
        RowStats {
            mean,
            stdev,
            max: d.max() as f64,
            within_stdev_pct: 100.0 * within as f64 / d.count() as f64,
        }
    }
}

/// Socket errors by wrk's four causes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SocketErrors {
    pub connect: u64,
    pub read: u64,
    pub write: u64,
    pub timeout: u64,
}

impl SocketErrors {
    pub fn any(&self) -> bool {
        self.connect + self.read + self.write + self.timeout > 0
    }
}

/// One `Thread calibration` line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    pub mean_latency_ms: f64,
    pub interval_ms: u64,
}

/// Every figure of wrk2's report.
#[derive(Debug, Clone, Default)]
pub struct WrkReport {
    pub url: String,
    /// The `-d` duration in whole seconds.
    pub duration_s: u64,
    pub threads: u64,
    pub connections: u64,
    /// Printed only in rate (`-R`) mode, one per thread.
    pub calibration: Vec<Calibration>,
    /// Latency (from the intended send time with `-R`), microseconds.
    pub latency: Dist,
    /// Latency from the actual send, microseconds (`-U`).
    pub uncorrected: Dist,
    /// Requests per second per thread, one value per thread per second.
    pub req_per_sec: RowStats,
    pub show_latency: bool,
    pub show_uncorrected: bool,
    /// Completed responses.
    pub complete: u64,
    pub runtime_s: f64,
    pub bytes_read: u64,
    pub errors: SocketErrors,
    pub non_2xx_3xx: u64,
}

/// `Running 30s test @ URL` and the threads/connections line: printed before
/// the run starts.
pub fn render_header(r: &WrkReport) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Running {} test @ {}", time_s(r.duration_s), r.url);
    let _ = writeln!(
        o,
        "  {} threads and {} connections",
        r.threads, r.connections
    );
    o
}

/// wrk's whole-unit duration (`30s`, `1m`, `2h`).
fn time_s(secs: u64) -> String {
    let mut amt = secs as f64;
    let mut unit = "s";
    if amt >= 51.0 {
        amt /= 60.0;
        unit = "m";
    }
    format!("{amt:.0}{unit}")
}

fn stats_row(o: &mut String, name: &str, s: &RowStats, fmt: fn(f64) -> String) {
    let _ = write!(o, "    {name:<10}");
    o.push_str(&pad_units(&fmt(s.mean), 8));
    o.push_str(&pad_units(&fmt(s.stdev), 10));
    o.push_str(&pad_units(&fmt(s.max), 9));
    let _ = writeln!(o, "{:8.2}%", s.within_stdev_pct);
}

fn hdr_block(o: &mut String, d: &Dist, description: &str) {
    let _ = writeln!(o, "  Latency Distribution (HdrHistogram - {description})");
    for p in [50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0] {
        let v = if p >= 100.0 {
            d.histogram().max()
        } else {
            d.percentile(p)
        };
        let _ = write!(o, "{p:7.3}%");
        o.push_str(&pad_units(&time_us(v as f64), 10));
        o.push('\n');
    }
    o.push_str("\n  Detailed Percentile spectrum:\n");
    let _ = write!(
        o,
        "{:>12} {:>12} {:>12} {:>12}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    for l in spectrum(d.histogram(), 5) {
        let q = l.percentile / 100.0;
        let inv = 1.0 / (1.0 - q);
        let inv = if inv.is_finite() {
            format!("{inv:12.2}")
        } else {
            format!("{:>12}", "inf")
        };
        let _ = writeln!(
            o,
            "{:12.3} {:12.6} {:12} {inv}",
            l.value as f64 / 1000.0,
            q,
            l.total_count
        );
    }
    let (buckets, sub) = shape(d.histogram());
    let (mean, sd) = hist_moments(d);
    let _ = writeln!(
        o,
        "#[Mean    = {:12.3}, StdDeviation   = {:12.3}]",
        mean / 1000.0,
        sd / 1000.0
    );
    let _ = writeln!(
        o,
        "#[Max     = {:12.3}, Total count    = {:12}]",
        d.histogram().max() as f64 / 1000.0,
        d.histogram().len()
    );
    let _ = writeln!(o, "#[Buckets = {buckets:12}, SubBuckets     = {sub:12}]");
    o.push_str("----------------------------------------------------------\n");
}

/// The footer's mean and deviation are the histogram's own (population
/// deviation over bucket values), as HdrHistogram prints them.
fn hist_moments(d: &Dist) -> (f64, f64) {
    if d.histogram().is_empty() {
        (0.0, 0.0)
    } else {
        (d.histogram().mean(), d.histogram().stdev())
    }
}

/// Everything after the header: calibration lines, thread stats, latency
/// blocks and the summary.
pub fn render_body(r: &WrkReport) -> String {
    let mut o = String::new();
    for c in &r.calibration {
        let _ = writeln!(
            o,
            "  Thread calibration: mean lat.: {:.3}ms, rate sampling interval: {}ms",
            c.mean_latency_ms, c.interval_ms
        );
    }
    let _ = writeln!(
        o,
        "  Thread Stats{:>6}{:>11}{:>8}{:>12}",
        "Avg", "Stdev", "Max", "+/- Stdev"
    );
    stats_row(&mut o, "Latency", &RowStats::from_dist(&r.latency), time_us);
    stats_row(&mut o, "Req/Sec", &r.req_per_sec, metric);
    if r.show_latency {
        hdr_block(&mut o, &r.latency, "Recorded Latency");
    }
    if r.show_uncorrected {
        o.push('\n');
        hdr_block(
            &mut o,
            &r.uncorrected,
            "Uncorrected Latency (measured without taking delayed starts into account)",
        );
    }
    let runtime_us = r.runtime_s * 1_000_000.0;
    let _ = writeln!(
        o,
        "  {} requests in {}, {}B read",
        r.complete,
        time_us(runtime_us),
        binary(r.bytes_read as f64)
    );
    let e = &r.errors;
    if e.any() {
        let _ = writeln!(
            o,
            "  Socket errors: connect {}, read {}, write {}, timeout {}",
            e.connect, e.read, e.write, e.timeout
        );
    }
    if r.non_2xx_3xx > 0 {
        let _ = writeln!(o, "  Non-2xx or 3xx responses: {}", r.non_2xx_3xx);
    }
    let (rps, bps) = if r.runtime_s > 0.0 {
        (
            r.complete as f64 / r.runtime_s,
            r.bytes_read as f64 / r.runtime_s,
        )
    } else {
        (0.0, 0.0)
    };
    let _ = writeln!(o, "Requests/sec: {rps:9.2}");
    let _ = writeln!(o, "Transfer/sec: {:>10}B", binary(bps));
    o
}

/// Header and body together.
pub fn render(r: &WrkReport) -> String {
    let mut o = render_header(r);
    o.push_str(&render_body(r));
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_like_wrk() {
        assert_eq!(time_s(30), "30s");
        assert_eq!(time_s(2), "2s");
        assert_eq!(time_s(60), "1m");
    }

    #[test]
    fn row_stats() {
        let s = RowStats::from_values(&[500.0, 500.0, 520.0, 480.0]);
        assert!((s.mean - 500.0).abs() < 1e-9);
        assert!((s.stdev - 16.3299).abs() < 1e-3);
        assert_eq!(s.max, 520.0);
        assert_eq!(s.within_stdev_pct, 50.0);
    }
}
