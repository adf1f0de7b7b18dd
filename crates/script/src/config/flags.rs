//! The command line's layer: the flags' values, over the environment's
//! and the script's.

use super::env::env_var;
use super::request::RequestOptions;
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
    /// script's `options` and the command line's flags; [`env_layer`]).
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
}

impl Overrides {
    /// The local IPs as given: `--local-ips`, else `K6_LOCAL_IPS`.
    pub(crate) fn local_ips_text(&self) -> Option<&str> {
        self.local_ips
            .as_deref()
            .or_else(|| env_var(&self.env, "K6_LOCAL_IPS"))
    }
}
