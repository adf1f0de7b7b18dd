//! `k6/timers`, and the globals of the same names: each VU's timers, and
//! the event loop `http.asyncRequest` and `k6/websockets` turn on.

use std::rc::Rc;

use rquickjs::{Ctx, Function, Object};

use super::common::k6_code;
use crate::js::exec::TIMERS_LIVE;
use crate::js::vu;
use crate::log::Level;
use crate::state::run_state::RunState;

pub(crate) const NAME: &str = "k6/timers";

pub(crate) const TIMERS_JS: &str = include_str!("timers.js");

/// What the module exports.
pub(crate) const EXPORTS: &[&str] = &["setTimeout", "clearTimeout", "setInterval", "clearInterval"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: TIMERS_JS,
    exports: Some(EXPORTS),
};

/// k6's timers (globals, and the `k6/timers` module): each VU's own, kept
/// here by VU; `call_exec` (sched.rs) runs a VU's due callbacks through
/// `__k6.timerStep` until the iteration's promise has settled and no timer
/// of the VU is left, as k6's event loop does.
pub(crate) const TIMERS_GLOBAL_JS: &str = include_str!("global.fn.js");

/// The natives the timers' JavaScript needs, then the globals.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    k6.set(
        "vuIndex",
        // An integer: the VU's index into the per-VU arrays of the timers,
        // async requests and sockets (global.fn.js, modules/websockets).
        Function::new(ctx.clone(), || {
            i32::try_from(vu::current()).unwrap_or(i32::MAX)
        })?,
    )?;
    {
        let origin = std::time::Instant::now();
        k6.set(
            "clock",
            Function::new(ctx.clone(), move || origin.elapsed().as_secs_f64() * 1000.0)?,
        )?;
    }
    k6.set(
        "timersLive",
        Function::new(ctx.clone(), |d: f64| {
            TIMERS_LIVE.with(|n| n.set(n.get() + d as i64));
        })?,
    )?;
    {
        // A warning in the run's log, as k6's own (no `source`).
        let sh = shared.clone();
        k6.set(
            "warn",
            Function::new(ctx.clone(), move |text: String| {
                sh.log(Level::Warning, &text, &[]);
            })?,
        )?;
    }
    k6_code(ctx, TIMERS_GLOBAL_JS)?.call::<_, ()>((k6.clone(),))?;
    Ok(())
}
