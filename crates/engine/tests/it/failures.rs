//! Transport failures are data: status 0 and the right error kind, never a hang.

use crate::common;
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
    let refused = loadlab_testkit::refused::Refused::new();
    let port = refused.port();
    let s = run(cfg(3), &format!("http://127.0.0.1:{port}/")).await;
    assert_eq!(s.len(), 3);
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::ConnectRefused));
        assert!(s.done_ns >= s.sent_ns);
    }
}

#[tokio::test]
async fn server_closes_without_response() {
    let addr = loadlab_testkit::raw::serve(|mut c| async move {
        // Read the whole request head, then close cleanly (FIN, not RST).
        loadlab_testkit::raw::read_head(&mut c).await;
        drop(c);
    })
    .await;
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
    let addr = loadlab_testkit::raw::serve(|mut c| async move {
        use tokio::io::AsyncWriteExt;
        let mut buf = vec![0u8; 4096];
        let _ = c.read(&mut buf).await;
        let _ = c.write_all(b"SSH-2.0-OpenSSH\r\n\r\n").await;
        let _ = c.shutdown().await;
    })
    .await;
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

/// A raw HTTP/1.1 server: for each connection, reads the request head, then
/// writes each piece of `script` after its delay, then keeps the connection
/// open for `hold_ms` and closes it.
async fn scripted(script: Vec<(u64, &'static [u8])>, hold_ms: u64) -> std::net::SocketAddr {
    loadlab_testkit::raw::serve(move |mut c| {
        let script = script.clone();
        async move {
            use tokio::io::AsyncWriteExt;
            if loadlab_testkit::raw::read_head(&mut c).await.is_none() {
                return;
            }
            for (delay, piece) in script {
                tokio::time::sleep(ms(delay)).await;
                if c.write_all(piece).await.is_err() {
                    return;
                }
            }
            tokio::time::sleep(ms(hold_ms)).await;
        }
    })
    .await
}

#[tokio::test]
async fn a_body_that_stalls_after_the_head_is_a_body_timeout() {
    let addr = scripted(
        vec![(
            0,
            b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789",
        )],
        5_000,
    )
    .await;
    let c = AttackConfig {
        timeout: ms(300),
        ..cfg(2)
    };
    let s = run(c, &format!("http://{addr}/")).await;
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::BodyTimeout), "{s:?}");
        assert!(s.first_byte_ns > 0, "the head arrived: {s:?}");
        assert_eq!(s.bytes_in, 10, "the body bytes received are counted");
    }
}

#[tokio::test]
async fn a_trickling_body_is_a_body_timeout() {
    let mut script: Vec<(u64, &'static [u8])> =
        vec![(0, b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")];
    script.extend(std::iter::repeat_n((40, &b"x"[..]), 50));
    let addr = scripted(script, 0).await;
    let c = AttackConfig {
        timeout: ms(400),
        ..cfg(1)
    };
    let s = run(c, &format!("http://{addr}/")).await;
    assert_eq!(
        (s[0].status, s[0].error),
        (0, ErrorKind::BodyTimeout),
        "{s:?}"
    );
    assert!((1..=12).contains(&s[0].bytes_in), "{s:?}");
}

#[tokio::test]
async fn a_head_that_never_completes_is_a_response_timeout() {
    let addr = scripted(vec![(0, b"HTTP/1.1 200 OK\r\nContent-")], 5_000).await;
    let c = AttackConfig {
        timeout: ms(300),
        ..cfg(1)
    };
    let s = run(c, &format!("http://{addr}/")).await;
    assert_eq!((s[0].status, s[0].error), (0, ErrorKind::Timeout), "{s:?}");
}

#[tokio::test]
async fn a_body_cut_short_is_an_unexpected_eof_with_the_bytes_received() {
    let addr = scripted(
        vec![(0, b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789abcdefghijklmnopqrstuvwxyz0123")],
        0,
    )
    .await;
    let s = run(cfg(2), &format!("http://{addr}/")).await;
    for s in s {
        assert_eq!((s.status, s.error), (0, ErrorKind::UnexpectedEof), "{s:?}");
        assert_eq!(s.bytes_in, 40);
    }
    // The same for a chunked body that ends before its last chunk.
    let addr = scripted(
        vec![(
            0,
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nA\r\n01234",
        )],
        0,
    )
    .await;
    let s = run(cfg(1), &format!("http://{addr}/")).await;
    assert_eq!(
        (s[0].status, s[0].error),
        (0, ErrorKind::UnexpectedEof),
        "{s:?}"
    );
    assert_eq!(s[0].bytes_in, 10);
}

#[tokio::test]
async fn a_tls_handshake_that_stalls_is_a_tls_handshake_timeout() {
    // TCP connects; the server never answers the ClientHello.
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
        timeout: ms(300),
        ..cfg(2)
    };
    let s = run(c, &format!("https://{addr}/")).await;
    for s in s {
        assert_eq!(
            (s.status, s.error),
            (0, ErrorKind::TlsHandshakeTimeout),
            "{s:?}"
        );
    }
}

#[tokio::test]
async fn a_connect_that_stalls_is_a_connect_timeout() {
    // A listener whose backlog is full: further SYNs are not answered.
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.bind(
        &"127.0.0.1:0"
            .parse::<std::net::SocketAddr>()
            .unwrap()
            .into(),
    )
    .unwrap();
    sock.listen(0).unwrap();
    let addr = sock.local_addr().unwrap().as_socket().unwrap();
    // Fill the backlog (never accepted).
    let mut fill = Vec::new();
    for _ in 0..8 {
        if let Ok(Ok(c)) = tokio::time::timeout(ms(100), tokio::net::TcpStream::connect(addr)).await
        {
            fill.push(c);
        }
    }
    let c = AttackConfig {
        timeout: ms(300),
        ..cfg(1)
    };
    let s = run(c, &format!("http://{addr}/")).await;
    assert_eq!(
        (s[0].status, s[0].error),
        (0, ErrorKind::ConnectTimeout),
        "{s:?}"
    );
    drop(sock);
}
