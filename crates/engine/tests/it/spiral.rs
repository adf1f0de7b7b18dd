//! A client that falls behind its schedule must not make its target slower
//! by opening ever more connections: against a server that answers at once,
//! its late requests wait for the pool's connections (the client holds
//! them: their answers are in their sockets, unread) instead of opening new
//! ones. The other side of the rule, a server that holds every connection,
//! is `starve::endless_bodies_do_not_starve_the_schedule`.

use crate::common;
use common::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};

/// A keep-alive server on a thread (and runtime) of its own, so that it
/// answers at once however busy the client's runtime is: one short response
/// for every request head it reads. Counts the connections it accepts.
fn quick_server(stop: Arc<AtomicBool>, accepted: Arc<AtomicU64>) -> std::net::SocketAddr {
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
                accepted.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    let _ = c.set_nodelay(true);
                    let mut buf = vec![0u8; 64 * 1024];
                    // Bytes of a head end ("\r\n\r\n") matched so far.
                    let mut matched = 0;
                    loop {
                        let n = match c.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => n,
                        };
                        let mut heads = 0;
                        for &b in &buf[..n] {
                            matched = match (matched, b) {
                                (0 | 2, b'\r') => matched + 1,
                                (1 | 3, b'\n') => matched + 1,
                                (_, b'\r') => 1,
                                _ => 0,
                            };
                            if matched == 4 {
                                heads += 1;
                                matched = 0;
                            }
                        }
                        let one = b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
                        if c.write_all(&one.repeat(heads)).await.is_err() {
                            return;
                        }
                    }
                });
            }
        });
    });
    addr
}

fn unix_now_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Started 900 ms late, the client has 1,800 of its 2,000 requests due at
/// once: far behind its schedule, and short of CPU while it catches up.
/// The answers come at once, so the connections it has are free as soon
/// as it reads them; opening one per late request (hundreds) is the
/// connection spiral.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_behind_its_schedule_reuses_its_connections() {
    let stop = Arc::new(AtomicBool::new(false));
    let accepted = Arc::new(AtomicU64::new(0));
    let addr = quick_server(stop.clone(), accepted.clone());
    let sink = Collect::default();
    let cfg = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(2000)),
        duration: Some(ms(1000)),
        workers: 4,
        start_at_unix_ns: Some(unix_now_ns() - 900_000_000),
        ..Default::default()
    };
    let (sum, _) = attack(cfg, one(&format!("http://{addr}/")), sink.boxed(), never())
        .await
        .unwrap();
    stop.store(true, Ordering::Relaxed);
    assert_eq!(sum.requests + sum.unsent, 2000, "{sum:?}");
    assert!(sink.samples().iter().all(|s| s.status == 200));
    let opened = accepted.load(Ordering::SeqCst);
    eprintln!("{opened} connections, {} workers", sum.workers);
    // The floor (-workers), and some more while the first answers were on
    // their way or the busy runtime kept the server from answering (one
    // per late request opened about 560).
    assert!(
        opened <= 200,
        "{opened} connections for a client behind its schedule"
    );
    // Nor a worker for each late request (one each made about 550-2,100):
    // a task per request waiting for a connection is work for a client
    // already short of CPU.
    assert!(
        sum.workers <= 200,
        "{} workers for a client behind its schedule",
        sum.workers
    );
}
