//! The reference studies as tests: every load command that appears in the
//! users' reports (the README's "five reference studies"), run with only the
//! binary name changed, durations shortened, and the URL pointed at a
//! `loadlab origin` started by the test.
//! Each must print its tool's layout, with figures that agree with loadlab's
//! own report of the very same samples (`LOADLAB_RESULTS` keeps them for
//! ab and wrk; vegeta's pipeline tees them with `tee results.bin`).
//!
//! * the instance-type comparison: `echo "GET URL" | vegeta attack -header="replayed-traffic: true" -duration=60s -rate=400 -workers=20 | tee results.bin | vegeta report`
//! * the t2.micro vs t2.xlarge comparison: `ab -c 10 -n 1000 -g out.data URL`
//! * the large- vs small-payload comparison: `wrk -t2 -c10 -d30s -R1000 URL`

use loadlab_testkit::proc::BoundedOutput;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");
/// The t2.micro vs t2.xlarge comparison's page was 781 bytes long; the origin serves the same size.
const DOC_LEN: usize = 781;

/// `loadlab origin` on 127.0.0.1:0, killed on drop.
struct Origin {
    child: Child,
    base: String,
}

impl Drop for Origin {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn origin(dir: &Path) -> Origin {
    origin_answering_in(dir, "0")
}

/// [`origin`], each answer taking `latency` (a recipe's value: `"50ms"`).
fn origin_answering_in(dir: &Path, latency: &str) -> Origin {
    let recipe = dir.join("recipe.json");
    let body = "x".repeat(DOC_LEN);
    std::fs::write(&recipe, format!(r#"{{"route": "/*", "body": "{body}", "stages": [{{"at": 0, "status": 200, "latency": {latency:?}}}]}}"#)).unwrap();
    let mut child = Command::new(BIN)
        .args([
            "origin",
            "--listen",
            "127.0.0.1:0",
            "--workers",
            "1",
            "--recipe",
        ])
        .arg(&recipe)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start loadlab origin");
    // "loadlab origin: listening on http://127.0.0.1:PORT (admin API at /_admin/)",
    // possibly after other messages.
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut seen = String::new();
    let mut base = None;
    for _ in 0..20 {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        seen.push_str(&line);
        if line.contains("listening on") {
            base = line
                .split_whitespace()
                .find(|w| w.starts_with("http://"))
                .map(str::to_string);
            break;
        }
    }
    let base = base.unwrap_or_else(|| panic!("origin did not say where it listens: {seen:?}"));
    // Keep draining: a closed pipe would make the origin's next message fail.
    std::thread::spawn(move || for _ in stderr.lines() {});
    Origin { child, base }
}

/// Runs a seed's shell line with `loadlab` standing in for the tool.
fn sh(dir: &Path, line: &str, envs: &[(&str, &Path)]) -> (String, String) {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(line).current_dir(dir);
    cmd.env(
        "PATH",
        format!(
            "{}:{}",
            bin_dir.display(),
            std::env::var("PATH").unwrap_or_default()
        ),
    );
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let out = cmd.output_bounded().unwrap();
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(
        out.status.success(),
        "`{line}` failed ({}):\n{so}\n{se}",
        out.status
    );
    (so, se)
}

/// `loadlab report -type=json FILE`, parsed.
fn json_report(dir: &Path, file: &str) -> serde_json::Value {
    let (out, _) = sh(dir, &format!("loadlab report -type=json {file}"), &[]);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The value after `label` on its line, e.g. `field(&t, "Complete requests:")`.
fn field<'a>(text: &'a str, label: &str) -> &'a str {
    let line = text
        .lines()
        .find(|l| l.starts_with(label))
        .unwrap_or_else(|| panic!("no {label:?} line in:\n{text}"));
    line[label.len()..].trim()
}

/// Asserts the lines appear in this order.
fn in_order(text: &str, prefixes: &[&str]) {
    let mut lines = text.lines();
    for p in prefixes {
        assert!(
            lines.any(|l| l.starts_with(p)),
            "{p:?} missing or out of order in:\n{text}"
        );
    }
}

/// wrk's `1.69ms` / `615.50us` / `2.41s` in microseconds.
fn wrk_time_us(s: &str) -> f64 {
    let split = s.find(|c: char| c.is_ascii_alphabetic()).unwrap();
    let v: f64 = s[..split].parse().unwrap();
    match &s[split..] {
        "us" => v,
        "ms" => v * 1e3,
        "s" => v * 1e6,
        "m" => v * 60e6,
        u => panic!("unit {u}"),
    }
}

#[test]
fn instance_type_comparison_vegeta_piped_to_report() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin(dir.path());
    let line = format!(
        r#"echo "GET {}/foobar" | loadlab attack -header="replayed-traffic: true" -duration=2s -rate=400 -workers=20 | tee results.bin | loadlab report"#,
        o.base
    );
    let (text, _) = sh(dir.path(), &line, &[]);
    in_order(
        &text,
        &[
            "Requests      [total, rate, throughput]",
            "Duration      [total, attack, wait]",
            "Latencies     [min, mean, 50, 90, 95, 99, max]",
            "Bytes In      [total, mean]",
            "Bytes Out     [total, mean]",
            "Success       [ratio]",
            "Status Codes  [code:count]",
            "Error Set:",
        ],
    );
    let requests = field(&text, "Requests      [total, rate, throughput]");
    // vegeta's rate is requests / (last send - first send): 400.50 when both
    // sends keep the schedule. On a loaded machine either may run a few ms
    // late (a worker waiting for a CPU): 3 ms gives 401.1. The bound is
    // 1 % either side of 400.
    let (total, rate) = requests.split_once(", ").expect("total, rate");
    assert_eq!(total, "800", "{requests}");
    let rate: f64 = rate.split(", ").next().unwrap().parse().expect("rate");
    assert!((396.0..=404.0).contains(&rate), "{requests}");
    assert_eq!(field(&text, "Success       [ratio]"), "100.00%");
    assert_eq!(field(&text, "Status Codes  [code:count]"), "200:800");
    assert_eq!(
        field(&text, "Bytes In      [total, mean]"),
        format!("{}, {DOC_LEN}.00", 800 * DOC_LEN)
    );
    // The teed file reports the same figures.
    let (again, _) = sh(dir.path(), "loadlab report results.bin", &[]);
    assert_eq!(again, text);
}

#[test]
fn micro_vs_xlarge_ab_with_gnuplot_file() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin(dir.path());
    let results = dir.path().join("ab.bin");
    let line = format!("loadlab ab -c 10 -n 1000 -g out.data {}/~Lars/md3/", o.base);
    let (text, progress) = sh(dir.path(), &line, &[("LOADLAB_RESULTS", &results)]);
    in_order(
        &text,
        &[
            "This is ApacheBench, Version 2.3",
            "Benchmarking 127.0.0.1 (be patient)",
            "Server Software:",
            "Server Hostname:        127.0.0.1",
            "Server Port:",
            "Document Path:          /~Lars/md3/",
            "Document Length:",
            "Concurrency Level:      10",
            "Time taken for tests:",
            "Complete requests:",
            "Failed requests:",
            "Total transferred:",
            "HTML transferred:",
            "Requests per second:",
            "Time per request:",
            "Time per request:",
            "Transfer rate:",
            "Connection Times (ms)",
            "              min  mean[+/-sd] median   max",
            "Connect:",
            "Processing:",
            "Waiting:",
            "Total:",
            "Percentage of the requests served within a certain time (ms)",
            "  50%",
            "  66%",
            "  75%",
            "  80%",
            "  90%",
            "  95%",
            "  98%",
            "  99%",
            " 100%",
        ],
    );
    assert_eq!(
        progress
            .lines()
            .filter(|l| l.starts_with("Completed "))
            .count(),
        10,
        "{progress}"
    );
    assert!(progress.contains("Finished 1000 requests"), "{progress}");
    assert_eq!(field(&text, "Document Length:"), format!("{DOC_LEN} bytes"));
    assert_eq!(field(&text, "Complete requests:"), "1000");
    assert_eq!(field(&text, "Failed requests:"), "0");
    assert_eq!(
        field(&text, "HTML transferred:"),
        format!("{} bytes", 1000 * DOC_LEN)
    );

