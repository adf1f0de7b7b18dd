//! Each per-stage fault: error mix, reset, close, hang, slow body, truncated body.

use crate::common;

use std::time::{Duration, Instant};

use common::*;

fn with_fault(fault: &str) -> String {
    format!(
        r#"{{"random_content":"20kb","stages":[{{"at":0,"status":200,"latency":0,"faults":[{fault}]}}]}}"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_mix_replaces_a_share_of_statuses() {
    let o = start_with(
        r#"{"random_content":"1kb","stages":[{"at":0,"status":200,"latency":0,"errors":{"rate":"30%","status":503}}]}"#,
    );
    let mut errs = 0;
    for _ in 0..300 {
        match get(o.addr, "/").await.status {
            503 => errs += 1,
            200 => {}
            s => panic!("unexpected {s}"),
        }
    }
    // 30% of 300 = 90; binomial sd ≈ 8, so this bound fails only by a broken mix.
    assert!((50..=130).contains(&errs), "{errs} errors");
    let stats = get(o.addr, "/_admin/stats").await.json();
    assert_eq!(stats["routes"][0]["by_status"]["503"], errs);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reset_fault_sends_rst() {
    let o = start_with(&with_fault(r#"{"kind":"reset","rate":"100%"}"#));
    for _ in 0..3 {
        let out = request(o.addr, "GET", "/", &[], b"", Duration::from_secs(5)).await;
        assert!(matches!(out, Outcome::Reset), "{out:?}");
    }
    let stats = get(o.addr, "/_admin/stats").await.json();
    assert_eq!(stats["routes"][0]["faults"]["reset"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_fault_closes_without_a_response() {
    let o = start_with(&with_fault(r#"{"kind":"close"}"#));
    let out = request(o.addr, "GET", "/", &[], b"", Duration::from_secs(5)).await;
    assert!(matches!(out, Outcome::Closed), "{out:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hang_fault_never_answers_and_bounded_hang_then_closes() {
    let o = start_with(&with_fault(r#"{"kind":"hang","rate":"100%"}"#));
    let out = request(o.addr, "GET", "/", &[], b"", Duration::from_millis(800)).await;
    assert!(matches!(out, Outcome::Timeout), "{out:?}");
    let o2 = start_with(&with_fault(r#"{"kind":"hang","for":"300ms"}"#));
    let t = Instant::now();
    let out = request(o2.addr, "GET", "/", &[], b"", Duration::from_secs(5)).await;
    assert!(matches!(out, Outcome::Closed), "{out:?}");
    assert!(t.elapsed() >= Duration::from_millis(300));
    // Shutting down ends hanging requests instead of waiting a day.
    let h = tokio::spawn(request(
        o.addr,
        "GET",
        "/",
        &[],
        b"",
        Duration::from_secs(30),
    ));
    tokio::time::sleep(Duration::from_millis(100)).await;
    let t = Instant::now();
    tokio::task::spawn_blocking(move || o.shutdown())
        .await
        .unwrap();
    // Well before the request's own 30 s timeout, however loaded the
    // machine.
    assert!(t.elapsed() < Duration::from_secs(20));
    assert!(!matches!(h.await.unwrap(), Outcome::Timeout));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_fault_trickles_the_body() {
    // 20 KiB at 40 KiB/s ≈ 0.5 s.
    let o = start_with(&with_fault(r#"{"kind":"slow","bytes_per_sec":40960}"#));
    let t = Instant::now();
    let r = get(o.addr, "/").await;
    let e = t.elapsed();
    assert_eq!(r.body.len(), 20 * 1024);
    assert!(e >= Duration::from_millis(400), "{e:?}");
    assert!(e < Duration::from_secs(5), "{e:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncate_fault_cuts_the_body() {
    let o = start_with(&with_fault(r#"{"kind":"truncate","keep":"25%"}"#));
    let out = request(o.addr, "GET", "/", &[], b"", Duration::from_secs(5)).await;
    match out {
        Outcome::Truncated {
            status,
            got,
            expected,
        } => {
            assert_eq!(status, 200);
            assert_eq!(expected, 20 * 1024);
            assert!(got < expected, "{got}");
        }
        other => panic!("expected a truncated body, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partial_fault_rate_mixes_faults_and_answers() {
    let o = start_with(&with_fault(r#"{"kind":"close","rate":"50%"}"#));
    let (mut ok, mut closed) = (0, 0);
    for _ in 0..100 {
        match request(o.addr, "GET", "/", &[], b"", Duration::from_secs(5)).await {
            Outcome::Resp(r) if r.status == 200 => ok += 1,
            Outcome::Closed => closed += 1,
            other => panic!("{other:?}"),
        }
    }
    assert!(ok > 20 && closed > 20, "ok {ok} closed {closed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hang_ends_when_its_client_leaves() {
    let o = start_with(&with_fault(r#"{"kind":"hang"}"#));
    for _ in 0..3 {
        let out = request(o.addr, "GET", "/", &[], b"", Duration::from_millis(200)).await;
        assert!(matches!(out, Outcome::Timeout), "{out:?}");
    }
    // The clients gave up (their sockets were dropped): nothing stays in flight.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let stats = get(o.addr, "/_admin/stats").await.json();
        if stats["routes"][0]["in_flight"] == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "hangs still in flight: {stats}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
