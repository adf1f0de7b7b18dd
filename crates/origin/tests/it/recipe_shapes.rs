//! Every recipe shape from OriginSimulator's README and examples is accepted and behaves as described.

use crate::common;

use std::time::{Duration, Instant};

use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn body_recipe_with_json_body_and_sniffed_content_type() {
    let o = start_with(
        r#"{"route":"/*","body":"{\"hello\":\"world\"}","stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let r = get(o.addr, "/anything?q=1").await;
    assert_eq!(r.status, 200);
    assert_eq!(r.text(), r#"{"hello":"world"}"#);
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_content_has_the_requested_size_and_is_served_identically() {
    let o = start_with(r#"{"random_content":"50kb","stages":[{"at":0,"status":200,"latency":0}]}"#);
    let a = get(o.addr, "/a").await;
    let b = get(o.addr, "/b").await;
    assert_eq!(a.body.len(), 50 * 1024);
    assert_eq!(a.body, b.body, "payloads are built once per ingestion");
    assert!(
        a.body
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || *c == b'+' || *c == b'/')
    );
    assert!(a.header("content-type").unwrap().starts_with("text/html"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placeholders_expand_independently() {
    let o = start_with(
        r#"{"body":"some random<<4kb>>and also<<10kb>>this","stages":[{"at":0,"status":200,"latency":0}]}"#,
    );
    let r = get(o.addr, "/").await;
    assert_eq!(r.body.len(), 14_359);
    assert!(r.text().starts_with("some random"));
    assert!(r.text().ends_with("this"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_recipe_with_nulls_gzip_and_latency() {
    // The recipe from the c5/c6g comparison, as pasted there (current_recipe's shape).
    let recipe = r#"{
      "stages":[{"status":200,"latency":"100ms","at":0}],
      "route":"/*",
      "random_content":"200kb",
      "origin":null,
      "headers":{"content-type":"text/html; charset=utf-8","content-encoding":"gzip"},
      "body":null
    }"#;
    let o = start_with(recipe);
    let t = Instant::now();
    let r = get(o.addr, "/foobar").await;
    assert!(t.elapsed() >= Duration::from_millis(100));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-encoding"), Some("gzip"));
    assert_eq!(gunzip(&r.body).len(), 200 * 1024);
    // current_recipe echoes the same shape.
    let cur = get(o.addr, "/_admin/current_recipe").await.json();
    let first = &cur[0];
    for k in [
        "body",
        "headers",
        "origin",
        "random_content",
        "route",
        "stages",
    ] {
        assert!(first.get(k).is_some(), "current_recipe lacks {k}: {first}");
    }
    assert_eq!(first["random_content"], json!("200kb"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_range_is_respected() {
    let o = start_with(
        r#"{"random_content":"1kb","stages":[{"at":0,"status":200,"latency":"100ms..200ms"}]}"#,
    );
    for _ in 0..5 {
        let t = Instant::now();
        assert_eq!(get(o.addr, "/").await.status, 200);
        let e = t.elapsed();
        assert!(e >= Duration::from_millis(100), "{e:?}");
        assert!(e < Duration::from_millis(1500), "{e:?}");
    }
    let rs = get(o.addr, "/_admin/routes_status").await.text();
    assert_eq!(rs, "/* 200 100..200");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_route_random_payload_list() {
    let sizes = [
        "50kb", "100kb", "150kb", "200kb", "250kb", "300kb", "350kb", "400kb", "450kb", "500kb",
    ];
    let list: Vec<_> = sizes
        .iter()
        .map(|s| json!({"route": format!("/payload_{s}"), "random_content": s, "stages": [{"at": 0, "status": 200, "latency": 0}]}))
        .collect();
    let o = start(Default::default());
    let r = post_recipe(o.addr, &serde_json::to_string(&list).unwrap()).await;
    assert_eq!(r.status, 201);
    // The default route is still listed until replaced: 10 + 1.
    assert_eq!(r.json().as_array().unwrap().len(), 11);
    for s in sizes {
        let n: usize = s.trim_end_matches("kb").parse().unwrap();
        assert_eq!(
            get(o.addr, &format!("/payload_{s}")).await.body.len(),
            n * 1024
        );
    }
    let routes = get(o.addr, "/_admin/routes").await.text();
    assert_eq!(routes.lines().count(), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_route_mixed_with_origin_body_and_catch_all_406() {
    let up = fake_upstream(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 10\r\n\r\nnews page!",
    )
    .await;
    let recipe = json!([
        {"route": "/example/endpoint", "body": "{\"hello\":\"world\"}",
         "stages": [{"at": 0, "status": 200, "latency": "40ms"}, {"at": "1s", "status": 503, "latency": "10ms"}, {"at": "10s", "status": 200}]},
        {"route": "/news", "origin": format!("http://{up}/news"),
         "stages": [{"at": 0, "status": 404, "latency": "5ms"}, {"at": "2s", "status": 503, "latency": "2s"}, {"at": "4s", "status": 200, "latency": "100ms"}]},
        {"route": "/*", "body": "Error - not defined", "stages": [{"at": 0, "status": 406, "latency": 0}]}
    ]);
    let o = start(Default::default());
    assert_eq!(post_recipe(o.addr, &recipe.to_string()).await.status, 201);
    let e = get(o.addr, "/example/endpoint").await;
    assert_eq!((e.status, e.text().as_str()), (200, r#"{"hello":"world"}"#));
    let n = get(o.addr, "/news").await;
    assert_eq!((n.status, n.text().as_str()), (404, "Not found"));
    let other = get(o.addr, "/sport").await;
    assert_eq!(other.status, 406);
    assert!(
        other.text().contains("Recipe not set at /sport"),
        "{}",
        other.text()
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(get(o.addr, "/example/endpoint").await.status, 503);
    let status = get(o.addr, "/_admin/routes_status").await.text();
    assert!(status.contains("/example/endpoint 503 10"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multi_route_origin_and_failure_scenario_shapes() {
    let up = fake_upstream(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 4\r\n\r\npage",
    )
    .await;
    let routes = ["/", "/news*", "/sport", "/sounds", "/weather"];
    let list: Vec<_> = routes
        .iter()
        .map(|r| {
            json!({"route": r, "origin": format!("http://{up}{}", r.trim_end_matches('*')),
                        "stages": [{"at": 0, "status": 200, "latency": 0}]})
        })
        .collect();
    let o = start(Default::default());
    assert_eq!(
        post_recipe(o.addr, &serde_json::to_string(&list).unwrap())
            .await
            .status,
        201
    );
    for p in ["/", "/news/uk", "/sport", "/sounds", "/weather"] {
        let r = get(o.addr, p).await;
        assert_eq!((r.status, r.text().as_str()), (200, "page"), "{p}");
    }
    // failure_scenario: 200 then 504 after a while (shortened here).
    let fail = json!({"route": "/news", "origin": format!("http://{up}/"),
                      "stages": [{"at": 0, "status": 200, "latency": "10ms"}, {"at": "1s", "status": 504, "latency": "100ms"}]});
    assert_eq!(post_recipe(o.addr, &fail.to_string()).await.status, 201);
    assert_eq!(get(o.addr, "/news").await.status, 200);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let r = get(o.addr, "/news").await;
    assert_eq!((r.status, r.text().as_str()), (504, "Error 504"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn default_page_then_not_set_mode() {
    let o = start(Default::default());
    let t = Instant::now();
    let r = get(o.addr, "/whatever").await;
    assert!(t.elapsed() >= Duration::from_millis(100));
    assert_eq!(r.status, 200);
    assert_eq!(r.header("cache-control"), Some("public, max-age=30"));
    assert!(
        String::from_utf8(gunzip(&r.body))
            .unwrap()
            .contains("default content")
    );

    let o2 = start(loadlab_origin::OriginConfig {
        default_page: false,
        ..Default::default()
    });
    let r = get(o2.addr, "/x").await;
    assert_eq!(r.status, 406);
    assert_eq!(
        r.text(),
        "Recipe not set at /x, please POST a recipe for this route to /_admin/add_recipe"
    );
    assert_eq!(
        get(o2.addr, "/_admin/current_recipe").await.json(),
        json!([])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_statuses_use_origin_simulator_bodies_unless_body_on_error() {
    let o = start_with(
        r#"[{"route":"/plain","random_content":"1kb","headers":{"content-encoding":"gzip"},"stages":[{"at":0,"status":500,"latency":0}]},
            {"route":"/full","body":"the page","body_on_error":true,"stages":[{"at":0,"status":503,"latency":0}]},
            {"route":"/nm","body":"x","stages":[{"at":0,"status":304,"latency":0}]}]"#,
    );
    let p = get(o.addr, "/plain").await;
    assert_eq!((p.status, p.text().as_str()), (500, "Error 500"));
    assert_eq!(
        p.header("content-encoding"),
        None,
        "plain error text is not labelled gzip"
    );
    let f = get(o.addr, "/full").await;
    assert_eq!((f.status, f.text().as_str()), (503, "the page"));
    let n = get(o.addr, "/nm").await;
    assert_eq!((n.status, n.body.len()), (304, 0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn head_and_other_methods_are_served() {
    let o = start_with(r#"{"random_content":"3kb","stages":[{"at":0,"status":200,"latency":0}]}"#);
    let h = send(o.addr, "HEAD", "/x", b"").await;
    assert_eq!(h.status, 200);
    assert_eq!(h.header("content-length"), Some("3072"));
    for m in ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"] {
        let r = send(o.addr, m, "/x", b"ignored").await;
        assert_eq!((r.status, r.body.len()), (200, 3072), "{m}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipe_file_loaded_at_start_via_parse_recipes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("recipe.json");
    std::fs::write(&path, "{\n \"route\": \"/f\",\n \"body\": \"from file\",\n \"stages\": [{\"at\": 0, \"status\": 200, \"latency\": \"0ms\"}]\n}\n").unwrap();
    let o = start_with(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(get(o.addr, "/f").await.text(), "from file");
    // Recipes given at start replace the default page entirely.
    assert_eq!(get(o.addr, "/other").await.status, 406);
}
