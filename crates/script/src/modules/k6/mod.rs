//! `k6`: `check`, `group`, `sleep`, `fail`.

use std::rc::Rc;
use std::time::Duration;

use rquickjs::function::Opt;
use rquickjs::{Ctx, Exception, Function, Object, Value};

use super::common::{js_pairs, throw, truthy, wait};
use crate::js::vu::{self, Op};
use crate::state::run_state::RunState;

pub(crate) const NAME: &str = "k6";

pub(crate) const K6_JS: &str = include_str!("k6.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["check", "group", "sleep", "fail", "randomSeed"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: K6_JS,
    exports: Some(EXPORTS),
};

/// The `k6` module's natives: `check`, `group` and `sleep`.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    // check(name, pass, tags)
    // check(val, sets, tags): each of `sets`' own enumerable names in
    // order (as `Object.keys`), its function called with `val` (or its
    // value taken), the outcome's truth recorded; true when all passed.
    // An exception in a function ends the check there, as in k6.
    {
        let sh = shared.clone();
        k6.set(
            "check",
            Function::new(
                ctx.clone(),
                move |val: Value<'js>,
                      sets: Opt<Value<'js>>,
                      tags: Opt<Value<'js>>|
                      -> rquickjs::Result<bool> {
                    let Some(sets) = sets.0.as_ref().and_then(|v| v.as_object()) else {
                        return Ok(true);
                    };
                    let tags = js_pairs(tags.0.as_ref());
                    let mut all = true;
                    for entry in sets.props::<String, Value>() {
                        let (name, f) = entry?;
                        let outcome = match f.as_function() {
                            Some(f) => f.call::<_, Value>((val.clone(),))?,
                            None => f,
                        };
                        let pass = truthy(&outcome);
                        // The function may have waited: the VU is the
                        // caller still (restored on resume).
                        sh.check(vu::current(), &name, pass, tags.clone().into());
                        all &= pass;
                    }
                    Ok(all)
                },
            )?,
        )?;
    }
    // group(name, fn): the group around the call of `fn`.
    {
        let sh = shared.clone();
        k6.set(
            "group",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      name: rquickjs::convert::Coerced<String>,
                      f: Value<'js>|
                      -> rquickjs::Result<Value<'js>> {
                    let name = name.0;
                    if name.contains("::") {
                        return Err(throw(&ctx, "group and check names may not contain '::'"));
                    }
                    let Some(f) = f.as_function() else {
                        return Err(Exception::throw_type(
                            &ctx,
                            "group(name, fn): fn is not a function",
                        ));
                    };
                    let token = sh.group_enter(vu::current(), &name);
                    let r = f.call::<_, Value>(());
                    // Whether `fn` returned or threw (or the VU was
                    // stopped while it waited): the group ends here.
                    sh.group_exit(vu::current(), token);
                    r
                },
            )?,
        )?;
    }
    // sleep(seconds)
    k6.set(
        "sleep",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, secs: rquickjs::convert::Coerced<f64>| -> rquickjs::Result<()> {
                let secs = secs.0;
                let d = if secs.is_finite() && secs > 0.0 {
                    Duration::from_secs_f64(secs)
                } else {
                    Duration::ZERO
                };
                wait(&ctx, Op::Sleep(d), "sleep()")?;
                Ok(())
            },
        )?,
    )?;
    Ok(())
}
