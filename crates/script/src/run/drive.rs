//! The run loop: setup(), the scenarios' executors, teardown and the
//! summary.

use std::future::Future;
use std::rc::Rc;
use std::time::Duration;

use loadlab_engine::client::Client;
use rquickjs::{Function, Object, Value};
use tokio::time::Instant;

use crate::ScriptError;
use crate::config::Options;
use crate::executor::{ScenState, ScenarioExecutor, Step};
use crate::js::error::with_stack_end;
use crate::log::Level;

use crate::log::unix_now_ns;
use crate::run::config::*;
use crate::state::run_state::RunState;
use crate::state::run_state::*;
use crate::vus::sched::*;

pub(crate) async fn drive<'js>(
    shared: &Rc<RunState>,
    options: &Options,
    slots: &mut Vec<Slot<'js>>,
    client: &Rc<Client>,
    stop: &crate::StopSwitch,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Result<RunOutcome, ScriptError> {
    drive_local(shared, options, slots, client, stop, shutdown.as_mut()).await
}

pub(crate) async fn drive_local<'js>(
    shared: &Rc<RunState>,
    options: &Options,
    slots: &mut Vec<Slot<'js>>,
    client: &Rc<Client>,
    stop: &crate::StopSwitch,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Result<RunOutcome, ScriptError> {
    let mut s = Sched::new(shared, options, slots, client);
    s.stop = stop.clone();
    let mut interrupted = false;

    // setup()
    let has = |name: &str| -> bool {
        s.slots[0]
            .holder
            .get::<_, Object>("ns")
            .ok()
            .and_then(|ns| ns.get::<_, Function>(name).ok())
            .is_some()
    };
    let has_setup = has("setup") && !options.no_setup;
    let mut has_teardown = has("teardown") && !options.no_teardown;
    if has_setup {
        let r = run_special(&mut s, shutdown.as_mut(), options.setup_timeout, "setup").await;
        match r {
            Some(Ok(())) => {}
            Some(Err(e)) if e.starts_with(crate::vus::sched::TIMED_OUT) => {
                return Err(ScriptError::SetupTimeout(format!(
                    "setup() execution {e} (setupTimeout)"
                )));
            }
            Some(Err(e)) => return Err(ScriptError::Script(format!("setup() failed: {e}"))),
            None => {
                // No data for teardown: it does not run.
                interrupted = true;
                has_teardown = false;
            }
        }
    }
    share_setup_data(s.slots);

    // --start-at: the scenarios start on the common instant (a precise
    // timer: tokio's is 1 ms coarse). Ctrl-C while waiting ends the run.
    let t0 = start_instant(shared, &mut interrupted, shutdown.as_mut()).await;
    shared.out.borrow_mut().start(unix_now_ns());
    // `__ITER` exists while the scenarios run (api.rs, ITER_GLOBAL_JS).
    let ctx0 = s.slots[0].holder.ctx().clone();
    let iter_global = |on: bool| {
        let _ = crate::modules::common::k6_helper(&ctx0, "iterGlobal")
            .and_then(|f| f.call::<_, ()>((on,)));
    };
    iter_global(true);
    let (states, execs, aborted_by_threshold) =
        run_scenarios(&mut s, options, t0, &mut interrupted, shutdown.as_mut()).await;
    final_views(shared, options, &states, &execs);
    let test_elapsed = t0.elapsed();
    iter_global(false);
    // As in k6, teardown runs after Ctrl-C too (with the data setup gave).
    let mut teardown_failed = None;
    if has_teardown {
        match run_special(
            &mut s,
            shutdown.as_mut(),
            options.teardown_timeout,
            "teardown",
        )
        .await
        {
            Some(Err(e)) if e.starts_with(crate::vus::sched::TIMED_OUT) => {
                let msg = format!("teardown() execution {e} (teardownTimeout)");
                shared.log(Level::Error, &msg, &[]);
                teardown_failed = Some(TeardownFailure::Timeout(msg));
            }
            // k6's line for an exception in teardown().
            Some(Err(e)) => {
                let text = with_stack_end(e);
                shared.log(Level::Error, &text, &[("hint", "script exception")]);
                teardown_failed = Some(TeardownFailure::Exception(text));
            }
            None => interrupted = true,
            _ => {}
        }
    }
    // k6's warning for a test in which no iteration ended (not after a
    // stop: Ctrl-C, a threshold's abortOnFail, exec.test.abort).
    if !interrupted
        && !aborted_by_threshold
        && shared.abort.borrow().is_none()
        && shared.completed.get() == 0
    {
        shared.log(
            Level::Warning,
            "No script iterations fully finished, consider making the test duration longer",
            &[],
        );
    }
    let mut out = outcome(
        &s,
        shared,
        options,
        test_elapsed,
        interrupted,
        aborted_by_threshold,
    )?;
    out.teardown_failed = teardown_failed;
    Ok(out)
}

