//! What goes on the wire: headers, bodies, Host, Content-Length, redirects,
//! and what comes back (every body byte counted).

use crate::common;
use common::*;

use bytes::Bytes;
use loadlab_core::{ErrorKind, PacerSpec, Rate};
use loadlab_engine::{AttackConfig, Target, TargetSource, attack};

fn cfg(n: u64) -> AttackConfig {
    AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        max_requests: Some(n),
        ..Default::default()
    }
}

fn header<'a>(s: &'a Seen, name: &str) -> Vec<&'a str> {
    s.headers
        .iter()
        .filter(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
        .collect()
}

#[tokio::test]
async fn headers_and_bodies_arrive() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let targets = TargetSource::Static(vec![
        Target {
            method: http::Method::POST,
            url: srv.url("/post?x=1"),
            headers: vec![("X-Target".into(), "t1".into())],
            body: Bytes::from_static(b"{\"a\":1}"),
        },
        get(&srv.url("/get")),
    ]);
    let c = AttackConfig {
        headers: vec![
            ("X-Common".into(), "c".into()),
            ("X-Multi".into(), "1".into()),
            ("X-Multi".into(), "2".into()),
        ],
        body: Some(Bytes::from_static(b"default-body")),
        ..cfg(4)
    };
    attack(c, targets, sink.boxed(), never()).await.unwrap();
    let s = sink.samples();
    assert_eq!(
        s.iter().map(|s| s.target).collect::<Vec<_>>(),
        vec![0, 1, 0, 1],
        "round robin"
    );
    assert_eq!(s[0].bytes_out, 7);
    assert_eq!(s[1].bytes_out, 12);
    let targets = sink.targets.lock().unwrap().clone();
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0].1.method, "POST");
    assert_eq!(targets[1].1.url, srv.url("/get"));
    let seen = srv.stats.seen.lock().unwrap();
    let post = seen.iter().find(|s| s.method == "POST").unwrap();
    assert_eq!(post.path, "/post?x=1");
    assert_eq!(post.body, b"{\"a\":1}");
    assert_eq!(header(post, "content-length"), vec!["7"]);
    assert_eq!(header(post, "x-target"), vec!["t1"]);
    assert_eq!(header(post, "x-common"), vec!["c"]);
    assert_eq!(header(post, "x-multi"), vec!["1", "2"]);
    assert_eq!(header(post, "host"), vec![srv.addr.to_string().as_str()]);
    let get = seen.iter().find(|s| s.method == "GET").unwrap();
    assert_eq!(get.body, b"default-body");
    assert_eq!(header(get, "x-common"), vec!["c"]);
}

#[tokio::test]
async fn host_header_override_and_large_body_is_counted() {
    // A 1 MiB response: every byte counts in bytes_in, none is kept.
    let srv = serve(handler(|_| async {
        let body = http_body_util::Full::new(Bytes::from(vec![b'z'; 1 << 20]));
        hyper::Response::new(body)
    }))
    .await;
    let sink = Collect::default();
    let t = Target {
        headers: vec![("Host".into(), "example.test".into())],
        ..get(&srv.url("/big"))
    };
    attack(cfg(3), TargetSource::Static(vec![t]), sink.boxed(), never())
        .await
        .unwrap();
    assert!(
        sink.samples()
            .iter()
            .all(|s| s.status == 200 && s.bytes_in == 1 << 20)
    );
    let seen = srv.stats.seen.lock().unwrap();
    assert!(
        seen.iter()
            .all(|s| header(s, "host") == vec!["example.test"])
    );
}

fn redirector() -> Handler {
    handler(|s: Seen| async move {
        // /r/N redirects to /r/N-1; /r/0 answers 200.
        let n: u32 = s.path.trim_start_matches("/r/").parse().unwrap_or(0);
        if n == 0 {
            ok("done")
        } else {
            hyper::Response::builder()
                .status(302)
                .header("location", format!("/r/{}", n - 1))
                .body(http_body_util::Full::new(Bytes::from_static(b"moved")))
                .unwrap()
        }
    })
}

#[tokio::test]
async fn redirects_are_followed() {
    let srv = serve(redirector()).await;
    let sink = Collect::default();
    attack(cfg(1), one(&srv.url("/r/3")), sink.boxed(), never())
        .await
        .unwrap();
    let s = sink.samples();
    assert_eq!((s[0].status, s[0].error), (200, ErrorKind::None));
    assert_eq!(s[0].bytes_in, 3 * 5 + 4, "every body byte received");
    assert_eq!(srv.requests(), 4);
}

