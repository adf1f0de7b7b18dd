//! `handleSummary()`: the script's own summary, and the files it names.

use std::time::Duration;

use super::export::*;
use crate::config::Options;
use crate::state::run_state::RunState;

/// Calls the script's exported `handleSummary(data)`, if it has one, and
/// writes what it returns: `stdout` (returned, printed instead of the
/// default summary), `stderr`, and any other key as a file path (relative
/// to the working directory). `None` when the script has no handleSummary
/// or it failed (said on stderr): the default summary is printed then, as
/// k6 does.
pub fn handle_summary(
    ctx: &rquickjs::Ctx<'_>,
    shared: &RunState,
    options: &Options,
    elapsed: Duration,
) -> Option<String> {
    use rquickjs::{Function, Object, Value};
    let ns: Object = ctx.globals().get("__k6_ns").ok()?;
    let f: Function = ns.get::<_, Value>("handleSummary").ok()?.into_function()?;
    let data = summary_data(shared, options, elapsed);
    // k6's line for an exception in handleSummary(); the default summary
    // follows.
    let fail = |what: String| {
        shared.log(
            crate::log::Level::Error,
            &format!("handleSummary() failed: {what}; the default summary follows"),
            &[("hint", "script exception")],
        );
        None
    };
    let caught = |e: rquickjs::Error| -> String {
        if let rquickjs::Error::Exception = e {
            let v = ctx.catch();
            if let Some(ex) = v.as_exception() {
                return ex.message().unwrap_or_default();
            }
            return format!("{v:?}");
        }
        e.to_string()
    };
    let arg = match ctx.json_parse(data.to_string()) {
        Ok(v) => v,
        Err(e) => return fail(caught(e)),
    };
    crate::js::vu::on_main_stack();
    let v: Value = match f.call((arg,)) {
        Ok(v) => v,
        Err(e) => return fail(caught(e)),
    };
    let v = match v.as_promise() {
        Some(p) => match p.finish::<Value>() {
            Ok(v) => v,
            Err(e) => return fail(caught(e)),
        },
        None => v,
    };
    let Some(o) = v.as_object() else {
        return fail(
            "it must return an object such as { stdout: '…', 'summary.json': '…' }".into(),
        );
    };
    let mut stdout = String::new();
    for (key, val) in o.props::<String, Value>().flatten() {
        let bytes: Vec<u8> = if let Some(s) = val.as_string() {
            s.to_string().unwrap_or_default().into_bytes()
        } else if let Some(ab) = rquickjs::ArrayBuffer::from_value(val.clone()) {
            crate::js::runtime::array_buffer_bytes(&ab).unwrap_or_default()
        } else {
            shared.log(
                crate::log::Level::Error,
                &format!(
                    "handleSummary() returned a {} for {key:?}: use a string or an ArrayBuffer",
                    val.type_name()
                ),
                &[],
            );
            continue;
        };
        match key.as_str() {
            "stdout" => stdout.push_str(&String::from_utf8_lossy(&bytes)),
            "stderr" => eprint!("{}", String::from_utf8_lossy(&bytes)),
            path => {
                if let Err(e) = std::fs::write(path, &bytes) {
                    shared.log(
                        crate::log::Level::Error,
                        &format!("handleSummary(): cannot write {path}: {e}"),
                        &[],
                    );
                }
            }
        }
    }
    Some(stdout)
}

/// `--summary-mode=legacy`: the summary in k6's layout before v1, as
/// k6 v1 prints it in that mode: jslib's textSummary of the
/// `handleSummary()` data (loadlab's own, `modules/jslib/summary.fn.js`),
/// rates as `N out of M`, between an empty line and two. Said on stderr,
/// and empty, if it cannot be made.
pub fn legacy_text(
    ctx: &rquickjs::Ctx<'_>,
    shared: &RunState,
    options: &Options,
    elapsed: Duration,
) -> String {
    use rquickjs::{Function, Object};
    let data = summary_data(shared, options, elapsed).to_string();
    let made = (|| -> rquickjs::Result<String> {
        let k6: Object = ctx.globals().get("__k6")?;
        let s: Object = k6.get("jslibSummary")?;
        let f: Function = s.get("legacy")?;
        crate::js::vu::on_main_stack();
        f.call((data,))
    })();
    match made {
        Ok(text) => text,
        Err(e) => {
            shared.log(
                crate::log::Level::Error,
                &format!("the legacy summary could not be made: {e}"),
                &[],
            );
            String::new()
        }
    }
}
