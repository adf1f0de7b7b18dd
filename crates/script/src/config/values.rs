//! How k6 reads an option's value: durations (a number of milliseconds,
//! Go's duration text, a bare number of seconds), counts and numbers, and
//! the error every reader gives.

use std::time::Duration;

use serde_json::Value;

use crate::ScriptError;

/// k6's words for a shortcut `duration` that is not above zero.
pub const DURATION_NOT_POSITIVE: &str = "`duration` option should be more than 0, for infinite \
     duration use the externally-controlled executor";

pub(crate) fn bad(msg: impl Into<String>) -> ScriptError {
    ScriptError::Options(msg.into())
}

/// k6's durations: a number is milliseconds; a string is Go's duration
/// syntax (`1m30s`, `500ms`) or a bare number of seconds.
pub fn parse_duration(v: &Value, what: &str) -> Result<Duration, ScriptError> {
    match parse_signed_duration(v, what)? {
        (false, d) => Ok(d),
        (true, _) => Err(not_a_duration(v, what)),
    }
}

/// Like [`parse_duration`], but a negative duration (Go's `"-1s"`, or a
/// negative number of milliseconds) is read too: `(true, its size)`.
pub(crate) fn parse_signed_duration(
    v: &Value,
    what: &str,
) -> Result<(bool, Duration), ScriptError> {
    match v {
        Value::Number(n) => {
            let ms = n.as_f64().unwrap_or(f64::NAN);
            if !ms.is_finite() {
                return Err(not_a_duration(v, what));
            }
            Ok((ms < 0.0, Duration::from_secs_f64(ms.abs() / 1000.0)))
        }
        Value::String(s) => parse_signed_duration_str(s).ok_or_else(|| not_a_duration(v, what)),
        _ => Err(not_a_duration(v, what)),
    }
}

/// A duration's text with its sign (`"-1s"`): `(true, its size)` when
/// negative.
pub fn parse_signed_duration_str(s: &str) -> Option<(bool, Duration)> {
    let t = s.trim();
    let (neg, rest) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    Some((neg, parse_duration_str(rest)?))
}

pub(crate) fn not_a_duration(v: &Value, what: &str) -> ScriptError {
    match v {
        Value::String(s) => bad(format!(
            "{what}: {s:?} is not a duration (e.g. \"30s\", \"1m30s\", \"500ms\")"
        )),
        _ => bad(format!("{what}: {v} is not a duration")),
    }
}

pub fn parse_duration_str(s: &str) -> Option<Duration> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<f64>() {
        return (secs >= 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs));
    }
    loadlab_core::duration::parse_go_duration(s)
        .ok()
        .filter(|d| !d.is_zero() || s.chars().any(|c| c.is_ascii_digit()))
}

pub(crate) fn num(v: &Value, what: &str) -> Result<f64, ScriptError> {
    match v {
        Value::Number(n) => n
            .as_f64()
            .ok_or_else(|| bad(format!("{what}: not a number"))),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| bad(format!("{what}: {s:?} is not a number"))),
        _ => Err(bad(format!("{what}: {v} is not a number"))),
    }
}

/// A count read signed, as a field holds it (zero for a negative one,
/// which `config_errors` refuses).
pub(crate) fn whole(n: i64) -> u64 {
    n.max(0) as u64
}

/// A count (VUs, iterations): a whole number. A negative one is read, as
/// k6 reads it, for k6's checks to refuse in its words (`config_errors`).
/// A count that cannot be negative (`batch`, `batchPerHost`).
pub(crate) fn whole_count(v: &Value, what: &str) -> Result<u64, ScriptError> {
    let n = int(v, what)?;
    u64::try_from(n).map_err(|_| bad(format!("{what}: {n} can't be negative")))
}

pub(crate) fn int(v: &Value, what: &str) -> Result<i64, ScriptError> {
    let n = num(v, what)?;
    if n.fract() != 0.0 || !n.is_finite() || n.abs() > 9.0e15 {
        return Err(bad(format!("{what}: {n} is not a whole number")));
    }
    Ok(n as i64)
}

pub(crate) fn string_pairs(v: Option<&Value>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(Value::Object(m)) = v {
        for (k, v) in m {
            let v = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.push((k.clone(), v));
        }
    }
    out
}

/// The options of the layers under the flags (the script's, with the
/// environment's `K6_*` over them), as each option's reader takes them.
#[derive(Clone, Copy)]
pub(crate) struct Layered<'a>(pub(crate) &'a Value);

impl<'a> Layered<'a> {
    /// Option `k`'s value (`null` is unset).
    pub(crate) fn get(self, k: &str) -> Option<&'a Value> {
        self.0.get(k).filter(|v| !v.is_null())
    }

    /// A boolean option (unset: false).
    pub(crate) fn flag(self, k: &str) -> Result<bool, ScriptError> {
        match self.get(k) {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(bad(format!("options.{k}: {v} is not true or false"))),
        }
    }
}

/// The last non-empty value of variable `name` in `env` (as k6 reads its
/// `K6_*` variables: an empty one is unset).
pub(crate) fn env_var<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    env.iter()
        .rev()
        .find(|(n, v)| n == name && !v.is_empty())
        .map(|(_, v)| v.as_str())
}
