//! A VU's instance of the script's module, and a call of one of its
//! exported functions through k6's event loop.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use tokio::time::Instant;

use rquickjs::{Ctx, Function, Object, Value};

use super::error::{exception_text, syntax_text};
use super::loader::declare_cached;
use super::vu::{self, Op, VuCoroutine};
use crate::ScriptError;

thread_local! {
    /// Timers set and not yet fired or cleared, and `http.asyncRequest`s
    /// not yet sent, of all VUs: while 0, an iteration that returns no
    /// promise ends at once (no event loop).
    pub static TIMERS_LIVE: Cell<i64> = const { Cell::new(0) };
}

pub use super::runtime::k6_helper;

/// Evaluates VU `vu_index`'s own instance of the script's module in the
/// run's context (each VU reads the module's bytecode: its top-level
/// variables are its own, as in k6) and returns the VU's holder, whose
/// `ns` is the module's namespace. VU 0's is also the global `__k6_ns`
/// (`handleSummary`).
pub(crate) fn init_vu<'js>(
    ctx: &Ctx<'js>,
    vu_index: usize,
    name: &str,
    source: &str,
    code: &RefCell<Option<Vec<u8>>>,
) -> Result<Object<'js>, ScriptError> {
    vu::on_main_stack();
    vu::set_current(vu_index);
    let m = declare_cached(ctx, code, name, source).map_err(|e| syntax_text(ctx, e, name));
    let evaluated = m.and_then(|m| {
        let (m, promise) = m.eval().map_err(|e| syntax_text(ctx, e, name))?;
        promise
            .finish::<()>()
            .map_err(|e| syntax_text(ctx, e, name))?;
        // The promise jobs the init code queued run before the VU's
        // first iteration, as k6's event loop runs them at init's end.
        while ctx.execute_pending_job() {}
        m.namespace().map_err(|e| syntax_text(ctx, e, name))
    });
    vu::set_current(0);
    let ns = evaluated?;
    let runtime = |e: rquickjs::Error| ScriptError::Runtime(e.to_string());
    let holder = Object::new(ctx.clone()).map_err(runtime)?;
    holder.set("ns", ns.clone()).map_err(runtime)?;
    if vu_index == 0 {
        ctx.globals().set("__k6_ns", ns).map_err(runtime)?;
    }
    Ok(holder)
}

/// Calls the exported function `exec` with the setup data.
pub(crate) fn call_exec<'js>(
    ctx: &Ctx<'js>,
    holder: &Object<'js>,
    exec: &str,
    with_data: bool,
    keep_result: bool,
) -> Result<(), String> {
    let g = holder;
    let ns: Object = g.get("ns").map_err(|e| e.to_string())?;
    let f: Function = ns
        .get(exec)
        .map_err(|_| format!("the script exports no function {exec:?}"))?;
    let data: Value = if with_data {
        g.get("data")
            .unwrap_or_else(|_| Value::new_undefined(ctx.clone()))
    } else {
        Value::new_undefined(ctx.clone())
    };
    let r: Result<Value, _> = f.call((data,));
    let out = match r {
        Ok(v) => event_loop(ctx, v),
        Err(e) => Err(exception_text(ctx, e)),
    };
    // Whatever timers the VU still has die with the iteration (an
    // exception, a stop).
    if TIMERS_LIVE.with(Cell::get) > 0
        && let Ok(drop) = k6_helper(ctx, "timersDrop")
    {
        let _ = drop.call::<_, ()>(());
    }
    let v = out?;
    if keep_result {
        g.set("result", v).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// How k6 begins the error of a promise nobody caught (an async default
/// function that throws): its log line then has no `source=stacktrace`.
pub const IN_PROMISE: &str = "Uncaught (in promise) ";

/// The text of a rejected promise's reason, as k6 logs it:
/// `Uncaught (in promise) boom`, `Uncaught (in promise) Error: bad\n\tat …`.
fn rejected_text(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    let text = super::error::rejection_text(ctx, e);
    format!(
        "{IN_PROMISE}{}",
        text.strip_prefix("Uncaught ").unwrap_or(&text)
    )
}

/// k6's event loop for an iteration that returned `v`: runs the promise
/// jobs, then the VU's timers as they fall due (waiting for each), until
/// `v` (when a promise) has settled and the VU has no timer left. Returns
/// what the promise gave (or `v`).
pub(crate) fn event_loop<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> Result<Value<'js>, String> {
    let promise = v.as_promise().cloned();
    if promise.is_none() && TIMERS_LIVE.with(Cell::get) == 0 {
        return Ok(v);
    }
    let mut step: Option<Function<'js>> = None;
    loop {
        while ctx.execute_pending_job() {}
        if let Some(p) = &promise
            && p.state() == rquickjs::promise::PromiseState::Rejected
        {
            let e = p.result::<Value>().map(|r| r.map(|_| ())).unwrap_or(Ok(()));
            return Err(match e {
                Err(e) => rejected_text(ctx, e),
                Ok(()) => format!("{IN_PROMISE}the iteration's promise was rejected"),
            });
        }
        let fired = if TIMERS_LIVE.with(Cell::get) > 0 {
            if step.is_none() {
                step = Some(k6_helper(ctx, "timerStep").map_err(|e| e.to_string())?);
            }
            let f = step.as_ref().expect("just set");
            f.call::<_, bool>(()).map_err(|e| exception_text(ctx, e))?
        } else {
            false
        };
        if fired {
            continue;
        }
        return match &promise {
            None => Ok(v),
            Some(p) => match p.result::<Value>() {
                Some(r) => r.map_err(|e| rejected_text(ctx, e)),
                None => Err(
                    "the iteration's promise never settles: no timer or request of the VU \
                     is left to settle it"
                        .into(),
                ),
            },
        };
    }
}

/// VU `vu_index`'s coroutine: each start calls `exec` (`setup` and
/// `teardown` for VU 0, by its holder's `phase`), then waits out
/// `minIterationDuration`, noting in `exec_end` when the function
/// returned.
pub(crate) fn vu_coroutine<'js>(
    holder: Object<'js>,
    vu_index: usize,
    exec: &str,
    min_iteration: Option<Duration>,
    exec_end: Rc<Cell<Option<Instant>>>,
) -> std::io::Result<VuCoroutine> {
    let c = holder.ctx().clone();
    let h = holder.clone();
    let exec = exec.to_string();
    let end = exec_end;
    // SAFETY: the coroutine borrows `c` (the run's context); `run` drives
    // every coroutine to its end before the context goes away.
    unsafe {
        vu::spawn(vu_index, move || match exec.as_str() {
            "setup" => {
                let phase: String = h.get("phase").unwrap_or_default();
                if phase == "teardown" {
                    call_exec(&c, &h, "teardown", true, false)
                } else {
                    call_exec(&c, &h, "setup", false, true)
                }
            }
            _ => {
                let t0 = std::time::Instant::now();
                let r = call_exec(&c, &h, &exec, true, false);
                // `minIterationDuration`: a shorter iteration (whatever its
                // end) waits out the rest, as in k6, unless it was stopped.
                if let Some(min) = min_iteration
                    && !vu::ABORTING.with(Cell::get)
                {
                    let spent = t0.elapsed();
                    if spent < min {
                        end.set(Some(Instant::now()));
                        let _ = vu::suspend(Op::Sleep(min - spent));
                    }
                }
                r
            }
        })
    }
}
