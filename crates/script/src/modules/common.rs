//! Helpers every module's natives share: values from JavaScript, k6's
//! exceptions, and waiting (suspending the calling VU).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use rquickjs::{Ctx, Exception, Function, Value};

pub use crate::js::exec::k6_helper;
use crate::js::runtime::array_buffer_bytes;
use crate::js::vu::{self, Op, Resume};

/// A string's UTF-8 bytes or an `ArrayBuffer`'s (the modules turn typed
/// arrays into buffers first).
pub(crate) fn js_bytes(v: &Value<'_>) -> rquickjs::Result<Vec<u8>> {
    if let Some(s) = v.as_string() {
        return Ok(s.to_string()?.into_bytes());
    }
    let ab = rquickjs::ArrayBuffer::from_value(v.clone());
    Ok(ab.as_ref().and_then(array_buffer_bytes).unwrap_or_default())
}

/// JavaScript's truth of a value (`!!v`).
pub(crate) fn truthy(v: &Value<'_>) -> bool {
    v.get::<rquickjs::convert::Coerced<bool>>()
        .is_ok_and(|b| b.0)
}

pub(crate) fn throw(ctx: &Ctx<'_>, msg: &str) -> rquickjs::Error {
    Exception::throw_message(ctx, msg)
}

/// Throws k6's `GoError` (see `goError` in [`install`]).
pub(crate) fn throw_go(ctx: &Ctx<'_>, msg: &str) -> rquickjs::Error {
    let made = k6_helper(ctx, "goError").and_then(|f| f.call::<_, Value>((msg,)));
    match made {
        Ok(e) => ctx.throw(e),
        Err(e) => e,
    }
}

/// Helpers written in JavaScript, compiled as the `k6` module's code so
/// that stack traces leave their frames out.
pub(crate) fn k6_code<'js>(ctx: &Ctx<'js>, src: &str) -> rquickjs::Result<Function<'js>> {
    let mut opts = rquickjs::context::EvalOptions::default();
    opts.filename = Some("k6".into());
    ctx.eval_with_options(src, opts)
}

/// Suspends the VU, or throws when the script is not in a VU (init code).
pub(crate) fn wait(ctx: &Ctx<'_>, op: Op, what: &str) -> rquickjs::Result<Resume> {
    if !vu::in_vu() {
        return Err(throw(
            ctx,
            &format!("{what} is not available in the init context (outside of functions)"),
        ));
    }
    match vu::suspend(op) {
        Resume::Abort | Resume::Quit => Err(throw(
            ctx,
            "the test is over: this VU's iteration was interrupted",
        )),
        r => Ok(r),
    }
}

/// Suspends the VU until `fut` is done; its output. A VU interrupted
/// meanwhile (the test's end) gets k6's `GoError` saying so.
pub(crate) fn wait_on<'js, T: 'static>(
    ctx: &Ctx<'js>,
    what: &str,
    fut: impl std::future::Future<Output = T> + 'static,
) -> rquickjs::Result<T> {
    let out: Rc<RefCell<Option<T>>> = Rc::default();
    let slot = out.clone();
    let make: vu::WaitFn = Box::new(move |_client, _owner| {
        Box::pin(async move {
            *slot.borrow_mut() = Some(fut.await);
        })
    });
    wait(ctx, Op::Wait(make, None), what)?;
    let v = out.borrow_mut().take();
    v.ok_or_else(|| throw_go(ctx, &format!("{what} was interrupted")))
}

/// k6 durations in params: a number of milliseconds or a duration string.
pub(crate) fn js_duration(v: &Value<'_>) -> Option<Duration> {
    if let Some(n) = v.as_number() {
        return (n >= 0.0).then(|| Duration::from_secs_f64(n / 1000.0));
    }
    v.as_string()
        .and_then(|s| s.to_string().ok())
        .and_then(|s| crate::config::parse_duration_str(&s))
}

pub(crate) fn js_string(v: &Value<'_>) -> Option<String> {
    if let Some(s) = v.as_string() {
        return s.to_string().ok();
    }
    if v.is_number() || v.is_bool() {
        let ctx = v.ctx();
        return ctx
            .json_stringify(v.clone())
            .ok()
            .flatten()
            .and_then(|s| s.to_string().ok());
    }
    None
}

/// `{a: "x", b: 1}` as string pairs.
pub fn js_pairs(v: Option<&Value<'_>>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(o) = v.and_then(|v| v.as_object()) {
        for (k, val) in o.props::<String, Value>().flatten() {
            if let Some(s) = js_string(&val) {
                out.push((k, s));
            }
        }
    }
    out
}

/// The TLS configuration of a connection a module opens itself (gRPC,
/// Redis), from the engine's options; the error's own words.
pub(crate) fn client_tls(
    opts: &loadlab_engine::config::TlsOptions,
    alpn_h2: bool,
) -> Result<std::sync::Arc<rustls::ClientConfig>, String> {
    loadlab_engine::tls_client_config(opts, alpn_h2).map_err(|e| match e {
        loadlab_engine::EngineError::Tls(m) | loadlab_engine::EngineError::Config(m) => m,
        other => other.to_string(),
    })
}
