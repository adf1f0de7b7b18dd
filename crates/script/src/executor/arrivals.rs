//! What the arrival-rate executors share: iterations started at their
//! arrival's instant on a free VU, or dropped.

use std::ops::Range;

use super::schedule::arrival_at;
use super::{ScenState, Step};
use crate::config::Scenario;
use crate::log::Level;
use crate::system_tags::SystemTags;

pub(crate) struct Arrivals {
    /// The next arrival's number.
    next_arrival: u64,
    /// k6's "Insufficient VUs" warning was printed.
    warned_vus: bool,
    /// Free VUs (the lowest on top).
    idle: Vec<usize>,
}

impl Arrivals {
    pub(crate) fn new(vus: Range<usize>) -> Self {
        Arrivals {
            next_arrival: 0,
            warned_vus: false,
            idle: vus.rev().collect(),
        }
    }

    /// VU `i` is free again.
    pub(crate) fn freed(&mut self, i: usize) {
        self.idle.push(i);
    }

    /// Starts the arrivals due by `step.now`; drops those no VU is free
    /// for.
    pub(crate) fn step(&mut self, sc: &Scenario, st: &mut ScenState, step: &mut Step<'_, '_, '_>) {
        let now = step.now;
        loop {
            // This instance's arrivals are its stripe of
            // the whole test's (`--execution-segment`), at
            // their whole-test times.
            let global = match sc.segment.as_ref().and_then(|g| g.arrivals.as_ref()) {
                Some(stripe) => stripe.nth(self.next_arrival),
                None => Some(self.next_arrival),
            };
            let Some((k, at)) = global.and_then(|k| Some((k, arrival_at(&sc.executor, k)?))) else {
                st.end = st.end.min(now);
                break;
            };
            let due = st.start + at;
            if due > now {
                step.wake_by(due);
                break;
            }
            self.next_arrival += 1;
            match self.idle.pop() {
                Some(i) => {
                    step.s.shared.vus.borrow_mut()[i].arrival = Some(k);
                    st.busy += 1;
                    step.start(i, due);
                }
                None => self.dropped(sc, st, step),
            }
        }
    }

    /// An arrival with no free VU: k6's warning (once), a dropped
    /// iteration.
    fn dropped(&mut self, sc: &Scenario, st: &ScenState, step: &mut Step<'_, '_, '_>) {
        let shared = step.s.shared;
        if !self.warned_vus {
            // k6's warning, once per scenario.
            self.warned_vus = true;
            shared.log(
                Level::Warning,
                &format!(
                    "Insufficient VUs, reached {} active VUs and cannot \
                     initialize more",
                    st.busy,
                ),
                &[("executor", sc.executor.name()), ("scenario", &sc.name)],
            );
        }
        let tags = {
            let mut t = shared.base_tags.clone();
            if shared.sys.has(SystemTags::SCENARIO) {
                t.push(("scenario".into(), sc.name.clone()));
            }
            t
        };
        shared.add_named("dropped_iterations", 1.0, tags, true);
    }
}
