//! A study's per-run pages (`--out DIR` writes `DIR/runs/*.html`, linked
//! from the report) and the SLO's lines on the live page: the real binary,
//! the pages read by headless Chromium.

use loadlab_testkit::proc::BoundedOutput;
use std::process::{Command, Stdio};

use loadlab_study::report::run_pages::page_name;
use loadlab_testkit::browser::chromium_or_skip;
use loadlab_testkit::cdp::Browser;
use loadlab_testkit::proc::{PATIENCE, Watch, wait_bounded};

use super::dashboard_kit::{bin, keep_screenshot, page_url};

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

/// The k6 page's latency percentiles are each second's: a target slow for
/// its first seconds then fast shows a slow first point and fast last ones
/// (over the run so far its p99 would stay slow: the slow requests are
/// more than 1 % of them, about 16 against at most 2 × 3.5 s / 20 ms =
/// 350 fast ones, however fast the machine).
#[test]
fn a_k6_pages_percentiles_are_per_second() {
    let Some(exe) = chromium_or_skip("a_k6_pages_percentiles_are_per_second") else {
        return;
    };
    let recipe = r#"{"route":"/*","body":"hello","stages":[{"at":0,"status":200,"latency":"300ms"},{"at":"2500ms","status":200,"latency":"20ms"}]}"#;
    let o = loadlab_origin::spawn(
        "127.0.0.1:0".parse().unwrap(),
        loadlab_origin::OriginConfig {
            recipes: loadlab_origin::parse_recipes(recipe).unwrap(),
            workers: Some(1),
            ..Default::default()
        },
    )
    .expect("origin");
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.js");
    std::fs::write(
        &script,
        r#"import http from 'k6/http';
export const options = { vus: 2, duration: '6s' };
export default function () { http.get(__ENV.URL); }
"#,
    )
    .unwrap();
    let html = dir.path().join("k6.html");
    let out = Command::new(bin())
        .args(["k6", "run", "-q", "--out", "web-dashboard=port=-1"])
        .args(["-e", &format!("URL={}/", o.url())])
        .arg(&script)
        .env("K6_WEB_DASHBOARD_EXPORT", &html)
        .stdin(Stdio::null())
        .output_bounded()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut b = Browser::launch(exe, &["--proxy-server=127.0.0.1:9"]);
    let tab = b.open(&format!("file://{}", html.display()), 1300, 1100);
    b.wait_for(
        &tab,
        "the figures",
        "document.body.dataset.state === 'finished'",
    );
    let p99 = b.eval(&tab, "K.p99");
    let p99: Vec<f64> = p99
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v.as_f64())
        .collect();
    assert!(p99.len() >= 5, "{p99:?}");
    assert!(p99[0] >= 300.0, "the first, slow second: {p99:?}");
    // A fast second after the switch (run so far, p99 would stay at the
    // slow requests' 300 ms; a busy machine may slow a second or two, so
    // any one of the later seconds will do).
    assert!(
        p99[2..].iter().any(|&v| v < 150.0),
        "a late, fast second: {p99:?}"
    );
    // Over the whole run p99 is the slow requests'.
    let whole = b.eval(
        &tab,
        "EMBED.totals.metrics.find(m => m.name === 'http_req_duration').values['p(99)']",
    );
    assert!(whole.as_f64().unwrap() >= 300.0, "{whole}");
}
