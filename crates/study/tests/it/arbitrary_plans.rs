//! Plans edited by hand go wrong in every way: whatever the damage, a plan is
//! accepted or refused with the file, line and column of the problem, never
//! a panic.

use std::path::Path;

use loadlab_study::Plan;
use proptest::prelude::*;

const EXAMPLE: &str = include_str!("../../../../examples/c5-vs-c6g.yaml");

/// Values people mistype, and values at the edges of their types.
fn bad_value() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("-1".to_string()),
        Just("0".to_string()),
        Just("1e400".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("nan".to_string()),
        Just("~".to_string()),
        Just("[".to_string()),
        Just("{".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        Just("0s".to_string()),
        Just("-5ms".to_string()),
        Just("150%".to_string()),
        Just("a.p99 <".to_string()),
        Just("x.ceiling > y.ceiling".to_string()),
        Just("\"{origin}\"".to_string()),
        Just("*anchor".to_string()),
        "[a-z0-9.:%<>= -]{0,12}",
    ]
}

/// One edit of the example: a word replaced, a line dropped, a line
/// repeated, or a line shifted left or right.
#[derive(Debug, Clone)]
enum Edit {
    Replace(prop::sample::Index, String),
    Drop(prop::sample::Index),
    Repeat(prop::sample::Index),
    Shift(prop::sample::Index, bool),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<prop::sample::Index>(), bad_value()).prop_map(|(i, v)| Edit::Replace(i, v)),
        any::<prop::sample::Index>().prop_map(Edit::Drop),
        any::<prop::sample::Index>().prop_map(Edit::Repeat),
        (any::<prop::sample::Index>(), any::<bool>()).prop_map(|(i, r)| Edit::Shift(i, r)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        match e {
            Edit::Replace(i, v) => {
                // Replace the value after the first `:` or `- ` on the line.
                let n = lines.len();
                let l = &mut lines[i.index(n)];
                if let Some(p) = l.find(": ") {
                    l.truncate(p + 2);
                    l.push_str(v);
                } else if let Some(p) = l.find("- ") {
                    l.truncate(p + 2);
                    l.push_str(v);
                } else {
                    *l = v.clone();
                }
            }
            Edit::Drop(i) => {
                let n = lines.len();
                lines.remove(i.index(n));
            }
            Edit::Repeat(i) => {
                let n = lines.len();
                let k = i.index(n);
                let l = lines[k].clone();
                lines.insert(k, l);
            }
            Edit::Shift(i, right) => {
                let n = lines.len();
                let l = &mut lines[i.index(n)];
                if *right {
                    l.insert_str(0, "  ");
                } else if l.starts_with("  ") {
                    l.drain(..2);
                }
            }
        }
    }
    lines.join("\n") + "\n"
}

#[test]
fn the_example_itself_parses() {
    Plan::from_yaml(EXAMPLE, "p.yaml", Path::new(".")).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_damaged_plan_is_accepted_or_refused_with_its_place(
        edits in proptest::collection::vec(edit(), 1..4)
    ) {
        let text = apply(EXAMPLE, &edits);
        let lines = text.lines().count();
        if let Err(e) = Plan::from_yaml(&text, "p.yaml", Path::new(".")) {
            prop_assert_eq!(e.file.as_str(), "p.yaml");
            prop_assert!(e.line <= lines + 1, "line {} of {}: {}", e.line, lines, e);
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn any_text_is_accepted_or_refused(text in ".{0,300}") {
        let _ = Plan::from_yaml(&text, "p.yaml", Path::new("."));
    }
}
