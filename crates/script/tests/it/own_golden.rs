//! loadlab's own `k6 run` output, kept in tests/golden/loadlab/: every
//! script of tests/golden/k6/ with the flags k6 was run with there, and the
//! scripts of tests/scripts/, against loopback servers. What varies from
//! run to run (durations, rates, timing-bound counts) is masked by
//! [`normalise_summary`], [`normalise_export`] and [`normalise_log`]; the
//! rest (names, order, row labels, thresholds, checks, exit codes,
//! deterministic counts, log lines, the banner's scenario list) must stay
//! as recorded.
//!
//! `LOADLAB_RECORD_GOLDEN=1` rewrites the files instead of comparing (only
//! on purpose: see tests/golden/loadlab/README.md).

use loadlab_testkit::proc::BoundedOutput;
use std::io::Write;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loadlab_script::log::{Format, LogConfig, Logger, Output};
use loadlab_script::{Overrides, RunConfig, ScriptError};

use crate::common;

/// The placeholder for a value that varies from run to run.
const MASK: &str = "~";

/// Built-in metrics whose every figure depends on timing (or on the
/// loopback port's width in the `Host` header): their rows and export
/// entries keep their labels and stat names only.
const TIMED: &[&str] = &[
    "http_req_blocked",
    "http_req_connecting",
    "http_req_duration",
    "http_req_receiving",
    "http_req_sending",
    "http_req_tls_handshaking",
    "http_req_waiting",
    "iteration_duration",
    "iteration_duration_corrected",
    "group_duration",
    "data_received",
    "data_sent",
];

/// `vus` and `vus_max` exist only when a run lasts a second (they are
/// sampled each second), which a busy machine decides for short runs:
/// their rows and export entries are left out.
const DROPPED: &[&str] = &["vus", "vus_max"];

/// One case: a script run the way tests/golden/k6/make.py ran k6 on it.
struct Case {
    name: &'static str,
    /// The script, relative to tests/.
    script: &'static str,
    /// `k6 run`'s flags (the subset [`apply_flags`] knows).
    flags: &'static [&'static str],
    /// `__ENV` besides `BASE` (the origin) and `CAPTURE`.
    env: &'static [(&'static str, &'static str)],
    /// The run is interrupted (as by Ctrl-C) after this long.
    interrupt: Option<Duration>,
    /// Row labels (metrics, sub-metric rows as `{ tag:value }`, progress
    /// lines by their first word) whose every figure depends on timing in
    /// this case: all their digits are masked.
    vary: &'static [&'static str],
    /// Lines (progress lines, by their first word) whose very shape
    /// depends on timing (a scenario caught just before its end shows `✗ [
    /// 98% ]` and its clock): reduced to their label.
    blur: &'static [&'static str],
    /// Log lines are sorted (several VUs log in an order of their own).
    sort_log: bool,
    /// The DSPS-like pub/sub server as `BASE_URL`.
    pubsub: bool,
    /// Random values in log lines: the text between each `(before,
    /// after)` pair is masked.
    log_random: &'static [(&'static str, &'static str)],
}

const fn case(name: &'static str, script: &'static str) -> Case {
    Case {
        name,
        script,
        flags: &[],
        env: &[],
        interrupt: None,
        vary: &[],
        blur: &[],
        sort_log: false,
        pubsub: false,
        log_random: &[],
    }
}

/// Every iteration-count-bound figure of a run bounded by time.
const TIME_BOUND: &[&str] = &[
    "iterations",
    "http_reqs",
    "http_req_failed",
    "checks_total",
    "checks_succeeded",
    "checks_failed",
    "running",
    "default",
];

