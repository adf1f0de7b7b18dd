//! The run's view for a live display ([`crate::RunConfig::live_out`]),
//! made once a second from the registry while the display wants it.

use std::time::Duration;

use serde_json::json;

use crate::config::Options;
use crate::live_view::totals;
use crate::registry::{Agg, Registry};
use crate::state::run_state::RunState;

/// A counter's sum, a trend's statistic, or 0.
fn count(reg: &Registry, name: &str) -> f64 {
    match reg.metric(name).map(|m| reg.merged(m, &[])) {
        Some(Agg::Counter { sum, .. }) => sum,
        _ => 0.0,
    }
}

fn stat(reg: &Registry, name: &str, s: &str) -> f64 {
    reg.metric(name)
        .and_then(|m| reg.merged(m, &[]).stat(s))
        .unwrap_or(0.0)
}

/// The second's view, if a display wants one.
pub(crate) fn tick(shared: &RunState, options: &Options) {
    let Some(out) = &shared.live_out else {
        return;
    };
    if !out.wanted() {
        return;
    }
    let elapsed = shared.start.elapsed();
    let reg = shared.reg.borrow();
    let vus = shared.active.get();
    let point = json!({
        "t": elapsed.as_secs_f64(),
        "vus": vus,
        "iterations": count(&reg, "iterations"),
        "http_reqs": count(&reg, "http_reqs"),
        "p95": stat(&reg, "http_req_duration", "p(95)"),
        "p99": stat(&reg, "http_req_duration", "p(99)"),
    });
    out.publish(point, totals(&reg, options, elapsed, vus));
}

/// The run's final figures, to the display.
pub(crate) fn finish(shared: &RunState, options: &Options, elapsed: Duration) {
    if let Some(out) = &shared.live_out {
        out.finish(totals(&shared.reg.borrow(), options, elapsed, 0));
    }
}
