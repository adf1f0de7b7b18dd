//! The options k6 knows, and the bound on VUs one machine is given.
//!
//! k6 decodes the script's exported `options` into its `lib.Options`
//! with unknown fields disallowed and, when one is there, warns "There
//! were unknown fields in the options exported in the script" and goes
//! on. loadlab does the same, naming every unknown key (a typo such as
//! `vuz: 10` would otherwise run with one VU and no word).

use serde_json::Value;

use super::values::bad;
use crate::ScriptError;

/// The keys of k6 v1's `lib.Options`, as a script writes them.
const K6_OPTIONS: &[&str] = &[
    "paused",
    "vus",
    "duration",
    "iterations",
    "stages",
    "scenarios",
    "executionSegment",
    "executionSegmentSequence",
    "noSetup",
    "setupTimeout",
    "noTeardown",
    "teardownTimeout",
    "rps",
    "dns",
    "maxRedirects",
    "userAgent",
    "batch",
    "batchPerHost",
    "httpDebug",
    "insecureSkipTLSVerify",
    "tlsCipherSuites",
    "tlsVersion",
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
    "summaryTrendStats",
    "summaryTimeUnit",
    "systemTags",
    "tags",
    "metricSamplesBufferSize",
    "noCookiesReset",
    "discardResponseBodies",
    "consoleOutput",
    "cloud",
    // Not k6's `lib.Options`, but read (or refused, or warned about) by
    // name elsewhere: no second word for them here.
    "localIPs",
    "linger",
];

/// True for a key of k6's `lib.Options` (a configuration file's keys are
/// read when they are one).
pub(crate) fn is_k6_option(key: &str) -> bool {
    K6_OPTIONS.contains(&key) && !["localIPs", "linger"].contains(&key)
}

/// k6's warning for keys of `options` it does not know, or `None`.
pub(crate) fn unknown_options_warning(script: &Value) -> Option<String> {
    let map = script.as_object()?;
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !K6_OPTIONS.contains(&k.as_str()))
        .map(|k| format!("{k:?}"))
        .collect();
    if unknown.is_empty() {
        return None;
    }
    let s = if unknown.len() == 1 { "" } else { "s" };
    Some(format!(
        "There were unknown fields in the options exported in the script: unknown field{s} {}",
        unknown.join(", ")
    ))
}

/// The most VUs a run may ask for, all scenarios together: at ~11 KiB a
/// sleeping VU, a million is ~11 GiB. More is a typo, or a test for
/// several machines (`--execution-segment`, `loadlab k8s render`).
pub const MAX_VUS: u64 = 1_000_000;

/// Refuses a total of VUs above [`MAX_VUS`] before anything is
/// allocated for them.
pub(crate) fn check_vus(total: u64) -> Result<(), ScriptError> {
    if total > MAX_VUS {
        return Err(bad(format!(
            "{total} VUs asked for (all scenarios' vus and maxVUs together); one loadlab k6 \
             runs at most {MAX_VUS}: split the test across machines with --execution-segment"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_keys_are_named_and_known_ones_pass() {
        assert_eq!(
            unknown_options_warning(&json!({"vus": 1, "duration": "1s"})),
            None
        );
        let w = unknown_options_warning(&json!({"vuz": 10, "vus": 1})).unwrap();
        assert!(w.starts_with("There were unknown fields in the options exported in the script"));
        assert!(w.ends_with("unknown field \"vuz\""), "{w}");
    }

    #[test]
    fn a_million_vus_pass_and_one_more_does_not() {
        assert!(check_vus(MAX_VUS).is_ok());
        let e = check_vus(99_999_999_999).unwrap_err().to_string();
        assert!(e.contains("99999999999 VUs"), "{e}");
    }
}
