//! Replays the committed fuzz corpus (`fuzz/corpus/targets/`) through the
//! same check the `targets` fuzz target runs, so a plain `cargo test` keeps
//! every input that once crashed (or that the fuzzer found interesting)
//! green without a nightly toolchain.

use std::path::PathBuf;

#[test]
fn targets_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/targets");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        let res = std::panic::catch_unwind(|| loadlab_engine::fuzzing::check_targets(&data));
        assert!(res.is_ok(), "{} fails the targets check", path.display());
        n += 1;
    }
    assert!(n > 0, "empty corpus in {}", dir.display());
}

#[test]
fn replay_corpus_replays() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/replay");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("corpus entry").path();
        let data = std::fs::read(&path).expect("corpus file");
        let res = std::panic::catch_unwind(|| loadlab_engine::fuzzing::check_replay(&data));
        assert!(res.is_ok(), "{} fails the replay check", path.display());
        n += 1;
    }
    assert!(n > 0, "empty corpus in {}", dir.display());
}
