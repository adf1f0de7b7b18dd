//! Flag values typed by people: whatever the text, the parsers answer with a
//! value or an error, never a panic; and what they accept behaves.

use std::time::Duration;

use loadlab_core::{PacerSpec, Rate, format_go_duration, parse_go_duration, parse_size};
use proptest::prelude::*;

/// Text shaped like the flags' values (numbers, units, separators), so the
/// parsers get past their first check, plus any text at all.
fn flagish() -> impl Strategy<Value = String> {
    prop_oneof![
        "[-+]?[0-9]{0,25}(\\.[0-9]{0,12})?(ns|us|µs|ms|s|m|h|kb|KB|MiB|mb|gb|b)?([0-9.]{0,8}(ms|s|m|h))?",
        "[-+]?[0-9]{0,12}(/[0-9]{0,6}(ns|ms|s|m|h)?)?",
        "(infinity|inf|Infinity|0|-0|NaN|1e309)",
        "([0-9]{0,6}(ms|s|m|h)@[0-9]{0,6}(->[0-9]{0,6})?,?){0,5}",
        ".{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn duration_parsing_never_panics(s in flagish()) {
        if let Ok(d) = parse_go_duration(&s) {
            // What is accepted prints back in Go's form and parses to the same value.
            prop_assert_eq!(parse_go_duration(&format_go_duration(d)).ok(), Some(d));
        }
    }

    #[test]
    fn rate_parsing_never_panics(s in flagish()) {
        if let Ok(r) = Rate::parse(&s) {
            prop_assert!(r.is_unlimited() || r.hz() > 0.0 || r.freq == 0);
        }
    }

    #[test]
    fn size_parsing_never_panics(s in flagish()) {
        let _ = parse_size(&s);
    }

    #[test]
    fn accepted_plans_give_monotonic_send_times(s in flagish()) {
        if let Ok(spec) = PacerSpec::parse_plan(&s) {
            let p = spec.build();
            let mut last = Duration::ZERO;
            for n in 0..200u64 {
                match p.send_at(n) {
                    Some(t) => {
                        prop_assert!(t >= last, "{s:?}: request {n} at {t:?} before {last:?}");
                        last = t;
                    }
                    None => break,
                }
            }
        }
    }
}
