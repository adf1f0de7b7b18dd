//! Origin fetch: once, at acceptance; status and content type preserved; failures refused cleanly.

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetched_once_with_status_and_content_type() {
    let hits = Arc::new(AtomicUsize::new(0));
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let up = l.local_addr().unwrap();
    let h2 = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = l.accept().await {
            h2.fetch_add(1, Ordering::SeqCst);
            let mut buf = vec![0u8; 4096];
            let n = s.read(&mut buf).await.unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            // The recipe's headers travel with the fetch.
            let tag = if req.to_ascii_lowercase().contains("x-team: news") {
                "tagged"
            } else {
                "plain"
            };
            let body = format!("<feed>{tag}</feed>");
            let resp = format!(
                "HTTP/1.1 404 Not Found\r\nContent-Type: application/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(resp.as_bytes()).await;
        }
    });
    let o = start(Default::default());
    let recipe = format!(
        r#"{{"route":"/feed","origin":"http://{up}/feed.xml","headers":{{"x-team":"news"}},"stages":[{{"at":0,"status":200,"latency":0}}]}}"#
    );
    assert_eq!(post_recipe(o.addr, &recipe).await.status, 201);
    for _ in 0..5 {
        let r = get(o.addr, "/feed").await;
        assert_eq!(r.status, 404, "the origin's status is preserved");
        assert_eq!(r.header("content-type"), Some("application/xml"));
        assert_eq!(r.text(), "<feed>tagged</feed>");
        assert_eq!(r.header("x-team"), Some("news"));
    }
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "fetched once, at acceptance"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_origin_is_an_error_and_previous_recipes_stay() {
    let o = start_with(
        r#"{"route":"/*","body":"before","stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    // A port that was just free: nothing listens there.
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let recipe = format!(
        r#"{{"route":"/*","origin":"http://{dead}/","stages":[{{"at":0,"status":200,"latency":0}}]}}"#
    );
    let r = post_recipe(o.addr, &recipe).await;
    assert_eq!(r.status, 502);
    let j = r.json();
    assert_eq!(j["field"], "origin");
    assert!(
        j["reason"].as_str().unwrap().contains("cannot connect"),
        "{j}"
    );
    assert_eq!(get(o.addr, "/x").await.text(), "before");
}

#[test]
fn unreachable_origin_at_start_up_is_an_error() {
    let dead = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let recipes = loadlab_origin::parse_recipes(&format!(
        r#"{{"origin":"http://{dead}/","stages":[{{"at":0,"status":200,"latency":0}}]}}"#
    ))
    .unwrap();
    let err = loadlab_origin::spawn(
        "127.0.0.1:0".parse().unwrap(),
        loadlab_origin::OriginConfig {
            recipes,
            ..Default::default()
        },
    );
    assert!(err.is_err());
}