/// The scenarios from `t0` until they all end, a threshold aborts the test
/// (the last value is true), the script aborts it or Ctrl-C
/// (`interrupted`); the scenarios' states and executors as they ended.
async fn run_scenarios<'js>(
    s: &mut Sched<'_, 'js>,
    options: &Options,
    t0: Instant,
    interrupted: &mut bool,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> (Vec<ScenState>, Vec<Box<dyn ScenarioExecutor>>, bool) {
    let shared = s.shared;
    let (mut states, mut execs, next_vu) = scenarios(options, t0);
    s.hard_ends = states.iter().map(|st| st.hard_end).collect();
    let vus_max = (next_vu - 1) as f64;
    // k6 samples vus and vus_max each second from 1 s on (a test shorter
    // than a second has none).
    let mut next_gauge = t0 + Duration::from_secs(1);
    let mut next_threshold_check = t0 + Duration::from_secs(2);
    let mut aborted_by_threshold = false;
    let mut pending_done: Vec<(usize, Result<(), String>)> = Vec::new();
    if shared.progress {
        *shared.live.borrow_mut() = Some(crate::progress::Live::for_stdout());
    }
    // The live progress lines' next drawing.
    let mut next_progress = shared.live.borrow().as_ref().map(|l| t0 + l.every);
    // One timer for the loop, moved only when the next wake-up changes
    // (a timer made per loop turn cost more than the HTTP requests' own);
    // a timerfd, not tokio's timer (see `WakeTimer`).
    let mut timer = loadlab_engine::WakeTimer::new();
    // Wake-ups fall on a 1 ms grid from the test's start (as tokio's timer
    // wheel put them): sleeps that end within the same millisecond end in
    // one wake-up.
    let on_ms_grid = |t: Instant| {
        let ns = t.saturating_duration_since(t0).as_nanos();
        t0 + Duration::from_nanos((ns.div_ceil(1_000_000) * 1_000_000) as u64)
    };
    if !*interrupted {
        loop {
            // Ctrl-C stopped the VUs' JavaScript (the loop may not reach its
            // wait while iterations keep ending).
            if s.stop.take_request() {
                *interrupted = true;
                break;
            }
            s.expire_requests(Instant::now());
            s.poll_ready(&mut pending_done);
            let now = Instant::now();
            s.wake_sleepers(now, &mut pending_done);
            // Book iterations that ended.
            book_ended(s, options, &mut states, &mut execs, &mut pending_done);
            if now >= next_gauge {
                let active = shared.active.get() as f64;
                shared.add_named("vus", active, shared.base_tags.clone(), true);
                shared.add_named("vus_max", vus_max, shared.base_tags.clone(), true);
                shared.out.borrow_mut().flush();
                super::live::tick(shared, options);
                next_gauge = now + Duration::from_secs(1);
            }
            shared.rw_push_due(now);
            if now >= next_threshold_check {
                next_threshold_check = now + Duration::from_secs(2);
                if crate::thresholds::eval::abort_failed(
                    &shared.reg.borrow(),
                    options,
                    shared.start.elapsed(),
                ) {
                    aborted_by_threshold = true;
                    break;
                }
            }
            if shared.abort.borrow().is_some() {
                break;
            }
            // Executors.
            let mut wake = next_gauge.min(next_threshold_check);
            let mut all_done = step_scenarios(
                s,
                options,
                &mut states,
                &mut execs,
                &mut pending_done,
                now,
                t0,
                &mut wake,
            );
            // A scenario may have ended in this very pass.
            all_done = all_done || states.iter().all(|st| st.done);
            if all_done && pending_done.is_empty() {
                break;
            }
            // The live progress lines (drawn under load too).
            if let Some(at) = next_progress {
                next_progress = Some(draw_progress(
                    shared, options, &states, &execs, now, t0, at, &mut wake,
                ));
            }
            if !pending_done.is_empty() || s.has_ready() {
                continue;
            }
            wake = wake.min(next_gauge).min(next_threshold_check);
            if let Some(t) = shared.rw_next() {
                wake = wake.min(t);
            }
            if let Some(t) = s.next_wake() {
                wake = wake.min(t);
            }
            timer.set(on_ms_grid(wake));
            // Wait for an answer, the next schedule point, or Ctrl-C.
            tokio::select! {
                // Polled at the top of the loop.
                _ = s.wait_ready() => {}
                _ = timer.fired() => {}
                _ = shutdown.as_mut() => {
                    *interrupted = true;
                    break;
                }
            }
        }
        end_iterations(s, options, &mut pending_done);
    }
    (states, execs, aborted_by_threshold)
}

