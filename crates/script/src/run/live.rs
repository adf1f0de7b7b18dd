//! The run's view for a live display ([`crate::RunConfig::live_out`]),
//! made once a second from the registry while the display wants it.

use std::time::Duration;

use serde_json::json;

use crate::config::Options;
use crate::live_view::totals;
use crate::registry::{Agg, Registry};
use crate::state::run_state::RunState;

/// A counter's sum, or 0.
fn count(reg: &Registry, name: &str) -> f64 {
    match reg.metric(name).map(|m| reg.merged(m, &[])) {
        Some(Agg::Counter { sum, .. }) => sum,
        _ => 0.0,
    }
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
    // This second's percentiles: the requests since the last point, from
    // the difference of the run's own distribution then and now.
    let duration = reg.metric("http_req_duration").map(|m| reg.merged(m, &[]));
    let last = shared.live_last.replace(duration.clone());
    let second = match (&duration, &last) {
        (Some(now), Some(then)) => now.percentiles_since(then, &[95.0, 99.0]),
        (Some(now), None) if now.count() > 0 => Some(vec![
            now.stat("p(95)").unwrap_or(0.0),
            now.stat("p(99)").unwrap_or(0.0),
        ]),
        _ => None,
    };
    let point = json!({
        "t": elapsed.as_secs_f64(),
        "vus": vus,
        "iterations": count(&reg, "iterations"),
        "http_reqs": count(&reg, "http_reqs"),
        // Null: no request ended this second.
        "p95": second.as_ref().map(|s| s[0]),
        "p99": second.as_ref().map(|s| s[1]),
    });
    out.publish(point, totals(&reg, options, elapsed, vus));
}

/// The run's final figures, to the display.
pub(crate) fn finish(shared: &RunState, options: &Options, elapsed: Duration) {
    if let Some(out) = &shared.live_out {
        out.finish(totals(&shared.reg.borrow(), options, elapsed, 0));
    }
}
