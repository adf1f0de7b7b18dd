//! Go-style durations, because vegeta's users type `-duration=1m30s` and parse
//! reports that print `1m0.103771332s` and `107.381249ms`.

use std::time::Duration;

/// Why a duration string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("empty duration")]
    Empty,
    #[error("invalid duration {0:?}: expected a number with a unit, e.g. 30s, 1m30s, 250ms")]
    Invalid(String),
    #[error(
        "invalid duration {input:?}: missing unit after {number:?} (use ns, us, ms, s, m or h)"
    )]
    MissingUnit { input: String, number: String },
    #[error("invalid duration {input:?}: unknown unit {unit:?} (use ns, us, ms, s, m or h)")]
    UnknownUnit { input: String, unit: String },
    #[error("invalid duration {0:?}: negative durations are not allowed")]
    Negative(String),
    #[error("invalid duration {0:?}: too large")]
    Overflow(String),
}

/// Parses a Go duration: a sequence of decimal numbers, each with an optional
/// fraction and a unit (`ns`, `us`, `µs`, `ms`, `s`, `m`, `h`), e.g. `1h2m3.5s`.
/// A bare `0` is accepted, as in Go. Negative durations are rejected.
pub fn parse_go_duration(input: &str) -> Result<Duration, DurationError> {
    let s = input.trim();
    if s.is_empty() {
        return Err(DurationError::Empty);
    }
    if let Some(rest) = s.strip_prefix('-') {
        if rest.chars().all(|c| c == '0' || c == '.') && !rest.is_empty() {
            return Ok(Duration::ZERO);
        }
        return Err(DurationError::Negative(input.to_string()));
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut total: u128 = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let number = &s[start..i];
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(DurationError::Invalid(input.to_string()));
        }
        let ustart = i;
        while i < bytes.len() && !(bytes[i].is_ascii_digit() || bytes[i] == b'.') {
            i += 1;
        }
        let unit = &s[ustart..i];
        if unit.is_empty() {
            return Err(DurationError::MissingUnit {
                input: input.to_string(),
                number: number.to_string(),
            });
        }
        let unit_ns: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(DurationError::UnknownUnit {
                    input: input.to_string(),
                    unit: unit.to_string(),
                });
            }
        };
        let (int_part, frac_part) = match number.split_once('.') {
            Some((a, b)) => (a, b),
            None => (number, ""),
        };
        let int: u128 = if int_part.is_empty() {
            0
        } else {
            int_part
                .parse()
                .map_err(|_| DurationError::Overflow(input.to_string()))?
        };
        let mut ns = int
            .checked_mul(unit_ns)
            .ok_or_else(|| DurationError::Overflow(input.to_string()))?;
        if !frac_part.is_empty() {
            // Keep at most 18 fractional digits; more cannot matter at ns resolution.
            let digits = &frac_part[..frac_part.len().min(18)];
            let frac: u128 = digits
                .parse()
                .map_err(|_| DurationError::Invalid(input.to_string()))?;
            let scale = 10u128.pow(digits.len() as u32);
            ns += frac * unit_ns / scale;
        }
        total = total
            .checked_add(ns)
            .ok_or_else(|| DurationError::Overflow(input.to_string()))?;
    }
    if total > u64::MAX as u128 {
        return Err(DurationError::Overflow(input.to_string()));
    }
    Ok(Duration::from_nanos(total as u64))
}

/// Formats like Go's `time.Duration.String()`: `0s`, `120ns`, `488.217µs`,
/// `107.381249ms`, `59.997441443s`, `1m0.103771332s`, `1h0m0s`.
pub fn format_go_duration(d: Duration) -> String {
    let ns = d.as_nanos();
    if ns == 0 {
        return "0s".to_string();
    }
    if ns < 1_000 {
        return format!("{ns}ns");
    }
    if ns < 1_000_000 {
        return format!("{}µs", frac(ns, 1_000, 3));
    }
    if ns < 1_000_000_000 {
        return format!("{}ms", frac(ns, 1_000_000, 6));
    }
    let secs_total = ns / 1_000_000_000;
    let sub = ns % 1_000_000_000;
    let h = secs_total / 3600;
    let m = (secs_total % 3600) / 60;
    let s = secs_total % 60;
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if h > 0 || m > 0 {
        out.push_str(&format!("{m}m"));
    }
    out.push_str(&frac(s * 1_000_000_000 + sub, 1_000_000_000, 9));
    out.push('s');
    out
}

/// `value / unit` with up to `digits` fractional digits, trailing zeros removed.
fn frac(value: u128, unit: u128, digits: usize) -> String {
    let int = value / unit;
    let rem = value % unit;
    if rem == 0 {
        return int.to_string();
    }
    let mut f = format!("{:0width$}", rem, width = digits);
    while f.ends_with('0') {
        f.pop();
    }
    format!("{int}.{f}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_go_forms() {
        let cases = [
            ("0", 0),
            ("1s", 1_000_000_000),
            ("1m30s", 90_000_000_000),
            ("100ms", 100_000_000),
            ("1.5s", 1_500_000_000),
            ("250us", 250_000),
            ("250µs", 250_000),
            ("10ns", 10),
            ("1h2m3s", 3_723_000_000_000),
            (".5s", 500_000_000),
        ];
        for (s, ns) in cases {
            assert_eq!(
                parse_go_duration(s).unwrap(),
                Duration::from_nanos(ns),
                "{s}"
            );
        }
    }

    #[test]
    fn rejects_bad_forms() {
        assert!(matches!(
            parse_go_duration("10"),
            Err(DurationError::MissingUnit { .. })
        ));
        assert!(matches!(
            parse_go_duration("10x"),
            Err(DurationError::UnknownUnit { .. })
        ));
        assert!(matches!(parse_go_duration(""), Err(DurationError::Empty)));
        assert!(matches!(
            parse_go_duration("-1s"),
            Err(DurationError::Negative(_))
        ));
        assert!(parse_go_duration("1..2s").is_err());
        assert!(parse_go_duration("s").is_err());
    }

    #[test]
    fn formats_like_go() {
        let cases = [
            (0, "0s"),
            (120, "120ns"),
            (488_217, "488.217µs"),
            (1_000, "1µs"),
            (107_381_249, "107.381249ms"),
            (2_709_000, "2.709ms"),
            (59_997_441_443, "59.997441443s"),
            (60_103_771_332, "1m0.103771332s"),
            (60_000_000_000, "1m0s"),
            (3_600_000_000_000, "1h0m0s"),
            (300_106_528_249, "5m0.106528249s"),
            (1_500_000_000, "1.5s"),
        ];
        for (ns, s) in cases {
            assert_eq!(format_go_duration(Duration::from_nanos(ns)), s);
        }
    }

    #[test]
    fn round_trips() {
        for ns in [
            1u64,
            999,
            1_001,
            123_456_789,
            61_000_000_001,
            7_322_000_000_123,
        ] {
            let d = Duration::from_nanos(ns);
            assert_eq!(parse_go_duration(&format_go_duration(d)).unwrap(), d);
        }
    }
}
