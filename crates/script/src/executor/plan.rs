//! The iterations each segment is planned to run, from the scenarios'
//! executors (an arrival-rate executor's count is its schedule's).

use crate::config::{Executor, Options};

impl Options {
    /// The iterations each segment of the sequence is scheduled to run (in
    /// the sequence's order), as the scheduler shares them out: a
    /// segment's shared iterations, its VUs × per-VU iterations, its
    /// arrivals (started or dropped). `None` for a segment whose count is
    /// not known in advance (a `constant-vus` or `ramping-vus` scenario
    /// runs for a time, not a count).
    pub fn planned_iterations(&self) -> Vec<Option<u64>> {
        let t = &self.segment;
        let n = t.count();
        let mut total: Vec<Option<u64>> = vec![Some(0); n];
        let by_vus = |vus: u64, work: u64| -> Vec<u64> {
            match t.from_value(vus) {
                Some((st, map)) => map
                    .iter()
                    .map(|m| m.map_or(0, |m| st.scale(m, work)))
                    .collect(),
                None => vec![0; n],
            }
        };
        for sc in &self.scenarios {
            let part: Option<Vec<u64>> = match &sc.whole {
                Executor::SharedIterations {
                    vus, iterations, ..
                } => Some(by_vus(*vus, *iterations)),
                Executor::PerVuIterations {
                    vus, iterations, ..
                } => Some((0..n).map(|s| t.scale_of(s, *vus) * iterations).collect()),
                ex @ (Executor::ConstantArrivalRate { max_vus, .. }
                | Executor::RampingArrivalRate { max_vus, .. }) => {
                    super::schedule::arrival_count(ex, 1 << 40).map(|k| by_vus(*max_vus, k))
                }
                Executor::ConstantVus { .. } | Executor::RampingVus { .. } => None,
            };
            for (s, tot) in total.iter_mut().enumerate() {
                *tot = match (&part, *tot) {
                    (Some(p), Some(x)) => Some(x + p[s]),
                    _ => None,
                };
            }
        }
        total
    }
}
