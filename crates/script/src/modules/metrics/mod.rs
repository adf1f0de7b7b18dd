//! `k6/metrics`: custom `Counter`, `Gauge`, `Rate` and `Trend` metrics.

use std::rc::Rc;

use rquickjs::function::{Opt, This};
use rquickjs::{Ctx, Function, Object, Value};

use super::common::{js_pairs, throw};
use crate::js::vu;
use crate::registry::Kind;
use crate::state::run_state::RunState;

pub(crate) const NAME: &str = "k6/metrics";

pub(crate) const METRICS_JS: &str = include_str!("metrics.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["Counter", "Gauge", "Rate", "Trend"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: METRICS_JS,
    exports: Some(EXPORTS),
};

/// k6/metrics' natives: a metric defined, a value added.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    // Custom metrics.
    {
        let sh = shared.clone();
        k6.set(
            "metricNew",
            Function::new(
                ctx.clone(),
                move |ctx: Ctx<'js>,
                      name: String,
                      kind: String,
                      time: bool|
                      -> rquickjs::Result<f64> {
                    let kind = match kind.as_str() {
                        "counter" => Kind::Counter,
                        "gauge" => Kind::Gauge,
                        "rate" => Kind::Rate,
                        _ => Kind::Trend,
                    };
                    sh.define_metric(&name, kind, time)
                        .map(|i| i as f64)
                        .map_err(|e| throw(&ctx, &e))
                },
            )?,
        )?;
        let sh = shared.clone();
        k6.set(
            "metricAdd",
            Function::new(
                ctx.clone(),
                // `metric.add(value, tags)` itself (on the metrics'
                // prototype): `this` is the metric.
                move |ctx: Ctx<'js>,
                      this: This<Object<'js>>,
                      value: rquickjs::convert::Coerced<f64>,
                      tags: Opt<Value<'js>>|
                      -> rquickjs::Result<bool> {
                    let id: f64 = this.0.get("_id").map_err(|_| {
                        throw(
                            &ctx,
                            "add() must be called on a metric (new Trend(...).add(v))",
                        )
                    })?;
                    let value = value.0;
                    if !value.is_finite() {
                        return Err(throw(&ctx, "a metric value must be a finite number"));
                    }
                    sh.add_custom(
                        vu::current(),
                        id as usize,
                        value,
                        js_pairs(tags.0.as_ref()).into(),
                    );
                    Ok(true)
                },
            )?,
        )?;
    }
    Ok(())
}
