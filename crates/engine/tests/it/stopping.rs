//! Stop conditions: request count, duration, shutdown (Ctrl-C).

use crate::common;
use common::*;

use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::time::Instant;

use loadlab_core::{ErrorKind, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, StopReason, attack};
use loadlab_testkit::proc::{PATIENCE, until, within};

/// A shutdown future (Ctrl-C) that fires once `srv` has seen `n` requests,
/// noting the instant in `fired`: mid-run by the server's own counter.
async fn once_served(srv: &Server, n: u64, fired: &OnceLock<Instant>) {
    until(&format!("the server to see {n} requests"), PATIENCE, || {
        srv.requests() >= n
    })
    .await;
    fired.set(Instant::now()).unwrap();
}

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
    let (sum, _) = within(
        "a 300 ms attack",
        PATIENCE,
        attack(cfg, one(&srv.url("/")), sink.boxed(), never()),
    )
    .await
    .unwrap();
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
    // Ctrl-C once 20 requests are in flight. The responses would take
    // 60 s: the attack ends before, so it did not wait for them (the bound
    // is PATIENCE, the 60 s itself).
    let fired = OnceLock::new();
    let (sum, _) = within(
        "an interrupted attack (its responses take 60 s)",
        PATIENCE,
        attack(
            cfg,
            one(&srv.url("/")),
            sink.boxed(),
            once_served(&srv, 20, &fired),
        ),
    )
    .await
    .unwrap();
    let waited = fired.get().unwrap().elapsed();
    assert!(
        waited >= loadlab_engine::INTERRUPT_GRACE - ms(100),
        "waited the grace period: {waited:?}"
    );
    assert!(sum.interrupted);
    assert_eq!(sum.stop_reason, StopReason::Interrupted);
    assert!(sink.finished.load(Ordering::SeqCst));
    let s = sink.samples();
    assert_eq!(s.len() as u64, sum.requests);
    // Sent at 50/s until the interrupt, as the run's own span says (its
    // first to last send), every one of them accounted for.
    let want = sum.attack_duration.as_secs_f64() * 50.0 + 1.0;
    assert!(
        s.len() >= 20 && (s.len() as f64 - want).abs() <= 2.0,
        "{} requests where the run's own span reached {want} at 50/s",
        s.len()
    );
    assert_eq!(
        s.iter().map(|s| s.seq).collect::<Vec<_>>(),
        (0..s.len() as u64).collect::<Vec<_>>()
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
    let fired = OnceLock::new();
    let (sum, _) = within(
        "an interrupted attack",
        PATIENCE,
        attack(
            cfg,
            one(&srv.url("/")),
            sink.boxed(),
            once_served(&srv, 20, &fired),
        ),
    )
    .await
    .unwrap();
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
    // clock. Ctrl-C once the first is served must end the wait at once
    // (well before the next send, 10 s in) and send nothing more.
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
    let fired = OnceLock::new();
    let (sum, _) = within(
        "an interrupted attack",
        PATIENCE,
        attack(
            cfg,
            one(&srv.url("/")),
            sink.boxed(),
            once_served(&srv, 1, &fired),
        ),
    )
    .await
    .unwrap();
    // The run's own schedule: the next send was due 10 s after the first.
    let waited = fired.get().unwrap().elapsed();
    assert!(waited < ms(10_000), "waited for the clock: {waited:?}");
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
    // Mid-run: once the server has seen the first request.
    until("the server to see a request", PATIENCE, || {
        srv.requests() >= 1
    })
    .await;
    assert!(stop.fire());
    // The attack would run 60 s: PATIENCE is that long.
    let (sum, _) = within(
        "an attack after its stop signal",
        PATIENCE,
        tokio::task::spawn_blocking(move || run.join().unwrap()),
    )
    .await
    .unwrap()
    .unwrap();
    assert!(sum.interrupted);
    assert_eq!(sum.stop_reason, StopReason::Interrupted);
    assert!(sum.requests >= 1);
    assert_eq!(sink.samples().len() as u64, sum.requests);
}
