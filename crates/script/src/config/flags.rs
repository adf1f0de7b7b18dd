//! The command line's layer: the flags' values, over the environment's
//! and the script's.

use super::request::RequestOptions;
use super::values::env_var;
use crate::segment::Tuple;

/// The command line's say over the script's options.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// `-u`.
    pub vus: Option<i64>,
    /// `-d`, as written: k6 reads a negative or zero one too, and then
    /// refuses it in its own words.
    pub duration: Option<String>,
    /// `-i`.
    pub iterations: Option<i64>,
    /// `-s`, each as written (`[duration]:[target]`, either part may be
    /// left out, as in k6).
    pub stages: Option<Vec<String>>,
    pub tags: Vec<(String, String)>,
    pub summary_trend_stats: Option<Vec<String>>,
    /// `--summary-time-unit`.
    pub summary_time_unit: Option<String>,
    /// `--summary-mode=disabled` (`--no-summary`): no summary, no
    /// `handleSummary`, no `--summary-export`, as k6.
    pub summary_disabled: bool,
    /// The flags of k6's request options (each wins over the script's).
    pub request: RequestOptions,
    /// `--summary-mode=full`.
    pub summary_full: bool,
    /// `--summary-mode=legacy`: k6's layout before v1.
    pub summary_legacy: bool,
    pub no_thresholds: bool,
    /// `--execution-segment` with `--execution-segment-sequence`.
    pub segment: Option<Tuple>,
    /// `--max-redirects`.
    pub max_redirects: Option<u32>,
    /// `--no-setup`, `--no-teardown`.
    pub no_setup: bool,
    pub no_teardown: bool,
    /// `--console-output FILE`.
    pub console_output: Option<String>,
    /// The environment's `K6_*` variables (k6's option layer between the
    /// script's `options` and the command line's flags; `env_layer`).
    pub env: Vec<(String, String)>,
    /// `--system-tags`, its names (empty: none).
    pub system_tags: Option<Vec<String>>,
    /// `--dns`, as written (`ttl=1m,select=first,policy=any`).
    pub dns: Option<String>,
    /// `--block-hostnames`, `--blacklist-ip` (each replaces the script's).
    pub block_hostnames: Option<Vec<String>>,
    pub blacklist_ips: Option<Vec<String>>,
    /// `--local-ips`, as written.
    pub local_ips: Option<String>,
    /// The configuration file's options (`--config`, `K6_CONFIG`; see
    /// `file.rs`), under the script's.
    pub config: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Overrides {
    /// The local IPs as given: `--local-ips`, else `K6_LOCAL_IPS`.
    pub(crate) fn local_ips_text(&self) -> Option<&str> {
        self.local_ips
            .as_deref()
            .or_else(|| env_var(&self.env, "K6_LOCAL_IPS"))
    }
}

/// The k6 flags as the command line gives them, before they are read into
/// [`Overrides`]: texts as typed; each item of a list may hold several,
/// comma-separated (`--system-tags`, `--block-hostnames`,
/// `--blacklist-ip`).
#[derive(Debug, Clone, Default)]
pub struct FlagTexts {
    pub vus: Option<i64>,
    pub duration: Option<String>,
    pub iterations: Option<i64>,
    pub stages: Vec<String>,
    /// `--tag NAME=VALUE`, each as typed.
    pub tags: Vec<String>,
    pub summary_trend_stats: Option<String>,
    pub system_tags: Vec<String>,
    pub dns: Option<String>,
    pub block_hostnames: Vec<String>,
    pub blacklist_ips: Vec<String>,
    pub summary_time_unit: Option<String>,
    pub summary_mode: Option<String>,
    pub no_summary: bool,
    pub discard_response_bodies: bool,
    pub user_agent: Option<String>,
    pub insecure_skip_tls_verify: bool,
    pub throw: bool,
    pub no_connection_reuse: bool,
    pub no_vu_connection_reuse: bool,
    pub local_ips: Option<String>,
    pub min_iteration_duration: Option<String>,
    pub http_debug: Option<String>,
    pub rps: Option<i64>,
    pub batch: Option<u64>,
    pub batch_per_host: Option<u64>,
    pub no_thresholds: bool,
    pub no_setup: bool,
    pub no_teardown: bool,
    pub console_output: Option<String>,
    pub max_redirects: Option<u32>,
}

/// k6's option variables of the process's environment (`K6_*`): the
/// layer between the script's `options` and the flags.
pub fn k6_variables(vars: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    vars.into_iter()
        .filter(|(k, _)| k.starts_with("K6_"))
        .collect()
}

/// `NAME=VALUE` (`-e`, `--tag`), refused in the words of flag `what`.
pub fn name_value(s: &str, what: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("{what} {s:?}: expected NAME=VALUE"))
}

/// `-d`'s value: a duration, perhaps negative (refused later, in k6's
/// words).
pub fn duration_flag(d: &str) -> Result<(bool, std::time::Duration), String> {
    super::values::parse_signed_duration_str(d)
        .ok_or_else(|| format!("-d {d:?}: not a duration (e.g. 30s, 1m30s)"))
}

/// A list flag's items, each split at its commas (`None`: not given).
fn list_flag(v: &[String]) -> Option<Vec<String>> {
    (!v.is_empty()).then(|| {
        v.iter()
            .flat_map(|s| s.split(','))
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect()
    })
}

