//! jslib's k6-summary, answered by loadlab's own module: on the same
//! `handleSummary()` data it writes what the published module writes,
//! byte for byte (tests/golden/k6_summary/), and it renders loadlab's own
//! data.

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
