//! The executors k6 has, as configured: their numbers, and their part of
//! the test under `--execution-segment`.

use std::time::Duration;

use super::stages::Stage;
use crate::segment::{Stripe, Tuple};

/// The executors k6 has (but `externally-controlled`, refused).
#[derive(Debug, Clone, PartialEq)]
pub enum Executor {
    SharedIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    PerVuIterations {
        vus: u64,
        iterations: u64,
        max_duration: Duration,
    },
    ConstantVus {
        vus: u64,
        duration: Duration,
    },
    RampingVus {
        start_vus: u64,
        stages: Vec<Stage>,
    },
    ConstantArrivalRate {
        /// Iterations per `time_unit`.
        rate: f64,
        time_unit: Duration,
        duration: Duration,
        max_vus: u64,
    },
    RampingArrivalRate {
        start_rate: f64,
        time_unit: Duration,
        stages: Vec<Stage>,
        max_vus: u64,
    },
}

/// How an executor's work is shared out by `--execution-segment`, beyond
/// its own (scaled) numbers: what the scheduler needs to run this
/// instance's part of the whole test.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioSegment {
    /// Arrival-rate executors: this instance's `j`-th arrival is the whole
    /// test's arrival `arrivals.nth(j)`, due at its whole-test time
    /// (`None` from `nth`: this instance has none).
    pub arrivals: Option<Stripe>,
    /// `ramping-vus`: the whole test's start and stages; at each instant
    /// this instance runs its share (`vus.scale`) of the whole test's VUs.
    pub ramp: Option<(Stripe, u64, Vec<Stage>)>,
}

impl Executor {
    /// This executor's part for the instance running segment `t`, as k6
    /// shares it out: VUs scaled by the sequence's striping (constant-vus,
    /// per-vu-iterations and shared-iterations VUs, an arrival-rate's VUs,
    /// a ramp's VUs at every instant); the iterations of shared-iterations
    /// and the arrivals of the arrival-rate executors striped in proportion
    /// to the segments' VUs (a segment without VUs gets none); per-VU
    /// iterations unchanged. The union over the sequence's segments is the
    /// whole test.
    pub fn segmented(&self, t: &Tuple) -> (Executor, Option<ScenarioSegment>) {
        let vus = Stripe {
            striping: t.striping.clone(),
            seg: Some(t.index),
        };
        let whole_vus = |v: f64| v.max(0.0).round() as u64;
        match self {
            Executor::SharedIterations {
                vus: v,
                iterations,
                max_duration,
            } => (
                Executor::SharedIterations {
                    vus: t.scale(*v),
                    iterations: Stripe::by_vus(t, t.index, *v).scale(*iterations),
                    max_duration: *max_duration,
                },
                None,
            ),
            Executor::PerVuIterations {
                vus: v,
                iterations,
                max_duration,
            } => (
                Executor::PerVuIterations {
                    vus: t.scale(*v),
                    iterations: *iterations,
                    max_duration: *max_duration,
                },
                None,
            ),
            Executor::ConstantVus { vus: v, duration } => (
                Executor::ConstantVus {
                    vus: t.scale(*v),
                    duration: *duration,
                },
                None,
            ),
            Executor::RampingVus { start_vus, stages } => (
                Executor::RampingVus {
                    start_vus: t.scale(*start_vus),
                    stages: stages
                        .iter()
                        .map(|st| Stage {
                            duration: st.duration,
                            target: t.scale(whole_vus(st.target)) as f64,
                        })
                        .collect(),
                },
                Some(ScenarioSegment {
                    arrivals: None,
                    ramp: Some((vus, *start_vus, stages.clone())),
                }),
            ),
            Executor::ConstantArrivalRate {
                rate,
                time_unit,
                duration,
                max_vus,
            } => (
                Executor::ConstantArrivalRate {
                    rate: *rate,
                    time_unit: *time_unit,
                    duration: *duration,
                    max_vus: t.scale(*max_vus),
                },
                Some(ScenarioSegment {
                    arrivals: Some(Stripe::by_vus(t, t.index, *max_vus)),
                    ramp: None,
                }),
            ),
            Executor::RampingArrivalRate {
                start_rate,
                time_unit,
                stages,
                max_vus,
            } => (
                Executor::RampingArrivalRate {
                    start_rate: *start_rate,
                    time_unit: *time_unit,
                    stages: stages.clone(),
                    max_vus: t.scale(*max_vus),
                },
                Some(ScenarioSegment {
                    arrivals: Some(Stripe::by_vus(t, t.index, *max_vus)),
                    ramp: None,
                }),
            ),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Executor::SharedIterations { .. } => "shared-iterations",
            Executor::PerVuIterations { .. } => "per-vu-iterations",
            Executor::ConstantVus { .. } => "constant-vus",
            Executor::RampingVus { .. } => "ramping-vus",
            Executor::ConstantArrivalRate { .. } => "constant-arrival-rate",
            Executor::RampingArrivalRate { .. } => "ramping-arrival-rate",
        }
    }

    /// VUs the scenario needs at most.
    pub fn max_vus(&self) -> u64 {
        match self {
            Executor::SharedIterations { vus, .. }
            | Executor::PerVuIterations { vus, .. }
            | Executor::ConstantVus { vus, .. } => *vus,
            Executor::RampingVus { start_vus, stages } => stages
                .iter()
                .map(|s| s.target as u64)
                .max()
                .unwrap_or(0)
                .max(*start_vus),
            Executor::ConstantArrivalRate { max_vus, .. }
            | Executor::RampingArrivalRate { max_vus, .. } => *max_vus,
        }
    }

    /// How long the scenario schedules new iterations.
    pub fn duration(&self) -> Duration {
        match self {
            Executor::SharedIterations { max_duration, .. }
            | Executor::PerVuIterations { max_duration, .. } => *max_duration,
            Executor::ConstantVus { duration, .. }
            | Executor::ConstantArrivalRate { duration, .. } => *duration,
            Executor::RampingVus { stages, .. } | Executor::RampingArrivalRate { stages, .. } => {
                stages.iter().map(|s| s.duration).sum()
            }
        }
    }

    pub fn is_arrival_rate(&self) -> bool {
        matches!(
            self,
            Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. }
        )
    }
}
