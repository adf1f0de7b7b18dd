//! The run's context and module loading: the k6 modules and the script's
//! local modules, each compiled once and read from its bytecode after that.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use rquickjs::loader::{Loader, Resolver};
use rquickjs::module::Declared;
use rquickjs::{Context, Ctx, Module, Runtime, WriteOptions};

/// How a module is written once compiled: without the functions' source
/// text (QuickJS keeps, per context, a copy of each function's source for
/// `toString()`: kilobytes per VU), with the debug information that gives
/// exceptions their `file:line:column`.
pub(crate) fn bytecode_options() -> WriteOptions {
    WriteOptions {
        strip_source: true,
        strip_debug: false,
        ..Default::default()
    }
}

/// A module compiled once, from its bytecode after that: the first VU
/// compiles `source` (syntax errors come from here) and keeps the
/// bytecode, the others read it (QuickJS ties bytecode to a context, so
/// each VU still has its own copy, but not the source text, and is spared
/// the parse).
pub(crate) fn declare_cached<'js>(
    ctx: &Ctx<'js>,
    cache: &RefCell<Option<Vec<u8>>>,
    name: &str,
    source: &str,
) -> rquickjs::Result<Module<'js, Declared>> {
    if let Some(b) = cache.borrow().as_deref() {
        // SAFETY: the bytes were written by `Module::write` of this very
        // QuickJS build (below), in this process.
        return unsafe { Module::load(ctx.clone(), b) };
    }
    let m = Module::declare(ctx.clone(), name, source)?;
    *cache.borrow_mut() = Some(m.write(bytecode_options())?);
    Ok(m)
}

/// The run's context, with every built-in object QuickJS has: the VUs
/// share it, so they cost nothing per VU.
pub(crate) fn new_context(rt: &Runtime) -> rquickjs::Result<Context> {
    use rquickjs::context::intrinsic as q;
    use rquickjs::qjs;
    type Base = (
        q::Date,
        q::Eval,
        q::RegExpCompiler,
        q::RegExp,
        q::Json,
        q::Promise,
    );
    let c = Context::custom::<Base>(rt)?;
    let raw = c.as_raw().as_ptr();
    // SAFETY: `raw` is the context just made, not yet used by anything;
    // each call adds a group of built-in objects to it (what
    // `Context::custom` does for the groups in its type).
    unsafe {
        qjs::JS_AddIntrinsicMapSet(raw);
        qjs::JS_AddIntrinsicTypedArrays(raw);
        qjs::JS_AddIntrinsicProxy(raw);
        qjs::JS_AddPerformance(raw);
        qjs::JS_AddIntrinsicWeakRef(raw);
        qjs::JS_AddIntrinsicDOMException(raw);
    }
    Ok(c)
}

/// What follows a local module's file name in its name (see `LocalResolver`).
pub(crate) const VU_MARK: &str = "#vu";

/// Loads the k6 modules, and the script's local modules, in every context
/// that imports them (rquickjs's `BuiltinLoader` hands each source out
/// once only), each compiled once and read from its bytecode after that
/// (see [`declare_cached`]).
pub(crate) struct K6Loader {
    builtins: Builtins,
    compiled: HashMap<String, RefCell<Option<Vec<u8>>>>,
    prepared: HashMap<String, String>,
}

/// The modules the loader answers by name (the k6 modules, each with its
/// JavaScript), and those of them that answer imports of jslib's modules
/// by URL (`https://jslib.k6.io/<name>/<version>/index.js`). The layer above `js` hands them in; exceptions leave their
/// frames out ([`builtins`]).
#[derive(Clone, Copy)]
pub(crate) struct Builtins {
    pub(crate) modules: &'static [(&'static str, &'static str)],
    pub(crate) jslib: &'static [(&'static str, &'static str)],
}

/// The built-in modules of the process's runs (they are the same for all).
static BUILTINS: OnceLock<Builtins> = OnceLock::new();

/// The built-in modules a [`K6Loader`] was made with (none before one is).
pub(crate) fn builtins() -> Builtins {
    BUILTINS.get().copied().unwrap_or(Builtins {
        modules: &[],
        jslib: &[],
    })
}

