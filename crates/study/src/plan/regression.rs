//! A plan's `regression:` block: after the report, `loadlab study` checks
//! the new study against the history of its plan, as `loadlab runs check`.

use serde::{Deserialize, Serialize};

use super::PlanError;
use crate::hypothesis::Metric;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegression {
    #[serde(default)]
    since: Option<String>,
    #[serde(default)]
    margin: Option<serde_norway::Value>,
    #[serde(default)]
    metric: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    rate: Option<u64>,
}

/// The study a new study is checked from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Since {
    /// The study of the same plan just before the new one.
    Previous,
    /// The latest study with this label.
    Label(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegressionPlan {
    pub since: Since,
    /// The relative change tolerated (0.05 = 5 %).
    pub margin: f64,
    pub metric: Metric,
    /// One target, or every target of the sweep.
    pub target: Option<String>,
    /// One rate, or every rate of the sweep.
    pub rate: Option<u64>,
}

/// `p99`, `success`, `rate` (throughput) ...: the metrics a history has.
pub fn history_metric(s: &str) -> Option<Metric> {
    if s == "rate" {
        return Some(Metric::Throughput);
    }
    Metric::ALL
        .iter()
        .find(|(n, m)| *n == s && !matches!(m, Metric::Cpu | Metric::Ceiling))
        .map(|(_, m)| *m)
}

/// `5%`, `"5%"`, `0.05` → 0.05.
fn margin(v: &serde_norway::Value) -> Option<f64> {
    let x = match v {
        serde_norway::Value::Number(n) => n.as_f64()?,
        serde_norway::Value::String(s) => match s.trim().strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
            None => s.trim().parse::<f64>().ok()?,
        },
        _ => return None,
    };
    (x.is_finite() && (0.0..1.0).contains(&x)).then_some(x)
}

pub(super) fn read_regression(
    raw: &RawRegression,
    targets: &[&str],
    err: &dyn Fn(&str, String) -> PlanError,
) -> Result<RegressionPlan, PlanError> {
    let since = match raw.since.as_deref().map(str::trim) {
        None | Some("previous") => Since::Previous,
        Some("") => return Err(err("regression.since", "must not be empty".into())),
        Some(l) => Since::Label(l.to_string()),
    };
    let margin = match &raw.margin {
        None => 0.0,
        Some(v) => margin(v).ok_or_else(|| {
            err(
                "regression.margin",
                "expected a fraction below 1 (0.05) or a percentage (5%)".into(),
            )
        })?,
    };
    let metric = match raw.metric.as_deref() {
        None => Metric::P99,
        Some(m) => history_metric(m.trim()).ok_or_else(|| {
            err(
                "regression.metric",
                format!("{m:?}: expected p50, p90, p95, p99, max, mean, success or rate"),
            )
        })?,
    };
    if let Some(t) = &raw.target
        && !targets.contains(&t.as_str())
    {
        return Err(err(
            "regression.target",
            format!(
                "{t:?}: no such target (the plan has: {})",
                targets.join(", ")
            ),
        ));
    }
    Ok(RegressionPlan {
        since,
        margin,
        metric,
        target: raw.target.clone(),
        rate: raw.rate,
    })
}