/// vegeta's own request fields, as `loadlab attack` sends them:
/// `X-Vegeta-Seq` is each request's sequence number (its sample's `seq`)
/// and stays the same across its redirects; `X-Vegeta-Attack` is the
/// attack's name. Both replace fields of those names from the target or a
/// `-header`, over HTTP/1.1 and h2c alike.
#[tokio::test]
async fn vegeta_headers_carry_the_sequence_number_and_the_name() {
    for h2c in [false, true] {
        let srv = serve(redirector()).await;
        let sink = Collect::default();
        let t = Target {
            headers: vec![
                ("X-Vegeta-Seq".into(), "from-target".into()),
                ("x-vegeta-attack".into(), "from-target".into()),
            ],
            ..get(&srv.url("/r/1"))
        };
        let c = AttackConfig {
            name: "probe".into(),
            vegeta_headers: true,
            h2c,
            headers: vec![("X-Vegeta-Seq".into(), "from-flag".into())],
            ..cfg(5)
        };
        attack(c, TargetSource::Static(vec![t]), sink.boxed(), never())
            .await
            .unwrap();
        let s = sink.samples();
        assert_eq!(
            s.iter().map(|s| s.seq).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        assert!(s.iter().all(|s| s.status == 200), "h2c {h2c}: {s:?}");
        let seen = srv.stats.seen.lock().unwrap();
        assert_eq!(
            seen.len(),
            10,
            "h2c {h2c}: 5 requests, each redirected once"
        );
        let mut seqs: Vec<u64> = seen
            .iter()
            .map(|r| {
                let v = header(r, "x-vegeta-seq");
                assert_eq!(v.len(), 1, "h2c {h2c}: one X-Vegeta-Seq in {:?}", r.headers);
                v[0].parse().unwrap()
            })
            .collect();
        seqs.sort_unstable();
        assert_eq!(seqs, vec![0, 0, 1, 1, 2, 2, 3, 3, 4, 4], "h2c {h2c}");
        assert!(
            seen.iter()
                .all(|r| header(r, "x-vegeta-attack") == vec!["probe"]),
            "h2c {h2c}: {:?}",
            seen[0].headers
        );
    }
}

/// Without a name there is no `X-Vegeta-Attack`; and the engine's other
/// users (the ab, wrk and k6 faces, studies) send neither field.
#[tokio::test]
async fn vegeta_headers_only_where_asked() {
    let srv = serve(hello()).await;
    let c = AttackConfig {
        vegeta_headers: true,
        ..cfg(2)
    };
    attack(c, one(&srv.url("/")), Collect::default().boxed(), never())
        .await
        .unwrap();
    attack(
        cfg(2),
        one(&srv.url("/")),
        Collect::default().boxed(),
        never(),
    )
    .await
    .unwrap();
    let seen = srv.stats.seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    let seqs: Vec<Vec<&str>> = seen.iter().map(|r| header(r, "x-vegeta-seq")).collect();
    assert_eq!(seqs, vec![vec!["0"], vec!["1"], vec![], vec![]]);
    assert!(seen.iter().all(|r| header(r, "x-vegeta-attack").is_empty()));
}

#[tokio::test]
async fn too_many_redirects() {
    let srv = serve(redirector()).await;
    let sink = Collect::default();
    attack(
        AttackConfig {
            redirects: 2,
            ..cfg(1)
        },
        one(&srv.url("/r/3")),
        sink.boxed(),
        never(),
    )
    .await
    .unwrap();
    let s = sink.samples();
    assert_eq!((s[0].status, s[0].error), (0, ErrorKind::TooManyRedirects));
    assert_eq!(srv.requests(), 3);
}

#[tokio::test]
async fn redirects_not_followed_count_as_success() {
    let srv = serve(redirector()).await;
    let sink = Collect::default();
    attack(
        AttackConfig {
            redirects: -1,
            ..cfg(1)
        },
        one(&srv.url("/r/3")),
        sink.boxed(),
        never(),
    )
    .await
    .unwrap();
    let s = sink.samples();
    assert_eq!((s[0].status, s[0].error), (302, ErrorKind::None));
    assert!(s[0].is_success());
    assert_eq!(srv.requests(), 1);
}

#[tokio::test]
async fn lazy_targets_are_streamed_and_registered_once_each() {
    let srv = serve(hello()).await;
    let text = format!(
        "GET {a}\n\nGET {b}\nX-B: 1\n\nGET {a}\n",
        a = srv.url("/a"),
        b = srv.url("/b")
    );
    let src = loadlab_engine::lazy_targets(
        std::io::Cursor::new(text.into_bytes()),
        loadlab_engine::TargetFormat::Http,
        "stdin",
    );
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        ..Default::default()
    };
    let (sum, _) = attack(c, src, sink.boxed(), never()).await.unwrap();
    assert_eq!(sum.requests, 3);
    assert_eq!(sum.stop_reason, loadlab_engine::StopReason::Exhausted);
    assert_eq!(sink.targets.lock().unwrap().len(), 2);
    let idx: Vec<u32> = sink.samples().iter().map(|s| s.target).collect();
    assert_eq!(idx, vec![0, 1, 0]);
}

