//! The k6 options' old home: they live in [`crate::config`] (and the
//! thresholds' in [`crate::thresholds::parse`]); these names stay for the
//! code that still imports them from here.

pub(crate) use crate::config::ramp_level;
pub use crate::config::{
    DURATION_NOT_POSITIVE, DnsOptions, Executor, Options, Overrides, RequestOptions, Scenario,
    ScenarioSegment, Stage, TimeUnit, dns_text_fields, env_layer, parse_duration,
    parse_duration_str, parse_signed_duration_str, ramp_at, ramp_flat_until, ramp_vus_at,
    stage_flag,
};
pub use crate::thresholds::parse::{Threshold, parse_metric_key};
