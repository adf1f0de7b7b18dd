//! Inputs the origin's fuzz targets (fuzz/) found failing, or that writing
//! them showed, each fed to the same check as a plain test.

use loadlab_origin::fuzzing::{check_admin, check_recipes};

/// Placeholder sizes were added without overflow checks: two near
/// `u64::MAX` panicked in a debug build and, in a release build, wrapped
/// around to a small total that passed the 256 MiB limit, so posting the
/// recipe made the origin try to allocate 16 EiB and abort.
#[test]
fn placeholder_sizes_that_overflow_are_refused() {
    let body = r#"{"body":"<<18446744073709551615b>><<1b>>","stages":[{"at":0,"status":200,"latency":0}]}"#;
    let e = loadlab_origin::parse_recipes(body).unwrap_err();
    assert!(e.to_string().contains("body"), "{e}");
    check_recipes(body.as_bytes());
    check_admin(body.as_bytes());
    let huge = r#"{"body":"<<17592186044416mb>><<17592186044416mb>>","stages":[{"at":0,"status":200,"latency":0}]}"#;
    assert!(loadlab_origin::parse_recipes(huge).is_err());
    check_recipes(huge.as_bytes());
}
