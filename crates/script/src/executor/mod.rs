//! The k6 executors: when a scenario's VUs start their iterations.
//!
//! Each executor is a type holding its own state and implementing
//! `ScenarioExecutor`; the run loop (`run/drive.rs`) keeps the state
//! every scenario has (`ScenState`: its span, its VUs, its count of
//! running and ended iterations) and asks the scenario's executor at each
//! turn.

pub mod constant_arrival_rate;
pub mod constant_vus;
pub mod per_vu_iterations;
mod plan;
pub mod ramping_arrival_rate;
pub mod ramping_vus;
pub mod schedule;
pub mod shared_iterations;

mod arrivals;
mod closed;

use std::time::Duration;

use tokio::time::Instant;

use crate::config::{Executor, Scenario};
use crate::vus::sched::Sched;

/// A scenario's executor as it runs.
pub(crate) trait ScenarioExecutor {
    /// Starts the iterations due by `step.now` (the scenario has started
    /// and is not done), and moves `step.wake` to when it wants to be
    /// asked again.
    fn step(&mut self, sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>);
    /// VU `vu`'s iteration ended (booked already); `iters` is how many the
    /// VU has done.
    fn iteration_ended(&mut self, vu: usize, iters: u64);
    /// The rate of iterations per second the progress lines show at `now`
    /// (ramping arrival rate only).
    fn rate_now(&self, _sc: &Scenario, _st: &ScenState, _now: Instant) -> f64 {
        0.0
    }
}

/// The executor of a scenario whose VUs are `vus` (indexes in the run's).
pub(crate) fn for_scenario(
    sc: &Scenario,
    vus: std::ops::Range<usize>,
) -> Box<dyn ScenarioExecutor> {
    match &sc.executor {
        Executor::SharedIterations {
            vus: n, iterations, ..
        } => Box::new(shared_iterations::SharedIterations::new(*n, *iterations)),
        Executor::PerVuIterations {
            vus: n, iterations, ..
        } => Box::new(per_vu_iterations::PerVuIterations::new(*n, *iterations)),
        Executor::ConstantVus { vus: n, .. } => Box::new(constant_vus::ConstantVus::new(*n)),
        Executor::RampingVus { .. } => Box::new(ramping_vus::RampingVus::new()),
        Executor::ConstantArrivalRate { .. } => {
            Box::new(constant_arrival_rate::ConstantArrivalRate::new(vus))
        }
        Executor::RampingArrivalRate { .. } => {
            Box::new(ramping_arrival_rate::RampingArrivalRate::new(vus))
        }
    }
}

/// What an executor's step works with: the scheduler, the instant, the
/// loop's next wake-up and the iterations that ended at once.
pub(crate) struct Step<'s, 'a, 'js> {
    pub(crate) s: &'s mut Sched<'a, 'js>,
    pub(crate) now: Instant,
    /// The scenarios' common start (the grids count from it).
    pub(crate) t0: Instant,
    pub(crate) wake: Instant,
    pub(crate) pending_done: &'s mut Vec<(usize, Result<(), String>)>,
}

impl Step<'_, '_, '_> {
    /// Starts VU `i`'s iteration, intended at `intended`.
    pub(crate) fn start(&mut self, i: usize, intended: Instant) {
        if let Some(r) = self.s.start_iteration(i, intended) {
            self.pending_done.push((i, r));
        }
    }

    /// Wakes the loop at `at` at the latest.
    pub(crate) fn wake_by(&mut self, at: Instant) {
        self.wake = self.wake.min(at);
    }

    /// The next point of the 20 ms grid ramps are followed on.
    pub(crate) fn grid(&self) -> Instant {
        let step = Duration::from_millis(20);
        let n = self.now.saturating_duration_since(self.t0).as_nanos() / step.as_nanos() + 1;
        self.t0 + step * n as u32
    }
}

/// Per-scenario schedule state, whatever its executor.
pub(crate) struct ScenState {
    pub(crate) start: Instant,
    pub(crate) end: Instant,
    pub(crate) hard_end: Instant,
    pub(crate) done: bool,
    pub(crate) vus: std::ops::Range<usize>,
    /// Iterations running now.
    pub(crate) busy: usize,
    /// Closed executors: how many of the scenario's VUs are wanted (the
    /// first ones).
    pub(crate) active_want: usize,
    /// Iterations that ended (for the progress lines).
    pub(crate) iters_done: u64,
    /// When it was over (all its iterations ended).
    pub(crate) finished_at: Option<Instant>,
}

impl ScenState {
    /// What the progress lines show of the scenario at `now`.
    pub(crate) fn view(
        &self,
        sc: &Scenario,
        ex: &dyn ScenarioExecutor,
        now: Instant,
    ) -> crate::progress::ScenView {
        use crate::progress::{ScenView, Status};
        let mut v = ScenView {
            running: self.busy as u64,
            level: self.active_want as u64,
            iters_done: self.iters_done,
            ..ScenView::default()
        };
        v.rate_now = ex.rate_now(sc, self, now);
        if now < self.start {
            v.status = Status::Waiting;
            v.wait_left = self.start - now;
        } else if let Some(at) = self.finished_at {
            v.status = Status::Done;
            v.spent = at - self.start;
        } else if now >= self.start + sc.executor.duration() {
            // Its duration is over, its last iterations finishing: its
            // figures are the ones just past its duration.
            v.status = Status::Stopping;
            v.spent = sc.executor.duration() + Duration::from_nanos(1);
        } else {
            v.spent = now - self.start;
        }
        v
    }
}
