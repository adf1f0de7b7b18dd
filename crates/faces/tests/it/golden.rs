//! Golden tests: ab's and wrk2's layouts rendered from fixed synthetic data
//! must match the files in tests/golden/ byte for byte. Regenerate with
//! `UPDATE_GOLDEN=1 cargo test -p loadlab-faces --test it golden::` and review the diff.

use std::path::PathBuf;

use loadlab_faces::ab::report::{
    AbReport, Failures, GnuplotRow, Phases, gnuplot_tsv, percentile_csv, render as render_ab,
};
use loadlab_faces::hist::Dist;
use loadlab_faces::wrk::report::{
    Calibration, RowStats, SocketErrors, WrkReport, render as render_wrk,
};

fn check(name: &str, actual: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    loadlab_testkit::golden::check(&path, actual);
}

/// A deterministic pseudo-random sequence (no clock, no RNG crate).
fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *seed >> 33
}

fn ab_phases(n: u64) -> (Phases, Vec<GnuplotRow>) {
    let mut p = Phases::default();
    let mut rows = Vec::new();
    let mut seed = 7;
    for i in 0..n {
        let connect = 32_000 + lcg(&mut seed) % 3_000;
        let waiting = 31_000 + lcg(&mut seed) % 5_000 + if i % 97 == 0 { 50_000 } else { 0 };
        let total = connect + waiting + 300;
        p.record(connect, waiting, total);
        if i < 5 {
            rows.push(GnuplotRow {
                start_unix_us: 1_500_000_000_000_000 + i * 6_700,
                connect_us: connect as u32,
                total_us: total as u32,
                waiting_us: waiting as u32,
            });
        }
    }
    (p, rows)
}

fn ab_report() -> AbReport {
    let (phases, _) = ab_phases(1000);
    AbReport {
        server_software: "Apache/2.4.25".into(),
        hostname: "ec2-54-89-49-182.compute-1.amazonaws.com".into(),
        port: 80,
        path: "/~Lars/md3/".into(),
        document_length: Some(781),
        concurrency: 10,
        time_taken_s: 6.684,
        complete: 1000,
        total_transferred: 1_055_000,
        html_transferred: 781_000,
        phases,
        confidence: true,
        percentiles: true,
        ..AbReport::default()
    }
}

#[test]
fn ab_layout() {
    check("ab.txt", &render_ab(&ab_report()));
}

#[test]
fn ab_layout_with_failures_keepalive_body_tls_and_short_table() {
    let mut r = ab_report();
    r.tls_protocol = Some("TLSv1.3,TLS13_AES_256_GCM_SHA384".into());
    r.tls_server_name = Some(r.hostname.clone());
    r.port = 443;
    r.document_length = None;
    r.failures = Failures {
        connect: 1,
        receive: 2,
        length: 3,
        exceptions: 0,
    };
    r.non_2xx = 4;
    r.keepalive_requests = Some(990);
    r.body_sent = Some(12_000);
    r.confidence = false;
    check("ab_variants.txt", &render_ab(&r));
}

#[test]
fn ab_files() {
    let (phases, mut rows) = ab_phases(1000);
    check("ab_gnuplot.tsv", &gnuplot_tsv(&mut rows));
    check("ab_percentiles.csv", &percentile_csv(&phases.total));
}

fn wrk_report(latency: bool) -> WrkReport {
    let mut lat = Dist::new();
    let mut unc = Dist::new();
    let mut seed = 11;
    for i in 0..29_994u64 {
        let base = 1_000 + lcg(&mut seed) % 1_400;
        let spike = if i % 500 == 0 {
            40_000 + lcg(&mut seed) % 15_000
        } else {
            0
        };
        lat.record(base + spike);
        unc.record(base + spike / 4);
    }
    WrkReport {
        url: "http://127.0.0.1:8084/".into(),
        duration_s: 30,
        threads: 2,
        connections: 10,
        calibration: vec![
            Calibration {
                mean_latency_ms: 1.702,
                interval_ms: 1000,
            },
            Calibration {
                mean_latency_ms: 1.683,
                interval_ms: 1000,
            },
        ],
        latency: lat,
        uncorrected: unc,
        req_per_sec: RowStats::from_values(&[
            526.0, 471.0, 505.0, 499.0, 1110.0, 500.0, 480.0, 520.0,
        ]),
        show_latency: latency,
        show_uncorrected: latency,
        complete: 29_994,
        runtime_s: 30.0,
        bytes_read: 6_752_829,
        ..WrkReport::default()
    }
}

#[test]
fn wrk_layout() {
    check("wrk.txt", &render_wrk(&wrk_report(false)));
}

#[test]
fn wrk_layout_with_latency_blocks_and_errors() {
    let mut r = wrk_report(true);
    r.errors = SocketErrors {
        connect: 0,
        read: 2,
        write: 0,
        timeout: 5,
    };
    r.non_2xx_3xx = 17;
    check("wrk_latency.txt", &render_wrk(&r));
}
