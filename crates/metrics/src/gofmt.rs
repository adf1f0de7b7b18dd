//! Small formatting helpers that reproduce Go's output byte for byte where
//! vegeta's users may diff or parse it: JSON strings and floats, CSV fields,
//! and `time.Duration.Round`.

use std::fmt::Write;

/// Appends `s` as a JSON string the way Go's encoders write it, including
/// their HTML-safe escapes (`<`, `>`, `&` as `\u003c`...).
pub fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends a float as Go's `encoding/json` does: shortest round-trip digits,
/// plain notation for 1e-6 ≤ |f| < 1e21, exponent (`1e-07`) otherwise.
/// Non-finite values (which Go refuses to encode) are written as 0.
pub fn json_float(out: &mut String, f: f64) {
    if !f.is_finite() {
        out.push('0');
        return;
    }
    let a = f.abs();
    if a == 0.0 || (1e-6..1e21).contains(&a) {
        let _ = write!(out, "{f}");
    } else {
        let s = format!("{f:e}"); // e.g. 1e-7, 1.5e21
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        let _ = write!(out, "{mant}e{sign}{digits:0>2}");
    }
}

/// Appends a CSV field as Go's `encoding/csv` writes it: quoted only when it
/// contains a comma, a quote, CR or LF, or starts with white space.
pub fn csv_field(out: &mut String, s: &str) {
    let needs = !s.is_empty()
        && (s == "\\."
            || s.contains([',', '"', '\r', '\n'])
            || s.chars().next().is_some_and(char::is_whitespace));
    if !needs {
        out.push_str(s);
        return;
    }
    out.push('"');
    for c in s.chars() {
        if c == '"' {
            out.push('"');
        }
        out.push(c);
    }
    out.push('"');
}

/// Go's `time.Duration.Round(m)` for non-negative durations: halves round
/// away from zero.
pub fn round_duration(d: u64, m: u64) -> u64 {
    if m <= 1 {
        return d;
    }
    let r = d % m;
    if r + r < m {
        d - r
    } else {
        d.saturating_add(m - r)
    }
}

/// The rounding vegeta's text report applies to every duration: to the next
/// smaller unit of the duration's own unit (≥1h → minutes, ≥1m → seconds,
/// ≥1s → ms, ≥1ms → µs, ≥1µs → ns).
pub fn round_for_text(d: u64) -> u64 {
    const UNITS: [u64; 6] = [
        3_600_000_000_000,
        60_000_000_000,
        1_000_000_000,
        1_000_000,
        1_000,
        1,
    ];
    for i in 0..UNITS.len() - 1 {
        if d >= UNITS[i] {
            return round_duration(d, UNITS[i + 1]);
        }
    }
    d
}

/// `format_go_duration` for a nanosecond count.
pub fn go_duration(ns: u64) -> String {
    loadlab_core::format_go_duration(std::time::Duration::from_nanos(ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_go() {
        let cases = [
            (0.0, "0"),
            (1.0, "1"),
            (1000.2200440088018, "1000.2200440088018"),
            (0.5, "0.5"),
            (1e-7, "1e-07"),
            (1.5e21, "1.5e+21"),
            (123456789.0, "123456789"),
        ];
        for (f, s) in cases {
            let mut o = String::new();
            json_float(&mut o, f);
            assert_eq!(o, s);
        }
    }

    #[test]
    fn strings_like_go() {
        let mut o = String::new();
        json_string(&mut o, "a\"b\\c\n<&>\u{1}µ");
        assert_eq!(o, r#""a\"b\\c\n\u003c\u0026\u003e\u0001µ""#);
    }

    #[test]
    fn csv_quoting_like_go() {
        for (s, want) in [
            ("", ""),
            ("a", "a"),
            ("a,b", "\"a,b\""),
            ("say \"hi\"", "\"say \"\"hi\"\"\""),
            (" x", "\" x\""),
        ] {
            let mut o = String::new();
            csv_field(&mut o, s);
            assert_eq!(o, want);
        }
    }

    #[test]
    fn text_rounding_matches_the_reference_report() {
        // Values from vegeta's current text report (reference §2.2).
        assert_eq!(go_duration(round_for_text(4_999_123_456)), "4.999s");
        assert_eq!(go_duration(round_for_text(488_217)), "488.217µs");
        assert_eq!(go_duration(round_for_text(1_247_600)), "1.248ms");
        assert_eq!(go_duration(round_for_text(60_103_771_332)), "1m0s");
        assert_eq!(go_duration(round_for_text(999)), "999ns");
        assert_eq!(round_duration(1_500, 1_000), 2_000);
        assert_eq!(round_duration(1_499, 1_000), 1_000);
    }
}
