//! `per-vu-iterations`: each VU does a number of iterations.

use super::closed::Closed;
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::Scenario;

pub(crate) struct PerVuIterations {
    vus: usize,
    iterations: u64,
    /// VUs that did all theirs.
    vus_done: usize,
    closed: Closed,
}

impl PerVuIterations {
    pub(crate) fn new(vus: u64, iterations: u64) -> Self {
        PerVuIterations {
            vus: vus as usize,
            iterations,
            vus_done: 0,
            closed: Closed::default(),
        }
    }
}

impl ScenarioExecutor for PerVuIterations {
    fn step(&mut self, _sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        if step.now >= st.end {
            return;
        }
        let iterations = self.iterations;
        self.closed
            .start_wanted(st, step, self.vus, |_, iters| iters < iterations);
        // It ends when every VU did all its iterations.
        if self.vus_done >= st.vus.len() || self.iterations == 0 {
            st.end = step.now;
        }
    }

    fn iteration_ended(&mut self, vu: usize, iters: u64) {
        self.closed.freed(vu);
        if iters == self.iterations {
            self.vus_done += 1;
        }
    }
}
