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
    // The recipe fuzz target's input (after 54 million runs).
    check_recipes(FOUND.as_bytes());
    check_admin(FOUND.as_bytes());
}

const FOUND: &str = r#"{"route": "x/y", "body": " wor  att1kb>> wor         attusb>>tt1kb>> wor         attus<<1kb>> wor       tus<<1kb>>  <<18446744073709551615b>>tus<<2kb>>  <<5b>>stnus<<1kb>> wor       attus<<1kb>> wo attus<<1kb>> wor           attu5b>>tus<<2kb>>  <<5b>>stnus<<1kb>> wor       attus<<1kb>> wo attus<<1kb>> wor           attus<<1kb>> wo attus<<1kb>> wor       tus<<1kb>>  <<5b>>tu wor       attus<<1kb>> wo attus<<1kb>> wo>stnus<<1kb>>tt1kb        attus<<1kb>> wor       tus<<1kb>>  <<5b>>tus<<2kb>>  <<5b>>stnus<<1kb>> wor     kinttus<<1kb>> wo attus<<1kb>> wor s<<1kb>> wo attus<<1kb>> wor       tus<<1kb>>  <<5b>>tu wor       attus<<1kb>> wo attus<<1kb>> wor           attus<<1kb>> ws<<1kb>>  <<5b>>tus<<2kb>>  <<5b>>stnus<<1kb>>tt1kb>>  <<5b>>stnus<<1kb>> wor       attus<<1kb>> wo attus<<1kb>> wor           attus<<1kb>> wo attus<<1kb>> wor       tus<<1kb>>  <<5b>>tu wor       attus<<1kb>> wo attus<<1kb>> wor       <<1kb>> wo attus<<1kb>> wor       tus<<1kb>>  <<5b>>tus<<2kb>>  <<5b>>stn,0,E", "body_on_error": true, "stages": [{"at": 0, "status": 200, "faults": [{"kind": "reset", "rate": "1%"}]}], "capacity": {"concurrency": 503}}"#;
