//! `exec.test.options`: the test's options as k6 shows them, in k6's
//! shape: every option k6 has, in its order, `null` where the script set
//! none, the shortcut options (`vus`, `duration`, `iterations`, `stages`)
//! turned into the `default` scenario, and durations in Go's form.
//! (serde_json's maps sort their keys, so the objects whose order is k6's
//! are written as text here; maps of the script's own, such as `tags`,
//! come sorted, as Go writes maps.)

use serde_json::{Map, Value, json};

/// A JSON object with its keys in the order they are added.
#[derive(Default)]
struct Obj(Vec<(String, String)>);

impl Obj {
    fn put(&mut self, k: &str, v: impl Into<Json>) {
        self.0.push((k.to_string(), v.into().0));
    }

    fn text(&self) -> String {
        let fields: Vec<String> = self
            .0
            .iter()
            .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
            .collect();
        format!("{{{}}}", fields.join(","))
    }
}

/// JSON text.
struct Json(String);

impl From<Value> for Json {
    fn from(v: Value) -> Json {
        Json(v.to_string())
    }
}

impl From<Obj> for Json {
    fn from(o: Obj) -> Json {
        Json(o.text())
    }
}

/// Each executor's fields after the common ones, in k6's order.
fn executor_fields(executor: &str) -> &'static [&'static str] {
    match executor {
        "shared-iterations" | "per-vu-iterations" => &["vus", "iterations", "maxDuration"],
        "constant-vus" => &["vus", "duration"],
        "ramping-vus" => &["startVUs", "stages", "gracefulRampDown"],
        "constant-arrival-rate" => &["rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"],
        "ramping-arrival-rate" => &[
            "startRate",
            "timeUnit",
            "stages",
            "preAllocatedVUs",
            "maxVUs",
        ],
        _ => &[],
    }
}

/// The fields that hold durations, shown in Go's form (`1m30s`).
const DURATIONS: [&str; 9] = [
    "startTime",
    "gracefulStop",
    "maxDuration",
    "duration",
    "gracefulRampDown",
    "timeUnit",
    "setupTimeout",
    "teardownTimeout",
    "minIterationDuration",
];

/// A duration as k6 shows it, or the value as the script gave it when it
/// is not one.
fn go_duration(v: &Value) -> Value {
    match crate::config::parse_duration(v, "") {
        Ok(d) => Value::String(loadlab_core::duration::format_go_duration(d)),
        Err(_) => v.clone(),
    }
}

fn field(src: &Map<String, Value>, key: &str) -> Value {
    match src.get(key) {
        None | Some(Value::Null) => Value::Null,
        Some(v) if DURATIONS.contains(&key) => go_duration(v),
        Some(Value::Array(stages)) if key == "stages" => Value::Array(
            stages
                .iter()
                .map(|s| match s.as_object() {
                    Some(o) => {
                        json!({"duration": field(o, "duration"), "target": field(o, "target")})
                    }
                    None => s.clone(),
                })
                .collect(),
        ),
        Some(v) => v.clone(),
    }
}

fn scenario(src: &Map<String, Value>) -> Obj {
    let executor = src
        .get("executor")
        .and_then(Value::as_str)
        .unwrap_or("per-vu-iterations");
    let mut o = Obj::default();
    o.put("executor", Value::String(executor.into()));
    for k in ["startTime", "gracefulStop", "env", "exec", "tags"]
        .iter()
        .chain(executor_fields(executor))
    {
        o.put(k, field(src, k));
    }
    o
}

/// The `default` scenario k6 makes of the shortcut options.
fn shortcut(raw: &Map<String, Value>) -> Obj {
    let set = |k: &str| raw.get(k).is_some_and(|v| !v.is_null());
    let mut s = Map::new();
    let stages_set = raw
        .get("stages")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    if stages_set {
        s.insert("executor".into(), "ramping-vus".into());
        s.insert("startVUs".into(), field(raw, "vus"));
        s.insert("stages".into(), field(raw, "stages"));
    } else if set("iterations") {
        s.insert("executor".into(), "shared-iterations".into());
        s.insert("vus".into(), field(raw, "vus"));
        s.insert("iterations".into(), field(raw, "iterations"));
        s.insert("maxDuration".into(), field(raw, "duration"));
    } else if set("duration") {
        s.insert("executor".into(), "constant-vus".into());
        s.insert("vus".into(), field(raw, "vus"));
        s.insert("duration".into(), field(raw, "duration"));
    } else {
        s.insert("executor".into(), "per-vu-iterations".into());
    }
    scenario(&s)
}

