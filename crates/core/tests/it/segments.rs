//! `-segment=i/n`: the union of the n shares is exactly the single-machine
//! schedule (same intended times, no duplicates, no gaps), and each share is
//! itself smooth. Pure schedule math, no clock: the engine's claims go
//! through `ScheduleSegment::send_at`, which is what is tested here.

use std::time::Duration;

use loadlab_core::segment::scheduled_total;
use loadlab_core::{PacerSpec, Rate, ScheduleSegment};

fn specs() -> Vec<(&'static str, PacerSpec, Option<Duration>)> {
    vec![
        (
            "constant",
            PacerSpec::Constant(Rate::per_second(10_000)),
            Some(Duration::from_secs(1)),
        ),
        (
            "constant 7/13ms",
            PacerSpec::Constant(Rate::parse("7/13ms").unwrap()),
            Some(Duration::from_secs(3)),
        ),
        (
            "ramp",
            PacerSpec::linear(100.0, 5_000.0, Duration::from_secs(2)).unwrap(),
            Some(Duration::from_secs(3)),
        ),
        (
            "pace",
            PacerSpec::parse_plan("1s@300,2s@300->3000,1s@0,1s@777").unwrap(),
            None,
        ),
        (
            "sine",
            PacerSpec::sine(2_000.0, 1_500.0, Duration::from_millis(700)).unwrap(),
            Some(Duration::from_secs(2)),
        ),
    ]
}

/// The whole schedule: every request due before `duration` (or until the plan ends).
fn whole(spec: &PacerSpec, duration: Option<Duration>) -> Vec<Duration> {
    let p = spec.build();
    let mut out = Vec::new();
    for k in 0.. {
        match p.send_at(k) {
            Some(t) if duration.is_none_or(|d| t < d) => out.push(t),
            _ => break,
        }
    }
    out
}

/// What worker i of n sends, as the engine claims it: its j-th request is
/// global request `j·n + i`, until the duration or the plan ends.
fn share(spec: &PacerSpec, seg: ScheduleSegment, d: Option<Duration>) -> Vec<(u64, Duration)> {
    let p = spec.build();
    let mut out = Vec::new();
    for j in 0.. {
        match seg.send_at(p.as_ref(), j) {
            Some((k, t)) if d.is_none_or(|d| t < d) => out.push((k, t)),
            _ => break,
        }
    }
    out
}

#[test]
fn union_of_segments_is_the_whole_schedule() {
    for (name, spec, d) in specs() {
        let whole = whole(&spec, d);
        assert!(whole.len() > 1_000, "{name}: {}", whole.len());
        let total = scheduled_total(spec.build().as_ref(), d, None);
        assert_eq!(total, Some(whole.len() as u64), "{name}");
        for n in [1u64, 2, 3, 4, 5, 7] {
            let mut union: Vec<Option<Duration>> = vec![None; whole.len()];
            for i in 0..n {
                let seg = ScheduleSegment::new(i, n).unwrap();
                let mine = share(&spec, seg, d);
                // The segment knows its count in advance (for the results header).
                assert_eq!(
                    mine.len() as u64,
                    seg.share(whole.len() as u64),
                    "{name} {seg}"
                );
                let mut prev = Duration::ZERO;
                for (k, t) in mine {
                    assert!(seg.contains(k));
                    assert!(t >= prev, "{name} {seg}: not monotonic at {k}");
                    prev = t;
                    let slot = &mut union[k as usize];
                    assert!(slot.is_none(), "{name} {seg}: request {k} twice");
                    *slot = Some(t);
                }
            }
            for (k, (got, want)) in union.iter().zip(&whole).enumerate() {
                assert_eq!(*got, Some(*want), "{name} n={n}: request {k}");
            }
        }
    }
}

#[test]
fn each_share_is_smooth() {
    // Constant 10,000/s split 7 ways: every worker sends one request every
    // 700 µs, exactly, offset by i·100 µs.
    let spec = PacerSpec::Constant(Rate::per_second(10_000));
    for i in 0..7 {
        let seg = ScheduleSegment::new(i, 7).unwrap();
        let mine = share(&spec, seg, Some(Duration::from_secs(1)));
        assert_eq!(mine[0].1, Duration::from_micros(100 * i));
        for w in mine.windows(2) {
            assert_eq!(w[1].1 - w[0].1, Duration::from_micros(700));
        }
    }
    // A ramp split 3 ways keeps the ramp's shape: each share's rate over a
    // window is a third of the whole's (within one request).
    let spec = PacerSpec::linear(300.0, 3_000.0, Duration::from_secs(2)).unwrap();
    let w = whole(&spec, Some(Duration::from_secs(2)));
    for i in 0..3 {
        let mine = share(
            &spec,
            ScheduleSegment::new(i, 3).unwrap(),
            Some(Duration::from_secs(2)),
        );
        for win in 0..20u64 {
            let (a, b) = (
                Duration::from_millis(win * 100),
                Duration::from_millis(win * 100 + 100),
            );
            let all = w.iter().filter(|t| **t >= a && **t < b).count() as f64;
            let part = mine.iter().filter(|(_, t)| *t >= a && *t < b).count() as f64;
            assert!(
                (part - all / 3.0).abs() <= 1.0,
                "window {win}: {part} vs {all}/3"
            );
        }
    }
}
