//! The HTML report, rendered by a real headless Chromium: charts (inline SVG)
//! and tables must be in the rendered DOM, with nothing fetched from outside.
//! The report is built from synthetic runs (no network), so this test is fast.
//! At 200 req/s, a loses 4 % of its requests and b answers slower than the
//! SLO's p99: the charts mark both. In the rendered page every chart text
//! is at least 12 px, captions sit above their charts, figures apart.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::Command;

use loadlab_core::Sample;
use loadlab_study::collect::Collector;
use loadlab_study::store::{RunRow, StudyRow};
use loadlab_study::{Plan, analysis, report};
use loadlab_testkit::browser::{HEADLESS, chromium_or_skip};

const PLAN: &str = r#"
name: synthetic
question: Does b answer slower than a?
targets:
  - {name: a, url: "http://127.0.0.1:1/a"}
  - {name: b, url: "http://127.0.0.1:1/b"}
load: {rates: [100, 200], step: 2s, warmup: 500ms}
repetitions: 2
slo: {success: 99%, p99: 80ms}
ceiling: {resolution: 50}
hypotheses: ["a.p99 < b.p99", "a.success >= b.success"]
"#;

/// A run whose every `errors_every`-th request (when > 0) gets a 500.
fn run(
    id: i64,
    target: &str,
    rate: u64,
    rep: u32,
    base_ms: u64,
    errors_every: u64,
    plan: &Plan,
) -> RunRow {
    let mut c = Collector::new(rate, 500_000_000, 100_000_000);
    let n = rate * 2;
    for i in 0..n {
        let at = i * 1_000_000_000 / rate;
        let lat = (base_ms + (i * 7 + rep as u64 * 3) % 20) * 1_000_000 + rate * 10_000;
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
        repetition: rep,
        started_at: "2026-01-01T00:00:00Z".into(),
        slo_pass: analysis::slo_pass(plan.slo.as_ref(), &data.summary),
        summary: data.summary,
        latency: data.latency,
        service: data.service,
        series: data.series,
        monitor: Vec::new(),
    }
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(PLAN, "plan.yaml", dir.path()).unwrap();
    let mut runs = Vec::new();
    let mut id = 0;
    for rate in [100, 200] {
        for rep in 1..=2 {
            for (t, base) in [("a", 10), ("b", if rate == 200 { 75 } else { 40 })] {
                id += 1;
                let errors_every = if t == "a" && rate == 200 { 25 } else { 0 };
                runs.push(run(id, t, rate, rep, base, errors_every, &plan));
            }
        }
    }
    let row = StudyRow {
        id: 1,
        name: "synthetic".into(),
        plan_path: "plan.yaml".into(),
        plan_yaml: PLAN.into(),
        plan_json: serde_json::to_string(&plan).unwrap(),
        environment_json: "{}".into(),
        out_dir: String::new(),
        created_at: "2026-01-01T00:00:00Z".into(),
        finished_at: None,
        status: "done".into(),
        runs: runs.len() as i64,
        label: String::new(),
    };
    let an = analysis::analyse(&plan, &runs);
    assert_eq!(
        an.answers[0].verdict,
        loadlab_study::stats::Verdict::Supported
    );
    let out = dir.path().join("report");
    report::write_report(&row, &plan, &runs, &an, &out).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        !html.contains("<script") && !html.contains("<link") && !html.contains("@import"),
        "report must be self-contained"
    );

    // Each step: its heading by the plan's axis, its charts (captions
    // above), then its runs folded in a <details>; long lines wrap.
    assert!(
        html.contains("<h3>Test 1 — 100 req/s (step)</h3>"),
        "step heading"
    );
    let step = html.find("<h3>Test 1 — 100 req/s").unwrap();
    let chart = step
        + html[step..]
            .find("<figure id=\"latency-sweep-100\"><figcaption>")
            .unwrap();
    let folded = step
        + html[step..]
            .find("<details><summary>The 4 run(s) of this step")
            .unwrap();
    assert!(chart < folded, "the step's charts come before its runs");
    assert!(html.contains("white-space:pre-wrap"), "command lines wrap");

    let Some(bin) = chromium_or_skip("html_report_renders_in_headless_chromium") else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let dom = dump_dom(bin, &out.join("report.html"), profile.path());
    // Charts: saturation, 2 spectra, per-step latency + A/B overlays.
    let svgs = dom.matches("<svg").count();
    assert!(
        svgs >= 7,
        "expected at least 7 charts in the rendered DOM, got {svgs}"
    );
    assert!(
        dom.contains("<polyline") || dom.contains("<path"),
        "charts have no lines"
    );
    assert!(dom.matches("<table").count() >= 3, "tables missing");
    assert!(dom.contains("SUPPORTED"), "verdict missing");
    assert!(dom.contains("Percentile spectrum — a"));
    assert!(dom.contains("Requests      [total, rate, throughput]"));

    rendered_charts_read_well(bin, &html, dir.path(), profile.path());

    // Screenshots at a 1400 px wide window: the first screen and the whole
    // page (kept in LOADLAB_REPORT_SHOTS when set, for a person to look at).
    for (name, height) in [("first-screen", 900), ("whole", 9000)] {
        let png = dir.path().join(format!("{name}.png"));
        let o = Command::new(bin)
            .args(HEADLESS)
            .args(["--disable-dev-shm-usage", "--hide-scrollbars"])
            .arg(format!("--window-size=1400,{height}"))
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg(format!("--screenshot={}", png.display()))
            .arg(format!(
                "file://{}",
                out.join("report.html").canonicalize().unwrap().display()
            ))
            .output_bounded()
            .expect("run chromium");
        let bytes = std::fs::read(&png).unwrap_or_default();
        assert!(
            bytes.starts_with(b"\x89PNG"),
            "no screenshot: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        if let Some(keep) = std::env::var_os("LOADLAB_REPORT_SHOTS") {
            std::fs::create_dir_all(&keep).unwrap();
            std::fs::copy(&png, Path::new(&keep).join(format!("{name}.png"))).unwrap();
            // And the Markdown report's saturation chart, drawn as PNG.
            let md = out.join("charts/saturation.png");
            std::fs::copy(md, Path::new(&keep).join("md-saturation.png")).unwrap();
        }
    }
}

