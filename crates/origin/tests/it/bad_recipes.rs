//! Every kind of bad recipe is refused with a 400 naming field and reason, and nothing loaded is lost.

use crate::common;

use common::*;
use serde_json::json;

const GOOD: &str = r#"[{"route":"/keep","body":"kept","stages":[{"at":0,"status":200,"latency":0}]},
                       {"route":"/*","body":"root","stages":[{"at":0,"status":200,"latency":0}]}]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_recipes_are_refused_and_state_is_intact() {
    let o = start_with(GOOD);
    let before = get(o.addr, "/_admin/current_recipe").await.json();
    let cases: &[(&str, &str, &str)] = &[
        // (recipe, field named, a word of the reason)
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":200}]"#,
            "(json)",
            "malformed",
        ),
        ("not json at all", "(json)", "malformed"),
        (
            r#"{"route":"/x","bodi":"a","stages":[{"at":0,"status":200}]}"#,
            "bodi",
            "unknown field",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":200,"latncy":"1s"}]}"#,
            "stages[0].latncy",
            "unknown field",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":100,"status":200}]}"#,
            "stages[0].at",
            "bare number",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":"1.5s","status":200}]}"#,
            "stages[0].at",
            "whole number",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":"2m","status":200}]}"#,
            "stages[0].at",
            "no unit",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":200,"latency":"1..2s"}]}"#,
            "stages[0].latency",
            "no unit",
        ),
        (
            r#"{"route":"/x","random_content":"123","stages":[{"at":0,"status":200}]}"#,
            "random_content",
            "no unit",
        ),
        (
            r#"{"route":"/x","random_content":"12tb","stages":[{"at":0,"status":200}]}"#,
            "random_content",
            "not valid",
        ),
        (
            r#"{"route":"/x","random_content":123,"stages":[{"at":0,"status":200}]}"#,
            "random_content",
            "no unit",
        ),
        (
            r#"{"route":"/x","body":"a<<3gb>>","stages":[{"at":0,"status":200}]}"#,
            "body",
            "placeholder",
        ),
        (
            r#"{"route":"/x","stages":[{"at":0,"status":200}]}"#,
            "(recipe)",
            "missing field",
        ),
        (r#"{"route":"/x","body":"a"}"#, "stages", "missing field"),
        (
            r#"{"route":"/x","body":"a","stages":[]}"#,
            "stages",
            "at least one",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"status":200}]}"#,
            "stages[0].at",
            "missing field",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0}]}"#,
            "stages[0].status",
            "missing field",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":999}]}"#,
            "stages[0].status",
            "not an HTTP status",
        ),
        (
            r#"{"route":"/x","body":"a","headers":null,"stages":[{"at":0,"status":200}],"route":""}"#,
            "route",
            "empty",
        ),
        (
            r#"{"route":"/a*b","body":"a","stages":[{"at":0,"status":200}]}"#,
            "route",
            "only at the end",
        ),
        (
            r#"{"route":"/x","body":"a","headers":{"x":1},"stages":[{"at":0,"status":200}]}"#,
            "headers.x",
            "expected a string",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":200,"errors":{"rate":"200%","status":500}}]}"#,
            "stages[0].errors.rate",
            "outside",
        ),
        (
            r#"{"route":"/x","body":"a","stages":[{"at":0,"status":200,"faults":[{"kind":"explode"}]}]}"#,
            "stages[0].faults[0].kind",
            "not a fault",
        ),
        (
            r#"{"route":"/x","body":"a","capacity":{"queue":3},"stages":[{"at":0,"status":200}]}"#,
            "capacity.concurrency",
            "missing",
        ),
        (
            r#"[{"route":"/y","body":"a","stages":[{"at":0,"status":200}]},{"route":"/z","body":"a","stages":[{"at":"x","status":200}]}]"#,
            "[1].stages[0].at",
            "no unit",
        ),
        ("[]", "(list)", "empty"),
    ];
    for (recipe, field, word) in cases {
        let r = post_recipe(o.addr, recipe).await;
        assert_eq!(r.status, 400, "{recipe} -> {}", r.text());
        let j = r.json();
        assert_eq!(j["field"], json!(field), "{recipe} -> {j}");
        assert!(
            j["reason"].as_str().unwrap().contains(word),
            "{recipe} -> {j}"
        );
        assert!(j["error"].as_str().unwrap().starts_with(field), "{j}");
    }
    assert_eq!(get(o.addr, "/_admin/current_recipe").await.json(), before);
    assert_eq!(get(o.addr, "/keep").await.text(), "kept");
    assert_eq!(
        get(o.addr, "/y").await.text(),
        "root",
        "a list is all-or-nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admin_body_limit() {
    let o = start(loadlab_origin::OriginConfig {
        admin_body_limit: 1000,
        ..Default::default()
    });
    let big = format!(
        r#"{{"body":"{}","stages":[{{"at":0,"status":200}}]}}"#,
        "x".repeat(2000)
    );
    let r = post_recipe(o.addr, &big).await;
    assert_eq!(r.status, 413);
    assert!(r.json()["reason"].as_str().unwrap().contains("limit"));
    assert_eq!(
        get(o.addr, "/").await.status,
        200,
        "the default page is still served"
    );
}

