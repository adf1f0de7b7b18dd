//! Golden files for every report layout: fixed synthetic records → exact
//! text in `tests/golden/*.txt`. Regenerate with `UPDATE_GOLDEN=1 cargo test`
//! and review the diff by eye against vegeta's layouts.

use crate::common;

use std::sync::Arc;

use common::{Rng, START};
use loadlab_core::{ErrorKind, Sample};
use loadlab_metrics::{Metrics, Record, ReportType, render};

fn record(sample: Sample) -> Record {
    Record {
        attack: Arc::from("golden"),
        start_unix_ns: START,
        sample,
        method: Arc::from("GET"),
        url: Arc::from("http://127.0.0.1:8080/index.html"),
        error_text: None,
        series: None,
    }
}

/// A calm run: 5,000 requests at 1,000/s, on schedule, all 200 with 100-byte
/// bodies, latencies mostly 100 µs – 1 ms with a tail up to ~70 ms.
fn calm() -> Vec<Record> {
    let mut rng = Rng(42);
    (0..5_000u64)
        .map(|seq| {
            let intended = seq * 1_000_000;
            let sent = intended + 3_000 + rng.below(20_000);
            let lat = match rng.below(100) {
                0 => 5_000_000 + rng.below(65_000_000),
                1..=9 => 1_000_000 + rng.below(4_000_000),
                _ => 100_000 + rng.below(900_000),
            };
            record(Sample {
                seq,
                intended_ns: intended,
                sent_ns: sent,
                first_byte_ns: sent + lat - 2_000,
                done_ns: sent + lat,
                status: 200,
                bytes_in: 100,
                ..Default::default()
            })
        })
        .collect()
}

/// A troubled run: 2,000 requests at 400/s; the server stalls for a second
/// in the middle, so requests queue (send lag) and the corrected latency
/// rises while the service time does not; some 500s, 404s and resets.
fn troubled() -> Vec<Record> {
    let mut rng = Rng(7);
    let interval = 2_500_000;
    let stall = (2_000_000_000u64, 3_000_000_000u64);
    let mut free_at = 0u64; // one connection: a request waits for the previous one
    (0..2_000u64)
        .map(|seq| {
            let intended = seq * interval;
            let sent = intended.max(free_at) + 2_000 + rng.below(8_000);
            let mut service = 800_000 + rng.below(1_200_000);
            if sent < stall.1 && sent + service > stall.0 {
                service += stall.1 - sent.max(stall.0);
            }
            let done = sent + service;
            free_at = done;
            let (status, error, bytes_in) = match seq % 97 {
                13 => (0, ErrorKind::ConnectionReset, 0),
                29 | 58 => (500, ErrorKind::None, 21),
                71 => (404, ErrorKind::None, 9),
                _ => (200, ErrorKind::None, 4_096),
            };
            record(Sample {
                seq,
                intended_ns: intended,
                sent_ns: sent,
                first_byte_ns: if status == 0 { 0 } else { done - 10_000 },
                done_ns: done,
                status,
                error,
                bytes_out: 64,
                bytes_in,
                ..Default::default()
            })
        })
        .collect()
}

