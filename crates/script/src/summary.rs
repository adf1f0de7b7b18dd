//! k6's end-of-test summary (its v1 "compact" layout: thresholds, total
//! results by section, checks) and `--summary-export`'s JSON. Renders the
//! figures of `metrics.rs`; computes none of its own.

use std::fmt::Write;
use std::time::Duration;

use serde_json::json;

use crate::metrics::{Agg, Expr, Kind, parse_threshold};
use crate::options::Options;
use crate::sched::Shared;

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

fn fmt_value(v: f64, time: bool) -> String {
    if time { fmt_ms(v) } else { fmt_num(v) }
}

/// One threshold's verdict.
pub struct Verdict {
    pub key: String,
    pub source: String,
    pub shown: String,
    pub ok: bool,
    pub abort: bool,
}

pub fn thresholds(shared: &Shared, options: &Options, elapsed: Duration) -> Vec<Verdict> {
    let reg = shared.reg.borrow();
    let mut out = Vec::new();
    for t in &options.thresholds {
        let Ok(expr) = parse_threshold(&t.source) else {
            continue;
        };
        let (agg, time) = match reg.metric(&t.metric) {
            Some(m) => (reg.merged(m, &t.filter), reg.metrics[m].time),
            None => {
                out.push(Verdict {
                    key: t.key.clone(),
                    source: t.source.clone(),
                    shown: "no such metric".into(),
                    ok: false,
                    abort: t.abort_on_fail,
                });
                continue;
            }
        };
        let (v, ok) = eval_or_empty(&expr, &agg, elapsed.as_secs_f64());
        let shown = match expr.agg.as_str() {
            "rate" if matches!(agg, Agg::Rate { .. }) => format!("rate={:.2}%", v * 100.0),
            a => format!(
                "{a}={}",
                fmt_value(v, time && !matches!(a, "count" | "rate"))
            ),
        };
        out.push(Verdict {
            key: t.key.clone(),
            source: t.source.clone(),
            shown,
            ok,
            abort: t.abort_on_fail,
        });
    }
    out
}

fn eval_or_empty(expr: &Expr, agg: &Agg, elapsed: f64) -> (f64, bool) {
    expr.eval(agg, elapsed).unwrap_or((0.0, false))
}

/// True when a threshold with `abortOnFail` fails now.
pub fn abort_failed(shared: &Shared, options: &Options) -> bool {
    if !options.thresholds.iter().any(|t| t.abort_on_fail) {
        return false;
    }
    let elapsed = shared.start.elapsed();
    thresholds(shared, options, elapsed)
        .iter()
        .any(|v| v.abort && !v.ok)
}

fn section(name: &str) -> &'static str {
    if name.starts_with("http_") {
        "HTTP"
    } else if matches!(name, "data_received" | "data_sent") {
        "NETWORK"
    } else {
        "EXECUTION"
    }
}

