//! Stages change over time, counted from acceptance; a re-post cancels pending stages.

use crate::common;

use std::time::{Duration, Instant};

use common::*;

/// Polls `path` until `deadline`, returning the distinct statuses in the order seen.
async fn statuses_over(addr: std::net::SocketAddr, path: &str, deadline: Duration) -> Vec<u16> {
    let end = Instant::now() + deadline;
    let mut seen: Vec<u16> = Vec::new();
    while Instant::now() < end {
        let s = get(addr, path).await.status;
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    seen
}

/// The origin's own figures for `route` (the active one), from
/// `/_admin/stats`.
async fn route_stats(addr: std::net::SocketAddr, route: &str) -> serde_json::Value {
    let stats = get(addr, "/_admin/stats").await.json();
    stats["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == route && r["active"] == true)
        .unwrap_or_else(|| panic!("no {route} in {stats}"))
        .clone()
}

/// Where the origin says `route` is: its current stage's `at` in ms
/// (`None` before the first stage).
async fn stage_at(addr: std::net::SocketAddr, route: &str) -> Option<u64> {
    route_stats(addr, route).await["stage"]["at_ms"].as_u64()
}

/// Polls `path` until the origin itself says the route has reached the
/// stage at `last_ms` (its last) and one more request has seen it;
/// returns the distinct statuses in the order seen.
async fn statuses_until_stage(addr: std::net::SocketAddr, path: &str, last_ms: u64) -> Vec<u16> {
    let give_up = Instant::now() + Duration::from_secs(60);
    let mut seen: Vec<u16> = Vec::new();
    loop {
        let there = stage_at(addr, path).await == Some(last_ms);
        let s = get(addr, path).await.status;
        if seen.last() != Some(&s) {
            seen.push(s);
        }
        if there {
            return seen;
        }
        assert!(
            Instant::now() < give_up,
            "{path} never reached its stage at {last_ms} ms: {seen:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stages_apply_in_order_of_at_not_of_listing() {
    let o = start(Default::default());
    // Listed out of order on purpose: the order of `at` decides.
    let recipe = r#"{"route":"/s","random_content":"10b","stages":[
        {"at":"1200ms","status":200},{"at":0,"status":200},{"at":"600ms","status":500}]}"#;
    assert_eq!(post_recipe(o.addr, recipe).await.status, 201);
    let seen = statuses_until_stage(o.addr, "/s", 1200).await;
    assert_eq!(seen, vec![200, 500, 200]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn before_the_first_stage_the_route_answers_406() {
    let o = start(Default::default());
    let recipe =
        r#"{"route":"/late","random_content":"10b","stages":[{"at":"500ms","status":200}]}"#;
    assert_eq!(post_recipe(o.addr, recipe).await.status, 201);
    let seen = statuses_until_stage(o.addr, "/late", 500).await;
    assert_eq!(seen, vec![406, 200]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reposting_a_route_cancels_its_pending_stages() {
    let o = start(Default::default());
    let first = r#"{"route":"/r","random_content":"10b","stages":[{"at":0,"status":200},{"at":"700ms","status":503}]}"#;
    assert_eq!(post_recipe(o.addr, first).await.status, 201);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let second = r#"{"route":"/r","random_content":"10b","stages":[{"at":0,"status":201}]}"#;
    assert_eq!(post_recipe(o.addr, second).await.status, 201);
    // Well past the first recipe's 503 stage: it must never show.
    let seen = statuses_over(o.addr, "/r", Duration::from_millis(1200)).await;
    assert_eq!(seen, vec![201]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_counts_from_each_recipe_acceptance_not_server_start() {
    let o = start(Default::default());
    tokio::time::sleep(Duration::from_millis(700)).await;
    let recipe = r#"{"route":"/t","random_content":"10b","stages":[{"at":0,"status":200},{"at":"500ms","status":500}]}"#;
    assert_eq!(post_recipe(o.addr, recipe).await.status, 201);
    // Had `at` counted from start, 500 would show at once.
    assert_eq!(get(o.addr, "/t").await.status, 200);
    let seen = statuses_until_stage(o.addr, "/t", 500).await;
    assert_eq!(seen.last(), Some(&500));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stage_latency_changes_with_the_stage() {
    let o = start(Default::default());
    let recipe = r#"{"route":"/l","random_content":"10b","stages":[{"at":0,"status":200,"latency":"0ms"},{"at":"1s","status":200,"latency":"250ms"}]}"#;
    assert_eq!(post_recipe(o.addr, recipe).await.status, 201);
    get(o.addr, "/l").await;
    // In the first stage: fast, by the origin's own latency figure (from
    // request to response head), whatever the load on this machine.
    assert_eq!(
        stage_at(o.addr, "/l").await,
        Some(0),
        "still the first stage"
    );
    let stats = route_stats(o.addr, "/l").await;
    let max = stats["latency_ms"]["max"].as_f64().unwrap();
    assert!(max < 250.0, "{stats}");
    // Once the origin says the second stage is on: slow.
    let give_up = Instant::now() + Duration::from_secs(60);
    while stage_at(o.addr, "/l").await != Some(1000) {
        assert!(Instant::now() < give_up, "the second stage never came");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let t = Instant::now();
    get(o.addr, "/l").await;
    assert!(t.elapsed() >= Duration::from_millis(250));
}
