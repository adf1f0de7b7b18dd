//! How long do the collector and the report take for a large study?
//! Feeds N synthetic samples (default 10 million) through the study's sink,
//! split over 2 targets × 5 rates × 2 repetitions, then writes the report.
//!
//!     cargo run --release -p loadlab-study --example big_report [-- N]

use std::time::Instant;

use loadlab_core::Sample;
use loadlab_study::collect::Collector;
use loadlab_study::store::{RunRow, StudyRow};
use loadlab_study::{Plan, analysis, report};

const PLAN: &str = r#"
name: big
targets:
  - {name: a, url: "http://127.0.0.1:1/a"}
  - {name: b, url: "http://127.0.0.1:1/b"}
load: {rates: [1000, 2000, 3000, 4000, 5000], step: 60s, warmup: 5s}
repetitions: 2
slo: {success: 99%, p99: 100ms}
ceiling: {resolution: 100}
hypotheses: ["a.p99 < b.p99"]
"#;

fn main() {
    let total: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let plan = Plan::from_yaml(PLAN, "big.yaml", std::path::Path::new(".")).expect("plan");
    let per_run = total / 20;
    let t0 = Instant::now();
    let mut runs = Vec::new();
    let mut id = 0;
    for rate in [1000u64, 2000, 3000, 4000, 5000] {
        for rep in 1..=2u32 {
            for (t, base) in [("a", 5_000_000u64), ("b", 7_000_000)] {
                id += 1;
                let mut c = Collector::new(rate, 5_000_000_000, 600_000_000);
                let step = 60_000_000_000 / per_run;
                for i in 0..per_run {
                    let at = i * step;
                    let lat = base + (i.wrapping_mul(2_654_435_761) % 20_000_000);
                    let status = if i % 1000 == 0 { 503 } else { 200 };
                    c.record(&Sample {
                        seq: i,
                        intended_ns: at,
                        sent_ns: at,
                        done_ns: at + lat,
                        status,
                        bytes_in: 4096,
                        ..Default::default()
                    });
                }
                let d = c.finish();
                runs.push(RunRow {
                    id,
                    study_id: 1,
                    phase: "sweep".into(),
                    rate,
                    target: t.into(),
                    repetition: rep,
                    started_at: String::new(),
                    slo_pass: analysis::slo_pass(plan.slo.as_ref(), &d.summary),
                    summary: d.summary,
                    latency: d.latency,
                    service: d.service,
                    series: d.series,
                    monitor: Vec::new(),
                });
            }
        }
    }
    let collect = t0.elapsed();
    let t1 = Instant::now();
    let row = StudyRow {
        id: 1,
        name: "big".into(),
        plan_path: "big.yaml".into(),
        plan_yaml: PLAN.into(),
        plan_json: String::new(),
        environment_json: "{}".into(),
        out_dir: String::new(),
        created_at: String::new(),
        finished_at: None,
        status: "done".into(),
        runs: runs.len() as i64,
        label: String::new(),
    };
    let an = analysis::analyse(&plan, &runs);
    let out = std::env::temp_dir().join(format!("loadlab-big-report-{}", std::process::id()));
    report::write_report(&row, &plan, &runs, &an, &out).expect("report");
    let rep = t1.elapsed();
    println!(
        "{} samples collected in {:.2}s ({:.0} ns/sample); report (analysis + charts + md + html) in {:.2}s -> {}",
        per_run * 20,
        collect.as_secs_f64(),
        collect.as_nanos() as f64 / (per_run * 20) as f64,
        rep.as_secs_f64(),
        out.display()
    );
}