    // Agreement with loadlab's own report of the same samples.
    let r = json_report(dir.path(), "ab.bin");
    assert_eq!(r["requests"], 1000);
    assert_eq!(r["success"], 1.0);
    assert_eq!(r["bytes_in"]["total"], (1000 * DOC_LEN) as u64);
    let max_ms = r["latencies"]["max"].as_f64().unwrap() / 1e6;
    let longest: f64 = field(&text, " 100%")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (longest - max_ms).abs() <= 1.0,
        "ab longest {longest} ms vs report max {max_ms} ms"
    );
    let p50_ms = r["latencies"]["50th"].as_f64().unwrap() / 1e6;
    let ab50: f64 = field(&text, "  50%").parse().unwrap();
    assert!(
        (ab50 - p50_ms).abs() <= 1.0,
        "ab 50% {ab50} ms vs report p50 {p50_ms} ms"
    );
    let rps: f64 = field(&text, "Requests per second:")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let taken: f64 = field(&text, "Time taken for tests:")
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (rps - 1000.0 / taken).abs() / rps < 0.01,
        "{rps} vs 1000/{taken}"
    );
    // The report's span (first send to last completion) fits inside ab's time taken.
    let span_s = (r["duration"].as_f64().unwrap() + r["wait"].as_f64().unwrap()) / 1e9;
    assert!(span_s <= taken + 0.001, "{span_s} > {taken}");

    let tsv = std::fs::read_to_string(dir.path().join("out.data")).unwrap();
    assert_eq!(
        tsv.lines().next(),
        Some("starttime\tseconds\tctime\tdtime\tttime\twait")
    );
    assert_eq!(tsv.lines().count(), 1001);
    let last_ttime: f64 = tsv
        .lines()
        .last()
        .unwrap()
        .split('\t')
        .nth(4)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        last_ttime, longest,
        "the TSV is sorted by ttime, so its last row is the longest request"
    );
}

