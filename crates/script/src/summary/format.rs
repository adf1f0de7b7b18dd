//! How the summary writes numbers, sizes, durations and rates, as k6 does.

use serde_json::json;

use crate::config::{Options, TimeUnit};
use crate::thresholds::eval::Figure;

/// `1.23ms`, `425.14µs`, `1.5s`, `1m2.5s`: k6's durations, with 2 decimals
/// truncated, not rounded (k6 shows 13.649… ms as `13.64ms`).
pub fn fmt_ms(ms: f64) -> String {
    if ms <= 0.0 {
        return "0s".into();
    }
    let trunc = |v: f64, prec: i32| {
        let m = 10f64.powi(prec);
        let s = format!("{:.*}", prec as usize, (v * m).trunc() / m);
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if ms < 0.001 {
        return format!("{}ns", (ms * 1e6).trunc());
    }
    if ms < 1.0 {
        return format!("{}µs", trunc(ms * 1000.0, 2));
    }
    if ms < 1000.0 {
        return format!("{}ms", trunc(ms, 2));
    }
    let secs = trunc((ms % 60_000.0) / 1000.0, if ms > 60_000.0 { 0 } else { 2 });
    let mins = (ms / 60_000.0).trunc();
    if mins < 1.0 {
        return format!("{secs}s");
    }
    let hours = (mins / 60.0).trunc();
    if hours < 1.0 {
        format!("{mins}m{secs}s")
    } else {
        format!("{hours}h{}m{secs}s", mins % 60.0)
    }
}

pub(crate) fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v:.0}");
    }
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Bytes as k6 shows them (SI units, one decimal below 10, halves
/// rounded up as JavaScript's `toFixed` does): `750 B`, `1.3 kB`, `15 kB`.
pub(crate) fn fmt_bytes(b: f64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB", "PB"];
    if b < 10.0 {
        return format!("{} B", fmt_num(b));
    }
    let mut e = 0;
    while e + 1 < units.len() && b >= 1000f64.powi(e as i32 + 1) {
        e += 1;
    }
    let val = (b / 1000f64.powi(e as i32) * 10.0 + 0.5).floor() / 10.0;
    if val < 10.0 {
        format!("{val:.1} {}", units[e])
    } else {
        format!("{} {}", val.round(), units[e])
    }
}

/// A value: a time (in ms) in k6's unit for it, or in `summaryTimeUnit`'s
/// with two decimals (as k6 writes them, rounded), else a number.
pub(crate) fn fmt_value(v: f64, time: Option<Option<TimeUnit>>) -> String {
    match time {
        Some(Some(u)) => format!("{:.2}{}", v / u.ms, u.suffix),
        Some(None) => fmt_ms(v),
        None => fmt_num(v),
    }
}

/// A threshold's figure as the summary shows it: `p(95)=1.2ms`,
/// `rate=12.50%`.
pub(crate) fn shown(f: &Figure, options: &Options) -> String {
    match f {
        Figure::NoMetric => "no such metric".into(),
        Figure::Rate(v) => format!("rate={}", percent(*v)),
        Figure::Value { agg, value, time } => format!(
            "{agg}={}",
            fmt_value(
                *value,
                (*time && !matches!(agg.as_str(), "count" | "rate"))
                    .then_some(options.summary_time_unit),
            )
        ),
    }
}

pub(crate) fn dots(name: &str, width: usize) -> String {
    let n = name.chars().count();
    format!("{name}{}", ".".repeat(width.saturating_sub(n)))
}

/// A number as k6 (Go) writes it in JSON: integral values without `.0`.
pub fn jnum(v: f64) -> serde_json::Value {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15 {
        json!(v as i64)
    } else {
        json!(v)
    }
}

/// A rate as k6 shows it: a percentage cut (not rounded) to two decimals,
/// computed as k6 does (2/3 is 66.66 %, 29/100 is 28.99 %).
pub(crate) fn percent(rate: f64) -> String {
    format!("{:.2}%", (rate * 100.0 * 100.0).trunc() / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_as_k6_shows_them() {
        // Counts and rates from the goldens of k6 v1.8.1 (tests/golden/k6).
        for (b, shown) in [
            (1250.0, "1.3 kB"),
            (14_500.0, "15 kB"),
            (750.0, "750 B"),
            (894.0, "894 B"),
            (163_238.889, "163 kB"),
            (97_943.33, "98 kB"),
            (2_500.0, "2.5 kB"),
            (1_000.0, "1.0 kB"),
            (5.0, "5 B"),
        ] {
            assert_eq!(fmt_bytes(b), shown, "{b}");
        }
    }
}