/// The summary text and whether a threshold failed.
pub fn render(
    shared: &Shared,
    options: &Options,
    elapsed: Duration,
    interrupted: bool,
) -> (String, bool) {
    let verdicts = thresholds(shared, options, elapsed);
    let failed = verdicts.iter().any(|v| !v.ok);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut s = String::new();
    s.push('\n');
    if !verdicts.is_empty() {
        s.push_str("\n  █ THRESHOLDS \n");
        let mut last = "";
        for v in &verdicts {
            if v.key != last {
                let _ = write!(s, "\n    {}\n", v.key);
                last = &v.key;
            }
            let mark = if v.ok { "✓" } else { "✗" };
            let _ = writeln!(s, "    {mark} '{}' {}", v.source, v.shown);
        }
        s.push('\n');
    }
    s.push_str("\n  █ TOTAL RESULTS \n\n");

    // Checks.
    if let Some(ci) = reg.metric("checks") {
        let all = reg.merged(ci, &[]);
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
                    format!("{:.2}%", hits as f64 * 100.0 / total as f64),
                    format!("{hits} out of {total}"),
                ),
                (
                    "checks_failed",
                    format!("{:.2}%", (total - hits) as f64 * 100.0 / total as f64),
                    format!("{} out of {total}", total - hits),
                ),
            ];
            let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(0) + 3;
            let vw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
            for (n, a, b) in rows {
                let _ = writeln!(s, "    {}: {a:<vw$} {b}", dots(n, w));
            }
            s.push('\n');
            // Each check by name, in first-seen order.
            let mut names: Vec<String> = Vec::new();
            for se in reg.series.iter().filter(|x| x.metric == ci) {
                if let Some((_, n)) = se.tags.iter().find(|(k, _)| k == "check")
                    && !names.contains(n)
                {
                    names.push(n.clone());
                }
            }
            for n in names {
                let a = reg.merged(ci, &[("check".to_string(), n.clone())]);
                if let Agg::Rate { hits, total } = a {
                    if hits == total {
                        let _ = writeln!(s, "    ✓ {n}");
                    } else {
                        let _ = writeln!(s, "    ✗ {n}");
                        let _ = writeln!(
                            s,
                            "      ↳  {}% — ✓ {hits} / ✗ {}",
                            (hits * 100) / total.max(1),
                            total - hits
                        );
                    }
                }
            }
            s.push('\n');
        }
    }

    // Metrics by section.
    let used = reg.used();
    let stats = &options.summary_trend_stats;
    let mut rows: Vec<(&'static str, String, Vec<String>)> = Vec::new();
    for &m in &used {
        let def = &reg.metrics[m];
        // k6's compact summary leaves these out.
        if matches!(
            def.name.as_str(),
            "checks"
                | "group_duration"
                | "http_req_blocked"
                | "http_req_connecting"
                | "http_req_tls_handshaking"
                | "http_req_sending"
                | "http_req_waiting"
                | "http_req_receiving"
        ) {
            continue;
        }
        let sec = if def.builtin {
            section(&def.name)
        } else {
            "CUSTOM"
        };
        let agg = reg.merged(m, &[]);
        rows.push((
            sec,
            def.name.clone(),
            cells(&agg, def.time, def.data, stats, secs),
        ));
        // Submetrics named by thresholds, and k6's expected_response one.
        let mut subs: Vec<Vec<(String, String)>> = options
            .thresholds
            .iter()
            .filter(|t| t.metric == def.name && !t.filter.is_empty())
            .map(|t| t.filter.clone())
            .collect();
        if def.name == "http_req_duration" {
            subs.insert(0, vec![("expected_response".into(), "true".into())]);
        }
        let mut seen = Vec::new();
        for f in subs {
            if seen.contains(&f) {
                continue;
            }
            seen.push(f.clone());
            let a = reg.merged(m, &f);
            if a.count() == 0 && def.name == "http_req_duration" && f[0].0 == "expected_response" {
                continue;
            }
            let label = format!(
                "  {{ {} }}",
                f.iter()
                    .map(|(k, v)| format!("{k}:{v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            rows.push((sec, label, cells(&a, def.time, def.data, stats, secs)));
        }
    }
    let w = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0) + 3;
    // Column widths per kind of row (trend stats align with each other).
    let ncols = rows.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let mut colw = vec![0usize; ncols];
    for r in &rows {
        if r.2.len() == stats.len() && r.2.first().is_some_and(|c| c.contains('=')) {
            for (i, c) in r.2.iter().enumerate() {
                colw[i] = colw[i].max(c.chars().count());
            }
        }
    }
    let mut vcol = 0;
    for r in &rows {
        if !r.2.first().is_some_and(|c| c.contains('=')) {
            vcol = vcol.max(r.2.first().map_or(0, |c| c.chars().count()));
        }
    }
    for sec in ["CUSTOM", "HTTP", "EXECUTION", "NETWORK"] {
        let mine: Vec<_> = rows.iter().filter(|r| r.0 == sec).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(s, "    {sec}");
        for r in mine {
            let _ = write!(s, "    {}: ", dots(&r.1, w));
            let trend = r.2.first().is_some_and(|c| c.contains('=')) && r.2.len() == stats.len();
            let mut line = String::new();
            for (i, c) in r.2.iter().enumerate() {
                if trend {
                    let _ = write!(line, "{c:<width$} ", width = colw[i]);
                } else if i == 0 {
                    let _ = write!(line, "{c:<vcol$} ");
                } else {
                    let _ = write!(line, "{c} ");
                }
            }
            let _ = writeln!(
                s,
                "{}",
                line.trim_end_matches(' ').to_string() + if trend { " " } else { "" }
            );
        }
        s.push('\n');
    }
    // The run line.
    let done = shared.completed.get();
    let interrupted_n = shared.interrupted.get();
    let vus_max = shared.vus.borrow().len().saturating_sub(1);
    let _ = write!(
        s,
        "\n\n\nrunning ({}), 0/{vus_max} VUs, {done} complete and {interrupted_n} interrupted iterations\n",
        clock(elapsed)
    );
    for sc in &options.scenarios {
        let mark = if interrupted { "✗" } else { "✓" };
        let _ = writeln!(
            s,
            "{} {mark} [ 100% ] {} VUs  {}",
            sc.name,
            sc.executor.max_vus(),
            clock(sc.executor.duration())
        );
    }
    (s, failed)
}

fn clock(d: Duration) -> String {
    let t = d.as_secs_f64();
    let m = (t / 60.0).floor();
    format!("{:02}m{:04.1}s", m as u64, t - m * 60.0)
}

fn dots(name: &str, width: usize) -> String {
    let n = name.chars().count();
    format!("{name}{}", ".".repeat(width.saturating_sub(n)))
}

fn cells(agg: &Agg, time: bool, data: bool, stats: &[String], secs: f64) -> Vec<String> {
    match agg {
        Agg::Counter { sum, .. } => {
            if data {
                vec![fmt_bytes(*sum), format!("{}/s", fmt_bytes(sum / secs))]
            } else {
                vec![fmt_value(*sum, time), format!("{:.6}/s", sum / secs)]
            }
        }
        Agg::Rate { hits, total } => vec![
            format!("{:.2}%", *hits as f64 * 100.0 / (*total).max(1) as f64),
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

/// `--summary-export`: k6's legacy export (metrics by name with their
/// figures, checks by group, thresholds' verdicts).
pub fn export_json(shared: &Shared, options: &Options, elapsed: Duration) -> serde_json::Value {
    let verdicts = thresholds(shared, options, elapsed);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut metrics = serde_json::Map::new();
    for m in reg.used() {
        let def = &reg.metrics[m];
        let agg = reg.merged(m, &[]);
        let mut o = serde_json::Map::new();
        match &agg {
            Agg::Counter { sum, .. } => {
                o.insert("count".into(), json!(sum));
                o.insert("rate".into(), json!(sum / secs));
            }
            Agg::Gauge { last, min, max, .. } => {
                o.insert("value".into(), json!(last));
                o.insert("min".into(), json!(min));
                o.insert("max".into(), json!(max));
            }
            Agg::Rate { hits, total } => {
                o.insert("passes".into(), json!(hits));
                o.insert("fails".into(), json!(total - hits));
                o.insert("value".into(), json!(*hits as f64 / (*total).max(1) as f64));
            }
            Agg::Trend(_) => {
                for st in &options.summary_trend_stats {
                    o.insert(st.clone(), json!(agg.stat(st).unwrap_or(0.0)));
                }
            }
        }
        let th: serde_json::Map<String, serde_json::Value> = verdicts
            .iter()
            .filter(|v| v.key == def.name)
            .map(|v| (v.source.clone(), json!(!v.ok)))
            .collect();
        if !th.is_empty() {
            o.insert("thresholds".into(), serde_json::Value::Object(th));
        }
        let _ = def.kind == Kind::Trend;
        metrics.insert(def.name.clone(), serde_json::Value::Object(o));
    }
    // Checks by name.
    let mut checks = serde_json::Map::new();
    if let Some(ci) = reg.metric("checks") {
        for se in reg.series.iter().filter(|x| x.metric == ci) {
            let Some((_, n)) = se.tags.iter().find(|(k, _)| k == "check") else {
                continue;
            };
            let group = se
                .tags
                .iter()
                .find(|(k, _)| k == "group")
                .map(|(_, v)| v.clone())
                .unwrap_or_default();
            if let Agg::Rate { hits, total } = &se.agg {
                let key = format!("{group}::{n}");
                let e = checks.entry(key).or_insert_with(
                    || json!({"name": n, "path": format!("{group}::{n}"), "passes": 0, "fails": 0}),
                );
                let p = e["passes"].as_u64().unwrap_or(0) + hits;
                let f = e["fails"].as_u64().unwrap_or(0) + (total - hits);
                e["passes"] = json!(p);
                e["fails"] = json!(f);
            }
        }
    }
    json!({
        "root_group": {"name": "", "path": "", "id": "d41d8cd98f00b204e9800998ecf8427e", "groups": {}, "checks": checks},
        "metrics": metrics,
    })
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
