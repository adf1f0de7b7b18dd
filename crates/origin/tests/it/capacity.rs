//! The capacity model: a concurrency limit with a queue, then rejections.

use crate::common;

use std::time::{Duration, Instant};

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn excess_load_queues_then_is_rejected() {
    // 2 served at once for 1 s each, 2 may wait, the rest are refused with 500.
    // (1 s leaves room for slow connects on a busy machine: all 8 must arrive within it.)
    let o = start_with(
        r#"{"random_content":"100b","capacity":{"concurrency":2,"queue":2,"reject_status":500},
            "stages":[{"at":0,"status":200,"latency":"1s"}]}"#,
    );
    let t = Instant::now();
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let addr = o.addr;
            tokio::spawn(async move {
                let t = Instant::now();
                let r = get(addr, "/").await;
                (r.status, t.elapsed())
            })
        })
        .collect();
    let mut results = Vec::new();
    for t in tasks {
        results.push(t.await.unwrap());
    }
    let ok: Vec<_> = results.iter().filter(|(s, _)| *s == 200).collect();
    let rejected = results.iter().filter(|(s, _)| *s == 500).count();
    assert_eq!(ok.len(), 4, "{results:?}");
    assert_eq!(rejected, 4, "{results:?}");
    // The queued two waited for a first round: about 2 s, not 1.
    let slowest = ok.iter().map(|(_, d)| *d).max().unwrap();
    assert!(slowest >= Duration::from_millis(1900), "{results:?}");
    // Rejections are immediate.
    assert!(
        results
            .iter()
            .filter(|(s, _)| *s == 500)
            .all(|(_, d)| *d < Duration::from_millis(1000)),
        "{results:?}"
    );
    assert!(t.elapsed() < Duration::from_secs(10));
    let stats = get(o.addr, "/_admin/stats").await.json();
    assert_eq!(stats["routes"][0]["rejected"], 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_timeout_rejects_those_who_wait_too_long() {
    let o = start_with(
        r#"{"random_content":"100b","capacity":{"concurrency":1,"queue":100,"queue_timeout":"200ms"},
            "stages":[{"at":0,"status":200,"latency":"1s"}]}"#,
    );
    let tasks: Vec<_> = (0..4).map(|_| tokio::spawn(get(o.addr, "/"))).collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap().status);
    }
    statuses.sort();
    assert_eq!(statuses, vec![200, 503, 503, 503]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_grows_as_load_passes_capacity() {
    // Capacity 4 × (1 / 100 ms) = 40 req/s. 12 simultaneous requests take three rounds.
    let o = start_with(
        r#"{"random_content":"100b","capacity":{"concurrency":4,"queue":1000},
            "stages":[{"at":0,"status":200,"latency":"100ms"}]}"#,
    );
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let addr = o.addr;
            tokio::spawn(async move {
                let t = Instant::now();
                assert_eq!(get(addr, "/").await.status, 200);
                t.elapsed()
            })
        })
        .collect();
    let mut times = Vec::new();
    for t in tasks {
        times.push(t.await.unwrap());
    }
    times.sort();
    // The last waited two rounds more than the first (a delay of this
    // machine shifts both alike), and the origin's own latency figure says
    // so too: three rounds of 100 ms.
    assert!(
        times[11].saturating_sub(times[0]) >= Duration::from_millis(150),
        "{times:?}"
    );
    assert!(times[11] >= Duration::from_millis(290), "{times:?}");
    let stats = get(o.addr, "/_admin/stats").await.json();
    let max = stats["routes"][0]["latency_ms"]["max"].as_f64().unwrap();
    assert!(max >= 290.0, "{stats}");
}
