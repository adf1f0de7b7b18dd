//! Measures what a VU's QuickJS context costs (bytes of QuickJS's own
//! accounting per context) for variants of how the context is made:
//! `cargo run -p loadlab-script --example ctx_memory -- SCRIPT [N]`.
//! A measuring tool for docs/k6.md's memory figures, not part of the run.

#![allow(unsafe_code)]

use rquickjs::context::intrinsic as q;
use rquickjs::loader::{BuiltinResolver, Loader};
use rquickjs::module::Declared;
use rquickjs::{Context, Ctx, Module, Runtime, WriteOptions};

struct L(bool, std::collections::HashMap<String, Vec<u8>>);
impl Loader for L {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        path: &str,
        _a: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, Declared>> {
        let src = loadlab_script::MODULES
            .iter()
            .find(|(m, _)| *m == path)
            .map(|(_, s)| *s)
            .ok_or_else(|| rquickjs::Error::new_loading(path))?;
        if self.0 {
            if let Some(b) = self.1.get(path) {
                return unsafe { Module::load(ctx.clone(), b) };
            }
            let m = Module::declare(ctx.clone(), path, src)?;
            let b = m.write(WriteOptions {
                strip_source: true,
                ..Default::default()
            })?;
            self.1.insert(path.to_string(), b);
            return Ok(m);
        }
        Module::declare(ctx.clone(), path, src)
    }
}

type Base = (
    q::Date,
    q::Eval,
    q::RegExpCompiler,
    q::RegExp,
    q::Json,
    q::MapSet,
    q::Promise,
);
type NoMapSet = (
    q::Date,
    q::Eval,
    q::RegExpCompiler,
    q::RegExp,
    q::Json,
    q::Promise,
);

fn mem(raw: *mut rquickjs::qjs::JSRuntime) -> rquickjs::qjs::JSMemoryUsage {
    unsafe {
        let mut u = std::mem::MaybeUninit::<rquickjs::qjs::JSMemoryUsage>::zeroed();
        rquickjs::qjs::JS_ComputeMemoryUsage(raw, u.as_mut_ptr());
        u.assume_init()
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let src = std::fs::read_to_string(&a[1]).unwrap();
    let n: usize = a.get(2).map_or(200, |s| s.parse().unwrap());
    let prelude = "globalThis.__k6 = { metricNew() { return 0; } }; globalThis.__ENV = {}; globalThis.__VU = 1; globalThis.console = { log() {} };";
    for variant in [
        "base",
        "base+nomapset",
        "bytecode",
        "bytecode+nomapset",
        "empty-base",
        "empty-nomapset",
    ] {
        let rt = Runtime::new().unwrap();
        let mut res = BuiltinResolver::default();
        for (m, _) in loadlab_script::MODULES {
            res.add_module(*m);
        }
        let bc = variant.starts_with("bytecode");
        rt.set_loader(res, L(bc, Default::default()));
        let mut ctxs = Vec::new();
        let mut script_bc: Option<Vec<u8>> = None;
        let mut before = 0i64;
        let mut raw = std::ptr::null_mut();
        for i in 0..=n {
            let c = if variant.ends_with("nomapset") {
                Context::custom::<NoMapSet>(&rt).unwrap()
            } else {
                Context::custom::<Base>(&rt).unwrap()
            };
            raw = c.get_runtime_ptr();
            if !variant.starts_with("empty") {
                c.with(|ctx| {
                    ctx.eval::<(), _>(prelude).unwrap();
                    let m = match &script_bc {
                        Some(b) => unsafe { Module::load(ctx.clone(), b) }.unwrap(),
                        None => {
                            let m = Module::declare(ctx.clone(), "s.js", src.as_str()).unwrap();
                            if bc {
                                script_bc = Some(
                                    m.write(WriteOptions {
                                        strip_source: true,
                                        ..Default::default()
                                    })
                                    .unwrap(),
                                );
                            }
                            m
                        }
                    };
                    let (m, p) = m.eval().unwrap();
                    p.finish::<()>().unwrap();
                    let ns = m.namespace().unwrap();
                    ctx.globals().set("__k6_ns", ns).unwrap();
                });
            }
            ctxs.push(c);
            if i == 0 {
                unsafe { rquickjs::qjs::JS_RunGC(raw) };
                before = mem(raw).malloc_size;
            }
        }
        unsafe { rquickjs::qjs::JS_RunGC(raw) };
        let u = mem(raw);
        let per = |x: i64, y: i64| (x - y) as f64 / n as f64;
        println!(
            "{variant:20} per context: malloc {:7.0} B  used {:7.0}  objs {:5.1}  props {:6.1}  shapes {:5.1} ({:6.0} B)  funcs {:5.1} ({:6.0} B)  strs {:5.1} ({:6.0} B)  allocs {:6.1}",
            per(u.malloc_size, before),
            u.memory_used_size as f64 / (n + 1) as f64,
            u.obj_count as f64 / (n + 1) as f64,
            u.prop_count as f64 / (n + 1) as f64,
            u.shape_count as f64 / (n + 1) as f64,
            u.shape_size as f64 / (n + 1) as f64,
            u.js_func_count as f64 / (n + 1) as f64,
            u.js_func_size as f64 / (n + 1) as f64,
            u.str_count as f64 / (n + 1) as f64,
            u.str_size as f64 / (n + 1) as f64,
            u.malloc_count as f64 / (n + 1) as f64,
        );
        drop(ctxs);
    }
}
