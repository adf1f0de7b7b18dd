//! A study's per-run pages (`--out DIR` writes `DIR/runs/*.html`, linked
//! from the report) and the SLO's lines on the live page: the real binary,
//! the pages read by headless Chromium.

use std::process::{Command, Stdio};

use loadlab_study::report::run_pages::page_name;
use loadlab_testkit::browser::chromium_or_skip;
use loadlab_testkit::cdp::Browser;
use loadlab_testkit::proc::{PATIENCE, Watch, wait_bounded};

use super::dashboard::{bin, keep_screenshot, page_url};

#[test]
fn a_study_writes_each_runs_page_with_the_stores_figures() {
    let Some(exe) = chromium_or_skip("a_study_writes_each_runs_page_with_the_stores_figures")
    else {
        return;
    };
    let mut b = Browser::launch(exe, &[]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("plan.yaml"),
        r#"
name: pages
origin:
  recipes:
    - {route: /a, body: "hello a", stages: [{at: 0, status: 200, latency: 2ms}]}
targets:
  - {name: a, url: "{origin}/a"}
load: {rates: [50, 100], step: 2s, warmup: 300ms}
slo: {success: 99%, p99: 1s}
"#,
    )
    .unwrap();
    let mut child = Command::new(bin())
        .current_dir(d)
        .args([
            "study",
            "plan.yaml",
            "--db",
            "s.db",
            "--out",
            "out",
            "--dashboard",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let w = Watch::stderr(&mut child);
    let tab = b.open(&page_url(&w), 1300, 1100);
    // The live page draws the SLO's bounds: a labelled line on the latency
    // chart and one on the success chart.
    b.wait_for(&tab, "a live point", "+document.body.dataset.points >= 1");
    let lines = b.eval(
        &tab,
        "[...document.querySelectorAll('#slolines li')].map(l => [l.textContent, +l.dataset.value])",
    );
    assert_eq!(lines[0][0], "SLO p99 ≤ 1.00s", "{lines}");
    assert_eq!(lines[0][1].as_f64(), Some(1000.0), "{lines}");
    assert_eq!(lines[1][0], "SLO success ≥ 99.00%", "{lines}");
    let legends = b.eval(
        &tab,
        "[...document.querySelectorAll('.chart')].map(c => c.querySelector('h2').textContent + ': ' + [...c.querySelectorAll('.u-legend .u-label')].map(l => l.textContent).join(','))",
    );
    let legends = legends.to_string();
    assert!(
        legends.contains(
            "Latency (corrected, from the intended send): t,p50,p90,p99,max,SLO p99 ≤ 1.00s"
        ),
        "{legends}"
    );
    assert!(
        legends.contains("Success ratio: t,success,SLO success ≥ 99.00%"),
        "{legends}"
    );
    keep_screenshot(&b.screenshot(&tab), "DASHBOARD_SLO_SCREENSHOT");
    let status = wait_bounded(child, PATIENCE).status;
    let err = w.finish();
    assert!(status.success(), "{err}");
    // Each run's page: the store's requests and p99 (warm-up left out as
    // in the store), opened with the network off.
    let store = loadlab_study::Store::open(&d.join("s.db")).unwrap();
    let study = store.studies().unwrap().last().unwrap().id;
    let runs = store.runs(study).unwrap();
    assert_eq!(runs.len(), 2);
    let html = std::fs::read_to_string(d.join("out/report.html")).unwrap();
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    let mut off = Browser::launch(exe, &["--proxy-server=127.0.0.1:9"]);
    for r in &runs {
        let name = page_name(&r.phase, r.rate, &r.target, r.repetition);
        assert!(
            html.contains(&format!("href=\"{name}\"")),
            "{name} not in the report"
        );
        assert!(
            md.contains(&format!("]({name})")),
            "{name} not in report.md"
        );
        let tab = off.open(
            &format!("file://{}", d.join("out").join(&name).display()),
            1300,
            1100,
        );
        off.wait_for(
            &tab,
            "the run's figures",
            "document.body.dataset.state === 'finished'",
        );
        let page = off.eval(
            &tab,
            "({ requests: +document.getElementById('requests').dataset.value,
                p99: +document.getElementById('p99').dataset.value,
                points: +document.body.dataset.points })",
        );
        assert!(
            r.summary.requests > 0 && r.summary.warmup_requests > 0,
            "{name}"
        );
        assert_eq!(
            page["requests"].as_u64(),
            Some(r.summary.requests),
            "{name}: {page}"
        );
        let p99 = r.summary.p99_ns as f64 / 1e6;
        assert!(
            (page["p99"].as_f64().unwrap() - p99).abs() < 1e-6,
            "{name}: {page} vs {p99}"
        );
        assert!(page["points"].as_u64().unwrap() >= 1, "{name}: {page}");
    }
}
