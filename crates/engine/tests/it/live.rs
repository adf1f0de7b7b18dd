//! LiveStats: the counters the progress view reads while the attack runs.

use crate::common;
use common::*;

use std::sync::atomic::Ordering;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, LiveStats, attack_with_live};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counters_move_during_the_attack_and_settle_after() {
    let srv = serve(hello()).await;
    let live = LiveStats::new();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        duration: Some(ms(2000)),
        ..Default::default()
    };
    let sink = Collect::default();
    let run = tokio::spawn(attack_with_live(
        cfg,
        one(&srv.url("/")),
        sink.boxed(),
        never(),
        live.clone(),
    ));
    // Watch the counters until they show the attack under way: some sent,
    // not all, and the attack not over.
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mid = loop {
        let sent = live.sent();
        if sent >= 20 || run.is_finished() {
            break sent;
        }
        assert!(std::time::Instant::now() < give_up, "nothing sent");
        tokio::time::sleep(ms(5)).await;
    };
    assert!(
        (20..400).contains(&mid) && !run.is_finished(),
        "sent {mid} of 400 mid-attack"
    );
    let (sum, _) = run.await.unwrap().unwrap();
    assert_eq!(sum.requests, 400);
    assert_eq!(live.sent(), 400);
    assert_eq!(live.completed(), 400);
    assert_eq!(live.successes(), 400);
    assert_eq!(live.in_flight(), 0);
    assert_eq!(sum.successes, 400);

    // A second attack sharing the same LiveStats reports only its own requests.
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(7),
        ..Default::default()
    };
    let (sum, _) = attack_with_live(
        cfg,
        one(&srv.url("/")),
        Collect::default().boxed(),
        never(),
        live.clone(),
    )
    .await
    .unwrap();
    assert_eq!(sum.requests, 7);
    assert_eq!(live.completed.load(Ordering::Relaxed), 407);
}
