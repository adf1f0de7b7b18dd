//! What the report's charts say, from synthetic runs (no network, no
//! browser): the p99 chart shows the SLO and the ceiling found, the HTML says
//! each chart's title once, tick labels are round, consistent numbers,
//! legends sit outside the plots with swatches drawn like their lines, text
//! is large enough to read, and steps that broke the SLO are marked on the
//! panel that shows the bound they broke.

use loadlab_core::Sample;
use loadlab_study::collect::Collector;
use loadlab_study::report::doc::Block;
use loadlab_study::store::{RunRow, StudyRow};
use loadlab_study::{Plan, analysis, report};

use crate::svg;

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

/// A run of `rate` req/s for 2 s answering in `base_ms` … `base_ms + 19` ms;
/// with `errors_every` = n > 0, every n-th request gets a 500.
fn run(id: i64, target: &str, rate: u64, base_ms: u64, errors_every: u64, plan: &Plan) -> RunRow {
    let mut c = Collector::new(rate, 500_000_000, 100_000_000);
    for i in 0..rate * 2 {
        let at = i * 1_000_000_000 / rate;
        let lat = (base_ms + (i * 7) % 20) * 1_000_000;
        c.record(&Sample {
            seq: i,
            intended_ns: at,
            sent_ns: at,
            done_ns: at + lat,
            status: if errors_every > 0 && i % errors_every == 0 {
                500
            } else {
                200
            },
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
    study_with(0)
}

/// [`study`], where a's every `a_errors_every`-th request fails at 200 req/s.
fn study_with(a_errors_every: u64) -> (Plan, Vec<RunRow>, StudyRow) {
    let plan = Plan::from_yaml(PLAN, "plan.yaml", std::path::Path::new(".")).unwrap();
    let runs = vec![
        run(1, "a", 100, 10, 0, &plan),
        run(2, "b", 100, 40, 0, &plan),
        run(3, "a", 200, 10, a_errors_every, &plan),
        run(4, "b", 200, 90, 0, &plan),
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
        label: String::new(),
    };
    (plan, runs, row)
}

/// The text of every `<text>` element of an SVG.
fn svg_texts(s: &str) -> Vec<String> {
    svg::texts(s).into_iter().map(|t| t.1).collect()
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

/// Every chart of the report, drawn as SVG.
fn all_charts(plan: &Plan, runs: &[RunRow], row: &StudyRow) -> Vec<(String, String)> {
    let an = analysis::analyse(plan, runs);
    report::build(row, plan, runs, &an)
        .into_iter()
        .filter_map(|b| match b {
            Block::Chart(f) => Some((f.id.clone(), f.svg().unwrap())),
            _ => None,
        })
        .collect()
}

#[test]
fn tick_labels_are_round_and_consistent() {
    let (plan, runs, row) = study_with(25);
    for (id, svg) in all_charts(&plan, &runs, &row) {
        for (panel, body) in svg::panels(&svg) {
            for class in ["tick-x", "tick-y"] {
                let numbers: Vec<f64> = svg::texts(body)
                    .into_iter()
                    .filter(|(tag, _)| svg::attr(tag, "class").as_deref() == Some(class))
                    .filter_map(|(_, t)| t.parse::<f64>().ok())
                    .collect();
                let at = format!("{id}/{panel} {class}: {numbers:?}");
                if class == "tick-y" {
                    assert!(numbers.len() >= 3, "{at}: too few tick labels");
                }
                ticks_are_round(&numbers, &at);
            }
        }
        // No axis mixes `0.500` with `1.0`: three decimals never appear.
        let labels = svg_texts(&svg);
        assert!(
            !labels
                .iter()
                .filter(|t| t.parse::<f64>().is_ok())
                .any(|n| n.split('.').nth(1).is_some_and(|d| d.len() >= 3)),
            "{id}: {labels:?}"
        );
    }
}

/// Evenly spaced ticks step by 1, 2 or 5 × 10^k; others (a log axis) are
/// round numbers of at most 2 significant digits (1, 2, 5, 40, 0.5, 1200).
fn ticks_are_round(ticks: &[f64], at: &str) {
    let steps: Vec<f64> = ticks.windows(2).map(|w| w[1] - w[0]).collect();
    let even = steps.len() >= 2
        && steps
            .iter()
            .all(|s| (s - steps[0]).abs() < 1e-6 * steps[0].abs().max(1.0));
    if even {
        let mag = 10f64.powf(steps[0].abs().log10().floor());
        let m = steps[0].abs() / mag;
        assert!(
            [1.0, 2.0, 5.0].iter().any(|k| (m - k).abs() < 1e-6),
            "{at}: step {} is not 1, 2 or 5 × 10^k",
            steps[0]
        );
        for t in ticks {
            let k = t / steps[0];
            assert!((k - k.round()).abs() < 1e-6, "{at}: {t} is off the step");
        }
        return;
    }
    for t in ticks {
        let digits = format!("{t}")
            .chars()
            .filter(|c| c.is_ascii_digit())
            .collect::<String>()
            .trim_start_matches('0')
            .trim_end_matches('0')
            .to_string();
        assert!(digits.len() <= 2, "{at}: tick {t} is not round");
    }
}

#[test]
fn legends_sit_below_their_plot_never_over_data() {
    let (plan, runs, row) = study_with(25);
    let charts = all_charts(&plan, &runs, &row);
    assert!(charts.len() >= 6, "{}", charts.len());
    for (id, svg) in charts {
        let plots: Vec<_> = svg::with_class(&svg, "rect", "plot")
            .into_iter()
            .map(svg::rect)
            .collect();
        let legends: Vec<_> = svg::with_class(&svg, "rect", "legend")
            .into_iter()
            .map(svg::rect)
            .collect();
        assert!(!plots.is_empty() && !legends.is_empty(), "{id}");
        let width = svg::num(svg::tags(&svg, "svg")[0], "width");
        for l in &legends {
            for p in &plots {
                assert!(
                    !svg::overlap(*l, *p),
                    "{id}: legend {l:?} covers plot {p:?}"
                );
            }
            assert!(
                l.0 >= 0.0 && l.0 + l.2 <= width,
                "{id}: legend {l:?} leaves the chart"
            );
        }
        // Each panel's legend is right below its own plot.
        for (panel, body) in svg::panels(&svg) {
            let p = svg::rect(svg::with_class(body, "rect", "plot")[0]);
            let l = svg::rect(svg::with_class(body, "rect", "legend")[0]);
            assert!(
                l.1 > p.1 + p.3 && l.1 < p.1 + p.3 + 100.0,
                "{id}/{panel}: {l:?} {p:?}"
            );
        }
    }
}

#[test]
fn chart_text_is_at_least_12px_at_natural_size() {
    let (plan, runs, row) = study_with(25);
    for (id, svg) in all_charts(&plan, &runs, &row) {
        let root = svg::tags(&svg, "svg")[0];
        // Shown at natural size on a 1400 px page (1000 px of content):
        // SVG units are CSS px.
        let width = svg::num(root, "width");
        assert!(
            width <= 1000.0,
            "{id}: {width} px wide would be scaled down"
        );
        assert_eq!(
            svg::attr(root, "viewBox"),
            Some(format!("0 0 {width} {}", svg::num(root, "height")))
        );
        let texts = svg::texts(&svg);
        assert!(texts.len() > 10, "{id}");
        for (tag, t) in texts {
            let size = svg::num(tag, "font-size");
            assert!(size >= 12.0, "{id}: {t:?} is {size} px");
        }
    }
}

#[test]
fn each_series_has_its_own_style_and_its_swatch_shows_it() {
    let (plan, runs, row) = study_with(25);
    for (id, svg) in all_charts(&plan, &runs, &row) {
        for (panel, body) in svg::panels(&svg) {
            let at = format!("{id}/{panel}");
            let lines: Vec<&str> = ["series", "rule"]
                .iter()
                .flat_map(|c| svg::with_class(body, "polyline", c))
                .collect();
            let style = |t: &str| {
                (
                    svg::attr(t, "stroke").unwrap(),
                    svg::attr(t, "stroke-dasharray").unwrap_or_default(),
                    svg::attr(t, "stroke-width").unwrap(),
                )
            };
            // Series differ by dash pattern alone (greyscale), and so by style.
            let series = svg::with_class(body, "polyline", "series");
            let mut dashes: Vec<String> = series.iter().map(|t| style(t).1).collect();
            dashes.sort();
            dashes.dedup();
            assert_eq!(dashes.len(), series.len(), "{at}: two series share a dash");
            let swatches = svg::with_class(body, "polyline", "swatch");
            assert_eq!(swatches.len(), lines.len(), "{at}: one swatch per line");
            for sw in swatches {
                let name = svg::attr(sw, "data-series").unwrap();
                let line = lines
                    .iter()
                    .find(|l| svg::attr(l, "data-series").as_deref() == Some(name.as_str()))
                    .unwrap_or_else(|| panic!("{at}: no line for swatch {name:?}"));
                assert_eq!(style(sw), style(line), "{at}: swatch of {name:?}");
            }
        }
    }
}

#[test]
fn slo_failures_are_marked_on_the_panel_of_the_bound_they_broke() {
    // At 200 req/s a loses 4 % of its requests (success < 99 %) and b
    // answers in 90 … 109 ms (p99 > 80 ms); at 100 req/s both pass.
    let (plan, runs, row) = study_with(25);
    let svg = all_charts(&plan, &runs, &row)
        .into_iter()
        .find(|(id, _)| id == "saturation")
        .unwrap()
        .1;
    let panels = svg::panels(&svg);
    let ids: Vec<&str> = panels.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(ids, ["throughput", "p99", "success"]);
    let marks = |panel: &str| -> Vec<(String, String, String)> {
        let body = panels.iter().find(|p| p.0 == panel).unwrap().1;
        svg::fail_marks(body)
            .into_iter()
            .map(|(tag, title)| {
                (
                    svg::attr(tag, "data-series").unwrap(),
                    svg::attr(tag, "data-criterion").unwrap(),
                    title,
                )
            })
            .collect()
    };
    assert_eq!(marks("throughput"), []);
    let p99 = marks("p99");
    assert_eq!(p99.len(), 1, "{p99:?}");
    assert_eq!((p99[0].0.as_str(), p99[0].1.as_str()), ("b", "p99"));
    assert!(
        p99[0]
            .2
            .starts_with("b at 200 req/s: failed SLO p99 ≤ 80ms in 1 of 1 run(s)"),
        "{p99:?}"
    );
    let success = marks("success");
    assert_eq!(success.len(), 1, "{success:?}");
    assert_eq!(
        (success[0].0.as_str(), success[0].1.as_str()),
        ("a", "success")
    );
    assert!(
        success[0].2.contains("failed SLO success ≥ 99.00%") && success[0].2.contains("96.0"),
        "{success:?}"
    );
    // Both ceilings are at 100 req/s: one line names both, none hidden.
    let p99_body = panels.iter().find(|p| p.0 == "p99").unwrap().1;
    let rules: Vec<String> = svg::with_class(p99_body, "polyline", "rule")
        .into_iter()
        .filter_map(|t| svg::attr(t, "data-series"))
        .collect();
    assert_eq!(rules, ["SLO p99 ≤ 80ms", "a, b ceiling 100 req/s"]);
    // The legends say what the marks mean.
    for (panel, words) in [
        ("p99", "failed SLO p99 ≤ 80ms"),
        ("success", "failed SLO success ≥ 99.00%"),
    ] {
        let body = panels.iter().find(|p| p.0 == panel).unwrap().1;
        let legend = &body[body.find("<g class=\"legend\"").unwrap()..];
        assert!(
            legend.contains("class=\"swatch-fail\""),
            "{panel}: no mark in the legend"
        );
        assert!(
            svg_texts(legend).iter().any(|t| t == words),
            "{panel}: {words:?} missing"
        );
    }

    // Without failures, no marks and no legend entry for them.
    let (plan, runs, row) = study_with(0);
    let runs: Vec<RunRow> = runs.into_iter().filter(|r| r.target == "a").collect();
    let svg = all_charts(&plan, &runs, &row)
        .into_iter()
        .find(|(id, _)| id == "saturation")
        .unwrap()
        .1;
    assert!(svg::fail_marks(&svg).is_empty() && !svg.contains("swatch-fail"));
}
