//! `--summary-mode=legacy`: k6's summary layout before v1, side by side
//! with k6 v1.8.1 in that mode (the lines' layout compared, numbers left
//! out: they differ from run to run).

use loadlab_testkit::proc::BoundedOutput;

const SCRIPT: &str = r#"
import { check, group } from 'k6';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
const t = new Trend('my_trend', true);
const c = new Counter('my_counter');
const g = new Gauge('my_gauge');
const r = new Rate('my_rate');
export const options = {
  iterations: 4,
  thresholds: { my_trend: ['max<1'], 'my_counter': ['count>1'], 'checks{kind:strict}': ['rate>0.9'] },
};
export default function () {
  group('outer', () => {
    check(__ITER, { 'even': (i) => i % 2 === 0 }, { kind: 'strict' });
    group('inner', () => { check(1, { 'always': () => true }); });
  });
  t.add(5); c.add(1); g.add(3); r.add(true);
}
"#;

/// Each line of the summary's block up to the progress lines, its numbers
/// and the padding between columns taken out.
fn layout(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .take_while(|l| !l.starts_with("running ("))
        .map(|l| {
            let l = l.split(": ").next().unwrap_or(l);
            let l: String = l
                .chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect();
            l.trim_end().to_string()
        })
        .collect()
}

#[test]
fn the_legacy_summary_is_laid_out_as_k6_lays_it_out() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
    let mut seen = Vec::new();
    for tool in crate::side_by_side::tools("the_legacy_summary_is_laid_out_as_k6_lays_it_out") {
        let name = tool.name;
        let mut cmd = tool.command();
        let o = cmd
            .current_dir(dir.path())
            .args(["-q", "--summary-mode=legacy", "s.js"])
            .output_bounded()
            .unwrap();
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(
            o.status.code(),
            Some(99),
            "{name}: a threshold fails\n{out}\n{err}"
        );
        for want in [
            "     █ outer\n\n       ✗ even\n        ↳  50% — ✓ 2 / ✗ 2\n\n       █ inner\n\n         ✓ always\n",
            "\n     checks...............: 75.00%  6 out of 8\n",
            "\n     ✗ { kind:strict }....: 50.00%  2 out of 4\n",
            "\n   ✓ my_counter...........: 4       ",
            "\n     my_gauge.............: 3       min=3 ",
            "\n     my_rate..............: 100.00% 4 out of 4\n",
            "\n   ✗ my_trend.............: avg=5ms ",
        ] {
            assert!(out.contains(want), "{name}: {want:?} in\n{out}");
        }
        seen.push(layout(&out));
    }
    if seen.len() == 2 {
        assert_eq!(seen[0], seen[1], "loadlab's layout, then k6's");
    }
}
