//! The DSPS-like pub/sub server answers as DSPS's documented API does:
//! publish, subscribe, long poll (with and without messages), acknowledge,
//! errors; and it stops when its handle is dropped.

use loadlab_testkit::proc::BoundedOutput;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use loadlab_testkit::pubsub;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

struct Got {
    status: u16,
    headers: hyper::HeaderMap,
    body: String,
}

impl Got {
    fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {:?}", self.body))
    }
}

/// One request on a fresh connection, with a real HTTP client.
async fn req(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Got {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut tx, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let mut b = Request::builder()
        .method(method)
        .uri(path)
        .header("host", addr.to_string());
    if body.is_some() {
        b = b.header("content-type", "application/json");
    }
    let r = b
        .body(Full::new(Bytes::from(body.unwrap_or("").to_string())))
        .unwrap();
    let resp = tx.send_request(r).await.unwrap();
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().collect().await.unwrap().to_bytes();
    Got {
        status,
        headers,
        body: String::from_utf8(body.to_vec()).unwrap(),
    }
}

/// A request written byte for byte (for request targets a URI type would
/// refuse, such as the raw JSON ackHandle k6 puts in a query).
async fn raw(addr: SocketAddr, head: &str) -> (u16, String) {
    let mut c = tokio::net::TcpStream::connect(addr).await.unwrap();
    c.write_all(head.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), c.read_to_end(&mut got))
        .await
        .unwrap()
        .unwrap();
    let text = String::from_utf8_lossy(&got).into_owned();
    let status = text[9..12].parse().unwrap();
    (status, text)
}

