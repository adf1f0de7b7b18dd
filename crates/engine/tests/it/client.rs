//! `Client`: one request at a time over the engine's transport, keeping the
//! response's header fields and body (Content-Length, chunked, to the end of
//! the stream), reusing the connection, and timing out as data.

use std::time::Duration;

use bytes::Bytes;
use loadlab_core::ErrorKind;
use loadlab_engine::AttackConfig;
use loadlab_engine::client::{Client, ClientRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Answers each request on a connection with the next of `responses`
/// (raw bytes), closing after the last.
async fn raw_server(responses: Vec<&'static [u8]>) -> std::net::SocketAddr {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut s, _) = l.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        for r in responses {
            let mut got = Vec::new();
            while !got.windows(4).any(|w| w == b"\r\n\r\n") {
                let n = s.read(&mut buf).await.unwrap();
                if n == 0 {
                    return;
                }
                got.extend_from_slice(&buf[..n]);
            }
            s.write_all(r).await.unwrap();
        }
    });
    addr
}

fn req(url: String) -> ClientRequest {
    ClientRequest {
        method: http::Method::GET,
        url,
        headers: vec![("X-A".into(), "1".into())],
        body: Bytes::new(),
        timeout: Duration::from_secs(5),
        redirects: 10,
        keep_body: true,
        redirect_cookies: None,
        uri: None,
        owner: loadlab_engine::client::Owner::default(),
    }
}

#[tokio::test]
async fn keeps_headers_and_bodies_of_every_framing_on_one_connection() {
    let addr = raw_server(vec![
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-B: 2\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end",
    ])
    .await;
    let c = Client::new(&AttackConfig::default()).unwrap();
    let url = format!("http://{addr}/x");
    let a = c.send(req(url.clone())).await;
    assert_eq!(a.status, 200);
    assert_eq!(a.body, b"hello");
    assert!(
        a.headers
            .iter()
            .any(|(k, v)| k == "Content-Type" && v == "text/plain")
    );
    assert!(a.connect > Duration::ZERO);
    let b = c.send(req(url.clone())).await;
    assert_eq!((b.status, b.error), (201, ErrorKind::None));
    assert_eq!(b.body, b"abcdefg");
    assert_eq!(b.bytes_in, 7);
    // The bytes on the wire (k6's data_received/data_sent): the whole
    // response, chunk framing included, and the whole request.
    assert_eq!(
        b.wire_in,
        b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-B: 2\r\n\r\n3\r\nabc\r\n4\r\ndefg\r\n0\r\n\r\n".len() as u64
    );
    assert_eq!(
        a.wire_in,
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello".len()
            as u64
    );
    let head = format!(
        "GET /x HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: loadlab\r\nX-A: 1\r\nAccept-Encoding: gzip\r\n\r\n"
    );
    assert_eq!(b.wire_out, head.len() as u64);
    assert!(b.headers.iter().any(|(k, v)| k == "X-B" && v == "2"));
    assert_eq!(b.connect, Duration::ZERO, "the connection was reused");
    let e = c.send(req(url.clone())).await;
    assert_eq!(e.body, b"to the end");
    assert!(e.first_byte.is_some() && e.done >= e.sent);
    // keep_body false: counted, not kept.
    let addr2 = raw_server(vec![b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nxyz"]).await;
    let mut r = req(format!("http://{addr2}/"));
    r.keep_body = false;
    let n = c.send(r).await;
    assert_eq!((n.bytes_in, n.body.len()), (3, 0));
}

#[tokio::test]
async fn a_stalled_server_is_a_timeout_not_an_error() {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let _hold = tokio::spawn(async move {
        let (_s, _) = l.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(10)).await;
    });
    let c = Client::new(&AttackConfig::default()).unwrap();
    let mut r = req(format!("http://{addr}/"));
    r.timeout = Duration::from_millis(200);
    let t0 = std::time::Instant::now();
    let resp = c.send(r).await;
    // Its own timeout ended it, long before the server would (at 10 s).
    assert!(t0.elapsed() < Duration::from_secs(9));
    assert_eq!(resp.status, 0);
    assert_eq!(resp.error, ErrorKind::Timeout);
}

/// Polls `f` once; `Some` when it is done.
async fn poll_once<F: std::future::Future + Unpin>(f: &mut F) -> Option<F::Output> {
    use std::task::Poll;
    std::future::poll_fn(|cx| {
        Poll::Ready(match std::pin::Pin::new(&mut *f).poll(cx) {
            Poll::Ready(v) => Some(v),
            Poll::Pending => None,
        })
    })
    .await
}

/// `send_polled` has no timer: its deadline (`begin + timeout`) is checked
/// when it is polled, by a caller that keeps the deadlines itself (the k6
/// face's scheduler). Before the deadline it waits; polled at it, a
/// stalled response is a timeout, one that stalled in its body a body
/// timeout; an answered one is unaffected.
#[tokio::test]
async fn send_polled_times_out_when_polled_at_its_deadline() {
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    let _srv = tokio::spawn(async move {
        loop {
            let (mut s, _) = l.accept().await.unwrap();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let head = String::from_utf8_lossy(&buf[..n]).to_string();
                if head.starts_with("GET /body") {
                    s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
                        .await
                        .unwrap();
                } else if head.starts_with("GET /ok") {
                    s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        .await
                        .unwrap();
                }
                tokio::time::sleep(Duration::from_secs(10)).await;
            });
        }
    });
    let c = Client::new(&AttackConfig::default()).unwrap();
    for (path, want) in [
        ("/head", ErrorKind::Timeout),
        ("/body", ErrorKind::BodyTimeout),
        ("/ok", ErrorKind::None),
    ] {
        // The answered request's deadline is far enough that a loaded
        // machine cannot reach it before the answer; the stalled ones' is
        // short.
        let timeout = if want == ErrorKind::None {
            Duration::from_secs(30)
        } else {
            Duration::from_millis(300)
        };
        let mut r = req(format!("http://{addr}{path}"));
        r.timeout = timeout;
        let begin = tokio::time::Instant::now();
        let mut f = Box::pin(c.send_polled(r, begin));
        let mut polls = 0;
        // When each poll came.
        let mut at = Vec::new();
        let resp = loop {
            polls += 1;
            assert!(polls < 1000, "{path}: never ended");
            at.push(begin.elapsed());
            if let Some(resp) = poll_once(&mut f).await {
                break resp;
            }
            // No timer of its own: only our polls (every 50 ms) end it.
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        let took = begin.elapsed();
        assert_eq!(resp.error, want, "{path}");
        if want == ErrorKind::None {
            assert_eq!((resp.status, resp.body.as_slice()), (200, &b"ok"[..]));
            assert!(took < timeout, "{path}: {took:?}");
        } else {
            assert_eq!(resp.status, 0, "{path}");
            // Ended by the first poll at or past its deadline, not sooner
            // and not by a later one.
            let before_last = at.len().checked_sub(2).map_or(Duration::ZERO, |i| at[i]);
            assert!(
                before_last < timeout && took >= timeout,
                "{path}: polls at {at:?}, ended at {took:?}"
            );
        }
    }
}

