//! The options from their layers, end to end.

use std::time::Duration;

use super::*;
use crate::system_tags::SystemTags;
use serde_json::json;

/// `systemTags`: the flag over `K6_SYSTEM_TAGS` over the script's list
/// over k6's default; a name that is no system tag is left out with a
/// warning; what is not a list of names is refused.
#[test]
pub(crate) fn system_tags_layers_as_k6() {
    let names = |raw: serde_json::Value, o: Overrides| {
        Options::resolve(&raw, &o).unwrap().system_tags.names()
    };
    assert_eq!(
        Options::resolve(&json!({}), &Overrides::default())
            .unwrap()
            .system_tags,
        SystemTags::default()
    );
    assert_eq!(
        names(json!({"systemTags": ["url", "vu"]}), Overrides::default()),
        vec!["url", "vu"]
    );
    assert!(names(json!({"systemTags": []}), Overrides::default()).is_empty());
    let env = Overrides {
        env: vec![("K6_SYSTEM_TAGS".into(), "status, ip".into())],
        ..Default::default()
    };
    assert_eq!(
        names(json!({"systemTags": ["url"]}), env.clone()),
        vec!["ip", "status"]
    );
    let flag = Overrides {
        system_tags: Some(vec!["name".into()]),
        ..env
    };
    assert_eq!(names(json!({"systemTags": ["url"]}), flag), vec!["name"]);
    let o = Options::resolve(&json!({"systemTags": ["staus"]}), &Overrides::default()).unwrap();
    assert!(o.system_tags.names().is_empty());
    assert!(
        o.warnings[0].contains("\"staus\" is not a system tag"),
        "{:?}",
        o.warnings
    );
    for bad_value in [json!({"systemTags": "url"}), json!({"systemTags": [1]})] {
        let e = Options::resolve(&bad_value, &Overrides::default()).unwrap_err();
        assert!(e.to_string().contains("options.systemTags:"), "{e}");
    }
}