impl Overrides {
    /// The flags' layer from the flags as typed (`f`) and the
    /// environment's `K6_*` variables (`env`), each flag checked as k6
    /// checks it (the first wrong one is the error); what k6 says of a
    /// deprecated flag goes to `notice`.
    pub fn from_flags(
        f: FlagTexts,
        env: Vec<(String, String)>,
        notice: &mut dyn FnMut(&str),
    ) -> Result<Overrides, String> {
        let mut ov = Overrides {
            vus: f.vus,
            iterations: f.iterations,
            no_thresholds: f.no_thresholds,
            no_setup: f.no_setup,
            no_teardown: f.no_teardown,
            console_output: f.console_output,
            max_redirects: f.max_redirects,
            env,
            ..Default::default()
        };
        if let Some(d) = &f.duration {
            duration_flag(d)?;
            ov.duration = Some(d.clone());
        }
        if !f.stages.is_empty() {
            for s in &f.stages {
                super::stages::stage_flag(s)?;
            }
            ov.stages = Some(f.stages);
        }
        for t in &f.tags {
            ov.tags.push(name_value(t, "--tag")?);
        }
        if let Some(s) = &f.summary_trend_stats {
            ov.summary_trend_stats = Some(s.split(',').map(|x| x.trim().to_string()).collect());
        }
        ov.system_tags = list_flag(&f.system_tags);
        ov.summary_time_unit = f.summary_time_unit;
        ov.dns = f.dns;
        ov.block_hostnames = list_flag(&f.block_hostnames);
        ov.blacklist_ips = list_flag(&f.blacklist_ips);
        if f.no_summary {
            notice("Flag --no-summary has been deprecated, use --summary-mode=disabled instead");
            ov.summary_disabled = true;
        }
        ov.request = RequestOptions {
            discard_response_bodies: f.discard_response_bodies,
            user_agent: f.user_agent,
            insecure_skip_tls_verify: f.insecure_skip_tls_verify,
            throw: f.throw,
            no_connection_reuse: f.no_connection_reuse,
            no_vu_connection_reuse: f.no_vu_connection_reuse,
            http_debug: f.http_debug,
            // 0 or less: no limit, as in k6 (and over the script's).
            rps: f.rps.map(|n| u64::try_from(n).unwrap_or(0)),
            batch: f.batch,
            batch_per_host: f.batch_per_host,
            min_iteration_duration: None,
        };
        ov.local_ips = f.local_ips;
        if let Some(d) = &f.min_iteration_duration {
            ov.request.min_iteration_duration =
                Some(super::values::parse_duration_str(d).ok_or_else(|| {
                    format!("--min-iteration-duration {d:?}: not a duration (e.g. 500ms, 2s)")
                })?);
        }
        match f.summary_mode.as_deref() {
            None | Some("compact") => {}
            Some("full") => ov.summary_full = true,
            Some("legacy") => ov.summary_legacy = true,
            Some("disabled") => ov.summary_disabled = true,
            Some(other) => {
                return Err(format!(
                    "--summary-mode {other:?}: loadlab k6 has compact (the default), full, \
                     legacy and disabled"
                ));
            }
        }
        Ok(ov)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_read_as_the_command_line_gives_them() {
        let mut notes = Vec::new();
        let f = FlagTexts {
            duration: Some("-1s".into()),
            tags: vec!["a=b".into()],
            system_tags: vec!["url, vu".into(), "ip".into()],
            rps: Some(-5),
            no_summary: true,
            ..Default::default()
        };
        let ov = Overrides::from_flags(
            f,
            k6_variables([("K6_VUS".into(), "2".into()), ("HOME".into(), "/".into())]),
            &mut |n| notes.push(n.to_string()),
        )
        .unwrap();
        assert_eq!(ov.duration.as_deref(), Some("-1s"));
        assert_eq!(ov.tags, vec![("a".to_string(), "b".to_string())]);
        assert_eq!(
            ov.system_tags,
            Some(vec!["url".into(), "vu".into(), "ip".into()])
        );
        assert_eq!(ov.request.rps, Some(0));
        assert_eq!(ov.env, vec![("K6_VUS".to_string(), "2".to_string())]);
        assert!(ov.summary_disabled);
        assert_eq!(notes.len(), 1);
        for (f, want) in [
            (
                FlagTexts {
                    duration: Some("x".into()),
                    ..Default::default()
                },
                "-d \"x\": not a duration",
            ),
            (
                FlagTexts {
                    tags: vec!["=b".into()],
                    ..Default::default()
                },
                "--tag \"=b\": expected NAME=VALUE",
            ),
            (
                FlagTexts {
                    summary_mode: Some("fancy".into()),
                    ..Default::default()
                },
                "--summary-mode \"fancy\"",
            ),
            (
                FlagTexts {
                    min_iteration_duration: Some("soon".into()),
                    ..Default::default()
                },
                "--min-iteration-duration \"soon\"",
            ),
        ] {
            let e = Overrides::from_flags(f, Vec::new(), &mut |_| {}).unwrap_err();
            assert!(e.starts_with(want), "{e}");
        }
    }
}
