//! Recipe value syntax: durations, sizes, rates and latency distributions.
//!
//! OriginSimulator's own rules are stricter than Go's: a duration is `"Nms"`,
//! `"Ns"`, `0` or `"0"`, and a range is `"A..B"` with a unit on both ends. A
//! bare integer other than 0 is rejected (its README calls `at` milliseconds,
//! but its parser raises), and so are decimals and other units. Sizes are
//! integers with `b`, `kb` (×1024) or `mb` (×1024²). We keep those rules so a
//! recipe that works here works there, and we explain the rule in the error.

use std::time::Duration;

use serde_json::Value;

/// A latency model for one stage.
#[derive(Debug, Clone, PartialEq)]
pub enum Latency {
    /// Always this long (OriginSimulator's `"100ms"`).
    Fixed(Duration),
    /// Uniform between the two ends, inclusive (OriginSimulator's `"1000ms..1500ms"`).
    Uniform(Duration, Duration),
    /// Long-tailed: log-normal with this median and 99th percentile, optionally capped.
    LogNormal {
        median: Duration,
        p99: Duration,
        max: Option<Duration>,
    },
}

impl Latency {
    pub const ZERO: Latency = Latency::Fixed(Duration::ZERO);

    /// Draws one latency. `u1`, `u2` are independent uniform numbers in (0, 1].
    pub fn sample(&self, u1: f64, u2: f64) -> Duration {
        match *self {
            Latency::Fixed(d) => d,
            Latency::Uniform(lo, hi) => {
                // Whole milliseconds, inclusive at both ends, as OriginSimulator draws them;
                // finer ends (sub-ms are impossible in this syntax) need no special case.
                let lo_ms = lo.as_millis() as u64;
                let hi_ms = hi.as_millis() as u64;
                let span = hi_ms - lo_ms + 1;
                let pick = ((u1 * span as f64) as u64).min(span - 1);
                Duration::from_millis(lo_ms + pick)
            }
            Latency::LogNormal { median, p99, max } => {
                // z for the 99th percentile of the standard normal.
                const Z99: f64 = 2.326_347_874;
                let mu = median.as_secs_f64().ln();
                let sigma = ((p99.as_secs_f64().ln() - mu) / Z99).max(0.0);
                // Box–Muller: one standard normal from two uniforms.
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let secs = (mu + sigma * z).exp();
                let cap = max.map(|m| m.as_secs_f64()).unwrap_or(3600.0);
                Duration::from_secs_f64(secs.clamp(0.0, cap))
            }
        }
    }

    /// How `routes_status` prints it: milliseconds, `lo..hi`, or `lognormal(median,p99)`.
    pub fn describe(&self) -> String {
        match self {
            Latency::Fixed(d) => d.as_millis().to_string(),
            Latency::Uniform(a, b) => format!("{}..{}", a.as_millis(), b.as_millis()),
            Latency::LogNormal { median, p99, .. } => {
                format!("lognormal({}ms,{}ms)", median.as_millis(), p99.as_millis())
            }
        }
    }
}

const DURATION_RULE: &str = "durations are \"<N>ms\", \"<N>s\", 0 or a range \"<A>ms..<B>s\" \
     (whole numbers, a unit on both ends of a range)";

/// Parses one OriginSimulator duration: `0`, `"0"`, `"Nms"` or `"Ns"`.
pub fn parse_duration_str(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    if t == "0" {
        return Ok(Duration::ZERO);
    }
    let (digits, scale_ms) = if let Some(d) = t.strip_suffix("ms") {
        (d, 1u64)
    } else if let Some(d) = t.strip_suffix('s') {
        (d, 1000u64)
    } else {
        return Err(format!("{t:?} has no unit; {DURATION_RULE}"));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{t:?} is not a whole number of ms or s; {DURATION_RULE}"
        ));
    }
    let n: u64 = digits.parse().map_err(|_| format!("{t:?} is too large"))?;
    n.checked_mul(scale_ms)
        .filter(|ms| *ms <= 365 * 24 * 3600 * 1000)
        .map(Duration::from_millis)
        .ok_or_else(|| format!("{t:?} is too large (at most a year)"))
}

/// Parses a duration given as a JSON value: the integer 0 or a string.
pub fn parse_duration_value(v: &Value) -> Result<Duration, String> {
    match v {
        Value::Number(n) if n.as_u64() == Some(0) => Ok(Duration::ZERO),
        Value::Number(n) => Err(format!(
            "bare number {n} is ambiguous; write \"{n}ms\" or \"{n}s\" ({DURATION_RULE})"
        )),
        Value::String(s) => parse_duration_str(s),
        other => Err(format!(
            "expected a duration string, got {}",
            kind_of(other)
        )),
    }
}

