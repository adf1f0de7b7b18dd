//! The run's options from their layers, read and checked as k6 does.

use std::time::Duration;

use serde_json::Value;

use super::Options;
use super::env::{env_layer, env_shortcut, env_var};
use super::executor::Executor;
use super::flags::Overrides;
use super::network::{DnsOptions, K6_CIPHER_SUITES, dns_text_fields, tls_version};
use super::request::RequestOptions;
use super::scenario::{Scenario, config_errors, scenario};
use super::stages::stages;
use super::summary::{DEFAULT_STATS, TimeUnit};
use super::values::{
    DURATION_NOT_POSITIVE, bad, int, parse_duration, parse_signed_duration, string_pairs, whole,
    whole_count,
};
use crate::ScriptError;
use crate::segment::Tuple;
use crate::system_tags::SystemTags;
use crate::thresholds::parse::{Threshold, parse_metric_key};

impl Options {
    /// Builds the run's options from the script's (JSON of `options`, or
    /// `null`), the environment's `K6_*` and the command line's, layered as
    /// k6 layers them (a flag wins over `K6_*`, which wins over the script;
    /// a layer's `duration`, `iterations` or `stages` replace the lower
    /// layers' four shortcuts and `scenarios`), and checked with k6's
    /// checks and words (two shortcuts in one layer, negative counts and
    /// durations, each executor's own).
    pub fn resolve(script: &Value, o: &Overrides) -> Result<Options, ScriptError> {
        // The environment's layer first (the flags' is over it, below).
        let env_replaces_scenarios =
            env_shortcut(&o.env) && script.get("scenarios").is_some_and(|v| !v.is_null());
        let script = &env_layer(script, &o.env)?;
        let get = |k: &str| script.get(k).filter(|v| !v.is_null());
        // k6's options that loadlab k6 does not have: accepted and ignored
        // would mislead, so each is named (keys k6 does not know are
        // ignored, as k6 ignores them; `cloud` is k6 Cloud's alone).
        for unsupported in [
            "ext",
            "paused",
            "linger",
            "executionSegment",
            "executionSegmentSequence",
        ] {
            if let Some(v) = get(unsupported) {
                // An option set to its default changes nothing.
                if v == &Value::Bool(false) {
                    continue;
                }
                return Err(bad(format!(
                    "options.{unsupported} is not supported by loadlab k6 (see docs/k6.md)"
                )));
            }
        }
        let mut scenarios = Vec::new();
        let mut warnings = Vec::new();
        // k6 v1.8.1 has no reader for K6_HOSTS: it ignores the variable,
        // whatever its value. So does loadlab, saying so.
        if env_var(&o.env, "K6_HOSTS").is_some() {
            warnings.push(
                "K6_HOSTS is ignored, as k6 ignores it (it has no reader for it); set the script's \
                 options.hosts instead"
                    .into(),
            );
        }
        // k6 reads its local IPs from --local-ips and K6_LOCAL_IPS only
        // (the script's `localIPs` is no option of its: `json:"-"`).
        if get("localIPs").is_some_and(|v| v != &Value::Bool(false)) {
            warnings.push(
                "options.localIPs is ignored, as k6 ignores it in a script; give --local-ips or \
                 K6_LOCAL_IPS"
                    .into(),
            );
        }
        let local_ips = match o.local_ips_text() {
            None => None,
            Some(t) => Some(std::sync::Arc::new(
                crate::local_ips::IpPool::parse(t).map_err(bad)?,
            )),
        };
        // k6's layers: the environment's or the command line's `duration`,
        // `iterations` or `stages` replace all of the lower layers'
        // shortcuts and `scenarios` (k6 warns when scenarios go).
        if env_replaces_scenarios {
            warnings.push(
                "\"env\" level configuration overrode scenarios configuration entirely".into(),
            );
        }
        let flag_shortcut = o.duration.is_some() || o.iterations.is_some() || o.stages.is_some();
        if flag_shortcut && get("scenarios").is_some() {
            warnings.push(
                "\"cli\" level configuration overrode scenarios configuration entirely".into(),
            );
        }
        // (`script` has the environment's layer already.)
        let layered = crate::test_options::flags_over(script, o);
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
        // Which of them make the test, as k6 derives its scenarios (and
        // what it refuses to mix in one layer).
        let conflict = |a: &str, b: &str| {
            Err(bad(format!(
                "using `{a}` and `{b}` options simultaneously is not allowed"
            )))
        };
        let has_stages = stage_list.as_ref().is_some_and(|s| !s.is_empty());
        let mut negative = Vec::new();
        let mut negative_counts = Vec::new();
        let vus_n = vus.unwrap_or(1);
        let shortcut = if let Some(iterations) = iterations {
            if has_stages {
                return conflict("iterations", "stages");
            }
            if scenario_map.is_some() {
                return conflict("iterations", "scenarios");
            }
            negative_counts.extend([("vus", vus_n), ("iterations", iterations)]);
            let max_duration = match duration {
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
        } else if let Some((neg, duration)) = duration {
            if has_stages {
                return conflict("duration", "stages");
            }
            if scenario_map.is_some() {
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
            if scenario_map.is_some() {
                return conflict("stages", "scenarios");
            }
            negative_counts.push(("startVUs", vus_n));
            Some(Executor::RampingVus {
                start_vus: whole(vus_n),
                stages: stage_list.clone().unwrap_or_default(),
            })
        } else {
            None
        };
        match (shortcut, scenario_map) {
            (None, Some(sc)) if !sc.is_empty() => {
                for (name, s) in sc {
                    scenarios.push(scenario(name, s)?);
                }
            }
            (shortcut, scenario_map) => {
                let executor = shortcut.unwrap_or_else(|| {
                    // No duration, iterations, stages or scenarios: one VU,
                    // once, as in k6 (with its warnings).
                    if vus_n != 1 {
                        warnings.push(format!(
                            "`vus={vus_n}` option will be ignored, it only works in conjunction \
                             with `iterations`, `duration`, or `stages`"
                        ));
                    }
                    if stage_list.is_some() {
                        warnings.push(
                            "`stages` was explicitly set to an empty value, running the script \
                             with 1 iteration in 1 VU"
                                .into(),
                        );
                    }
                    if scenario_map.is_some() {
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
                });
                let stage_problems = if matches!(executor, Executor::RampingVus { .. }) {
                    stage_problems
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
        let mut submetrics = Vec::new();
        if let Some(Value::Object(t)) = get("thresholds") {
            for key in t.keys() {
                let (metric, filter) = parse_metric_key(key)?;
                if !filter.is_empty() && !submetrics.contains(&(metric.clone(), filter.clone())) {
                    submetrics.push((metric, filter));
                }
            }
        }
        let mut thresholds = Vec::new();
        if !o.no_thresholds
            && let Some(Value::Object(t)) = get("thresholds")
        {
            for (key, v) in t {
                let (metric, filter) = parse_metric_key(key)?;
                let list: Vec<&Value> = match v {
                    Value::Array(a) => a.iter().collect(),
                    other => vec![other],
                };
                for item in list {
                    let (source, abort) = match item {
                        Value::String(s) => (s.clone(), false),
                        Value::Object(m) => (
                            m.get("threshold")
                                .and_then(Value::as_str)
                                .ok_or_else(|| {
                                    bad(format!(
                                        "thresholds[{key:?}]: an object needs \"threshold\""
                                    ))
                                })?
                                .to_string(),
                            m.get("abortOnFail")
                                .and_then(Value::as_bool)
                                .unwrap_or(false),
                        ),
                        _ => {
                            return Err(bad(format!(
                                "thresholds[{key:?}]: {item} is not a threshold"
                            )));
                        }
                    };
                    crate::metrics::parse_threshold(&source)
                        .map_err(|e| bad(format!("thresholds[{key:?}]: {e}")))?;
                    thresholds.push(Threshold {
                        key: key.clone(),
                        metric: metric.clone(),
                        filter: filter.clone(),
                        source,
                        abort_on_fail: abort,
                    });
                }
            }
        }
        // As in k6, `--tag` flags replace the script's `tags` (not merge).
        let mut tags = if o.tags.is_empty() {
            string_pairs(get("tags"))
        } else {
            Vec::new()
        };
        for (k, v) in &o.tags {
            tags.retain(|(a, _)| a != k);
            tags.push((k.clone(), v.clone()));
        }
        let summary_trend_stats = match &o.summary_trend_stats {
            Some(s) => s.clone(),
            None => match get("summaryTrendStats") {
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| v.as_str().map(str::to_string))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("options.summaryTrendStats: not a list of strings"))?,
                _ => DEFAULT_STATS.iter().map(|s| s.to_string()).collect(),
            },
        };
        for s in &summary_trend_stats {
            crate::metrics::check_stat(s).map_err(|e| bad(format!("summaryTrendStats: {e}")))?;
        }
        let setup_timeout = get("setupTimeout")
            .map(|v| parse_duration(v, "options.setupTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let teardown_timeout = get("teardownTimeout")
            .map(|v| parse_duration(v, "options.teardownTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let max_redirects = match o.max_redirects {
            Some(n) => Some(n),
            None => get("maxRedirects")
                .map(|v| {
                    v.as_i64()
                        .map(|n| n.clamp(0, i64::from(i32::MAX)) as u32)
                        .ok_or_else(|| {
                            bad(format!(
                                "options.maxRedirects: {v} is not a number of redirects"
                            ))
                        })
                })
                .transpose()?,
        };
        let flag = |k: &str| -> Result<bool, ScriptError> {
            match get(k) {
                None => Ok(false),
                Some(Value::Bool(b)) => Ok(*b),
                Some(v) => Err(bad(format!("options.{k}: {v} is not true or false"))),
            }
        };
        let flags = &o.request;
        let user_agent = match (&flags.user_agent, get("userAgent")) {
            (Some(ua), _) => Some(ua.clone()),
            (None, None) => None,
            (None, Some(Value::String(s))) => Some(s.clone()),
            (None, Some(v)) => return Err(bad(format!("options.userAgent: {v} is not a string"))),
        };
        let unit_text = match (&o.summary_time_unit, get("summaryTimeUnit")) {
            (Some(u), _) => Some(u.clone()),
            (None, Some(Value::String(u))) => Some(u.clone()),
            (None, Some(v)) => Some(v.to_string()),
            (None, None) => None,
        };
        let summary_time_unit =
            match unit_text.as_deref() {
                None | Some("") => None,
                Some(u) => Some(TimeUnit::parse(u).ok_or_else(|| {
                    bad(format!("summaryTimeUnit: {u:?} is not one of s, ms, us"))
                })?),
            };
        // systemTags: the flag's names, else the script's (or
        // K6_SYSTEM_TAGS's) list, else k6's default. As in k6, an empty
        // list keeps none, and a name that is no system tag is left out
        // (with a warning here: k6 says nothing).
        let system_tags = {
            let names: Option<Vec<String>> = match (&o.system_tags, get("systemTags")) {
                (Some(list), _) => Some(list.clone()),
                (None, None) => None,
                (None, Some(Value::Array(a))) => Some(
                    a.iter()
                        .map(|v| match v {
                            Value::String(s) => Ok(s.clone()),
                            v => Err(bad(format!(
                                "options.systemTags: {v} is not a tag name (a string)"
                            ))),
                        })
                        .collect::<Result<_, _>>()?,
                ),
                (None, Some(v)) => {
                    return Err(bad(format!(
                        "options.systemTags: {v} is not a list of tag names"
                    )));
                }
            };
            match names {
                None => SystemTags::default(),
                Some(names) => {
                    let (set, unknown) = SystemTags::from_names(names.iter().map(String::as_str));
                    for u in unknown {
                        warnings.push(format!(
                            "systemTags: {u:?} is not a system tag and is left out (known: {})",
                            crate::system_tags::ALL.join(", ")
                        ));
                    }
                    set
                }
            }
        };
        // dns: the flag's fields over the script's (and K6_DNS's), each
        // over k6's default.
        let dns = {
            let mut fields = match get("dns") {
                None => serde_json::Map::new(),
                Some(Value::Object(m)) => m.clone(),
                Some(v) => {
                    return Err(bad(format!(
                        "options.dns: {v} is not an object (ttl, select, policy)"
                    )));
                }
            };
            if let Some(t) = &o.dns {
                fields.extend(dns_text_fields(t).map_err(|e| bad(format!("--dns {t:?}: {e}")))?);
            }
            let mut d = DnsOptions::default();
            for (k, v) in &fields {
                let v = match v {
                    Value::Null => continue,
                    Value::String(s) => s.as_str(),
                    v => {
                        return Err(bad(format!("options.dns.{k}: {v} is not a string")));
                    }
                };
                // An empty ttl is k6's default; keys k6 does not know are
                // ignored, as k6 ignores them.
                if !(k == "ttl" && v.is_empty()) {
                    d.set(k, v)
                        .map_err(|e| bad(format!("options.dns.{k}: {e}")))?;
                }
            }
            d
        };
        // tlsVersion: a version, or `{min, max}` (`""` or none: any); of
        // k6's, loadlab speaks TLS 1.2 and 1.3.
        let tls_versions = match get("tlsVersion") {
            None => None,
            Some(v) => {
                let (min, max) = match v {
                    Value::Object(m) => (
                        tls_version(
                            m.get("min").unwrap_or(&Value::Null),
                            "options.tlsVersion.min",
                        )?,
                        tls_version(
                            m.get("max").unwrap_or(&Value::Null),
                            "options.tlsVersion.max",
                        )?,
                    ),
                    v => {
                        let one = tls_version(v, "options.tlsVersion")?;
                        (one, one)
                    }
                };
                // Go's client: at least TLS 1.2 unless asked; at most 1.3.
                let lo = if min == 0 { 0x0303 } else { min };
                let hi = if max == 0 { 0x0304 } else { max };
                let pair = (lo <= 0x0303 && hi >= 0x0303, lo <= 0x0304 && hi >= 0x0304);
                if pair == (false, false) {
                    return Err(bad(format!(
                        "options.tlsVersion: {v}: loadlab k6 speaks TLS 1.2 and 1.3 only, none \
                         of them is in this range"
                    )));
                }
                if lo < 0x0303 {
                    warnings.push(
                        "tlsVersion: TLS 1.0 and 1.1 are not offered by loadlab k6 (it speaks TLS \
                         1.2 and 1.3); a server that speaks nothing newer will fail the handshake"
                            .into(),
                    );
                }
                Some(pair)
            }
        };
        // tlsCipherSuites: Go's names (k6 refuses others); as in Go they
        // choose among TLS 1.2's, TLS 1.3's are not chosen.
        let tls_cipher_suites = match get("tlsCipherSuites") {
            None => None,
            Some(Value::Array(a)) => {
                let ours = loadlab_engine::tls12_suite_names();
                let mut keep = Vec::new();
                for v in a {
                    let Value::String(name) = v else {
                        return Err(bad(format!(
                            "options.tlsCipherSuites: {v} is not a cipher suite name"
                        )));
                    };
                    if !K6_CIPHER_SUITES.contains(&name.as_str()) {
                        return Err(bad(format!(
                            "options.tlsCipherSuites: unknown cipher suite '{name}'"
                        )));
                    }
                    if ours.contains(&name.as_str()) {
                        keep.push(name.clone());
                    } else if !name.starts_with("TLS_AES_") && !name.starts_with("TLS_CHACHA20") {
                        warnings.push(format!(
                            "tlsCipherSuites: {name} is not offered by loadlab k6 (its TLS 1.2 \
                             suites: {})",
                            ours.join(", ")
                        ));
                    }
                }
                Some(keep)
            }
            Some(v) => {
                return Err(bad(format!(
                    "options.tlsCipherSuites: {v} is not a list of cipher suite names"
                )));
            }
        };
        // blockHostnames, blacklistIPs: lists (a flag replaces the
        // script's), checked as k6 checks them.
        let list = |k: &str, flag: &Option<Vec<String>>| -> Result<Vec<String>, ScriptError> {
            if let Some(f) = flag {
                return Ok(f.clone());
            }
            match get(k) {
                None => Ok(Vec::new()),
                Some(Value::Array(a)) => a
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(s.clone()),
                        v => Err(bad(format!("options.{k}: {v} is not a string"))),
                    })
                    .collect(),
                Some(v) => Err(bad(format!("options.{k}: {v} is not a list"))),
            }
        };
        let blocklist = loadlab_engine::blocklist::Blocklist::parse(
            &list("blockHostnames", &o.block_hostnames)?,
            &list("blacklistIPs", &o.blacklist_ips)?,
        )
        .map_err(bad)?;
        // tlsAuth: client certificates (PEM texts), checked before any
        // load; as in Go's client, `domains` chooses nothing (k6 warns).
        let tls_auth = match get("tlsAuth") {
            None => Vec::new(),
            Some(Value::Array(a)) => {
                let mut out = Vec::new();
                for (i, item) in a.iter().enumerate() {
                    let what = format!("options.tlsAuth[{i}]");
                    let Value::Object(m) = item else {
                        return Err(bad(format!("{what}: {item} is not an object (cert, key)")));
                    };
                    let text = |k: &str| match m.get(k) {
                        Some(Value::String(s)) => Ok(s.clone()),
                        None | Some(Value::Null) => Err(bad(format!("{what}.{k} is missing"))),
                        Some(v) => Err(bad(format!("{what}.{k}: {v} is not a string"))),
                    };
                    for k in m.keys() {
                        if !["cert", "key", "password", "domains"].contains(&k.as_str()) {
                            return Err(bad(format!("{what}: json: unknown field {k:?}")));
                        }
                    }
                    if m.get("password").is_some_and(|p| !p.is_null()) {
                        return Err(bad(format!(
                            "{what}.password: encrypted private keys are not supported by \
                             loadlab k6 (decrypt the key first, e.g. `openssl pkey -in k.pem`)"
                        )));
                    }
                    match m.get("domains") {
                        None | Some(Value::Null) => {}
                        Some(Value::Array(d)) if d.iter().all(Value::is_string) => {
                            if !d.is_empty()
                                && !warnings.iter().any(|w| w.starts_with("tlsAuth.domains"))
                            {
                                warnings.push(
                                    "tlsAuth.domains option could be removed in the next releases, \
                                     it's recommended to leave it empty and let k6 automatically \
                                     detect from the provided certificate. It follows the Go's \
                                     NameToCertificate deprecation - \
                                     https://pkg.go.dev/crypto/tls@go1.17#Config."
                                        .into(),
                                );
                            }
                        }
                        Some(v) => {
                            return Err(bad(format!("{what}.domains: {v} is not a list of names")));
                        }
                    }
                    let (cert, key) = (text("cert")?, text("key")?);
                    loadlab_engine::check_client_cert(&cert, &key)
                        .map_err(|e| bad(format!("{what}: {e}")))?;
                    out.push((cert, key));
                }
                out
            }
            Some(v) => return Err(bad(format!("options.tlsAuth: {v} is not a list"))),
        };
        let min_iteration_duration = match flags.min_iteration_duration {
            Some(d) => Some(d),
            None => get("minIterationDuration")
                .map(|v| parse_duration(v, "options.minIterationDuration"))
                .transpose()?,
        }
        .filter(|d| !d.is_zero());
        let segment = o.segment.clone().unwrap_or_else(Tuple::whole);
        if !segment.is_whole() {
            for sc in &mut scenarios {
                let (ex, seg) = sc.executor.segmented(&segment);
                sc.executor = ex;
                sc.segment = seg;
            }
        }
        Ok(Options {
            scenarios,
            segment,
            thresholds,
            tags,
            summary_trend_stats,
            summary_full: o.summary_full,
            submetrics,
            setup_timeout,
            teardown_timeout,
            no_setup: o.no_setup || flag("noSetup")?,
            no_teardown: o.no_teardown || flag("noTeardown")?,
            console_output: match (&o.console_output, get("consoleOutput")) {
                (Some(f), _) => Some(f.clone()),
                (None, None) => None,
                (None, Some(Value::String(f))) => Some(f.clone()).filter(|f| !f.is_empty()),
                (None, Some(v)) => {
                    return Err(bad(format!(
                        "options.consoleOutput: {v} is not a file name"
                    )));
                }
            },
            max_redirects,
            hosts: match get("hosts") {
                None => Default::default(),
                Some(Value::Object(m)) => {
                    let mut pairs = Vec::with_capacity(m.len());
                    for (k, v) in m {
                        let Value::String(v) = v else {
                            return Err(bad(format!(
                                "options.hosts[{k:?}]: {v} is not a string (an IP address, or IP:port)"
                            )));
                        };
                        pairs.push((k.clone(), v.clone()));
                    }
                    loadlab_engine::hosts::HostOverrides::parse(&pairs)
                        .map_err(|e| bad(format!("options.hosts: {e}")))?
                }
                Some(v) => {
                    return Err(bad(format!(
                        "options.hosts: {v} is not an object of names and addresses"
                    )));
                }
            },
            local_ips,
            warnings,
            request: RequestOptions {
                discard_response_bodies: flags.discard_response_bodies
                    || flag("discardResponseBodies")?,
                user_agent,
                insecure_skip_tls_verify: flags.insecure_skip_tls_verify
                    || flag("insecureSkipTLSVerify")?,
                throw: flags.throw || flag("throw")?,
                no_connection_reuse: flags.no_connection_reuse || flag("noConnectionReuse")?,
                no_vu_connection_reuse: flags.no_vu_connection_reuse
                    || flag("noVUConnectionReuse")?,
                min_iteration_duration,
                http_debug: match (&flags.http_debug, get("httpDebug")) {
                    (Some(m), _) => Some(m.clone()),
                    (None, None | Some(Value::Bool(false))) => None,
                    (None, Some(Value::String(m))) => Some(m.clone()),
                    (None, Some(v)) => {
                        return Err(bad(format!(
                            "options.httpDebug: {v} is not \"headers\" or \"full\""
                        )));
                    }
                }
                .filter(|m| !m.is_empty()),
                rps: match flags.rps {
                    Some(n) => Some(n),
                    None => get("rps")
                        .map(|v| int(v, "options.rps"))
                        .transpose()?
                        .and_then(|n| u64::try_from(n).ok()),
                }
                .filter(|n| *n > 0),
                batch: match flags.batch {
                    Some(n) => Some(n),
                    None => get("batch")
                        .map(|v| whole_count(v, "options.batch"))
                        .transpose()?,
                },
                batch_per_host: match flags.batch_per_host {
                    Some(n) => Some(n),
                    None => get("batchPerHost")
                        .map(|v| whole_count(v, "options.batchPerHost"))
                        .transpose()?,
                },
            },
            summary_time_unit,
            summary_disabled: o.summary_disabled,
            system_tags,
            dns,
            tls_versions,
            tls_cipher_suites,
            blocklist,
            tls_auth,
        })
    }
}
