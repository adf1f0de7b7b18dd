//! The stages' tests: `stages` and `--stage` become ramping-vus as in k6.

use super::stages::*;
use crate::config::{Options, Overrides};
use serde_json::json;
use std::time::Duration;

#[test]
fn stages_become_ramping_vus() {
    let o = Options::resolve(
        &json!({"stages": [{"duration": "1s", "target": 8}, {"duration": "2s", "target": 8}]}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(o.scenarios.len(), 1);
    assert_eq!(o.scenarios[0].executor.max_vus(), 8);
    assert_eq!(o.scenarios[0].executor.duration(), Duration::from_secs(3));
}

#[test]
fn ramp_interpolates() {
    let st = [Stage {
        duration: Duration::from_secs(2),
        target: 10.0,
    }];
    assert_eq!(ramp_at(0.0, &st, Duration::from_secs(1)), 5.0);
    assert_eq!(ramp_at(0.0, &st, Duration::from_secs(5)), 10.0);
}

/// As k6: a VU joins when a climbing ramp reaches its number and
/// leaves when a falling one reaches the number below (`-s 2s:4 -s
/// 2s:0`: joins at 0.5, 1, 1.5, 2 s; leaves at 2.5, 3, 3.5, 4 s).
#[test]
fn ramp_vus_floor_while_climbing_and_ceil_while_falling() {
    let s = |secs, target| Stage {
        duration: Duration::from_secs(secs),
        target,
    };
    let st = [s(2, 4.0), s(2, 0.0)];
    let at = |ms| ramp_vus_at(0.0, &st, Duration::from_millis(ms));
    assert_eq!(at(0), 0);
    assert_eq!(at(499), 0);
    assert_eq!(at(500), 1);
    assert_eq!(at(1_999), 3);
    assert_eq!(at(2_000), 4);
    assert_eq!(at(2_499), 4);
    assert_eq!(at(2_500), 3);
    assert_eq!(at(3_999), 1);
    assert_eq!(at(4_000), 0);
    // startVUs 0, 2 s up to 1: the VU joins at 2 s, not at 1 s.
    let one = [s(2, 1.0), s(1, 1.0)];
    assert_eq!(ramp_vus_at(0.0, &one, Duration::from_millis(1_999)), 0);
    assert_eq!(ramp_vus_at(0.0, &one, Duration::from_millis(2_000)), 1);
}

#[test]
fn a_flat_stage_says_where_it_ends() {
    let s = |secs, target| Stage {
        duration: Duration::from_secs(secs),
        target,
    };
    let st = [s(2, 10.0), s(3, 10.0), s(1, 0.0)];
    let at = |secs| ramp_flat_until(0.0, &st, Duration::from_millis(secs));
    assert_eq!(at(1_000), None, "ramping up");
    assert_eq!(at(2_000), Some(Duration::from_secs(5)), "the hold");
    assert_eq!(at(4_999), Some(Duration::from_secs(5)));
    assert_eq!(at(5_000), None, "ramping down");
    assert_eq!(at(6_000), Some(Duration::MAX), "after the last stage");
    // Starting at the first stage's level, the ramp is flat at once.
    assert_eq!(
        ramp_flat_until(10.0, &st, Duration::ZERO),
        Some(Duration::from_secs(2))
    );
}

#[test]
fn stage_flags_read_as_k6_reads_them() {
    assert_eq!(
        stage_flag("30s:10").unwrap(),
        json!({"duration": "30s", "target": 10})
    );
    assert_eq!(
        stage_flag("-1s:2").unwrap(),
        json!({"duration": "-1s", "target": 2})
    );
    assert_eq!(stage_flag("1m").unwrap(), json!({"duration": "1m"}));
    assert!(stage_flag(":2").unwrap_err().contains("no duration"));
    assert!(
        stage_flag("1s:1.5")
            .unwrap_err()
            .contains("not a whole number")
    );
    assert!(stage_flag("soon:1").unwrap_err().contains("not a duration"));
}
