//! The supervisor (`attack_with_live`): builds the shared state, starts the
//! workers, the send clock and the sink thread, waits for the end (duration,
//! interrupt and its grace, or the last worker's exit), then finishes the
//! sink and sums the attack up.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loadlab_core::segment::{count_due, scheduled_total};
use loadlab_core::{Pacer, ScheduleSegment, Sink, TargetInfo, WorkerInfo};
use tokio::time::Instant;

use super::cancel::Cancel;
use super::shared::{Shared, Targets};
use crate::clock::Clock;
use crate::collector::{self, Holds};
use crate::config::AttackConfig;
use crate::live::{AttackSummary, LiveStats, StopReason};
use crate::request::Template;
use crate::stop::StopSignal;
use crate::targets::TargetSource;
use crate::transport::Transport;
use crate::{EngineError, INTERRUPT_GRACE};

/// Counts requests of this segment the schedule called for before `limit`
/// that were not sent (`sent` of them were).
fn unsent(
    pacer: &dyn Pacer,
    seg: ScheduleSegment,
    sent: u64,
    limit: Duration,
    max: Option<u64>,
) -> u64 {
    let due = |j: u64| {
        seg.send_at(pacer, j)
            .is_some_and(|(k, t)| max.is_none_or(|m| k < m) && t < limit)
    };
    if !due(sent) {
        return 0;
    }
    count_due(due).saturating_sub(sent)
}

fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The attack's description for the sink thread, sent once, when the
/// attack starts (the worker record's start stamped then).
struct Begin(
    Option<(
        loadlab_core::AttackInfo,
        std::sync::mpsc::Sender<loadlab_core::AttackInfo>,
    )>,
);

impl Begin {
    fn now(&mut self) {
        if let Some((mut info, tx)) = self.0.take() {
            if let Some(w) = info.worker.as_mut() {
                w.began_unix_ns = unix_now_ns();
            }
            let _ = tx.send(info);
        }
    }
}

/// Where the schedule starts: now, or at `-start-at` (checked against its
/// bounds). Returns the start instant on the monotonic clock and the same
/// instant on the wall clock.
fn schedule_start(cfg: &AttackConfig) -> Result<(Instant, u64), EngineError> {
    let (now, now_unix) = (Instant::now(), unix_now_ns());
    let Some(at) = cfg.start_at_unix_ns else {
        return Ok((now, now_unix));
    };
    crate::config::check_start_at(at, now_unix).map_err(EngineError::Config)?;
    if at >= now_unix {
        Ok((now + Duration::from_nanos(at - now_unix), at))
    } else {
        let past = Duration::from_nanos(now_unix - at);
        Ok((now.checked_sub(past).unwrap_or(now), at))
    }
}

/// The attack's targets as request templates (or the lazy feed), and
/// what the results file says of each.
fn build_targets(
    cfg: &AttackConfig,
    targets: TargetSource,
    transport: &Transport,
) -> Result<(Targets, Vec<TargetInfo>), EngineError> {
    let built = match targets {
        TargetSource::Static(ts) => {
            if ts.is_empty() {
                return Err(EngineError::NoTargets);
            }
            let vegeta = cfg.vegeta_headers.then_some(cfg.name.as_str());
            let mut tpls = Vec::with_capacity(ts.len());
            let mut infos = Vec::with_capacity(ts.len());
            for (i, t) in ts.iter().enumerate() {
                let tpl = Template::build(t, &cfg.headers, cfg.body.as_ref(), vegeta, transport)
                    .map_err(|reason| EngineError::Target { index: i, reason })?;
                tpls.push(Arc::new(tpl));
                infos.push(TargetInfo {
                    method: t.method.to_string(),
                    url: crate::targets::redact_url(&t.url).into_owned(),
                });
            }
            let order = match &cfg.weights {
                None => None,
                Some(w) if w.len() != tpls.len() => {
                    return Err(EngineError::Config(format!(
                        "{} weights for {} targets: give one weight per target",
                        w.len(),
                        tpls.len()
                    )));
                }
                Some(w) => Some(
                    loadlab_core::mix::weighted_order(w)
                        .map_err(EngineError::Config)?
                        .into_boxed_slice(),
                ),
            };
            (Targets::Static(tpls, order), infos)
        }
        TargetSource::Lazy(_) if cfg.weights.is_some() => {
            return Err(EngineError::Config(
                "a weighted mix needs its targets up front (not -lazy)".into(),
            ));
        }
        TargetSource::Lazy(iter) => (super::lazy::feed(iter)?, Vec::new()),
        TargetSource::Replay(_) if cfg.weights.is_some() => {
            return Err(EngineError::Config(
                "a replay sends each record's own target: it takes no weights".into(),
            ));
        }
        TargetSource::Replay(_) if cfg.unpaced() => {
            return Err(EngineError::Config(
                "a replay is an open-model schedule: it cannot run unpaced or closed-loop".into(),
            ));
        }
        TargetSource::Replay(iter) => (super::replay::feed(iter)?, Vec::new()),
    };
    Ok(built)
}

