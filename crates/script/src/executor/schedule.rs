//! The schedule math the executors share: the VU level of a ramp, and the
//! arrival times of the arrival-rate executors.

use std::time::Duration;

use loadlab_core::pacer::{PiecewisePacer, Segment};

use crate::config::{Executor, Scenario, ramp_vus_at};

/// The VUs a `ramping-vus` scenario wants `elapsed` into it: on this
/// instance's `--execution-segment`, its share of the whole test's VUs at
/// that instant (so the instances' VUs add up to the whole test's at every
/// instant).
pub fn ramp_vus(sc: &Scenario, elapsed: Duration) -> u64 {
    if let Some((stripe, start, whole)) = sc.segment.as_ref().and_then(|g| g.ramp.as_ref()) {
        return stripe.scale(ramp_vus_at(*start as f64, whole, elapsed));
    }
    match &sc.executor {
        Executor::RampingVus { start_vus, stages } => {
            ramp_vus_at(*start_vus as f64, stages, elapsed)
        }
        _ => 0,
    }
}

/// How many VUs a `ramping-vus` scenario lets run `elapsed` into it: as in
/// k6, a VU the ramp no longer wants finishes its iteration for up to
/// `gracefulRampDown` before it is interrupted, so the level allowed is the
/// ramp's highest over the last `gracefulRampDown`. The stages' end is not
/// a ramp down: the VUs of the last stage's level have `gracefulStop`.
pub fn ramp_vus_allowed(sc: &Scenario, elapsed: Duration) -> u64 {
    let end = sc.executor.duration();
    let from = elapsed.saturating_sub(sc.graceful_ramp_down).min(end);
    let to = elapsed.min(end);
    let mut best = ramp_vus(sc, from).max(ramp_vus(sc, to));
    // The level is linear within a stage: its highest is at the window's
    // ends or at a stage's end (both sides of it: a 0s stage jumps).
    if let Executor::RampingVus { stages, .. } = &sc.executor {
        let mut at = Duration::ZERO;
        for st in stages {
            at += st.duration;
            if at > from && at <= to {
                let before = at.saturating_sub(Duration::from_nanos(1)).max(from);
                best = best.max(ramp_vus(sc, before)).max(ramp_vus(sc, at));
            }
        }
    }
    best
}

/// Where the flat stage of a ramping-vus scenario at `elapsed` ends (from
/// the scenario's start), or `None` while its level moves.
pub fn ramp_flat_until(sc: &Scenario, elapsed: Duration) -> Option<Duration> {
    if let Some((_, start, whole)) = sc.segment.as_ref().and_then(|g| g.ramp.as_ref()) {
        return crate::config::ramp_flat_until(*start as f64, whole, elapsed);
    }
    match &sc.executor {
        Executor::RampingVus { start_vus, stages } => {
            crate::config::ramp_flat_until(*start_vus as f64, stages, elapsed)
        }
        _ => None,
    }
}

/// This instance's `j`-th arrival of an arrival-rate scenario: its number
/// in the whole test and its offset from the scenario's start (the whole
/// test's time of that arrival), or `None` past the end.
pub fn segment_arrival(sc: &Scenario, j: u64) -> Option<(u64, Duration)> {
    let k = match sc.segment.as_ref().and_then(|g| g.arrivals.as_ref()) {
        Some(stripe) => stripe.nth(j)?,
        None => j,
    };
    Some((k, arrival_at(&sc.executor, k)?))
}

/// How many arrivals an arrival-rate executor schedules in all (`None`
/// when it is not one, or has more than `cap`).
pub fn arrival_count(ex: &Executor, cap: u64) -> Option<u64> {
    let mut n = match ex {
        Executor::ConstantArrivalRate {
            rate,
            time_unit,
            duration,
            ..
        } => {
            // Close to the end by arithmetic, then exactly by the schedule.
            let est = duration.as_secs_f64() * rate / time_unit.as_secs_f64().max(1e-12);
            if !est.is_finite() || est > cap as f64 {
                return None;
            }
            (est as u64).saturating_sub(2)
        }
        Executor::RampingArrivalRate { .. } => 0,
        _ => return None,
    };
    while arrival_at(ex, n).is_some() {
        n += 1;
        if n > cap {
            return None;
        }
    }
    Some(n)
}

/// The time of arrival `n` (0-based) of an arrival-rate executor, if it
/// falls within the scenario.
pub(crate) fn arrival_at(ex: &Executor, n: u64) -> Option<Duration> {
    match ex {
        Executor::ConstantArrivalRate {
            rate,
            time_unit,
            duration,
            ..
        } => {
            if *rate <= 0.0 {
                return None;
            }
            let t = Duration::from_secs_f64(n as f64 * time_unit.as_secs_f64() / rate);
            (t < *duration).then_some(t)
        }
        Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            ..
        } => {
            // As k6, an arrival is due once a whole one has accrued
            // (`startRate: 2` starts its first at 0.5 s, and a rate of 0
            // starts none): the time the plan's count reaches n + 1.
            let unit = time_unit.as_secs_f64();
            let mut from = start_rate / unit;
            let segments = stages
                .iter()
                .map(|s| {
                    let to = s.target / unit;
                    let seg = Segment {
                        duration: s.duration,
                        from,
                        to,
                    };
                    from = to;
                    seg
                })
                .collect();
            PiecewisePacer::new(segments, false).accrued_at(n as f64 + 1.0, 1e-9)
        }
        _ => None,
    }
}
