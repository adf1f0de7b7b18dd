//! The open model keeps the schedule: counts and intended times are exact.

use crate::common;
use common::*;

use loadlab_core::{Pacer, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_per_second_for_one_second() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        duration: Some(ms(1000)),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let samples = sink.samples();
    assert_eq!(sum.requests, 200, "{sum:?}");
    assert_eq!(samples.len(), 200);
    assert_eq!(srv.requests(), 200);
    assert!(sink.finished.load(std::sync::atomic::Ordering::SeqCst));
    let pacer = loadlab_core::pacer::ConstantPacer(Rate::per_second(200));
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s.seq, i as u64);
        assert_eq!(s.target, 0);
        assert_eq!(s.status, 200);
        assert_eq!(s.bytes_in, 5);
        assert_eq!(
            s.intended_ns,
            pacer.send_at(i as u64).unwrap().as_nanos() as u64
        );
        // A send may lead its schedule by less than the clock window (1 ms).
        assert!(s.sent_ns + 1_000_000 > s.intended_ns);
        assert!(s.first_byte_ns >= s.sent_ns && s.done_ns >= s.first_byte_ns);
    }
    // The sink ran on its own thread, not on a runtime worker.
    assert_eq!(sink.thread.lock().unwrap().as_deref(), Some("loadlab-sink"));
    // On a loaded machine a few sends may be late, but most are on time.
    let on_time = samples
        .iter()
        .filter(|s| s.send_lag_ns() < 5_000_000)
        .count();
    assert!(
        on_time > 150,
        "only {on_time} of 200 sent within 5ms of schedule"
    );
    assert_eq!(sum.unsent, 0);
    assert!(!sum.interrupted);
}

#[tokio::test]
async fn plan_pacer_ends_the_attack_by_itself() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::parse_plan("200ms@100,100ms@50").unwrap(),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    assert_eq!(sum.requests, 25);
    assert_eq!(sum.stop_reason, loadlab_engine::StopReason::Exhausted);
}

/// A weighted mix of 70/20/10 at 1,000/s: in every second of the schedule
/// (by intended time) each target gets its share within one request, and
/// the server saw each request at its target's path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_weighted_mix_holds_its_shares_in_every_second() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(1000)),
        duration: Some(ms(2000)),
        weights: Some(vec![70, 20, 10]),
        ..Default::default()
    };
    let targets = loadlab_engine::TargetSource::Static(vec![
        get(&srv.url("/news")),
        get(&srv.url("/sport")),
        get(&srv.url("/sounds")),
    ]);
    let (sum, _) = attack(cfg, targets, sink.boxed(), never()).await.unwrap();
    // A busy machine may leave the last few unsent (and says so): they are
    // the schedule's last, so the windows before them are whole.
    assert_eq!(sum.requests + sum.unsent, 2000, "{sum:?}");
    assert!(sum.unsent < 1000, "{sum:?}");
    let whole_until = 2000 - sum.unsent;
    let samples = sink.samples();
    // Every window of 1,000 consecutive requests, i.e. every second of the
    // schedule, not only the two whole ones.
    for from in (0..=1000).step_by(50).filter(|f| f + 1000 <= whole_until) {
        let mut count = [0i64; 3];
        for s in samples.iter().filter(|s| {
            s.intended_ns >= from * 1_000_000 && s.intended_ns < (from + 1000) * 1_000_000
        }) {
            count[s.target as usize] += 1;
        }
        for (c, share) in count.iter().zip([700, 200, 100]) {
            assert!((c - share).abs() <= 1, "from {from} ms: {count:?}");
        }
    }
    assert!(samples.iter().all(|s| s.status == 200));
}

#[tokio::test]
async fn weights_that_cannot_make_a_mix_are_refused() {
    let targets = || {
        loadlab_engine::TargetSource::Static(vec![
            get("http://127.0.0.1:1/a"),
            get("http://127.0.0.1:1/b"),
        ])
    };
    let run = |w: Vec<u32>| {
        let cfg = AttackConfig {
            duration: Some(ms(100)),
            weights: Some(w),
            ..Default::default()
        };
        attack(cfg, targets(), Collect::default().boxed(), never())
    };
    let Err(e) = run(vec![1, 2, 3]).await else {
        panic!("3 weights for 2 targets accepted")
    };
    assert!(e.to_string().contains("3 weights for 2 targets"), "{e}");
    let Err(e) = run(vec![1, 0]).await else {
        panic!("a weight of 0 accepted")
    };
    assert!(e.to_string().contains("weight 2 is 0"), "{e}");
}