/// The attack's summary from the shared counters, once every worker and
/// the sink are done; `base` is what the shared live counters held
/// before this attack.
fn summarise(
    sh: &Shared,
    base: (u64, u64, u64),
    duration: Option<Duration>,
    interrupted: bool,
    interrupt_at: Duration,
    start_unix_ns: u64,
) -> AttackSummary {
    let live = &sh.live;
    let requests = live.sent() - base.0;
    let stop_reason = sh.reason.lock().expect("reason lock").unwrap_or_default();
    let first = sh.first_sent.load(Ordering::Relaxed);
    let last = sh.last_sent.load(Ordering::Relaxed);
    let last_done = sh.last_done.load(Ordering::Relaxed);
    let (attack_duration, wait) = if requests == 0 {
        (Duration::ZERO, Duration::ZERO)
    } else {
        (
            Duration::from_nanos(last.saturating_sub(first)),
            Duration::from_nanos(last_done.saturating_sub(last)),
        )
    };
    // A replay's schedule is its records, not the pacer's.
    let unsent = if !sh.paced || matches!(sh.targets, Targets::Replay { .. }) {
        0
    } else {
        let limit = match (stop_reason, duration) {
            (StopReason::Interrupted, _) => Some(interrupt_at),
            (StopReason::Duration, Some(d)) => Some(d),
            _ => None,
        };
        limit.map_or(0, |l| {
            unsent(
                sh.pacer.as_ref(),
                sh.cfg.segment,
                requests,
                l,
                sh.cfg.max_requests,
            )
        })
    };
    let target_error = sh.target_error.lock().expect("lock").take();
    AttackSummary {
        start_unix_ns,
        requests,
        successes: live.successes() - base.1,
        attack_duration,
        wait,
        interrupted,
        stop_reason,
        late: live.late() - base.2,
        max_send_lag: Duration::from_nanos(sh.max_lag.load(Ordering::Relaxed)),
        unsent,
        canceled: sh.canceled.load(Ordering::Relaxed),
        dropped_samples: 0,
        workers: sh.workers.load(Ordering::Relaxed),
        target_error,
    }
}

