//! wrk's number formatting, reproduced as a compatibility fact so that scripts
//! which parse `Latency 1.69ms`, `Req/Sec 1.05k` or `Transfer/sec 219.67KB` keep
//! working: a value moves to the next unit once it reaches 85% of the scale,
//! and is printed with two decimals.

struct Units {
    scale: f64,
    base: &'static str,
    /// The last entry is never reached (wrk stops one short of the list's end).
    units: &'static [&'static str],
}

const TIME_US: Units = Units {
    scale: 1000.0,
    base: "us",
    units: &["ms", "s"],
};
const TIME_S: Units = Units {
    scale: 60.0,
    base: "s",
    units: &["m", "h"],
};
const BINARY: Units = Units {
    scale: 1024.0,
    base: "",
    units: &["K", "M", "G", "T", "P"],
};
const METRIC: Units = Units {
    scale: 1000.0,
    base: "",
    units: &["k", "M", "G", "T", "P"],
};

fn format_units(n: f64, m: &Units, precision: usize) -> String {
    let mut amt = n;
    let mut unit = m.base;
    let threshold = m.scale * 0.85;
    let mut i = 0;
    while i + 1 < m.units.len() && amt >= threshold {
        amt /= m.scale;
        unit = m.units[i];
        i += 1;
    }
    format!("{amt:.precision$}{unit}")
}

/// Bytes with binary multiples: `219.67K`, `1.88M` (callers append `B`).
pub fn binary(n: f64) -> String {
    format_units(n, &BINARY, 2)
}

/// Counts with metric multiples: `526.55`, `1.05k`.
pub fn metric(n: f64) -> String {
    format_units(n, &METRIC, 2)
}

/// A time given in microseconds: `615.50us`, `1.69ms`, `4.32s`, `1.50m`.
pub fn time_us(n: f64) -> String {
    if n >= 1_000_000.0 {
        format_units(n / 1_000_000.0, &TIME_S, 2)
    } else {
        format_units(n, &TIME_US, 2)
    }
}

/// Right-aligns `msg` in `width` columns the way wrk's `print_units` does: a
/// value without a two-letter unit gets trailing padding so numbers line up.
pub fn pad_units(msg: &str, width: usize) -> String {
    let b = msg.as_bytes();
    let mut pad = 2usize;
    if b.last().is_some_and(|c| c.is_ascii_alphabetic()) {
        pad -= 1;
    }
    if b.len() >= 2 && b[b.len() - 2].is_ascii_alphabetic() {
        pad -= 1;
    }
    let w = width.saturating_sub(pad);
    let shown: String = msg.chars().take(w).collect();
    format!("{shown:>w$}{}", &"  "[..pad])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_wrk() {
        assert_eq!(time_us(1690.0), "1.69ms");
        assert_eq!(time_us(615.5), "615.50us");
        assert_eq!(time_us(849.0), "849.00us");
        assert_eq!(time_us(850.0), "0.85ms");
        assert_eq!(time_us(4_320_000.0), "4.32s");
        assert_eq!(time_us(30_000_000.0), "30.00s");
        assert_eq!(time_us(90_000_000.0), "1.50m");
        // Only the first unit of each table is reachable, as in wrk.
        assert_eq!(time_us(999_999.0), "1000.00ms");
        assert_eq!(metric(526.55), "526.55");
        assert_eq!(metric(930.0), "0.93k");
        assert_eq!(metric(1110.0), "1.11k");
        assert_eq!(binary(224_942.0), "219.67K");
        assert_eq!(binary(1.88 * 1024.0 * 1024.0), "1.88M");
        assert_eq!(binary(11.97 * 1024.0 * 1024.0 * 1024.0), "11.97G");
    }

    #[test]
    fn pads_like_wrk() {
        assert_eq!(pad_units("3.32ms", 8), "  3.32ms");
        assert_eq!(pad_units("526.55", 8), "526.55  ");
        assert_eq!(pad_units("1.11k", 9), "   1.11k ");
        assert_eq!(pad_units("57.79ms", 9), "  57.79ms");
    }
}