fn check(name: &str, got: &str) {
    let path = format!("{}/tests/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    loadlab_testkit::golden::check(std::path::Path::new(&path), got);
}

fn report(recs: &[Record], rt: &str) -> String {
    let rt: ReportType = rt.parse().unwrap();
    let mut m = rt.new_metrics();
    for r in recs {
        m.add(r);
    }
    render(&rt, &m)
}

#[test]
fn text_calm() {
    let out = report(&calm(), "text");
    assert!(
        !out.contains("Uncorrected"),
        "on-schedule runs keep vegeta's exact lines:\n{out}"
    );
    check("text_calm", &out);
}

/// vegeta's eight first lines, in vegeta's order: scripts that pick report
/// lines by position (`sed -n 3p`) must find vegeta's figures there.
const VEGETA_LINES: [&str; 8] = [
    "Requests      [total, rate, throughput]  ",
    "Duration      [total, attack, wait]  ",
    "Latencies     [min, mean, 50, 90, 95, 99, max]  ",
    "Bytes In      [total, mean]  ",
    "Bytes Out     [total, mean]  ",
    "Success       [ratio]  ",
    "Status Codes  [code:count]  ",
    "Error Set:",
];

fn assert_vegeta_lines_first(out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    for (i, want) in VEGETA_LINES.iter().enumerate() {
        assert!(
            lines.get(i).is_some_and(|l| l.starts_with(want)),
            "line {} should start with {want:?}:\n{out}",
            i + 1
        );
    }
}

#[test]
fn text_troubled() {
    let out = report(&troubled(), "text");
    assert_vegeta_lines_first(&out);
    // loadlab's lines come after all of vegeta's, errors included, after a
    // blank line.
    let errors_end = out.find("404 Not Found\n").expect("error set") + "404 Not Found\n".len();
    let extra = &out[errors_end..];
    assert!(
        extra.starts_with('\n') && extra.contains("Uncorrected") && extra.contains("Send Lag"),
        "{out}"
    );
    check("text_troubled", &out);
}

/// A slow, healthy run (2/s, ~100 µs responses, a few µs of send lag): the
/// uncorrected figures are tens of percent below the corrected ones, but
/// only by the generator's scheduling jitter, far under the 1 ms resolution
/// of the late count. Nothing was late, so nothing extra is printed.
#[test]
fn text_slow_on_time_run_has_only_vegetas_lines() {
    let mut rng = Rng(3);
    let recs: Vec<Record> = (0..20u64)
        .map(|seq| {
            let intended = seq * 500_000_000;
            let sent = intended + 20_000 + rng.below(60_000);
            let done = sent + 90_000 + rng.below(40_000);
            record(Sample {
                seq,
                intended_ns: intended,
                sent_ns: sent,
                first_byte_ns: done - 1_000,
                done_ns: done,
                status: 200,
                bytes_in: 11,
                ..Default::default()
            })
        })
        .collect();
    let out = report(&recs, "text");
    assert_vegeta_lines_first(&out);
    assert_eq!(out.lines().count(), 8, "{out}");
}

/// Requests the schedule called for but never sent get their own line,
/// first of loadlab's, even when nothing that was sent was late.
#[test]
fn text_and_json_with_unsent_requests() {
    let mut m = Metrics::new();
    for r in calm() {
        m.add(&r);
    }
    m.add_unsent(148);
    let out = render(&ReportType::Text, &m);
    assert_vegeta_lines_first(&out);
    check("text_unsent", &out);
    let json = render(&ReportType::Json, &m);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["unsent"], 148);
    let mut m = Metrics::new();
    for r in troubled() {
        m.add(&r);
    }
    m.add_unsent(3);
    check("text_troubled_unsent", &render(&ReportType::Text, &m));
}

/// The calm run against a gzip page: every body decoded from 625 bytes to
/// 60,065 (vegeta's `Bytes In`), the bytes as they came on loadlab's
/// `Wire In` line and in the JSON's `wire_in`.
#[test]
fn text_and_json_with_decoded_gzip_bodies() {
    let mut m = Metrics::new();
    for mut r in calm() {
        r.sample.bytes_in = 60_065;
        r.sample.wire_in = 625;
        m.add(&r);
    }
    let out = render(&ReportType::Text, &m);
    assert_vegeta_lines_first(&out);
    assert!(
        out.contains("\nBytes In      [total, mean]                     300325000, 60065.00\n"),
        "{out}"
    );
    check("text_gzip", &out);
    let json = render(&ReportType::Json, &m);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["bytes_in"]["total"], 300_325_000);
    assert_eq!(v["wire_in"]["total"], 3_125_000);
    assert_eq!(v["wire_in"]["mean"], 625.0);
}

