//! `loadlab study` is not silent: the real binary, stderr a pipe (not a
//! terminal), read line by line as it is written.

use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

const PLAN: &str = r#"
name: progress
origin:
  recipes:
    - {route: /a, body: "hello a", stages: [{at: 0, status: 200, latency: 1ms}]}
    - {route: /b, body: "hello b", stages: [{at: 0, status: 200, latency: 1ms}]}
targets:
  - {name: a, url: "{origin}/a"}
  - {name: b, url: "{origin}/b"}
load: {rates: [20, 40], step: 500ms, warmup: 100ms}
slo: {success: 50%}
"#;

#[test]
fn study_prints_its_outline_then_one_line_per_run_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("plan.yaml"), PLAN).unwrap();
    let t0 = Instant::now();
    let mut child = Command::new(BIN)
        .current_dir(d)
        .args(["study", "plan.yaml", "--db", "s.db", "--out", "out"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = BufReader::new(child.stderr.take().unwrap());
    // Every line with the time it arrived.
    let mut lines: Vec<(Duration, String)> = Vec::new();
    for l in err.split(b'\n') {
        let l = l.unwrap();
        assert!(
            !l.contains(&b'\r') && !l.contains(&0x1b),
            "terminal drawing on a pipe: {:?}",
            String::from_utf8_lossy(&l)
        );
        lines.push((t0.elapsed(), String::from_utf8(l).unwrap()));
        assert!(t0.elapsed() < Duration::from_secs(60), "{lines:?}");
    }
    let status = child.wait().unwrap();
    let end = t0.elapsed();
    assert!(status.success(), "{lines:?}");

    // The outline comes first: targets, rates, runs, estimated time.
    let text: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert!(
        text[0].starts_with("study 1 \"progress\": 2 target(s) (a, b) × 2 rate(s) (20, 40 req/s) × 1 repetition(s) = 4 runs of 500ms"),
        "{text:?}"
    );
    assert!(text[1].starts_with("estimated time: about 2s"), "{text:?}");
    // Then one line per completed run: i/N and the time left.
    let runs: Vec<&(Duration, String)> = lines
        .iter()
        .filter(|(_, l)| l.starts_with("[run "))
        .collect();
    assert_eq!(runs.len(), 4, "{text:?}");
    for (i, (_, l)) in runs.iter().enumerate() {
        let want = if i < 3 {
            format!("[run {}/4, about ", i + 1)
        } else {
            "[run 4/4] ".to_string()
        };
        assert!(l.starts_with(&want), "{l:?} (wanted {want:?})");
        assert!(l.contains(" left] ") == (i < 3), "{l:?}");
        assert!(l.contains("req/s") || l.contains(" ok/s"), "{l:?}");
    }
    // p99 like a Go duration rounded to 3 significant digits (12.3ms, not 12.345678ms).
    for (_, l) in &runs {
        let p99 = l.split("p99 ").nth(1).unwrap().split(',').next().unwrap();
        assert!(significant(p99) <= 3, "{l:?}");
    }
    let show = Command::new(BIN)
        .current_dir(d)
        .args(["runs", "show", "1", "--db", "s.db"])
        .output_bounded()
        .unwrap();
    let show = String::from_utf8_lossy(&show.stdout);
    let rows: Vec<&str> = show.lines().filter(|l| l.contains(" sweep ")).collect();
    assert_eq!(rows.len(), 4, "{show}");
    for row in rows {
        // RUN PHASE RATE TARGET REP REQS OK/S P50 P99 SUCCESS SLO
        let cols: Vec<&str> = row.split_whitespace().collect();
        for lat in [cols[7], cols[8]] {
            assert!(significant(lat) <= 3, "{lat:?} in {row:?}");
        }
    }
    // Each line is written when its run ends, not at the end: three more
    // runs of 500 ms follow the first line; the outline precedes the first run.
    let outline_at = lines[0].0;
    let first_run_at = runs[0].0;
    assert!(
        first_run_at >= outline_at + Duration::from_millis(400),
        "outline at {outline_at:?}, first run line at {first_run_at:?}"
    );
    assert!(
        end >= first_run_at + Duration::from_millis(1400),
        "first run line at {first_run_at:?}, exit at {end:?}: lines were held back"
    );
}

/// Significant digits of a Go duration such as `12.345678ms` (8) or `1m2.5s` (3).
fn significant(d: &str) -> usize {
    let digits: String = d.chars().filter(|c| c.is_ascii_digit()).collect();
    let digits = digits.trim_start_matches('0');
    let digits = if d.contains('.') {
        digits
    } else {
        digits.trim_end_matches('0')
    };
    digits.len()
}