const CASES: &[Case] = &[
    case("checks_groups", "golden/k6/checks_groups/checks_groups.js"),
    Case {
        flags: &["--summary-mode=full"],
        ..case(
            "checks_groups_full",
            "golden/k6/checks_groups/checks_groups.js",
        )
    },
    Case {
        flags: &["--tag", "run=golden"],
        // Two VUs share 10 iterations in an order of their own: the
        // figures of `__ITER` and `__VU`, and request timings, vary.
        vary: &[
            "my_items{kind:apple}",
            "my_depth",
            "my_ok_rate",
            "my_latency",
            "my_latency_time",
        ],
        ..case(
            "custom_metrics",
            "golden/k6/custom_metrics/custom_metrics.js",
        )
    },
    case(
        "thresholds_fail",
        "golden/k6/thresholds_fail/thresholds_fail.js",
    ),
    Case {
        flags: &["--summary-mode=full"],
        ..case(
            "thresholds_fail_full",
            "golden/k6/thresholds_fail/thresholds_fail.js",
        )
    },
    Case {
        vary: TIME_BOUND,
        ..case(
            "thresholds_abort",
            "golden/k6/thresholds_abort/thresholds_abort.js",
        )
    },
    Case {
        flags: &["--no-thresholds"],
        ..case(
            "no_thresholds",
            "golden/k6/thresholds_fail/thresholds_fail.js",
        )
    },
    case(
        "summary_trend_stats",
        "golden/k6/summary_trend_stats/summary_trend_stats.js",
    ),
    Case {
        flags: &["--summary-trend-stats", "avg,p(99),count"],
        ..case(
            "summary_trend_stats_cli",
            "golden/k6/summary_trend_stats/summary_trend_stats.js",
        )
    },
    Case {
        flags: &["-u", "2", "-i", "4", "-e", "EXTRA=1", "-q"],
        ..case("cli_flags", "golden/k6/cli_flags/cli.js")
    },
    Case {
        flags: &["-u", "2", "-d", "1s", "--tag", "run=golden"],
        vary: TIME_BOUND,
        sort_log: true,
        ..case("cli_duration", "golden/k6/cli_flags/cli.js")
    },
    Case {
        flags: &["-s", "1s:2", "-s", "1s:0"],
        vary: TIME_BOUND,
        sort_log: true,
        ..case("cli_stages", "golden/k6/cli_flags/cli.js")
    },
    Case {
        vary: TIME_BOUND,
        sort_log: true,
        ..case("executors", "golden/k6/executors/executors.js")
    },
    Case {
        flags: &["--summary-mode=full"],
        vary: TIME_BOUND,
        sort_log: true,
        ..case("executors_full", "golden/k6/executors/executors.js")
    },
    Case {
        vary: TIME_BOUND,
        ..case(
            "externally_controlled",
            "golden/k6/externally_controlled/externally_controlled.js",
        )
    },
    Case {
        vary: &[
            "dropped_iterations",
            "iterations",
            "http_reqs",
            "http_req_failed",
            "running",
        ],
        blur: &["open"],
        ..case(
            "dropped_iterations",
            "golden/k6/dropped_iterations/dropped_iterations.js",
        )
    },
    case("exception", "golden/k6/exception/exception.js"),
    case("syntax_error", "golden/k6/syntax_error/syntax_error.js"),
    case(
        "unknown_module",
        "golden/k6/unknown_module/unknown_module.js",
    ),
    Case {
        env: &[("GREETING", "hi")],
        ..case("http_api", "golden/k6/http_api/http_api.js")
    },
    Case {
        interrupt: Some(Duration::from_secs(2)),
        vary: TIME_BOUND,
        sort_log: true,
        ..case("interrupted", "golden/k6/interrupted/interrupted.js")
    },
    case("url_encoding", "golden/k6/url_encoding/url_encoding.js"),
    case("percentiles", "golden/k6/percentiles/percentiles.js"),
    Case {
        env: &[
            ("CHANNELS", "2"),
            ("TEST_RAMPUP_SEC", "1"),
            ("TEST_DURATION_SEC", "3"),
        ],
        vary: &[
            "iterations",
            "http_reqs",
            "http_req_failed",
            "checks_total",
            "checks_succeeded",
            "checks_failed",
            "running",
            "default",
            "dsps_fetched_messages",
            "dsps_msg_delay_ms",
            "dsps_ttfb_ms_ack",
            "dsps_ttfb_ms_publish",
        ],
        sort_log: true,
        pubsub: true,
        // The script's `randomID` for its channels.
        log_random: &[(r#"randomID\":\""#, r#"\""#)],
        ..case("dsps_loadtest", "scripts/dsps_loadtest.k6.js")
    },
    case("html", "scripts/html.k6.js"),
];

fn tests_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests")
}

/// Applies the `k6 run` flags the cases use, as the CLI maps them.
fn apply_flags(
    flags: &[&str],
    ov: &mut Overrides,
    env: &mut Vec<(String, String)>,
    quiet: &mut bool,
) {
    let mut it = flags.iter();
    while let Some(f) = it.next() {
        let mut val = || it.next().expect("a flag's value").to_string();
        match *f {
            "--summary-mode=full" => ov.summary_full = true,
            "--no-thresholds" => ov.no_thresholds = true,
            "-q" => *quiet = true,
            "-u" => ov.vus = Some(val().parse().unwrap()),
            "-i" => ov.iterations = Some(val().parse().unwrap()),
            "-d" => ov.duration = Some(val()),
            "-s" => ov.stages.get_or_insert_with(Vec::new).push(val()),
            "--tag" => {
                let v = val();
                let (k, x) = v.split_once('=').unwrap();
                ov.tags.push((k.into(), x.into()));
            }
            "-e" => {
                let v = val();
                let (k, x) = v.split_once('=').unwrap();
                env.push((k.into(), x.into()));
            }
            "--summary-trend-stats" => {
                ov.summary_trend_stats = Some(val().split(',').map(str::to_string).collect());
            }
            other => panic!("no such flag in the cases: {other}"),
        }
    }
}

/// The exit status `loadlab k6 run` gives this result (its mapping in
/// the CLI: 99 thresholds, 100/101 setup/teardown timeouts, 104 options,
/// 105 interrupted, 107 script, 108 `test.abort()`, 4 I/O, 1 internal).
fn exit_code(r: &Result<loadlab_script::RunOutcome, ScriptError>) -> i32 {
    match r {
        Err(ScriptError::Read { .. } | ScriptError::Output(_)) => 4,
        Err(ScriptError::Options(_)) => 104,
        Err(ScriptError::Runtime(_)) => 1,
        Err(ScriptError::SetupTimeout(_)) => 100,
        Err(_) => 107,
        Ok(o) if o.aborted.is_some() => 108,
        Ok(o) if o.teardown_failed.is_some() => match o.teardown_failed.as_ref().unwrap() {
            loadlab_script::TeardownFailure::Exception(_) => 107,
            loadlab_script::TeardownFailure::Timeout(_) => 101,
        },
        Ok(o) if o.thresholds_failed => 99,
        Ok(o) if o.interrupted => 105,
        Ok(_) => 0,
    }
}

/// The origin of tests/golden/k6/origin-recipe.json: `/fast` 200 JSON
/// `{"ok":true,"n":1}`, `/slow` the same (`"n":2`) after 200 ms, `/err`
/// 503, `/missing` 404, anything else 200 `hello`. Also records every
/// request line (for `url_encoding`).
fn origin() -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let lines = Arc::new(Mutex::new(Vec::new()));
    let seen = lines.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            let seen = seen.clone();
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                while let Some(head) = common::read_request(&mut s, &mut buf, |_| {}) {
                    let line = head.lines().next().unwrap_or("").to_string();
                    let path = line.split(' ').nth(1).unwrap_or("");
                    let path = path.split('?').next().unwrap_or("");
                    let (status, ctype, body) = match path {
                        "/fast" => ("200 OK", "application/json", r#"{"ok":true,"n":1}"#),
                        "/slow" => {
                            std::thread::sleep(Duration::from_millis(200));
                            ("200 OK", "application/json", r#"{"ok":true,"n":2}"#)
                        }
                        "/err" => ("503 Service Unavailable", "text/plain", "unused"),
                        "/missing" => ("404 Not Found", "text/plain", "unused"),
                        _ => ("200 OK", "text/plain", "hello"),
                    };
                    seen.lock().unwrap().push(line.clone());
                    let head_only = line.starts_with("HEAD ");
                    let resp = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\n\r\n{}",
                        body.len(),
                        if head_only { "" } else { body }
                    );
                    if s.write_all(resp.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    (addr, lines)
}

/// What one case gave, normalised.
struct Got {
    stdout: String,
    stderr: String,
    exit: i32,
    export: Option<String>,
    requests: Option<String>,
}

/// Runs a case; `banner_only`: with k6's banner on standard output (the
/// CLI without `-q`) and stopped at once (see [`banner`]).
fn run_case(c: &Case, banner_only: bool) -> Got {
    let (addr, requests) = origin();
    let pubsub = c.pubsub.then(loadlab_testkit::pubsub::serve_blocking);
    let dir = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = vec![
        ("BASE".into(), format!("http://{addr}")),
        ("CAPTURE".into(), format!("http://{addr}")),
    ];
    if let Some((a, _)) = &pubsub {
        env.push(("BASE_URL".into(), format!("http://{a}")));
    }
    env.extend(c.env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let mut ov = Overrides::default();
    let mut quiet = false;
    apply_flags(c.flags, &mut ov, &mut env, &mut quiet);
    let log = dir.path().join("log.txt");
    let logger = Logger::open(&LogConfig {
        output: Output::File {
            path: log.clone(),
            max: loadlab_script::log::Level::Trace,
        },
        format: Format::Text,
        no_color: true,
    })
    .unwrap();
    let export = dir.path().join("summary-export.json");
    let cfg = RunConfig {
        script: tests_dir().join(c.script),
        env,
        overrides: ov,
        quiet,
        progress: banner_only,
        summary_export: Some(export.clone()),
        logger: Some(Arc::new(logger)),
        ..Default::default()
    };
    let interrupt = if banner_only {
        Some(Duration::ZERO)
    } else {
        c.interrupt
    };
    let what = format!("the run of {}", c.name);
    let r = loadlab_testkit::proc::finish_within(&what, loadlab_testkit::proc::HANG, move || {
        loadlab_script::run(cfg, async move {
            match interrupt {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        })
    });
    let exit = exit_code(&r);
    let mut stderr = std::fs::read_to_string(&log).unwrap_or_default();
    if let Some((a, _)) = &pubsub {
        stderr = stderr.replace(&format!(":{}", a.port()), ":PUBSUB_PORT");
    }
    for (before, after) in c.log_random {
        stderr = mask_between(&stderr, before, after);
    }
    let stdout = match &r {
        Ok(o) => normalise_summary(&o.summary, c.vary, c.blur),
        Err(e) => {
            stderr.push_str(&format!("error: {e}\n"));
            String::new()
        }
    };
    let export = std::fs::read_to_string(&export)
        .ok()
        .map(|t| normalise_export(&t, c.vary));
    let requests = (c.name == "url_encoding").then(|| {
        let port = format!(":{}", addr.port());
        let mut s = String::new();
        for l in requests.lock().unwrap().iter() {
            s.push_str(&l.replace(&port, ":PORT"));
            s.push('\n');
        }
        s
    });
    Got {
        stdout,
        stderr: normalise_log(&stderr, c.sort_log, &addr),
        exit,
        export,
        requests,
    }
}

/// `text` with what lies between each `before` and the next `after`
/// masked.
fn mask_between(text: &str, before: &str, after: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(before) {
        let start = i + before.len();
        let Some(len) = rest[start..].find(after) else {
            break;
        };
        out.push_str(&rest[..start]);
        out.push_str(MASK);
        rest = &rest[start + len..];
    }
    out.push_str(rest);
    out
}

/// A rate (`12.3/s`, `4.5 kB/s`, or the figure before an `iters/s`).
fn is_rate(tok: &str) -> bool {
    tok.ends_with("/s")
}

/// Masks every digit run of `s` (a figure and its unit stay apart:
/// `1.5ms` → `~ms`).
fn mask_digits(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_num = false;
    for ch in s.chars() {
        if ch.is_ascii_digit() || (in_num && ch == '.') {
            if !in_num {
                out.push_str(MASK);
                in_num = true;
            }
        } else {
            in_num = false;
            out.push(ch);
        }
    }
    out
}

/// Masks the figures of space-separated cells whose every figure varies:
/// `p(90)=1.5ms` → `p(90)=~` (a stat's name stays, the unit goes with the
/// figure: µs or ms follows the timing), `1.6 kB 191 kB/s` → `~ ~/s`,
/// `3/4` → `~/~`, `2s` → `~s`.
fn mask_values(cells: &str) -> String {
    let mut out: Vec<String> = Vec::new();
    for t in cells.split(' ') {
        if let Some((k, _)) = t.split_once('=') {
            out.push(format!("{k}={MASK}"));
            continue;
        }
        let unit = t.trim_end_matches("/s");
        if matches!(unit, "B" | "kB" | "MB" | "GB" | "TB")
            && out.last().is_some_and(|l| l.starts_with(MASK))
        {
            if t.ends_with("/s") {
                *out.last_mut().unwrap() = format!("{MASK}/s");
            }
            continue;
        }
        out.push(mask_digits(t));
    }
    out.join(" ")
}

/// The label of a summary line: a metric row's name (dots trimmed, a
/// sub-metric row as `{ tag:value }`), a threshold block's metric, or a
/// progress line's first word.
fn label(line: &str) -> &str {
    let t = line.trim_start();
    match t.split_once(": ") {
        Some((name, _)) if name.contains("..") || name.ends_with('.') => name.trim_end_matches('.'),
        _ => t.split_whitespace().next().unwrap_or(""),
    }
}

/// The base metric of a label (`http_req_duration{endpoint:fast}` →
/// `http_req_duration`).
fn base(label: &str) -> &str {
    label.split('{').next().unwrap_or(label)
}

/// Normalises the end-of-test summary (what `loadlab k6 run` prints on
/// standard output) so that two healthy runs of a case read the same:
///
/// * runs of spaces inside a line become one space (column widths follow
///   the figures), trailing spaces go;
/// * rows of [`DROPPED`] metrics are left out;
/// * rows of [`TIMED`] metrics, and of the case's `vary` labels, keep
///   their label and stat names with every digit masked (`~`);
///   sub-metric rows (`{ tag:value }`) follow their parent metric;
/// * anywhere else, rates (`…/s`, and the figure before them) and the
///   clock of progress lines (`running (00m02.1s)`, `00m00.3s/10m0s`) are
///   masked; other figures (counts, percentages, plain trends) stay;
/// * threshold lines follow the metric of their block: `✓ 'p(95)<500'
///   p(95)=~ms` under a timed metric, as they are otherwise.
pub fn normalise_summary(summary: &str, vary: &[&str], blur: &[&str]) -> String {
    let masked = |l: &str| {
        let b = base(l);
        TIMED.contains(&b) || vary.contains(&l) || vary.contains(&b)
    };
    let mut out = String::new();
    let mut in_thresholds = false;
    // The metric of the current row or threshold block (`parent`), and of
    // its sub-metric row or block (`subject`: `my_items{kind:apple}`).
    let mut parent = String::new();
    let mut subject = String::new();
    for line in summary.lines() {
        let indent = line.len() - line.trim_start().len();
        let body = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if body.starts_with('█') {
            in_thresholds = body.contains("THRESHOLDS");
        }
        let lab = label(line).to_string();
        let is_row = line.contains("...: ");
        let is_threshold = body.starts_with("✓ '") || body.starts_with("✗ '");
        let is_header =
            in_thresholds && !is_threshold && !body.is_empty() && !body.starts_with('█');
        if is_row || is_header {
            let name = if is_row { lab.clone() } else { body.clone() };
            if name.starts_with('{') {
                let sub: String = name.chars().filter(|c| *c != ' ').collect();
                subject = format!("{parent}{sub}");
            } else {
                parent.clone_from(&name);
                subject = name;
            }
        }
        if is_row && DROPPED.contains(&base(&subject)) {
            continue;
        }
        if !is_row && !is_threshold && blur.contains(&lab.as_str()) {
            out.push_str(&format!("{lab} {MASK}\n"));
            continue;
        }
        let whole = if is_row || is_threshold {
            masked(&subject)
        } else {
            masked(&lab)
        };
        let norm = if whole && is_threshold {
            // The expression stays; the figure after it is masked.
            let end = body
                .match_indices('\'')
                .nth(1)
                .map_or(body.len(), |(i, _)| i + 1);
            format!("{}{}", &body[..end], mask_values(&body[end..]))
        } else if whole && is_row {
            let (name, rest) = body.split_once(": ").unwrap_or((&body, ""));
            format!("{name}: {}", mask_values(rest))
        } else if whole && !lab.is_empty() && !body.starts_with('█') {
            mask_values(&body)
        } else {
            mask_rates_and_clocks(&body)
        };
        out.push_str(&" ".repeat(indent.min(line.len())));
        out.push_str(&norm);
        out.push('\n');
    }
    // Runs of blank lines are layout; keep them as they are.
    out
}

/// Masks rates and progress-line clocks in one (space-collapsed) line.
fn mask_rates_and_clocks(body: &str) -> String {
    let toks: Vec<&str> = body.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(toks.len());
    for (i, t) in toks.iter().enumerate() {
        let next_is_rate = toks
            .get(i + 1)
            .is_some_and(|n| is_rate(n) && !n.starts_with(|c: char| c.is_ascii_digit()));
        let clock = t.starts_with('(') && t.ends_with("),") && t.contains('s');
        let elapsed = t.contains("s/") && t.starts_with(|c: char| c.is_ascii_digit());
        if (is_rate(t) && t.starts_with(|c: char| c.is_ascii_digit())) || clock {
            out.push(mask_digits(t));
        } else if next_is_rate && t.starts_with(|c: char| c.is_ascii_digit()) {
            out.push(MASK.into());
        } else if elapsed {
            let (e, rest) = t.split_once('/').unwrap();
            out.push(format!("{}/{rest}", mask_digits(e)));
        } else {
            out.push(t.to_string());
        }
    }
    out.join(" ")
}

/// Normalises `--summary-export`'s text (pretty JSON, one value a line, in
/// the file's order): entries of [`DROPPED`] metrics are left out; every
/// number of a [`TIMED`] metric or a `vary` one, and every counter's
/// `rate`, is masked (`~`); the rest (keys, their order, counts of
/// deterministic runs, thresholds' `true`/`false`, groups, checks, ids)
/// stays. Lines lose their trailing comma (whether an entry is the last
/// depends on the left-out ones after it), so the result is not JSON.
pub fn normalise_export(text: &str, vary: &[&str]) -> String {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(text) {
        return format!("not JSON: {e}\n{text}");
    }
    let mut out = String::new();
    let mut depth = 0usize;
    let mut metric = String::new();
    let mut skip_depth: Option<usize> = None;
    let mut in_metrics = false;
    for line in text.lines() {
        let t = line.trim();
        let key = t
            .strip_prefix('"')
            .and_then(|r| r.split_once("\":"))
            .map(|(k, _)| k.to_string());
        let opens = t.ends_with('{') || t.ends_with('[');
        let closes = t.starts_with('}') || t.starts_with(']');
        if closes {
            depth = depth.saturating_sub(1);
        }
        if depth == 1 && opens {
            in_metrics = key.as_deref() == Some("metrics");
        }
        if in_metrics && depth == 2 && opens {
            metric = key.clone().unwrap_or_default();
            if DROPPED.contains(&metric.as_str()) {
                skip_depth = Some(depth);
            }
        }
        let skipping = skip_depth.is_some();
        if !skipping {
            let mut l = line.to_string();
            if let Some(k) = key
                .as_deref()
                .filter(|_| in_metrics && depth == 3 && !opens)
            {
                let b = base(&metric);
                let mask = TIMED.contains(&b)
                    || vary.contains(&metric.as_str())
                    || vary.contains(&b)
                    || k == "rate";
                if mask {
                    let (head, val) = l.split_once("\": ").unwrap();
                    l = format!("{head}\": {}", mask_digits(val));
                }
            }
            out.push_str(l.strip_suffix(',').unwrap_or(&l));
            out.push('\n');
        }
        if opens {
            depth += 1;
        }
        if closes && skip_depth == Some(depth) {
            skip_depth = None;
        }
    }
    out
}

/// Normalises log lines (k6's text layout on standard error): the time is
/// masked, the origin's port becomes `PORT`, the tests' folder `/TESTS`;
/// lines are sorted when several VUs log in an order of their own.
pub fn normalise_log(text: &str, sort: bool, origin: &SocketAddr) -> String {
    let tests = tests_dir().display().to_string();
    let mut lines: Vec<String> = text
        .lines()
        .map(|l| {
            let l = l.replace(&tests, "/TESTS");
            let l = l.replace(&format!(":{}", origin.port()), ":PORT");
            match (l.find("time=\""), l.find("\" level=")) {
                (Some(0), Some(e)) => format!("time=\"{MASK}{}", &l[e..]),
                _ => l,
            }
        })
        .collect();
    if sort {
        lines.sort();
    }
    let mut s = lines.join("\n");
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

fn golden_dir(case: &str) -> PathBuf {
    tests_dir().join("golden/loadlab").join(case)
}

/// A unified-ish diff: each line of `want` and `got` that differs, with
/// its line number (`-` recorded, `+` now).
fn diff(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let mut out = String::new();
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i), g.get(i));
        if a != b {
            out.push_str(&format!("@@ line {}\n", i + 1));
            if let Some(a) = a {
                out.push_str(&format!("-{a}\n"));
            }
            if let Some(b) = b {
                out.push_str(&format!("+{b}\n"));
            }
        }
    }
    out
}

/// The environment variable that makes [`banner_child`] run a case.
const BANNER_CASE: &str = "LOADLAB_OWN_GOLDEN_BANNER_CASE";

/// The child side of [`banner`]: runs the case `BANNER_CASE` names, if
/// any (else does nothing), with the banner on standard output.
#[test]
fn banner_child() {
    if let Ok(name) = std::env::var(BANNER_CASE) {
        let c = CASES.iter().find(|c| c.name == name).unwrap();
        run_case(c, true);
    }
}

/// k6's banner as loadlab prints it before the run (`execution: local`,
/// `script:`, `output:`, the scenario list): the library writes it
/// straight to standard output, so the case is run again in a child
/// process of this test binary ([`banner_child`], stopped as soon as it
/// starts) and the banner's lines are taken from its output. The script's
/// folder is written `/TESTS`; nothing else varies.
fn banner(c: &Case) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "own_golden::banner_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(BANNER_CASE, c.name)
        .output_bounded()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let tests = tests_dir().display().to_string();
    let mut banner = String::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("     execution: ") {
            inside = true;
        } else if inside && line.is_empty() && banner.contains("scenarios:") {
            break;
        }
        if inside {
            banner.push_str(&line.replace(&tests, "/TESTS"));
            banner.push('\n');
        }
    }
    banner
}

fn check_case(name: &str) {
    let c = CASES.iter().find(|c| c.name == name).unwrap();
    let got = run_case(c, false);
    let dir = golden_dir(name);
    let files: Vec<(&str, Option<String>)> = vec![
        ("stdout.txt", Some(got.stdout)),
        ("stderr.txt", Some(got.stderr)),
        ("exit-code", Some(format!("{}\n", got.exit))),
        ("summary-export.json", got.export),
        ("requests.txt", got.requests),
        ("banner.txt", Some(banner(c)).filter(|b| !b.is_empty())),
    ];
    if std::env::var_os("LOADLAB_RECORD_GOLDEN").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (f, text) in files {
            match text {
                Some(t) => std::fs::write(dir.join(f), t).unwrap(),
                None => {
                    let _ = std::fs::remove_file(dir.join(f));
                }
            }
        }
        return;
    }
    let mut failures = String::new();
    for (f, text) in files {
        let path = dir.join(f);
        let want = std::fs::read_to_string(&path).ok();
        match (want, text) {
            (None, None) => {}
            (Some(w), Some(g)) if w == g => {}
            (w, g) => {
                let (w, g) = (w.unwrap_or_default(), g.unwrap_or_default());
                failures.push_str(&format!(
                    "--- {} (recorded)\n+++ {name}/{f} (this run)\n{}",
                    path.display(),
                    diff(&w, &g)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{name} differs:\n{failures}");
}

macro_rules! cases {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_case(stringify!($name));
            }
        )*

        /// Every case has its test.
        #[test]
        fn every_case_has_a_test() {
            let tested = [$(stringify!($name)),*];
            for c in CASES {
                assert!(tested.contains(&c.name), "{} has no test", c.name);
            }
        }
    };
}

cases!(
    checks_groups,
    checks_groups_full,
    custom_metrics,
    thresholds_fail,
    thresholds_fail_full,
    thresholds_abort,
    no_thresholds,
    summary_trend_stats,
    summary_trend_stats_cli,
    cli_flags,
    cli_duration,
    cli_stages,
    executors,
    executors_full,
    externally_controlled,
    dropped_iterations,
    exception,
    syntax_error,
    unknown_module,
    http_api,
    interrupted,
    url_encoding,
    percentiles,
    dsps_loadtest,
    html,
);
