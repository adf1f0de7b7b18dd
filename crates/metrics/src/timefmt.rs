//! RFC 3339 timestamps with nanoseconds, as Go's `time.Time` writes them in
//! JSON (`2024-05-01T12:00:00.123456789Z`, fraction trimmed, offset allowed),
//! without a date-time dependency: civil-date arithmetic is a few lines.

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Inverse of [`days_from_civil`].
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

/// Appends `unix_ns` as Go's RFC3339Nano in UTC: trailing zeros of the
/// fraction trimmed, no fraction at all for whole seconds.
pub fn write_rfc3339(out: &mut String, unix_ns: i128) {
    use std::fmt::Write;
    let secs = unix_ns.div_euclid(1_000_000_000) as i64;
    let nanos = unix_ns.rem_euclid(1_000_000_000) as u32;
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    if nanos != 0 {
        // Nine digits without the trailing zeros, and no allocation.
        let mut digits = [0u8; 9];
        let mut n = nanos;
        for d in digits.iter_mut().rev() {
            *d = b'0' + (n % 10) as u8;
            n /= 10;
        }
        let len = 9 - digits.iter().rev().take_while(|&&d| d == b'0').count();
        out.push('.');
        out.extend(digits[..len].iter().map(|&d| d as char));
    }
    out.push('Z');
}

pub fn rfc3339(unix_ns: i128) -> String {
    let mut s = String::with_capacity(30);
    write_rfc3339(&mut s, unix_ns);
    s
}

/// `-start-at`: RFC 3339 (`2026-11-23T02:00:00Z`, `…+01:00`, fractions
/// allowed) or Unix seconds (`1795400000`, `1795400000.25`), as ns since
/// the epoch.
pub fn parse_start_at(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let bad = || {
        format!(
            "invalid -start-at {s:?}: expected an RFC 3339 time (2026-11-23T02:00:00Z) or Unix seconds (1795400000.5)"
        )
    };
    if !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        let (whole, frac) = t.split_once('.').unwrap_or((t, ""));
        if whole.is_empty() || frac.len() > 9 || frac.contains('.') {
            return Err(bad());
        }
        let secs: u64 = whole.parse().map_err(|_| bad())?;
        let nanos: u64 = if frac.is_empty() {
            0
        } else {
            frac.parse::<u64>().map_err(|_| bad())? * 10u64.pow(9 - frac.len() as u32)
        };
        return secs
            .checked_mul(1_000_000_000)
            .and_then(|n| n.checked_add(nanos))
            .ok_or_else(|| {
                format!(
                    "invalid -start-at {s:?}: too far in the future for Unix seconds (milliseconds given as seconds?)"
                )
            });
    }
    let ns = parse_rfc3339(t).ok_or_else(bad)?;
    u64::try_from(ns).map_err(|_| format!("invalid -start-at {s:?}: before 1970"))
}

/// Parses an RFC 3339 timestamp (`Z` or `±hh:mm` offset, 0–9 fraction
/// digits) into ns since the Unix epoch. `None` if malformed.
pub fn parse_rfc3339(s: &str) -> Option<i128> {
    let b = s.as_bytes();
    if b.len() < 20
        || b[4] != b'-'
        || b[7] != b'-'
        || !(b[10] == b'T' || b[10] == b't' || b[10] == b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let t = s.get(r)?;
        if !t.bytes().all(|c| c.is_ascii_digit()) {
            return None;
        }
        t.parse().ok()
    };
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut i = 19;
    let mut nanos: u32 = 0;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = &s[start..i];
        if digits.is_empty() || digits.len() > 9 {
            return None;
        }
        nanos = digits.parse::<u32>().ok()? * 10u32.pow(9 - digits.len() as u32);
    }
    let offset_s: i64 = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b[i + 3] == b':' => {
            let oh = i64::from(num(i + 1..i + 3)?);
            let om = i64::from(num(i + 4..i + 6)?);
            let o = oh * 3600 + om * 60;
            if *sign == b'-' { -o } else { o }
        }
        _ => return None,
    };
    let days = days_from_civil(i64::from(y), mo, d);
    let secs = days * 86_400 + i64::from(h) * 3600 + i64::from(mi) * 60 + i64::from(se) - offset_s;
    Some(i128::from(secs) * 1_000_000_000 + i128::from(nanos))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_go() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(1_581_088_819_782_000_000),
            "2020-02-07T15:20:19.782Z"
        );
        assert_eq!(
            rfc3339(1_700_000_000_123_456_789),
            "2023-11-14T22:13:20.123456789Z"
        );
        // Go's zero time, used by vegeta's JSON report when there are no requests.
        assert_eq!(rfc3339(-62_135_596_800_000_000_000), "0001-01-01T00:00:00Z");
    }

    #[test]
    fn parses_offsets_and_fractions() {
        assert_eq!(
            parse_rfc3339("2023-11-14T22:13:20.123456789Z"),
            Some(1_700_000_000_123_456_789)
        );
        assert_eq!(
            parse_rfc3339("2023-11-14T23:13:20.5+01:00"),
            Some(1_700_000_000_500_000_000)
        );
        assert_eq!(
            parse_rfc3339("2023-11-14T21:13:20-01:00"),
            Some(1_700_000_000_000_000_000)
        );
        for bad in [
            "",
            "2023-11-14",
            "2023-11-14T22:13:20",
            "2023-13-14T22:13:20Z",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20.1234567890Z",
            "x023-11-14T22:13:20Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn round_trips_many_days() {
        for i in 0..2000i128 {
            let ns = i * 86_400_000_000_123 + 1_234_567;
            assert_eq!(parse_rfc3339(&rfc3339(ns)), Some(ns));
        }
    }
}
