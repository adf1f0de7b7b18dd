//! `k6/html`: `parseHTML`, and the Selection API `res.html()` shares.

use rquickjs::{Ctx, Function, Object, Value};

use super::common::{js_bytes, throw_go};

pub mod doc;

pub(crate) const NAME: &str = "k6/html";

pub(crate) const HTML_JS: &str = include_str!("html.js");

/// What the module's default export has.
pub(crate) const EXPORTS: &[&str] = &["parseHTML"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: HTML_JS,
    exports: Some(EXPORTS),
};

/// `k6/html`'s Selection and Element, over the native `HtmlDoc` (doc.rs):
/// compiled once, the first time a VU parses (`__k6.htmlLib()`, kept on
/// `__k6`), for the module and for `res.html()`.
pub(crate) const HTML_LIB_JS: &str = include_str!("lib.fn.js");

/// k6/html's natives: a page parsed (a string, or an ArrayBuffer's
/// bytes as UTF-8), and the Selection API, compiled on first use.
pub(crate) fn install<'js>(ctx: &Ctx<'js>, k6: &Object<'js>) -> rquickjs::Result<()> {
    k6.set(
        "htmlParse",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, src: Value<'js>| -> rquickjs::Result<Value<'js>> {
                let doc = match src.as_string() {
                    Some(s) => doc::HtmlDoc::parse(&s.to_string()?),
                    None => doc::HtmlDoc::parse(&String::from_utf8_lossy(&js_bytes(&src)?)),
                };
                match doc {
                    Ok(doc) => Ok(rquickjs::Class::instance(ctx, doc)?.into_value()),
                    Err(msg) => Err(throw_go(&ctx, msg)),
                }
            },
        )?,
    )?;
    // A URL made absolute against a base (k6/html's URL attributes).
    k6.set(
        "urlResolve",
        Function::new(ctx.clone(), |base: String, href: String| {
            url::Url::parse(&base)
                .and_then(|b| b.join(&href))
                .ok()
                .map(String::from)
        })?,
    )?;
    k6.set(
        "htmlLib",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>| -> rquickjs::Result<Object<'js>> { ctx.eval(HTML_LIB_JS) },
        )?,
    )?;
    Ok(())
}