/// Runs an attack. See the crate docs for the model. The sink is handed
/// back, finished, with the summary.
pub async fn attack_with_live<S: Sink + 'static>(
    cfg: AttackConfig,
    targets: TargetSource,
    sink: S,
    shutdown: impl Future<Output = ()> + Send,
    live: Arc<LiveStats>,
) -> Result<(AttackSummary, S), EngineError> {
    cfg.validate()?;
    let cfg = cfg.for_segment();
    if !cfg.segment.is_whole() && matches!(targets, TargetSource::Replay(_)) {
        return Err(EngineError::Config(
            "a replay cannot be combined with -segment (give each worker its own log)".into(),
        ));
    }
    if !cfg.segment.is_whole() && matches!(targets, TargetSource::Lazy(_)) {
        return Err(EngineError::Config(
            "-lazy cannot be combined with -segment (each worker would read every target; give each worker its targets whole)".into(),
        ));
    }
    let tls = crate::tls::client_config(&cfg.tls, cfg.http2)?;
    let transport = Transport::new(&cfg, Some(tls));
    let (targets, infos) = build_targets(&cfg, targets, &transport)?;

    // The caller may share one LiveStats across attacks: report only ours.
    let base = (live.sent(), live.successes(), live.late());
    let pacer = cfg.pacer.build();
    let (start, start_unix_ns) = schedule_start(&cfg)?;
    let mut shutdown = std::pin::pin!(shutdown);
    let mut info = cfg.attack_info(start_unix_ns);
    if cfg.is_worker() {
        let total = if cfg.closed_loop {
            cfg.max_requests
        } else {
            scheduled_total(pacer.as_ref(), cfg.duration, cfg.max_requests)
        };
        info.worker = Some(WorkerInfo {
            index: cfg.segment.index,
            count: cfg.segment.count,
            start_at_unix_ns: cfg.start_at_unix_ns.unwrap_or(0),
            // Stamped when the attack starts (see `Begin`).
            began_unix_ns: 0,
            resolution_ns: cfg.resolution.as_nanos() as u64,
            scheduled_total: total,
            clock_max_error_ns: cfg
                .clock_max_error_ns
                .or_else(crate::host::clock_max_error_ns),
            host: crate::host::name(),
        });
    }
    let holds = Arc::new(Holds::default());
    let (info_tx, info_rx) = std::sync::mpsc::channel();
    let collector =
        collector::spawn(sink, info_rx, infos, holds.clone()).map_err(EngineError::Runtime)?;
    let mut begin = Begin(Some((info, info_tx)));
    let paced = !cfg.unpaced();
    let cap = cfg.worker_cap().unwrap_or(u64::MAX);
    let initial = if paced {
        cfg.workers.clamp(1, cap)
    } else {
        cap
    };
    let duration = cfg.duration;
    let timeout = cfg.timeout;
    let resolution = cfg.resolution;
    // Collecting responses in step with the clock sleeps the thread that
    // polls the sockets: only on a current-thread runtime is that one thread.
    let in_step = !resolution.is_zero()
        && tokio::runtime::Handle::current().runtime_flavor()
            == tokio::runtime::RuntimeFlavor::CurrentThread;
    let start = if cfg.start_at_unix_ns.is_some() {
        start
    } else {
        Instant::now()
    };
    let sh = Arc::new(Shared {
        pacer,
        cfg,
        paced,
        start,
        cap,
        next: AtomicU64::new(0),
        claim_lock: Mutex::new(()),
        clock: Clock::new(resolution),
        sending: AtomicU64::new(0),
        // Counted before any starts, so early claims see the full initial pool.
        workers: AtomicU64::new(initial),
        stopping: StopSignal::new(),
        stopped: StopSignal::new(),
        reason: Mutex::new(None),
        target_error: Mutex::new(None),
        cancel: Cancel::default(),
        targets,
        transport,
        tx: Mutex::new(Some(collector.tx)),
        live,
        running: AtomicU64::new(0),
        all_done: tokio::sync::Notify::new(),
        first_sent: AtomicU64::new(u64::MAX),
        last_sent: AtomicU64::new(0),
        last_done: AtomicU64::new(0),
        max_lag: AtomicU64::new(0),
        canceled: AtomicU64::new(0),
        holds,
    });
    // -start-at: everything is made before the common instant, and the
    // workers wait for their first turns on their precise timers; what is
    // left to do at the instant is sending (on a machine with fewer CPUs
    // than a group has members, work done at the instant by one member
    // delays the others' start). The supervisor stamps the start then.
    // (Unpaced workers have no turns to wait for: they are started then.)
    let mut waiting = sh.cfg.start_at_unix_ns.is_some() && start > Instant::now();
    let mut unstarted = if waiting && !paced { initial } else { 0 };
    if !waiting {
        begin.now();
    }
    for _ in unstarted..initial {
        sh.spawn_counted();
    }
    let mut sleeper = crate::timer::PreciseSleep::new();
    let clock_task = (paced && !resolution.is_zero()).then(|| {
        let sh = sh.clone();
        tokio::spawn(async move { sh.clock.run(&sh.live, in_step, &sh.transport).await })
    });

    let far = start + Duration::from_secs(100 * 365 * 24 * 3600);
    let duration_end = tokio::time::sleep_until(duration.map_or(far, |d| start + d));
    let mut duration_end = std::pin::pin!(duration_end);
    let mut duration_armed = duration.is_some();
    let grace_end = tokio::time::sleep_until(far);
    let mut grace_end = std::pin::pin!(grace_end);
    let (mut interrupted, mut interrupt_at, mut cancel_sent) = (false, Duration::ZERO, false);
    loop {
        if sh.running.load(Ordering::Acquire) == 0 && unstarted == 0 {
            break;
        }
        tokio::select! {
            _ = sleeper.until(start), if waiting => {
                waiting = false;
                begin.now();
                for _ in 0..std::mem::take(&mut unstarted) {
                    sh.spawn_counted();
                }
            }
            _ = sh.all_done.notified() => continue,
            // A late request stopped waiting for a connection and is busy:
            // keep workers free for the schedule beside it.
            _ = sh.transport.waits_ended().notified(), if paced => {
                sh.keep_free(sh.sending.load(Ordering::Acquire));
            }
            _ = &mut shutdown, if !interrupted => {
                // An interrupt while waiting for -start-at ends the attack
                // before its first request.
                waiting = false;
                unstarted = 0;
                begin.now();
                interrupted = true;
                interrupt_at = start.elapsed();
                sh.stop(StopReason::Interrupted);
                // The interrupt signal: waiting workers give up their claims.
                sh.clock.abort();
                grace_end.as_mut().reset(Instant::now() + INTERRUPT_GRACE.min(timeout));
            }
            _ = &mut duration_end, if duration_armed => {
                duration_armed = false;
                sh.stop(StopReason::Duration);
            }
            _ = &mut grace_end, if interrupted && !cancel_sent => {
                cancel_sent = true;
                sh.cancel.fire();
            }
        }
    }
    begin.now();
    if let Some(t) = clock_task {
        t.abort();
        let _ = t.await;
    }
    // Every worker is gone: close the channel so the sink thread drains and finishes.
    drop(sh.tx.lock().expect("tx lock").take());
    let sink = match collector.done.await {
        Ok((Ok(()), sink)) => sink,
        Ok((Err(e), _)) => return Err(EngineError::Sink(e)),
        Err(_) => {
            return Err(EngineError::Sink(std::io::Error::other(
                "the results sink panicked",
            )));
        }
    };
    let summary = summarise(
        &sh,
        base,
        duration,
        interrupted,
        interrupt_at,
        start_unix_ns,
    );
    Ok((summary, sink))
}

