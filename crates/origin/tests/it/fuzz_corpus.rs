//! Replays the committed fuzz corpus (`fuzz/corpus/{recipe,origin_http1,origin_admin}/`) through the
//! same check each fuzz target runs, so a plain `cargo test` keeps
//! every input that once crashed (or that the fuzzer found interesting)
//! green without a nightly toolchain.

use std::path::PathBuf;

#[test]
fn recipe_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/recipe");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        let res = std::panic::catch_unwind(|| loadlab_origin::fuzzing::check_recipes(&data));
        assert!(res.is_ok(), "{} fails the recipe check", path.display());
        n += 1;
    }
    assert!(n > 0, "empty corpus in {}", dir.display());
}
#[test]
fn origin_http1_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/origin_http1");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        let res = std::panic::catch_unwind(|| loadlab_origin::fuzzing::check_http1(&data));
        assert!(
            res.is_ok(),
            "{} fails the origin_http1 check",
            path.display()
        );
        n += 1;
    }
    assert!(n > 0, "empty corpus in {}", dir.display());
}
#[test]
fn origin_admin_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/origin_admin");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        let res = std::panic::catch_unwind(|| loadlab_origin::fuzzing::check_admin(&data));
        assert!(
            res.is_ok(),
            "{} fails the origin_admin check",
            path.display()
        );
        n += 1;
    }
    assert!(n > 0, "empty corpus in {}", dir.display());
}
