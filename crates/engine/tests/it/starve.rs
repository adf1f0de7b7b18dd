//! Reading fast, endless bodies must not starve the send clock: the schedule
//! still goes out (with send lag, which is measured), instead of requests
//! being silently thinned while the runtime thread is busy reading.

use crate::common;
use common::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

/// Answers every request with a head promising a huge body, then writes
/// 64 KiB blocks as fast as the socket takes them until `stop`. All of it on
/// one thread of its own, so the server takes at most one of the cores.
fn endless_server(stop: Arc<AtomicBool>) -> std::net::SocketAddr {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    l.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let l = tokio::net::TcpListener::from_std(l).unwrap();
            while !stop.load(Ordering::Relaxed) {
                let Ok(Ok((mut c, _))) = tokio::time::timeout(ms(50), l.accept()).await else {
                    continue;
                };
                let stop = stop.clone();
                tokio::spawn(async move {
                    let mut buf = [0u8; 4096];
                    if c.read(&mut buf).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let head = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n";
                    let _ = c.write_all(head).await;
                    let block = vec![b'x'; 64 * 1024];
                    while !stop.load(Ordering::Relaxed) {
                        if c.write_all(&block).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
    });
    addr
}

#[tokio::test]
async fn endless_bodies_do_not_starve_the_schedule() {
    let stop = Arc::new(AtomicBool::new(false));
    let addr = endless_server(stop.clone());
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        duration: Some(ms(2000)),
        timeout: ms(1500),
        ..Default::default()
    };
    let (sum, _) = attack(c, one(&format!("http://{addr}/")), sink.boxed(), never())
        .await
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    // 200 due in 2 s; every one sent, each reading until its timeout.
    let mut per_100ms = [0u32; 20];
    for s in sink.samples() {
        per_100ms[((s.sent_ns / 100_000_000) as usize).min(19)] += 1;
    }
    eprintln!("sent per 100 ms: {per_100ms:?}, workers {}", sum.workers);
    assert_eq!(sum.requests + sum.unsent, 200);
    assert!(
        sum.requests >= 190,
        "sent {} of 200, {} unsent",
        sum.requests,
        sum.unsent
    );
    let lags: Vec<u64> = sink
        .samples()
        .iter()
        .map(|s| s.sent_ns.saturating_sub(s.intended_ns))
        .collect();
    let p50 = pct(lags, 50.0);
    assert!(p50 < 100_000_000, "median send lag {p50} ns");
}
