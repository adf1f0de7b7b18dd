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
    positions_back(&marked_exception_text(ctx, e, true))
}

/// A rejected promise's reason as text: a value that is not an `Error`
/// without the place it was thrown, as k6 shows it.
pub(crate) fn rejection_text(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    positions_back(&marked_exception_text(ctx, e, false))
}

/// The positions in `text` put back where the user wrote them: past the
/// throws' marks (`throw_sites`), then through the source maps.
fn positions_back(text: &str) -> String {
    super::source_map::remap(&super::throw_sites::unshift(&unmark(text)))
}

/// k6's text of a thrown value that is not an `Error`: `String(v)`, and
/// with `site` the frames of the last `throw` of it, the innermost at the
/// throw's own place (see `throw_sites`).
fn value_thrown<'js>(ctx: &Ctx<'js>, v: &Value<'js>, site: bool) -> String {
    let text: String = ctx
        .globals()
        .get::<_, rquickjs::Function>("String")
        .and_then(|f| f.call((v.clone(),)))
        .unwrap_or_else(|_| value_text(ctx, v));
    let found = site
        .then(|| super::runtime::k6_helper(ctx, "thrownSite").ok())
        .flatten()
        .and_then(|f| f.call::<_, Option<rquickjs::Object>>((v.clone(),)).ok())
        .flatten();
    let Some(found) = found else {
        return text;
    };
    let stack: String = found.get("stack").unwrap_or_default();
    let (line, col): (u32, u32) = (
        found.get("line").unwrap_or_default(),
        found.get("col").unwrap_or_default(),
    );
    let mut out = text;
    for (i, frame) in script_frames(&stack).enumerate() {
        out.push_str("\n\tat ");
        match frame.rfind(':').and_then(|c| frame[..c].rfind(':')) {
            Some(at) if i == 0 => {
                let close = if frame.ends_with(')') { ")" } else { "" };
                out.push_str(&format!("{}:{line}:{col}{close}", &frame[..at]));
            }
            _ => out.push_str(frame),
        }
    }
    out
}

/// The frames of a stack that are the script's own (not those inside
/// loadlab's k6 modules), innermost first.
fn script_frames(stack: &str) -> impl Iterator<Item = &str> {
    stack
        .lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("at "))
        .filter(|f| {
            !builtins()
                .modules
                .iter()
                .any(|(m, _)| f.contains(&format!("({m}:")))
        })
}

pub(crate) fn marked_exception_text(ctx: &Ctx<'_>, e: rquickjs::Error, site: bool) -> String {
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
            for frame in script_frames(&stack) {
                text.push_str("\n\tat ");
                text.push_str(frame);
            }
            return text;
        }
        return value_thrown(ctx, &v, site);
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
