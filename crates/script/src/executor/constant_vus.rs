//! `constant-vus`: a number of VUs looping for a duration.

use super::closed::Closed;
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::Scenario;

pub(crate) struct ConstantVus {
    vus: usize,
    closed: Closed,
}

impl ConstantVus {
    pub(crate) fn new(vus: u64) -> Self {
        ConstantVus {
            vus: vus as usize,
            closed: Closed::default(),
        }
    }
}

impl ScenarioExecutor for ConstantVus {
    fn step(&mut self, _sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        if step.now < st.end {
            self.closed.start_wanted(st, step, self.vus, |_, _| true);
        }
    }

    fn iteration_ended(&mut self, vu: usize, _iters: u64) {
        self.closed.freed(vu);
    }
}
