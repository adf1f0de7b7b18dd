//! The init context's globals (`__ENV`, `__VU`, `__ITER`, `console`,
//! `open()`) and the helpers on `__k6` every module's JavaScript uses
//! (`goError`, `goType`, `toBytes`).

use std::rc::Rc;

use rquickjs::function::{Opt, Rest};
use rquickjs::object::Accessor;
use rquickjs::{Ctx, Exception, Function, Object, Value};

use super::common::{k6_code, throw};
use crate::js::vu;
use crate::state::run_state::RunState;

mod console;

use console::display;

/// `__ITER` is on the global object only while the scenarios run, so the
/// init code, `setup()` and `teardown()` see no such variable: reading it
/// is a ReferenceError and `typeof __ITER` is `"undefined"`, as in k6.
/// `iterGlobal(on)` puts it there (the scheduler, when the scenarios start)
/// and takes it off (when they are over).
pub(crate) const ITER_GLOBAL_JS: &str = include_str!("iter.fn.js");

/// `__ENV`, `__VU` and `__ITER`, `console`, and the `__k6` helpers.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
    scenario_env: &[Vec<(String, String)>],
) -> rquickjs::Result<()> {
    if !shared.base_mode {
        // k6's default `extended` compatibility mode: `global` is the
        // global object, as in Node.
        ctx.globals().set("global", ctx.globals())?;
    }
    install_env(ctx, k6, shared, scenario_env)?;
    install_numbers(ctx, shared)?;
    install_console(ctx, shared)?;
    install_helpers(ctx, k6)
}

/// `__ENV`: each VU's own object, a copy of the common one.
pub(crate) fn install_env<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
    scenario_env: &[Vec<(String, String)>],
) -> rquickjs::Result<()> {
    let g = ctx.globals();
    // `__ENV`: each VU's own object (a script may change it), made on the
    // VU's first read as a copy of the common one (the values are shared
    // strings, so a copy costs a property array); a scenario's own `env`
    // goes over it when the VU first reads it in that scenario (a VU's
    // init code sees the common variables, as in k6).
    let env = Object::new(ctx.clone())?;
    for (k, v) in &shared.env {
        env.set(k.as_str(), v.as_str())?;
    }
    // The objects live on `__k6` (`envBase`, `envOwn[vu]`), where the
    // garbage collector sees them (a native function's captures are
    // hidden from it).
    k6.set("envBase", env)?;
    k6.set("envOwn", rquickjs::Array::new(ctx.clone())?)?;
    {
        let sh = shared.clone();
        let scenario_env = scenario_env.to_vec();
        // Per VU: whether its scenario's `env` is on its object.
        let overlaid: std::cell::RefCell<Vec<bool>> = Default::default();
        g.prop(
            "__ENV",
            Accessor::new_get(move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                let vu = vu::current();
                let k6: Object = ctx.globals().get("__k6")?;
                let own: rquickjs::Array = k6.get("envOwn")?;
                let o = match own.get::<Option<Object>>(vu)? {
                    Some(o) => o,
                    None => {
                        let base: Object = k6.get("envBase")?;
                        let o = Object::new(ctx.clone())?;
                        for k in base.keys::<rquickjs::Atom>() {
                            let k = k?;
                            o.set(k.clone(), base.get::<_, Value>(k)?)?;
                        }
                        own.set(vu, o.clone())?;
                        o
                    }
                };
                // Decided, and the borrow ended, before any property is
                // set (a setter a script put on Object.prototype could
                // read `__ENV` again).
                let overlay = {
                    let mut overlaid = overlaid.borrow_mut();
                    if overlaid.len() <= vu {
                        overlaid.resize(vu + 1, false);
                    }
                    let first = !overlaid[vu] && vu::in_vu();
                    overlaid[vu] |= first;
                    first
                };
                if overlay
                    && let Some(list) = sh.vu_scenario(vu).and_then(|si| scenario_env.get(si))
                {
                    for (k, v) in list {
                        o.set(k.as_str(), v.as_str())?;
                    }
                }
                Ok(o)
            })
            .configurable()
            .enumerable(),
        )?;
    }
    Ok(())
}

/// `__VU` and `__ITER`, read from the calling VU's numbers.
pub(crate) fn install_numbers<'js>(ctx: &Ctx<'js>, shared: &Rc<RunState>) -> rquickjs::Result<()> {
    let g = ctx.globals();
    // `__VU` (the VU's id) and `__ITER` (its iteration in its scenario;
    // as in k6, not defined outside iterations: in the init context,
    // `setup()` and `teardown()`).
    {
        let sh = shared.clone();
        g.prop(
            "__VU",
            Accessor::new_get(move || sh.vu_numbers(vu::current()).0 as f64)
                .configurable()
                .enumerable(),
        )?;
        let sh = shared.clone();
        g.prop(
            "__ITER",
            Accessor::new_get(move |ctx: Ctx<'js>| -> rquickjs::Result<f64> {
                let vu = vu::current();
                if vu == 0 || !vu::in_vu() {
                    return Err(Exception::throw_reference(&ctx, "__ITER is not defined"));
                }
                Ok(sh.vu_numbers(vu).2 as f64)
            })
            .configurable()
            .enumerable(),
        )?;
    }

    Ok(())
}

