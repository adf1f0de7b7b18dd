//! The shipped examples that reproduce users' reports, run shortened
//! (shorter steps, fewer rates and repetitions) against their built-in
//! origins: they load, run, store every run and answer their question.

use std::path::Path;

use loadlab_study::{Plan, Store, run_study};

use crate::study_e2e::opts;

fn example(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../examples/{name}")),
    )
    .unwrap()
}

/// `yaml` with each `(from, to)` replaced once (each must be there).
fn shortened(yaml: &str, edits: &[(&str, &str)]) -> String {
    let mut y = yaml.to_string();
    for (from, to) in edits {
        assert!(y.contains(from), "{from:?} is not in the example");
        y = y.replacen(from, to, 1);
    }
    y
}

#[test]
fn the_multi_route_comparison_runs_its_four_tests() {
    let yaml = shortened(
        &example("multi-route-comparable.yaml"),
        &[
            ("rates: [200, 500]", "rates: [50]"),
            ("step: 4s", "step: 1500ms"),
            ("warmup: 1s", "warmup: 300ms"),
            ("repetitions: 4", "repetitions: 3"),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(&yaml, "plan.yaml", dir.path()).unwrap();
    let (o, log) = opts(dir.path(), &yaml, false);
    let out = run_study(&plan, o).unwrap();
    let log = log.lock().unwrap().join("\n");
    let runs = Store::open(&dir.path().join("study.db"))
        .unwrap()
        .runs(out.study_id)
        .unwrap();
    for t in [
        "single",
        "multi",
        "single-100ms",
        "multi-100ms",
        "routes",
        "routes/news",
        "routes/sport",
        "routes/sounds",
    ] {
        let n = runs.iter().filter(|r| r.target == t).count();
        assert_eq!(n, 3, "{t}: {log}");
    }
    // Each of the three concurrent routes got its schedule (1.2 s measured
    // at 50/s); the group all three.
    for r in runs.iter().filter(|r| r.target.starts_with("routes")) {
        let want = if r.target == "routes" { 180 } else { 60 };
        assert_eq!(r.summary.requests, want, "{}", r.target);
    }
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    for h in [
        "`multi.p99 ≈ single.p99 within 5%`",
        "`multi-100ms.p99 ≈ single-100ms.p99 within 5%`",
        "`routes/news.p99 ≈ multi-100ms.p99 within 5%`",
    ] {
        assert!(report.contains(h), "{h} in {report}");
    }
    assert!(report.contains("Concurrent    3 workloads together (start spread "));
    // Each set-up is its own origin.
    assert!(
        report.contains(
            "Origins (in-process): `single` at `http://ORIGIN-single` (inline: /, /slow); `multi` at `http://ORIGIN-multi` (inline: /news, /slow/news, /slow/sport, /slow/sounds)"
        ),
        "{report}"
    );
}

#[test]
fn the_payload_size_study_finds_the_large_payload_saturates_first() {
    let yaml = shortened(
        &example("payload-size.yaml"),
        &[
            // A tenth of the rates, ten times the service times: the same
            // capacities relative to the load, which a debug build on a
            // busy machine sends on time.
            ("rates: [1000, 2000, 10000]", "rates: [100, 200]"),
            ("{median: 3ms, p99: 6ms}", "{median: 30ms, p99: 60ms}"),
            ("{median: 2ms, p99: 3ms}", "{median: 20ms, p99: 30ms}"),
            ("resolution: 250", "resolution: 25"),
            ("step: 6s", "step: 1500ms"),
            ("warmup: 1s", "warmup: 300ms"),
            ("repetitions: 3", "repetitions: 1"),
            ("max_probes: 3", "max_probes: 1"),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(&yaml, "plan.yaml", dir.path()).unwrap();
    let (o, log) = opts(dir.path(), &yaml, false);
    run_study(&plan, o).unwrap();
    let log = log.lock().unwrap().join("\n");
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    assert!(
        report.contains("**SUPPORTED** — 1. `small.ceiling > large.ceiling`"),
        "{log}\n{report}"
    );
}
