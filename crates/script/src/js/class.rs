//! Native objects for the k6 modules: a class whose objects each hold a
//! Rust value (freed with the object), and objects made from property keys
//! kept as atoms. The raw QuickJS calls they need are here; the modules
//! see safe functions only.

use std::cell::Cell;
use std::ffi::CStr;
use std::marker::PhantomData;

use rquickjs::{Ctx, Object, Value, qjs};

use super::runtime::RawRuntime;

/// A class of objects that each hold a `T`, registered in the run's
/// runtime (kept in a `thread_local!` by the module that owns it: its id
/// is this thread's runtime's).
pub(crate) struct NativeClass<T: 'static> {
    name: &'static CStr,
    /// The class's id in this thread's runtime (0: not registered).
    id: Cell<qjs::JSClassID>,
    data: PhantomData<fn() -> T>,
}

/// Frees a `T`'s object's data, once, when QuickJS collects the object.
unsafe extern "C" fn finalize<T: 'static>(_rt: *mut qjs::JSRuntime, val: qjs::JSValue) {
    // SAFETY: QuickJS calls this once, when an object of the class dies;
    // its opaque is the box `NativeClass::make` leaked (or null).
    unsafe {
        let p = qjs::JS_GetOpaque(val, qjs::JS_GetClassID(val)).cast::<T>();
        if !p.is_null() {
            drop(Box::from_raw(p));
        }
    }
}

impl<T: 'static> NativeClass<T> {
    pub(crate) const fn new(name: &'static CStr) -> NativeClass<T> {
        NativeClass {
            name,
            id: Cell::new(0),
            data: PhantomData,
        }
    }

    /// Registers the class in the run's runtime (before any context of it
    /// makes an object of the class).
    pub(crate) fn register(&self, rt: RawRuntime) -> Result<(), String> {
        let mut id: qjs::JSClassID = 0;
        let def = qjs::JSClassDef {
            class_name: self.name.as_ptr(),
            finalizer: Some(finalize::<T>),
            gc_mark: None,
            call: None,
            exotic: std::ptr::null_mut(),
        };
        // SAFETY: `rt` is the live runtime, used by this thread only (see
        // `RawRuntime`); QuickJS copies what it keeps of `def`.
        let ok = unsafe {
            qjs::JS_NewClassID(rt.as_ptr(), &mut id);
            qjs::JS_NewClass(rt.as_ptr(), id, &def) == 0
        };
        if !ok {
            return Err(format!(
                "cannot register the {} class",
                self.name.to_string_lossy()
            ));
        }
        self.id.set(id);
        Ok(())
    }

    /// Whether [`NativeClass::register`] ran.
    pub(crate) fn registered(&self) -> bool {
        self.id.get() != 0
    }

    /// The data of an object of the class (`None` for any other value).
    pub(crate) fn data_of<'a>(&self, v: &'a Value<'_>) -> Option<&'a T> {
        let id = self.id.get();
        if id == 0 || !v.is_object() {
            return None;
        }
        // SAFETY: `JS_GetOpaque` checks the value's class; the data lives as
        // long as the object, which `v` holds.
        unsafe { qjs::JS_GetOpaque(v.as_raw(), id).cast::<T>().as_ref() }
    }

    /// A new object of the class holding `data` (freed with the object).
    /// The class is registered ([`NativeClass::registered`]).
    pub(crate) fn make<'js>(&self, ctx: &Ctx<'js>, data: Box<T>) -> rquickjs::Result<Value<'js>> {
        let id = self.id.get();
        if id == 0 {
            return Err(rquickjs::Error::Unknown);
        }
        // SAFETY: `id` is registered in this runtime; the new object (owned
        // by `v` from here) takes the box, which its finalizer frees.
        unsafe {
            let raw = qjs::JS_NewObjectClass(ctx.as_raw().as_ptr(), id);
            if qjs::JS_IsException(raw) {
                return Err(rquickjs::Error::Exception);
            }
            let v = Value::from_raw(ctx.clone(), raw);
            qjs::JS_SetOpaque(raw, Box::into_raw(data).cast());
            Ok(v)
        }
    }

    /// Makes `proto` the prototype of the class's objects in `ctx` (nothing
    /// before the class is registered).
    pub(crate) fn set_proto<'js>(&self, ctx: &Ctx<'js>, proto: &Object<'js>) {
        let id = self.id.get();
        if id != 0 {
            // SAFETY: `id` is registered in this context's runtime;
            // `JS_SetClassProto` takes over the reference made here.
            unsafe {
                let p = ctx.as_raw().as_ptr();
                qjs::JS_SetClassProto(p, id, qjs::JS_DupValue(p, proto.as_raw()));
            }
        }
    }
}

/// Property keys made atoms of this thread's runtime once (0: not made
/// yet), for objects made with all of them at once: naming each key by
/// its text costs a look-up in the runtime's atom table per key and
/// object. Never freed; made again for a new runtime.
pub(crate) struct AtomKeys<const N: usize> {
    keys: [&'static str; N],
    atoms: Cell<[qjs::JSAtom; N]>,
    /// The runtime they were made in ([`RawRuntime::generation`]).
    generation: Cell<u64>,
}

impl<const N: usize> AtomKeys<N> {
    pub(crate) const fn new(keys: [&'static str; N]) -> AtomKeys<N> {
        AtomKeys {
            keys,
            atoms: Cell::new([0; N]),
            generation: Cell::new(0),
        }
    }

    /// A new plain object with the keys, in their order, holding `values`.
    pub(crate) fn object<'js>(
        &self,
        ctx: &Ctx<'js>,
        values: [f64; N],
    ) -> rquickjs::Result<Value<'js>> {
        let raw_ctx = ctx.as_raw().as_ptr();
        let mut atoms = self.atoms.get();
        let generation = RawRuntime::generation();
        if atoms[0] == 0 || self.generation.get() != generation {
            for (a, k) in atoms.iter_mut().zip(self.keys) {
                // SAFETY: a live context of this thread's runtime.
                *a = unsafe { qjs::JS_NewAtomLen(raw_ctx, k.as_ptr().cast(), k.len() as _) };
                if *a == 0 {
                    return Err(rquickjs::Error::Exception);
                }
            }
            self.atoms.set(atoms);
            self.generation.set(generation);
        }
        let values = values.map(qjs::JS_NewFloat64);
        // SAFETY: N atoms of this runtime and N numbers (no references to
        // hand over); the new object is owned by the returned value.
        unsafe {
            let raw = qjs::JS_NewObjectFrom(raw_ctx, N as _, atoms.as_ptr(), values.as_ptr());
            if qjs::JS_IsException(raw) {
                return Err(rquickjs::Error::Exception);
            }
            Ok(Value::from_raw(ctx.clone(), raw))
        }
    }
}
