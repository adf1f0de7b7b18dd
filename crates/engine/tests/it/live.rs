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
        duration: Some(ms(600)),
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
    tokio::time::sleep(ms(300)).await;
    let mid = live.sent();
    assert!((20..=100).contains(&mid), "sent {mid} after 0.3 s at 200/s");
    let (sum, _) = run.await.unwrap().unwrap();
    assert_eq!(sum.requests, 120);
    assert_eq!(live.sent(), 120);
    assert_eq!(live.completed(), 120);
    assert_eq!(live.successes(), 120);
    assert_eq!(live.in_flight(), 0);
    assert_eq!(sum.successes, 120);

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
    assert_eq!(live.completed.load(Ordering::Relaxed), 127);
}
