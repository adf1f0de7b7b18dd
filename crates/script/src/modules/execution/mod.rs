//! `k6/execution`: the VU, scenario, instance and test as the script
//! sees them, and `test.abort()`.

use std::rc::Rc;

use rquickjs::{Ctx, Function, Object, Value};

mod test_options;

use super::common::throw;
use crate::js::vu;
use crate::state::run_state::RunState;

pub(crate) const NAME: &str = "k6/execution";

pub(crate) const EXECUTION_JS: &str = include_str!("execution.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["vu", "scenario", "instance", "test"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: EXECUTION_JS,
    exports: Some(EXPORTS),
};

/// k6/execution's natives: the VU's, scenario's, instance's and test's
/// numbers, the VU's tags, and `test.abort()`.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    // k6/execution
    {
        let sh = shared.clone();
        k6.set(
            "vuTag",
            Function::new(ctx.clone(), move |name: String, value: Option<String>| {
                sh.set_vu_tag(vu::current(), &name, value);
            })?,
        )?;
    }
    {
        let sh = shared.clone();
        k6.set(
            "execVu",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let vu = vu::current();
                    let (id, iter_inst, iter_scen) = sh.vu_numbers(vu);
                    let o = Object::new(ctx.clone())?;
                    o.set("idInInstance", id as f64)?;
                    o.set("idInTest", id as f64)?;
                    o.set("iterationInInstance", iter_inst as f64)?;
                    o.set("iterationInScenario", iter_scen as f64)?;
                    let tags = Object::new(ctx.clone())?;
                    for (k, v) in sh.vu_tags(vu) {
                        tags.set(k, v)?;
                    }
                    o.set("tags", tags.clone())?;
                    let m = Object::new(ctx.clone())?;
                    m.set("tags", tags)?;
                    // Metadata does not split series; kept for the script.
                    m.set("metadata", Object::new(ctx.clone())?)?;
                    o.set("metrics", m)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execScenario",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let info = sh.scenario_info(vu::current());
                    let o = Object::new(ctx.clone())?;
                    o.set("name", info.name)?;
                    o.set("executor", info.executor)?;
                    o.set("startTime", info.start_unix_ms)?;
                    o.set("progress", info.progress)?;
                    o.set("iterationInInstance", info.iteration as f64)?;
                    o.set("iterationInTest", info.in_test as f64)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execInstance",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> {
                    let o = Object::new(ctx.clone())?;
                    let (done, interrupted, active, init, elapsed) = sh.instance_info();
                    o.set("iterationsCompleted", done as f64)?;
                    o.set("iterationsInterrupted", interrupted as f64)?;
                    o.set("vusActive", active as f64)?;
                    o.set("vusInitialized", init as f64)?;
                    o.set("currentTestRunDuration", elapsed)?;
                    Ok(o)
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "execOptions",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>| -> rquickjs::Result<Value<'js>> {
                    let raw = serde_json::from_str(&sh.options_json).unwrap_or_default();
                    ctx.json_parse(test_options::k6_test_options(&raw))
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "abort",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>, msg: String| -> rquickjs::Result<()> {
                    sh.request_abort(&msg);
                    Err(throw(&ctx, &format!("test aborted: {msg}")))
                },
            )?,
        )?;
    }
    Ok(())
}
