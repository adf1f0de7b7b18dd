//! HTTP/2 connections: streams are shared, and a full connection makes
//! another one open, so requests do not queue inside the client.

use crate::common;
use common::*;

use std::sync::atomic::Ordering;

use hyper_util::rt::{TokioExecutor, TokioIo};
use loadlab_core::{PacerSpec, Rate};
use loadlab_engine::{AttackConfig, attack};
use loadlab_testkit::proc::{PATIENCE, until, within};

/// An h2c server that allows `streams` concurrent streams per connection and
/// answers every request after `delay_ms`.
async fn serve_h2c(streams: u32, delay_ms: u64) -> Server {
    serve_with(move |sock, st| {
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |_req| {
                let st = st.clone();
                async move {
                    let n = st.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    st.max_in_flight.fetch_max(n, Ordering::SeqCst);
                    tokio::time::sleep(ms(delay_ms)).await;
                    st.in_flight.fetch_sub(1, Ordering::SeqCst);
                    st.requests.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, std::convert::Infallible>(ok("h2"))
                }
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .max_concurrent_streams(streams)
                .serve_connection(TokioIo::new(sock), svc)
                .await;
        });
    })
    .await
}

#[tokio::test]
async fn a_full_connection_opens_another_instead_of_queueing() {
    // 400/s for 1 s at 300 ms each: about 120 requests in flight, more than
    // the 100 streams one connection carries.
    let srv = serve_h2c(100, 300).await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(400)),
        max_requests: Some(400),
        h2c: true,
        ..Default::default()
    };
    attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert_eq!(s.len(), 400);
    assert!(s.iter().all(|s| s.status == 200), "{:?}", &s[..3]);
    let conns = srv.accepted();
    assert!((2..=8).contains(&conns), "{conns} connections");
    // Nothing waited for a free stream: the server saw more than one
    // connection's worth at once (its own count; the latencies would hang
    // on the machine's load).
    let most = srv.stats.max_in_flight.load(Ordering::SeqCst);
    assert!(most > 100, "{most} in flight at most");
}

#[tokio::test]
async fn max_connections_caps_http2_connections_and_streams_queue() {
    // One connection allowed: the rest of the streams queue on it.
    let srv = serve_h2c(100, 300).await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(400)),
        max_requests: Some(200),
        h2c: true,
        max_connections: Some(1),
        ..Default::default()
    };
    attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert_eq!(s.len(), 200);
    assert!(s.iter().all(|s| s.status == 200));
    assert_eq!(srv.accepted(), 1);
    assert!(srv.stats.max_in_flight.load(Ordering::SeqCst) <= 100);
}

#[tokio::test]
async fn connections_the_server_closes_are_replaced_within_the_cap() {
    // Every connection is closed (GOAWAY) 100 ms after it opens; with one
    // connection allowed, the next request must dial anew each time.
    let srv = serve_with(|sock, _st| {
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(|_req| async {
                Ok::<_, std::convert::Infallible>(ok("h2"))
            });
            let conn = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(sock), svc);
            tokio::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => return,
                _ = tokio::time::sleep(ms(100)) => {}
            }
            conn.as_mut().graceful_shutdown();
            let _ = conn.await;
        });
    })
    .await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        max_requests: Some(100),
        h2c: true,
        max_connections: Some(1),
        timeout: ms(2000),
        ..Default::default()
    };
    // Requests left waiting for a connection would time out: the
    // successes say they were not.
    within(
        "the attack",
        PATIENCE,
        attack(c, one(&srv.url("/")), sink.boxed(), never()),
    )
    .await
    .unwrap();
    let s = sink.samples();
    assert_eq!(s.len(), 100);
    let ok = s.iter().filter(|s| s.status == 200).count();
    assert!(ok >= 90, "{ok} of 100 succeeded");
    assert!(
        s.iter()
            .all(|s| s.error != loadlab_core::ErrorKind::Timeout),
        "a request waited for a connection slot that never came back"
    );
    assert!(srv.accepted() >= 3, "{} connections", srv.accepted());
}

/// A response body that sends `first` and then nothing, ever.
struct Stalls(Option<bytes::Bytes>);

impl hyper::body::Body for Stalls {
    type Data = bytes::Bytes;
    type Error = std::convert::Infallible;
    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<hyper::body::Frame<Self::Data>, Self::Error>>> {
        match self.0.take() {
            Some(b) => std::task::Poll::Ready(Some(Ok(hyper::body::Frame::data(b)))),
            None => std::task::Poll::Pending,
        }
    }
}

