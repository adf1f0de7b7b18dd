//! A concurrent group's run: its members run at the same time from one
//! start instant (the engine's `-start-at`; `--start-at` of a script's or
//! database test's process), each into its own collector and all into the
//! group's combined one.
//!
//! The combined collector is shared by the members' sink threads behind a
//! lock, taken once per sample; it counts requests (their latencies,
//! status codes, errors), not a script's or database test's own metrics,
//! whose series numbers are each member's own.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use loadlab_core::{AttackInfo, Sample, Sink, TargetInfo};
use loadlab_engine::{LiveStats, StopSignal};

use super::execute::{add_monitor, execute, new_collector, scrub_errors, start_monitor};
use super::{StudyError, unix_now_ns};
use crate::collect::{Collector, GroupNote, RunData};
use crate::origins::Origins;
use crate::plan::{Plan, TargetPlan};
use crate::store::MonitorPoint;
use crate::workload::WorkloadRunner;

/// How long before the common start instant the members are launched:
/// time for each to build its targets and connections' settings.
const LEAD: Duration = Duration::from_millis(100);

/// The same when a member is a script or a database test: time for its
/// process to start, compile the script and run `setup()`, or make its
/// connections. A member still not ready at the instant starts late, and
/// the group's start spread says so.
const WORKLOAD_LEAD: Duration = Duration::from_millis(1500);

/// The group's combined collector and the observer's sink, fed by every
/// member.
struct Combined {
    collector: Collector,
    extra: Option<Box<dyn Sink>>,
    begun: bool,
}

/// A member's handle on [`Combined`].
struct Tee(Arc<Mutex<Combined>>);

impl Sink for Tee {
    fn begin(&mut self, info: &AttackInfo) {
        let mut c = self.0.lock().expect("group sink lock");
        if !c.begun {
            c.begun = true;
            c.collector.begin(info);
            if let Some(e) = c.extra.as_mut() {
                e.begin(info);
            }
        }
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        let mut c = self.0.lock().expect("group sink lock");
        c.collector.register_target(index, target);
    }
    fn record(&mut self, sample: &Sample) {
        let mut c = self.0.lock().expect("group sink lock");
        c.collector.record(sample);
        if let Some(e) = c.extra.as_mut() {
            e.record(sample);
        }
    }
}

/// What a group's run gives: the combined run, the monitor's points, and
/// each member's run.
pub(super) struct GroupRun {
    pub combined: RunData,
    pub monitor: Vec<MonitorPoint>,
    pub members: Vec<(String, RunData)>,
}

/// Runs `group`'s members at the step's `level`, together.
#[allow(clippy::too_many_arguments)]
pub(super) fn execute_group(
    plan: &Plan,
    group: &TargetPlan,
    level: u64,
    origins: &Origins,
    pid: Option<u32>,
    stop: &Arc<StopSignal>,
    extra: Option<Box<dyn Sink>>,
    live: Arc<LiveStats>,
    workloads: Option<&Arc<dyn WorkloadRunner>>,
) -> Result<GroupRun, StudyError> {
    let members: Vec<&TargetPlan> = group
        .members
        .iter()
        .filter_map(|m| plan.target(m))
        .collect();
    let offered: u64 = members.iter().map(|m| m.level_at(level)).sum();
    let combined = Arc::new(Mutex::new(Combined {
        collector: new_collector(plan, offered),
        extra,
        begun: false,
    }));
    let mon = start_monitor(plan, pid);
    let lead = if members.iter().any(|m| m.workload.is_some()) {
        WORKLOAD_LEAD
    } else {
        LEAD
    };
    let start_at = unix_now_ns() + lead.as_nanos() as u64;
    let results: Vec<Result<(RunData, Vec<MonitorPoint>), StudyError>> = std::thread::scope(|s| {
        let handles: Vec<_> = members
            .iter()
            .map(|m| {
                let tee: Box<dyn Sink> = Box::new(Tee(combined.clone()));
                let live = live.clone();
                s.spawn(move || {
                    execute(
                        plan,
                        &m.name,
                        m.level_at(level),
                        origins,
                        None,
                        stop,
                        Some(tee),
                        live,
                        workloads,
                        None,
                        Some(start_at),
                    )
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(StudyError::Engine("a group member's run panicked".into()))
                })
            })
            .collect()
    });
    let points = mon.map(crate::monitor::Monitor::stop).unwrap_or_default();
    let mut runs = Vec::new();
    for (m, r) in members.iter().zip(results) {
        runs.push((m.name.clone(), r?.0));
    }
    let Ok(c) = Arc::try_unwrap(combined).map(|m| m.into_inner().expect("group sink lock")) else {
        return Err(StudyError::Engine(
            "a group member's sink outlived its run".into(),
        ));
    };
    if let Some(mut e) = c.extra {
        let _ = e.finish();
    }
    let mut data = c.collector.finish();
    scrub_errors(plan, origins, &mut data.summary);
    add_monitor(plan, &points, &mut data.summary);
    let mut began = Vec::new();
    for (_, r) in runs.iter_mut() {
        let s = &mut r.summary;
        data.summary.unsent += s.unsent;
        data.summary.late += s.late;
        if let Some(p) = s.part.take() {
            began.push(p.began_unix_ns);
        }
    }
    let spread = match (began.iter().min(), began.iter().max()) {
        (Some(lo), Some(hi)) if began.len() >= 2 => Some(hi - lo),
        _ => None,
    };
    data.summary.group = Some(GroupNote {
        members: group.members.clone(),
        start_spread_ns: spread,
    });
    Ok(GroupRun {
        combined: data,
        monitor: points,
        members: runs,
    })
}
