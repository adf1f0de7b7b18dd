//! `plot`: real results files in, an HTML page out, rendered by headless
//! Chromium to check that the series were drawn, with a screenshot.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::Command;

use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo};
use loadlab_faces::plot::{Input, build_series, plot};
use loadlab_metrics::ResultsWriter;
use loadlab_testkit::browser::{HEADLESS, chromium_or_skip};

/// A loadlab binary results file: `n` requests at 1 kHz named `name`, every
/// 10th one a 500 and every 50th a timeout, latency with a bump in the middle.
fn results_file(path: &Path, name: &str, n: u64) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = ResultsWriter::new(std::io::BufWriter::new(f));
    w.begin(&AttackInfo {
        name: name.into(),
        start_unix_ns: 1_795_000_000_000_000_000,
        ..Default::default()
    });
    w.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://127.0.0.1/".into(),
        },
    );
    for seq in 0..n {
        let intended = seq * 1_000_000;
        let lat = 1_000_000
            + (seq % 13) * 50_000
            + if (n / 2..n / 2 + 100).contains(&seq) {
                40_000_000
            } else {
                0
            };
        let (status, error) = if seq % 50 == 7 {
            (0, ErrorKind::Timeout)
        } else if seq % 10 == 3 {
            (500, ErrorKind::None)
        } else {
            (200, ErrorKind::None)
        };
        w.record(&Sample {
            seq,
            intended_ns: intended,
            sent_ns: intended,
            first_byte_ns: intended + lat / 2,
            done_ns: intended + lat,
            status,
            error,
            bytes_in: 10,
            ..Default::default()
        });
    }
    w.finish().unwrap();
}

fn input(path: &Path) -> Input {
    Input {
        name: path.file_name().unwrap().to_string_lossy().into_owned(),
        reader: Box::new(std::fs::File::open(path).unwrap()),
    }
}

#[test]
fn series_per_file_attack_and_outcome_downsampled() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    results_file(&a, "baseline", 20_000);
    results_file(&b, "candidate", 3_000);
    let s = build_series(vec![input(&a), input(&b)], 500).unwrap();
    let names: Vec<(String, bool, u64, usize)> = s
        .iter()
        .map(|s| (s.label.clone(), s.ok, s.total, s.points.len()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a.bin: baseline".to_string(), true, 17_600, 500),
            ("a.bin: baseline".to_string(), false, 2_400, 500),
            ("b.bin: candidate".to_string(), true, 2_640, 500),
            ("b.bin: candidate".to_string(), false, 360, 360),
        ]
    );
    // The latency bump survives downsampling.
    assert!(s[0].points.iter().any(|p| p.1 > 40.0));
    assert!(s[0].points.windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(build_series(vec![input(&a)], 2).is_err());
}

#[test]
fn page_is_self_contained() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.bin");
    results_file(&a, "x</script><b>", 100);
    let html = plot(vec![input(&a)], "T & <b>", 4000).unwrap();
    assert!(html.contains("<title>T &amp; &lt;b&gt;</title>"));
    assert!(
        !html.contains("x</script>"),
        "data must not close the script element"
    );
    assert!(
        !html.contains("http://") || !html.contains("src=\"http"),
        "no network resources"
    );
    assert!(!html.contains("<script src") && !html.contains("<link"));
}

#[test]
fn chromium_draws_every_series() {
    let Some(browser) = chromium_or_skip("chromium_draws_every_series") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.bin"), dir.path().join("b.bin"));
    results_file(&a, "baseline", 30_000);
    results_file(&b, "candidate", 5_000);
    let html = plot(vec![input(&a), input(&b)], "plot test", 4000).unwrap();
    let page = dir.path().join("plot.html");
    std::fs::write(&page, &html).unwrap();
    let profile = dir.path().join("profile");
    let common: Vec<&str> = HEADLESS
        .into_iter()
        .chain(["--hide-scrollbars", "--window-size=1200,800"])
        .collect();
    let url = format!("file://{}", page.display());
    let udd = format!("--user-data-dir={}", profile.display());
    let out = Command::new(browser)
        .args(&common)
        .arg(&udd)
        .arg("--dump-dom")
        .arg(&url)
        .output_bounded()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(
        dom.contains("data-drawn-series=\"4\""),
        "series not drawn; stderr: {}\n{}",
        String::from_utf8_lossy(&out.stderr),
        &dom[..dom.len().min(2000)]
    );
    // 4000 + 3600 + 4000 + 600 points (error series below the threshold stay whole).
    assert!(
        dom.contains("data-drawn-points=\"12200\""),
        "{}",
        &dom[..dom.len().min(2000)]
    );
    assert!(dom.contains("4 series drawn, 12200 points"));
    let shot = dir.path().join("plot.png");
    let out = Command::new(browser)
        .args(&common)
        .arg(&udd)
        .arg(format!("--screenshot={}", shot.display()))
        .arg(&url)
        .output_bounded()
        .unwrap();
    let png = std::fs::read(&shot).unwrap_or_else(|e| {
        panic!(
            "no screenshot ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "screenshot too small: {} bytes",
        png.len()
    );
    if let Some(keep) = std::env::var_os("PLOT_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}
