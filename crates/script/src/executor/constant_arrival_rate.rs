//! `constant-arrival-rate`: iterations started at a constant rate.

use std::ops::Range;

use super::arrivals::Arrivals;
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::Scenario;

pub(crate) struct ConstantArrivalRate {
    arrivals: Arrivals,
}

impl ConstantArrivalRate {
    pub(crate) fn new(vus: Range<usize>) -> Self {
        ConstantArrivalRate {
            arrivals: Arrivals::new(vus),
        }
    }
}

impl ScenarioExecutor for ConstantArrivalRate {
    fn step(&mut self, sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        self.arrivals.step(sc, st, step);
    }

    fn iteration_ended(&mut self, vu: usize, _iters: u64) {
        self.arrivals.freed(vu);
    }
}
