//! The CI gate over a [`History`]: a change point for the worse after the
//! study labelled `since`, or the latest study significantly worse than
//! that one by more than a margin, is a finding.

use serde::Serialize;

use super::History;
use crate::hypothesis::Metric;
use crate::stats::{self, Stratum};

/// One reason to fail a pipeline, as one line of text.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub study: i64,
    pub label: String,
    pub line: String,
}

/// Whether a higher value of `m` is worse (latencies) or better.
pub fn higher_is_worse(m: Metric) -> bool {
    !matches!(m, Metric::Success | Metric::Throughput | Metric::Ceiling)
}

fn pct(v: Option<f64>) -> String {
    v.map_or("?".into(), |v| format!("{:+.1}%", v * 100.0))
}

/// The findings of `h` since the study labelled `since` (its index in
/// `h.points`), with `margin` the relative change tolerated (0.02 = 2 %).
pub fn check(h: &History, since: usize, margin: f64) -> Vec<Finding> {
    let worse = |rel: f64| {
        if higher_is_worse(h.metric) {
            rel > margin
        } else {
            rel < -margin
        }
    };
    let name = h.metric.name();
    let mut out = Vec::new();
    for s in h.shifts.iter().filter(|s| s.index > since) {
        if s.relative.is_some_and(worse) {
            let lo_hi = |v: Option<f64>| v.filter(|_| s.before != 0.0).map(|x| x / s.before.abs());
            out.push(Finding {
                study: s.study,
                label: s.label.clone(),
                line: format!(
                    "change point at study {} ({}): {name} {} (95 % interval {} to {}), p = {:.3}",
                    s.study,
                    s.label,
                    pct(s.relative),
                    pct(lo_hi(s.ci.0)),
                    pct(lo_hi(s.ci.1)),
                    s.p
                ),
            });
        }
    }
    let (Some(base), Some(last)) = (h.points.get(since), h.points.last()) else {
        return out;
    };
    if last.study == base.study {
        return out;
    }
    let st = [Stratum {
        label: h.rate.to_string(),
        a: last.runs.clone(),
        b: base.runs.clone(),
    }];
    let Some(ev) = stats::compare(&st, stats::ALPHA) else {
        return out;
    };
    let scale = ev.mean_b.abs();
    // The whole interval must lie beyond the margin, on the worse side.
    let beyond = if higher_is_worse(h.metric) {
        ev.ci.0.is_some_and(|lo| lo > margin * scale) && ev.p_greater <= stats::ALPHA
    } else {
        ev.ci.1.is_some_and(|hi| hi < -margin * scale) && ev.p_less <= stats::ALPHA
    };
    if beyond && scale > 0.0 {
        out.push(Finding {
            study: last.study,
            label: last.label.clone(),
            line: format!(
                "study {} ({}) against {} ({}): {name} {} (90 % interval {} to {}), beyond the {:.1}% margin",
                last.study,
                last.label,
                base.study,
                base.label,
                pct(ev.relative),
                pct(ev.ci.0.map(|v| v / scale)),
                pct(ev.ci.1.map(|v| v / scale)),
                margin * 100.0
            ),
        });
    }
    out
}
