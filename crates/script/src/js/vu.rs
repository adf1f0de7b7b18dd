//! A VU's coroutine and the stack bookkeeping QuickJS needs when the stack
//! it runs on changes.

use std::cell::Cell;
use std::time::Duration;

use corosensei::stack::{DefaultStack, Stack};
use corosensei::{Coroutine, CoroutineResult, Yielder};
use loadlab_engine::client::{ClientRequest, ClientResponse};
use rquickjs::qjs;

/// Each VU's stack: reserved, resident only where touched.
pub const STACK_SIZE: usize = 256 * 1024;
/// Room kept below QuickJS's limit for the Rust frames of native functions
/// (which QuickJS does not check).
const MARGIN: usize = 64 * 1024;
/// The limit while JavaScript runs on the thread's own stack (init code).
const MAIN_STACK: usize = 512 * 1024;

/// What a VU asks of the scheduler.
pub enum Op {
    /// Send these (one, or a batch) and resume with the responses.
    Http(Vec<ClientRequest>),
    Sleep(Duration),
    /// Resume when this future is done (a WebSocket's next event, say),
    /// with `Resume::Http` of no responses. With an instant, the scheduler
    /// polls it once more then (from its one timer, not a timer of the
    /// future's own): the future looks at the clock and ends itself.
    Wait(WaitFn, Option<tokio::time::Instant>),
    /// The iteration (or setup/teardown) ended: `Err` holds the exception.
    Done(Result<(), String>),
}

