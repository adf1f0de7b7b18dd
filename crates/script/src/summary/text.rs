//! The end-of-test summary as text: thresholds, total results by section,
//! checks (k6's v1 "compact" layout).

use std::fmt::Write;
use std::time::Duration;

use super::format::*;
use super::groups::*;
use crate::config::{Options, TimeUnit};
use crate::registry::{Agg, Kind};
use crate::state::run_state::{RunState, progress_block};
use crate::thresholds::eval::{Verdict, evaluate};

/// Every threshold's verdict `elapsed` into the test.
pub(crate) fn thresholds(shared: &RunState, options: &Options, elapsed: Duration) -> Vec<Verdict> {
    evaluate(&shared.reg.borrow(), options, elapsed)
}

pub(crate) fn section(name: &str) -> &'static str {
    if name.starts_with("http_") {
        "HTTP"
    } else if matches!(name, "data_received" | "data_sent") {
        "NETWORK"
    } else if name.starts_with("grpc_") {
        "GRPC"
    } else if name.starts_with("ws_") {
        "WEBSOCKET"
    } else {
        "EXECUTION"
    }
}

/// The summary text, and the metrics whose thresholds were crossed (their
/// keys as written, sorted, as k6 names them in its error line); its last
/// lines show the scenarios as the run left them (`RunState::views`).
pub fn render(shared: &RunState, options: &Options, elapsed: Duration) -> (String, Vec<String>) {
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
            reg: &crate::registry::Registry,
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
pub fn last_block(shared: &RunState, options: &Options, elapsed: Duration) -> String {
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
pub(crate) fn checks_block(
    s: &mut String,
    reg: &crate::registry::Registry,
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
                    format!("{}/s", fmt_num(total as f64 / secs)),
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
pub(crate) fn metric_sections(
    s: &mut String,
    reg: &crate::registry::Registry,
    options: &Options,
    group: Option<&str>,
    indent: &str,
    secs: f64,
) {
    let rows = metric_rows(reg, options, group, secs);
    write_sections(s, &rows, indent);
}

/// A row of the metric sections: its section, label, cells, and whether it
/// is a trend's (their columns align with each other).
type Row = (&'static str, String, Vec<String>, bool);

/// The rows of [`metric_sections`], in the registry's order, each metric's
/// sub-metrics under it.
fn metric_rows(
    reg: &crate::registry::Registry,
    options: &Options,
    group: Option<&str>,
    secs: f64,
) -> Vec<Row> {
    let filter: Vec<(String, String)> = group
        .map(|g| vec![("group".to_string(), g.to_string())])
        .unwrap_or_default();
    let used = shown_metrics(reg, options);
    let stats = &options.summary_trend_stats;
    let mut rows: Vec<Row> = Vec::new();
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
    rows
}

/// Writes the rows section by section, metrics by name.
fn write_sections(s: &mut String, rows: &[Row], indent: &str) {
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
    for sec in [
        "CUSTOM",
        "HTTP",
        "EXECUTION",
        "NETWORK",
        "GRPC",
        "WEBSOCKET",
    ] {
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

/// The metrics the summary shows: those with values, those a threshold
/// names, and k6's `data_received`/`data_sent` whenever an iteration ran
/// (k6 records them per iteration, so they show `0 B` in a test without
/// requests).
pub(crate) fn shown_metrics(reg: &crate::registry::Registry, options: &Options) -> Vec<usize> {
    let mut used = reg.used();
    // A metric a threshold names is shown without samples too (`0 0/s`,
    // `0.00% 0 out of 0`, zero times), as k6 shows it (not under
    // --no-thresholds, which leaves no threshold).
    for t in &options.thresholds {
        if let Some(m) = reg.metric(&t.metric)
            && !used.contains(&m)
        {
            used.push(m);
        }
    }
    used.sort_unstable();
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
pub(crate) fn submetrics(
    reg: &crate::registry::Registry,
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

/// A row's cells; `time`: the metric is a time, shown in this unit
/// (`None`: k6's unit per value).
pub(crate) fn cells(
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
                // k6: six decimals, trailing zeros dropped (`0/s`, `2.5/s`).
                vec![fmt_value(*sum, time), format!("{}/s", fmt_num(sum / secs))]
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
