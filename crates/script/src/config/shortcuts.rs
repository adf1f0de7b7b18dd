//! The test's scenarios: `options.scenarios`, or the one `default`
//! scenario the shortcuts (`vus`, `duration`, `iterations`, `stages`)
//! make, as k6 derives it from its layers, and k6's checks of them all.

use std::time::Duration;

use serde_json::{Map, Value};

use super::executor::Executor;
use super::flags::Overrides;
use super::scenario::{Scenario, config_errors, scenario};
use super::stages::{Stage, stages};
use super::values::{DURATION_NOT_POSITIVE, Layered, bad, int, parse_signed_duration, whole};
use crate::ScriptError;

/// The shortcut options of the layers, the flags' over the others'.
struct Shortcuts<'a> {
    vus: Option<i64>,
    iterations: Option<i64>,
    duration: Option<(bool, Duration)>,
    stage_list: Option<Vec<Stage>>,
    stage_problems: Vec<String>,
    scenario_map: Option<&'a Map<String, Value>>,
}

impl<'a> Shortcuts<'a> {
    fn read(layered: &'a Value) -> Result<Shortcuts<'a>, ScriptError> {
        let short = |k: &str| layered.get(k).filter(|v| !v.is_null());
        let vus = short("vus").map(|v| int(v, "options.vus")).transpose()?;
        let iterations = short("iterations")
            .map(|v| int(v, "options.iterations"))
            .transpose()?;
        let duration = short("duration")
            .map(|v| parse_signed_duration(v, "options.duration"))
            .transpose()?;
        let (stage_list, stage_problems) = match short("stages") {
            Some(v) => {
                let (list, problems) = stages(v, "options.stages", false)?;
                (Some(list), problems)
            }
            None => (None, Vec::new()),
        };
        let scenario_map = match short("scenarios") {
            None => None,
            Some(Value::Object(sc)) => Some(sc),
            Some(other) => return Err(bad(format!("options.scenarios: {other} is not an object"))),
        };
        Ok(Shortcuts {
            vus,
            iterations,
            duration,
            stage_list,
            stage_problems,
            scenario_map,
        })
    }
}

/// The scenarios of the layers (`opts` under the flags of `o`), sorted by
/// name and checked with k6's checks; k6's warnings go to `warnings`.
pub(crate) fn scenarios(
    opts: Layered,
    o: &Overrides,
    env_replaces_scenarios: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<Scenario>, ScriptError> {
    // k6's layers: the environment's or the command line's `duration`,
    // `iterations` or `stages` replace all of the lower layers'
    // shortcuts and `scenarios` (k6 warns when scenarios go).
    if env_replaces_scenarios {
        warnings
            .push("\"env\" level configuration overrode scenarios configuration entirely".into());
    }
    let flag_shortcut = o.duration.is_some() || o.iterations.is_some() || o.stages.is_some();
    if flag_shortcut && opts.get("scenarios").is_some() {
        warnings
            .push("\"cli\" level configuration overrode scenarios configuration entirely".into());
    }
    // (`opts` has the environment's layer already.)
    let layered = super::layer::flags_over(opts.0, o);
    let sh = Shortcuts::read(&layered)?;
    let mut negative = Vec::new();
    let mut negative_counts = Vec::new();
    let shortcut = shortcut_executor(&sh, &mut negative, &mut negative_counts)?;
    let mut scenarios = Vec::new();
    match (shortcut, sh.scenario_map) {
        (None, Some(sc)) if !sc.is_empty() => {
            for (name, s) in sc {
                scenarios.push(scenario(name, s)?);
            }
        }
        (shortcut, _) => {
            let executor = shortcut.unwrap_or_else(|| one_vu_once(&sh, warnings));
            let stage_problems = if matches!(executor, Executor::RampingVus { .. }) {
                sh.stage_problems
            } else {
                Vec::new()
            };
            scenarios.push(Scenario {
                name: "default".into(),
                whole: executor.clone(),
                executor,
                exec: "default".into(),
                start_time: Duration::ZERO,
                graceful_stop: Duration::from_secs(30),
                graceful_ramp_down: Duration::from_secs(30),
                env: Vec::new(),
                tags: Vec::new(),
                segment: None,
                pre_allocated_vus: 0,
                negative,
                negative_counts: negative_counts.into_iter().filter(|c| c.1 < 0).collect(),
                stage_problems,
            });
        }
    }
    scenarios.sort_by(|a, b| a.name.cmp(&b.name));
    check(&scenarios)?;
    Ok(scenarios)
}

/// The executor the shortcuts make, if they make one, as k6 derives it
/// (and what it refuses to mix in one layer).
fn shortcut_executor(
    sh: &Shortcuts,
    negative: &mut Vec<(&'static str, Duration)>,
    negative_counts: &mut Vec<(&'static str, i64)>,
) -> Result<Option<Executor>, ScriptError> {
    let conflict = |a: &str, b: &str| {
        Err(bad(format!(
            "using `{a}` and `{b}` options simultaneously is not allowed"
        )))
    };
    let has_stages = sh.stage_list.as_ref().is_some_and(|s| !s.is_empty());
    let vus_n = sh.vus.unwrap_or(1);
    Ok(if let Some(iterations) = sh.iterations {
        if has_stages {
            return conflict("iterations", "stages");
        }
        if sh.scenario_map.is_some() {
            return conflict("iterations", "scenarios");
        }
        negative_counts.extend([("vus", vus_n), ("iterations", iterations)]);
        let max_duration = match sh.duration {
            Some((true, size)) => {
                negative.push(("maxDuration", size));
                Duration::ZERO
            }
            Some((false, d)) => d,
            None => Duration::from_secs(600),
        };
        // More VUs than iterations is refused below, as in k6.
        Some(Executor::SharedIterations {
            vus: whole(vus_n),
            iterations: whole(iterations),
            max_duration,
        })
    } else if let Some((neg, duration)) = sh.duration {
        if has_stages {
            return conflict("duration", "stages");
        }
        if sh.scenario_map.is_some() {
            return conflict("duration", "scenarios");
        }
        if neg || duration.is_zero() {
            return Err(bad(DURATION_NOT_POSITIVE));
        }
        negative_counts.push(("vus", vus_n));
        Some(Executor::ConstantVus {
            vus: whole(vus_n),
            duration,
        })
    } else if has_stages {
        if sh.scenario_map.is_some() {
            return conflict("stages", "scenarios");
        }
        negative_counts.push(("startVUs", vus_n));
        Some(Executor::RampingVus {
            start_vus: whole(vus_n),
            stages: sh.stage_list.clone().unwrap_or_default(),
        })
    } else {
        None
    })
}

/// No duration, iterations, stages or scenarios: one VU, once, as in k6
/// (with its warnings).
fn one_vu_once(sh: &Shortcuts, warnings: &mut Vec<String>) -> Executor {
    let vus_n = sh.vus.unwrap_or(1);
    if vus_n != 1 {
        warnings.push(format!(
            "`vus={vus_n}` option will be ignored, it only works in conjunction \
             with `iterations`, `duration`, or `stages`"
        ));
    }
    if sh.stage_list.is_some() {
        warnings.push(
            "`stages` was explicitly set to an empty value, running the script \
             with 1 iteration in 1 VU"
                .into(),
        );
    }
    if sh.scenario_map.is_some() {
        warnings.push(
            "`scenarios` was explicitly set to an empty value, running the \
             script with 1 iteration in 1 VU"
                .into(),
        );
    }
    Executor::PerVuIterations {
        vus: 1,
        iterations: 1,
        max_duration: Duration::from_secs(600),
    }
}

/// k6's checks of every scenario, all problems in one error.
fn check(scenarios: &[Scenario]) -> Result<(), ScriptError> {
    let problems: Vec<String> = scenarios
        .iter()
        .filter_map(|sc| {
            let e = config_errors(sc);
            (!e.is_empty()).then(|| {
                format!(
                    "\t- scenario {} has configuration errors: {}",
                    sc.name,
                    e.join(", ")
                )
            })
        })
        .collect();
    if !problems.is_empty() {
        return Err(bad(format!(
            "there were problems with the specified script configuration:\n{}",
            problems.join("\n")
        )));
    }
    Ok(())
}
