//! Every kind of bad recipe is refused with a 400 naming field and reason, and nothing loaded is lost.

mod common;

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
            r#"{"route":"/x","body":"a","headers":null,"stages":[{"at":0,"status":200}],"route":"x"}"#,
            "route",
            "must start with /",
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
