//! The sink receives samples in completion order (`done` never goes back),
//! as streaming consumers of the results (`encode | jq`, jaggr) expect,
//! although workers hand samples over in batches.

use crate::common;
use common::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

/// Every 7th response is 20 ms late, so completions interleave across workers.
fn uneven() -> Handler {
    let n = Arc::new(AtomicU64::new(0));
    handler(move |_| {
        let slow = n.fetch_add(1, Ordering::Relaxed).is_multiple_of(7);
        async move {
            if slow {
                tokio::time::sleep(ms(20)).await;
            }
            ok("hello")
        }
    })
}

fn assert_in_completion_order(sink: &Collect, expected: u64) {
    let recorded = sink.samples.lock().unwrap().clone();
    assert_eq!(recorded.len() as u64, expected);
    let back: Vec<(u64, u64, u64)> = recorded
        .windows(2)
        .filter(|w| w[1].done_ns < w[0].done_ns)
        .map(|w| (w[0].seq, w[1].seq, w[0].done_ns - w[1].done_ns))
        .take(5)
        .collect();
    assert!(
        back.is_empty(),
        "completion time went back (seq, seq, ns): {back:?}"
    );
    // And the order is not trivially the seq order: slow responses finish later.
    assert!(recorded.windows(2).any(|w| w[1].seq < w[0].seq));
}

#[tokio::test]
async fn samples_reach_the_sink_in_completion_order() {
    let srv = serve(uneven()).await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(1000)),
        max_requests: Some(1000),
        workers: 10,
        ..Default::default()
    };
    let (sum, _) = attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 1000);
    assert_in_completion_order(&sink, 1000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_order_holds_on_a_multi_thread_runtime_and_unpaced() {
    let srv = serve(uneven()).await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(0)),
        max_requests: Some(2000),
        max_workers: Some(8),
        ..Default::default()
    };
    let (sum, _) = attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 2000);
    assert_in_completion_order(&sink, 2000);
}
