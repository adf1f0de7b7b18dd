//! The layers of the k6 options, as k6's `cmd/config.go` stacks them:
//! k6's defaults, under the script's `options`, under the environment's
//! `K6_*` variables ([`env_layer`]), under the command line's flags
//! ([`Overrides`], `flags_over`). A layer's `duration`, `iterations` or
//! `stages` replace all of the lower layers' shortcuts and `scenarios`.
//!
//! [`Options::resolve`](super::Options::resolve) reads the layers so
//! stacked; [`with_flags`] shows them as k6's `exec.test.options` does.

use serde_json::{Map, Value, json};

use super::env::env_layer;
use super::flags::Overrides;

/// The script's `options` (`raw`) with the environment's `K6_*` over them
/// and the command line's over those, as k6 layers them: `-u` sets `vus`;
/// `-d`, `-i` or `-s` replace all of `duration`, `iterations`, `stages` and
/// `scenarios`; `--tag` replaces `tags`.
pub fn with_flags(raw: &Value, o: &Overrides) -> Value {
    // The environment's `K6_*` layer under the flags' (its values were
    // checked by `Options::resolve`, before any of this is shown).
    let env = env_layer(raw, &o.env).unwrap_or_else(|_| raw.clone());
    let mut v = flags_over(&env, o);
    // k6's local IPs come from --local-ips or K6_LOCAL_IPS, as written (a
    // script's own `localIPs` is no option of k6's).
    if let Some(m) = v.as_object_mut() {
        let text = o.local_ips_text();
        m.insert("localIPs".into(), text.map_or(Value::Null, Value::from));
    }
    v
}

/// The command line's layer over `layered` (the script's options with the
/// environment's already over them).
pub(crate) fn flags_over(layered: &Value, o: &Overrides) -> Value {
    let mut m = layered.as_object().cloned().unwrap_or_default();
    // A duration flag in Go's form (`-d 90s` shows as "1m30s"), its sign
    // kept; the flags were checked to be durations (cli/src/cmd/k6.rs).
    let go = |d: &str| match super::parse_signed_duration_str(d) {
        Some((neg, d)) => Value::String(format!(
            "{}{}",
            if neg { "-" } else { "" },
            loadlab_core::format_go_duration(d)
        )),
        None => Value::String(d.to_string()),
    };
    if o.no_setup {
        m.insert("noSetup".into(), Value::Bool(true));
    }
    if o.no_teardown {
        m.insert("noTeardown".into(), Value::Bool(true));
    }
    if let Some(f) = &o.console_output {
        m.insert("consoleOutput".into(), Value::String(f.clone()));
    }
    if let Some(v) = o.vus {
        m.insert("vus".into(), json!(v));
    }
    if let Some(t) = &o.system_tags {
        m.insert("systemTags".into(), json!(t));
    }
    if let Some(t) = &o.dns
        && let Ok(fields) = super::dns_text_fields(t)
    {
        let mut d = m
            .get("dns")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        d.extend(fields);
        m.insert("dns".into(), Value::Object(d));
    }
    if o.duration.is_some() || o.iterations.is_some() || o.stages.is_some() {
        for k in ["duration", "iterations", "stages", "scenarios"] {
            m.remove(k);
        }
    }
    if let Some(d) = &o.duration {
        m.insert("duration".into(), go(d));
    }
    if let Some(i) = o.iterations {
        m.insert("iterations".into(), json!(i));
    }
    if let Some(stages) = &o.stages {
        let list: Vec<Value> = stages
            .iter()
            .filter_map(|st| {
                let mut v = super::stage_flag(st).ok()?;
                if let Some(d) = v.get("duration").and_then(Value::as_str).map(go) {
                    v["duration"] = d;
                }
                Some(v)
            })
            .collect();
        m.insert("stages".into(), Value::Array(list));
    }
    // A stage without a duration is left out, in each layer, as k6 does.
    if let Some(Value::Array(list)) = m.get_mut("stages") {
        list.retain(|st| st.get("duration").is_some_and(|d| !d.is_null()));
    }
    if !o.tags.is_empty() {
        let tags: Map<String, Value> = o
            .tags
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect();
        m.insert("tags".into(), Value::Object(tags));
    }
    Value::Object(m)
}
