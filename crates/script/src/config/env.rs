//! The environment's layer: k6's `K6_*` option variables, over the
//! script's `options`.

use serde_json::Value;

use super::network::dns_text_fields;
use super::stages::stage_flag;
pub(crate) use super::values::env_var;
use super::values::{bad, parse_signed_duration_str};
use crate::ScriptError;

/// The `K6_*` variables that set options, the option each sets, and how
/// its text is read (as k6 reads them).
const ENV_OPTIONS: [(&str, &str, EnvKind); 30] = [
    ("K6_VUS", "vus", EnvKind::Int),
    ("K6_DURATION", "duration", EnvKind::Duration),
    ("K6_ITERATIONS", "iterations", EnvKind::Int),
    ("K6_STAGES", "stages", EnvKind::Stages),
    ("K6_SETUP_TIMEOUT", "setupTimeout", EnvKind::Duration),
    ("K6_TEARDOWN_TIMEOUT", "teardownTimeout", EnvKind::Duration),
    ("K6_MAX_REDIRECTS", "maxRedirects", EnvKind::Int),
    ("K6_USER_AGENT", "userAgent", EnvKind::Text),
    (
        "K6_INSECURE_SKIP_TLS_VERIFY",
        "insecureSkipTLSVerify",
        EnvKind::Bool,
    ),
    ("K6_THROW", "throw", EnvKind::Bool),
    ("K6_NO_CONNECTION_REUSE", "noConnectionReuse", EnvKind::Bool),
    (
        "K6_NO_VU_CONNECTION_REUSE",
        "noVUConnectionReuse",
        EnvKind::Bool,
    ),
    (
        "K6_MIN_ITERATION_DURATION",
        "minIterationDuration",
        EnvKind::Duration,
    ),
    ("K6_SUMMARY_TREND_STATS", "summaryTrendStats", EnvKind::List),
    ("K6_SUMMARY_TIME_UNIT", "summaryTimeUnit", EnvKind::Text),
    ("K6_TAGS", "tags", EnvKind::Tags),
    ("K6_NO_COOKIES_RESET", "noCookiesReset", EnvKind::Bool),
    (
        "K6_DISCARD_RESPONSE_BODIES",
        "discardResponseBodies",
        EnvKind::Bool,
    ),
    ("K6_NO_SETUP", "noSetup", EnvKind::Bool),
    ("K6_NO_TEARDOWN", "noTeardown", EnvKind::Bool),
    ("K6_CONSOLE_OUTPUT", "consoleOutput", EnvKind::Text),
    ("K6_HTTP_DEBUG", "httpDebug", EnvKind::Text),
    ("K6_RPS", "rps", EnvKind::Int),
    ("K6_BATCH", "batch", EnvKind::Int),
    ("K6_BATCH_PER_HOST", "batchPerHost", EnvKind::Int),
    ("K6_SYSTEM_TAGS", "systemTags", EnvKind::List),
    ("K6_DNS", "dns", EnvKind::Dns),
    ("K6_TLS_CIPHER_SUITES", "tlsCipherSuites", EnvKind::List),
    ("K6_BLOCK_HOSTNAMES", "blockHostnames", EnvKind::List),
    ("K6_BLACKLIST_IPS", "blacklistIPs", EnvKind::List),
];

/// k6's option variables loadlab k6 does not have: refused when set (to
/// anything but false), as the options themselves are.
/// (`K6_WEB_DASHBOARD` is the CLI's: `loadlab k6 run` serves the dashboard.)
const ENV_UNSUPPORTED: [&str; 4] = ["K6_PAUSED", "K6_TLSAUTH", "K6_THRESHOLDS", "K6_LINGER"];

#[derive(Clone, Copy)]
enum EnvKind {
    Int,
    Duration,
    Bool,
    Text,
    /// Comma-separated texts.
    List,
    /// Comma-separated `DURATION:TARGET`s, as `-s` takes each.
    Stages,
    /// Comma-separated `NAME:VALUE`s.
    Tags,
    /// k6's `dns` text (`ttl=1m,select=first`): its fields over the
    /// script's.
    Dns,
}

/// Go's `strconv.ParseBool`, which k6 reads its variables with.
fn go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// True when `K6_DURATION`, `K6_ITERATIONS` or `K6_STAGES` is set (they
/// replace all of the script's shortcuts and scenarios, as flags do).
pub(crate) fn env_shortcut(env: &[(String, String)]) -> bool {
    env.iter().any(|(k, v)| {
        !v.is_empty() && ["K6_DURATION", "K6_ITERATIONS", "K6_STAGES"].contains(&k.as_str())
    })
}

/// The script's `options` (`raw`) with k6's `K6_*` option variables
/// (`env`) over them, as k6 layers them: each sets its option;
/// `K6_DURATION`, `K6_ITERATIONS` or `K6_STAGES` replace all of `duration`,
/// `iterations`, `stages` and `scenarios`. A value k6 could not read, or a
/// variable of an option loadlab k6 does not have, is an error naming it.
pub fn env_layer(raw: &Value, env: &[(String, String)]) -> Result<Value, ScriptError> {
    let var = |k: &str| env_var(env, k);
    for k in ENV_UNSUPPORTED {
        if let Some(v) = var(k)
            && go_bool(v) != Some(false)
        {
            return Err(bad(format!(
                "{k}={v:?}: the option is not supported by loadlab k6 (see docs/k6.md)"
            )));
        }
    }
    let mut m = raw.as_object().cloned().unwrap_or_default();
    if env_shortcut(env) {
        for k in ["duration", "iterations", "stages", "scenarios"] {
            m.remove(k);
        }
    }
    for (name, option, kind) in ENV_OPTIONS {
        let Some(v) = var(name) else { continue };
        let refuse = |want: &str| bad(format!("{name}={v:?}: {want}"));
        let items = || v.split(',').map(str::trim).filter(|s| !s.is_empty());
        let value = match kind {
            EnvKind::Int => Value::from(
                v.trim()
                    .parse::<i64>()
                    .map_err(|_| refuse("not a whole number"))?,
            ),
            EnvKind::Duration => {
                parse_signed_duration_str(v)
                    .ok_or_else(|| refuse("not a duration (e.g. 30s, 1m30s)"))?;
                Value::String(v.trim().to_string())
            }
            EnvKind::Bool => {
                Value::Bool(go_bool(v.trim()).ok_or_else(|| refuse("not true or false"))?)
            }
            EnvKind::Text => Value::String(v.to_string()),
            EnvKind::List => Value::Array(items().map(|s| Value::String(s.into())).collect()),
            EnvKind::Stages => Value::Array(
                items()
                    .map(|s| stage_flag(s).map_err(|e| refuse(&e)))
                    .collect::<Result<_, _>>()?,
            ),
            EnvKind::Tags => {
                let mut tags = serde_json::Map::new();
                for pair in items() {
                    let (k, t) = pair
                        .split_once(':')
                        .filter(|(k, _)| !k.trim().is_empty())
                        .ok_or_else(|| refuse("expected NAME:VALUE pairs, comma-separated"))?;
                    tags.insert(k.trim().to_string(), Value::String(t.trim().to_string()));
                }
                Value::Object(tags)
            }
            EnvKind::Dns => {
                let mut d = m
                    .get(option)
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                d.extend(dns_text_fields(v.trim()).map_err(|e| refuse(&e))?);
                Value::Object(d)
            }
        };
        m.insert(option.to_string(), value);
    }
    Ok(Value::Object(m))
}
