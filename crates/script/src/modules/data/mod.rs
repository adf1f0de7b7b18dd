//! `k6/data`: `SharedArray`.

use rquickjs::{Ctx, Function, Object};

use crate::js::vu;

pub(crate) const NAME: &str = "k6/data";

pub(crate) const DATA_JS: &str = include_str!("data.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["SharedArray"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: DATA_JS,
    exports: Some(EXPORTS),
};

/// k6/data's native: whether the caller is in the init context.
pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    // True outside any VU's iteration (k6's init context).
    k6.set("inInit", Function::new(ctx.clone(), || !vu::in_vu())?)?;
    Ok(())
}