/// k6's `exec.test.options` of a script whose `options` are `raw`, as
/// JSON text.
pub fn k6_test_options(raw: &Value) -> String {
    let empty = Map::new();
    let raw = raw.as_object().unwrap_or(&empty);
    let mut scenarios = Obj::default();
    match raw.get("scenarios").and_then(Value::as_object) {
        Some(list) if !list.is_empty() => {
            for (name, s) in list {
                match s.as_object() {
                    Some(s) => scenarios.put(name, scenario(s)),
                    None => scenarios.put(name, Value::Null),
                }
            }
        }
        _ => scenarios.put("default", shortcut(raw)),
    }
    let mut o = Obj::default();
    o.put("paused", field(raw, "paused"));
    o.put("scenarios", scenarios);
    for k in [
        "executionSegment",
        "executionSegmentSequence",
        "noSetup",
        "setupTimeout",
        "noTeardown",
        "teardownTimeout",
        "rps",
    ] {
        o.put(k, field(raw, k));
    }
    let dns = raw.get("dns").and_then(Value::as_object);
    let mut d = Obj::default();
    for k in ["ttl", "select", "policy"] {
        d.put(k, dns.map_or(Value::Null, |m| field(m, k)));
    }
    o.put("dns", d);
    for k in [
        "maxRedirects",
        "userAgent",
        "batch",
        "batchPerHost",
        "httpDebug",
        "insecureSkipTLSVerify",
        "tlsCipherSuites",
    ] {
        o.put(k, field(raw, k));
    }
    // As k6 writes its pair: `min` then `max` (`""`: any).
    match field(raw, "tlsVersion") {
        Value::Null => o.put("tlsVersion", Value::Null),
        v => {
            let (min, max) = match &v {
                Value::Object(m) => (field(m, "min"), field(m, "max")),
                one => (one.clone(), one.clone()),
            };
            let text = |v: Value| match v {
                Value::Null => Value::String(String::new()),
                v => v,
            };
            let mut t = Obj::default();
            t.put("min", text(min));
            t.put("max", text(max));
            o.put("tlsVersion", t);
        }
    }
    for k in [
        "tlsAuth",
        "throw",
        "thresholds",
        "blacklistIPs",
        "blockHostnames",
        "hosts",
        "noConnectionReuse",
        "noVUConnectionReuse",
        "minIterationDuration",
        "ext",
    ] {
        o.put(k, field(raw, k));
    }
    let trend_stats = match field(raw, "summaryTrendStats") {
        Value::Null => json!(["avg", "min", "med", "max", "p(90)", "p(95)"]),
        v => v,
    };
    o.put("summaryTrendStats", trend_stats);
    o.put("summaryTimeUnit", field(raw, "summaryTimeUnit"));
    // As k6 writes its set: the known names, sorted (none: null).
    let system_tags = match field(raw, "systemTags") {
        Value::Null => json!(crate::system_tags::CSV_TAGS),
        Value::Array(a) => {
            let set =
                crate::system_tags::SystemTags::from_names(a.iter().filter_map(Value::as_str)).0;
            match set.names() {
                n if n.is_empty() => Value::Null,
                n => json!(n),
            }
        }
        v => v,
    };
    o.put("systemTags", system_tags);
    for k in [
        "tags",
        "metricSamplesBufferSize",
        "noCookiesReset",
        "discardResponseBodies",
        "consoleOutput",
        "localIPs",
    ] {
        o.put(k, field(raw, k));
    }
    o.text()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::layer::with_flags;

    /// As k6 v1.8.1 shows them: the text of --local-ips or K6_LOCAL_IPS;
    /// a script's own `localIPs` is not read.
    #[test]
    fn local_ips_shown_from_the_flag_or_the_environment_as_k6() {
        let raw = json!({"localIPs": "10.1.1.1"});
        let shown = |o: crate::Overrides| k6_test_options(&with_flags(&raw, &o));
        assert!(shown(crate::Overrides::default()).contains(r#""localIPs":null"#));
        let o = crate::Overrides {
            local_ips: Some("127.0.0.2-127.0.0.3,127.0.0.9".into()),
            env: vec![("K6_LOCAL_IPS".into(), "127.0.0.5".into())],
            ..Default::default()
        };
        assert!(shown(o).contains(r#""localIPs":"127.0.0.2-127.0.0.3,127.0.0.9""#));
        let o = crate::Overrides {
            env: vec![("K6_LOCAL_IPS".into(), "127.0.0.5".into())],
            ..Default::default()
        };
        assert!(shown(o).contains(r#""localIPs":"127.0.0.5""#));
    }

    /// k6 v1.8.1's `JSON.stringify(exec.test.options.scenarios)` for the
    /// shortcut options.
    #[test]
    fn shortcut_options_become_k6s_default_scenario() {
        let s = |raw: Value| {
            let all = k6_test_options(&raw);
            let at = all.find(r#""scenarios":"#).unwrap() + 12;
            let end = all.find(r#","executionSegment""#).unwrap();
            all[at..end].to_string()
        };
        assert_eq!(
            s(json!({"vus": 2, "duration": "1s"})),
            r#"{"default":{"executor":"constant-vus","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":2,"duration":"1s"}}"#
        );
        assert_eq!(
            s(json!({"stages": [{"duration": "1s", "target": 2}]})),
            r#"{"default":{"executor":"ramping-vus","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"startVUs":null,"stages":[{"duration":"1s","target":2}],"gracefulRampDown":null}}"#
        );
        assert_eq!(
            s(json!({"iterations": 3})),
            r#"{"default":{"executor":"shared-iterations","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":null,"iterations":3,"maxDuration":null}}"#
        );
        assert_eq!(
            s(json!({})),
            r#"{"default":{"executor":"per-vu-iterations","startTime":null,"gracefulStop":null,"env":null,"exec":null,"tags":null,"vus":null,"iterations":null,"maxDuration":null}}"#
        );
    }
}
