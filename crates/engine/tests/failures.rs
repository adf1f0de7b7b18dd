//! Transport failures are data: status 0 and the right error kind, never a hang.

mod common;
use common::*;

use std::time::Instant;

use loadlab_core::{ErrorKind, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};
use tokio::io::AsyncReadExt;

fn cfg(n: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        max_requests: Some(n),
        ..Default::default()
    }
}

async fn run(cfg: AttackConfig, url: &str) -> Vec<loadlab_core::Sample> {
    let sink = Collect::default();
    let t = Instant::now();
    attack(cfg, one(url), sink.boxed(), never()).await.unwrap();
    assert!(t.elapsed() < ms(10_000), "took {:?}", t.elapsed());
    sink.samples()
}

#[tokio::test]
async fn refused_port() {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = l.local_addr().unwrap().port();
    drop(l);
    let s = run(cfg(3), &format!("http://127.0.0.1:{port}/")).await;
    assert_eq!(s.len(), 3);
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::ConnectRefused));
        assert!(s.done_ns >= s.sent_ns);
    }
}

#[tokio::test]
async fn server_closes_without_response() {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut c, _)) = l.accept().await else {
                return;
            };
            tokio::spawn(async move {
                // Read the whole request head, then close cleanly (FIN, not RST).
                let mut buf = vec![0u8; 4096];
                let mut got = Vec::new();
                while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => got.extend_from_slice(&buf[..n]),
                    }
                }
                drop(c);
            });
        }
    });
    let s = run(cfg(3), &format!("http://{addr}/")).await;
    assert_eq!(s.len(), 3);
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::ConnectionClosed));
    }
}

#[tokio::test]
async fn server_never_answers_times_out() {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        let mut keep = Vec::new();
        loop {
            let Ok((c, _)) = l.accept().await else { return };
            keep.push(c);
        }
    });
    let c = AttackConfig {
        timeout: ms(200),
        ..cfg(3)
    };
    let s = run(c, &format!("http://{addr}/")).await;
    assert_eq!(s.len(), 3);
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::Timeout));
        let took = s.done_ns - s.sent_ns;
        assert!((190_000_000..2_000_000_000).contains(&took), "{took}");
    }
}

#[tokio::test]
async fn garbage_response_is_a_protocol_error() {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut c, _)) = l.accept().await else {
                return;
            };
            tokio::spawn(async move {
                use tokio::io::AsyncWriteExt;
                let mut buf = vec![0u8; 4096];
                let _ = c.read(&mut buf).await;
                let _ = c.write_all(b"SSH-2.0-OpenSSH\r\n\r\n").await;
                let _ = c.shutdown().await;
            });
        }
    });
    let s = run(cfg(2), &format!("http://{addr}/")).await;
    assert!(
        s.iter()
            .all(|s| s.status == 0 && s.error == ErrorKind::Protocol),
        "{s:?}"
    );
}

#[tokio::test]
async fn unknown_host_is_a_dns_error() {
    let s = run(cfg(1), "http://no-such-host.invalid/").await;
    assert_eq!((s[0].status, s[0].error), (0, ErrorKind::Dns));
}
