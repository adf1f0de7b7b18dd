//! The summary's options: its trend statistics and its time unit.

use serde_json::Value;

use super::flags::Overrides;
use super::values::{Layered, bad};
use crate::ScriptError;

/// A fixed unit for the summary's times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeUnit {
    /// As written in the option: `s`, `ms`, `us`.
    pub name: &'static str,
    /// What the summary shows after the value (`µs` for `us`).
    pub suffix: &'static str,
    /// Milliseconds in one unit.
    pub ms: f64,
}

impl TimeUnit {
    pub fn parse(s: &str) -> Option<TimeUnit> {
        let (name, suffix, ms) = match s {
            "s" => ("s", "s", 1000.0),
            "ms" => ("ms", "ms", 1.0),
            "us" => ("us", "µs", 0.001),
            _ => return None,
        };
        Some(TimeUnit { name, suffix, ms })
    }
}

const DEFAULT_STATS: [&str; 6] = ["avg", "min", "med", "max", "p(90)", "p(95)"];

/// `summaryTrendStats` (`--summary-trend-stats` wins), each checked.
pub(crate) fn trend_stats(opts: Layered, o: &Overrides) -> Result<Vec<String>, ScriptError> {
    let summary_trend_stats = match &o.summary_trend_stats {
        Some(s) => s.clone(),
        None => match opts.get("summaryTrendStats") {
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| bad("options.summaryTrendStats: not a list of strings"))?,
            _ => DEFAULT_STATS.iter().map(|s| s.to_string()).collect(),
        },
    };
    for s in &summary_trend_stats {
        crate::registry::check_stat(s).map_err(|e| bad(format!("summaryTrendStats: {e}")))?;
    }
    Ok(summary_trend_stats)
}

/// `summaryTimeUnit` (`--summary-time-unit` wins); empty: none.
pub(crate) fn time_unit(opts: Layered, o: &Overrides) -> Result<Option<TimeUnit>, ScriptError> {
    let unit_text = match (&o.summary_time_unit, opts.get("summaryTimeUnit")) {
        (Some(u), _) => Some(u.clone()),
        (None, Some(Value::String(u))) => Some(u.clone()),
        (None, Some(v)) => Some(v.to_string()),
        (None, None) => None,
    };
    let summary_time_unit = match unit_text.as_deref() {
        None | Some("") => None,
        Some(u) => Some(
            TimeUnit::parse(u)
                .ok_or_else(|| bad(format!("summaryTimeUnit: {u:?} is not one of s, ms, us")))?,
        ),
    };
    Ok(summary_time_unit)
}