#[test]
fn parse_recipes_errors_are_typed_and_readable() {
    let e = loadlab_origin::parse_recipes(
        r#"{"body":"a","stages":[{"at":0,"status":200,"latency":"5"}]}"#,
    )
    .unwrap_err();
    assert_eq!(e.field, "stages[0].latency");
    assert!(e.to_string().starts_with("stages[0].latency: "), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn route_without_leading_slash_is_taken_as_slash_route() {
    // OriginSimulator's own fixture (multi_route_origin_recipes) has
    // `"route": "news/entertainment_and_arts"`.
    let o = start_with(GOOD);
    let r = post_recipe(
        o.addr,
        r#"[{"route":"/news","body":"news","stages":[{"at":0,"status":200,"latency":0}]},
            {"route":"news/entertainment_and_arts","body":"arts","stages":[{"at":0,"status":200,"latency":0}]},
            {"route":"sport*","body":"sport","stages":[{"at":0,"status":200,"latency":0}]}]"#,
    )
    .await;
    assert_eq!(r.status, 201, "{}", r.text());
    assert_eq!(
        get(o.addr, "/news/entertainment_and_arts").await.text(),
        "arts"
    );
    assert_eq!(get(o.addr, "/sport/football").await.text(), "sport");
    let routes = get(o.addr, "/_admin/routes").await.text();
    assert!(
        routes.lines().any(|l| l == "/news/entertainment_and_arts"),
        "{routes}"
    );
    let echo = r.json();
    assert!(
        echo.as_array()
            .unwrap()
            .iter()
            .any(|e| e["route"] == "/news/entertainment_and_arts"),
        "{echo}"
    );
    // The same route with and without its slash is the same route, once.
    let r = post_recipe(
        o.addr,
        r#"[{"route":"/twice","body":"a","stages":[{"at":0,"status":200}]},
            {"route":"twice","body":"b","stages":[{"at":0,"status":200}]}]"#,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    assert_eq!(r.json()["field"], json!("[1].route"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_recipe_in_a_list_is_named_by_index_and_route() {
    let o = start_with(GOOD);
    let before = get(o.addr, "/_admin/current_recipe").await.json();
    let r = post_recipe(
        o.addr,
        r#"[{"route":"/fine","body":"a","stages":[{"at":0,"status":200}]},
            {"route":"/news","body":"a","stages":[{"at":"10","status":200}]},
            {"route":"/also-fine","body":"a","stages":[{"at":0,"status":200}]},
            {"route":"/sport","random_content":"12tb","stages":[{"at":0,"status":200}]}]"#,
    )
    .await;
    assert_eq!(r.status, 400, "{}", r.text());
    let j = r.json();
    // The first bad recipe, in the top-level fields…
    assert_eq!(j["recipe"], json!(1), "{j}");
    assert_eq!(j["route"], json!("/news"), "{j}");
    assert_eq!(j["field"], json!("[1].stages[0].at"), "{j}");
    let msg = j["error"].as_str().unwrap();
    assert!(msg.contains("[1]") && msg.contains("/news"), "{msg}");
    // …and every bad one in `errors`, so one round trip fixes them all.
    let errors = j["errors"].as_array().expect("errors list");
    let named: Vec<(u64, &str, &str)> = errors
        .iter()
        .map(|e| {
            (
                e["recipe"].as_u64().unwrap(),
                e["route"].as_str().unwrap(),
                e["field"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        named,
        vec![
            (1, "/news", "[1].stages[0].at"),
            (3, "/sport", "[3].random_content")
        ],
        "{j}"
    );
    // All or nothing: not even the good recipes of the list were applied.
    assert_eq!(get(o.addr, "/_admin/current_recipe").await.json(), before);
    assert_eq!(get(o.addr, "/fine").await.text(), "root");
}
