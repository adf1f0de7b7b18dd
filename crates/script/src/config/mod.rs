//! k6 `options` (from the script's `export const options`, then the
//! environment's `K6_*` variables and the command line's flags on top)
//! turned into scenarios with their executors.
//!
//! The layers, lowest first, as k6's `cmd/config.go` stacks them (see
//! [`layer`]): k6's defaults, the configuration file's (`file`: `--config`,
//! `K6_CONFIG`), the script's `options`, the environment's
//! `K6_*` variables (`env`), the command line's flags (`flags`:
//! [`FlagTexts`] read into [`Overrides`]). [`Options::resolve`]
//! (`resolve`) stacks them and asks one reader per concern:
//!
//! * `shortcuts`: `vus`/`duration`/`iterations`/`stages` or `scenarios`
//!   into the scenarios; `scenario`: one of `options.scenarios`, and k6's
//!   checks of it; `executor`: the executors' numbers and their part
//!   under `--execution-segment`; `stages`: ramps;
//! * `network` (`dns`, `hosts`, the blocklist), `tls`, `request`,
//!   `summary`; `thresholds`: the thresholds' keys and expressions;
//! * `values`: how k6 reads a duration, a count, a number.

use std::time::Duration;

use crate::config::thresholds::Threshold;
use crate::segment::Tuple;
use crate::system_tags::SystemTags;

mod env;
mod executor;
pub mod file;
mod flags;
mod known;
pub use known::MAX_VUS;
pub mod layer;
mod network;
pub(crate) mod pem_key;
mod request;
mod resolve;
mod scenario;
mod shortcuts;
mod stages;
mod summary;
pub mod thresholds;
mod tls;
pub(crate) mod values;

pub use env::env_layer;
pub use executor::{Executor, ScenarioSegment};
pub use flags::{FlagTexts, Overrides, duration_flag, k6_variables, name_value};
pub use network::{DnsOptions, dns_text_fields};
pub use request::RequestOptions;
pub use scenario::Scenario;
pub(crate) use stages::ramp_level;
pub use stages::{Stage, ramp_at, ramp_flat_until, ramp_vus_at, stage_flag};
pub use summary::TimeUnit;
pub use values::{
    DURATION_NOT_POSITIVE, parse_duration, parse_duration_str, parse_signed_duration_str,
};

/// Everything of the options that the run uses.
#[derive(Debug, Clone)]
pub struct Options {
    pub scenarios: Vec<Scenario>,
    /// `--execution-segment` and its sequence: this instance's part of
    /// every scenario (`0:1` is the whole test).
    pub segment: Tuple,
    pub thresholds: Vec<Threshold>,
    pub tags: Vec<(String, String)>,
    pub summary_trend_stats: Vec<String>,
    /// `--summary-mode=full`: every `http_req_*` trend, and a section per group.
    pub summary_full: bool,
    /// `--summary-mode=legacy`: k6's layout before v1 (jslib's
    /// textSummary, rates as `N out of M`).
    pub summary_legacy: bool,
    /// The tag-filtered metrics the thresholds name (`metric`, filter):
    /// their sub-metric rows show even under `--no-thresholds`, as in k6.
    pub submetrics: Vec<(String, Vec<(String, String)>)>,
    pub setup_timeout: Duration,
    pub teardown_timeout: Duration,
    /// `noSetup` (`--no-setup`): setup() is not run; the iterations and
    /// teardown() get no data, as in k6.
    pub no_setup: bool,
    /// `noTeardown` (`--no-teardown`): teardown() is not run.
    pub no_teardown: bool,
    /// `consoleOutput` (`--console-output`, `K6_CONSOLE_OUTPUT`): the
    /// file the console's lines go to instead of standard error.
    pub console_output: Option<String>,
    /// `options.maxRedirects` (`--max-redirects` wins): the redirects a
    /// request follows unless its `params.redirects` says; `None`: k6's
    /// default, 10. Below 0 is 0, as in k6.
    pub max_redirects: Option<u32>,
    /// `hosts`: names dialled at fixed addresses (k6's option).
    pub hosts: loadlab_engine::hosts::HostOverrides,
    /// `--local-ips` (`K6_LOCAL_IPS`): the addresses VUs dial from.
    pub local_ips: Option<std::sync::Arc<crate::local_ips::IpPool>>,
    /// What k6 warns of when it reads these options (printed before the run).
    pub warnings: Vec<String>,
    /// k6's request options.
    pub request: RequestOptions,
    /// `summaryTimeUnit` (`--summary-time-unit`): every time in the summary
    /// in this unit (`s`, `ms` or `us`), else k6's unit per value.
    pub summary_time_unit: Option<TimeUnit>,
    /// `--summary-mode=disabled`.
    pub summary_disabled: bool,
    /// `systemTags` (`--system-tags`): the system tags samples carry.
    pub system_tags: SystemTags,
    /// `dns` (`--dns`, `K6_DNS`): how names are resolved.
    pub dns: DnsOptions,
    /// `tlsVersion`: the TLS versions offered, `(1.2, 1.3)` (`None`: both).
    pub tls_versions: Option<(bool, bool)>,
    /// `tlsCipherSuites` (`K6_TLS_CIPHER_SUITES`): the TLS 1.2 cipher
    /// suites offered, by Go's names (`None`: all).
    pub tls_cipher_suites: Option<Vec<String>>,
    /// `blockHostnames` and `blacklistIPs` (`--block-hostnames`,
    /// `--blacklist-ip`, `K6_BLOCK_HOSTNAMES`, `K6_BLACKLIST_IPS`).
    pub blocklist: loadlab_engine::blocklist::Blocklist,
    /// `tlsAuth`: client certificates, (chain, key) as PEM texts.
    pub tls_auth: Vec<(String, String)>,
}

impl Options {
    /// The longest the test can take: each scenario's start, duration and
    /// graceful stop (k6's "max duration (incl. graceful stop)").
    pub fn max_test_duration(&self) -> Duration {
        self.scenarios
            .iter()
            .map(|sc| sc.start_time + sc.executor.duration() + sc.graceful_stop)
            .max()
            .unwrap_or_default()
    }

    /// The scenarios' indices in k6's display order: by start time, then
    /// name (the banner and the progress lines).
    pub fn start_order(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.scenarios.len()).collect();
        order.sort_by_key(|&i| self.scenarios[i].start_time);
        order
    }

    pub fn max_vus(&self) -> u64 {
        self.scenarios.iter().map(|s| s.executor.max_vus()).sum()
    }
}

#[cfg(test)]
mod env_tests;
#[cfg(test)]
mod stages_tests;
#[cfg(test)]
mod tests;
