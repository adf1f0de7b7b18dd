//! What the report's charts say, from synthetic runs (no network, no
//! browser): the p99 chart shows the SLO and the ceiling found, the HTML says
//! each chart's title once, and tick labels are round, consistent numbers.

use loadlab_core::Sample;
use loadlab_study::collect::Collector;
use loadlab_study::report::doc::Block;
use loadlab_study::store::{RunRow, StudyRow};
use loadlab_study::{Plan, analysis, report};

// b's p99 exceeds 80 ms at 200 req/s: its ceiling is 100 req/s.
const PLAN: &str = r#"
name: charts
targets:
  - {name: a, url: "http://127.0.0.1:1/a"}
  - {name: b, url: "http://127.0.0.1:1/b"}
load: {rates: [100, 200], step: 2s, warmup: 500ms}
slo: {success: 99%, p99: 80ms}
ceiling: {resolution: 100}
"#;

fn run(id: i64, target: &str, rate: u64, base_ms: u64, plan: &Plan) -> RunRow {
    let mut c = Collector::new(rate, 500_000_000, 100_000_000);
    for i in 0..rate * 2 {
        let at = i * 1_000_000_000 / rate;
        let lat = (base_ms + (i * 7) % 20) * 1_000_000;
        c.record(&Sample {
            seq: i,
            intended_ns: at,
            sent_ns: at,
            done_ns: at + lat,
            status: 200,
            bytes_in: 100,
            ..Default::default()
        });
    }
    let data = c.finish();
    RunRow {
        id,
        study_id: 1,
        phase: "sweep".into(),
        rate,
        target: target.into(),
        repetition: 1,
        started_at: "2026-01-01T00:00:00Z".into(),
        slo_pass: analysis::slo_pass(plan.slo.as_ref(), &data.summary),
        summary: data.summary,
        latency: data.latency,
        service: data.service,
        series: data.series,
        monitor: Vec::new(),
    }
}

fn study() -> (Plan, Vec<RunRow>, StudyRow) {
    let plan = Plan::from_yaml(PLAN, "plan.yaml", std::path::Path::new(".")).unwrap();
    let runs = vec![
        run(1, "a", 100, 10, &plan),
        run(2, "b", 100, 40, &plan),
        run(3, "a", 200, 10, &plan),
        run(4, "b", 200, 90, &plan),
    ];
    let row = StudyRow {
        id: 1,
        name: "charts".into(),
        plan_path: "plan.yaml".into(),
        plan_yaml: PLAN.into(),
        plan_json: String::new(),
        environment_json: "{}".into(),
        out_dir: String::new(),
        created_at: "2026-01-01T00:00:00Z".into(),
        finished_at: None,
        status: "done".into(),
        runs: 4,
    };
    (plan, runs, row)
}

/// The text of every `<text>` element of an SVG.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find("</text>")?].trim().to_string())
        })
        .collect()
}

#[test]
fn p99_chart_shows_the_slo_and_the_ceiling_and_titles_are_said_once() {
    let (plan, runs, row) = study();
    let an = analysis::analyse(&plan, &runs);
    let b = an.ceilings.iter().find(|c| c.target == "b").unwrap();
    assert_eq!((b.pass, b.fail), (Some(100), Some(200)), "{an:?}");

    let blocks = report::build(&row, &plan, &runs, &an);
    let sat = blocks
        .iter()
        .find_map(|b| match b {
            Block::Chart(f) if f.id == "saturation" => Some(f),
            _ => None,
        })
        .unwrap();
    let svg = sat.svg().unwrap();
    let texts = svg_texts(&svg);
    assert!(texts.iter().any(|t| t == "SLO p99 ≤ 80ms"), "{texts:?}");
    assert!(
        texts.iter().any(|t| t == "b ceiling 100 req/s"),
        "{texts:?}"
    );
    assert!(
        !texts.iter().any(|t| t.contains("a ceiling")),
        "a never failed: no ceiling marker for it: {texts:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    report::write_report(&row, &plan, &runs, &an, dir.path()).unwrap();
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    for title in [
        "Saturation: offered rate vs achieved throughput and p99",
        "Percentile spectrum — a",
    ] {
        assert_eq!(
            html.matches(title).count(),
            1,
            "{title:?} said more than once"
        );
    }
    // The PNG keeps its title (Markdown shows no caption of its own).
    assert!(dir.path().join("charts/saturation.png").exists());
}

#[test]
fn tick_labels_are_round_and_consistent() {
    let (plan, runs, row) = study();
    let an = analysis::analyse(&plan, &runs);
    for b in report::build(&row, &plan, &runs, &an) {
        let Block::Chart(f) = b else { continue };
        let svg = f.svg().unwrap();
        let numbers: Vec<String> = svg_texts(&svg)
            .into_iter()
            .filter(|t| t.parse::<f64>().is_ok())
            .collect();
        assert!(!numbers.is_empty(), "{}: no tick labels", f.id);
        for n in &numbers {
            // Round values: at most 2 significant digits (1, 2, 5, 40, 0.5, 1200 ...).
            let digits: String = n
                .chars()
                .filter(|c| c.is_ascii_digit())
                .collect::<String>()
                .trim_start_matches('0')
                .trim_end_matches('0')
                .to_string();
            assert!(
                digits.len() <= 2,
                "{}: tick {n:?} is not round: {numbers:?}",
                f.id
            );
        }
        // No axis mixes `0.500` with `1.0`: three decimals never appear.
        assert!(
            !numbers
                .iter()
                .any(|n| n.split('.').nth(1).is_some_and(|d| d.len() >= 3)),
            "{}: {numbers:?}",
            f.id
        );
    }
}
