//! A scenario of `options.scenarios` (or the one the shortcuts make):
//! read as k6 reads it, and checked with k6's checks and words.

use std::time::Duration;

use serde_json::Value;

use super::executor::{Executor, ScenarioSegment};
use super::stages::{Stage, stages};
use super::values::{bad, int, num, parse_signed_duration, string_pairs, whole};
use crate::ScriptError;

#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: String,
    pub executor: Executor,
    /// The exported function each iteration calls.
    pub exec: String,
    pub start_time: Duration,
    pub graceful_stop: Duration,
    /// ramping-vus: how long a VU above the ramp's level may finish its
    /// iteration before it is interrupted (k6's `gracefulRampDown`).
    pub graceful_ramp_down: Duration,
    pub env: Vec<(String, String)>,
    pub tags: Vec<(String, String)>,
    /// `--execution-segment`: how this instance takes its part (`None`
    /// for the whole test, or when the scaled numbers say it all).
    pub segment: Option<ScenarioSegment>,
    /// The executor of the whole test (before `--execution-segment`).
    pub whole: Executor,
    /// Arrival-rate executors: `preAllocatedVUs` of the whole test (all
    /// of `maxVUs` are made at the start; k6's banner shows both).
    pub pre_allocated_vus: u64,
    /// The duration fields given a negative value (`"-1s"`, `-1000`), with
    /// its size: k6 reads them and refuses most in `config_errors`; the
    /// field itself holds zero.
    pub negative: Vec<(&'static str, Duration)>,
    /// The count fields (`vus`, `iterations`, `startVUs`,
    /// `preAllocatedVUs`, `maxVUs`) given a negative value, with it: k6
    /// refuses them in `config_errors`; the field itself holds zero.
    pub negative_counts: Vec<(&'static str, i64)>,
    /// What k6's checks find wrong with the stages (`stages`), in its
    /// words and order.
    pub stage_problems: Vec<String>,
}

pub(crate) fn scenario(name: &str, s: &Value) -> Result<Scenario, ScriptError> {
    let what = format!("scenarios.{name}");
    let get = |k: &str| s.get(k).filter(|v| !v.is_null());
    let executor_name = get("executor")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(format!("{what}: \"executor\" is required")))?;
    // k6 reads a negative duration (Go's "-1s", or a negative number of
    // milliseconds) and then refuses it in its checks: the field holds 0
    // and `negative` says what was given.
    let negative = std::cell::RefCell::new(Vec::new());
    let dur = |k: &'static str, default: Option<Duration>| -> Result<Duration, ScriptError> {
        match get(k) {
            Some(v) => match parse_signed_duration(v, &format!("{what}.{k}"))? {
                (true, size) => {
                    negative.borrow_mut().push((k, size));
                    Ok(Duration::ZERO)
                }
                (false, d) => Ok(d),
            },
            None => default.ok_or_else(|| bad(format!("{what}.{k} is required"))),
        }
    };
    // Counts likewise: a negative one is read, kept in `negative_counts`.
    let negative_counts = std::cell::RefCell::new(Vec::new());
    let cnt = |k: &'static str, default: Option<u64>| -> Result<u64, ScriptError> {
        match get(k) {
            Some(v) => {
                let n = int(v, &format!("{what}.{k}"))?;
                let mut neg = negative_counts.borrow_mut();
                if n < 0 && !neg.iter().any(|(f, _)| *f == k) {
                    neg.push((k, n));
                }
                Ok(whole(n))
            }
            None => default.ok_or_else(|| bad(format!("{what}.{k} is required"))),
        }
    };
    let stage_problems = std::cell::RefCell::new(Vec::new());
    let stage_list = || -> Result<Vec<Stage>, ScriptError> {
        let v = get("stages").ok_or_else(|| bad(format!("{what}.stages is required")))?;
        let (list, problems) = stages(v, &format!("{what}.stages"), true)?;
        *stage_problems.borrow_mut() = problems;
        Ok(list)
    };
    let time_unit = || dur("timeUnit", Some(Duration::from_secs(1)));
    let executor = match executor_name {
        "shared-iterations" => Executor::SharedIterations {
            vus: cnt("vus", Some(1))?,
            iterations: cnt("iterations", Some(1))?,
            max_duration: dur("maxDuration", Some(Duration::from_secs(600)))?,
        },
        "per-vu-iterations" => Executor::PerVuIterations {
            vus: cnt("vus", Some(1))?,
            iterations: cnt("iterations", Some(1))?,
            max_duration: dur("maxDuration", Some(Duration::from_secs(600)))?,
        },
        "constant-vus" => Executor::ConstantVus {
            vus: cnt("vus", Some(1))?,
            duration: dur("duration", None)?,
        },
        "ramping-vus" => Executor::RampingVus {
            start_vus: cnt("startVUs", Some(1))?,
            stages: stage_list()?,
        },
        "constant-arrival-rate" => {
            let pre = cnt("preAllocatedVUs", None)?;
            Executor::ConstantArrivalRate {
                rate: num(
                    get("rate").ok_or_else(|| bad(format!("{what}.rate is required")))?,
                    &format!("{what}.rate"),
                )?,
                time_unit: time_unit()?,
                duration: dur("duration", None)?,
                // Fewer than preAllocatedVUs is refused (config_errors).
                max_vus: cnt("maxVUs", Some(pre))?,
            }
        }
        "ramping-arrival-rate" => {
            let pre = cnt("preAllocatedVUs", None)?;
            Executor::RampingArrivalRate {
                start_rate: get("startRate")
                    .map(|v| num(v, &format!("{what}.startRate")))
                    .transpose()?
                    .unwrap_or(0.0),
                time_unit: time_unit()?,
                stages: stage_list()?,
                max_vus: cnt("maxVUs", Some(pre))?,
            }
        }
        "externally-controlled" => return Err(externally_controlled(&what)),
        other => return Err(bad(format!("{what}: unknown executor {other:?}"))),
    };
    let pre_allocated_vus = match executor {
        Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. } => {
            cnt("preAllocatedVUs", None)?
        }
        _ => 0,
    };
    Ok(Scenario {
        pre_allocated_vus,
        name: name.to_string(),
        whole: executor.clone(),
        segment: None,
        executor,
        exec: get("exec")
            .and_then(Value::as_str)
            .unwrap_or("default")
            .to_string(),
        start_time: dur("startTime", Some(Duration::ZERO))?,
        graceful_stop: dur("gracefulStop", Some(Duration::from_secs(30)))?,
        graceful_ramp_down: dur("gracefulRampDown", Some(Duration::from_secs(30)))?,
        env: string_pairs(get("env")),
        tags: string_pairs(get("tags")),
        negative: negative.take(),
        negative_counts: negative_counts.take(),
        stage_problems: stage_problems.take(),
    })
}

