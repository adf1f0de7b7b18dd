//! The runs of a split study and when each starts: a function of the plan
//! alone, so every worker computes the same.

use std::time::Duration;

use loadlab_core::Rate;

use crate::analysis::SWEEP;
use crate::plan::Plan;

/// One run of the timetable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub phase: String,
    pub rate: u64,
    pub target: String,
    pub repetition: u32,
    /// When the run's schedule starts on every worker (ns since the epoch).
    pub start_unix_ns: u64,
}

/// The length of one slot: the step, the cool-down and the slack.
pub fn slot_length(plan: &Plan, slack: Duration) -> Duration {
    plan.load.step + plan.load.cooldown + slack
}

/// The runs of a split study, in order, each with its start: run `k`
/// starts at `T + k × (step + cooldown + slack)`. The order is the sweep's
/// (rates ascending; within a rate, repetitions, targets interleaved A B A
/// B), a function of the plan alone, so every worker computes the same.
pub fn timetable(plan: &Plan, start_at_unix_ns: u64, slack: Duration) -> Vec<Slot> {
    let len = slot_length(plan, slack).as_nanos() as u64;
    let mut out = Vec::new();
    for &rate in &plan.load.rates {
        for rep in 1..=plan.repetitions {
            for t in &plan.targets {
                let k = out.len() as u64;
                out.push(Slot {
                    phase: SWEEP.to_string(),
                    rate,
                    target: t.name.clone(),
                    repetition: rep,
                    start_unix_ns: start_at_unix_ns.saturating_add(k.saturating_mul(len)),
                });
            }
        }
    }
    out
}

/// The whole schedule's size of a run of `plan` at `rate`, as the engine
/// counts it (`None` when unbounded).
pub fn scheduled_total(plan: &Plan, rate: u64) -> Option<u64> {
    let cfg = plan.load.attack_config(Rate::per_second(rate));
    let pacer = cfg.pacer.build();
    loadlab_core::segment::scheduled_total(pacer.as_ref(), cfg.duration, cfg.max_requests)
}

pub(crate) fn scheduled_total_checked(plan: &Plan, rate: u64) -> Option<u64> {
    if rate == 0 {
        None
    } else {
        scheduled_total(plan, rate)
    }
}
