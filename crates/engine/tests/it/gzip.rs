//! gzip bodies as Go's client treats them: decoded (and counted decoded,
//! vegeta's `bytes_in`) when the engine asked for gzip itself, counted as
//! they came otherwise, and the bytes as they came kept apart (`wire_in`).
//! A body that says gzip and is not fails the request, as in vegeta.

use crate::common;
use common::*;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use loadlab_core::{ErrorKind, PacerSpec, Rate, Sample};
use loadlab_engine::client::{Client, ClientRequest};
use loadlab_engine::{AttackConfig, Target, TargetSource, attack};
use tokio::io::AsyncWriteExt;

/// A 60,065-byte HTML page, compressible as pages are.
fn page() -> Vec<u8> {
    let mut p = b"<!doctype html><html><body>\n".to_vec();
    let mut i = 0u32;
    while p.len() < 60_065 - 15 {
        let line = format!("<p id=\"r{i}\">row {} of the table</p>\n", i % 97);
        p.extend_from_slice(line.as_bytes());
        i += 1;
    }
    p.truncate(60_065 - 15);
    p.extend_from_slice(b"</body></html>\n");
    assert_eq!(p.len(), 60_065);
    p
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

fn header<'a>(s: &'a Seen, name: &str) -> Vec<&'a str> {
    s.headers
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

/// Serves the page gzip-compressed to requests that accept gzip, plain to
/// the others; `/r` redirects to `/page`.
async fn page_server() -> (Server, usize) {
    let plain = Bytes::from(page());
    let zipped = Bytes::from(gzip(&plain));
    let n = zipped.len();
    let srv = serve(handler(move |s: Seen| {
        let (plain, zipped) = (plain.clone(), zipped.clone());
        async move {
            let b = hyper::Response::builder();
            if s.path == "/r" {
                return b
                    .status(302)
                    .header("location", "/page")
                    .body(Default::default())
                    .unwrap();
            }
            if header(&s, "accept-encoding")
                .iter()
                .any(|v| v.contains("gzip"))
            {
                b.header("content-encoding", "gzip")
                    .body(http_body_util::Full::new(zipped))
                    .unwrap()
            } else {
                b.body(http_body_util::Full::new(plain)).unwrap()
            }
        }
    }))
    .await;
    (srv, n)
}

fn cfg(n: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(n),
        ..Default::default()
    }
}

/// Attacks `t` on `srv` with `c`: the samples, and the `Accept-Encoding`
/// each request carried.
async fn run(srv: &Server, c: AttackConfig, t: Target) -> (Vec<Sample>, Vec<String>) {
    srv.stats.seen.lock().unwrap().clear();
    let sink = Collect::default();
    attack(c, TargetSource::Static(vec![t]), sink.boxed(), never())
        .await
        .unwrap();
    let seen = srv.stats.seen.lock().unwrap().clone();
    let asked = seen
        .iter()
        .map(|s| header(s, "accept-encoding").join("|"))
        .collect();
    (sink.samples(), asked)
}

#[tokio::test]
async fn a_gzip_body_the_engine_asked_for_counts_decoded_and_its_wire_bytes_apart() {
    let (srv, zipped) = page_server().await;
    let zipped = zipped as u64;
    assert!(zipped < 60_065 / 4, "the page compresses: {zipped}");
    for h2c in [false, true] {
        let c = AttackConfig { h2c, ..cfg(3) };
        let (s, asked) = run(&srv, c, get(&srv.url("/page"))).await;
        assert_eq!(asked, vec!["gzip"; 3], "h2c {h2c}");
        for s in &s {
            assert_eq!((s.status, s.error), (200, ErrorKind::None), "{s:?}");
            assert_eq!(s.bytes_in, 60_065, "h2c {h2c}: vegeta's count, decoded");
            assert_eq!(s.wire_bytes_in(), zipped, "h2c {h2c}: as it came");
            assert_eq!(s.wire_in, zipped);
        }
    }
    // A redirect asks for gzip again, and its answer is decoded.
    let (s, asked) = run(&srv, cfg(1), get(&srv.url("/r"))).await;
    assert_eq!(asked, vec!["gzip", "gzip"]);
    assert_eq!((s[0].status, s[0].bytes_in), (200, 60_065));
    assert_eq!(s[0].wire_bytes_in(), zipped);
}

