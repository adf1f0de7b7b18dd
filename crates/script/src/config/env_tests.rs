//! The environment layer's tests: k6's `K6_*` variables read as k6 reads them.

use super::env::*;
use crate::config::{Executor, Options, Overrides};
use serde_json::json;
use std::time::Duration;

#[test]
fn k6_option_variables_are_read_as_k6_reads_them() {
    let env = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let script = json!({"vus": 1, "scenarios": {"a": {"executor": "constant-vus", "duration": "9s"}},
        "userAgent": "script/1"});
    let v = env_layer(
        &script,
        &env(&[
            ("K6_STAGES", "1s:2, -1s:3"),
            ("K6_THROW", "T"),
            ("K6_SUMMARY_TREND_STATS", "avg,p(99)"),
            ("K6_TAGS", "team:a, env:ci"),
            ("K6_SETUP_TIMEOUT", "5s"),
            ("K6_USER_AGENT", ""),
            ("K6_NO_USAGE_REPORT", "true"),
        ]),
    )
    .unwrap();
    assert_eq!(
        v,
        json!({"vus": 1, "stages": [{"duration": "1s", "target": 2}, {"duration": "-1s", "target": 3}],
            "throw": true, "summaryTrendStats": ["avg", "p(99)"], "tags": {"team": "a", "env": "ci"},
            "setupTimeout": "5s", "userAgent": "script/1"})
    );
    // Through `resolve`: the stages replace the scenarios (with k6's
    // warning), and k6's checks see them.
    let o = Overrides {
        env: env(&[("K6_STAGES", "1s:2")]),
        ..Default::default()
    };
    let r = Options::resolve(&script, &o).unwrap();
    assert_eq!(r.scenarios[0].name, "default");
    assert_eq!(
        r.warnings,
        vec!["\"env\" level configuration overrode scenarios configuration entirely"]
    );
    // --local-ips, else K6_LOCAL_IPS (the script's own is ignored, as
    // by k6, with a warning); a bad one in k6's words.
    let o = Overrides {
        env: env(&[("K6_LOCAL_IPS", "10.0.0.1-10.0.0.2")]),
        ..Default::default()
    };
    let r = Options::resolve(&json!({"localIPs": "10.9.9.9"}), &o).unwrap();
    assert_eq!(r.local_ips.unwrap().get(1).to_string(), "10.0.0.2");
    assert!(r.warnings[0].starts_with("options.localIPs is ignored"));
    let o = Overrides {
        env: env(&[("K6_LOCAL_IPS", "10.0.0.1-10.0.0.2")]),
        local_ips: Some("10.0.0.7".into()),
        ..Default::default()
    };
    let r = Options::resolve(&json!({}), &o).unwrap();
    assert_eq!(r.local_ips.unwrap().get(1).to_string(), "10.0.0.7");
    let o = Overrides {
        local_ips: Some("10.0.0.7-10.0.0.1".into()),
        ..Default::default()
    };
    let e = Options::resolve(&json!({}), &o).unwrap_err().to_string();
    assert!(e.contains("negative IP range: 10.0.0.7-10.0.0.1"), "{e}");
    // K6_HOSTS is ignored, as by k6 (which has no reader for it),
    // with a warning.
    let o = Overrides {
        env: env(&[("K6_HOSTS", "{\"a.test\":\"127.0.0.1\"}")]),
        ..Default::default()
    };
    let r = Options::resolve(&json!({}), &o).unwrap();
    assert!(r.hosts.is_empty());
    assert!(
        r.warnings[0].starts_with("K6_HOSTS is ignored"),
        "{:?}",
        r.warnings
    );
    // The flags' layer is over it.
    let o = Overrides {
        env: env(&[("K6_DURATION", "5s"), ("K6_VUS", "3")]),
        iterations: Some(6),
        ..Default::default()
    };
    let r = Options::resolve(&json!({}), &o).unwrap();
    assert_eq!(
        r.scenarios[0].executor,
        Executor::SharedIterations {
            vus: 3,
            iterations: 6,
            max_duration: Duration::from_secs(600)
        }
    );
    // What k6 could not read, named; an unsupported option refused
    // unless it is false.
    for (k, v, want) in [
        (
            "K6_ITERATIONS",
            "1.5",
            "K6_ITERATIONS=\"1.5\": not a whole number",
        ),
        (
            "K6_DURATION",
            "soon",
            "K6_DURATION=\"soon\": not a duration",
        ),
        ("K6_STAGES", ":3", "no duration"),
        ("K6_TAGS", "nocolon", "expected NAME:VALUE pairs"),
        (
            "K6_LINGER",
            "true",
            "K6_LINGER=\"true\": the option is not supported by loadlab k6",
        ),
    ] {
        let e = env_layer(&json!({}), &env(&[(k, v)]))
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{k}: {e}");
    }
    assert!(env_layer(&json!({}), &env(&[("K6_LINGER", "false")])).is_ok());
    assert!(env_layer(&json!({}), &env(&[("K6_WEB_DASHBOARD", "true")])).is_ok());
}
