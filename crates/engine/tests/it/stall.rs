//! Coordinated omission: a server that stalls for a second mid-run shows up in
//! the corrected latency (from the intended send time) and not in the
//! uncorrected service time.

use crate::common;
use common::*;

use std::sync::{Arc, Mutex};
use std::time::Instant;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_second_stall_shows_in_corrected_p99_only() {
    let t0: Arc<Mutex<Option<Instant>>> = Arc::default();
    let h = {
        let t0 = t0.clone();
        handler(move |_| {
            let t0 = *t0.lock().unwrap().get_or_insert_with(Instant::now);
            async move {
                let e = t0.elapsed();
                // Hold every response that arrives between 0.5 s and 1.5 s until 1.5 s.
                if e >= ms(500) && e < ms(1500) {
                    tokio::time::sleep(ms(1500) - e).await;
                }
                ok("x")
            }
        })
    };
    let srv = serve(h).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        duration: Some(ms(3000)),
        workers: 4,
        max_workers: Some(4),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert_eq!(s.len(), 1500, "{sum:?}");
    assert!(s.iter().all(|s| s.status == 200));
    let corrected = pct(s.iter().map(|s| s.latency_ns()).collect(), 99.0);
    let service = pct(s.iter().map(|s| s.service_ns()).collect(), 99.0);
    assert!(
        corrected >= 500_000_000,
        "corrected p99 {corrected}ns should show the 1s stall"
    );
    assert!(
        service < 200_000_000,
        "uncorrected p99 {service}ns should not (only 4 requests were stuck)"
    );
    // The queued requests went out late, and the summary says so.
    assert!(sum.late >= 300, "late = {}", sum.late);
    assert!(sum.max_send_lag >= ms(500));
    assert_eq!(sum.workers, 4, "{sum:?}");
    assert!(
        srv.stats
            .max_in_flight
            .load(std::sync::atomic::Ordering::SeqCst)
            <= 4
    );
}