/// Parses a stage latency: a duration, a `"A..B"` range, or a log-normal object
/// `{"median": "50ms", "p99": "400ms", "max": "2s"}` (our extension).
pub fn parse_latency(v: &Value) -> Result<Latency, String> {
    match v {
        Value::Null => Ok(Latency::ZERO),
        Value::String(s) if s.contains("..") => {
            let (a, b) = s.split_once("..").unwrap_or((s, ""));
            let lo = parse_duration_str(a)?;
            let hi = parse_duration_str(b)?;
            if lo > hi {
                return Err(format!(
                    "range {s:?} runs backwards (its start is after its end)"
                ));
            }
            Ok(Latency::Uniform(lo, hi))
        }
        Value::Object(map) => {
            let mut median = None;
            let mut p99 = None;
            let mut max = None;
            for (k, val) in map {
                let d = parse_duration_value(val).map_err(|e| format!("{k}: {e}"))?;
                match k.as_str() {
                    "median" => median = Some(d),
                    "p99" => p99 = Some(d),
                    "max" => max = Some(d),
                    other => {
                        return Err(format!(
                            "unknown latency key {other:?} (expected median, p99, max)"
                        ));
                    }
                }
            }
            let median = median.ok_or("a latency distribution needs \"median\"")?;
            let p99 = p99.ok_or("a latency distribution needs \"p99\"")?;
            if median.is_zero() || p99 < median {
                return Err("log-normal latency needs 0 < median <= p99".into());
            }
            Ok(Latency::LogNormal { median, p99, max })
        }
        other => parse_duration_value(other).map(Latency::Fixed),
    }
}

const SIZE_RULE: &str = "sizes are whole numbers with b, kb or mb, e.g. \"200kb\"";

/// Parses an OriginSimulator size: `"Nb"`, `"Nkb"` (×1024), `"Nmb"` (×1024²).
pub fn parse_size_str(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (digits, mult) = if let Some(d) = t.strip_suffix("kb") {
        (d, 1024u64)
    } else if let Some(d) = t.strip_suffix("mb") {
        (d, 1024 * 1024)
    } else if let Some(d) = t.strip_suffix('b') {
        (d, 1)
    } else {
        return Err(format!("{s:?} has no unit; {SIZE_RULE}"));
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not valid; {SIZE_RULE}"));
    }
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// Parses a size given as a JSON value (a string only: `123` has no unit).
pub fn parse_size_value(v: &Value) -> Result<u64, String> {
    match v {
        Value::String(s) => parse_size_str(s),
        Value::Number(n) => Err(format!("bare number {n} has no unit; {SIZE_RULE}")),
        other => Err(format!("expected a size string, got {}", kind_of(other))),
    }
}

/// Parses a probability: `"5%"` or a number in [0, 1].
pub fn parse_rate(v: &Value) -> Result<f64, String> {
    let r = match v {
        Value::String(s) => {
            let t = s.trim();
            let num = t.strip_suffix('%').ok_or_else(|| {
                format!("{t:?}: write a percentage like \"5%\" or a fraction 0.05")
            })?;
            num.trim()
                .parse::<f64>()
                .map_err(|_| format!("{t:?} is not a percentage"))?
                / 100.0
        }
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        other => {
            return Err(format!(
                "expected a rate like \"5%\", got {}",
                kind_of(other)
            ));
        }
    };
    if !(0.0..=1.0).contains(&r) {
        return Err(format!("rate {v} is outside 0%..100%"));
    }
    Ok(r)
}

/// A short name of a JSON value's type for error messages.
pub fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations_follow_origin_simulator_rules() {
        let ok = |v: Value| parse_duration_value(&v).unwrap();
        assert_eq!(ok(json!(0)), Duration::ZERO);
        assert_eq!(ok(json!("0")), Duration::ZERO);
        assert_eq!(ok(json!("0ms")), Duration::ZERO);
        assert_eq!(ok(json!("0s")), Duration::ZERO);
        assert_eq!(ok(json!("250ms")), Duration::from_millis(250));
        assert_eq!(ok(json!("3s")), Duration::from_secs(3));
        for bad in [
            json!(100),
            json!("1.5s"),
            json!("2m"),
            json!("ms"),
            json!("10"),
            json!(null),
        ] {
            assert!(parse_duration_value(&bad).is_err(), "{bad} should fail");
        }
    }

    #[test]
    fn latency_forms() {
        assert_eq!(
            parse_latency(&json!("800ms..1s")).unwrap(),
            Latency::Uniform(Duration::from_millis(800), Duration::from_secs(1))
        );
        assert!(parse_latency(&json!("1..2s")).is_err());
        assert!(parse_latency(&json!("2s..1s")).is_err());
        let ln = parse_latency(&json!({"median": "50ms", "p99": "400ms"})).unwrap();
        // The median of many draws sits near 50 ms.
        let mut xs: Vec<f64> = (1..2000)
            .map(|i| ln.sample(i as f64 / 2000.0, ((i * 7919) % 2000 + 1) as f64 / 2001.0))
            .map(|d| d.as_secs_f64())
            .collect();
        xs.sort_by(f64::total_cmp);
        let med = xs[xs.len() / 2];
        assert!((0.035..0.07).contains(&med), "median {med}");
        let u = Latency::Uniform(Duration::from_millis(10), Duration::from_millis(12));
        assert_eq!(u.sample(0.0, 0.5), Duration::from_millis(10));
        assert_eq!(u.sample(0.999_999, 0.5), Duration::from_millis(12));
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size_str("100b").unwrap(), 100);
        assert_eq!(parse_size_str("200kb").unwrap(), 204_800);
        assert_eq!(parse_size_str("2mb").unwrap(), 2 * 1024 * 1024);
        for bad in ["123", "123tb", "1.5kb", "kb"] {
            assert!(parse_size_str(bad).is_err(), "{bad}");
        }
        assert!(parse_size_value(&json!(123)).is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate(&json!("5%")).unwrap(), 0.05);
        assert_eq!(parse_rate(&json!(0.25)).unwrap(), 0.25);
        assert!(parse_rate(&json!("150%")).is_err());
        assert!(parse_rate(&json!(5)).is_err());
    }
}