#[test]
fn payload_comparison_wrk2_at_a_fixed_rate() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin(dir.path());
    let results = dir.path().join("wrk.bin");
    let line = format!("loadlab wrk -t2 -c10 -d2s -R1000 {}/", o.base);
    let (text, _) = sh(dir.path(), &line, &[("LOADLAB_RESULTS", &results)]);
    in_order(
        &text,
        &[
            &format!("Running 2s test @ {}/", o.base),
            "  2 threads and 10 connections",
            "  Thread calibration: mean lat.: ",
            "  Thread calibration: mean lat.: ",
            "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
            "    Latency ",
            "    Req/Sec ",
            "  ",
            "Requests/sec:",
            "Transfer/sec:",
        ],
    );
    let summary = text.lines().find(|l| l.contains(" requests in ")).unwrap();
    let words: Vec<&str> = summary.split_whitespace().collect();
    let n: u64 = words[0].parse().unwrap();
    let ran: f64 = words[3].trim_end_matches("s,").parse().unwrap();
    assert!(summary.ends_with("B read") && ran >= 2.0, "{summary}");
    assert!(
        !text.contains("Socket errors") && !text.contains("Non-2xx"),
        "{text}"
    );
    // The rate is the run's own: what it completed over the time it ran.
    let rps: f64 = field(&text, "Requests/sec:").parse().unwrap();
    assert!(
        (rps - n as f64 / ran).abs() <= 0.01 * rps + 1.0,
        "{rps} {summary}"
    );

    // Agreement with loadlab's own report of the same samples; the 2,000
    // requests of the schedule are completed, in flight at the end (at
    // most one per connection) or counted as never sent (a machine too
    // busy to keep the rate).
    let r = json_report(dir.path(), "wrk.bin");
    assert_eq!(r["requests"].as_u64().unwrap(), n);
    let unsent = r["unsent"].as_u64().unwrap();
    assert!(
        (1990..=2000).contains(&(n + unsent)),
        "{summary}, {unsent} unsent"
    );
    if unsent == 0 && ran < 2.05 {
        assert!((rps - 1000.0).abs() < 20.0, "{rps}");
    }
    assert_eq!(r["success"], 1.0);
    let row: Vec<&str> = field(&text, "    Latency").split_whitespace().collect();
    let (avg_us, max_us) = (wrk_time_us(row[0]), wrk_time_us(row[2]));
    let mean_us = r["latencies"]["mean"].as_f64().unwrap() / 1e3;
    let rmax_us = r["latencies"]["max"].as_f64().unwrap() / 1e3;
    assert!(
        (avg_us - mean_us).abs() <= 0.01 * mean_us + 5.0,
        "wrk avg {avg_us}us vs report mean {mean_us}us"
    );
    assert!(
        (max_us - rmax_us).abs() <= 0.01 * rmax_us + 5.0,
        "wrk max {max_us}us vs report max {rmax_us}us"
    );
}

/// A rate the connections cannot keep (one connection, answers taking
/// 50 ms, 200 requests a second): wrk2 just sends fewer; loadlab's wrk
/// says on stderr how many scheduled requests were never sent, and the
/// results file keeps that count for `loadlab report`.
#[test]
fn a_wrk_rate_the_connections_cannot_keep_is_counted_not_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let o = origin_answering_in(dir.path(), "50ms");
    let results = dir.path().join("wrk.bin");
    let line = format!("loadlab wrk -t1 -c1 -d1s -R200 {}/", o.base);
    let (text, err) = sh(dir.path(), &line, &[("LOADLAB_RESULTS", &results)]);
    let summary = text.lines().find(|l| l.contains(" requests in ")).unwrap();
    let n: u64 = summary.split_whitespace().next().unwrap().parse().unwrap();
    let said = err
        .lines()
        .find_map(|l| l.strip_prefix("loadlab wrk: "))
        .and_then(|l| l.split_once(" scheduled requests were never sent"))
        .unwrap_or_else(|| panic!("no count of unsent requests on stderr: {err}"))
        .0;
    let unsent: u64 = said.parse().unwrap();
    let r = json_report(dir.path(), "wrk.bin");
    assert_eq!(r["requests"].as_u64().unwrap(), n, "{summary}");
    assert_eq!(r["unsent"].as_u64().unwrap(), unsent, "{err}");
    // 200 scheduled: each completed, in flight at the end (one), or unsent.
    assert!(
        (199..=200).contains(&(n + unsent)),
        "{summary}; {unsent} unsent"
    );
    assert!(n <= 21 && unsent >= 178, "{summary}; {unsent} unsent");
}