/// `console.log` and its levels, in the run's log.
pub(crate) fn install_console<'js>(ctx: &Ctx<'js>, shared: &Rc<RunState>) -> rquickjs::Result<()> {
    let g = ctx.globals();
    // console.*
    let console = Object::new(ctx.clone())?;
    for level in ["log", "info", "warn", "error", "debug"] {
        let sh = shared.clone();
        console.set(
            level,
            Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
                let mut line = String::new();
                for (i, a) in args.0.iter().enumerate() {
                    if i > 0 {
                        line.push(' ');
                    }
                    line.push_str(&display(&ctx, a));
                }
                sh.script_console(level, &line);
            })?,
        )?;
    }
    g.set("console", console)?;
    Ok(())
}

/// `goError`, `goType` and `toBytes` on `__k6`, and `iterGlobal`.
pub(crate) fn install_helpers<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    // k6's errors from Go code are `GoError`s (`GoError: boom`).
    k6.set(
        "goError",
        k6_code(
            ctx,
            "(m) => { const e = new Error(m); \
             Object.defineProperty(e, 'name', { value: 'GoError', writable: true, configurable: true }); \
             return e; }",
        )?,
    )?;
    // What k6 calls a value its Go code cannot take (Go's type names).
    k6.set(
        "goType",
        ctx.eval::<Function, _>(
            "(v) => v === null || v === undefined ? '<nil>' \
             : typeof v === 'number' ? (Number.isInteger(v) ? 'int64' : 'float64') \
             : typeof v === 'boolean' ? 'bool' \
             : typeof v === 'function' ? 'func(sobek.FunctionCall) sobek.Value' \
             : Array.isArray(v) ? '[]interface {}' : 'map[string]interface {}'",
        )?,
    )?;
    // Bytes as k6's Go code takes them: a string or an ArrayBuffer as it
    // is, a typed array's bytes as an ArrayBuffer; else k6's GoError.
    k6.set(
        "toBytes",
        k6_code(
            ctx,
            "(v) => { \
               if (typeof v === 'string' || v instanceof ArrayBuffer) return v; \
               if (ArrayBuffer.isView(v)) return v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength); \
               throw globalThis.__k6.goError(`invalid type ${globalThis.__k6.goType(v)}, expected string, []byte or ArrayBuffer`); }",
        )?,
    )?;
    k6_code(ctx, ITER_GLOBAL_JS)?.call::<_, ()>((k6.clone(),))?;
    k6_code(ctx, THROWN_JS)?.call::<_, ()>((k6.clone(),))?;
    Ok(())
}

/// `thrown`, which a marked `throw` calls (see `js::throw_sites`), and
/// `thrownSite`, the stack and place of the last throw of a value.
const THROWN_JS: &str = "(k) => { \
    const sites = new WeakMap(); let last = null; \
    const isObject = (v) => v !== null && (typeof v === 'object' || typeof v === 'function'); \
    k.thrown = (v, line, col) => { \
      if (v instanceof Error) return v; \
      const site = { stack: new Error().stack, line, col }; \
      if (isObject(v)) sites.set(v, site); else last = { v, site }; \
      return v; }; \
    k.thrownSite = (v) => isObject(v) ? sites.get(v) : (last !== null && Object.is(last.v, v) ? last.site : undefined); }";

/// `open(path[, "b"])`, in the init context only.
pub(crate) fn install_open<'js>(ctx: &Ctx<'js>, shared: &Rc<RunState>) -> rquickjs::Result<()> {
    let g = ctx.globals();
    // open(path[, "b"]): init context only, relative to the script.
    {
        let sh = shared.clone();
        g.set(
            "open",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      path: String,
                      mode: Opt<String>|
                      -> rquickjs::Result<Value<'js>> {
                    if vu::in_vu() {
                        return Err(throw(
                            &ctx,
                            "open() is only available in the init context (outside of functions)",
                        ));
                    }
                    let full = sh.script_dir.join(&path);
                    let data = std::fs::read(&full).map_err(|e| {
                        throw(
                            &ctx,
                            &format!("open({path:?}): cannot read {}: {e}", full.display()),
                        )
                    })?;
                    if mode.0.as_deref() == Some("b") {
                        Ok(rquickjs::ArrayBuffer::new(ctx.clone(), data)?.into_value())
                    } else {
                        Ok(rquickjs::String::from_str(
                            ctx.clone(),
                            &String::from_utf8_lossy(&data),
                        )?
                        .into_value())
                    }
                },
            )?,
        )?;
    }

    Ok(())
}
