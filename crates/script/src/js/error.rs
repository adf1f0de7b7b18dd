//! A JavaScript exception or syntax error as text, as k6 prints it.

use super::loader::{VU_MARK, builtins};
use crate::ScriptError;
use rquickjs::{Ctx, Value};

/// An exception's text as k6 logs it: a stack ends with a newline.
pub(crate) fn with_stack_end(mut e: String) -> String {
    if e.contains("\n\tat ") && !e.ends_with('\n') {
        e.push('\n');
    }
    e
}

/// Turns a JavaScript exception into text with its position.
pub(crate) fn exception_text(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    super::source_map::remap(&unmark(&marked_exception_text(ctx, e)))
}

pub(crate) fn marked_exception_text(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    if let rquickjs::Error::Exception = e {
        let v = ctx.catch();
        if let Some(ex) = v.as_exception() {
            let msg = ex.message().unwrap_or_default();
            let stack = ex.stack().unwrap_or_default();
            let name: String = ex.get("name").unwrap_or_else(|_| "Error".into());
            // Every frame of the script's own, innermost first, as k6 prints
            // them; those inside loadlab's k6 modules (`fail` in `k6`) are
            // left out.
            let mut text = format!("{name}: {msg}");
            for frame in stack
                .lines()
                .map(str::trim)
                .filter_map(|l| l.strip_prefix("at "))
                .filter(|f| {
                    !builtins()
                        .modules
                        .iter()
                        .any(|(m, _)| f.contains(&format!("({m}:")))
                })
            {
                text.push_str("\n\tat ");
                text.push_str(frame);
            }
            return text;
        }
        return format!("Uncaught {}", value_text(ctx, &v));
    }
    e.to_string()
}

pub(crate) fn value_text<'js>(ctx: &Ctx<'js>, v: &Value<'js>) -> String {
    if let Some(s) = v.as_string() {
        return s.to_string().unwrap_or_default();
    }
    ctx.json_stringify(v.clone())
        .ok()
        .flatten()
        .and_then(|s| s.to_string().ok())
        .unwrap_or_else(|| format!("{v:?}"))
}

/// A syntax error as `file:line:column: message` (QuickJS puts the
/// position in the stack's first line).
pub(crate) fn syntax_text(ctx: &Ctx<'_>, e: rquickjs::Error, script: &str) -> ScriptError {
    super::source::remap_error(match marked_syntax_text(ctx, e, script) {
        ScriptError::Syntax(m) => ScriptError::Syntax(unmark(&m)),
        ScriptError::Unsupported(m) => ScriptError::Unsupported(unmark(&m)),
        ScriptError::Script(m) => ScriptError::Script(unmark(&m)),
        other => other,
    })
}

pub(crate) fn marked_syntax_text(ctx: &Ctx<'_>, e: rquickjs::Error, script: &str) -> ScriptError {
    if let rquickjs::Error::Exception = e {
        let v = ctx.catch();
        if let Some(ex) = v.as_exception() {
            let msg = ex.message().unwrap_or_default();
            let name: String = ex.get("name").unwrap_or_else(|_| "Error".into());
            let stack = ex.stack().unwrap_or_default();
            let at = stack
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("at "))
                .map(|l| l.trim_start_matches("at ").trim().to_string());
            if name == "SyntaxError" {
                // Module link errors (a missing export) are SyntaxErrors too.
                if msg.contains("export") || msg.contains("Could not find") {
                    return ScriptError::Unsupported(format!(
                        "{script}: {msg} (not supported by loadlab k6; see docs/k6.md)"
                    ));
                }
                return ScriptError::Syntax(match at {
                    Some(at) => format!("{at}: SyntaxError: {msg}"),
                    None => format!("{script}: SyntaxError: {msg}"),
                });
            }
            if msg.contains("could not load module") || msg.contains("resolving module") {
                return ScriptError::Unsupported(format!(
                    "{script}: {msg} (loadlab k6 has the modules {} and local files){}",
                    module_names(),
                    remote_hint(&msg)
                ));
            }
            return ScriptError::Script(match at {
                Some(at) => format!("{name}: {msg}\n\tat {at}"),
                None => format!("{name}: {msg}"),
            });
        }
        return ScriptError::Script(format!("Uncaught {}", value_text(ctx, &v)));
    }
    let s = e.to_string();
    if s.contains("resolv") || s.contains("load") {
        return ScriptError::Unsupported(format!(
            "{script}: {s} (loadlab k6 has the modules {} and local files){}",
            module_names(),
            remote_hint(&s)
        ));
    }
    ScriptError::Script(s)
}

/// What to do about a remote module.
pub(crate) fn remote_hint(msg: &str) -> &'static str {
    if msg.contains("jslib.k6.io") {
        "; remote modules are not fetched: of jslib, loadlab answers k6-utils, k6-summary, \
         url, formdata, papaparse, httpx, k6chaijs and expect itself; download another \
         module and import it by a local path"
    } else if msg.contains("http://") || msg.contains("https://") {
        "; remote modules are not fetched: download the file and import it by a local path"
    } else {
        ""
    }
}

/// `text` without the VU marks of local modules' names.
pub(crate) fn unmark(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(VU_MARK) {
        out.push_str(&rest[..i]);
        let after = &rest[i + VU_MARK.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits == 0 {
            out.push_str(VU_MARK);
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

/// The built-in modules' names, for the error that names one missing.
fn module_names() -> String {
    let b = builtins();
    b.modules
        .iter()
        .map(|(m, _)| *m)
        .filter(|m| !b.jslib.iter().any(|(_, j)| j == m))
        .collect::<Vec<_>>()
        .join(", ")
}
