//! What the closed executors (a number of VUs looping) share: starting
//! the wanted VUs that are free.

use super::{ScenState, Step};

/// The VUs that finished an iteration since the last step.
#[derive(Default)]
pub(crate) struct Closed {
    freed: Vec<usize>,
}

impl Closed {
    /// VU `i` is free again.
    pub(crate) fn freed(&mut self, i: usize) {
        self.freed.push(i);
    }

    /// Makes the first `want` VUs the wanted ones, and starts an iteration
    /// on those free that `may` lets (given the VU and its iterations
    /// done).
    pub(crate) fn start_wanted(
        &mut self,
        st: &mut ScenState,
        step: &mut Step<'_, '_, '_>,
        want: usize,
        mut may: impl FnMut(usize, u64) -> bool,
    ) {
        let want = want.min(st.vus.len());
        // Only VUs that just finished, and those newly
        // wanted by a ramp, may start now.
        let mut cand = std::mem::take(&mut self.freed);
        if want > st.active_want {
            cand.extend(st.vus.start + st.active_want..st.vus.start + want);
        }
        st.active_want = want;
        for i in cand {
            if i - st.vus.start >= want || step.s.slots[i].busy || step.s.slots[i].co.is_none() {
                continue;
            }
            if may(i, step.s.slots[i].iters) {
                st.busy += 1;
                step.start(i, step.now);
            }
        }
    }
}