/// k6's words for the executor it has and loadlab k6 refuses.
fn externally_controlled(what: &str) -> ScriptError {
    bad(format!(
        "{what}: the externally-controlled executor is not supported by loadlab k6 \
         (it needs k6's REST API); use ramping-vus or an arrival-rate executor"
    ))
}

/// k6's checks common to every executor: the start time and the
/// graceful stop are not negative.
fn common_errors(sc: &Scenario, e: &mut Vec<String>) {
    let negative = |field: &str| sc.negative.iter().any(|(k, _)| *k == field);
    if negative("startTime") {
        e.push("the startTime can't be negative".to_string());
    }
    if negative("gracefulStop") {
        e.push("the gracefulStop timeout can't be negative".to_string());
    }
}

/// What k6 finds wrong with a scenario before anything runs (its
/// executors' checks), in k6's words; k6 exits 104 on any. The whole
/// test's numbers are checked, not an `--execution-segment`'s share.
pub(crate) fn config_errors(sc: &Scenario) -> Vec<String> {
    let mut e = Vec::new();
    let negative = |field: &str| sc.negative.iter().find(|(k, _)| *k == field).map(|p| p.1);
    // A count as given, sign included.
    let signed = |field: &str, held: u64| {
        sc.negative_counts
            .iter()
            .find(|(k, _)| *k == field)
            .map_or(held as i64, |p| p.1)
    };
    let max_vus_checks = |e: &mut Vec<String>, max_vus: u64| {
        let pre = signed("preAllocatedVUs", sc.pre_allocated_vus);
        if pre < 0 {
            e.push("the number of preAllocatedVUs can't be negative".into());
        }
        if signed("maxVUs", max_vus) < pre {
            e.push("maxVUs can't be less than preAllocatedVUs".into());
        }
    };
    // k6's checks common to every executor come first.
    common_errors(sc, &mut e);
    let no_vus = "the number of VUs must be more than 0";
    let at_least_1s = |e: &mut Vec<String>, what: &str, d: Duration| {
        if let Some(size) = negative(what) {
            e.push(format!(
                "the {what} must be at least 1s, but is -{}",
                loadlab_core::format_go_duration(size)
            ));
        } else if d < Duration::from_secs(1) {
            e.push(format!(
                "the {what} must be at least 1s, but is {}",
                loadlab_core::format_go_duration(d)
            ));
        }
    };
    let stageless = "at least one stage has to be specified";
    match &sc.whole {
        Executor::SharedIterations {
            vus,
            iterations,
            max_duration,
        }
        | Executor::PerVuIterations {
            vus,
            iterations,
            max_duration,
        } => {
            if *vus == 0 {
                e.push(no_vus.into());
            }
            if matches!(sc.whole, Executor::PerVuIterations { .. }) {
                if *iterations == 0 {
                    e.push("the number of iterations must be more than 0".into());
                }
            } else if signed("iterations", *iterations) < signed("vus", *vus) {
                e.push(format!(
                    "the number of iterations ({}) can't be less than the number of VUs ({})",
                    signed("iterations", *iterations),
                    signed("vus", *vus)
                ));
            }
            at_least_1s(&mut e, "maxDuration", *max_duration);
        }
        Executor::ConstantVus { vus, duration } => {
            if *vus == 0 {
                e.push(no_vus.into());
            }
            at_least_1s(&mut e, "duration", *duration);
        }
        Executor::RampingVus { start_vus, stages } => {
            if signed("startVUs", *start_vus) < 0 {
                e.push("the number of start VUs can't be negative".into());
            }
            if *start_vus == 0 && stages.iter().all(|s| s.target <= 0.0) {
                e.push(
                    "either startVUs or one of the stages' target values must be greater than 0"
                        .into(),
                );
            }
            if stages.is_empty() {
                e.push(stageless.into());
            }
            e.extend(sc.stage_problems.iter().cloned());
        }
        Executor::ConstantArrivalRate {
            rate,
            time_unit,
            duration,
            max_vus,
        } => {
            if *rate <= 0.0 {
                e.push("the iteration rate must be more than 0".into());
            }
            if time_unit.is_zero() {
                e.push("the timeUnit must be more than 0".into());
            }
            at_least_1s(&mut e, "duration", *duration);
            max_vus_checks(&mut e, *max_vus);
        }
        Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            max_vus,
        } => {
            if *start_rate < 0.0 {
                e.push("the startRate value can't be negative".into());
            }
            if time_unit.is_zero() {
                e.push("the timeUnit must be more than 0".into());
            }
            if stages.is_empty() {
                e.push(stageless.into());
            }
            e.extend(sc.stage_problems.iter().cloned());
            max_vus_checks(&mut e, *max_vus);
        }
    }
    e
}