/// Books the iterations that ended in the loop's last pass; whatever still
/// runs (Ctrl-C, abort) is interrupted.
fn end_iterations(
    s: &mut Sched<'_, '_>,
    options: &Options,
    pending_done: &mut Vec<(usize, Result<(), String>)>,
) {
    for (i, r) in pending_done.drain(..) {
        let sc = s.slots[i].scenario;
        let arrival = options.scenarios[sc].executor.is_arrival_rate();
        s.finished(i, r, arrival);
    }
    for i in 1..s.slots.len() {
        if s.slots[i].busy {
            s.abort(i);
        }
    }
}

/// The data setup() returned, as JSON, to every VU.
fn share_setup_data(slots: &[Slot<'_>]) {
    let data_json = {
        let ctx = slots[0].holder.ctx();
        let v: Value = slots[0]
            .holder
            .get("result")
            .unwrap_or_else(|_| Value::new_undefined(ctx.clone()));
        if v.is_undefined() {
            None
        } else {
            ctx.json_stringify(v)
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
        }
    };
    for slot in slots.iter() {
        let data = match &data_json {
            Some(j) => slot.holder.ctx().json_parse(j.clone()).ok(),
            None => None,
        };
        if let Some(d) = data {
            slot.holder.set("data", d).ok();
        }
    }
}

/// A started scenario past its end is done once its iterations ended,
/// or at its graceful stop's deadline (those still running are stopped);
/// until then the loop wakes for its end or that deadline.
fn end_scenario(st: &mut ScenState, s: &mut Sched<'_, '_>, now: Instant, wake: &mut Instant) {
    if now >= st.end {
        if st.busy == 0 {
            st.done = true;
            st.finished_at = Some(now);
        } else if now >= st.hard_end {
            let busy: Vec<usize> = st.vus.clone().filter(|&i| s.slots[i].busy).collect();
            for i in busy {
                s.abort(i);
            }
            st.busy = 0;
            st.done = true;
            st.finished_at = Some(now);
        } else {
            *wake = (*wake).min(st.hard_end);
        }
    } else {
        *wake = (*wake).min(st.end);
    }
}

/// The scenarios as the test ended, for the summary's last lines: one
/// cut short (Ctrl-C, an abort) shows where it was; one over without all
/// its work done (iterations left at its maxDuration) is interrupted too,
/// as in k6.
fn final_views(
    shared: &RunState,
    options: &Options,
    states: &[ScenState],
    execs: &[Box<dyn ScenarioExecutor>],
) {
    let now = Instant::now();
    let views = options
        .scenarios
        .iter()
        .zip(states)
        .zip(execs)
        .map(|((sc, st), ex)| {
            use crate::progress::Status;
            let mut v = st.view(sc, ex.as_ref(), now);
            // Every VU has returned (k6 counts none active now).
            v.level = 0;
            v.running = 0;
            let unfinished = match v.status {
                Status::Done => crate::progress::bar(sc, &v).progress < 1.0,
                Status::Waiting => false,
                _ => true,
            };
            if unfinished {
                v.status = Status::Interrupted;
            }
            v
        })
        .collect();
    *shared.views.borrow_mut() = views;
    if let Some(live) = shared.live.borrow_mut().as_mut() {
        live.finish();
    }
    *shared.live.borrow_mut() = None;
}

/// The end of the run: the outputs' last push, the summary, the outcome.
fn outcome(
    s: &Sched<'_, '_>,
    shared: &RunState,
    options: &Options,
    test_elapsed: Duration,
    interrupted: bool,
    aborted_by_threshold: bool,
) -> Result<RunOutcome, ScriptError> {
    // The remote-write output's last push, after teardown (as k6 stops
    // its outputs).
    shared.rw_finish();
    let script_errors = s.script_errors;
    super::live::finish(shared, options, test_elapsed);
    js_wait_line(shared, s.js_wait);
    let mut summary = crate::summary::render(shared, options, test_elapsed);
    if options.summary_disabled {
        // `--summary-mode=disabled`: thresholds still judge the run; the
        // last progress lines still show (as in k6).
        summary.0 = crate::summary::last_block(shared, options, test_elapsed);
    } else if let Some(text) =
        crate::summary::handle_summary(s.slots[0].holder.ctx(), shared, options, test_elapsed)
    {
        // The script's handleSummary(data), when it has one, replaces the
        // default summary (as in k6), above the last progress lines.
        summary.0 = text + &crate::summary::last_block(shared, options, test_elapsed);
    } else if options.summary_legacy {
        // `--summary-mode=legacy`: k6's layout before v1, from the
        // summary's data, above the last progress lines.
        let text =
            crate::summary::legacy_text(s.slots[0].holder.ctx(), shared, options, test_elapsed);
        summary.0 = text + &crate::summary::last_block(shared, options, test_elapsed);
    }
    let thresholds_crossed = std::mem::take(&mut summary.1);
    let thresholds_failed = !thresholds_crossed.is_empty();
    let export = crate::summary::export_json(shared, options, test_elapsed);
    shared.out.borrow_mut().finish(export)?;
    let reg = shared.reg.borrow();
    let count = |name: &str| {
        reg.metric(name)
            .map(|m| match reg.merged(m, &[]) {
                crate::registry::Agg::Counter { sum, .. } => sum as u64,
                _ => 0,
            })
            .unwrap_or(0)
    };
    Ok(RunOutcome {
        summary: summary.0,
        thresholds_failed,
        thresholds_crossed,
        interrupted,
        aborted_by_threshold,
        aborted: shared.abort.borrow().clone(),
        teardown_failed: None,
        iterations: count("iterations"),
        script_errors,
        http_reqs: count("http_reqs"),
        js_heap_bytes: shared.js_heap.get(),
        vus_initialised: s.slots.len() as u64,
        metric_series: reg.kept() as u64,
    })
}

/// When the scenarios start: now, or `--start-at`'s instant (waited for;
/// Ctrl-C while waiting sets `interrupted`).
async fn start_instant(
    shared: &RunState,
    interrupted: &mut bool,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Instant {
    if shared.start_at {
        let at = shared.start;
        if !*interrupted && at > Instant::now() {
            let mut sleeper = loadlab_engine::PreciseSleep::new();
            tokio::select! {
                _ = sleeper.until(at) => {}
                _ = shutdown.as_mut() => *interrupted = true,
            }
        }
        let late = Instant::now().saturating_duration_since(at);
        if late > Duration::from_secs(1) && !*interrupted {
            shared.log(
                Level::Warning,
                &format!(
                    "the scenarios start {} after --start-at (init and setup() took longer than the time left): iterations already due start at once or are dropped; give the workers more time",
                    loadlab_core::format_go_duration(Duration::from_millis(
                        late.as_millis() as u64
                    ))
                ),
                &[],
            );
        }
        at
    } else {
        Instant::now()
    }
}

/// Each scenario's state and executor; the next VU's index after them.
fn scenarios(
    options: &Options,
    t0: Instant,
) -> (Vec<ScenState>, Vec<Box<dyn ScenarioExecutor>>, usize) {
    let mut states = Vec::new();
    let mut execs = Vec::new();
    let mut next_vu = 1usize;
    for sc in &options.scenarios {
        let n = sc.executor.max_vus() as usize;
        let start = t0 + sc.start_time;
        let end = start + sc.executor.duration();
        states.push(ScenState {
            start,
            end,
            hard_end: end + sc.graceful_stop,
            done: false,
            vus: next_vu..next_vu + n,
            busy: 0,
            active_want: 0,
            iters_done: 0,
            finished_at: None,
        });
        execs.push(crate::executor::for_scenario(sc, next_vu..next_vu + n));
        next_vu += n;
    }
    (states, execs, next_vu)
}

/// Asks each started scenario's executor to start what is due; returns
/// true when every scenario was done already.
#[allow(clippy::too_many_arguments)]
fn step_scenarios(
    s: &mut Sched<'_, '_>,
    options: &Options,
    states: &mut [ScenState],
    execs: &mut [Box<dyn ScenarioExecutor>],
    pending_done: &mut Vec<(usize, Result<(), String>)>,
    now: Instant,
    t0: Instant,
    wake: &mut Instant,
) -> bool {
    let mut all_done = true;
    for (si, sc) in options.scenarios.iter().enumerate() {
        let st = &mut states[si];
        if st.done {
            continue;
        }
        all_done = false;
        if now < st.start {
            *wake = (*wake).min(st.start);
            continue;
        }
        let mut step = Step {
            s,
            now,
            t0,
            wake: *wake,
            pending_done,
        };
        execs[si].step(sc, st, &mut step);
        *wake = step.wake;
        end_scenario(st, s, now, wake);
    }
    all_done
}

/// Draws the live progress lines if their drawing `at` is due; returns
/// the next drawing's instant.
#[allow(clippy::too_many_arguments)]
fn draw_progress(
    shared: &RunState,
    options: &Options,
    states: &[ScenState],
    execs: &[Box<dyn ScenarioExecutor>],
    now: Instant,
    t0: Instant,
    at: Instant,
    wake: &mut Instant,
) -> Instant {
    if now >= at {
        let views: Vec<_> = options
            .scenarios
            .iter()
            .zip(states)
            .zip(execs)
            .map(|((sc, st), ex)| st.view(sc, ex.as_ref(), now))
            .collect();
        let (head, bars) = progress_block(shared, options, &views, now - t0);
        if let Some(live) = shared.live.borrow_mut().as_mut() {
            live.draw(&head, &bars);
        }
        *shared.views.borrow_mut() = views;
    }
    let every = shared
        .live
        .borrow()
        .as_ref()
        .map_or(Duration::from_secs(1), |l| l.every);
    // On the clock's grid from the test's start (1.0s, 2.0s, …).
    let n = (now.saturating_duration_since(t0).as_nanos() / every.as_nanos()) as u32 + 1;
    *wake = (*wake).min(t0 + every * n);
    t0 + every * n
}

/// Books the iterations that ended, and tells their executors.
fn book_ended(
    s: &mut Sched<'_, '_>,
    options: &Options,
    states: &mut [ScenState],
    execs: &mut [Box<dyn ScenarioExecutor>],
    pending_done: &mut Vec<(usize, Result<(), String>)>,
) {
    for (i, r) in pending_done.drain(..) {
        let sc = s.slots[i].scenario;
        let ex = &options.scenarios[sc].executor;
        let arrival = ex.is_arrival_rate();
        s.finished(i, r, arrival);
        let st = &mut states[sc];
        st.busy = st.busy.saturating_sub(1);
        st.iters_done += 1;
        execs[sc].iteration_ended(i, s.slots[i].iters);
    }
}

/// The VUs' wait for the JS thread, as a warning when it was long enough
/// to bend the test's timing (a sleep ended 100 ms late or more): one VU's
/// long synchronous JavaScript holds every other VU (see docs/k6.md).
fn js_wait_line(shared: &RunState, (total, longest): (Duration, Duration)) {
    if longest < Duration::from_millis(100) {
        return;
    }
    shared.log(
        Level::Warning,
        &format!(
            "VUs waited {:.1}s in all for the JS thread (the longest wait {}ms): \
             long synchronous JavaScript in one VU delays the others' sleeps and requests",
            total.as_secs_f64(),
            longest.as_millis()
        ),
        &[],
    );
}
