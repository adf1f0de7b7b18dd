//! HTTP/2 without TLS (prior knowledge) is served on the same port as HTTP/1.1.

use crate::common;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::{TokioExecutor, TokioIo};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2c_prior_knowledge() {
    let o = common::start_with(
        r#"{"random_content":"50kb","stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let tcp = tokio::net::TcpStream::connect(o.addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    for _ in 0..3 {
        let req = http::Request::builder()
            .uri(format!("http://{}/x", o.addr))
            .body(Empty::<Bytes>::new())
            .unwrap();
        let resp = sender.send_request(req).await.unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.version(), http::Version::HTTP_2);
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body.len(), 50 * 1024);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn h2c_header_limit_is_64_kib_and_recipe_connection_header_is_dropped() {
    let o = common::start_with(
        r#"{"body":"ok","headers":{"connection":"keepalive"},"stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let tcp = tokio::net::TcpStream::connect(o.addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let get = |pad: usize| {
        http::Request::builder()
            .uri(format!("http://{}/x", o.addr))
            .header("x-pad", "a".repeat(pad))
            .body(Empty::<Bytes>::new())
            .unwrap()
    };
    // Under 64 KiB is served, as over HTTP/1.1; HTTP/2 has no connection
    // header, so the recipe's is left out.
    let resp = sender.send_request(get(40 * 1024)).await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("connection").is_none());
    // Over it: 431.
    let resp = sender.send_request(get(100 * 1000)).await.unwrap();
    assert_eq!(resp.status(), 431);
}
