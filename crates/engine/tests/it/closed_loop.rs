//! Closed model (ab, wrk): fixed concurrency, next request as soon as the previous completes.

use crate::common;
use common::*;

use std::sync::atomic::Ordering;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, EngineError, attack};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_more_than_c_in_flight() {
    let srv = serve(handler(|_| async {
        tokio::time::sleep(ms(3)).await;
        ok("ok")
    }))
    .await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        closed_loop: true,
        max_workers: Some(4),
        max_requests: Some(200),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 200);
    let max = srv.stats.max_in_flight.load(Ordering::SeqCst);
    assert!((1..=4).contains(&max), "max in flight {max}");
    assert!(max >= 2, "concurrency was used: {max}");
    let s = sink.samples();
    assert_eq!(s.len(), 200);
    assert!(
        s.iter()
            .all(|s| s.intended_ns == s.sent_ns && s.status == 200)
    );
    assert!(
        srv.accepted() <= 4,
        "connections are reused: {}",
        srv.accepted()
    );
}

#[tokio::test]
async fn unlimited_rate_needs_a_cap() {
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::UNLIMITED),
        ..Default::default()
    };
    let sink = Collect::default();
    let err = attack(cfg, one("http://127.0.0.1:9/"), sink.boxed(), never())
        .await
        .map(|(sum, _)| sum)
        .unwrap_err();
    assert!(matches!(err, EngineError::Config(_)), "{err}");
    assert!(err.to_string().contains("-max-workers"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unlimited_rate_with_max_connections_caps_concurrency() {
    let srv = serve(handler(|_| async {
        tokio::time::sleep(ms(2)).await;
        ok("ok")
    }))
    .await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::UNLIMITED),
        max_connections: Some(3),
        max_requests: Some(100),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 100);
    assert!(srv.stats.max_in_flight.load(Ordering::SeqCst) <= 3);
    assert!(srv.accepted() <= 3);
}

#[test]
fn bad_configs_are_rejected_before_running() {
    let bad = [
        AttackConfig {
            timeout: std::time::Duration::ZERO,
            ..Default::default()
        },
        AttackConfig {
            closed_loop: true,
            ..Default::default()
        },
        AttackConfig {
            max_workers: Some(0),
            ..Default::default()
        },
        AttackConfig {
            workers: 0,
            ..Default::default()
        },
        AttackConfig {
            tls: loadlab_engine::TlsOptions {
                cert: Some("c.pem".into()),
                ..Default::default()
            },
            ..Default::default()
        },
    ];
    for c in bad {
        assert!(matches!(c.validate(), Err(EngineError::Config(_))), "{c:?}");
    }
    assert!(AttackConfig::default().validate().is_ok());
}
