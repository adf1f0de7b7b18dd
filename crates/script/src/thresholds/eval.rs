//! Threshold evaluation: the check before any load, each threshold's
//! verdict over the registry's figures, and `abortOnFail`.

use std::time::Duration;

use crate::ScriptError;
use crate::config::Options;
use crate::registry::{Agg, Expr, Registry, parse_threshold};

/// What a threshold's aggregation came to, for the summary to show.
pub enum Figure {
    /// The threshold names a metric the run does not have.
    NoMetric,
    /// `rate` of a rate metric (a fraction).
    Rate(f64),
    /// Any other aggregation: its name, its value and whether the metric
    /// is a time.
    Value { agg: String, value: f64, time: bool },
}

/// One threshold's verdict.
pub struct Verdict {
    pub key: String,
    /// The metric, and the tag filter as written (`{kind:apple}`, or "").
    pub metric: String,
    pub filter: String,
    pub source: String,
    pub figure: Figure,
    pub ok: bool,
    pub abort: bool,
}

/// Every threshold's verdict `elapsed` into the test, as k6 lists them.
pub fn evaluate(reg: &Registry, options: &Options, elapsed: Duration) -> Vec<Verdict> {
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
                    metric: t.metric.clone(),
                    filter: filter_label(&t.key),
                    source: t.source.clone(),
                    figure: Figure::NoMetric,
                    ok: false,
                    abort: t.abort_on_fail,
                });
                continue;
            }
        };
        let (value, ok) = eval_or_empty(&expr, &agg, elapsed.as_secs_f64());
        let figure = match expr.agg.as_str() {
            "rate" if matches!(agg, Agg::Rate { .. }) => Figure::Rate(value),
            a => Figure::Value {
                agg: a.to_string(),
                value,
                time,
            },
        };
        out.push(Verdict {
            key: t.key.clone(),
            metric: t.metric.clone(),
            filter: filter_label(&t.key),
            source: t.source.clone(),
            figure,
            ok,
            abort: t.abort_on_fail,
        });
    }
    // As k6 lists them: by metric, its own thresholds before its
    // tag-filtered ones, each key's expressions in the order written.
    out.sort_by(|a, b| (&a.metric, &a.filter).cmp(&(&b.metric, &b.filter)));
    out
}

/// `{kind:apple}` of `my_items{kind:apple}` (as written, spaces removed).
pub fn filter_label(key: &str) -> String {
    key.find('{')
        .map(|i| key[i..].chars().filter(|c| !c.is_whitespace()).collect())
        .unwrap_or_default()
}

fn eval_or_empty(expr: &Expr, agg: &Agg, elapsed: f64) -> (f64, bool) {
    expr.eval(agg, elapsed).unwrap_or((0.0, false))
}

/// True when a threshold with `abortOnFail` fails now, `elapsed` into
/// the test (and past its `delayAbortEval`).
pub fn abort_failed(reg: &Registry, options: &Options, elapsed: Duration) -> bool {
    if !options.thresholds.iter().any(|t| t.abort_on_fail) {
        return false;
    }
    // Each threshold's own `delayAbortEval` holds its abort back; the
    // verdicts come in another order, so by key and source.
    let held = |v: &Verdict| {
        options
            .thresholds
            .iter()
            .any(|t| t.key == v.key && t.source == v.source && elapsed < t.delay_abort)
    };
    evaluate(reg, options, elapsed)
        .iter()
        .any(|v| v.abort && !v.ok && !held(v))
}

/// Refuses, before any load, a threshold on a metric the script does not
/// define or with an aggregation its type lacks (k6's exit 104).
pub fn check(options: &Options, reg: &Registry) -> Result<(), ScriptError> {
    for t in &options.thresholds {
        let Some(m) = reg.metric(&t.metric) else {
            return Err(ScriptError::Options(format!(
                "invalid threshold defined on {}; reason: no metric name {:?} found",
                t.key, t.metric
            )));
        };
        let def = &reg.metrics[m];
        let agg = crate::registry::parse_threshold(&t.source)
            .map(|e| e.agg)
            .map_err(|e| ScriptError::Options(format!("threshold on {}: {e}", t.key)))?;
        if !crate::registry::threshold_fits(def.kind, &agg) {
            let methods = crate::registry::threshold_methods(def.kind);
            return Err(ScriptError::Options(format!(
                "invalid threshold {:?} applied on metric {}; reason: unsupported aggregation \
                 method {agg} on metric of type {}. supported aggregation methods for this \
                 metric are: {methods}",
                t.source,
                t.key,
                def.kind.name()
            )));
        }
    }
    Ok(())
}
