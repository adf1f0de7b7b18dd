//! k6's end-of-test summary (its v1 "compact" layout: thresholds, total
//! results by section, checks) and `--summary-export`'s JSON. Renders the
//! figures of `metrics.rs`; computes none of its own.

use std::fmt::Write;
use std::time::Duration;

use serde_json::json;

use crate::config::{Options, TimeUnit};
use crate::metrics::{Agg, Kind};
use crate::state::shared::{Shared, progress_block};
use crate::thresholds::eval::{Figure, Verdict, evaluate, filter_label};

/// `1.23ms`, `425.14µs`, `1.5s`, `1m2.5s`: k6's durations, with 2 decimals
/// truncated, not rounded (k6 shows 13.649… ms as `13.64ms`).
pub fn fmt_ms(ms: f64) -> String {
    if ms <= 0.0 {
        return "0s".into();
    }
    let trunc = |v: f64, prec: i32| {
        let m = 10f64.powi(prec);
        let s = format!("{:.*}", prec as usize, (v * m).trunc() / m);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if ms < 0.001 {
        return format!("{}ns", (ms * 1e6).trunc());
    }
    if ms < 1.0 {
        return format!("{}µs", trunc(ms * 1000.0, 2));
    }
    if ms < 1000.0 {
        return format!("{}ms", trunc(ms, 2));
    }
    let secs = trunc((ms % 60_000.0) / 1000.0, if ms > 60_000.0 { 0 } else { 2 });
    let mins = (ms / 60_000.0).trunc();
    if mins < 1.0 {
        return format!("{secs}s");
    }
    let hours = (mins / 60.0).trunc();
    if hours < 1.0 {
        format!("{mins}m{secs}s")
    } else {
        format!("{hours}h{}m{secs}s", mins % 60.0)
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Bytes as k6 shows them (SI units, one decimal below 10, halves
/// rounded up as JavaScript's `toFixed` does): `750 B`, `1.3 kB`, `15 kB`.
fn fmt_bytes(b: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB"];
    if b < 10.0 {
        return format!("{} B", fmt_num(b));
    }
    let mut e = 0;
    while e + 1 < units.len() && b >= 1000f64.powi(e as i32 + 1) {
        e += 1;
    }
    let val = (b / 1000f64.powi(e as i32) * 10.0 + 0.5).floor() / 10.0;
    if val < 10.0 {
        format!("{val:.1} {}", units[e])
    } else {
        format!("{} {}", val.round(), units[e])
    }
}

/// A value: a time (in ms) in k6's unit for it, or in `summaryTimeUnit`'s
/// with two decimals (as k6 writes them, rounded), else a number.
fn fmt_value(v: f64, time: Option<Option<TimeUnit>>) -> String {
    match time {
        Some(Some(u)) => format!("{:.2}{}", v / u.ms, u.suffix),
        Some(None) => fmt_ms(v),
        None => fmt_num(v),
    }
}

/// A threshold's figure as the summary shows it: `p(95)=1.2ms`,
/// `rate=12.50%`.
fn shown(f: &Figure, options: &Options) -> String {
    match f {
        Figure::NoMetric => "no such metric".into(),
        Figure::Rate(v) => format!("rate={}", percent(*v)),
        Figure::Value { agg, value, time } => format!(
            "{agg}={}",
            fmt_value(
                *value,
                (*time && !matches!(agg.as_str(), "count" | "rate"))
                    .then_some(options.summary_time_unit),
            )
        ),
    }
}

/// Every threshold's verdict `elapsed` into the test.
fn thresholds(shared: &Shared, options: &Options, elapsed: Duration) -> Vec<Verdict> {
    evaluate(&shared.reg.borrow(), options, elapsed)
}

fn section(name: &str) -> &'static str {
    if name.starts_with("http_") {
        "HTTP"
    } else if matches!(name, "data_received" | "data_sent") {
        "NETWORK"
    } else if name.starts_with("ws_") {
        "WEBSOCKET"
    } else {
        "EXECUTION"
    }
}

/// The summary text, and the metrics whose thresholds were crossed (their
/// keys as written, sorted, as k6 names them in its error line); its last
/// lines show the scenarios as the run left them (`Shared::views`).
pub fn render(shared: &Shared, options: &Options, elapsed: Duration) -> (String, Vec<String>) {
    let verdicts = thresholds(shared, options, elapsed);
    let mut failed: Vec<String> = verdicts
        .iter()
        .filter(|v| !v.ok)
        .map(|v| v.key.clone())
        .collect();
    failed.sort();
    failed.dedup();
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut s = String::new();
    s.push('\n');
    if !verdicts.is_empty() {
        s.push_str("\n  █ THRESHOLDS \n");
        let mut last = "";
        let mut indent = "    ";
        for v in &verdicts {
            if v.key != last {
                // A tag-filtered key nests under its metric when the metric
                // has thresholds of its own (k6's layout).
                let nested = !v.filter.is_empty()
                    && verdicts
                        .iter()
                        .any(|o| o.metric == v.metric && o.filter.is_empty());
                if nested {
                    indent = "      ";
                    let _ = write!(s, "\n{indent}{}\n", v.filter);
                } else {
                    indent = "    ";
                    let _ = write!(s, "\n{indent}{}\n", v.key);
                }
                last = &v.key;
            }
            let mark = if v.ok { "✓" } else { "✗" };
            let _ = writeln!(
                s,
                "{indent}{mark} '{}' {}",
                v.source,
                shown(&v.figure, options)
            );
        }
        s.push('\n');
    }
    s.push_str("\n  █ TOTAL RESULTS \n\n");

    checks_block(&mut s, &reg, None, "    ", secs);
    metric_sections(&mut s, &reg, options, None, "    ", secs);
    if options.summary_full {
        // k6's full mode: a section per group, nested groups under theirs.
        fn walk(
            s: &mut String,
            reg: &crate::metrics::Registry,
            options: &Options,
            node: &GroupNode,
            depth: usize,
            secs: f64,
        ) {
            for g in &node.groups {
                let indent = format!("    {}", "  ".repeat(depth));
                if depth == 0 {
                    let _ = write!(s, "\n  █ GROUP: {} \n\n", g.name);
                } else {
                    let _ = write!(s, "{}↳ GROUP: {} \n\n", &indent[2..], g.name);
                }
                checks_block(s, reg, Some(&g.path), &indent, secs);
                metric_sections(s, reg, options, Some(&g.path), &indent, secs);
                walk(s, reg, options, g, depth + 1, secs);
            }
        }
        walk(&mut s, &reg, options, &root_group(&reg), 0, secs);
    }
    // k6 ends its summary with two empty lines (three with `-q`), then its
    // last block of progress lines.
    s.push_str("\n\n");
    s.push_str(&last_block(shared, options, elapsed));
    (s, failed)
}

/// k6's last block of progress lines (an empty line, `running (…)`, a line
/// per scenario), as the test left the scenarios; nothing with `-q`. It
/// ends the output whatever the summary is (the default, the script's
/// `handleSummary`, or none).
pub fn last_block(shared: &Shared, options: &Options, elapsed: Duration) -> String {
    if shared.quiet {
        return String::new();
    }
    let views = shared.views.borrow();
    let views: Vec<crate::progress::ScenView> = if views.len() == options.scenarios.len() {
        views.clone()
    } else {
        // No run (setup failed, say): each scenario as not started.
        vec![crate::progress::ScenView::default(); options.scenarios.len()]
    };
    let (head, bars) = progress_block(shared, options, &views, elapsed);
    // Where the live lines were drawn on a terminal, this block is too.
    let mut painter = if shared.progress() {
        crate::progress::last_block_painter()
    } else {
        crate::progress::Painter::new(false, None)
    };
    painter.paint(&head, &bars, false)
}

/// The checks' block: totals, then each check (`✓ name`, or `✗ name` with
/// its share). `group`: only the checks made directly in that group.
fn checks_block(
    s: &mut String,
    reg: &crate::metrics::Registry,
    group: Option<&str>,
    indent: &str,
    secs: f64,
) {
    let filter: Vec<(String, String)> = group
        .map(|g| vec![("group".to_string(), g.to_string())])
        .unwrap_or_default();
    // k6 puts a failed check's share 2 columns in at the top, 4 in a group.
    let share = if group.is_some() { "    " } else { "  " };
    if let Some(ci) = reg.metric("checks") {
        let all = reg.merged(ci, &filter);
        if let Agg::Rate { hits, total } = all
            && total > 0
        {
            let rows = [
                (
                    "checks_total",
                    format!("{total}"),
                    format!("{:.6}/s", total as f64 / secs),
                ),
                (
                    "checks_succeeded",
                    percent(hits as f64 / total as f64),
                    format!("{hits} out of {total}"),
                ),
                (
                    "checks_failed",
                    percent((total - hits) as f64 / total as f64),
                    format!("{} out of {total}", total - hits),
                ),
            ];
            let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) + 3;
            let vw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
            for (n, a, b) in rows {
                let _ = writeln!(s, "{indent}{}: {a:<vw$} {b}", dots(n, w));
            }
            s.push('\n');
            // Each check by name, in first-seen order.
            let mut names: Vec<String> = Vec::new();
            for se in reg
                .series
                .iter()
                .filter(|x| x.metric == ci && filter.iter().all(|f| x.tags.contains(f)))
            {
                if let Some((_, n)) = se.tags.iter().find(|(k, _)| k == "check")
                    && !names.contains(n)
                {
                    names.push(n.clone());
                }
            }
            for n in names {
                let mut f = filter.clone();
                f.push(("check".to_string(), n.clone()));
                let a = reg.merged(ci, &f);
                if let Agg::Rate { hits, total } = a {
                    if hits == total {
                        let _ = writeln!(s, "{indent}✓ {n}");
                    } else {
                        let _ = writeln!(s, "{indent}✗ {n}");
                        let _ = writeln!(
                            s,
                            "{indent}{share}↳  {}% — ✓ {hits} / ✗ {}",
                            (hits * 100) / total.max(1),
                            total - hits
                        );
                    }
                }
            }
            s.push('\n');
        }
    }
}

/// The metric sections (`CUSTOM`, `HTTP`, `EXECUTION`, `NETWORK`,
/// `WEBSOCKET`) of the
/// whole test, or of what was measured directly in `group` (full mode:
/// its `CUSTOM` and `HTTP` metrics, without sub-rows).
fn metric_sections(
    s: &mut String,
    reg: &crate::metrics::Registry,
    options: &Options,
    group: Option<&str>,
    indent: &str,
    secs: f64,
) {
    let filter: Vec<(String, String)> = group
        .map(|g| vec![("group".to_string(), g.to_string())])
        .unwrap_or_default();
    let used = shown_metrics(reg);
    let stats = &options.summary_trend_stats;
    // (section, label, cells, trend?)
    let mut rows: Vec<(&'static str, String, Vec<String>, bool)> = Vec::new();
    for &m in &used {
        let def = &reg.metrics[m];
        // Never shown as rows; the compact summary leaves out the
        // http_req_* timings but the duration too.
        if matches!(def.name.as_str(), "checks" | "group_duration")
            || (!options.summary_full
                && matches!(
                    def.name.as_str(),
                    "http_req_blocked"
                        | "http_req_connecting"
                        | "http_req_tls_handshaking"
                        | "http_req_sending"
                        | "http_req_waiting"
                        | "http_req_receiving"
                ))
        {
            continue;
        }
        let sec = if def.builtin {
            section(&def.name)
        } else {
            "CUSTOM"
        };
        let trend = def.kind == Kind::Trend;
        if group.is_some() && matches!(sec, "EXECUTION" | "NETWORK") {
            continue;
        }
        let agg = reg.merged(m, &filter);
        if group.is_some() && agg.count() == 0 {
            continue;
        }
        rows.push((
            sec,
            def.name.clone(),
            cells(
                &agg,
                def.time.then_some(options.summary_time_unit),
                def.data,
                stats,
                secs,
            ),
            trend,
        ));
        let mut subs = Vec::new();
        let shown_subs = if group.is_some() {
            Vec::new()
        } else {
            submetrics(reg, options, m)
        };
        for f in shown_subs {
            let a = reg.merged(m, &f);
            let label = format!(
                "  {{ {} }}",
                f.iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            subs.push((
                sec,
                label,
                cells(
                    &a,
                    def.time.then_some(options.summary_time_unit),
                    def.data,
                    stats,
                    secs,
                ),
                trend,
            ));
        }
        subs.sort_by(|a, b| a.1.cmp(&b.1));
        rows.extend(subs);
    }
    let w = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0) + 3;
    // Column widths, over every section: trend rows align with each
    // other, the other rows (counters, rates, gauges) with each other.
    let width = |trend: bool, i: usize| {
        rows.iter()
            .filter(|r| r.3 == trend)
            .filter_map(|r| r.2.get(i))
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0)
    };
    for sec in ["CUSTOM", "HTTP", "EXECUTION", "NETWORK", "WEBSOCKET"] {
        let mut mine: Vec<_> = Vec::new();
        // Metrics by name; each one's sub-rows stay under it.
        let mut i = 0;
        while i < rows.len() {
            let mut j = i + 1;
            while j < rows.len() && rows[j].1.starts_with("  ") {
                j += 1;
            }
            if rows[i].0 == sec {
                mine.push(&rows[i..j]);
            }
            i = j;
        }
        if mine.is_empty() {
            continue;
        }
        mine.sort_by(|a, b| a[0].1.cmp(&b[0].1));
        let _ = writeln!(s, "{indent}{sec}");
        for r in mine.into_iter().flatten() {
            let line: Vec<String> =
                r.2.iter()
                    .enumerate()
                    .map(|(i, c)| {
                        // k6 pads every cell but the rate of a counter or rate
                        // row (a gauge's `max=` is padded too).
                        if !r.3 && i + 1 == r.2.len() && r.2.len() == 2 {
                            return c.clone();
                        }
                        let pad = width(r.3, i).saturating_sub(c.chars().count());
                        format!("{c}{}", " ".repeat(pad))
                    })
                    .collect();
            let _ = writeln!(s, "{indent}{}: {}", dots(&r.1, w), line.join(" "));
        }
        s.push('\n');
    }
}

/// The metrics the summary shows: those with values, and k6's
/// `data_received`/`data_sent` whenever an iteration ran (k6 records
/// them per iteration, so they show `0 B` in a test without requests).
fn shown_metrics(reg: &crate::metrics::Registry) -> Vec<usize> {
    let mut used = reg.used();
    if reg.metric("iterations").is_some_and(|i| used.contains(&i)) {
        for name in ["data_received", "data_sent"] {
            if let Some(m) = reg.metric(name)
                && !used.contains(&m)
            {
                used.push(m);
            }
        }
        used.sort_unstable();
    }
    used
}

/// The sub-metrics shown under metric `m`: those named by thresholds, and
/// k6's `{ expected_response:true }` of `http_req_duration`.
fn submetrics(
    reg: &crate::metrics::Registry,
    options: &Options,
    m: usize,
) -> Vec<Vec<(String, String)>> {
    let def = &reg.metrics[m];
    let mut subs: Vec<Vec<(String, String)>> = Vec::new();
    let expected = vec![("expected_response".to_string(), "true".to_string())];
    if def.name == "http_req_duration" && reg.merged(m, &expected).count() > 0 {
        subs.push(expected);
    }
    for (metric, filter) in &options.submetrics {
        if *metric == def.name && !subs.contains(filter) {
            subs.push(filter.clone());
        }
    }
    subs
}

fn dots(name: &str, width: usize) -> String {
    let n = name.chars().count();
    format!("{name}{}", ".".repeat(width.saturating_sub(n)))
}

/// A row's cells; `time`: the metric is a time, shown in this unit
/// (`None`: k6's unit per value).
fn cells(
    agg: &Agg,
    time: Option<Option<TimeUnit>>,
    data: bool,
    stats: &[String],
    secs: f64,
) -> Vec<String> {
    match agg {
        Agg::Counter { sum, .. } => {
            if data {
                vec![fmt_bytes(*sum), format!("{}/s", fmt_bytes(sum / secs))]
            } else {
                vec![fmt_value(*sum, time), format!("{:.6}/s", sum / secs)]
            }
        }
        Agg::Rate { hits, total } => vec![
            percent(*hits as f64 / (*total).max(1) as f64),
            format!("{hits} out of {total}"),
        ],
        Agg::Gauge { last, min, max, .. } => vec![
            fmt_value(*last, time),
            format!("min={}", fmt_value(*min, time)),
            format!("max={}", fmt_value(*max, time)),
        ],
        Agg::Trend(_) => stats
            .iter()
            .map(|st| {
                let v = agg.stat(st).unwrap_or(0.0);
                let shown = if st == "count" {
                    fmt_num(v)
                } else {
                    fmt_value(v, time)
                };
                format!("{st}={shown}")
            })
            .collect(),
    }
}

/// A number as k6 (Go) writes it in JSON: integral values without `.0`.
pub fn jnum(v: f64) -> serde_json::Value {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A metric's figures as k6 names them: counters `count rate`, gauges
/// `value min max`, rates `passes fails value` (`rate` for
/// handleSummary's `rate`), trends the summary's statistics.
fn figures(
    agg: &Agg,
    stats: &[String],
    secs: f64,
    for_handle_summary: bool,
) -> serde_json::Map<String, serde_json::Value> {
    let mut o = serde_json::Map::new();
    match agg {
        Agg::Counter { sum, .. } => {
            o.insert("count".into(), jnum(*sum));
            o.insert("rate".into(), jnum(sum / secs));
        }
        Agg::Gauge { last, min, max, n } => {
            let (last, min, max) = if *n == 0 {
                (0.0, 0.0, 0.0)
            } else {
                (*last, *min, *max)
            };
            o.insert("value".into(), jnum(last));
            o.insert("min".into(), jnum(min));
            o.insert("max".into(), jnum(max));
        }
        Agg::Rate { hits, total } => {
            let rate = *hits as f64 / (*total).max(1) as f64;
            o.insert("passes".into(), json!(hits));
            o.insert("fails".into(), json!(total - hits));
            o.insert(
                if for_handle_summary { "rate" } else { "value" }.into(),
                jnum(rate),
            );
        }
        Agg::Trend(_) => {
            for st in stats {
                o.insert(st.clone(), jnum(agg.stat(st).unwrap_or(0.0)));
            }
        }
    }
    o
}

/// k6's id of a group or check: the MD5 hex of its path.
fn path_id(path: &str) -> String {
    use md5::Digest;
    md5::Md5::digest(path.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One group of the run: its checks (name, passes, fails) in first-seen
/// order, and its sub-groups.
#[derive(Default)]
struct GroupNode {
    name: String,
    path: String,
    checks: Vec<(String, u64, u64)>,
    groups: Vec<GroupNode>,
}

impl GroupNode {
    fn at(&mut self, path: &str) -> &mut GroupNode {
        let mut node = self;
        let mut cur = String::new();
        for part in path.split("::").skip(1) {
            cur.push_str("::");
            cur.push_str(part);
            let i = match node.groups.iter().position(|g| g.path == cur) {
                Some(i) => i,
                None => {
                    node.groups.push(GroupNode {
                        name: part.to_string(),
                        path: cur.clone(),
                        ..Default::default()
                    });
                    node.groups.len() - 1
                }
            };
            node = &mut node.groups[i];
        }
        node
    }

    /// `--summary-export`'s form (groups and checks by name) or
    /// handleSummary's (arrays).
    fn json(&self, arrays: bool) -> serde_json::Value {
        let checks: Vec<(String, serde_json::Value)> = self
            .checks
            .iter()
            .map(|(n, p, f)| {
                let path = format!("{}::{n}", self.path);
                (
                    n.clone(),
                    json!({"name": n, "path": path, "id": path_id(&path), "passes": p, "fails": f}),
                )
            })
            .collect();
        let groups: Vec<(String, serde_json::Value)> = self
            .groups
            .iter()
            .map(|g| (g.name.clone(), g.json(arrays)))
            .collect();
        let (checks, groups) = if arrays {
            (
                json!(checks.into_iter().map(|c| c.1).collect::<Vec<_>>()),
                json!(groups.into_iter().map(|g| g.1).collect::<Vec<_>>()),
            )
        } else {
            (
                serde_json::Value::Object(checks.into_iter().collect()),
                serde_json::Value::Object(groups.into_iter().collect()),
            )
        };
        json!({"name": self.name, "path": self.path, "id": path_id(&self.path), "groups": groups, "checks": checks})
    }
}

/// The run's groups (from `group_duration` and checks) and checks.
fn root_group(reg: &crate::metrics::Registry) -> GroupNode {
    let mut root = GroupNode::default();
    let group_of = |tags: &[(String, String)]| {
        tags.iter()
            .find(|(k, _)| k == "group")
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    if let Some(gi) = reg.metric("group_duration") {
        for se in reg.series.iter().filter(|x| x.metric == gi) {
            root.at(&group_of(&se.tags));
        }
    }
    if let Some(ci) = reg.metric("checks") {
        for se in reg.series.iter().filter(|x| x.metric == ci) {
            let Some((_, n)) = se.tags.iter().find(|(k, _)| k == "check") else {
                continue;
            };
            if let Agg::Rate { hits, total } = &se.agg {
                let g = root.at(&group_of(&se.tags));
                match g.checks.iter_mut().find(|c| &c.0 == n) {
                    Some(c) => {
                        c.1 += hits;
                        c.2 += total - hits;
                    }
                    None => g.checks.push((n.clone(), *hits, total - hits)),
                }
            }
        }
    }
    root
}

/// `--summary-export`: k6's legacy export (metrics by name with their
/// figures, sub-metrics named by thresholds, thresholds' verdicts, groups
/// and checks nested under `root_group`).
pub fn export_json(shared: &Shared, options: &Options, elapsed: Duration) -> serde_json::Value {
    let verdicts = thresholds(shared, options, elapsed);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let stats = &options.summary_trend_stats;
    let mut metrics = serde_json::Map::new();
    for m in shown_metrics(&reg) {
        let def = &reg.metrics[m];
        let mut keys = vec![(def.name.clone(), Vec::new())];
        for f in submetrics(&reg, options, m) {
            let label: Vec<String> = f.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            keys.push((format!("{}{{{}}}", def.name, label.join(",")), f));
        }
        for (key, filter) in keys {
            let agg = reg.merged(m, &filter);
            let mut o = figures(&agg, stats, secs, false);
            let th: serde_json::Map<String, serde_json::Value> = verdicts
                .iter()
                .filter(|v| v.metric == def.name && filter_label(&key) == v.filter)
                .map(|v| (v.source.clone(), json!(!v.ok)))
                .collect();
            if !th.is_empty() {
                o.insert("thresholds".into(), serde_json::Value::Object(th));
            }
            metrics.insert(key, serde_json::Value::Object(o));
        }
    }
    json!({
        "root_group": root_group(&reg).json(false),
        "metrics": metrics,
    })
}

/// k6's `handleSummary(data)` argument: every metric with its `type`,
/// `contains`, `values` and thresholds' verdicts, `root_group` (groups and
/// checks as arrays), `options` and `state`.
pub fn summary_data(shared: &Shared, options: &Options, elapsed: Duration) -> serde_json::Value {
    let verdicts = thresholds(shared, options, elapsed);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let stats = &options.summary_trend_stats;
    let mut metrics = serde_json::Map::new();
    for m in shown_metrics(&reg) {
        let def = &reg.metrics[m];
        let contains = if def.time {
            "time"
        } else if def.data {
            "data"
        } else {
            "default"
        };
        let mut keys = vec![(def.name.clone(), Vec::new())];
        for f in submetrics(&reg, options, m) {
            let label: Vec<String> = f.iter().map(|(k, v)| format!("{k}:{v}")).collect();
            keys.push((format!("{}{{{}}}", def.name, label.join(",")), f));
        }
        for (key, filter) in keys {
            let agg = reg.merged(m, &filter);
            let mut o = serde_json::Map::new();
            o.insert("type".into(), json!(def.kind.name()));
            o.insert("contains".into(), json!(contains));
            o.insert(
                "values".into(),
                serde_json::Value::Object(figures(&agg, stats, secs, true)),
            );
            let th: serde_json::Map<String, serde_json::Value> = verdicts
                .iter()
                .filter(|v| v.metric == def.name && filter_label(&key) == v.filter)
                .map(|v| (v.source.clone(), json!({"ok": v.ok})))
                .collect();
            if !th.is_empty() {
                o.insert("thresholds".into(), serde_json::Value::Object(th));
            }
            metrics.insert(key, serde_json::Value::Object(o));
        }
    }
    json!({
        "root_group": root_group(&reg).json(true),
        "options": {"summaryTrendStats": stats, "summaryTimeUnit": options.summary_time_unit.map_or("", |u| u.name), "noColor": false},
        "state": {
            "isStdOutTTY": false,
            "isStdErrTTY": false,
            "testRunDurationMs": elapsed.as_secs_f64() * 1000.0,
        },
        "metrics": metrics,
    })
}

/// Calls the script's exported `handleSummary(data)`, if it has one, and
/// writes what it returns: `stdout` (returned, printed instead of the
/// default summary), `stderr`, and any other key as a file path (relative
/// to the working directory). `None` when the script has no handleSummary
/// or it failed (said on stderr): the default summary is printed then, as
/// k6 does.
pub fn handle_summary(
    ctx: &rquickjs::Ctx<'_>,
    shared: &Shared,
    options: &Options,
    elapsed: Duration,
) -> Option<String> {
    use rquickjs::{Function, Object, Value};
    let ns: Object = ctx.globals().get("__k6_ns").ok()?;
    let f: Function = ns.get::<_, Value>("handleSummary").ok()?.into_function()?;
    let data = summary_data(shared, options, elapsed);
    // k6's line for an exception in handleSummary(); the default summary
    // follows.
    let fail = |what: String| {
        shared.log(
            crate::log::Level::Error,
            &format!("handleSummary() failed: {what}; the default summary follows"),
            &[("hint", "script exception")],
        );
        None
    };
    let caught = |e: rquickjs::Error| -> String {
        if let rquickjs::Error::Exception = e {
            let v = ctx.catch();
            if let Some(ex) = v.as_exception() {
                return ex.message().unwrap_or_default();
            }
            return format!("{v:?}");
        }
        e.to_string()
    };
    let arg = match ctx.json_parse(data.to_string()) {
        Ok(v) => v,
        Err(e) => return fail(caught(e)),
    };
    crate::js::vu::on_main_stack();
    let v: Value = match f.call((arg,)) {
        Ok(v) => v,
        Err(e) => return fail(caught(e)),
    };
    let v = match v.as_promise() {
        Some(p) => match p.finish::<Value>() {
            Ok(v) => v,
            Err(e) => return fail(caught(e)),
        },
        None => v,
    };
    let Some(o) = v.as_object() else {
        return fail(
            "it must return an object such as { stdout: '…', 'summary.json': '…' }".into(),
        );
    };
    let mut stdout = String::new();
    for (key, val) in o.props::<String, Value>().flatten() {
        let bytes: Vec<u8> = if let Some(s) = val.as_string() {
            s.to_string().unwrap_or_default().into_bytes()
        } else if let Some(ab) = rquickjs::ArrayBuffer::from_value(val.clone()) {
            crate::js::runtime::array_buffer_bytes(&ab).unwrap_or_default()
        } else {
            shared.log(
                crate::log::Level::Error,
                &format!(
                    "handleSummary() returned a {} for {key:?}: use a string or an ArrayBuffer",
                    val.type_name()
                ),
                &[],
            );
            continue;
        };
        match key.as_str() {
            "stdout" => stdout.push_str(&String::from_utf8_lossy(&bytes)),
            "stderr" => eprint!("{}", String::from_utf8_lossy(&bytes)),
            path => {
                if let Err(e) = std::fs::write(path, &bytes) {
                    shared.log(
                        crate::log::Level::Error,
                        &format!("handleSummary(): cannot write {path}: {e}"),
                        &[],
                    );
                }
            }
        }
    }
    Some(stdout)
}

/// A rate as k6 shows it: a percentage cut (not rounded) to two decimals,
/// computed as k6 does (2/3 is 66.66 %, 29/100 is 28.99 %).
fn percent(rate: f64) -> String {
    format!("{:.2}%", (rate * 100.0 * 100.0).trunc() / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_as_k6_shows_them() {
        // Counts and rates from the goldens of k6 v1.8.1 (tests/golden/k6).
        for (b, shown) in [
            (1250.0, "1.3 kB"),
            (14_500.0, "15 kB"),
            (750.0, "750 B"),
            (894.0, "894 B"),
            (163_238.889, "163 kB"),
            (97_943.33, "98 kB"),
            (2_500.0, "2.5 kB"),
            (1_000.0, "1.0 kB"),
            (5.0, "5 B"),
        ] {
            assert_eq!(fmt_bytes(b), shown, "{b}");
        }
    }
}
