//! `--execution-segment` with `--execution-segment-sequence`: the parts of
//! every executor over the segments of a sequence add up to the whole test
//! (equal and unequal segments, odd counts), and an arrival-rate part keeps
//! the whole test's intended times. Pure schedule math on the options the
//! run uses; `crates/cli/tests/it/k6.rs` runs real instances.

use std::time::Duration;

use loadlab_script::config::{Executor, Options, Overrides, Scenario};
use loadlab_script::executor::schedule::{arrival_count, ramp_vus, segment_arrival};
use loadlab_script::segment::Tuple;
use serde_json::json;

fn script() -> serde_json::Value {
    json!({"scenarios": {
        "car": {"executor": "constant-arrival-rate", "rate": 37, "timeUnit": "1s",
                "duration": "3s", "preAllocatedVUs": 5, "maxVUs": 11},
        "rar": {"executor": "ramping-arrival-rate", "startRate": 5, "timeUnit": "1s",
                "preAllocatedVUs": 13,
                "stages": [{"duration": "2s", "target": 50}, {"duration": "1s", "target": 50},
                           {"duration": "2s", "target": 0}]},
        "cv": {"executor": "constant-vus", "vus": 23, "duration": "1s"},
        "rv": {"executor": "ramping-vus", "startVUs": 3,
               "stages": [{"duration": "1s", "target": 29}, {"duration": "1s", "target": 7}]},
        "si": {"executor": "shared-iterations", "vus": 7, "iterations": 101},
        "pv": {"executor": "per-vu-iterations", "vus": 9, "iterations": 4},
    }})
}

fn resolve(seg: Option<Tuple>) -> Options {
    Options::resolve(
        &script(),
        &Overrides {
            segment: seg,
            ..Default::default()
        },
    )
    .unwrap()
}

fn arrivals(sc: &Scenario) -> Vec<(u64, Duration)> {
    (0..).map_while(|j| segment_arrival(sc, j)).collect()
}

fn vus(ex: &Executor) -> u64 {
    ex.max_vus()
}

fn iterations(ex: &Executor) -> u64 {
    match ex {
        Executor::SharedIterations { iterations, .. } => *iterations,
        Executor::PerVuIterations {
            vus, iterations, ..
        } => vus * iterations,
        _ => 0,
    }
}

/// Every segment of `seq`, resolved.
fn parts(seq: &str) -> Vec<Options> {
    let b: Vec<&str> = seq.split(',').collect();
    b.windows(2)
        .map(|w| {
            let seg = format!("{}:{}", w[0], w[1]);
            resolve(Some(Tuple::parse(Some(&seg), Some(seq)).unwrap()))
        })
        .collect()
}

fn check_union(seq: &str) {
    let whole = resolve(None);
    let parts = parts(seq);
    for (si, sc) in whole.scenarios.iter().enumerate() {
        let of = |o: &Options| o.scenarios[si].clone();
        match &sc.executor {
            Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. } => {
                let want = arrivals(sc);
                assert_eq!(
                    arrival_count(&sc.executor, 1_000_000),
                    Some(want.len() as u64)
                );
                let mut got: Vec<(u64, Duration)> =
                    parts.iter().flat_map(|p| arrivals(&of(p))).collect();
                got.sort();
                // The same arrivals, each once, at the whole test's times.
                assert_eq!(got, want, "{seq}: {}", sc.name);
                let v: u64 = parts.iter().map(|p| vus(&of(p).executor)).sum();
                assert_eq!(v, vus(&sc.executor), "{seq}: {} VUs", sc.name);
                // A part with arrivals has VUs to run them.
                for p in &parts {
                    let s = of(p);
                    if !arrivals(&s).is_empty() {
                        assert!(vus(&s.executor) > 0, "{seq}: {}", sc.name);
                    }
                }
            }
            Executor::RampingVus { .. } => {
                // Every 10 ms of the ramp, the parts' VUs add up to the whole's.
                for t in (0..=2100).step_by(10) {
                    let t = Duration::from_millis(t);
                    let sum: u64 = parts.iter().map(|p| ramp_vus(&of(p), t)).sum();
                    assert_eq!(sum, ramp_vus(sc, t), "{seq}: ramp at {t:?}");
                    for p in &parts {
                        assert!(ramp_vus(&of(p), t) <= vus(&of(p).executor));
                    }
                }
                let v: u64 = parts.iter().map(|p| vus(&of(p).executor)).sum();
                assert!(v >= vus(&sc.executor), "{seq}");
            }
            _ => {
                let v: u64 = parts.iter().map(|p| vus(&of(p).executor)).sum();
                assert_eq!(v, vus(&sc.executor), "{seq}: {} VUs", sc.name);
                let it: u64 = parts.iter().map(|p| iterations(&of(p).executor)).sum();
                assert_eq!(
                    it,
                    iterations(&sc.executor),
                    "{seq}: {} iterations",
                    sc.name
                );
                for p in &parts {
                    let e = of(p).executor;
                    if iterations(&e) > 0 {
                        assert!(vus(&e) > 0, "{seq}: {} has work but no VU", sc.name);
                    }
                }
            }
        }
    }
}

#[test]
fn equal_segments_odd_and_even_add_up() {
    check_union("0,1/2,1");
    check_union("0,1/3,2/3,1");
    check_union("0,1/4,1/2,3/4,1");
    check_union("0,1/5,2/5,3/5,4/5,1");
    check_union("0,1/7,2/7,3/7,4/7,5/7,6/7,1");
}

#[test]
fn unequal_segments_add_up() {
    check_union("0,1/3,1/2,1");
    check_union("0,0.1,0.35,0.4,1");
    check_union("0,10%,70%,1");
    check_union("0,1/6,1/3,2/3,1");
}

/// Unequal shares are in proportion: with 0,1/4,1 the first instance runs
/// about a quarter of the arrivals, the second three quarters, and each
/// part is spread over the whole test (not one block).
#[test]
fn unequal_shares_are_proportional_and_spread() {
    let p = parts("0,1/4,1");
    let car = |o: &Options| arrivals(&o.scenarios[0]);
    assert_eq!(p[0].scenarios[0].name, "car");
    let (a, b) = (car(&p[0]), car(&p[1]));
    assert_eq!(a.len() + b.len(), 111);
    // maxVUs 11 → 3 and 8: arrivals follow the VUs (k6's rule).
    assert_eq!(vus(&p[0].scenarios[0].executor), 3);
    assert_eq!(vus(&p[1].scenarios[0].executor), 8);
    assert!((29..=32).contains(&a.len()), "{}", a.len());
    // The small part's arrivals are spread: no gap above 4 arrivals' time.
    let gap = a.windows(2).map(|w| w[1].0 - w[0].0).max().unwrap();
    assert!(gap <= 4, "{gap}");
    assert!(a.last().unwrap().1 > Duration::from_millis(2800));
}

/// A segment without a sequence is k6's `0,FROM,TO,1`; the whole test is
/// `0:1`; a segment must be one of the sequence's.
#[test]
fn default_sequence_is_k6s() {
    let t = Tuple::parse(Some("1/4:1/2"), None).unwrap();
    assert_eq!(t.sequence_text(), "0,1/4,1/2,1");
    assert_eq!(t.index, 1);
    let t = Tuple::parse(Some("1/2"), None).unwrap();
    assert_eq!(t.to_string(), "0:1/2");
    assert!(Tuple::parse(Some("0:1"), None).unwrap().is_whole());
    assert!(Tuple::parse(Some("1/4:1/2"), Some("0,1/3,1")).is_err());
}