#[test]
fn json_calm() {
    check("json_calm", &report(&calm(), "json"));
}

#[test]
fn json_troubled() {
    let out = report(&troubled(), "json");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    assert_eq!(v["requests"], 2_000);
    check("json_troubled", &out);
}

#[test]
fn hist_calm() {
    check(
        "hist_calm",
        &report(&calm(), "hist[0,100us,500us,1ms,5ms,10ms]"),
    );
}

#[test]
fn hist_without_configured_buckets_comes_from_the_histogram() {
    // Same bounds, metrics built without bucket counters: counts come from
    // the HdrHistogram, so only latencies within 0.1 % of a bound may move.
    let rt: ReportType = "hist[0,100us,500us,1ms,5ms,10ms]".parse().unwrap();
    let mut m = Metrics::new();
    for r in calm() {
        m.add(&r);
    }
    let approx = render(&rt, &m);
    let exact = report(&calm(), "hist[0,100us,500us,1ms,5ms,10ms]");
    let counts = |t: &str| -> Vec<i64> {
        t.lines()
            .skip(1)
            .map(|l| l.split_whitespace().nth(2).unwrap().parse().unwrap())
            .collect()
    };
    let (a, e) = (counts(&approx), counts(&exact));
    assert_eq!(a.iter().sum::<i64>(), 5_000);
    for (a, e) in a.iter().zip(&e) {
        assert!((a - e).abs() <= 10, "{approx}\n{exact}");
    }
}

#[test]
fn hdrplot_troubled() {
    check("hdrplot_troubled", &report(&troubled(), "hdrplot"));
}

#[test]
fn empty_reports() {
    let out = report(&[], "text");
    check("text_empty", &out);
    check("json_empty", &report(&[], "json"));
}

/// The figures of vegeta's own report in the reference notes (§2.2) render
/// to exactly that report, trailing spaces included.
#[test]
fn text_layout_matches_vegetas_reference_report() {
    use loadlab_metrics::metrics::{ByteSummary, LatencySummary};
    use loadlab_metrics::report::text_from_summary;
    let lat = LatencySummary {
        total: 0,
        min: 120_346,
        mean: 1_247_911,
        p50: 254_753,
        p90: 577_788,
        p95: 3_446_123,
        p99: 45_208_400,
        max: 67_405_000,
    };
    let s = loadlab_metrics::Summary {
        requests: 5000,
        rate: 1000.22,
        throughput: 1000.12,
        success: 1.0,
        earliest_unix_ns: Some(0),
        latest_unix_ns: Some(4_999_000_000),
        end_unix_ns: Some(4_999_488_217),
        duration_ns: 4_999_000_000,
        wait_ns: 488_217,
        schedule: Default::default(),
        latencies: lat,
        uncorrected: lat,
        send_lag: LatencySummary::default(),
        late: 0,
        late_threshold_ns: 1_000_000,
        unsent: 0,
        unsent_attack_wide: false,
        bytes_in: ByteSummary {
            total: 500_000,
            mean: 100.0,
        },
        bytes_out: ByteSummary {
            total: 0,
            mean: 0.0,
        },
        wire_in: ByteSummary {
            total: 500_000,
            mean: 100.0,
        },
        status_codes: vec![("200".to_string(), 5000)],
        errors: vec![],
        buckets: vec![],
    };
    let want = "\
Requests      [total, rate, throughput]         5000, 1000.22, 1000.12
Duration      [total, attack, wait]             4.999s, 4.999s, 488.217µs
Latencies     [min, mean, 50, 90, 95, 99, max]  120.346µs, 1.248ms, 254.753µs, 577.788µs, 3.446ms, 45.208ms, 67.405ms
Bytes In      [total, mean]                     500000, 100.00
Bytes Out     [total, mean]                     0, 0.00
Success       [ratio]                           100.00%
Status Codes  [code:count]                      200:5000  
Error Set:
";
    assert_eq!(text_from_summary(&s), want);
}
