//! `shared-iterations`: a number of iterations shared by the VUs.

use super::closed::Closed;
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::Scenario;

pub(crate) struct SharedIterations {
    vus: usize,
    /// Iterations left to hand out.
    left: u64,
    closed: Closed,
}

impl SharedIterations {
    pub(crate) fn new(vus: u64, iterations: u64) -> Self {
        SharedIterations {
            vus: vus as usize,
            left: iterations,
            closed: Closed::default(),
        }
    }
}

impl ScenarioExecutor for SharedIterations {
    fn step(&mut self, _sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        if step.now >= st.end {
            return;
        }
        let left = &mut self.left;
        self.closed.start_wanted(st, step, self.vus, |_, _| {
            if *left == 0 {
                false
            } else {
                *left -= 1;
                true
            }
        });
        // It ends when all are handed out.
        if self.left == 0 {
            st.end = step.now;
        }
    }

    fn iteration_ended(&mut self, vu: usize, _iters: u64) {
        self.closed.freed(vu);
    }
}
