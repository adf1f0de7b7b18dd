//! Targets written by hand or by scripts: whatever the text, every target is
//! read or refused with the line it is on, never a panic.

use std::io::Cursor;

use loadlab_engine::{TargetError, TargetFormat, TargetReader};
use proptest::prelude::*;

/// Lines shaped like vegeta's http format (request lines, headers, blank
/// lines), plus any text. `@file` body lines are left out: they would read
/// arbitrary paths of this machine.
fn http_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "(GET|POST|PUT|HEAD|DELETE|OPTIONS|get|FETCH|) ?(https?|ftp|)(://)?[a-z0-9.:\\[\\]/?=&%-]{0,30}",
        "[A-Za-z-]{0,12}:? ?.{0,20}",
        "",
        "[^@]{0,40}",
    ]
}

/// JSON target lines with fields of any type.
fn json_line() -> impl Strategy<Value = String> {
    let value = prop_oneof![
        Just("null".to_string()),
        any::<i64>().prop_map(|v| v.to_string()),
        ".{0,20}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        "[A-Za-z0-9+/=]{0,16}".prop_map(|s| format!("\"{s}\"")),
        Just("{\"X\":[\"a\",1]}".to_string()),
        Just("[]".to_string()),
    ];
    (value.clone(), value.clone(), value.clone(), value).prop_map(|(m, u, b, h)| {
        format!("{{\"method\":{m},\"url\":{u},\"body\":{b},\"header\":{h}}}")
    })
}

fn read_all(text: String, format: TargetFormat) {
    let lines = text.lines().count() as u64 + 1;
    for (i, t) in TargetReader::new(Cursor::new(text.into_bytes()), format, "fuzz.txt").enumerate()
    {
        assert!(i as u64 <= lines, "more targets than lines");
        if let Err(e) = t {
            let msg = e.to_string();
            assert!(msg.contains("fuzz.txt"), "{msg}");
            if let TargetError::Syntax { line, .. } = e {
                assert!(line as u64 <= lines, "line {line} of {lines}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn http_targets_never_panic(lines in proptest::collection::vec(http_line(), 0..12)) {
        read_all(lines.join("\n"), TargetFormat::Http);
    }

    #[test]
    fn json_targets_never_panic(lines in proptest::collection::vec(
        prop_oneof![json_line(), "[^@]{0,40}"], 0..8)) {
        read_all(lines.join("\n"), TargetFormat::Json);
    }
}
