//! The runtime calls rquickjs has no safe wrapper for that the run needs
//! while a context is entered (rquickjs's own `Runtime` methods take the
//! runtime's lock, which `Context::with` holds).

use std::cell::Cell;

use rquickjs::{Context, qjs};

thread_local! {
    /// How many runtimes this thread attached (what is kept per runtime,
    /// such as atoms, is made again for a new one).
    static GENERATION: Cell<u64> = const { Cell::new(0) };
}

/// The run's QuickJS runtime, by its raw pointer.
///
/// Made from a live context of the runtime; `run` keeps the runtime alive
/// to its end and uses it on its own thread only, so every call here acts
/// on a live runtime that nothing else touches at the same time.
#[derive(Clone, Copy)]
pub(crate) struct RawRuntime(*mut qjs::JSRuntime);

impl RawRuntime {
    pub(crate) fn of(ctx: &Context) -> RawRuntime {
        RawRuntime(ctx.get_runtime_ptr())
    }

    /// Makes this the runtime whose stack limits the VUs' coroutines
    /// update ([`super::vu::set_runtime`]); the k6 modules' classes are
    /// registered next, before any context installs the modules.
    pub(crate) fn attach(self) -> Result<(), String> {
        GENERATION.with(|g| g.set(g.get() + 1));
        // SAFETY: the runtime outlives the run, which uses it on this
        // thread only (see the type).
        unsafe { super::vu::set_runtime(self.0) }
    }

    /// Which runtime this thread attached last (see [`RawRuntime::attach`]).
    pub(crate) fn generation() -> u64 {
        GENERATION.with(Cell::get)
    }

    /// The raw pointer, for the calls in `js/` (live: see the type).
    pub(super) fn as_ptr(self) -> *mut qjs::JSRuntime {
        self.0
    }

    /// Forgets the runtime (the VUs' stack bookkeeping stops).
    pub(crate) fn detach() {
        // SAFETY: null: forget the runtime.
        let _ = unsafe { super::vu::set_runtime(std::ptr::null_mut()) };
    }

    /// The heap size at which QuickJS collects next.
    pub(crate) fn set_gc_threshold(self, bytes: usize) {
        // SAFETY: the live runtime, used by this thread only.
        unsafe { qjs::JS_SetGCThreshold(self.0, bytes as _) };
    }

    /// Collects, and returns the live heap (bytes) after it.
    pub(crate) fn collect(self) -> usize {
        self.run_gc();
        self.memory_usage().malloc_size.max(0) as usize
    }

    fn run_gc(self) {
        // SAFETY: as in `set_gc_threshold`.
        unsafe { qjs::JS_RunGC(self.0) };
    }

    /// QuickJS's figures of its heap.
    pub(crate) fn memory_usage(self) -> qjs::JSMemoryUsage {
        let mut u = std::mem::MaybeUninit::<qjs::JSMemoryUsage>::zeroed();
        // SAFETY: `rt` is the live runtime; the call only reads it and
        // fills `u`.
        unsafe {
            qjs::JS_ComputeMemoryUsage(self.0, u.as_mut_ptr());
            u.assume_init()
        }
    }
}

/// The bytes of an `ArrayBuffer`, copied (`None` when detached).
pub(crate) fn array_buffer_bytes(ab: &rquickjs::ArrayBuffer<'_>) -> Option<Vec<u8>> {
    // SAFETY: the buffer is not detached or resized while copied (no
    // JavaScript runs in between).
    unsafe { ab.as_bytes() }.map(<[u8]>::to_vec)
}

/// One of the helpers the k6 modules' installer (`modules::install`) keeps on the hidden `__k6` object.
pub fn k6_helper<'js>(
    ctx: &rquickjs::Ctx<'js>,
    name: &str,
) -> rquickjs::Result<rquickjs::Function<'js>> {
    ctx.globals()
        .get::<_, rquickjs::Object>("__k6")
        .and_then(|k| k.get::<_, rquickjs::Function>(name))
}
