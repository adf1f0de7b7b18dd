//! `-segment=i/n` and `-start-at`, for real: n attacks run side by side
//! against one server, each its share, and together they send exactly the
//! single-machine schedule (same sequence numbers, same intended times, no
//! duplicates, no gaps).

use crate::common;
use common::*;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loadlab_core::segment::scheduled_total;
use loadlab_core::{PacerSpec, Rate, Sample, ScheduleSegment};
use loadlab_engine::{AttackConfig, EngineError, attack};

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Runs the n segments of one schedule at once, with a common start 300 ms
/// ahead; returns each worker's samples, header info and the requests its
/// run says it could not send (all workers busy: a worker that began late
/// on a loaded machine).
async fn run_split(
    url: &str,
    pacer: PacerSpec,
    duration: Option<Duration>,
    n: u64,
) -> (u64, Vec<(Vec<Sample>, loadlab_core::AttackInfo, u64)>) {
    let start_at = unix_now() + 300_000_000;
    let mut runs = Vec::new();
    for i in 0..n {
        let cfg = AttackConfig {
            pacer: pacer.clone(),
            duration,
            segment: ScheduleSegment::new(i, n).unwrap(),
            start_at_unix_ns: Some(start_at),
            ..Default::default()
        };
        let sink = Collect::default();
        let url = url.to_string();
        let handle = tokio::spawn({
            let sink = sink.clone();
            async move { attack(cfg, one(&url), sink.boxed(), never()).await }
        });
        runs.push((handle, sink));
    }
    let mut out = Vec::new();
    for (h, sink) in runs {
        let (sum, _) = h.await.unwrap().unwrap();
        assert!(!sum.interrupted);
        let info = sink.info.lock().unwrap().clone().unwrap();
        out.push((sink.samples(), info, sum.unsent));
    }
    (start_at, out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn split_runs_send_exactly_the_whole_schedule() {
    let srv = serve(hello()).await;
    let cases = [
        (
            "constant",
            PacerSpec::Constant(Rate::per_second(600)),
            Some(ms(500)),
            3,
        ),
        (
            "ramp",
            PacerSpec::linear(200.0, 1_200.0, ms(400)).unwrap(),
            Some(ms(500)),
            5,
        ),
        (
            "pace",
            PacerSpec::parse_plan("200ms@300,200ms@300->900,100ms@0,100ms@500").unwrap(),
            None,
            7,
        ),
        (
            "sine",
            PacerSpec::sine(600.0, 400.0, ms(250)).unwrap(),
            Some(ms(500)),
            3,
        ),
    ];
    for (name, pacer, duration, n) in cases {
        let p = pacer.build();
        let total = scheduled_total(p.as_ref(), duration, None).unwrap();
        assert!(total > 100, "{name}: {total}");
        let (start_at, runs) = run_split(&srv.url("/"), pacer.clone(), duration, n).await;
        let mut seen = vec![None; total as usize];
        let mut unsent = 0;
        for (i, (samples, info, u)) in runs.iter().enumerate() {
            let seg = ScheduleSegment::new(i as u64, n).unwrap();
            let w = info.worker.as_ref().expect("a worker record");
            assert_eq!((w.index, w.count), (i as u64, n));
            assert_eq!(w.start_at_unix_ns, start_at);
            assert_eq!(
                info.start_unix_ns, start_at,
                "{name}: the schedule starts at -start-at"
            );
            assert!(
                w.began_unix_ns >= start_at,
                "{name}: began before -start-at"
            );
            assert_eq!(w.scheduled_total, Some(total));
            assert_eq!(w.scheduled(), Some(seg.share(total)));
            assert!(!w.host.is_empty());
            assert_eq!(samples.len() as u64 + u, seg.share(total), "{name} {seg}");
            unsent += u;
            for s in samples {
                assert!(
                    seg.contains(s.seq),
                    "{name} {seg}: request {} is not mine",
                    s.seq
                );
                assert_eq!(s.status, 200);
                let slot = &mut seen[s.seq as usize];
                assert!(slot.is_none(), "{name}: request {} sent twice", s.seq);
                *slot = Some(s.intended_ns);
            }
        }
        // Every request sent once, at its time in the whole schedule; the
        // rest are those the runs said they could not send.
        for (k, got) in seen.iter().enumerate() {
            let want = p.send_at(k as u64).unwrap().as_nanos() as u64;
            assert!(
                got.is_none_or(|g| g == want),
                "{name} n={n}: request {k} at {got:?}, not {want}"
            );
        }
        let missing = seen.iter().filter(|g| g.is_none()).count() as u64;
        assert_eq!(missing, unsent, "{name} n={n}: requests not sent");
    }
}

#[test]
fn worker_limits_are_split_between_segments() {
    let cfg = |i, n| {
        AttackConfig {
            workers: 10,
            max_workers: Some(10),
            max_connections: Some(3),
            segment: ScheduleSegment::new(i, n).unwrap(),
            ..Default::default()
        }
        .for_segment()
    };
    let w: Vec<u64> = (0..4).map(|i| cfg(i, 4).workers).collect();
    assert_eq!(w, [3, 3, 2, 2]);
    let m: Vec<Option<u64>> = (0..4).map(|i| cfg(i, 4).max_workers).collect();
    assert_eq!(m, [Some(3), Some(3), Some(2), Some(2)]);
    // Never below one each.
    let c: Vec<Option<usize>> = (0..4).map(|i| cfg(i, 4).max_connections).collect();
    assert_eq!(c, [Some(1), Some(1), Some(1), Some(1)]);
    assert_eq!(cfg(0, 1).workers, 10);
}

#[tokio::test]
async fn start_at_bounds_and_interrupt() {
    let srv = serve(hello()).await;
    let base = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        duration: Some(ms(100)),
        ..Default::default()
    };
    // Long past: refused, nothing sent.
    let cfg = AttackConfig {
        start_at_unix_ns: Some(unix_now() - 5_000_000_000),
        ..base.clone()
    };
    let e = attack(cfg, one(&srv.url("/")), Collect::default().boxed(), never())
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(&e, EngineError::Config(m) if m.contains("-start-at passed")),
        "{e}"
    );
    // Too far ahead: refused.
    let cfg = AttackConfig {
        start_at_unix_ns: Some(unix_now() + 30 * 24 * 3600 * 1_000_000_000),
        ..base.clone()
    };
    assert!(
        attack(cfg, one(&srv.url("/")), Collect::default().boxed(), never())
            .await
            .is_err()
    );
    // Just past (within the tolerance): runs, anchored at that instant.
    let at = unix_now() - 200_000_000;
    let cfg = AttackConfig {
        start_at_unix_ns: Some(at),
        ..base.clone()
    };
    let sink = Collect::default();
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.start_unix_ns, at);
    // 10 due in the first 100 ms, all already past: they went out at once, late.
    assert_eq!(sum.requests + sum.unsent, 10);
    // Interrupted while waiting (Ctrl-C already pressed when the wait
    // begins): nothing is sent, and the attack ends without waiting for
    // its start instant, a minute ahead.
    let at = unix_now() + 60_000_000_000;
    let cfg = AttackConfig {
        start_at_unix_ns: Some(at),
        ..base
    };
    let (sum, _) = attack(
        cfg,
        one(&srv.url("/")),
        Collect::default().boxed(),
        std::future::ready(()),
    )
    .await
    .unwrap();
    assert!(sum.interrupted);
    assert_eq!(sum.requests, 0);
    assert!(unix_now() < at, "waited for the start instant");
}

/// With -start-at the paced workers are made before the instant and wait
/// for their turns; unpaced ones, which have no turns, are started at the
/// instant: neither sends before it.
#[tokio::test]
async fn nothing_is_sent_before_the_start_instant() {
    let srv = serve(hello()).await;
    for pacer in [
        PacerSpec::Constant(Rate::per_second(1000)),
        PacerSpec::Constant(Rate::per_second(0)),
    ] {
        let at = unix_now() + 300_000_000;
        let cfg = AttackConfig {
            pacer: pacer.clone(),
            max_requests: Some(20),
            max_workers: Some(4),
            start_at_unix_ns: Some(at),
            ..Default::default()
        };
        let sink = Collect::default();
        let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
            .await
            .unwrap();
        assert_eq!(sum.requests, 20, "{pacer:?}");
        assert!(
            unix_now() >= at,
            "{pacer:?}: ended before its start instant"
        );
        let seen = srv.stats.seen.lock().unwrap().len();
        assert!(seen >= 20, "{pacer:?}: the server saw {seen}");
        srv.stats.seen.lock().unwrap().clear();
    }
}
