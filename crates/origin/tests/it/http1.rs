//! The HTTP/1.1 wire: keep-alive, pipelining, HTTP/1.0, request bodies, Expect, bad requests.

use crate::common;

use std::time::Duration;

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const RECIPE: &str = r#"[{"route":"/small","body":"hello","stages":[{"at":0,"status":200,"latency":0}]},
                         {"route":"/big","random_content":"100kb","stages":[{"at":0,"status":200,"latency":0}]}]"#;

/// Reads exactly `n` complete responses (heads + content-length bodies) from `s`.
async fn read_responses(s: &mut TcpStream, n: usize) -> Vec<(u16, String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut out = Vec::new();
    let mut chunk = vec![0u8; 65536];
    while out.len() < n {
        while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_string();
            let len: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse().unwrap())
                })
                .unwrap_or(0);
            if buf.len() < end + 4 + len {
                break;
            }
            let status = head.split(' ').nth(1).unwrap().parse().unwrap();
            out.push((status, head, buf[end + 4..end + 4 + len].to_vec()));
            buf.drain(..end + 4 + len);
            if out.len() == n {
                return out;
            }
        }
        let r = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk))
            .await
            .expect("response in time")
            .unwrap();
        assert!(r > 0, "connection closed after {} responses", out.len());
        buf.extend_from_slice(&chunk[..r]);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_and_pipelining() {
    let o = start_with(RECIPE);
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    // Three pipelined requests in one write, including a large (sendfile) body.
    s.write_all(b"GET /small HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let r = read_responses(&mut s, 3).await;
    assert_eq!(r[0].2, b"hello");
    assert_eq!(r[1].2.len(), 100 * 1024);
    assert_eq!(r[2].2, b"hello");
    assert!(r[0].1.to_ascii_lowercase().contains("\r\ndate: "));
    // The same connection keeps serving.
    for _ in 0..20 {
        s.write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(read_responses(&mut s, 1).await[0].2.len(), 100 * 1024);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http10_closes_unless_keep_alive() {
    let o = start_with(RECIPE);
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /small HTTP/1.0\r\n\r\n").await.unwrap();
    let mut all = Vec::new();
    s.read_to_end(&mut all).await.unwrap();
    assert!(String::from_utf8_lossy(&all).ends_with("\r\n\r\nhello"));

    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").await.unwrap();
    assert_eq!(read_responses(&mut s, 2).await.len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_bodies_are_skipped_and_expect_continue_is_answered() {
    let o = start_with(RECIPE);
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"POST /small HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\nhello worldGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let r = read_responses(&mut s, 2).await;
    assert_eq!((r[0].0, r[1].0), (200, 200));

    // Expect: 100-continue on the admin API (curl does this for bodies over 1 KiB).
    let recipe = format!(
        r#"{{"route":"/e","body":"{}","stages":[{{"at":0,"status":200}}]}}"#,
        "e".repeat(2000)
    );
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    let head = format!(
        "POST /_admin/add_recipe HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        recipe.len()
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let mut first = vec![0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut first))
        .await
        .unwrap()
        .unwrap();
    assert!(first[..n].starts_with(b"HTTP/1.1 100 Continue\r\n\r\n"));
    s.write_all(recipe.as_bytes()).await.unwrap();
    assert_eq!(read_responses(&mut s, 1).await[0].0, 201);
    assert_eq!(get(o.addr, "/e").await.body.len(), 2000);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunked_request_body_gets_an_answer_then_close() {
    let o = start_with(RECIPE);
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n").await.unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut all))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&all);
    assert!(text.starts_with("HTTP/1.1 200 OK"), "{text}");
    assert!(text.contains("connection: close"));
}

/// A slow head, a stalled body and an idle connection are each closed after
/// their limit; a slow answer the recipe asks for is not. Each wait is for
/// the server's close (EOF), bounded.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_or_idle_clients_are_closed_after_their_limits() {
    let recipes = loadlab_origin::parse_recipes(
        r#"[{"route":"/slow","body":"late","stages":[{"at":0,"status":200,"latency":"600ms"}]}]"#,
    )
    .unwrap();
    let limit = Duration::from_millis(200);
    let o = start(loadlab_origin::OriginConfig {
        recipes,
        timeouts: loadlab_origin::Timeouts {
            header: limit,
            body: limit,
            idle: limit,
        },
        ..Default::default()
    });
    let closed = |mut s: TcpStream| async move {
        let mut all = Vec::new();
        let r = tokio::time::timeout(Duration::from_secs(30), s.read_to_end(&mut all)).await;
        assert!(r.is_ok(), "the origin kept the connection open");
        String::from_utf8_lossy(&all).into_owned()
    };
    // Nothing sent at all.
    let s = TcpStream::connect(o.addr).await.unwrap();
    assert_eq!(closed(s).await, "");
    // Half a head.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /slow HTTP/1.1\r\nHo").await.unwrap();
    assert_eq!(closed(s).await, "");
    // A body that stops.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
        .await
        .unwrap();
    assert_eq!(closed(s).await, "");
    // A keep-alive connection: its answer comes whole though it takes longer
    // than every limit, then the idle connection is closed.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let all = closed(s).await;
    assert!(
        all.starts_with("HTTP/1.1 200") && all.ends_with("late"),
        "{all}"
    );
}

/// RFC 9112: the request-smuggling framings (a Transfer-Encoding whose last
/// coding is not chunked, or one beside a Content-Length) and a missing or
/// doubled Host get 400 and a close: the pipelined request behind them is
/// never served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn smuggling_framings_and_bad_host_get_400_and_close() {
    let o = start_with(RECIPE);
    for head in [
        "Host: x\r\nTransfer-Encoding: xchunked\r\nContent-Length: 5\r\n",
        "Host: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n",
        "Host: x\r\nTransfer-Encoding: chunked, gzip\r\n",
        "Host: x\r\nTransfer-Encoding: gzip\r\n",
        "Content-Length: 5\r\n",
        "Host: x\r\nHost: y\r\nContent-Length: 5\r\n",
    ] {
        let mut s = TcpStream::connect(o.addr).await.unwrap();
        let req = format!(
            "POST /small HTTP/1.1\r\n{head}\r\nhelloGET /small HTTP/1.1\r\nHost: x\r\n\r\n"
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let all = read_to_close(&mut s).await;
        assert!(all.starts_with("HTTP/1.1 400"), "{head:?}: {all}");
        assert_eq!(all.matches("HTTP/1.1 ").count(), 1, "{head:?}: {all}");
    }
    // HTTP/1.0 needs no Host.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /small HTTP/1.0\r\n\r\n").await.unwrap();
    assert!(read_to_close(&mut s).await.starts_with("HTTP/1.1 200"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_get_400() {
    let o = start_with(RECIPE);
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GARBAGE\x01 / HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut all))
        .await
        .unwrap()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&all).starts_with("HTTP/1.1 400"),
        "{}",
        String::from_utf8_lossy(&all)
    );
    // The server is unaffected.
    assert_eq!(get(o.addr, "/small").await.text(), "hello");
}

/// RFC 9112 §6.3: a Content-Length that is not 1*DIGIT, or several that
/// disagree, is a framing error (400 and close), never a guess at the body.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_or_conflicting_content_length_gets_400() {
    let o = start_with(RECIPE);
    for head in [
        "Content-Length: +5\r\n",
        "Content-Length: -1\r\n",
        "Content-Length: 5, 6\r\n",
        "Content-Length: 5\r\nContent-Length: 6\r\n",
        "Content-Length: \r\n",
    ] {
        let mut s = TcpStream::connect(o.addr).await.unwrap();
        let req = format!("POST /small HTTP/1.1\r\nHost: x\r\n{head}\r\nhello");
        s.write_all(req.as_bytes()).await.unwrap();
        let mut all = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut all))
            .await
            .unwrap()
            .unwrap();
        let text = String::from_utf8_lossy(&all);
        assert!(text.starts_with("HTTP/1.1 400"), "{head:?}: {text}");
    }
    // The same value repeated is one value (RFC 9112 allows accepting it).
    for head in [
        "Content-Length: 5, 5\r\n",
        "Content-Length: 5\r\nContent-Length: 5\r\n",
    ] {
        let mut s = TcpStream::connect(o.addr).await.unwrap();
        let req = format!(
            "POST /small HTTP/1.1\r\nHost: x\r\n{head}\r\nhelloGET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let got = read_responses(&mut s, 2).await;
        assert_eq!(
            got.iter().map(|r| r.0).collect::<Vec<_>>(),
            [200, 200],
            "{head:?}"
        );
        assert_eq!(got[1].2, b"hello", "{head:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_keep_alive_connections() {
    let o = start_with(RECIPE);
    let tasks: Vec<_> = (0..200)
        .map(|_| {
            let addr = o.addr;
            tokio::spawn(async move {
                let mut s = TcpStream::connect(addr).await.unwrap();
                for _ in 0..5 {
                    s.write_all(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
                        .await
                        .unwrap();
                    assert_eq!(read_responses(&mut s, 1).await[0].2.len(), 100 * 1024);
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    let stats = get(o.addr, "/_admin/stats").await.json();
    let big = stats["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["route"] == "/big")
        .unwrap()
        .clone();
    assert_eq!(big["by_status"]["200"], 1000);
}

/// Reads until the server closes (bounded), returning everything.
async fn read_to_close(s: &mut TcpStream) -> String {
    let mut all = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut all))
        .await
        .expect("server closes in time")
        .unwrap();
    String::from_utf8_lossy(&all).into_owned()
}

fn connection_values(head: &str) -> Vec<String> {
    head.lines()
        .filter_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("connection")
                .then(|| v.trim().to_string())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipe_connection_header_is_sent_and_connection_handling_stays_right() {
    // OriginSimulator's README example: `"connection": "keepalive"` in headers.
    let o = start_with(
        r#"[{"route":"/news","body":"news","headers":{"connection":"keepalive","cache-control":"private, max-age=0, no-cache"},
             "stages":[{"at":0,"status":200,"latency":"0ms"}]},
            {"route":"/down","body":"x","headers":{"connection":"keepalive"},
             "stages":[{"at":0,"status":503,"latency":"0ms"}]},
            {"route":"/bye","body":"bye","headers":{"connection":"close"},
             "stages":[{"at":0,"status":200,"latency":"0ms"}]}]"#,
    );
    // Keep-alive: the recipe's value is sent as written, exactly once, and the
    // connection keeps serving.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    for path in ["/news", "/down", "/news"] {
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let r = read_responses(&mut s, 1).await;
        assert_eq!(connection_values(&r[0].1), vec!["keepalive"], "{}", r[0].1);
    }
    // The client asks to close: the header says close too (with the recipe's
    // token after it, as OriginSimulator's Cowboy writes it), and the server closes.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /news HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let all = read_to_close(&mut s).await;
    assert_eq!(connection_values(&all), vec!["close, keepalive"], "{all}");
    assert!(all.ends_with("\r\n\r\nnews"), "{all}");
    // A recipe that says close is obeyed: the response says so, then the
    // connection ends, even though the client wanted to keep it.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    s.write_all(b"GET /bye HTTP/1.1\r\nHost: x\r\n\r\nGET /bye HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let all = read_to_close(&mut s).await;
    assert_eq!(connection_values(&all), vec!["close"], "{all}");
    assert_eq!(all.matches("HTTP/1.1 200").count(), 1, "{all}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_head_over_64_kib_gets_431() {
    let o = start_with(RECIPE);
    // One 100 KB header field, sent in one write so that the whole head can
    // arrive in a single read.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    let req = format!(
        "GET /small HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(100 * 1000)
    );
    s.write_all(req.as_bytes()).await.unwrap();
    let all = read_to_close(&mut s).await;
    assert!(
        all.starts_with("HTTP/1.1 431 "),
        "{}",
        &all[..all.len().min(200)]
    );
    assert!(all.to_ascii_lowercase().contains("connection: close"));
    // Just under the limit is served.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    let req = format!(
        "GET /small HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(60 * 1024)
    );
    s.write_all(req.as_bytes()).await.unwrap();
    assert_eq!(read_responses(&mut s, 1).await[0].2, b"hello");
    // Many requests' worth of small pipelined heads are not one big head.
    let mut s = TcpStream::connect(o.addr).await.unwrap();
    let one = format!(
        "GET /small HTTP/1.1\r\nHost: x\r\nX-Pad: {}\r\n\r\n",
        "p".repeat(1000)
    );
    s.write_all(one.repeat(100).as_bytes()).await.unwrap();
    assert_eq!(read_responses(&mut s, 100).await.len(), 100);
}
