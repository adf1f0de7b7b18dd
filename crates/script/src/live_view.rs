//! A view of the run for a live display (the dashboard of `loadlab k6 run
//! --out web-dashboard`): once a second, while the display wants it, the
//! VUs, every metric's figures so far and each threshold's verdict, made
//! from the run's registry (nothing is recorded for it).

use std::time::Duration;

use serde_json::{Value, json};

use crate::config::Options;
use crate::registry::{Agg, Registry};

/// What follows the run.
pub trait LiveOut: Send + Sync + std::fmt::Debug {
    /// False: no view is made this second.
    fn wanted(&self) -> bool;
    /// One second's view: `point` (a few figures, kept for the charts)
    /// and `totals` (every metric and threshold, replacing the last ones).
    fn publish(&self, point: Value, totals: Value);
    /// The run ended: the final figures.
    fn finish(&self, totals: Value);
}

/// One metric's figures, as k6's summary shows them.
fn figures(agg: &Agg, elapsed_s: f64) -> Value {
    match agg {
        Agg::Counter { sum, .. } => json!({ "count": sum, "rate": sum / elapsed_s.max(1e-3) }),
        Agg::Gauge { last, min, max, n } => {
            if *n == 0 {
                json!({ "value": 0.0 })
            } else {
                json!({ "value": last, "min": min, "max": max })
            }
        }
        Agg::Rate { hits, total } => json!({
            "rate": if *total == 0 { 0.0 } else { *hits as f64 / *total as f64 },
            "passes": hits,
            "fails": total - hits,
        }),
        Agg::Trend(_) => {
            let s = |n: &str| agg.stat(n).unwrap_or(0.0);
            json!({ "avg": s("avg"), "min": s("min"), "med": s("med"), "p(90)": s("p(90)"),
                    "p(95)": s("p(95)"), "p(99)": s("p(99)"), "max": s("max"), "count": agg.count() })
        }
    }
}

/// Every metric's figures so far and each threshold's verdict.
pub fn totals(reg: &Registry, options: &Options, elapsed: Duration, vus: u64) -> Value {
    let t = elapsed.as_secs_f64();
    let metrics: Vec<Value> = reg
        .used()
        .into_iter()
        .map(|m| {
            let d = &reg.metrics[m];
            json!({
                "name": d.name, "kind": d.kind.name(), "time": d.time, "builtin": d.builtin,
                "values": figures(&reg.merged(m, &[]), t),
            })
        })
        .collect();
    let thresholds: Vec<Value> = crate::thresholds::eval::evaluate(reg, options, elapsed)
        .into_iter()
        .map(|v| {
            let value = match v.figure {
                crate::thresholds::eval::Figure::NoMetric => Value::Null,
                crate::thresholds::eval::Figure::Rate(r) => json!(r),
                crate::thresholds::eval::Figure::Value { value, .. } => json!(value),
            };
            json!({ "metric": v.key, "source": v.source, "ok": v.ok, "value": value })
        })
        .collect();
    json!({ "k6": true, "elapsed": t, "vus": vus, "metrics": metrics, "thresholds": thresholds })
}
