//! The send clock: sends grouped per `resolution` window, responses collected
//! once per window on a current-thread runtime, latencies still true.

use crate::common;
use common::*;

use std::time::Duration;

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

/// A server on its own thread and runtime, so that the attack's runtime
/// sleeping between windows cannot delay it.
fn server_elsewhere(h: Handler) -> (Server, std::sync::mpsc::Sender<()>) {
    let (tx, rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            tx.send(serve(h).await).unwrap();
            tokio::task::spawn_blocking(move || stop_rx.recv())
                .await
                .ok();
        });
    });
    (rx.recv().unwrap(), stop_tx)
}

fn run(cfg: AttackConfig, url: &str) -> (Vec<loadlab_core::Sample>, loadlab_engine::AttackSummary) {
    let sink = Collect::default();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (sum, _) = rt
        .block_on(attack(cfg, one(url), sink.boxed(), never()))
        .unwrap();
    (sink.samples(), sum)
}

#[test]
fn sends_are_grouped_per_window_and_latencies_stay_true() {
    let (srv, _stop) = server_elsewhere(hello());
    let window = ms(20);
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        duration: Some(ms(1000)),
        resolution: window,
        ..Default::default()
    };
    let (samples, sum) = run(cfg, &srv.url("/"));
    assert_eq!(sum.requests, 500, "{sum:?}");
    assert_eq!(samples.len(), 500);
    assert!(samples.iter().all(|s| s.status == 200));
    // The schedule is recorded as it was (2 ms apart) ...
    for (i, s) in samples.iter().enumerate() {
        assert_eq!(s.intended_ns, i as u64 * 2_000_000);
        // ... and no request left more than 1¼ windows early.
        assert!(
            s.sent_ns + window.as_nanos() as u64 * 5 / 4 > s.intended_ns,
            "request {i} sent at {} for {}",
            s.sent_ns,
            s.intended_ns
        );
    }
    // Ten requests per 20 ms window go out together: far fewer distinct
    // send moments than requests (with one wake-up per request there would
    // be 500, 2 ms apart).
    let mut bursts = 1;
    for w in samples.windows(2) {
        if w[1].sent_ns > w[0].sent_ns + 1_000_000 {
            bursts += 1;
        }
    }
    assert!(bursts <= 80, "{bursts} separate send moments");
    // Responses are collected once per window, but each is timed by its
    // arrival: with latencies from the read instead, the median would be
    // about half a window (10 ms).
    let service: Vec<u64> = samples.iter().map(|s| s.service_ns()).collect();
    let p50 = pct(service, 50.0);
    assert!(p50 < 4_000_000, "median service time {p50} ns");
    // Requests sent early are measured from their send, never from later.
    assert!(samples.iter().all(|s| s.latency_ns() >= s.service_ns()));
}

#[test]
fn zero_resolution_sends_every_request_at_its_own_instant() {
    let (srv, _stop) = server_elsewhere(hello());
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        duration: Some(ms(500)),
        resolution: Duration::ZERO,
        ..Default::default()
    };
    let (samples, sum) = run(cfg, &srv.url("/"));
    assert_eq!(sum.requests, 100, "{sum:?}");
    // Never early; on a loaded machine some may be late (a busy host
    // delays a wake-up by a time slice now and then), but the median
    // request goes at its own instant, not at the next tick of a clock.
    assert!(samples.iter().all(|s| s.sent_ns >= s.intended_ns));
    let on_time = samples
        .iter()
        .filter(|s| s.send_lag_ns() < 2_000_000)
        .count();
    assert!(on_time >= 50, "{on_time} of 100 within 2 ms of schedule");
}
