//! What the dashboard tests share: the binary, an origin, an attack on
//! it, the page's URL and figures, the report to compare with.

use loadlab_testkit::proc::BoundedOutput;
use std::process::{Child, Command, Stdio};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::cdp::Browser;
use loadlab_testkit::proc::{PATIENCE, Watch, text};
use serde_json::Value;

pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

pub(crate) fn origin() -> OriginHandle {
    let recipe =
        r#"{"route":"/*","body":"hello","stages":[{"at":0,"status":200,"latency":"5ms"}]}"#;
    spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes: parse_recipes(recipe).unwrap(),
            workers: Some(1),
            ..Default::default()
        },
    )
    .expect("origin")
}

/// Starts `attack` with `args` on a targets file naming `o`, stderr watched.
pub(crate) fn attack(dir: &std::path::Path, o: &OriginHandle, args: &[&str]) -> (Child, Watch) {
    let targets = dir.join("targets.txt");
    std::fs::write(&targets, format!("GET {}/\n", o.url())).unwrap();
    let mut child = Command::new(bin())
        .arg("attack")
        .arg(format!("-targets={}", targets.display()))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let watch = Watch::stderr(&mut child);
    (child, watch)
}

/// The page's URL, from the line the attack prints.
pub(crate) fn page_url(w: &Watch) -> String {
    let err = w.wait_for_line("dashboard on http://", PATIENCE);
    err.lines()
        .find_map(|l| l.split("dashboard on ").nth(1))
        .unwrap()
        .trim()
        .to_string()
}

/// `loadlab report -type=json` of a results file.
pub(crate) fn report(path: &std::path::Path) -> Value {
    let out = Command::new(bin())
        .args(["report", "-type=json"])
        .arg(path)
        .output_bounded()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The figures the page shows: requests, rate, p99 (ms), points drawn.
pub(crate) fn shown(b: &mut Browser, tab: &loadlab_testkit::cdp::Tab) -> Value {
    b.eval(
        tab,
        "({ requests: +document.getElementById('requests').dataset.value,
            rate: +document.getElementById('rate').dataset.value,
            p99: +document.getElementById('p99').dataset.value,
            sent: +document.getElementById('sent').dataset.value,
            points: +document.body.dataset.points,
            state: document.body.dataset.state })",
    )
}

/// The page's figures are the report's: the whole run's totals exactly
/// (the run is recorded whether watched or not), and the last seconds sent
/// at the intended rate.
pub(crate) fn assert_matches(page: &Value, rep: &Value) {
    let requests = rep["requests"].as_u64().unwrap();
    let rate = rep["rate"].as_f64().unwrap();
    let p99_ms = rep["latencies"]["99th"].as_f64().unwrap() / 1e6;
    assert_eq!(page["requests"].as_u64(), Some(requests), "{page} vs {rep}");
    assert!(
        (page["rate"].as_f64().unwrap() - rate).abs() < 1e-6,
        "{page} vs {rep}"
    );
    assert!(
        (page["p99"].as_f64().unwrap() - p99_ms).abs() < 1e-6,
        "{page} vs {rep}"
    );
}

pub(crate) fn keep_screenshot(png: &[u8], var: &str) {
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "screenshot of {} bytes",
        png.len()
    );
    if let Some(path) = std::env::var_os(var) {
        std::fs::write(path, png).unwrap();
    }
}
