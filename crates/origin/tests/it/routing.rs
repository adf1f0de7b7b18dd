//! Route precedence: exact path, then the longest wildcard prefix; deterministic with many routes.

use crate::common;

use common::*;
use serde_json::json;

fn recipe(route: &str, body: &str) -> serde_json::Value {
    json!({"route": route, "body": body, "stages": [{"at": 0, "status": 200, "latency": 0}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exact_then_longest_prefix() {
    let list = json!([
        recipe("/*", "root"),
        recipe("/news*", "news-wild"),
        recipe("/news/uk*", "news-uk-wild"),
        recipe("/news", "news-exact"),
    ]);
    let o = start_with(&list.to_string());
    for (path, want) in [
        ("/news", "news-exact"),
        ("/news/", "news-wild"),
        ("/news/world", "news-wild"),
        ("/newsletter", "news-wild"),
        ("/news/uk", "news-uk-wild"),
        ("/news/uk/politics", "news-uk-wild"),
        ("/sport", "root"),
        ("/news?x=1", "news-exact"),
    ] {
        assert_eq!(get(o.addr, path).await.text(), want, "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn precedence_holds_with_more_than_32_routes() {
    // OriginSimulator's order becomes undefined past 32 routes (Erlang map order).
    let mut list: Vec<_> = (0..40)
        .map(|i| recipe(&format!("/r{i:02}*"), &format!("r{i:02}")))
        .collect();
    list.push(recipe("/r1*", "short"));
    list.push(recipe("/r12/deep*", "deep"));
    let o = start_with(&serde_json::to_string(&list).unwrap());
    assert_eq!(get(o.addr, "/r12/x").await.text(), "r12");
    assert_eq!(get(o.addr, "/r12/deep/x").await.text(), "deep");
    assert_eq!(get(o.addr, "/r1").await.text(), "short");
    assert_eq!(get(o.addr, "/r39").await.text(), "r39");
    assert_eq!(get(o.addr, "/nothing").await.status, 406);
}