#[cfg(test)]
mod tests {
    use crate::config::{Options, Overrides};
    use serde_json::json;
    use std::time::Duration;

    #[test]
    fn scenarios_k6_refuses_are_refused_with_its_words() {
        let err =
            |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o).unwrap_err().to_string();
        let one =
            |sc: serde_json::Value| err(json!({"scenarios": {"a": sc}}), &Overrides::default());
        // Each checked against k6 v1.8.1 (exit 104, these words).
        for (sc, want) in [
            (
                json!({"executor": "shared-iterations", "vus": 5, "iterations": 2}),
                "the number of iterations (2) can't be less than the number of VUs (5)",
            ),
            (
                json!({"executor": "shared-iterations", "vus": 2, "iterations": 5, "maxDuration": "0.5s"}),
                "the maxDuration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "per-vu-iterations", "vus": 2, "iterations": 0}),
                "the number of iterations must be more than 0",
            ),
            (
                json!({"executor": "constant-vus", "vus": 0, "duration": "0.5s"}),
                "the number of VUs must be more than 0, the duration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "ramping-vus", "startVUs": 0, "stages": []}),
                "either startVUs or one of the stages' target values must be greater than 0, \
                 at least one stage has to be specified",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 0, "duration": "2s", "preAllocatedVUs": 1}),
                "the iteration rate must be more than 0",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 5, "timeUnit": "0s", "duration": "2s", "preAllocatedVUs": 1}),
                "the timeUnit must be more than 0",
            ),
            (
                json!({"executor": "constant-arrival-rate", "rate": 5, "duration": "2s", "preAllocatedVUs": 3, "maxVUs": 2}),
                "maxVUs can't be less than preAllocatedVUs",
            ),
            (
                json!({"executor": "ramping-arrival-rate", "stages": [], "preAllocatedVUs": 1}),
                "at least one stage has to be specified",
            ),
            // Negative durations: k6 reads them, then refuses them (its
            // common checks first).
            (
                json!({"executor": "constant-arrival-rate", "rate": 1, "duration": "1s",
                       "preAllocatedVUs": 1, "timeUnit": "-1s", "gracefulStop": "-1s"}),
                "the gracefulStop timeout can't be negative, the timeUnit must be more than 0",
            ),
            (
                json!({"executor": "constant-vus", "vus": 1, "duration": "1s",
                       "gracefulStop": "-1s", "startTime": "-2s"}),
                "the startTime can't be negative, the gracefulStop timeout can't be negative",
            ),
            (
                json!({"executor": "ramping-arrival-rate", "preAllocatedVUs": 5, "maxVUs": 2,
                       "timeUnit": "0s", "stages": [{"duration": "1s", "target": 1}]}),
                "the timeUnit must be more than 0, maxVUs can't be less than preAllocatedVUs",
            ),
            (
                json!({"executor": "per-vu-iterations", "vus": 1, "iterations": 1, "maxDuration": "0.5s"}),
                "the maxDuration must be at least 1s, but is 500ms",
            ),
            (
                json!({"executor": "shared-iterations", "vus": 1, "iterations": 1, "maxDuration": "-1s"}),
                "the maxDuration must be at least 1s, but is -1s",
            ),
            (
                json!({"executor": "constant-vus", "vus": 1, "duration": -1500}),
                "the duration must be at least 1s, but is -1.5s",
            ),
        ] {
            let e = one(sc.clone());
            assert!(
                e.contains(&format!("\t- scenario a has configuration errors: {want}")),
                "{sc}: {e}"
            );
        }
    }

    /// k6's checks of several scenarios, and of the command line's
    /// default one; what k6 accepts still runs.
    #[test]
    fn scenarios_in_error_are_all_named_and_the_rest_run() {
        let err =
            |v: serde_json::Value, o: &Overrides| Options::resolve(&v, o).unwrap_err().to_string();
        let one =
            |sc: serde_json::Value| err(json!({"scenarios": {"a": sc}}), &Overrides::default());
        // Every scenario in error is named, each on its line.
        let e = err(
            json!({"scenarios": {
                "a": {"executor": "constant-vus", "vus": 0, "duration": "2s"},
                "b": {"executor": "shared-iterations", "vus": 0, "iterations": 0},
                "c": {"executor": "constant-vus", "vus": 1, "duration": "2s"}}}),
            &Overrides::default(),
        );
        assert!(
            e.starts_with(
                "invalid options: there were problems with the specified script configuration:\n"
            ),
            "{e}"
        );
        assert_eq!(
            e.lines().filter(|l| l.starts_with("\t- scenario")).count(),
            2,
            "{e}"
        );
        assert!(!e.contains("scenario c"), "{e}");
        // A negative gracefulRampDown passes k6's checks (it acts as 0);
        // a negative text that is not a duration is named as such.
        let ok = json!({"scenarios": {"a": {"executor": "ramping-vus", "startVUs": 1,
            "stages": [{"duration": "1s", "target": 1}], "gracefulRampDown": "-1s"}}});
        let o = Options::resolve(&ok, &Overrides::default()).unwrap();
        assert_eq!(o.scenarios[0].graceful_ramp_down, Duration::ZERO);
        let e = one(json!({"executor": "constant-vus", "vus": 1, "duration": "-soon"}));
        assert!(
            e.contains("scenarios.a.duration: \"-soon\" is not a duration"),
            "{e}"
        );
        // The command line's default scenario too: `-u 5 -i 2`, `-d 500ms`.
        let o = Overrides {
            vus: Some(5),
            iterations: Some(2),
            ..Default::default()
        };
        assert!(err(json!({}), &o).contains(
            "scenario default has configuration errors: the number of iterations (2) \
                 can't be less than the number of VUs (5)"
        ),);
        let o = Overrides {
            duration: Some("500ms".into()),
            ..Default::default()
        };
        assert!(err(json!({}), &o).contains("the duration must be at least 1s, but is 500ms"));
        // What k6 accepts still runs: a ramp to zero rate, as many VUs as
        // iterations, a zero-target ramp that starts with VUs.
        for ok in [
            json!({"executor": "ramping-arrival-rate", "stages": [{"target": 0, "duration": "2s"}], "preAllocatedVUs": 1}),
            json!({"executor": "shared-iterations", "vus": 3, "iterations": 3}),
            json!({"executor": "ramping-vus", "startVUs": 2, "stages": [{"target": 0, "duration": "1s"}]}),
        ] {
            Options::resolve(
                &json!({"scenarios": {"a": ok.clone()}}),
                &Overrides::default(),
            )
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn externally_controlled_is_refused() {
        let e = Options::resolve(
            &json!({"scenarios": {"x": {"executor": "externally-controlled"}}}),
            &Overrides::default(),
        )
        .unwrap_err();
        assert!(e.to_string().contains("externally-controlled"), "{e}");
    }
}
