//! `k6/secrets`: `get(key)` and `source(name).get(key)`, promises of the
//! values `--secret-source` configures ([`crate::secret_sources`]). A value a script has
//! read is redacted from every log line after (`***SECRET_REDACTED***`,
//! as k6 does), on every log output and in `--console-output`.

use std::rc::Rc;

use rquickjs::{Ctx, Function, Object, Value};

use crate::state::run_state::RunState;

pub(crate) const NAME: &str = "k6/secrets";

pub(crate) const SECRETS_JS: &str = include_str!("secrets.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["get", "source"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: SECRETS_JS,
    exports: Some(EXPORTS),
};

/// `secretGet(source, key)`: `{ok: true, value}` or `{ok: false, error}`
/// (the promise's rejection, k6's text).
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    let st = shared.clone();
    k6.set(
        "secretGet",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  source: Option<String>,
                  key: String|
                  -> rquickjs::Result<Value<'js>> {
                let r = Object::new(ctx.clone())?;
                match st.secrets.get(source.as_deref(), &key) {
                    Ok(v) => {
                        st.logger.redact(v);
                        r.set("ok", true)?;
                        r.set("value", v)?;
                    }
                    Err(e) => {
                        r.set("ok", false)?;
                        r.set("error", e)?;
                    }
                }
                Ok(r.into_value())
            },
        )?,
    )?;
    Ok(())
}
