//! -connect-to: requests for host:port go to other addresses, round-robin.

use crate::common;
use common::*;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

#[tokio::test]
async fn connect_to_round_robins_over_destinations() {
    let a = serve(hello()).await;
    let b = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(10),
        keepalive: false,
        connect_to: vec![
            ("API.example.test:80".into(), a.addr.to_string()),
            ("api.example.test:80".into(), b.addr.to_string()),
        ],
        ..Default::default()
    };
    attack(cfg, one("http://api.example.test/x"), sink.boxed(), never())
        .await
        .unwrap();
    assert!(sink.samples().iter().all(|s| s.status == 200));
    assert_eq!((a.requests(), b.requests()), (5, 5));
    let seen = a.stats.seen.lock().unwrap();
    assert!(seen.iter().all(|s| {
        s.headers
            .iter()
            .any(|(k, v)| k == "host" && v == "api.example.test")
    }));
}

#[tokio::test]
async fn local_address_is_bound() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(3),
        laddr: Some("127.0.0.1".parse().unwrap()),
        ..Default::default()
    };
    attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert!(sink.samples().iter().all(|s| s.status == 200));
    // An address this host does not have cannot be bound: recorded, not fatal.
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(2),
        laddr: Some("192.0.2.1".parse().unwrap()),
        ..Default::default()
    };
    attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert!(
        s.iter()
            .all(|s| s.status == 0 && s.error == loadlab_core::ErrorKind::AddressUnavailable),
        "{s:?}"
    );
}
