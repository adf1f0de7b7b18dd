//! The admin API: OriginSimulator's endpoints and shapes, stats, metrics, and access safety.

use crate::common;

use std::time::Duration;

use common::*;
use loadlab_origin::{OriginConfig, OriginError};
use loadlab_testkit::proc::{PATIENCE, http_get, wait_until};
use serde_json::json;

const RECIPE: &str =
    r#"{"route":"/*","random_content":"1kb","stages":[{"at":0,"status":200,"latency":"5ms"}]}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoints_have_origin_simulator_shapes() {
    let o = start_with(RECIPE);
    let s = get(o.addr, "/_admin/status").await;
    assert_eq!((s.status, s.text().as_str()), (200, "ok!"));
    assert!(s.header("content-type").unwrap().starts_with("text/plain"));

    for _ in 0..3 {
        get(o.addr, "/a").await;
    }
    get(o.addr, "/_admin/status").await; // admin requests are not counted
    assert_eq!(
        get(o.addr, "/_admin/current_count").await.json(),
        json!({"total_requests": 3, "200": 3})
    );
    assert_eq!(
        get(o.addr, "/_admin/clear_current_count").await.json(),
        json!({"cleared": "yes"})
    );
    assert_eq!(
        get(o.addr, "/_admin/current_count").await.json(),
        json!({"total_requests": 0})
    );
    get(o.addr, "/a").await;
    assert_eq!(
        get(o.addr, "/_admin/current_count").await.json()["total_requests"],
        1
    );

    assert_eq!(get(o.addr, "/_admin/routes").await.text(), "/*");
    assert_eq!(
        get(o.addr, "/_admin/routes_status").await.text(),
        "/* 200 5"
    );

    let add = post_recipe(
        o.addr,
        r#"{"route":"/n","body":"n","stages":[{"at":0,"status":404,"latency":0}]}"#,
    )
    .await;
    assert_eq!(add.status, 201);
    let list = add.json();
    assert_eq!(
        list.as_array().unwrap().len(),
        2,
        "add_recipe answers every recipe: {list}"
    );
    assert_eq!(get(o.addr, "/_admin/routes").await.text(), "/*\n/n");

    let restart = get(o.addr, "/_admin/restart").await;
    assert_eq!((restart.status, restart.text().as_str()), (200, "ok!"));
    assert_eq!(get(o.addr, "/_admin/routes").await.text(), "/*");
    assert_eq!(
        get(o.addr, "/_admin/current_count").await.json(),
        json!({"total_requests": 0})
    );
    let cur = get(o.addr, "/_admin/current_recipe").await.json();
    assert!(
        cur[0]["body"].as_str().unwrap().contains("default content"),
        "restart restores the default: {cur}"
    );

    assert_eq!(get(o.addr, "/_admin/nope").await.status, 404);
    assert_eq!(get(o.addr, "/_admin/add_recipe").await.status, 405);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stats_and_metrics() {
    let o = start_with(
        r#"[{"route":"/ok","random_content":"1kb","stages":[{"at":0,"status":200,"latency":"20ms"}]},
            {"route":"/bad","random_content":"1kb","stages":[{"at":0,"status":500,"latency":0}]}]"#,
    );
    for _ in 0..10 {
        get(o.addr, "/ok").await;
    }
    for _ in 0..4 {
        get(o.addr, "/bad").await;
    }
    let stats = get(o.addr, "/_admin/stats").await.json();
    let routes = stats["routes"].as_array().unwrap();
    let ok = routes.iter().find(|r| r["route"] == "/ok").unwrap();
    let bad = routes.iter().find(|r| r["route"] == "/bad").unwrap();
    assert_eq!(ok["by_status"], json!({"200": 10}));
    assert_eq!(ok["requests"], 10);
    assert_eq!(ok["in_flight"], 0);
    let p50 = ok["latency_ms"]["p50"].as_f64().unwrap();
    assert!((19.0..200.0).contains(&p50), "{p50}");
    assert!(ok["latency_ms"]["p99"].as_f64().unwrap() >= p50);
    assert_eq!(bad["by_status"], json!({"500": 4}));

    let m = get(o.addr, "/_admin/metrics").await;
    assert!(
        m.header("content-type")
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = m.text();
    assert!(text.contains("# TYPE loadlab_origin_requests_total counter"));
    assert!(
        text.contains(r#"loadlab_origin_requests_total{route="/ok",status="200"} 10"#),
        "{text}"
    );
    assert!(text.contains(r#"loadlab_origin_requests_total{route="/bad",status="500"} 4"#));
    assert!(text.contains(r#"loadlab_origin_latency_seconds_count{route="/ok"} 10"#));
    // Every sample line is `name{labels} value`.
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (_, v) = line.rsplit_once(' ').unwrap();
        v.parse::<f64>()
            .unwrap_or_else(|_| panic!("bad sample line {line}"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_flight_is_visible_during_slow_requests() {
    // Each request takes 3 s: long enough for all three to be seen in
    // flight at once, however late the machine starts them.
    let o =
        start_with(r#"{"random_content":"1kb","stages":[{"at":0,"status":200,"latency":"3s"}]}"#);
    let tasks: Vec<_> = (0..3).map(|_| tokio::spawn(get(o.addr, "/"))).collect();
    let addr = o.addr;
    let seen = tokio::task::spawn_blocking(move || {
        let mut seen = serde_json::Value::Null;
        wait_until("the stats to show 3 requests in flight", PATIENCE, || {
            let (_, body) = http_get(addr, "/_admin/stats");
            let stats: serde_json::Value = serde_json::from_str(&body).unwrap();
            seen = stats["routes"][0]["in_flight"].clone();
            seen == 3
        });
        seen
    })
    .await
    .unwrap();
    assert_eq!(seen, 3);
    for t in tasks {
        t.await.unwrap();
    }
}

#[test]
fn refuses_non_loopback_without_token() {
    let cfg = OriginConfig::default();
    match loadlab_origin::spawn("0.0.0.0:0".parse().unwrap(), cfg) {
        Err(OriginError::UnsafeAdmin(_)) => {}
        Err(e) => panic!("wrong error: {e}"),
        Ok(_) => panic!("must refuse 0.0.0.0 without a token"),
    }
    // With a token it starts.
    let cfg = OriginConfig {
        admin_token: Some("s3cret".into()),
        ..Default::default()
    };
    let h = loadlab_origin::spawn("0.0.0.0:0".parse().unwrap(), cfg).expect("starts with a token");
    h.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_refuses_non_loopback_listener_without_token() {
    let l = tokio::net::TcpListener::bind("0.0.0.0:0").await.unwrap();
    let err = loadlab_origin::serve(l, OriginConfig::default(), async {})
        .await
        .unwrap_err();
    assert!(matches!(err, OriginError::UnsafeAdmin(_)), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_is_required_when_set() {
    let o = start(OriginConfig {
        admin_token: Some("s3cret".into()),
        ..Default::default()
    });
    let no = get(o.addr, "/_admin/status").await;
    assert_eq!(no.status, 401);
    let wrong = request(
        o.addr,
        "GET",
        "/_admin/status",
        &[("Authorization", "Bearer nope")],
        b"",
        Duration::from_secs(5),
    )
    .await;
    assert!(
        matches!(wrong, Outcome::Resp(ref r) if r.status == 401),
        "{wrong:?}"
    );
    for h in [
        ("Authorization", "Bearer s3cret"),
        // The scheme is case-insensitive.
        ("Authorization", "bearer s3cret"),
        ("Authorization", "BEARER s3cret"),
        ("X-Admin-Token", "s3cret"),
    ] {
        match request(
            o.addr,
            "GET",
            "/_admin/status",
            &[h],
            b"",
            Duration::from_secs(5),
        )
        .await
        {
            Outcome::Resp(r) => assert_eq!((r.status, r.text().as_str()), (200, "ok!")),
            other => panic!("{other:?}"),
        }
    }
    // Ordinary routes never need the token.
    assert_eq!(get(o.addr, "/page").await.status, 200);
}
