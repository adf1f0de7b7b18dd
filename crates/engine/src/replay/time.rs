//! The timestamps logs write, read as nanoseconds since the Unix epoch:
//! nginx's and Apache's `10/Oct/2000:13:55:36 -0700`, ISO 8601 / RFC 3339
//! (`2000-10-10T13:55:36.123-07:00`, `Z`), and Unix seconds (`$msec`).

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn num(s: &str, digits: usize) -> Option<u32> {
    (s.len() == digits && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// Nanoseconds since the epoch of a civil date and time, less `offset_s`.
fn instant(
    date: (i64, u32, u32),
    hms: (u32, u32, u32),
    frac_ns: u32,
    offset_s: i64,
) -> Option<i128> {
    let (y, mo, d) = date;
    let (h, mi, s) = hms;
    if !(1..=12).contains(&mo) || !(1..=31).contains(&d) || h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let secs = days_from_civil(y, mo, d) * 86_400 + i64::from(h * 3600 + mi * 60 + s) - offset_s;
    Some(i128::from(secs) * 1_000_000_000 + i128::from(frac_ns))
}

/// `+0200`, `-07:00` or `Z` as seconds east of UTC.
fn offset(s: &str) -> Option<i64> {
    if s == "Z" || s == "z" {
        return Some(0);
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let rest = s[1..].replace(':', "");
    let h = i64::from(num(rest.get(..2)?, 2)?);
    let m = i64::from(num(rest.get(2..)?, 2)?);
    Some(sign * (h * 3600 + m * 60))
}

/// `10/Oct/2000:13:55:36 -0700` (nginx's `$time_local`, Apache's `%t`
/// without its brackets).
pub fn parse_clf(s: &str) -> Option<i128> {
    let (dt, tz) = s.trim().split_once(' ')?;
    let mut p = dt.splitn(4, [':', '/']);
    let d = num(p.next()?, 2)?;
    let mon = p.next()?;
    let mo = MONTHS.iter().position(|m| *m == mon)? as u32 + 1;
    let y = i64::from(num(p.next()?, 4)?);
    let mut t = p.next()?.split(':');
    let h = num(t.next()?, 2)?;
    let mi = num(t.next()?, 2)?;
    let sec = num(t.next()?, 2)?;
    if t.next().is_some() {
        return None;
    }
    instant((y, mo, d), (h, mi, sec), 0, offset(tz.trim())?)
}

/// RFC 3339 / ISO 8601: `2000-10-10T13:55:36[.fraction](Z|±hh:mm)`; with
/// no zone, UTC (ALB and CloudFront write UTC).
pub fn parse_iso(s: &str) -> Option<i128> {
    let s = s.trim();
    let (date, time) = s.split_once(['T', 't', ' '])?;
    let mut d = date.split('-');
    let y = i64::from(num(d.next()?, 4)?);
    let mo = num(d.next()?, 2)?;
    let day = num(d.next()?, 2)?;
    if d.next().is_some() {
        return None;
    }
    let zone_at = time.find(['Z', 'z', '+', '-']).unwrap_or(time.len());
    let (clock, zone) = time.split_at(zone_at);
    let off = if zone.is_empty() { 0 } else { offset(zone)? };
    let (hms, frac) = match clock.split_once('.') {
        Some((a, f)) => (a, f),
        None => (clock, ""),
    };
    let mut t = hms.split(':');
    let h = num(t.next()?, 2)?;
    let mi = num(t.next()?, 2)?;
    let sec = num(t.next()?, 2)?;
    if t.next().is_some() {
        return None;
    }
    instant((y, mo, day), (h, mi, sec), frac_ns(frac)?, off)
}

fn frac_ns(f: &str) -> Option<u32> {
    if f.is_empty() {
        return Some(0);
    }
    if !f.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits: String = f.chars().take(9).collect();
    while digits.len() < 9 {
        digits.push('0');
    }
    digits.parse().ok()
}

/// Unix seconds with an optional fraction (`1700000000.123`, nginx's `$msec`).
pub fn parse_unix(s: &str) -> Option<i128> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    if whole.is_empty() || whole.len() > 12 || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i128 = whole.parse().ok()?;
    Some(secs * 1_000_000_000 + i128::from(frac_ns(frac)?))
}

/// A duration in seconds with a fraction (`0.123`, nginx's `$request_time`).
pub fn parse_seconds(s: &str) -> Option<i128> {
    parse_unix(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_form() {
        let want = 971_211_336_000_000_000; // 2000-10-10T20:55:36Z
        assert_eq!(parse_clf("10/Oct/2000:13:55:36 -0700"), Some(want));
        assert_eq!(parse_iso("2000-10-10T13:55:36-07:00"), Some(want));
        assert_eq!(parse_iso("2000-10-10T20:55:36Z"), Some(want));
        assert_eq!(
            parse_iso("2000-10-10T20:55:36.5Z"),
            Some(want + 500_000_000)
        );
        assert_eq!(
            parse_iso("2000-10-10T20:55:36.123456Z"),
            Some(want + 123_456_000)
        );
        assert_eq!(parse_unix("971211336.25"), Some(want + 250_000_000));
        assert_eq!(parse_clf("1/Oct/2000:13:55:36 -0700"), None);
        assert_eq!(parse_clf("10/Foo/2000:13:55:36 -0700"), None);
        assert_eq!(parse_iso("2000-13-10T13:55:36Z"), None);
        assert_eq!(
            parse_clf("29/Feb/2024:00:00:00 +0000"),
            Some(1_709_164_800_000_000_000)
        );
    }
}
