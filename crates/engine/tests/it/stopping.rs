//! Stop conditions: request count, duration, shutdown (Ctrl-C).

use crate::common;
use common::*;

use std::sync::atomic::Ordering;
use std::time::Instant;

use loadlab_core::{ErrorKind, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, StopReason, attack};

#[tokio::test]
async fn max_requests_stops_exactly() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(2000)),
        max_requests: Some(37),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 37);
    assert_eq!(sum.stop_reason, StopReason::MaxRequests);
    let s = sink.samples();
    assert_eq!(
        s.iter().map(|s| s.seq).collect::<Vec<_>>(),
        (0..37).collect::<Vec<_>>()
    );
    assert_eq!(srv.requests(), 37);
}

#[tokio::test]
async fn duration_stops_an_unlimited_attack() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::UNLIMITED),
        max_workers: Some(2),
        duration: Some(ms(300)),
        ..Default::default()
    };
    let t = Instant::now();
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert!(t.elapsed() < ms(3000), "took {:?}", t.elapsed());
    assert!(sum.requests > 10);
    assert_eq!(sum.stop_reason, StopReason::Duration);
    assert_eq!(sink.samples().len() as u64, sum.requests);
    assert!(sink.samples().iter().all(|s| s.sent_ns < 300_000_000));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_mid_run_returns_promptly_and_cancels_in_flight() {
    // Every response takes 60 s: in-flight requests can only end as canceled.
    let srv = serve(handler(|_| async {
        tokio::time::sleep(ms(60_000)).await;
        ok("late")
    }))
    .await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(50)),
        duration: Some(ms(60_000)),
        ..Default::default()
    };
    let t = Instant::now();
    let (sum, _) = attack(
        cfg,
        one(&srv.url("/")),
        sink.boxed(),
        tokio::time::sleep(ms(400)),
    )
    .await
    .unwrap();
    let took = t.elapsed();
    assert!(took < ms(5000), "took {took:?}");
    assert!(
        took >= ms(400) + loadlab_engine::INTERRUPT_GRACE - ms(100),
        "waited the grace period: {took:?}"
    );
    assert!(sum.interrupted);
    assert_eq!(sum.stop_reason, StopReason::Interrupted);
    assert!(sink.finished.load(Ordering::SeqCst));
    let s = sink.samples();
    assert_eq!(s.len() as u64, sum.requests);
    assert!(
        (15..=25).contains(&s.len()),
        "{} requests in 0.4 s at 50/s",
        s.len()
    );
    assert!(
        s.iter()
            .all(|s| s.error == ErrorKind::Canceled && s.status == 0)
    );
    assert_eq!(sum.canceled, sum.requests);
}

#[tokio::test]
async fn shutdown_with_a_fast_server_loses_nothing() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        ..Default::default()
    };
    let t = Instant::now();
    let (sum, _) = attack(
        cfg,
        one(&srv.url("/")),
        sink.boxed(),
        tokio::time::sleep(ms(300)),
    )
    .await
    .unwrap();
    assert!(t.elapsed() < ms(2000));
    assert!(sum.interrupted);
    let s = sink.samples();
    assert!(
        s.len() >= 20 && s.iter().all(|s| s.status == 200),
        "{}",
        s.len()
    );
    assert_eq!(sum.canceled, 0);
}

#[tokio::test]
async fn shutdown_releases_workers_waiting_for_a_far_send_time() {
    // One request every 10 s: after the first, every worker waits for the
    // clock. Ctrl-C at 300 ms must end the wait at once and send nothing more.
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate {
            freq: 1,
            per: ms(10_000),
        }),
        duration: Some(ms(60_000)),
        ..Default::default()
    };
    let t = Instant::now();
    let (sum, _) = attack(
        cfg,
        one(&srv.url("/")),
        sink.boxed(),
        tokio::time::sleep(ms(300)),
    )
    .await
    .unwrap();
    assert!(t.elapsed() < ms(3000), "took {:?}", t.elapsed());
    assert!(sum.interrupted);
    assert_eq!(sum.requests, 1);
    assert_eq!(srv.requests(), 1);
    assert_eq!(sink.samples().len(), 1);
    assert_eq!(sum.canceled, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_signal_fired_on_another_thread_interrupts_a_blocking_attack() {
    // The idiom of the crate docs: share a StopSignal, pass its wait() as the
    // shutdown future, fire it from anywhere.
    let srv = serve(hello()).await;
    let url = srv.url("/");
    let sink = Collect::default();
    let boxed = sink.boxed();
    let stop = std::sync::Arc::new(loadlab_engine::StopSignal::new());
    let waiter = stop.clone();
    let t = Instant::now();
    let run = std::thread::spawn(move || {
        let cfg = AttackConfig {
            pacer: PacerSpec::Constant(Rate::per_second(50)),
            duration: Some(ms(60_000)),
            ..Default::default()
        };
        loadlab_engine::run_blocking(
            cfg,
            one(&url),
            boxed,
            async move { waiter.wait().await },
            loadlab_engine::LiveStats::new(),
        )
    });
    tokio::time::sleep(ms(300)).await;
    assert!(stop.fire());
    let (sum, _) = tokio::task::spawn_blocking(move || run.join().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert!(t.elapsed() < ms(5000), "took {:?}", t.elapsed());
    assert!(sum.interrupted);
    assert_eq!(sum.stop_reason, StopReason::Interrupted);
    assert!(sum.requests >= 1);
    assert_eq!(sink.samples().len() as u64, sum.requests);
}