/// The k6 face's redirects: each redirect response comes back as a
/// response of its own (status, URL, header fields, wire bytes, instants
/// in order), the final one alone in the response's own fields, its URL
/// the last; the limit reached answers with the last 3xx, not a failure.
#[tokio::test]
async fn redirects_come_back_hop_by_hop() {
    const R1: &[u8] = b"HTTP/1.1 302 Found\r\nLocation: /b\r\nContent-Length: 0\r\n\r\n";
    const R2: &[u8] =
        b"HTTP/1.1 301 Moved Permanently\r\nLocation: /c?q=1\r\nContent-Length: 3\r\n\r\nmov";
    const R3: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone";
    let addr = raw_server(vec![R1, R2, R3]).await;
    let c = Client::new(&AttackConfig::default()).unwrap();
    let r = c.send(req(format!("http://{addr}/a"))).await;
    assert_eq!((r.status, r.error), (200, ErrorKind::None));
    assert_eq!(r.body, b"done");
    assert_eq!(
        r.url.as_deref(),
        Some(format!("http://{addr}/c?q=1").as_str())
    );
    assert_eq!(r.wire_in, R3.len() as u64);
    assert_eq!(r.bytes_in, 4);
    assert!(!r.redirect_stopped);
    let hops: Vec<(u16, Option<&str>, u64)> = r
        .redirects
        .iter()
        .map(|h| (h.status, h.url.as_deref(), h.wire_in))
        .collect();
    let b = format!("http://{addr}/b");
    assert_eq!(
        hops,
        [
            (302, None, R1.len() as u64),
            (301, Some(b.as_str()), R2.len() as u64)
        ]
    );
    assert!(
        r.redirects[1]
            .headers
            .iter()
            .any(|(k, v)| k == "Location" && v == "/c?q=1")
    );
    assert!(
        r.redirects
            .iter()
            .all(|h| h.body.is_empty() && h.redirects.is_empty())
    );
    // Each hop's request went out after the one before it was done.
    assert!(r.redirects[0].done <= r.redirects[1].sent);
    assert!(r.redirects[1].done <= r.sent);
    assert!(r.redirects.iter().all(|h| h.wire_out > 0) && r.wire_out > 0);

    // Limit 1: the second redirect is the answer, as it is.
    let addr = raw_server(vec![R1, R2, R3]).await;
    let mut q = req(format!("http://{addr}/a"));
    q.redirects = 1;
    let r = c.send(q).await;
    assert_eq!((r.status, r.error), (301, ErrorKind::None));
    assert!(r.redirect_stopped);
    assert_eq!(r.url.as_deref(), Some(format!("http://{addr}/b").as_str()));
    assert_eq!(r.body, b"mov");
    assert_eq!(r.redirects.len(), 1);
}

/// Two requests checked before either is sent (as a k6 batch is): each is
/// sent to its own URL, parsed once by `check_url` and carried in the
/// request (no per-thread hand-off for a later check to replace).
#[tokio::test]
async fn requests_carry_the_url_their_check_parsed() {
    let a = raw_server(vec![b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"]).await;
    let b = raw_server(vec![b"HTTP/1.1 201 Created\r\nContent-Length: 1\r\n\r\nb"]).await;
    let (url_a, url_b) = (format!("http://{a}/a"), format!("http://{b}/b"));
    let uri_a = Client::check_url(&url_a).unwrap();
    let uri_b = Client::check_url(&url_b).unwrap();
    assert_eq!(uri_a.path(), "/a");
    let c = Client::new(&AttackConfig::default()).unwrap();
    let ra = c
        .send(ClientRequest {
            uri: Some(uri_a),
            owner: loadlab_engine::client::Owner::default(),
            ..req(url_a)
        })
        .await;
    let rb = c
        .send(ClientRequest {
            uri: Some(uri_b),
            owner: loadlab_engine::client::Owner::default(),
            ..req(url_b)
        })
        .await;
    assert_eq!((ra.status, ra.body.as_slice()), (200, &b"a"[..]));
    assert_eq!((rb.status, rb.body.as_slice()), (201, &b"b"[..]));
}
