//! The saturation reading: on the rate axis, a step that was sent more
//! than the target answered measured the target's peak throughput, and
//! X_max is read from it instead of from the fitted curve's peak.
//!
//! The scalability law is a closed-system law: past a wall (a pool of
//! workers in front of a bounded queue), more load no longer raises the
//! concurrency it sees, only the queue or the refusals, and a curve fitted
//! through such steps keeps rising past the last one. An open-model step
//! past the wall says more than the curve: the target answered what it
//! could, and that is its capacity.
//!
//! A step is saturated when its runs answered less than [`SHORT`] of what
//! they sent (work refused or timed out: the target is surely past its
//! capacity), or, when no step refused work, when a queue grew: the
//! answers over the span in which the target was busy fall behind what
//! was sent ([`BEHIND`]) while the mean latency stands [`QUEUED`] times
//! above the lowest step's. A step near the capacity may queue in one
//! repetition and not the next, so steps that refused work, where there
//! are any, are the only ones read.
//!
//! The capacity lies between what the saturated runs answered per second
//! of their whole span, the step and the wait for its last answers
//! (vegeta's throughput: the target idled before its first answer, and
//! the answers to the warm-up's queued requests came first), and per
//! second of sending (the answers that came after the step, from its
//! queue, counted as if within it); each bound is widened by Student's t
//! over the runs.

use super::Step;
use super::boot::{Interval, t975};

/// A step whose runs answered less than this share of what they sent was
/// past the target's capacity.
pub const SHORT: f64 = 0.97;
/// Answers over the busy span below this share of what was sent…
pub const BEHIND: f64 = 0.985;
/// …with a mean latency this many times the lowest step's: a queue grew.
pub const QUEUED: f64 = 1.2;

/// The capacity the saturated steps measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Saturation {
    /// The lowest saturated step's level.
    pub from: u64,
    /// The saturated runs the capacity is read from.
    pub runs: usize,
    /// The capacity (successful responses per second) and its 95 % interval.
    pub x: Interval,
}

fn mean(v: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let v: Vec<f64> = v.collect();
    let k = v.len();
    let m = v.iter().sum::<f64>() / k.max(1) as f64;
    let var = if k > 1 {
        v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (k - 1) as f64
    } else {
        0.0
    };
    (m, (var / k.max(1) as f64).sqrt(), k)
}

/// True when `step`'s runs refused work: they answered less than
/// [`SHORT`] of what they sent.
pub fn refused(step: &Step) -> bool {
    let sent = step.mean(|o| o.sent);
    sent > 0.0 && step.mean(|o| o.delivered) < SHORT * sent
}

/// True when a queue grew in `step`; `s0` is the lowest step's mean
/// latency.
pub fn queued(step: &Step, s0: f64) -> bool {
    let sent = step.mean(|o| o.sent);
    sent > 0.0 && step.mean(|o| o.busy) < BEHIND * sent && step.r() > QUEUED * s0
}

/// The capacity measured by the saturated steps of `steps` (lowest level
/// first), or None when no step was saturated.
pub fn reading(steps: &[Step]) -> Option<Saturation> {
    let s0 = steps.first()?.r();
    let mut sat: Vec<&Step> = steps.iter().filter(|s| refused(s)).collect();
    if sat.is_empty() {
        sat = steps.iter().filter(|s| queued(s, s0)).collect();
    }
    let from = sat.first()?.level;
    let runs = || sat.iter().flat_map(|s| s.runs.iter());
    let (whole, whole_se, k) = mean(runs().map(|o| o.x));
    let (sending, sending_se, _) = mean(runs().map(|o| o.delivered));
    let t = t975(k.saturating_sub(1));
    let lo = (whole.min(sending) - t * whole_se).max(0.0);
    let hi = whole.max(sending) + t * sending_se;
    let mid = ((whole + sending) / 2.0).clamp(lo, hi);
    Some(Saturation {
        from,
        runs: k,
        x: Interval { lo, mid, hi },
    })
}
