//! The summary as data: `--summary-export`'s JSON and `handleSummary`'s
//! argument, with the group tree of the checks.

use std::time::Duration;

use serde_json::json;

use super::format::*;
use super::groups::*;
use super::text::*;
use crate::config::Options;
use crate::registry::Agg;
use crate::state::run_state::RunState;
use crate::thresholds::eval::filter_label;

/// A metric's figures as k6 names them: counters `count rate`, gauges
/// `value min max`, rates `passes fails value` (`rate` for
/// handleSummary's `rate`), trends the summary's statistics.
pub(crate) fn figures(
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

/// `--summary-export`: k6's legacy export (metrics by name with their
/// figures, sub-metrics named by thresholds, thresholds' verdicts, groups
/// and checks nested under `root_group`).
pub fn export_json(shared: &RunState, options: &Options, elapsed: Duration) -> serde_json::Value {
    let verdicts = thresholds(shared, options, elapsed);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let stats = &options.summary_trend_stats;
    let mut metrics = serde_json::Map::new();
    for m in shown_metrics(&reg, options) {
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
pub fn summary_data(shared: &RunState, options: &Options, elapsed: Duration) -> serde_json::Value {
    let verdicts = thresholds(shared, options, elapsed);
    let reg = shared.reg.borrow();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let stats = &options.summary_trend_stats;
    let mut metrics = serde_json::Map::new();
    for m in shown_metrics(&reg, options) {
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
