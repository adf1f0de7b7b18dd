//! Connection reuse.

use crate::common;
use common::*;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

fn cfg(keepalive: bool) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::UNLIMITED),
        max_workers: Some(2),
        max_requests: Some(100),
        keepalive,
        ..Default::default()
    }
}

#[tokio::test]
async fn keepalive_reuses_few_connections() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let (sum, _) = attack(cfg(true), one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 100);
    assert!(srv.accepted() <= 2, "accepted {}", srv.accepted());
    let s = sink.samples();
    assert!(s.iter().all(|s| s.status == 200 && s.bytes_in == 5));
    // Only the requests that dialled carry a connect time.
    let dialled = s.iter().filter(|s| s.connect_ns > 0).count();
    assert!((1..=2).contains(&dialled), "{dialled}");
}

#[tokio::test]
async fn keepalive_off_dials_per_request() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let (sum, _) = attack(cfg(false), one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 100);
    assert_eq!(srv.accepted(), 100);
    let seen = srv.stats.seen.lock().unwrap();
    assert!(seen.iter().all(|s| {
        s.headers
            .iter()
            .any(|(k, v)| k == "connection" && v == "close")
    }));
    assert!(
        sink.samples()
            .iter()
            .all(|s| s.status == 200 && s.connect_ns > 0)
    );
}

#[tokio::test]
async fn server_closing_idle_connections_is_not_an_error() {
    // The server answers with `Connection: close` every other time; the
    // engine must dial again rather than reuse a closed connection.
    let n = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let srv = serve(handler(move |_| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            let mut r = ok("x");
            if i.is_multiple_of(2) {
                r.headers_mut()
                    .insert("connection", http::HeaderValue::from_static("close"));
            }
            r
        }
    }))
    .await;
    let sink = Collect::default();
    let c = AttackConfig {
        max_workers: Some(1),
        max_requests: Some(20),
        ..cfg(true)
    };
    attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert!(s.iter().all(|s| s.status == 200), "{s:?}");
    // Requests 0, 2, 4, ... close their connection: 20 requests need 11 connections.
    assert_eq!(srv.accepted(), 11);
}
