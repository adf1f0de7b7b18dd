//! `-start-at`: the common instant several workers (a split attack's
//! pods, a concurrent group's members) start their schedules on, and the
//! bounds it is checked against.

use std::time::Duration;

/// `-start-at` may be at most this far ahead (a guard against a typo, e.g.
/// milliseconds given as seconds).
pub const START_AT_MAX_AHEAD: Duration = Duration::from_secs(24 * 3600);

/// `-start-at` may have passed by at most this much: the schedule then
/// still starts at that instant, and the requests already due go out at
/// once, late (counted as send lag, never hidden). Further in the past the
/// attack is refused: its schedule could not line up with the other
/// workers'.
pub const START_AT_MAX_PAST: Duration = Duration::from_secs(1);

/// Checks a `-start-at` instant against the bounds above, given the wall
/// clock now (both in ns since the Unix epoch).
pub fn check_start_at(at_unix_ns: u64, now_unix_ns: u64) -> Result<(), String> {
    let show = |d: Duration| {
        const DAY: u64 = 86_400;
        const YEAR: u64 = 365 * DAY + DAY / 4;
        match d.as_secs() {
            // Far off (a date typed wrong, seconds taken for milliseconds):
            // in years or days, not 235,875 hours.
            s if s >= 2 * YEAR => format!("{:.1} years", s as f64 / YEAR as f64),
            s if s >= 2 * DAY => format!("{:.1} days", s as f64 / DAY as f64),
            _ => crate::format_go_duration(Duration::from_millis(d.as_millis() as u64)),
        }
    };
    if at_unix_ns >= now_unix_ns {
        let ahead = Duration::from_nanos(at_unix_ns - now_unix_ns);
        if ahead > START_AT_MAX_AHEAD {
            return Err(format!(
                "-start-at is {} ahead; at most {} is allowed (is it in seconds since the Unix epoch?)",
                show(ahead),
                show(START_AT_MAX_AHEAD)
            ));
        }
    } else {
        let past = Duration::from_nanos(now_unix_ns - at_unix_ns);
        if past > START_AT_MAX_PAST {
            return Err(format!(
                "-start-at passed {} ago (at most {} late is accepted): this worker's schedule could not line up with the others'; give every worker a start instant a little in the future",
                show(past),
                show(START_AT_MAX_PAST)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_start_at;

    const S: u64 = 1_000_000_000;

    #[test]
    fn a_start_far_off_is_told_in_days_or_years() {
        let now = 1_795_000_000 * S;
        let e = check_start_at(946_684_800 * S, now).unwrap_err();
        assert!(e.starts_with("-start-at passed 26.9 years ago"), "{e}");
        let e = check_start_at(now - 3 * 86_400 * S, now).unwrap_err();
        assert!(e.starts_with("-start-at passed 3.0 days ago"), "{e}");
        let e = check_start_at(now - 90 * S, now).unwrap_err();
        assert!(e.starts_with("-start-at passed 1m30s ago"), "{e}");
        let e = check_start_at(now + 30 * 86_400 * S, now).unwrap_err();
        assert!(
            e.starts_with("-start-at is 30.0 days ahead; at most 24h0m0s"),
            "{e}"
        );
        assert!(check_start_at(now + S, now).is_ok());
    }
}
