//! Every JavaScript file of the modules parses, and each module's export
//! list is what its JavaScript exports.

use std::path::{Path, PathBuf};

use rquickjs::{Context, Ctx, Module, Object, Runtime, Value};

/// The `.js` files under `dir`, at any depth, in name order.
fn js_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the modules' directory")
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            js_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "js") {
            out.push(p);
        }
    }
}

/// The pending exception's message and place, for a failure's text.
fn caught(ctx: &Ctx<'_>, e: rquickjs::Error) -> String {
    if !matches!(e, rquickjs::Error::Exception) {
        return e.to_string();
    }
    let v = ctx.catch();
    match v.as_exception() {
        Some(x) => format!(
            "{}\n{}",
            x.message().unwrap_or_default(),
            x.stack().unwrap_or_default()
        ),
        None => format!("{v:?}"),
    }
}

#[test]
fn every_js_file_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/modules");
    let mut files = Vec::new();
    js_files(&root, &mut files);
    assert!(files.len() >= 16, "only {} .js files found", files.len());
    let rt = Runtime::new().expect("a runtime");
    // A module's imports are answered with empty modules: only its own
    // syntax is checked here.
    rt.set_loader(crate::static_opens::AnyName, crate::static_opens::AnyName);
    let context = Context::full(&rt).expect("a context");
    context.with(|ctx| {
        let mut bad = Vec::new();
        for f in &files {
            let src = std::fs::read_to_string(f).expect("a readable .js file");
            let name = f.strip_prefix(&root).unwrap_or(f).display().to_string();
            // An expression is compiled as a function's body that is
            // never called (its first line kept as line 1); a module is
            // declared, which compiles it without running it.
            let parsed = if name.ends_with(".fn.js") {
                ctx.eval::<Value, _>(format!("(function () {{ return ({src}\n); }})"))
                    .map(|_| ())
            } else {
                Module::declare(ctx.clone(), name.clone(), src).map(|_| ())
            };
            if let Err(e) = parsed {
                bad.push(format!("src/modules/{name}: {}", caught(&ctx, e)));
            }
        }
        assert!(
            bad.is_empty(),
            "JavaScript that does not parse:\n{}",
            bad.join("\n")
        );
    });
}

/// A stand-in for `__k6` that answers every name, call and `new` with
/// itself, so that a module's top level runs without the natives.
const STUB: &str = r#"
globalThis.__k6 = (() => {
  const p = new Proxy(function () {}, {
    get: (t, key) => (key === Symbol.toPrimitive ? undefined : key in t ? t[key] : p),
    apply: () => p,
    construct: () => p,
  });
  return p;
})();
"#;

/// The names a module gives a script: its default export's members, or,
/// with no default export, its named exports.
fn exported<'js>(ctx: &Ctx<'js>, name: &str, js: &str) -> Result<Vec<String>, String> {
    let declared = Module::declare(ctx.clone(), name, js).map_err(|e| caught(ctx, e))?;
    let (module, promise) = declared.eval().map_err(|e| caught(ctx, e))?;
    promise.finish::<()>().map_err(|e| caught(ctx, e))?;
    let ns = module.namespace().map_err(|e| caught(ctx, e))?;
    let keys =
        |o: &Object<'js>| -> Vec<String> { o.keys::<String>().filter_map(Result::ok).collect() };
    let mut names = match ns.get::<_, Option<Object>>("default") {
        Ok(Some(d)) => keys(&d),
        _ => keys(&ns).into_iter().filter(|k| k != "default").collect(),
    };
    names.sort();
    Ok(names)
}

#[test]
fn export_lists_are_what_the_javascript_exports() {
    let rt = Runtime::new().expect("a runtime");
    let context = Context::full(&rt).expect("a context");
    context.with(|ctx| {
        ctx.eval::<(), _>(STUB).expect("the stub");
        let mut wrong = Vec::new();
        for m in &super::ALL {
            let (name, js) = (m.name, m.js);
            let Some(listed) = m.exports else {
                continue;
            };
            let mut listed: Vec<String> = listed.iter().map(|s| s.to_string()).collect();
            listed.sort();
            match exported(&ctx, name, js) {
                Ok(found) if found == listed => {}
                Ok(found) => wrong.push(format!("{name}: listed {listed:?}, exports {found:?}")),
                Err(e) => wrong.push(format!("{name}: {e}")),
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    });
}