/// Makes the future an [`Op::Wait`] waits for, given the run's client and
/// whose connections the VU's are.
pub type WaitFn = Box<
    dyn FnOnce(
        std::rc::Rc<loadlab_engine::client::Client>,
        loadlab_engine::client::Owner,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>,
>;

/// What the scheduler resumes a VU with.
pub enum Resume {
    Start,
    Http(Vec<ClientResponse>),
    Slept,
    /// The test is over for this VU: the pending call throws, and the
    /// interrupt handler stops the script.
    Abort,
    /// Leave the coroutine for good.
    Quit,
}

pub type VuCoroutine = Coroutine<Resume, Op, (), DefaultStack>;

thread_local! {
    static YIELDER: Cell<*const Yielder<Resume, Op>> = const { Cell::new(std::ptr::null()) };
    static LIMIT: Cell<usize> = const { Cell::new(0) };
    static RT: Cell<*mut qjs::JSRuntime> = const { Cell::new(std::ptr::null_mut()) };
    /// Set while a VU is being aborted: QuickJS's interrupt handler reads it.
    pub static ABORTING: Cell<bool> = const { Cell::new(false) };
    /// The VU whose JavaScript runs now (VUs share one context: the native
    /// functions find the calling VU's state by this index).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// The VU whose code runs now: its index among the run's VUs (0: the one
/// that runs `setup()` and `teardown()`, and any code on the thread's own
/// stack).
pub fn current() -> usize {
    CURRENT.with(Cell::get)
}

/// Makes `vu` the current VU (before its init code runs).
pub fn set_current(vu: usize) {
    CURRENT.with(|c| c.set(vu));
}

thread_local! {
    /// Byte offset of `current_stack_frame` in QuickJS's `JSRuntime`.
    static FRAME_OFFSET: Cell<usize> = const { Cell::new(0) };
}

/// Remembers the runtime whose stack limits the coroutines update, and
/// finds where it keeps its chain of JavaScript stack frames.
///
/// QuickJS links the frames of running functions from
/// `JSRuntime.current_stack_frame` (they live on the C stack). Each VU
/// runs on its own stack, so the chain must be the VU's own while it runs:
/// a VU that started while another was suspended would otherwise link its
/// frames to the other's, and walk them (to build an exception's stack)
/// after they are gone. The struct is private to quickjs.c, so the field
/// is found from its neighbours: `stack_size` (set here to two known values
/// in turn), then `stack_top`, `stack_limit`, `current_exception` (16
/// bytes), three `bool`s (padded to 8), `current_stack_frame` (quickjs-ng,
/// as vendored by rquickjs-sys 0.14).
///
/// # Safety
/// `rt` is null, or a live runtime used only by this thread until
/// `set_runtime(null)` is called.
pub unsafe fn set_runtime(rt: *mut qjs::JSRuntime) -> Result<(), String> {
    RT.with(|r| r.set(rt));
    if rt.is_null() {
        return Ok(());
    }
    const A: usize = 0x1234_5000;
    const B: usize = 0x2345_6000;
    // The struct is ~1.5 KB (an arena of 1000 bytes comes first); the
    // fields sit at ~1.2 KB. Read no further than 1,400 bytes.
    let words = 175;
    // SAFETY: `rt` is a live JSRuntime (hundreds of bytes long); the two
    // calls set its stack fields; the reads stay within its first 1,400 bytes (+48).
    let found = unsafe {
        let base = rt as *const usize;
        qjs::JS_SetMaxStackSize(rt, A as _);
        let cands: Vec<usize> = (0..words - 7).filter(|&i| *base.add(i) == A).collect();
        qjs::JS_SetMaxStackSize(rt, B as _);
        cands.into_iter().find(|&i| {
            *base.add(i) == B
                && (*base.add(i + 1)).wrapping_sub(*base.add(i + 2)) == B
                && (*base.add(i + 6)) == 0
        })
    };
    update_stack(0);
    match found {
        Some(i) => {
            FRAME_OFFSET.with(|o| o.set((i + 6) * std::mem::size_of::<usize>()));
            Ok(())
        }
        None => Err("unexpected QuickJS runtime layout (stack fields not found)".into()),
    }
}

fn frame() -> usize {
    let rt = RT.with(Cell::get);
    let off = FRAME_OFFSET.with(Cell::get);
    if rt.is_null() || off == 0 {
        return 0;
    }
    // SAFETY: `off` was found by `set_runtime` inside this live runtime.
    unsafe { *((rt as *const u8).add(off) as *const usize) }
}

fn set_frame(v: usize) {
    let rt = RT.with(Cell::get);
    let off = FRAME_OFFSET.with(Cell::get);
    if rt.is_null() || off == 0 {
        return;
    }
    // SAFETY: as in `frame`; only this thread uses the runtime.
    unsafe { *((rt as *mut u8).add(off) as *mut usize) = v }
}

/// Makes the current stack (below this frame) the one QuickJS checks.
#[inline(never)]
fn update_stack(limit: usize) {
    let rt = RT.with(Cell::get);
    if rt.is_null() {
        return;
    }
    let marker = 0u8;
    let sp = std::ptr::addr_of!(marker) as usize;
    let size = if limit == 0 {
        MAIN_STACK
    } else {
        sp.saturating_sub(limit).saturating_sub(MARGIN).max(4096)
    };
    // SAFETY: `rt` is the live runtime of this thread (set by the scheduler
    // before any VU runs, cleared after the last); both calls only set the
    // runtime's stack top and size fields.
    unsafe {
        qjs::JS_UpdateStackTop(rt);
        qjs::JS_SetMaxStackSize(rt, size as _);
    }
}

/// Before running JavaScript on the thread's own stack (init code).
pub fn on_main_stack() {
    set_current(0);
    set_frame(0);
    YIELDER.with(|y| y.set(std::ptr::null()));
    LIMIT.with(|l| l.set(0));
    update_stack(0);
}

/// True when the calling code runs in a VU's coroutine (so it may suspend).
pub fn in_vu() -> bool {
    !YIELDER.with(Cell::get).is_null()
}

/// Suspends the running VU with `op`. Panics outside a coroutine: callers
/// check [`in_vu`] first.
pub fn suspend(op: Op) -> Resume {
    let y = YIELDER.with(Cell::get);
    let limit = LIMIT.with(Cell::get);
    assert!(!y.is_null(), "suspend outside a VU");
    // SAFETY: `y` was stored by this coroutine's body (`spawn`) from the
    // yielder reference it was given, which lives as long as the coroutine
    // runs; this coroutine is the one running now (the scheduler resumed
    // it, and only the running coroutine's native calls reach here).
    let frames = frame();
    let me = current();
    let r = unsafe { &*y }.suspend(op);
    // Another coroutine ran meanwhile and set its own.
    set_current(me);
    set_frame(frames);
    YIELDER.with(|c| c.set(y));
    LIMIT.with(|l| l.set(limit));
    update_stack(limit);
    r
}

/// Makes VU `vu`'s coroutine. `body` runs once per `Resume::Start` and
/// returns the iteration's outcome; `Resume::Quit` ends the coroutine.
///
/// # Safety
/// `body` may borrow data (a `Ctx`) that must outlive the coroutine: the
/// caller must drive every coroutine to its end (`Resume::Quit`) before
/// that data goes away, and never drop one that is suspended.
pub unsafe fn spawn<F>(vu: usize, mut body: F) -> std::io::Result<VuCoroutine>
where
    F: FnMut() -> Result<(), String>,
{
    let stack = DefaultStack::new(STACK_SIZE)?;
    let limit = stack.limit().get();
    // SAFETY: as documented above, upheld by the scheduler.
    let co = unsafe {
        Coroutine::with_stack_unchecked(stack, move |y: &Yielder<Resume, Op>, first: Resume| {
            let mut input = first;
            loop {
                if matches!(input, Resume::Quit) {
                    return;
                }
                YIELDER.with(|c| c.set(y as *const _));
                LIMIT.with(|l| l.set(limit));
                set_current(vu);
                update_stack(limit);
                // This VU's chain of JavaScript frames starts here.
                set_frame(0);
                let r = if matches!(input, Resume::Start) {
                    body()
                } else {
                    Ok(())
                };
                input = y.suspend(Op::Done(r));
            }
        })
    };
    Ok(co)
}

/// Resumes a VU; `None` once it has ended.
pub fn resume(co: &mut VuCoroutine, input: Resume) -> Option<Op> {
    let r = co.resume(input);
    // Back on the scheduler's stack (which may run JavaScript too: the
    // setup data's JSON to each VU).
    on_main_stack();
    match r {
        CoroutineResult::Yield(op) => Some(op),
        CoroutineResult::Return(()) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Function, Runtime};

    /// `set_runtime` finds `current_stack_frame` in QuickJS's private
    /// runtime struct by its neighbours: the field must be found, hold no
    /// frame while no JavaScript runs, and hold one while it does (read
    /// from a native function the script calls). A new QuickJS whose
    /// struct moved these fields fails here instead of corrupting a run.
    #[test]
    fn the_runtime_frame_field_is_found_and_is_the_frame_chain() {
        let rt = Runtime::new().unwrap();
        let ctx = Context::full(&rt).unwrap();
        // SAFETY: `rt` outlives the calls below; this thread only uses it,
        // and the runtime is forgotten before it is dropped.
        unsafe { set_runtime(ctx.get_runtime_ptr()) }.expect("stack fields found");
        assert_ne!(FRAME_OFFSET.with(Cell::get), 0);
        assert_eq!(frame(), 0, "no JavaScript runs: no frame");
        let inside = ctx.with(|ctx| {
            let f = Function::new(ctx.clone(), || frame() as u64).unwrap();
            ctx.globals().set("frameNow", f).unwrap();
            ctx.eval::<u64, _>("(function outer() { return frameNow(); })()")
                .unwrap()
        });
        assert_ne!(inside, 0, "a JavaScript function runs: its frame is linked");
        assert_eq!(frame(), 0, "back outside: no frame");
        // SAFETY: null: forget the runtime.
        let _ = unsafe { set_runtime(std::ptr::null_mut()) };
    }
}
