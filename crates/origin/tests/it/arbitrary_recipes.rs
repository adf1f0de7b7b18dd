//! Recipes posted by hand or by scripts: whatever the JSON, a recipe is
//! accepted or refused with the field at fault, never a panic.

use loadlab_origin::parse_recipes;
use proptest::prelude::*;
use serde_json::{Value, json};

/// JSON values of every type, including the edges people hit.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|v| json!(v)),
        any::<f64>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(|v| json!(v)),
        "[0-9]{0,4}(ms|s|m|h|kb|mb|b|%)?".prop_map(Value::String),
        ".{0,12}".prop_map(Value::String),
        Just(json!("<<4kb>>")),
        Just(json!("9999999gb")),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z_]{1,12}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

const RECIPE_KEYS: &[&str] = &[
    "route",
    "origin",
    "body",
    "random_content",
    "headers",
    "stages",
    "capacity",
];
const STAGE_KEYS: &[&str] = &["at", "status", "latency", "faults", "body"];

/// Recipes with the real keys and values of any type.
fn recipe() -> impl Strategy<Value = Value> {
    let stage = proptest::collection::btree_map(
        prop::sample::select(STAGE_KEYS).prop_map(str::to_string),
        value(),
        0..5,
    )
    .prop_map(|m| Value::Object(m.into_iter().collect()));
    (
        proptest::collection::btree_map(
            prop::sample::select(RECIPE_KEYS).prop_map(str::to_string),
            value(),
            0..6,
        ),
        proptest::collection::vec(stage, 0..3),
    )
        .prop_map(|(m, stages)| {
            let mut o: serde_json::Map<String, Value> = m.into_iter().collect();
            o.insert("stages".into(), Value::Array(stages));
            Value::Object(o)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_recipe_is_accepted_or_refused_by_field(r in recipe(), list in any::<bool>()) {
        let text = if list { json!([r]).to_string() } else { r.to_string() };
        if let Err(e) = parse_recipes(&text) {
            prop_assert!(!e.field.is_empty() && !e.reason.is_empty(), "{e:?}");
        }
    }

    #[test]
    fn any_text_is_refused_calmly(text in ".{0,200}") {
        let _ = parse_recipes(&text);
    }
}