#[test]
pub(crate) fn vus_alone_is_one_vu_once_with_k6s_warning() {
    let o = Options::resolve(
        &json!(null),
        &Overrides {
            vus: Some(2),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(o.scenarios[0].executor.max_vus(), 1);
    assert_eq!(o.warnings.len(), 1);
    assert!(o.warnings[0].starts_with("`vus=2` option will be ignored"));
    let one = Options::resolve(&json!({"vus": 1}), &Overrides::default()).unwrap();
    assert!(one.warnings.is_empty());
    let with_d =
        Options::resolve(&json!({"vus": 2, "duration": "1s"}), &Overrides::default()).unwrap();
    assert_eq!(with_d.scenarios[0].executor.max_vus(), 2);
    assert!(with_d.warnings.is_empty());
}

#[test]
pub(crate) fn k6_options_loadlab_lacks_are_named_and_its_own_are_read() {
    for (k, v) in [("paused", json!(true)), ("linger", json!(true))] {
        let e = Options::resolve(&json!({ k: v }), &Overrides::default()).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("options.{k} is not supported")),
            "{e}"
        );
    }
    // Set to their default they change nothing; unknown keys are
    // ignored, as k6 ignores them.
    let o = Options::resolve(
        &json!({"paused": false, "cloud": {"name": "x"}, "someKey": 1}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(o.request, RequestOptions::default());
    let o = Options::resolve(
        &json!({"discardResponseBodies": true, "userAgent": "", "throw": true,
                "insecureSkipTLSVerify": true, "noConnectionReuse": true,
                "noVUConnectionReuse": true,
                "minIterationDuration": "1.5s", "httpDebug": "full"}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(
        o.request,
        RequestOptions {
            discard_response_bodies: true,
            user_agent: Some(String::new()),
            insecure_skip_tls_verify: true,
            throw: true,
            no_connection_reuse: true,
            no_vu_connection_reuse: true,
            min_iteration_duration: Some(Duration::from_millis(1500)),
            http_debug: Some("full".into()),
            rps: None,
            batch: None,
            batch_per_host: None,
        }
    );
    // batch and batchPerHost: k6's 20 and 6 unless set; 0 is no limit.
    assert_eq!(RequestOptions::default().batch_limits(), (20, 6));
    let o = Options::resolve(
        &json!({"batch": 3, "batchPerHost": 0}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(o.request.batch_limits(), (3, usize::MAX));
    let e = Options::resolve(&json!({"batchPerHost": -1}), &Overrides::default()).unwrap_err();
    assert!(
        e.to_string()
            .contains("options.batchPerHost: -1 can't be negative"),
        "{e}"
    );
    // rps: a whole number; 0 or less is no limit, as in k6.
    let o = Options::resolve(&json!({"rps": 50}), &Overrides::default()).unwrap();
    assert_eq!(o.request.rps, Some(50));
    let o = Options::resolve(&json!({"rps": -1}), &Overrides::default()).unwrap();
    assert_eq!(o.request.rps, None);
    let e = Options::resolve(&json!({"rps": 1.5}), &Overrides::default()).unwrap_err();
    assert!(e.to_string().contains("options.rps"), "{e}");
    // httpDebug: "" is off, as in k6; a flag wins.
    let o = Options::resolve(&json!({"httpDebug": ""}), &Overrides::default()).unwrap();
    assert_eq!(o.request.http_debug, None);
    let mut ov = Overrides::default();
    ov.request.http_debug = Some("headers".into());
    let o = Options::resolve(&json!({"httpDebug": "full"}), &ov).unwrap();
    assert_eq!(o.request.http_debug.as_deref(), Some("headers"));
    let e = Options::resolve(&json!({"httpDebug": 1}), &Overrides::default()).unwrap_err();
    assert!(e.to_string().contains("options.httpDebug"), "{e}");
    let e = Options::resolve(&json!({"throw": "yes"}), &Overrides::default()).unwrap_err();
    assert!(e.to_string().contains("options.throw"), "{e}");
}

#[test]
pub(crate) fn negative_counts_durations_and_stages_get_k6s_words() {
    let resolve = |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o);
    let err = |v: serde_json::Value| resolve(v, &Overrides::default()).unwrap_err().to_string();
    let problems = |v: serde_json::Value| {
        let e = err(v.clone());
        let (_, list) = e
            .split_once("configuration errors: ")
            .unwrap_or_else(|| panic!("{v}: {e}"));
        list.to_string()
    };
    // Each checked against k6 v1.8.1 (exit 104, these words).
    let not_positive = "`duration` option should be more than 0, for infinite duration \
                        use the externally-controlled executor";
    for d in [json!("-1s"), json!("0s"), json!(0), json!(-1000)] {
        assert!(
            err(json!({"vus": 2, "duration": d})).ends_with(not_positive),
            "{d}"
        );
    }
    for (v, want) in [
        (
            json!({"vus": -1, "duration": "1s"}),
            "the number of VUs must be more than 0",
        ),
        (
            json!({"vus": -1, "iterations": 3}),
            "the number of VUs must be more than 0",
        ),
        (
            json!({"iterations": -1}),
            "the number of iterations (-1) can't be less than the number of VUs (1)",
        ),
        (
            json!({"iterations": 2, "duration": "-1s"}),
            "the maxDuration must be at least 1s, but is -1s",
        ),
        (
            json!({"stages": [{"duration": "1s", "target": 2}, {"duration": "-2s", "target": -1}]}),
            "the duration for stage 2 can't be negative, the target for stage 2 can't be negative",
        ),
        (
            json!({"stages": [{"duration": "1s"}]}),
            "stage 1 doesn't have a target",
        ),
        (
            json!({"vus": -1, "stages": [{"duration": "1s", "target": 2}]}),
            "the number of start VUs can't be negative",
        ),
        (
            json!({"scenarios": {"a": {"executor": "shared-iterations", "vus": -1, "iterations": -2}}}),
            "the number of VUs must be more than 0, the number of iterations (-2) can't be \
             less than the number of VUs (-1)",
        ),
        (
            json!({"scenarios": {"a": {"executor": "ramping-vus", "startVUs": 0,
                "stages": [{"duration": "-1s", "target": -2}, {"target": 1}]}}}),
            "the duration for stage 1 can't be negative, the target for stage 1 can't be \
             negative, stage 2 doesn't have a duration",
        ),
        (
            json!({"scenarios": {"a": {"executor": "constant-arrival-rate", "rate": -1,
                "duration": "1s", "preAllocatedVUs": -1, "maxVUs": -2}}}),
            "the iteration rate must be more than 0, the number of preAllocatedVUs can't be \
             negative, maxVUs can't be less than preAllocatedVUs",
        ),
        (
            json!({"scenarios": {"a": {"executor": "ramping-arrival-rate", "startRate": -1,
                "preAllocatedVUs": -1, "stages": [{"duration": "-1s", "target": -2}]}}}),
            "the startRate value can't be negative, the duration for stage 1 can't be \
             negative, the target for stage 1 can't be negative, the number of \
             preAllocatedVUs can't be negative",
        ),
    ] {
        assert_eq!(problems(v.clone()), want, "{v}");
    }
    // A negative preAllocatedVUs with no maxVUs: maxVUs is it, no more.
    assert_eq!(
        problems(
            json!({"scenarios": {"a": {"executor": "constant-arrival-rate", "rate": 1,
            "duration": "1s", "preAllocatedVUs": -1}}})
        ),
        "the number of preAllocatedVUs can't be negative"
    );
    // `vus` alone, negative: k6's warning, one VU once.
    let o = resolve(json!({"vus": -1}), &Overrides::default()).unwrap();
    assert_eq!(o.scenarios[0].executor.max_vus(), 1);
    assert!(
        o.warnings[0].starts_with("`vus=-1` option will be ignored"),
        "{:?}",
        o.warnings
    );
    // The command line's, the same: `-d 0s`, `-s -1s:2`, `-i -1`.
    let flags = |o: Overrides| resolve(json!({}), &o).unwrap_err().to_string();
    assert!(
        flags(Overrides {
            duration: Some("0s".into()),
            ..Default::default()
        })
        .ends_with(not_positive)
    );
    assert!(
        flags(Overrides {
            stages: Some(vec!["-1s:2".into()]),
            ..Default::default()
        })
        .ends_with("the duration for stage 1 can't be negative")
    );
    assert!(
        flags(Overrides {
            iterations: Some(-1),
            ..Default::default()
        })
        .ends_with("the number of iterations (-1) can't be less than the number of VUs (1)")
    );
}

#[test]
pub(crate) fn shortcut_conflicts_and_empty_lists_are_k6s() {
    let resolve = |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o);
    let sc = json!({"a": {"executor": "constant-vus", "duration": "1s"}});
    let st = json!([{"duration": "1s", "target": 1}]);
    // Two shortcuts in one layer (k6 v1.8.1: exit 104, these words).
    for (v, want) in [
        (
            json!({"iterations": 2, "stages": st}),
            ("iterations", "stages"),
        ),
        (
            json!({"duration": "1s", "stages": st}),
            ("duration", "stages"),
        ),
        (
            json!({"duration": "1s", "scenarios": sc}),
            ("duration", "scenarios"),
        ),
        (
            json!({"iterations": 1, "scenarios": sc}),
            ("iterations", "scenarios"),
        ),
        (
            json!({"stages": st, "scenarios": sc}),
            ("stages", "scenarios"),
        ),
    ] {
        let e = resolve(v.clone(), &Overrides::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.ends_with(&format!(
                "using `{}` and `{}` options simultaneously is not allowed",
                want.0, want.1
            )),
            "{v}: {e}"
        );
    }
    // The same in the command line's layer: `-d 1s -s 1s:1`.
    let both = Overrides {
        duration: Some("1s".into()),
        stages: Some(vec!["1s:1".into()]),
        ..Default::default()
    };
    let e = resolve(json!({}), &both).unwrap_err().to_string();
    assert!(e.ends_with("using `duration` and `stages` options simultaneously is not allowed"));
    // A flag over the script's layer replaces it (no conflict), and says
    // so when it replaces scenarios.
    let d = Overrides {
        duration: Some("2s".into()),
        ..Default::default()
    };
    let o = resolve(json!({"stages": st, "scenarios": sc}), &d).unwrap();
    assert_eq!(o.scenarios[0].name, "default");
    assert!(matches!(
        o.scenarios[0].executor,
        Executor::ConstantVus { .. }
    ));
    assert_eq!(
        o.warnings,
        vec!["\"cli\" level configuration overrode scenarios configuration entirely"]
    );
    // `iterations` with `duration`: the duration is the maxDuration.
    let o = resolve(
        json!({"iterations": 3, "duration": "5s"}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(
        o.scenarios[0].executor,
        Executor::SharedIterations {
            vus: 1,
            iterations: 3,
            max_duration: Duration::from_secs(5)
        }
    );
    // Empty lists, and stages without a duration (left out): one VU
    // once, with k6's warnings.
    for (v, warning) in [
        (
            json!({"stages": []}),
            "`stages` was explicitly set to an empty value",
        ),
        (
            json!({"stages": [{"target": 2}]}),
            "`stages` was explicitly set to an empty value",
        ),
        (
            json!({"scenarios": {}}),
            "`scenarios` was explicitly set to an empty value",
        ),
    ] {
        let o = resolve(v.clone(), &Overrides::default()).unwrap();
        assert!(matches!(
            o.scenarios[0].executor,
            Executor::PerVuIterations {
                vus: 1,
                iterations: 1,
                ..
            }
        ));
        assert!(o.warnings[0].starts_with(warning), "{v}: {:?}", o.warnings);
    }
    // A stage without a duration among others is left out.
    let o = resolve(
        json!({"stages": [{"target": 5}, {"duration": "1s", "target": 1}]}),
        &Overrides::default(),
    )
    .unwrap();
    assert_eq!(
        o.scenarios[0].executor,
        Executor::RampingVus {
            start_vus: 1,
            stages: vec![Stage {
                duration: Duration::from_secs(1),
                target: 1.0
            }]
        }
    );
}
