//! The generator's self-check: did the load generator keep its schedule,
//! or did it fall behind, so that the run measures the client rather than
//! the target? One rule, for `report`, `attack` and studies alike.
//!
//! A run fell behind when a request the schedule called for was never
//! sent, or when one request in a hundred left more than
//! [`BEHIND_LAG_P99_NS`] after its intended time (a client that keeps up
//! sends within a millisecond or two).

use crate::gofmt::{go_duration, round_for_text};

/// Send lag p99 above which the generator is said to have fallen behind.
pub const BEHIND_LAG_P99_NS: u64 = 100_000_000;

/// True when a run with this send lag p99 and these unsent requests
/// measures the client.
pub fn fell_behind(send_lag_p99_ns: u64, unsent: u64) -> bool {
    unsent > 0 || send_lag_p99_ns > BEHIND_LAG_P99_NS
}

/// The report's line when the generator fell behind, or `None`: what was
/// seen and what to change.
pub fn line(send_lag_p99_ns: u64, late: u64, unsent: u64) -> Option<String> {
    if !fell_behind(send_lag_p99_ns, unsent) {
        return None;
    }
    let mut seen = vec![format!(
        "send lag p99 {}",
        go_duration(round_for_text(send_lag_p99_ns))
    )];
    if late > 0 {
        seen.push(format!("{late} late"));
    }
    if unsent > 0 {
        seen.push(format!("{unsent} never sent"));
    }
    Some(format!(
        "the generator fell behind ({}): these figures measure the client, not the target; \
         give it more connections (-max-connections, -workers) or CPUs, or lower -rate",
        seen.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_kept_its_schedule_says_nothing() {
        assert_eq!(line(2_000_000, 0, 0), None);
        assert_eq!(line(BEHIND_LAG_P99_NS, 3, 0), None);
    }

    #[test]
    fn a_lagging_or_unsent_run_says_so_and_what_to_change() {
        let l = line(581_000_000, 239, 0).unwrap();
        assert!(
            l.starts_with("the generator fell behind (send lag p99 581ms, 239 late)"),
            "{l}"
        );
        assert!(l.contains("-max-connections") && l.contains("-rate"), "{l}");
        assert!(line(1_000_000, 0, 12).unwrap().contains("12 never sent"));
    }
}