#[tokio::test]
async fn publish_subscribe_fetch_ack_round_trip() {
    let (addr, srv) = pubsub::serve().await;

    let g = req(
        addr,
        "PUT",
        "/channel/ch-1/subscription/polling/sbsc-1",
        None,
    )
    .await;
    assert_eq!(g.status, 200, "{}", g.body);
    assert_eq!(
        g.body,
        "{\"channelID\":\"ch-1\",\"subscriberID\":\"sbsc-1\"}\n"
    );
    assert_eq!(g.headers["content-type"], "application/json");
    assert_eq!(g.headers["x-content-type-options"], "nosniff");
    // Creating it again still succeeds.
    let g = req(
        addr,
        "PUT",
        "/channel/ch-1/subscription/polling/sbsc-1",
        None,
    )
    .await;
    assert_eq!(g.status, 200);

    // Nothing yet, no wait: an empty list and no ackHandle.
    let g = req(
        addr,
        "GET",
        "/channel/ch-1/subscription/polling/sbsc-1",
        None,
    )
    .await;
    assert_eq!(g.status, 200);
    assert_eq!(
        g.body,
        "{\"channelID\":\"ch-1\",\"messages\":[],\"moreMessages\":false}\n"
    );

    for (i, at) in [(0, 1700000000001u64), (1, 1700000000002)] {
        let g = req(
            addr,
            "PUT",
            &format!("/channel/ch-1/message/1-0-{i}"),
            Some(&format!("{{\"at\":{at}}}")),
        )
        .await;
        assert_eq!(g.status, 200, "{}", g.body);
        assert_eq!(
            g.json(),
            serde_json::json!({"channelID": "ch-1", "messageID": format!("1-0-{i}")})
        );
    }
    // A duplicate message ID is accepted and delivered once.
    let g = req(
        addr,
        "PUT",
        "/channel/ch-1/message/1-0-1",
        Some("{\"at\":1700000000002}"),
    )
    .await;
    assert_eq!(g.status, 200);

    let g = req(
        addr,
        "GET",
        "/channel/ch-1/subscription/polling/sbsc-1?timeout=3s",
        None,
    )
    .await;
    assert_eq!(g.status, 200);
    let v = g.json();
    assert_eq!(v["channelID"], "ch-1");
    assert_eq!(v["moreMessages"], false);
    let msgs = v["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 2, "{}", g.body);
    assert_eq!(msgs[0]["messageID"], "1-0-0");
    assert_eq!(msgs[0]["content"]["at"], 1700000000001u64);
    assert_eq!(msgs[1]["messageID"], "1-0-1");
    // The keys come in DSPS's (alphabetical) order.
    assert!(g.body.starts_with("{\"ackHandle\":"), "{}", g.body);
    assert!(
        g.body
            .contains("[{\"content\":{\"at\":1700000000001},\"messageID\":\"1-0-0\"}"),
        "{}",
        g.body
    );
    let handle = v["ackHandle"].as_str().unwrap().to_string();
    // Shaped like real DSPS's: base64 of {"default": "<in-memory JSON handle>"}.
    let outer = base64::Engine::decode(&base64::engine::general_purpose::STANDARD, &handle)
        .unwrap_or_else(|e| panic!("{handle}: {e}"));
    let outer: serde_json::Value = serde_json::from_slice(&outer).unwrap();
    let inner: serde_json::Value =
        serde_json::from_str(outer["default"].as_str().unwrap()).unwrap();
    assert_eq!(inner["mid"], "1-0-1", "{inner}");
    assert!(inner["xs"].is_string(), "{inner}");

    // Polling again without acknowledging returns the same messages.
    let g = req(
        addr,
        "GET",
        "/channel/ch-1/subscription/polling/sbsc-1?timeout=3s",
        None,
    )
    .await;
    assert_eq!(g.json()["messages"].as_array().unwrap().len(), 2);

    // The handle sent raw in the query, as k6 sends `?ackHandle=${ackHandle}`.
    let (status, text) = raw(
        addr,
        &format!(
            "DELETE /channel/ch-1/subscription/polling/sbsc-1/message?ackHandle={handle} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        ),
    )
    .await;
    assert_eq!(status, 204, "{text}");

    let g = req(
        addr,
        "GET",
        "/channel/ch-1/subscription/polling/sbsc-1",
        None,
    )
    .await;
    assert_eq!(
        g.json()["messages"].as_array().unwrap().len(),
        0,
        "{}",
        g.body
    );
    assert!(g.json().get("ackHandle").is_none());

    // Acknowledging again (a stale handle) still succeeds.
    let enc: String = handle
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let g = req(
        addr,
        "DELETE",
        &format!("/channel/ch-1/subscription/polling/sbsc-1/message?ackHandle={enc}"),
        None,
    )
    .await;
    assert_eq!(g.status, 204, "{}", g.body);
    assert_eq!(g.body, "");

    let c = srv.counts();
    assert_eq!(c.published, 3);
    assert_eq!(c.subscribed, 2);
    assert_eq!(c.delivered, 4);
    assert_eq!(c.acks, 2);
    assert_eq!(c.acked, 2);
    assert_eq!(c.errors, 0);
}

#[tokio::test]
async fn long_poll_waits_for_a_message_and_times_out_without_one() {
    let (addr, _srv) = pubsub::serve().await;
    req(addr, "PUT", "/channel/lp/subscription/polling/s1", None).await;

    // No message: the poll lasts about its timeout and returns an empty list.
    let t = Instant::now();
    let g = req(
        addr,
        "GET",
        "/channel/lp/subscription/polling/s1?timeout=400ms",
        None,
    )
    .await;
    let took = t.elapsed();
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["messages"].as_array().unwrap().len(), 0);
    assert!(took >= Duration::from_millis(390), "{took:?}");
    assert!(took < Duration::from_secs(5), "{took:?}");

    // A message published while the poll waits ends it early.
    let poll = tokio::spawn(async move {
        let t = Instant::now();
        let g = req(
            addr,
            "GET",
            "/channel/lp/subscription/polling/s1?timeout=20s",
            None,
        )
        .await;
        (g, t.elapsed())
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let p = req(addr, "PUT", "/channel/lp/message/m1", Some("{\"at\":5}")).await;
    assert_eq!(p.status, 200);
    let (g, took) = poll.await.unwrap();
    assert_eq!(g.status, 200);
    assert_eq!(g.json()["messages"][0]["messageID"], "m1");
    assert!(g.json()["ackHandle"].is_string());
    assert!(took >= Duration::from_millis(250), "{took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[tokio::test]
async fn long_poll_timeout_is_capped_and_max_limits_the_batch() {
    let cfg = pubsub::Config {
        long_poll_max: Duration::from_millis(300),
        ..Default::default()
    };
    let (addr, _srv) = pubsub::serve_with(cfg).await;
    req(addr, "PUT", "/channel/cap/subscription/polling/s1", None).await;
    let t = Instant::now();
    let g = req(
        addr,
        "GET",
        "/channel/cap/subscription/polling/s1?timeout=1h",
        None,
    )
    .await;
    assert_eq!(g.status, 200);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());

    for i in 0..5 {
        req(
            addr,
            "PUT",
            &format!("/channel/cap/message/m{i}"),
            Some("1"),
        )
        .await;
    }
    let g = req(
        addr,
        "GET",
        "/channel/cap/subscription/polling/s1?max=2",
        None,
    )
    .await;
    let v = g.json();
    assert_eq!(v["messages"].as_array().unwrap().len(), 2);
    assert_eq!(v["moreMessages"], true);
    // Acknowledging the first batch leaves the other three.
    let h = v["ackHandle"].as_str().unwrap();
    let (status, _) = raw(
        addr,
        &format!("DELETE /channel/cap/subscription/polling/s1/message?ackHandle={h} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
    )
    .await;
    assert_eq!(status, 204);
    let g = req(addr, "GET", "/channel/cap/subscription/polling/s1", None).await;
    let ids: Vec<_> = g.json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["messageID"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["m2", "m3", "m4"]);
}

#[tokio::test]
async fn messages_reach_only_subscribers_that_existed_and_each_gets_its_own_queue() {
    let (addr, _srv) = pubsub::serve().await;
    req(addr, "PUT", "/channel/fan/message/before", Some("{}")).await;
    for s in ["a", "b"] {
        req(
            addr,
            "PUT",
            &format!("/channel/fan/subscription/polling/{s}"),
            None,
        )
        .await;
    }
    req(addr, "PUT", "/channel/fan/message/after", Some("{}")).await;
    for s in ["a", "b"] {
        let g = req(
            addr,
            "GET",
            &format!("/channel/fan/subscription/polling/{s}"),
            None,
        )
        .await;
        let v = g.json();
        let m = v["messages"].as_array().unwrap();
        assert_eq!(m.len(), 1, "{}", g.body);
        assert_eq!(m[0]["messageID"], "after");
    }
    // Deleting a subscriber: 200, and polling it then is 404.
    let g = req(addr, "DELETE", "/channel/fan/subscription/polling/a", None).await;
    assert_eq!(g.status, 200);
    assert_eq!(
        g.json(),
        serde_json::json!({"channelID": "fan", "subscriberID": "a"})
    );
    let g = req(addr, "GET", "/channel/fan/subscription/polling/a", None).await;
    assert_eq!(g.status, 404);
    assert!(g.json()["error"].is_string());
}

#[tokio::test]
async fn bad_requests_are_refused_with_a_json_error_naming_the_parameter() {
    let (addr, srv) = pubsub::serve().await;
    let g = req(addr, "PUT", "/channel/Upper/message/m1", Some("{}")).await;
    assert_eq!(g.status, 400);
    assert_eq!(g.json()["error"], "Invalid \"channelID\" parameter");
    let g = req(addr, "PUT", "/channel/ok/message/-bad", Some("{}")).await;
    assert_eq!(g.json()["error"], "Invalid \"messageID\" parameter");
    let g = req(addr, "PUT", "/channel/ok/message/m1", Some("not json")).await;
    assert_eq!(g.status, 400);
    assert_eq!(g.json()["error"], "Request body is not JSON");
    let g = req(addr, "PUT", "/channel/ok/message/m1", None).await;
    assert_eq!(g.status, 400, "an empty body is not JSON");
    req(addr, "PUT", "/channel/ok/subscription/polling/s", None).await;
    let g = req(
        addr,
        "GET",
        "/channel/ok/subscription/polling/s?timeout=3parsecs",
        None,
    )
    .await;
    assert_eq!(g.status, 400);
    assert_eq!(g.json()["error"], "Invalid \"timeout\" parameter");
    let g = req(
        addr,
        "DELETE",
        "/channel/ok/subscription/polling/s/message",
        None,
    )
    .await;
    assert_eq!(g.status, 400);
    assert_eq!(g.json()["error"], "Missing \"ackHandle\" parameter");
    let g = req(
        addr,
        "DELETE",
        "/channel/ok/subscription/polling/s/message?ackHandle=xyz",
        None,
    )
    .await;
    assert_eq!(g.status, 400);
    let g = req(addr, "GET", "/channel/ok/subscription/polling/nobody", None).await;
    assert_eq!(g.status, 404);
    let g = req(addr, "POST", "/channel/ok/message/m1", Some("{}")).await;
    assert_eq!(g.status, 405);
    let g = req(addr, "GET", "/nowhere", None).await;
    assert_eq!(g.status, 404);
    let big = format!("\"{}\"", "x".repeat(70 * 1024));
    let g = req(addr, "PUT", "/channel/ok/message/big", Some(&big)).await;
    assert_eq!(g.status, 413);
    assert_eq!(srv.counts().published, 0);
    let g = req(addr, "GET", "/probe/liveness", None).await;
    assert_eq!(g.status, 200);
    let g = req(addr, "GET", "/probe/readiness", None).await;
    assert_eq!(g.status, 200);
}

#[tokio::test]
async fn memory_stays_bounded() {
    let cfg = pubsub::Config {
        max_channels: 3,
        max_subscribers_per_channel: 2,
        max_queue: 4,
        ..Default::default()
    };
    let (addr, srv) = pubsub::serve_with(cfg).await;
    for s in ["s1", "s2"] {
        assert_eq!(
            req(
                addr,
                "PUT",
                &format!("/channel/c1/subscription/polling/{s}"),
                None
            )
            .await
            .status,
            200
        );
    }
    assert_eq!(
        req(addr, "PUT", "/channel/c1/subscription/polling/s3", None)
            .await
            .status,
        503
    );
    for i in 0..10 {
        req(addr, "PUT", &format!("/channel/c1/message/m{i}"), Some("0")).await;
    }
    let g = req(addr, "GET", "/channel/c1/subscription/polling/s1", None).await;
    let ids: Vec<_> = g.json()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["messageID"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["m6", "m7", "m8", "m9"], "the oldest are dropped");
    assert_eq!(srv.counts().dropped, 12);
    for c in ["c2", "c3"] {
        assert_eq!(
            req(addr, "PUT", &format!("/channel/{c}/message/m"), Some("0"))
                .await
                .status,
            200
        );
    }
    assert_eq!(
        req(addr, "PUT", "/channel/c4/message/m", Some("0"))
            .await
            .status,
        503
    );
    assert_eq!(srv.channels(), 3);
}

#[tokio::test]
async fn idle_channels_make_room_for_new_ones_at_the_cap() {
    let cfg = pubsub::Config {
        max_channels: 2,
        channel_idle: Duration::from_secs(1),
        ..Default::default()
    };
    let (addr, srv) = pubsub::serve_with(cfg).await;
    req(addr, "PUT", "/channel/old/subscription/polling/s", None).await;
    req(addr, "PUT", "/channel/busy/subscription/polling/s", None).await;
    assert_eq!(
        req(addr, "PUT", "/channel/new/message/m", Some("0"))
            .await
            .status,
        503,
        "nothing is idle yet"
    );
    // `old` is left alone past the idle time; `busy` is polled just before
    // the new channel is made.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    req(addr, "GET", "/channel/busy/subscription/polling/s", None).await;
    assert_eq!(
        req(addr, "PUT", "/channel/new/message/m", Some("0"))
            .await
            .status,
        200
    );
    assert_eq!(srv.channels(), 2);
    assert_eq!(
        req(addr, "GET", "/channel/old/subscription/polling/s", None)
            .await
            .status,
        404,
        "evicted with its subscriber"
    );
    assert_eq!(
        req(addr, "GET", "/channel/busy/subscription/polling/s", None)
            .await
            .status,
        200
    );
}

#[test]
fn blocking_server_stops_when_its_handle_is_dropped() {
    let (addr, srv) = pubsub::serve_blocking();
    let mut c = std::net::TcpStream::connect(addr).unwrap();
    // A long poll in flight when the server is dropped is cut, not waited for.
    std::io::Write::write_all(
        &mut c,
        b"PUT /channel/x/subscription/polling/s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n",
    )
    .unwrap();
    let head = loadlab_testkit::raw::read_head_blocking(&mut c).unwrap();
    assert!(
        head.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    std::io::Write::write_all(
        &mut c,
        b"GET /channel/x/subscription/polling/s?timeout=30s HTTP/1.1\r\nHost: x\r\n\r\n",
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let t = Instant::now();
    drop(srv);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut buf = [0u8; 256];
    let n = std::io::Read::read(&mut c, &mut buf).unwrap_or(0);
    assert!(
        n == 0 || !buf.starts_with(b"HTTP/1.1 200"),
        "{}",
        String::from_utf8_lossy(&buf[..n])
    );
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "still listening"
    );
}

#[test]
fn go_durations_parse_as_dsps_reads_them() {
    let p = pubsub::parse_go_duration;
    assert_eq!(p("3s"), Some(Duration::from_secs(3)));
    assert_eq!(p("0"), Some(Duration::ZERO));
    assert_eq!(p("300ms"), Some(Duration::from_millis(300)));
    assert_eq!(p("1m30s"), Some(Duration::from_secs(90)));
    assert_eq!(p("1.5s"), Some(Duration::from_millis(1500)));
    assert_eq!(p("2h"), Some(Duration::from_secs(7200)));
    assert_eq!(p("-1s"), Some(Duration::ZERO));
    assert_eq!(p("3"), None);
    assert_eq!(p(""), None);
    assert_eq!(p("3x"), None);
}

/// DSPS's own load-test script, unchanged, through real k6 against this
/// server: every check passes and both thresholds hold (exit 0), and the
/// server saw publishes, polls that delivered them, and acknowledgements.
#[test]
fn real_k6_runs_dsps_loadtest_script_against_it() {
    let Some(k6) = loadlab_testkit::k6::k6_or_skip("real_k6_runs_dsps_loadtest_script_against_it")
    else {
        return;
    };
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../script/tests/scripts/dsps_loadtest.k6.js");
    let dir = std::env::temp_dir().join(format!("loadlab-pubsub-k6-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let export = dir.join("summary.json");
    let (addr, srv) = pubsub::serve_blocking();
    let out = loadlab_testkit::k6::run_command(&k6)
        .arg("-q")
        .arg("--summary-export")
        .arg(&export)
        .arg(&script)
        .env("BASE_URL", format!("http://{addr}"))
        .env("CHANNELS", "2")
        .env("TEST_RAMPUP_SEC", "1")
        .env("TEST_DURATION_SEC", "2")
        .output_bounded()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "k6 exited {:?}:\n{stderr}",
        out.status
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    let m = &v["metrics"];
    assert_eq!(m["checks"]["fails"], 0, "{m}");
    assert!(m["checks"]["passes"].as_u64().unwrap() > 10, "{m}");
    assert!(
        m["dsps_fetched_messages"]["count"].as_u64().unwrap() > 0,
        "{m}"
    );
    assert!(
        m["dsps_msg_delay_ms"]["max"].as_f64().unwrap() < 3000.0,
        "{m}"
    );
    let c = srv.counts();
    assert!(c.published >= 6, "{c:?}");
    assert_eq!(c.subscribed, 6, "2 channels x 3 subscribers: {c:?}");
    assert!(c.delivered > 0 && c.acks > 0 && c.acked > 0, "{c:?}");
    assert_eq!(c.errors, 0, "{c:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}