#[cfg(test)]
mod tests {
    use super::*;
    use loadlab_core::Rate;
    use loadlab_core::pacer::ConstantPacer;

    #[test]
    fn unsent_counts_the_schedule_shortfall() {
        let p = ConstantPacer(Rate::per_second(100));
        let w = ScheduleSegment::WHOLE;
        // 1 s at 100/s schedules requests 0..=99.
        assert_eq!(unsent(&p, w, 100, Duration::from_secs(1), None), 0);
        assert_eq!(unsent(&p, w, 60, Duration::from_secs(1), None), 40);
        assert_eq!(unsent(&p, w, 0, Duration::from_secs(1), None), 100);
        assert_eq!(unsent(&p, w, 0, Duration::from_secs(1), Some(30)), 30);
        assert_eq!(unsent(&p, w, 0, Duration::from_secs(3600), None), 360_000);
        assert_eq!(unsent(&p, w, 10, Duration::ZERO, None), 0);
        // Segment 1 of 3 holds requests 1, 4, …, 97 of the first second: 33.
        let s = ScheduleSegment::new(1, 3).unwrap();
        assert_eq!(unsent(&p, s, 0, Duration::from_secs(1), None), 33);
        assert_eq!(unsent(&p, s, 30, Duration::from_secs(1), None), 3);
        assert_eq!(unsent(&p, s, 0, Duration::from_secs(1), Some(30)), 10);
    }
}
