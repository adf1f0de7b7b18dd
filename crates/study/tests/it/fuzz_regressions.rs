//! Inputs the `plan` fuzz target (fuzz/) found failing, each fed to the
//! same check as a plain test.

use std::path::Path;

use loadlab_study::Plan;
use loadlab_study::fuzzing::check_plan;

/// `success: 99.9%` was read as 99.9 / 100 = 0.9990000000000001, so a run
/// with exactly 999 successes in 1000 failed a 99.9% SLO, and the stored
/// plan (JSON) read back one unit in the last place away from it.
#[test]
fn a_percentage_is_the_nearest_ratio() {
    let yaml = "name: x
targets:
  - name: a
    url: http://127.0.0.1:1/
load:
  rates: [10]
  step: 2s
slo:
  success: 99.9%
";
    let p = Plan::from_yaml(yaml, "p.yaml", Path::new(".")).unwrap();
    assert_eq!(p.slo.unwrap().success, Some(0.999));
    for pct in ["99.9%", "99.99%", "95%", "12.3456%", "0.1%", "100%", "0%"] {
        let y = yaml.replace("99.9%", pct);
        let p = Plan::from_yaml(&y, "p.yaml", Path::new(".")).unwrap();
        let want: f64 = format!("{}e-2", pct.trim_end_matches('%')).parse().unwrap();
        assert_eq!(p.slo.unwrap().success, Some(want), "{pct}");
    }
    let p = Plan::from_yaml(&yaml.replace("99.9%", "1e1%"), "p.yaml", Path::new(".")).unwrap();
    assert_eq!(p.slo.unwrap().success, Some(0.1));
    check_plan(yaml.as_bytes());
    check_plan(include_bytes!("../../../../examples/saturation.yaml"));
}

/// The resolved plan is stored as JSON and read back by `runs report`: an
/// SLO ratio with 17 significant digits came back one unit in the last
/// place off (serde_json's default float parsing is not exact).
#[test]
fn the_stored_plan_reads_back_exactly() {
    let yaml = "name: x
targets:
  - name: a
    url: http://127.0.0.1:1/
load:
  rates: [10]
  step: 2s
slo:
  success: 0.9990000000000001
  p99: 250ms
";
    Plan::from_yaml(yaml, "p.yaml", Path::new(".")).unwrap();
    check_plan(yaml.as_bytes());
    for ratio in [
        "0.12345678901234567",
        "0.30000000000000004",
        "0.9999999999999999",
    ] {
        check_plan(yaml.replace("0.9990000000000001", ratio).as_bytes());
    }
}

/// `ramp: {from: 500, to: 5111111110111111000, by: 500}` made a list of
/// 10^16 rates: the plan loader aborted out of memory. A ramp has at most
/// 1,000 steps, and saying so names the key.
#[test]
fn a_ramp_with_too_many_steps_is_refused() {
    let yaml = "name: x
targets:
  - name: a
    url: http://127.0.0.1:1/
load:
  ramp: {from: 500, to: 5111111110111111000, by: 500}
  step: 2s
";
    let e = Plan::from_yaml(yaml, "p.yaml", Path::new(".")).unwrap_err();
    assert_eq!((e.line, e.column), (6, 3), "{e}");
    assert!(
        e.message.contains("load.ramp") && e.message.contains("1000"),
        "{e}"
    );
    check_plan(yaml.as_bytes());
    let max = yaml.replace("to: 5111111110111111000, by: 500", "to: 500000, by: 500");
    let p = Plan::from_yaml(&max, "p.yaml", Path::new(".")).unwrap();
    assert_eq!(p.load.rates.len(), 1000);
    let over = yaml.replace("to: 5111111110111111000, by: 500", "to: 500500, by: 500");
    assert!(Plan::from_yaml(&over, "p.yaml", Path::new(".")).is_err());
    let top = yaml.replace(
        "from: 500, to: 5111111110111111000",
        "from: 18446744073709551000, to: 18446744073709551615",
    );
    check_plan(top.as_bytes());
    let all = yaml.replace(
        "from: 500, to: 5111111110111111000, by: 500",
        "from: 0, to: 18446744073709551615, by: 1",
    );
    assert!(Plan::from_yaml(&all, "p.yaml", Path::new(".")).is_err());
}
