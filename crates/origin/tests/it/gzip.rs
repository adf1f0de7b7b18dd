//! gzip bodies are compressed once at ingestion and decompress to the requested size.

use crate::common;

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_content_gzip() {
    let o = start_with(
        r#"{"random_content":"200kb","headers":{"content-encoding":"gzip"},"stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let a = get(o.addr, "/").await;
    let b = get(o.addr, "/").await;
    assert_eq!(a.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&a.body).len(), 204_800);
    assert!(
        a.body.len() < 204_800,
        "compressed ({} bytes)",
        a.body.len()
    );
    assert_eq!(a.body, b.body, "compressed once, the same bytes every time");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_with_placeholders_gzip() {
    let o = start_with(
        r#"{"body":"<html><<4kb>></html>","headers":{"Content-Encoding":"gzip"},"stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let r = get(o.addr, "/").await;
    let plain = gunzip(&r.body);
    assert_eq!(plain.len(), 13 + 4096);
    assert!(plain.starts_with(b"<html>"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origin_body_gzip_when_the_origin_sends_plain() {
    let up = fake_upstream(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world",
    )
    .await;
    let o = start_with(&format!(
        r#"{{"origin":"http://{up}/","headers":{{"content-encoding":"gzip"}},"stages":[{{"at":0,"status":200,"latency":0}}]}}"#
    ));
    let r = get(o.addr, "/").await;
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&r.body), b"hello world");
    assert_eq!(r.header("content-type"), Some("text/plain"));
}
