//! What the `plan` fuzz target checks (`fuzz/fuzz_targets/plan.rs`), shared
//! with the corpus replay test (`tests/it/fuzz_corpus.rs`) so that a plain
//! `cargo test` keeps the committed corpus green. Not a public API.

use std::path::Path;

use crate::plan::Plan;

/// Reads `data` as a plan file and checks:
/// * no panic; an error names the file and a line within it (or 0);
/// * an accepted plan is sane (a name, targets with requests, ascending
///   rates);
/// * the resolved plan, as the store keeps it (JSON), reads back the same;
/// * redaction is idempotent.
///
/// Plans that mention `/dev`, `/proc` or `/sys` in any string are skipped:
/// the plan loader reads the targets and recipe files a plan names
/// (`/dev/zero` never ends). Relative paths resolve against a folder that
/// does not exist.
pub fn check_plan(data: &[u8]) {
    let Ok(src) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(v) = serde_norway::from_str::<serde_norway::Value>(src)
        && names_special_files(&v)
    {
        return;
    }
    let plan = match Plan::from_yaml(src, "fuzz.yaml", Path::new("/nonexistent-loadlab-fuzz")) {
        Ok(p) => p,
        Err(e) => {
            assert_eq!(e.file, "fuzz.yaml");
            // YAML (1.1) ends lines at CR, LF, CR LF, NEL, LS and PS.
            let lines = src
                .replace("\r\n", "\n")
                .replace(['\r', '\u{85}', '\u{2028}', '\u{2029}'], "\n")
                .lines()
                .count();
            assert!(e.line <= lines + 1, "line {} of {lines}: {e}", e.line);
            assert!(e.to_string().starts_with("fuzz.yaml:"), "{e}");
            return;
        }
    };
    assert!(!plan.name.trim().is_empty());
    assert!(!plan.targets.is_empty());
    for t in &plan.targets {
        assert!(!t.requests.is_empty(), "target {:?} has no request", t.name);
    }
    assert!(!plan.load.rates.is_empty());
    assert!(
        plan.load.rates.windows(2).all(|w| w[0] <= w[1]),
        "rates {:?}",
        plan.load.rates
    );
    let shown = plan.redacted();
    assert_eq!(shown.redacted(), shown, "redaction is not idempotent");
    let json = serde_json::to_string(&shown).expect("a plan serializes");
    let back: Plan = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("the stored plan does not read back ({e}): {json}"));
    // The parsed recipes are derived from `recipes_json` and not stored:
    // a stored plan parses them again when it runs.
    let mut expect = shown;
    if let Some(o) = expect.origin.as_mut() {
        o.recipes.clear();
    }
    for (_, o) in &mut expect.origins {
        o.recipes.clear();
    }
    assert_eq!(back, expect, "stored as {json}");
}

fn names_special_files(v: &serde_norway::Value) -> bool {
    use serde_norway::Value;
    match v {
        Value::String(s) => ["/dev", "/proc", "/sys"].iter().any(|p| s.contains(p)),
        Value::Sequence(s) => s.iter().any(names_special_files),
        Value::Mapping(m) => m
            .iter()
            .any(|(k, v)| names_special_files(k) || names_special_files(v)),
        Value::Tagged(t) => names_special_files(&t.value),
        _ => false,
    }
}
