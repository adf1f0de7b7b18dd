//! The familiar vegeta text report of one run, from its summary.

use std::fmt::Write;
use std::time::Duration;

use loadlab_core::format_go_duration;

use crate::collect::RunSummary;

fn d(ns: u64) -> String {
    format_go_duration(Duration::from_nanos(ns))
}

/// A latency for one-line summaries (progress lines, `runs show`): rounded
/// to 3 significant digits, Go syntax (`12.3ms`, `523µs`, `1.23s`).
pub fn round_duration(ns: u64) -> String {
    let digits = ns.checked_ilog10().map_or(0, |l| l + 1);
    let ns = if digits > 3 {
        let p = 10u64.pow(digits - 3);
        (ns + p / 2) / p * p
    } else {
        ns
    };
    d(ns)
}

/// vegeta's `text` report layout (current column set).
pub fn vegeta_text(s: &RunSummary) -> String {
    let mut o = String::new();
    let n = s.requests.max(1) as f64;
    let ok = (s.success * s.requests as f64).round() as u64;
    let _ = writeln!(
        o,
        "Requests      [total, rate, throughput]         {}, {:.2}, {:.2}",
        s.requests, s.rate, s.throughput
    );
    let _ = writeln!(
        o,
        "Duration      [total, attack, wait]             {}, {}, {}",
        d(s.duration_ns),
        d(s.attack_ns),
        d(s.wait_ns)
    );
    let _ = writeln!(
        o,
        "Latencies     [min, mean, 50, 90, 95, 99, max]  {}, {}, {}, {}, {}, {}, {}",
        d(s.min_ns),
        d(s.mean_ns as u64),
        d(s.p50_ns),
        d(s.p90_ns),
        d(s.p95_ns),
        d(s.p99_ns),
        d(s.max_ns)
    );
    let _ = writeln!(
        o,
        "Bytes In      [total, mean]                     {}, {:.2}",
        s.bytes_in,
        s.bytes_in as f64 / n
    );
    let _ = writeln!(
        o,
        "Bytes Out     [total, mean]                     {}, {:.2}",
        s.bytes_out,
        s.bytes_out as f64 / n
    );
    let _ = writeln!(
        o,
        "Success       [ratio]                           {:.2}%",
        s.success * 100.0
    );
    let codes: Vec<String> = s
        .status_codes
        .iter()
        .map(|(c, n)| format!("{c}:{n}"))
        .collect();
    let _ = writeln!(
        o,
        "Status Codes  [code:count]                      {}  ",
        codes.join("  ")
    );
    let _ = writeln!(o, "Error Set:");
    for e in s.errors.keys() {
        // Stored texts are already redacted; this guards stores written before.
        let _ = writeln!(o, "{}", crate::secrets::redact_urls(e));
    }
    let _ = ok;
    o
}

/// Extra lines loadlab adds below the vegeta block: warm-up, schedule keeping, CPU.
pub fn extras(s: &RunSummary, warmup: Duration) -> String {
    let mut o = String::new();
    if s.warmup_requests > 0 {
        let _ = writeln!(
            o,
            "Warm-up       {} requests in the first {} (run, not counted above)",
            s.warmup_requests,
            d(warmup.as_nanos() as u64)
        );
    }
    let _ = writeln!(
        o,
        "Schedule      send lag p99 {}, late {}, unsent {}; uncorrected service p99 {}",
        d(s.send_lag_p99_ns),
        s.late,
        s.unsent,
        d(s.service_p99_ns)
    );
    if let (Some(m), Some(x)) = (s.cpu_mean, s.cpu_max) {
        let rss = s
            .rss_max
            .map(|r| format!(", RSS max {:.1} MiB", r as f64 / 1048576.0))
            .unwrap_or_default();
        let _ = writeln!(o, "Monitored     CPU mean {m:.1}%, max {x:.1}%{rss}");
    }
    o
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_duration_keeps_3_significant_digits() {
        use super::round_duration as r;
        assert_eq!(r(7_737_343), "7.74ms");
        assert_eq!(r(12_345_678), "12.3ms");
        assert_eq!(r(523_199), "523µs");
        assert_eq!(r(999_600), "1ms");
        assert_eq!(r(1_234_567_890), "1.23s");
        assert_eq!(r(61_649_000_000), "1m1.6s");
        assert_eq!(r(850), "850ns");
        assert_eq!(r(0), "0s");
    }
}