/// Measures the page as Chromium lays it out in a 1400 px wide window: a
/// copy of the report with a script (the report itself has none) that
/// writes what it measured into the DOM.
fn rendered_charts_read_well(bin: &str, html: &str, dir: &Path, profile: &Path) {
    let probe = dir.join("measure.html");
    std::fs::write(&probe, html.replace("</body>", MEASURE)).unwrap();
    let dom = dump_dom(bin, &probe, profile);
    // The last one: the script's own text comes before what it wrote.
    let at = dom.rfind("MEASURE ").unwrap();
    let line = &dom[at..];
    assert!(!line.contains('+'), "the measuring script did not run");
    let line = &line[..line.find(" END").unwrap()];
    let get = |key: &str| -> f64 {
        let v = line
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
            .unwrap_or_else(|| panic!("{key} missing in {line}"));
        v.parse().unwrap()
    };
    eprintln!("rendered: {line}");
    assert!(get("texts") > 100.0, "{line}");
    assert!(get("min_px") >= 12.0, "chart text below 12 px: {line}");
    assert!(get("figures") >= 7.0, "{line}");
    assert_eq!(
        get("caption_below"),
        0.0,
        "a caption below its chart: {line}"
    );
    assert!(get("min_gap") >= 32.0, "figures too close: {line}");
}

/// For each chart: the smallest rendered text (font size times the SVG's
/// scale on screen), whether its caption ends above the drawing, and the
/// space between one figure's drawing and the next figure's caption.
const MEASURE: &str = r#"<script>
(function () {
  var min = 1e9, n = 0, above = 0, below = 0, gap = 1e9, prev = null;
  document.querySelectorAll('figure svg text').forEach(function (t) {
    var m = t.getScreenCTM();
    var px = parseFloat(getComputedStyle(t).fontSize) * Math.hypot(m.a, m.b);
    n++;
    if (px < min) min = px;
  });
  var figs = document.querySelectorAll('figure');
  figs.forEach(function (f) {
    var c = f.querySelector('figcaption').getBoundingClientRect();
    var s = f.querySelector('svg').getBoundingClientRect();
    if (c.bottom <= s.top) above++; else below++;
    if (prev !== null) gap = Math.min(gap, c.top - prev);
    prev = s.bottom;
  });
  var pre = document.createElement('pre');
  pre.textContent = 'MEASURE texts=' + n + ' min_px=' + min.toFixed(2) +
    ' figures=' + figs.length + ' caption_above=' + above +
    ' caption_below=' + below + ' min_gap=' + gap.toFixed(1) + ' END';
  document.body.appendChild(pre);
})();
</script></body>"#;

fn dump_dom(bin: &str, file: &Path, profile: &Path) -> String {
    let out = Command::new(bin)
        .args(HEADLESS)
        .args(["--disable-dev-shm-usage", "--virtual-time-budget=2000"])
        .arg("--window-size=1400,900")
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", file.canonicalize().unwrap().display()))
        .output_bounded()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
