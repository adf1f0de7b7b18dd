//! `ramping-arrival-rate`: iterations started at a rate following stages.

use std::ops::Range;

use tokio::time::Instant;

use super::arrivals::Arrivals;
use super::{ScenState, ScenarioExecutor, Step};
use crate::config::{Executor, Scenario};

pub(crate) struct RampingArrivalRate {
    arrivals: Arrivals,
}

impl RampingArrivalRate {
    pub(crate) fn new(vus: Range<usize>) -> Self {
        RampingArrivalRate {
            arrivals: Arrivals::new(vus),
        }
    }
}

impl ScenarioExecutor for RampingArrivalRate {
    fn step(&mut self, sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        self.arrivals.step(sc, st, step);
    }

    fn iteration_ended(&mut self, vu: usize, _iters: u64) {
        self.arrivals.freed(vu);
    }

    fn rate_now(&self, sc: &Scenario, st: &ScenState, now: Instant) -> f64 {
        let Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            ..
        } = &sc.executor
        else {
            return 0.0;
        };
        // The rate the ramp is at now.
        let t = now.saturating_duration_since(st.start);
        let rate = crate::config::ramp_level(*start_rate, stages, t).0;
        rate / time_unit.as_secs_f64().max(1e-9)
    }
}