impl K6Loader {
    pub(crate) fn new(builtins: Builtins) -> K6Loader {
        BUILTINS.get_or_init(|| builtins);
        K6Loader {
            builtins,
            compiled: HashMap::new(),
            prepared: HashMap::new(),
        }
    }

    /// The code of the local module `file`, read and prepared (types
    /// stripped, see `source`) once for all the VUs.
    fn prepared(&mut self, file: &str) -> rquickjs::Result<String> {
        if let Some(code) = self.prepared.get(file) {
            return Ok(code.clone());
        }
        let source = std::fs::read_to_string(file)?;
        let code = super::source::prepare(source, file).map_err(loading(file))?;
        self.prepared.insert(file.to_string(), code.clone());
        Ok(code)
    }
}

/// A module that cannot be prepared, as a loading error naming why.
fn loading(file: &str) -> impl Fn(crate::ScriptError) -> rquickjs::Error + '_ {
    move |e| rquickjs::Error::new_loading_message(file, e.to_string())
}

impl Loader for K6Loader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        path: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        // A local module, for one VU (see `LocalResolver`): its own
        // instance, compiled from the source.
        if let Some((file, _)) = path.rsplit_once(VU_MARK) {
            let source = self.prepared(file)?;
            return Module::declare(ctx.clone(), path, source);
        }
        let builtin = self.builtins.modules.iter().find(|(m, _)| *m == path);
        let cache = self.compiled.entry(path.to_string()).or_default();
        if cache.borrow().is_some() {
            return declare_cached(ctx, cache, path, "");
        }
        match builtin {
            Some((_, src)) => declare_cached(ctx, cache, path, src),
            // A local module (as rquickjs's `ScriptLoader`: `.js` files,
            // and `.ts` ones).
            None if path.ends_with(".js") || path.ends_with(".ts") => {
                let source = std::fs::read_to_string(path)?;
                let source = super::source::prepare(source, path).map_err(loading(path))?;
                declare_cached(ctx, cache, path, &source)
            }
            None => Err(rquickjs::Error::new_loading(path)),
        }
    }
}

/// Local modules: `./x.js` and `../x.js` relative to the importing module,
/// other names relative to the script's folder, `.js` added when the name
/// has no extension; the file must exist. (rquickjs's `FileResolver` looked
/// for an absolute script's imports relative to the working directory.)
///
/// VUs share one context, where a module is found by its name; each VU
/// has its own instances of the local modules (their top-level variables
/// are the VU's, as in k6), so the name carries the VU: `lib.js#vu3`.
/// Messages leave the mark out (`error::unmark`).
pub(crate) struct LocalResolver {
    pub(crate) script_dir: PathBuf,
    /// The built-in modules that answer jslib's URLs: (URL prefix, module).
    pub(crate) jslib: &'static [(&'static str, &'static str)],
}

impl Resolver for LocalResolver {
    fn resolve<'js>(
        &mut self,
        _ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        use std::path::{Component, Path};
        for (prefix, module) in self.jslib {
            if let Some(rest) = name.strip_prefix(prefix)
                && rest.ends_with("/index.js")
            {
                return Ok(module.to_string());
            }
        }
        let joined = if name.starts_with("./") || name.starts_with("../") {
            Path::new(base)
                .parent()
                .unwrap_or(Path::new("."))
                .join(name)
        } else {
            self.script_dir.join(name)
        };
        let mut path = PathBuf::new();
        for c in joined.components() {
            match c {
                Component::CurDir => {}
                Component::ParentDir
                    if matches!(path.components().next_back(), Some(Component::Normal(_))) =>
                {
                    path.pop();
                }
                c => path.push(c),
            }
        }
        if path.extension().is_none() {
            path.set_extension("js");
        }
        if path.is_file() {
            Ok(format!(
                "{}{VU_MARK}{}",
                path.to_string_lossy(),
                crate::js::vu::current()
            ))
        } else {
            Err(rquickjs::Error::new_resolving(base, name))
        }
    }
}