#[tokio::test]
async fn an_http2_body_that_stalls_is_a_body_timeout_with_its_bytes_counted() {
    let srv = serve_with(|sock, _st| {
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(|_req| async {
                Ok::<_, std::convert::Infallible>(hyper::Response::new(Stalls(Some(
                    bytes::Bytes::from_static(b"hello"),
                ))))
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(sock), svc)
                .await;
        });
    })
    .await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        max_requests: Some(2),
        h2c: true,
        timeout: ms(300),
        ..Default::default()
    };
    attack(c, one(&srv.url("/")), sink.boxed(), never())
        .await
        .unwrap();
    for s in sink.samples() {
        assert_eq!(
            (s.status, s.error),
            (0, loadlab_core::ErrorKind::BodyTimeout),
            "{s:?}"
        );
        assert_eq!(s.bytes_in, 5);
    }
}

#[tokio::test]
async fn requests_queued_behind_a_slow_first_dial_share_its_connection() {
    // The server starts HTTP/2 on a connection only once 20 requests are
    // waiting for it (the client's own count of requests in flight): each
    // waits for the single allowed connection (the cap), and must take a
    // stream on it once it is up, not wait for the timeout.
    let live = loadlab_engine::LiveStats::new();
    let waiting = live.clone();
    let srv = serve_with(move |sock, st| {
        let waiting = waiting.clone();
        tokio::spawn(async move {
            until("20 requests waiting for the dial", PATIENCE, || {
                waiting.in_flight() >= 20
            })
            .await;
            let svc = hyper::service::service_fn(move |_req| {
                let st = st.clone();
                async move {
                    st.requests.fetch_add(1, Ordering::SeqCst);
                    Ok::<_, std::convert::Infallible>(ok("h2"))
                }
            });
            let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(sock), svc)
                .await;
        });
    })
    .await;
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(200)),
        max_requests: Some(100),
        h2c: true,
        max_connections: Some(1),
        timeout: ms(10_000),
        ..Default::default()
    };
    within(
        "the attack",
        PATIENCE,
        loadlab_engine::attack_with_live(c, one(&srv.url("/")), sink.boxed(), never(), live),
    )
    .await
    .unwrap();
    let s = sink.samples();
    assert_eq!(s.len(), 100);
    let bad: Vec<_> = s
        .iter()
        .filter(|s| s.status != 200)
        .map(|s| s.error)
        .collect();
    assert!(
        bad.is_empty(),
        "{} failed: {:?}",
        bad.len(),
        &bad[..bad.len().min(3)]
    );
    assert_eq!(srv.accepted(), 1);
}

/// The k6 face's `data_received`/`data_sent` over HTTP/2: hyper does not
/// tell the frame bytes, so the client counts the request and response as
/// HTTP/1.1 would carry them (status line, header fields, body).
#[tokio::test]
async fn the_client_counts_http2_bytes_as_on_the_wire() {
    let srv = serve_h2c(10, 0).await;
    let c = loadlab_engine::client::Client::new(&AttackConfig {
        h2c: true,
        ..Default::default()
    })
    .unwrap();
    let send = || {
        c.send(loadlab_engine::client::ClientRequest {
            method: http::Method::POST,
            url: srv.url("/p"),
            headers: vec![("X-A".into(), "1".into())],
            body: bytes::Bytes::from_static(b"abc"),
            timeout: std::time::Duration::from_secs(5),
            redirects: 0,
            keep_body: true,
            redirect_cookies: None,
            uri: None,
            owner: loadlab_engine::client::Owner::default(),
        })
    };
    let first = send().await;
    let second = send().await;
    assert_eq!((first.status, second.status), (200, 200));
    assert_eq!(second.body, b"h2");
    // The first request carries the connection's preface (24 bytes) and
    // SETTINGS (a 9-byte frame header at least) besides its own frames:
    // HEADERS and DATA, each with a 9-byte header, the body's 3 bytes.
    assert!(first.wire_out >= 24 + 9 + 9 + 9 + 3, "{}", first.wire_out);
    assert!(second.wire_out >= 9 + 9 + 3, "{}", second.wire_out);
    assert!(
        first.wire_out > second.wire_out + 24,
        "{} {}",
        first.wire_out,
        second.wire_out
    );
    // The answer's HEADERS and DATA frames, its 2 bytes; the server's
    // SETTINGS came with the first.
    assert!(second.wire_in >= 9 + 9 + 2, "{}", second.wire_in);
    assert!(
        first.wire_in > second.wire_in,
        "{} {}",
        first.wire_in,
        second.wire_in
    );
}