#[tokio::test]
async fn lazy_target_error_stops_the_attack_and_is_reported() {
    let srv = serve(hello()).await;
    let text = format!("GET {}\n\nBOGUS\n", srv.url("/a"));
    let src = loadlab_engine::lazy_targets(
        std::io::Cursor::new(text.into_bytes()),
        loadlab_engine::TargetFormat::Http,
        "t.txt",
    );
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(500)),
        ..Default::default()
    };
    let (sum, _) = attack(c, src, sink.boxed(), never()).await.unwrap();
    assert_eq!(sum.requests, 1);
    let e = sum.target_error.expect("error reported").to_string();
    assert!(e.starts_with("t.txt:3:"), "{e}");
    assert!(sink.finished.load(std::sync::atomic::Ordering::SeqCst));
}

/// A raw HTTP/1.1 server: each connection gets `responses[i % len]` per request.
async fn raw_server(responses: Vec<&'static [u8]>) -> std::net::SocketAddr {
    use tokio::io::AsyncWriteExt;
    let n = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    loadlab_testkit::raw::serve(move |mut c| {
        let (n, responses) = (n.clone(), responses.clone());
        async move {
            while loadlab_testkit::raw::read_head(&mut c).await.is_some() {
                let r = responses
                    [n.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % responses.len()];
                // Write in small pieces to exercise partial reads.
                for piece in r.chunks(7) {
                    if c.write_all(piece).await.is_err() {
                        return;
                    }
                }
                if r.starts_with(b"HTTP/1.0") {
                    return; // body delimited by the end of the connection
                }
            }
        }
    })
    .await
}

#[tokio::test]
async fn chunked_eof_delimited_and_informational_responses() {
    let addr = raw_server(vec![
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n1a;x=y\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: 1\r\n\r\n",
        b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 3\r\n\r\nabc",
        b"HTTP/1.0 200 OK\r\n\r\nuntil the end",
        b"HTTP/1.1 204 No Content\r\n\r\n",
    ])
    .await;
    let sink = Collect::default();
    let c = AttackConfig {
        max_workers: Some(1),
        ..cfg(8)
    };
    attack(c, one(&format!("http://{addr}/")), sink.boxed(), never())
        .await
        .unwrap();
    let got: Vec<(u16, u64)> = sink
        .samples()
        .iter()
        .map(|s| (s.status, s.bytes_in))
        .collect();
    assert_eq!(
        got,
        vec![
            (200, 31),
            (201, 3),
            (200, 13),
            (204, 0),
            (200, 31),
            (201, 3),
            (200, 13),
            (204, 0)
        ]
    );
}

#[tokio::test]
async fn a_lazy_generator_that_never_ends_does_not_hold_up_the_stop() {
    let srv = serve(hello()).await;
    let (tx, rx) = std::sync::mpsc::channel::<Result<Target, loadlab_engine::TargetError>>();
    tx.send(Ok(get(&srv.url("/first")))).unwrap();
    // `tx` stays alive: the iterator blocks forever after the first target.
    let src = TargetSource::Lazy(Box::new(rx.into_iter()));
    let sink = Collect::default();
    let c = AttackConfig {
        pacer: PacerSpec::Constant(Rate::per_second(100)),
        duration: Some(ms(300)),
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let (sum, _) = attack(c, src, sink.boxed(), never()).await.unwrap();
    // A hang guard (held up, the stop would wait forever), generous for a
    // loaded machine.
    assert!(t.elapsed() < ms(30_000), "took {:?}", t.elapsed());
    assert_eq!(sum.requests, 1);
    assert_eq!(sum.stop_reason, loadlab_engine::StopReason::Duration);
    drop(tx);
}

#[tokio::test]
async fn chunked_sends_bodies_in_chunks_on_a_kept_alive_connection() {
    let srv = serve(hello()).await;
    let sink = Collect::default();
    let post = |body: &'static [u8]| Target {
        method: http::Method::POST,
        url: srv.url("/p"),
        headers: vec![("Transfer-Encoding".into(), "gzip".into())],
        body: Bytes::from_static(body),
    };
    let targets =
        TargetSource::Static(vec![post(b"hello, chunks"), post(b""), get(&srv.url("/g"))]);
    let c = AttackConfig {
        chunked: true,
        workers: 1,
        max_workers: Some(1),
        ..cfg(6)
    };
    attack(c, targets, sink.boxed(), never()).await.unwrap();
    let s = sink.samples();
    assert!(s.iter().all(|s| s.status == 200), "{s:?}");
    assert_eq!(s[0].bytes_out, 13, "body bytes, not the chunk framing");
    // One connection carried all six: each chunked body ended where it should.
    assert_eq!(srv.accepted(), 1);
    let seen = srv.stats.seen.lock().unwrap();
    assert_eq!(seen.len(), 6);
    for (i, r) in seen.iter().enumerate() {
        match i % 3 {
            0 => assert_eq!(r.body, b"hello, chunks"),
            _ => assert!(r.body.is_empty()),
        }
        if r.method == "POST" {
            assert_eq!(header(r, "transfer-encoding"), vec!["chunked"], "{r:?}");
            assert!(header(r, "content-length").is_empty());
        } else {
            assert!(header(r, "transfer-encoding").is_empty());
        }
    }
}
