//! The run's options from their layers, read and checked as k6 does.

use std::time::Duration;

use serde_json::Value;

use super::Options;
use super::env::{env_layer, env_shortcut, env_var};
use super::flags::Overrides;
use super::request::RequestOptions;
use super::values::{Layered, bad, parse_duration, string_pairs};
use super::{network, request, shortcuts, summary, tls};
use crate::ScriptError;
use crate::segment::Tuple;
use crate::system_tags::SystemTags;

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
        let script_options = script;
        let script = &env_layer(script, &o.env)?;
        let opts = Layered(script);
        refuse_unsupported(opts)?;
        let mut warnings = Vec::new();
        warnings.extend(super::known::unknown_options_warning(script_options));
        note_ignored(opts, o, &mut warnings);
        let local_ips = match o.local_ips_text() {
            None => None,
            Some(t) => Some(std::sync::Arc::new(
                crate::local_ips::IpPool::parse(t).map_err(bad)?,
            )),
        };
        let mut scenarios = shortcuts::scenarios(opts, o, env_replaces_scenarios, &mut warnings)?;
        let (thresholds, submetrics) =
            crate::config::thresholds::read(opts.get("thresholds"), o.no_thresholds)?;
        let tags = tags(opts, o);
        let summary_trend_stats = summary::trend_stats(opts, o)?;
        let setup_timeout = opts
            .get("setupTimeout")
            .map(|v| parse_duration(v, "options.setupTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let teardown_timeout = opts
            .get("teardownTimeout")
            .map(|v| parse_duration(v, "options.teardownTimeout"))
            .transpose()?
            .unwrap_or(Duration::from_secs(60));
        let max_redirects = max_redirects(opts, o)?;
        let flags = &o.request;
        let user_agent = request::user_agent(opts, flags)?;
        let summary_time_unit = summary::time_unit(opts, o)?;
        let system_tags = system_tags(opts, o, &mut warnings)?;
        let dns = network::dns(opts, o)?;
        let tls_versions = tls::versions(opts, &mut warnings)?;
        let tls_cipher_suites = tls::cipher_suites(opts, &mut warnings)?;
        let blocklist = network::blocklist(opts, o)?;
        let tls_auth = tls::client_certs(opts, &mut warnings)?;
        let min_iteration_duration = request::min_iteration_duration(opts, flags)?;
        let segment = o.segment.clone().unwrap_or_else(Tuple::whole);
        if !segment.is_whole() {
            for sc in &mut scenarios {
                let (ex, seg) = sc.executor.segmented(&segment);
                sc.executor = ex;
                sc.segment = seg;
            }
        }
        super::known::check_vus(scenarios.iter().map(|sc| sc.executor.max_vus()).sum())?;
        let no_setup = o.no_setup || opts.flag("noSetup")?;
        let no_teardown = o.no_teardown || opts.flag("noTeardown")?;
        let console_output = console_output(opts, o)?;
        let hosts = network::hosts(opts)?;
        let request = RequestOptions::read(opts, flags, user_agent, min_iteration_duration)?;
        Ok(Options {
            scenarios,
            segment,
            thresholds,
            tags,
            summary_trend_stats,
            summary_full: o.summary_full,
            summary_legacy: o.summary_legacy,
            submetrics,
            setup_timeout,
            teardown_timeout,
            no_setup,
            no_teardown,
            console_output,
            max_redirects,
            hosts,
            local_ips,
            warnings,
            request,
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

/// k6's options that loadlab k6 does not have: accepted and ignored
/// would mislead, so each is named (keys k6 does not know are ignored, as
/// k6 ignores them; `cloud` is k6 Cloud's alone).
fn refuse_unsupported(opts: Layered) -> Result<(), ScriptError> {
    for unsupported in [
        "ext",
        "paused",
        "linger",
        "executionSegment",
        "executionSegmentSequence",
    ] {
        if let Some(v) = opts.get(unsupported) {
            // An option set to its default changes nothing.
            if v == &Value::Bool(false) {
                continue;
            }
            return Err(bad(format!(
                "options.{unsupported} is not supported by loadlab k6 (see docs/k6.md)"
            )));
        }
    }
    Ok(())
}

/// What k6 reads nowhere, said so in `warnings`.
fn note_ignored(opts: Layered, o: &Overrides, warnings: &mut Vec<String>) {
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
    if opts
        .get("localIPs")
        .is_some_and(|v| v != &Value::Bool(false))
    {
        warnings.push(
            "options.localIPs is ignored, as k6 ignores it in a script; give --local-ips or \
             K6_LOCAL_IPS"
                .into(),
        );
    }
}

/// `tags`: as in k6, `--tag` flags replace the script's (not merge).
fn tags(opts: Layered, o: &Overrides) -> Vec<(String, String)> {
    let mut tags = if o.tags.is_empty() {
        string_pairs(opts.get("tags"))
    } else {
        Vec::new()
    };
    for (k, v) in &o.tags {
        tags.retain(|(a, _)| a != k);
        tags.push((k.clone(), v.clone()));
    }
    tags
}

/// `maxRedirects` (`--max-redirects` wins); below 0 is 0, as in k6.
fn max_redirects(opts: Layered, o: &Overrides) -> Result<Option<u32>, ScriptError> {
    let max_redirects = match o.max_redirects {
        Some(n) => Some(n),
        None => opts
            .get("maxRedirects")
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
    Ok(max_redirects)
}

/// `consoleOutput` (`--console-output` wins).
fn console_output(opts: Layered, o: &Overrides) -> Result<Option<String>, ScriptError> {
    Ok(match (&o.console_output, opts.get("consoleOutput")) {
        (Some(f), _) => Some(f.clone()),
        (None, None) => None,
        (None, Some(Value::String(f))) => Some(f.clone()).filter(|f| !f.is_empty()),
        (None, Some(v)) => {
            return Err(bad(format!(
                "options.consoleOutput: {v} is not a file name"
            )));
        }
    })
}

/// systemTags: the flag's names, else the script's (or
/// K6_SYSTEM_TAGS's) list, else k6's default. As in k6, an empty
/// list keeps none, and a name that is no system tag is left out
/// (with a warning here: k6 says nothing).
fn system_tags(
    opts: Layered,
    o: &Overrides,
    warnings: &mut Vec<String>,
) -> Result<SystemTags, ScriptError> {
    Ok({
        let names: Option<Vec<String>> = match (&o.system_tags, opts.get("systemTags")) {
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
    })
}