#[tokio::test]
async fn a_request_choosing_its_encoding_gets_its_bodies_counted_as_they_came() {
    let (srv, zipped) = page_server().await;
    let with = |k: &str, v: &str| Target {
        headers: vec![(k.into(), v.into())],
        ..get(&srv.url("/page"))
    };
    // Its own `Accept-Encoding: gzip`: the gzip bytes, not decoded (as Go).
    let (s, asked) = run(&srv, cfg(2), with("Accept-Encoding", "gzip")).await;
    assert_eq!(asked, vec!["gzip", "gzip"]);
    for s in &s {
        assert_eq!((s.status, s.bytes_in, s.wire_in), (200, zipped as u64, 0));
    }
    // Another encoding, or none asked for: the plain page.
    let (s, asked) = run(&srv, cfg(1), with("Accept-Encoding", "br")).await;
    assert_eq!(asked, vec!["br"]);
    assert_eq!((s[0].bytes_in, s[0].wire_in), (60_065, 0));
    let off = AttackConfig {
        compression: false,
        ..cfg(1)
    };
    let (s, asked) = run(&srv, off, get(&srv.url("/page"))).await;
    assert_eq!(asked, vec![""]);
    assert_eq!((s[0].bytes_in, s[0].wire_in), (60_065, 0));
    // As Go's client: no gzip asked for a range, nor for a HEAD.
    let (_, asked) = run(&srv, cfg(1), with("Range", "bytes=0-99")).await;
    assert_eq!(asked, vec![""]);
    let head = Target {
        method: http::Method::HEAD,
        ..get(&srv.url("/page"))
    };
    let (s, asked) = run(&srv, cfg(1), head).await;
    assert_eq!(asked, vec![""]);
    assert_eq!((s[0].status, s[0].bytes_in), (200, 0));
}

/// A raw HTTP/1.1 server answering its `i`th request (on whichever
/// connection) with `responses[i % len]`, keeping connections open.
async fn raw(responses: Vec<Vec<u8>>) -> std::net::SocketAddr {
    let responses = Arc::new(responses);
    let next = Arc::new(AtomicUsize::new(0));
    loadlab_testkit::raw::serve(move |mut c| {
        let (responses, next) = (responses.clone(), next.clone());
        async move {
            while loadlab_testkit::raw::read_head(&mut c).await.is_some() {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if c.write_all(&responses[i % responses.len()]).await.is_err() {
                    return;
                }
            }
        }
    })
    .await
}

fn response(head: &str, body: &[u8]) -> Vec<u8> {
    let mut r = format!("HTTP/1.1 200 OK\r\n{head}\r\n").into_bytes();
    r.extend_from_slice(body);
    r
}

#[tokio::test]
async fn a_body_that_says_gzip_and_is_not_fails_as_in_vegeta() {
    let good = gzip(b"<p>fine</p>");
    let cut = &good[..good.len() - 4];
    let plain = b"<html>not compressed</html>";
    let mut chunked = Vec::new();
    for c in good.chunks(5) {
        chunked.extend_from_slice(format!("{:x}\r\n", c.len()).as_bytes());
        chunked.extend_from_slice(c);
        chunked.extend_from_slice(b"\r\n");
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    let addr = raw(vec![
        response(
            &format!(
                "Content-Encoding: gzip\r\nContent-Length: {}\r\n",
                plain.len()
            ),
            plain,
        ),
        response(
            &format!(
                "Content-Encoding: gzip\r\nContent-Length: {}\r\n",
                cut.len()
            ),
            cut,
        ),
        // Chunked framing, and the field's value in another case.
        response(
            "Content-Encoding:  GZIP \r\nTransfer-Encoding: chunked\r\n",
            &chunked,
        ),
        // Go decodes only when the field is exactly gzip.
        response(
            &format!(
                "Content-Encoding: gzip, identity\r\nContent-Length: {}\r\n",
                plain.len()
            ),
            plain,
        ),
    ])
    .await;
    let c = AttackConfig {
        max_workers: Some(1),
        ..cfg(4)
    };
    let sink = Collect::default();
    attack(c, one(&format!("http://{addr}/")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    let got: Vec<_> = s
        .iter()
        .map(|s| (s.status, s.error, s.bytes_in, s.wire_in))
        .collect();
    assert_eq!(
        got,
        vec![
            // Not gzip at all, then cut short: failed, counted as they came.
            (0, ErrorKind::BadGzip, plain.len() as u64, 0),
            (0, ErrorKind::BadGzip, cut.len() as u64, 0),
            (200, ErrorKind::None, 11, good.len() as u64),
            (200, ErrorKind::None, plain.len() as u64, 0),
        ]
    );
}

#[tokio::test]
async fn a_client_keeping_bodies_keeps_the_decoded_body() {
    let (srv, zipped) = page_server().await;
    let c = Client::new(&AttackConfig::default()).unwrap();
    let mut req = ClientRequest {
        method: http::Method::GET,
        url: srv.url("/page"),
        headers: vec![],
        body: Bytes::new(),
        timeout: std::time::Duration::from_secs(5),
        redirects: 10,
        keep_body: true,
        redirect_cookies: None,
        uri: None,
        owner: Default::default(),
    };
    let r = c.send(req.clone()).await;
    assert_eq!((r.status, r.error), (200, ErrorKind::None));
    assert_eq!(r.body, page());
    assert_eq!((r.bytes_in, r.body_wire), (60_065, zipped as u64));
    req.keep_body = false;
    let r = c.send(req).await;
    assert_eq!(
        (r.bytes_in, r.body_wire, r.body.len()),
        (60_065, zipped as u64, 0)
    );
}
