//! The capacity model end to end: a short study against the built-in
//! origin's capacity-limited route, then the report's model section.

use loadlab_study::{Plan, Store, run_study};

use crate::study_e2e::opts;

// 4 served at once at 20 ms, 8 queued: about 200 req/s at most.
const PLAN: &str = r#"
name: capacity
origin:
  recipes:
    - route: /cap
      random_content: 1kb
      stages: [{at: 0, status: 200, latency: 20ms}]
      capacity: {concurrency: 4, queue: 8, queue_timeout: 200ms}
targets:
  - name: cap
    url: "{origin}/cap"
load:
  rates: [40, 80, 120, 160, 240, 320]
  step: 1s
  warmup: 200ms
  workers: 16
repetitions: 2
"#;

#[test]
fn study_report_has_the_capacity_model() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(PLAN, "plan.yaml", dir.path()).unwrap();
    let (o, _log) = opts(dir.path(), PLAN, false);
    let out = run_study(&plan, o).unwrap();
    let store = Store::open(&dir.path().join("study.db")).unwrap();
    let runs = store.runs(out.study_id).unwrap();
    assert_eq!(runs.len(), 12);

    let md = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    let at = md
        .find("## Capacity model")
        .expect("a Capacity model section");
    let section = &md[at..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |e| e + 3)];
    assert!(section.contains("### cap"), "{section}");
    // The steps past the wall measured it: a model, read from them.
    let caps = loadlab_study::model::capacities(&plan, &runs);
    let Some(m) = caps[0].model.as_ref() else {
        panic!("no model: {section}");
    };
    assert!(section.contains("Peak throughput X_max"), "{section}");
    assert!(section.contains(&loadlab_study::model::sentence(m, "req/s")));
    let sat = m
        .saturation
        .as_ref()
        .expect("read from the saturated steps");
    assert!(sat.from >= 160 && sat.runs >= 2, "{sat:?}");
    assert!(
        section.contains(&format!("| X_max read from | measured: {} runs", sat.runs)),
        "{section}"
    );
    // The route serves 4 at once at 20 ms or more: never above 200 req/s,
    // and a loaded machine only lowers it (and widens the interval, which
    // is the runs' spread).
    assert!(m.x_max.mid > 60.0 && m.x_max.mid < 205.0, "{m:?}");
    assert!(
        m.x_max.lo < m.x_max.mid && m.x_max.mid < m.x_max.hi,
        "{m:?}"
    );
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert!(html.contains("Capacity model — cap"), "no capacity chart");
}
