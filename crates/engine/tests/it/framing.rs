//! Response framing from hostile or unusual servers: conflicting
//! Content-Length headers and Transfer-Encoding with Content-Length
//! (RFC 9112 §6.3), and large but well-formed response heads.

use crate::common;
use common::*;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use loadlab_core::{ErrorKind, PacerSpec, Rate, Sample};
use loadlab_engine::{AttackConfig, attack};
use tokio::io::AsyncWriteExt;

/// A raw HTTP/1.1 server answering every request with `response` on a kept
/// alive connection (closing after it when `close_after`). Counts accepted
/// connections.
async fn raw(response: Vec<u8>, close_after: bool) -> (std::net::SocketAddr, Arc<AtomicU64>) {
    let accepted = Arc::new(AtomicU64::new(0));
    let acc = accepted.clone();
    let response = Arc::new(response);
    let addr = loadlab_testkit::raw::serve(move |mut c| {
        acc.fetch_add(1, Ordering::SeqCst);
        let response = response.clone();
        async move {
            while loadlab_testkit::raw::read_head(&mut c).await.is_some() {
                if c.write_all(&response).await.is_err() || close_after {
                    return;
                }
            }
        }
    })
    .await;
    (addr, accepted)
}

fn cfg(n: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        max_requests: Some(n),
        max_workers: Some(1),
        timeout: ms(2_000),
        ..Default::default()
    }
}

async fn run(c: AttackConfig, addr: std::net::SocketAddr) -> Vec<Sample> {
    let sink = Collect::default();
    let t = std::time::Instant::now();
    attack(c, one(&format!("http://{addr}/")), sink.boxed(), never())
        .await
        .unwrap();
    assert!(t.elapsed() < ms(10_000), "took {:?}", t.elapsed());
    sink.samples()
}

#[tokio::test]
async fn conflicting_content_lengths_are_an_error() {
    for response in [
        &b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\nContent-Length: 5\r\n\r\n0123456789"[..],
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 10\r\n\r\n0123456789",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5, 10\r\n\r\n0123456789",
        b"HTTP/1.1 200 OK\r\nContent-Length: five\r\n\r\n01234",
    ] {
        let (addr, _) = raw(response.to_vec(), false).await;
        let s = run(cfg(2), addr).await;
        let what = String::from_utf8_lossy(response);
        for s in s {
            assert_eq!(
                (s.status, s.error),
                (0, ErrorKind::InvalidContentLength),
                "{what}: {s:?}"
            );
        }
    }
}

#[tokio::test]
async fn repeated_identical_content_lengths_are_one() {
    for response in [
        &b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"[..],
        b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello",
    ] {
        let (addr, accepted) = raw(response.to_vec(), false).await;
        let s = run(cfg(3), addr).await;
        assert!(
            s.iter().all(|s| (s.status, s.bytes_in) == (200, 5)),
            "{s:?}"
        );
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "kept alive");
    }
}

#[tokio::test]
async fn transfer_encoding_overrides_content_length_and_the_connection_is_closed() {
    // RFC 9112 §6.3 (3): chunked wins; the connection is not trusted again.
    let (addr, accepted) = raw(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            .to_vec(),
        false,
    )
    .await;
    let s = run(cfg(3), addr).await;
    assert!(
        s.iter().all(|s| (s.status, s.bytes_in) == (200, 5)),
        "{s:?}"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 3, "one connection each");
}

#[tokio::test]
async fn chunked_must_be_the_final_transfer_coding() {
    // "chunked, x" does not end in chunked: the body runs to the close.
    let (addr, _) = raw(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, x-custom\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
            .to_vec(),
        true,
    )
    .await;
    let s = run(cfg(1), addr).await;
    assert_eq!((s[0].status, s[0].bytes_in), (200, 15), "{s:?}");
}

/// A 200 response whose head has `fields` header fields of `value_len`
/// bytes each, and a 5-byte body.
fn big_head(fields: usize, value_len: usize) -> Vec<u8> {
    let mut r = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n".to_vec();
    let value = "v".repeat(value_len);
    for i in 0..fields {
        r.extend_from_slice(format!("X-Field-{i}: {value}\r\n").as_bytes());
    }
    r.extend_from_slice(b"\r\nhello");
    r
}

#[tokio::test]
async fn many_header_fields_and_a_large_head_are_accepted() {
    for (fields, value_len) in [(100, 10), (2_000, 10), (15, 64 * 1024)] {
        let response = big_head(fields, value_len);
        assert!(response.len() < 1 << 20);
        let (addr, accepted) = raw(response, false).await;
        let s = run(cfg(3), addr).await;
        assert!(
            s.iter().all(|s| (s.status, s.bytes_in) == (200, 5)),
            "{fields} fields of {value_len} bytes: {s:?}"
        );
        assert_eq!(accepted.load(Ordering::SeqCst), 1, "kept alive");
    }
}

#[tokio::test]
async fn a_head_over_the_limit_says_so() {
    // Default limit: 1 MiB.
    let (addr, _) = raw(big_head(20, 64 * 1024), false).await;
    let s = run(cfg(1), addr).await;
    assert_eq!((s[0].status, s[0].error), (0, ErrorKind::HeadersTooLarge));
    // A limit of our own.
    let (addr, _) = raw(big_head(10, 1024), false).await;
    let small = AttackConfig {
        max_headers_size: 8 * 1024,
        ..cfg(1)
    };
    let s = run(small.clone(), addr).await;
    assert_eq!((s[0].status, s[0].error), (0, ErrorKind::HeadersTooLarge));
    let (addr, _) = raw(big_head(5, 1024), false).await;
    let s = run(small, addr).await;
    assert_eq!((s[0].status, s[0].bytes_in), (200, 5), "{s:?}");
}

#[tokio::test]
async fn http2_accepts_large_response_heads_too() {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let srv = serve_with(|sock, _st| {
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(|_req| async {
                let mut r = ok("hello");
                for i in 0..100 {
                    r.headers_mut().insert(
                        http::HeaderName::from_bytes(format!("x-field-{i}").as_bytes()).unwrap(),
                        http::HeaderValue::from_str(&"v".repeat(1_000)).unwrap(),
                    );
                }
                Ok::<_, std::convert::Infallible>(r)
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(sock), svc)
                .await;
        });
    })
    .await;
    let c = AttackConfig {
        h2c: true,
        ..cfg(2)
    };
    let s = run(c, srv.addr).await;
    assert!(
        s.iter().all(|s| (s.status, s.bytes_in) == (200, 5)),
        "{s:?}"
    );
}
