//! Ramps: the stages of `stages` (a shortcut, or a ramping executor's),
//! read as k6 reads them, `-s`'s text, and a ramp's level at an instant.

use std::time::Duration;

use serde_json::Value;

use super::values::{bad, num, parse_signed_duration, parse_signed_duration_str};
use crate::ScriptError;

/// One stage of a ramp: reach `target` (VUs or iterations per time unit)
/// linearly over `duration`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub duration: Duration,
    pub target: f64,
}

/// A value of a ramp at `t`: `start` before the first stage, linear within
/// each stage, the last target after the end.
pub fn ramp_at(start: f64, stages: &[Stage], t: Duration) -> f64 {
    ramp_level(start, stages, t).0
}

/// The ramp's value at `t` and which way it moves there (the stage's
/// target less where it started; 0 after the last stage).
pub(crate) fn ramp_level(start: f64, stages: &[Stage], t: Duration) -> (f64, f64) {
    let mut from = start;
    let mut at = Duration::ZERO;
    for s in stages {
        if t < at + s.duration {
            let f = (t - at).as_secs_f64() / s.duration.as_secs_f64().max(1e-12);
            return (from + (s.target - from) * f, s.target - from);
        }
        at += s.duration;
        from = s.target;
    }
    (from, 0.0)
}

/// How many VUs a ramping-vus ramp wants at `t`, as k6 counts them: while
/// the ramp climbs a VU joins when the line reaches its number (floor);
/// while it falls one leaves when the line reaches the number below
/// (ceiling).
pub fn ramp_vus_at(start: f64, stages: &[Stage], t: Duration) -> u64 {
    let (v, way) = ramp_level(start, stages, t);
    // A hair of slack, so that a crossing computed a rounding error short
    // of its number still counts.
    let n = if way >= 0.0 {
        (v + 1e-9).floor()
    } else {
        (v - 1e-9).ceil()
    };
    n.max(0.0) as u64
}

/// When the ramp that is flat at `t` (a stage whose target is the level it
/// starts from) ends, as an offset from the ramp's start; `None` while the
/// level moves. After the last stage the level never moves again.
pub fn ramp_flat_until(start: f64, stages: &[Stage], t: Duration) -> Option<Duration> {
    let mut from = start;
    let mut at = Duration::ZERO;
    for s in stages {
        if t < at + s.duration {
            return (s.target == from).then_some(at + s.duration);
        }
        at += s.duration;
        from = s.target;
    }
    Some(Duration::MAX)
}

/// The stages k6 reads from `v`, and what its checks find wrong with them
/// (a negative duration or target, a target left out), in its words; a
/// stage without a duration is left out, as k6 leaves it out.
///
/// In a scenario's `stages` (`in_scenario`), a stage without a duration
/// is kept and refused instead, as k6 does there.
pub(crate) fn stages(
    v: &Value,
    what: &str,
    in_scenario: bool,
) -> Result<(Vec<Stage>, Vec<String>), ScriptError> {
    let arr = v
        .as_array()
        .ok_or_else(|| bad(format!("{what}: not an array")))?;
    let mut list = Vec::new();
    let mut problems = Vec::new();
    for (i, s) in arr.iter().enumerate() {
        let what = format!("{what}[{i}]");
        let field = |k: &str| s.get(k).filter(|v| !v.is_null());
        let n = list.len() + 1;
        let (negative, duration) = match field("duration") {
            Some(d) => parse_signed_duration(d, &format!("{what}.duration"))?,
            None if in_scenario => {
                problems.push(format!("stage {n} doesn't have a duration"));
                (false, Duration::ZERO)
            }
            None => continue,
        };
        if negative {
            problems.push(format!("the duration for stage {n} can't be negative"));
        }
        let target = match field("target") {
            Some(t) => {
                let t = num(t, &format!("{what}.target"))?;
                if t < 0.0 {
                    problems.push(format!("the target for stage {n} can't be negative"));
                }
                t
            }
            None => {
                problems.push(format!("stage {n} doesn't have a target"));
                0.0
            }
        };
        list.push(Stage {
            duration: if negative { Duration::ZERO } else { duration },
            target,
        });
    }
    Ok((list, problems))
}

/// `-s 30s:10` (k6's `--stage`, `duration[:target]`) as the script's
/// `stages` would give it; a target left out is left out (k6 then refuses
/// the stage for it, in its checks).
pub fn stage_flag(s: &str) -> Result<Value, String> {
    let (d, t) = s.split_once(':').unwrap_or((s, ""));
    let mut m = serde_json::Map::new();
    // (k6 refuses a stage flag without a duration as it reads it.)
    if d.trim().is_empty() {
        return Err(format!(
            "stage {s:?}: no duration (DURATION:TARGET, e.g. 30s:10)"
        ));
    }
    if parse_signed_duration_str(d).is_none() {
        return Err(format!(
            "stage {s:?}: {d:?} is not a duration (e.g. 30s:10, 1m30s:100)"
        ));
    }
    m.insert("duration".into(), Value::String(d.trim().to_string()));
    if !t.trim().is_empty() {
        let n: i64 = t
            .trim()
            .parse()
            .map_err(|_| format!("stage {s:?}: {t:?} is not a whole number of VUs"))?;
        m.insert("target".into(), n.into());
    }
    Ok(Value::Object(m))
}
