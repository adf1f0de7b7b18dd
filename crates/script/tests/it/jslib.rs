//! jslib's modules, answered by loadlab's own: k6-summary on the same
//! `handleSummary()` data writes what the published module writes, byte
//! for byte (tests/golden/k6_summary/), and renders loadlab's own data;
//! url, formdata and papaparse give what the published modules give on
//! the same script (tests/golden/jslib_url/, jslib_formdata/,
//! jslib_papaparse/), and so do k6chaijs and expect (jslib_k6chaijs/,
//! jslib_expect/: every check's name, group and count); k6's
//! `k6/experimental/streams` gives what k6 v1.8.1's gives (k6_streams/).

use loadlab_script::{RunConfig, run};

fn golden_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/k6_summary")
}

#[test]
fn text_summary_junit_and_humanize_write_what_the_module_writes() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["summary.js", "data.json"] {
        std::fs::copy(golden_dir().join(f), dir.path().join(f)).unwrap();
    }
    let cfg = RunConfig {
        script: dir.path().join("summary.js"),
        env: vec![("OUT".into(), dir.path().display().to_string())],
        quiet: true,
        ..Default::default()
    };
    run(cfg, std::future::pending()).expect("run");
    for f in ["plain.txt", "color.txt", "junit.xml", "human.txt"] {
        let want = std::fs::read_to_string(golden_dir().join(f)).unwrap();
        let got = std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_eq!(got, want, "{f}");
    }
}

#[test]
fn text_summary_renders_a_runs_own_data() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s.js");
    let out = dir.path().join("summary.txt");
    std::fs::write(
        &script,
        format!(
            "import {{ textSummary }} from 'https://jslib.k6.io/k6-summary/0.1.0/index.js';\n\
             import {{ check, group }} from 'k6';\n\
             import {{ Trend }} from 'k6/metrics';\n\
             const t = new Trend('my_trend', true);\n\
             export const options = {{ iterations: 3, thresholds: {{ my_trend: ['max<1'] }} }};\n\
             export default function () {{\n\
               group('g', () => {{ check(__ITER, {{ 'small': (i) => i < 2 }}); }});\n\
               t.add(5);\n\
             }}\n\
             export function handleSummary(data) {{\n\
               return {{ {:?}: textSummary(data, {{ enableColors: false }}) }};\n\
             }}\n",
            out.display().to_string()
        ),
    )
    .unwrap();
    let cfg = RunConfig {
        script,
        quiet: true,
        ..Default::default()
    };
    run(cfg, std::future::pending()).expect("run");
    let text = std::fs::read_to_string(&out).unwrap();
    for want in [
        "     █ g\n",
        "       ✗ small\n        ↳  66% — ✓ 2 / ✗ 1",
        "     checks",
        ": 66.66% ✓ 2",
        "   ✗ my_trend",
        "avg=5ms",
        "     iterations",
    ] {
        assert!(text.contains(want), "{want:?} in:\n{text}");
    }
}

/// Runs a golden case's `script.js` (its folder copied) and compares the
/// `got.txt` its handleSummary writes with the published module's
/// `expected.txt`.
fn same_as_the_published_module(case: &str) {
    let golden = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(case);
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(&golden).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.path().join(e.file_name())).unwrap();
    }
    let cfg = RunConfig {
        script: dir.path().join("script.js"),
        env: vec![("OUT".into(), dir.path().display().to_string())],
        quiet: true,
        ..Default::default()
    };
    run(cfg, std::future::pending()).expect("run");
    let got = std::fs::read_to_string(dir.path().join("got.txt")).unwrap();
    let want = std::fs::read_to_string(golden.join("expected.txt")).unwrap();
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "{case}: line {}", i + 1);
    }
    assert_eq!(got, want, "{case}");
}

#[test]
fn url_and_url_search_params_give_what_the_module_gives() {
    same_as_the_published_module("jslib_url");
}

#[test]
fn form_data_bodies_are_the_module_s_bytes() {
    same_as_the_published_module("jslib_formdata");
}

#[test]
fn papaparse_parses_and_unparses_as_the_module_does() {
    same_as_the_published_module("jslib_papaparse");
}

#[test]
fn k6chaijs_checks_are_the_module_s_checks() {
    same_as_the_published_module("jslib_k6chaijs");
}

#[test]
fn the_expect_module_checks_as_the_module_does() {
    same_as_the_published_module("jslib_expect");
}

#[test]
fn readable_streams_behave_as_k6_s() {
    same_as_the_published_module("k6_streams");
}
