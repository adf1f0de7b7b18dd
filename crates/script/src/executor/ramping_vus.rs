//! `ramping-vus`: a number of VUs following stages, those above the
//! ramp's level stopped after `gracefulRampDown`.

use tokio::time::Instant;

use super::closed::Closed;
use super::schedule::{ramp_flat_until, ramp_vus, ramp_vus_allowed};
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::Scenario;

pub(crate) struct RampingVus {
    closed: Closed,
    /// No VU from this many on (in the scenario) is busy.
    ramped_high: usize,
    /// When the VUs above the ramp's level are looked at next.
    ramp_check: Option<Instant>,
}

impl RampingVus {
    pub(crate) fn new() -> Self {
        RampingVus {
            closed: Closed::default(),
            ramped_high: 0,
            ramp_check: None,
        }
    }
}

impl ScenarioExecutor for RampingVus {
    fn step(&mut self, sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        let now = step.now;
        let elapsed = now - st.start;
        let running_out = now >= st.end;
        if !running_out {
            let want = ramp_vus(sc, elapsed) as usize;
            // A moving ramp is followed on the grid; a flat
            // stage wakes the loop only where it ends.
            let at = match ramp_flat_until(sc, elapsed) {
                Some(end) => st.start.checked_add(end).unwrap_or(st.end),
                None => step.grid(),
            };
            step.wake_by(at);
            self.closed.start_wanted(st, step, want, |_, _| true);
            self.ramped_high = self.ramped_high.max(st.active_want);
        }
        // (Past the end, the graceful stop's deadline below
        // is the one to wake for: a past instant would spin.)
        let level = if running_out { 0 } else { st.active_want };
        let ramp_check = *self.ramp_check.get_or_insert(st.start);
        // gracefulRampDown: the VUs above the ramp's
        // level that are still busy when it is over are
        // interrupted (looked at on the 20 ms grid).
        if self.ramped_high > level && now >= ramp_check {
            let allowed = (ramp_vus_allowed(sc, elapsed) as usize).min(st.vus.len());
            let mut high = level;
            for k in level..self.ramped_high {
                let i = st.vus.start + k;
                if !step.s.slots[i].busy {
                    continue;
                }
                if k >= allowed {
                    step.s.abort(i);
                    st.busy = st.busy.saturating_sub(1);
                } else {
                    high = k + 1;
                }
            }
            self.ramped_high = high;
            self.ramp_check = Some(step.grid());
        }
        if self.ramped_high > level
            && let Some(at) = self.ramp_check
        {
            step.wake_by(at);
        }
    }

    fn iteration_ended(&mut self, vu: usize, _iters: u64) {
        self.closed.freed(vu);
    }
}
