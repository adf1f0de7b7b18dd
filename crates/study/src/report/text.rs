//! The familiar vegeta text report of one run, from its summary.

use std::fmt::Write;
use std::time::Duration;

use loadlab_core::format_go_duration;

use crate::collect::RunSummary;

fn d(ns: u64) -> String {
    format_go_duration(Duration::from_nanos(ns))
}

pub use crate::collect::BEHIND_NOTE;

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

/// vegeta's `text` report layout (current column set), every nanosecond,
/// rendered by loadlab-metrics' one renderer of it.
pub fn vegeta_text(s: &RunSummary) -> String {
    loadlab_metrics::text_with_style(&vegeta_summary(s), loadlab_metrics::TextStyle::EXACT_VEGETA)
}

/// The vegeta figures of a stored run, as loadlab-metrics' summary.
fn vegeta_summary(s: &RunSummary) -> loadlab_metrics::Summary {
    use loadlab_metrics::metrics::{ByteSummary, LatencySummary};
    let n = s.requests.max(1) as f64;
    let lat = LatencySummary {
        total: 0,
        mean: s.mean_ns as u64,
        p50: s.p50_ns,
        p90: s.p90_ns,
        p95: s.p95_ns,
        p99: s.p99_ns,
        max: s.max_ns,
        min: s.min_ns,
    };
    loadlab_metrics::Summary {
        requests: s.requests,
        rate: s.rate,
        throughput: s.throughput,
        success: s.success,
        earliest_unix_ns: None,
        latest_unix_ns: None,
        end_unix_ns: None,
        duration_ns: s.attack_ns,
        wait_ns: s.wait_ns,
        schedule: Default::default(),
        latencies: lat,
        uncorrected: LatencySummary::default(),
        send_lag: LatencySummary::default(),
        late: s.late,
        late_threshold_ns: loadlab_metrics::DEFAULT_LATE_THRESHOLD_NS,
        unsent: s.unsent,
        unsent_attack_wide: false,
        bytes_in: ByteSummary {
            total: s.bytes_in,
            mean: s.bytes_in as f64 / n,
        },
        bytes_out: ByteSummary {
            total: s.bytes_out,
            mean: s.bytes_out as f64 / n,
        },
        // A stored run keeps vegeta's count alone (its pages show
        // vegeta's lines, not loadlab's).
        wire_in: ByteSummary {
            total: s.bytes_in,
            mean: s.bytes_in as f64 / n,
        },
        // A database test's transactions have no HTTP status.
        status_codes: if s.is_database() {
            Default::default()
        } else {
            s.status_codes
                .iter()
                .map(|(c, n)| (c.to_string(), *n))
                .collect()
        },
        // Stored texts are already redacted; this guards stores written before.
        errors: s
            .errors
            .keys()
            .map(|e| crate::secrets::redact_urls(e))
            .collect(),
        buckets: Vec::new(),
    }
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
    if let Some(g) = &s.group {
        let spread = g
            .start_spread_ns
            .map_or(String::new(), |n| format!(" (start spread {})", d(n)));
        let _ = writeln!(
            o,
            "Concurrent    {} workloads together{spread}, figures above combined: {}",
            g.members.len(),
            g.members.join(", ")
        );
    }
    if let Some(q) = &s.queries {
        let _ = writeln!(
            o,
            "Transactions  {:.2} tps, {:.2} qps ({} statements); latencies above are per transaction",
            s.throughput, q.per_second, q.count
        );
    }
    // A closed-loop database test keeps no schedule: nothing to say.
    if !s.is_database() || s.send_lag_p99_ns > 0 || s.unsent > 0 {
        let _ = writeln!(
            o,
            "Schedule      send lag p99 {}, late {}, unsent {}; uncorrected service p99 {}",
            d(s.send_lag_p99_ns),
            s.late,
            s.unsent,
            d(s.service_p99_ns)
        );
    }
    if s.generator_behind() {
        let _ = writeln!(o, "Generator     {BEHIND_NOTE}");
    }
    if s.unreachable() {
        let _ = writeln!(o, "Target        {}", crate::collect::unreachable_words(s));
    }
    for t in &s.thresholds {
        let _ = writeln!(
            o,
            "Threshold     {} {}: {}",
            t.metric,
            t.threshold,
            if t.ok { "held" } else { "crossed" }
        );
    }
    if let (Some(m), Some(x)) = (s.cpu_mean, s.cpu_max) {
        let rss = s
            .rss_max
            .map(|r| format!(", RSS max {:.1} MiB", r as f64 / 1048576.0))
            .unwrap_or_default();
        let _ = writeln!(o, "Monitored     CPU mean {m:.1}%, max {x:.1}%{rss}");
    }
    if let Some(w) = &s.workers {
        for l in w.lines() {
            let _ = writeln!(o, "{l}");
        }
    }
    for l in &s.replay {
        let _ = writeln!(o, "Replay        {l}");
    }
    o
}

#[cfg(test)]
mod tests {
    /// The layout the study printed with its own renderer before it used
    /// loadlab-metrics' (fixed-width columns, every nanosecond), kept line
    /// for line.
    #[test]
    fn vegeta_text_keeps_its_layout() {
        let mut s = crate::collect::RunSummary {
            requests: 250,
            rate: 100.0,
            throughput: 99.512,
            duration_ns: 2_492_345_678,
            attack_ns: 2_490_000_000,
            wait_ns: 2_345_678,
            min_ns: 812_345,
            mean_ns: 1_234_567.8,
            p50_ns: 1_100_111,
            p90_ns: 1_900_222,
            p95_ns: 2_500_333,
            p99_ns: 9_800_444,
            max_ns: 12_345_678,
            bytes_in: 25_000,
            bytes_out: 0,
            success: 0.996,
            ..Default::default()
        };
        s.status_codes.insert(200, 249);
        s.status_codes.insert(0, 1);
        s.errors.insert(
            "GET http://bob:secret@127.0.0.1:1/c: connection refused".into(),
            1,
        );
        let want = "\
Requests      [total, rate, throughput]         250, 100.00, 99.51
Duration      [total, attack, wait]             2.492345678s, 2.49s, 2.345678ms
Latencies     [min, mean, 50, 90, 95, 99, max]  812.345µs, 1.234567ms, 1.100111ms, 1.900222ms, 2.500333ms, 9.800444ms, 12.345678ms
Bytes In      [total, mean]                     25000, 100.00
Bytes Out     [total, mean]                     0, 0.00
Success       [ratio]                           99.60%
Status Codes  [code:count]                      0:1  200:249  
Error Set:
GET http://bob:xxxxx@127.0.0.1:1/c: connection refused
";
        assert_eq!(super::vegeta_text(&s), want);
        // Unsent and late requests are the study's own extra lines, not
        // loadlab report's.
        s.unsent = 5;
        s.late = 3;
        assert_eq!(super::vegeta_text(&s), want);
    }

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
