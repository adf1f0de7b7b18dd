//! The DSPS pub/sub script (DSPS's loadtest.k6.js), unchanged, against the
//! DSPS-like pub/sub server of loadlab-testkit on loopback.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loadlab_script::{RunConfig, run};

fn script(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scripts")
        .join(name)
}

#[test]
fn dsps_seed_script_runs_unchanged() {
    let (addr, _server) = loadlab_testkit::pubsub::serve_blocking();
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("run.lr");
    let cfg = RunConfig {
        script: script("dsps_loadtest.k6.js"),
        env: vec![
            ("BASE_URL".into(), format!("http://{addr}")),
            ("CHANNELS".into(), "2".into()),
            ("TEST_RAMPUP_SEC".into(), "1".into()),
            ("TEST_DURATION_SEC".into(), "2".into()),
        ],
        quiet: true,
        results_out: Some(results.clone()),
        ..Default::default()
    };
    let t0 = Instant::now();
    let out = run(cfg, std::future::pending()).unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(30),
        "took {:?}",
        t0.elapsed()
    );
    println!("{}", out.summary);
    assert_eq!(out.script_errors, 0, "{}", out.summary);
    assert!(!out.thresholds_failed, "{}", out.summary);
    assert!(out.http_reqs > 20, "{}", out.summary);
    assert!(out.summary.contains("dsps_msg_delay_ms"), "{}", out.summary);
    assert!(
        out.summary.contains("✓ 'rate >= 0.9999'"),
        "{}",
        out.summary
    );
    // The results file reads back with the requests and the custom metrics.
    let mut r =
        loadlab_metrics::ResultsReader::new(std::fs::File::open(&results).unwrap(), "run.lr")
            .unwrap();
    let (mut reqs, mut metrics) = (0u64, 0u64);
    while let Some(item) = r.next_item() {
        match item.unwrap() {
            loadlab_metrics::Item::Request(_) => reqs += 1,
            loadlab_metrics::Item::Metric(_) => metrics += 1,
        }
    }
    assert_eq!(reqs, out.http_reqs);
    assert!(metrics > 0);
}
