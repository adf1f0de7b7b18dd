//! Stops a VU whose JavaScript does not yield: an endless or very long
//! synchronous loop. The VUs share one thread, so such a VU holds the run
//! loop too; QuickJS's interrupt handler is the only way back.
//!
//! The handler runs every few thousand JavaScript operations, so what it
//! does on every call is one relaxed atomic load (the "hint"). A ticker
//! thread sets the hint every [`TICK`]; the handler then looks, on the JS
//! thread, at what really counts: whether the running VU is past its
//! deadline (its scenario's graceful stop's end, or `setupTimeout` for
//! `setup()`), or whether the test was asked to stop (the first Ctrl-C:
//! [`StopSwitch::stop_vus`]). Either interrupts the VU: QuickJS throws an
//! uncatchable error, the iteration ends, and the scheduler books it as
//! interrupted (as k6 does at the end of a graceful stop).

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::{Duration, Instant};

/// How often the ticker asks the handler to look.
pub const TICK: Duration = Duration::from_millis(20);

/// What the first Ctrl-C sets, from any thread: the VU running now is
/// interrupted (and any VU resumed before the run loop notices the stop).
#[derive(Debug, Clone, Default)]
pub struct StopSwitch(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    /// Set by the ticker and by a stop: the handler looks further.
    hint: AtomicBool,
    /// [`IDLE`], [`ASKED`] (not yet noticed by the run loop) or [`SEEN`].
    stop: AtomicU8,
}

const IDLE: u8 = 0;
const ASKED: u8 = 1;
const SEEN: u8 = 2;

impl StopSwitch {
    /// Interrupts the VUs' JavaScript (from a signal's thread, say): the
    /// run then ends as after Ctrl-C.
    pub fn stop_vus(&self) {
        let _ = self
            .0
            .stop
            .compare_exchange(IDLE, ASKED, Ordering::SeqCst, Ordering::SeqCst);
        self.0.hint.store(true, Ordering::SeqCst);
    }

    /// True once when a stop was asked for: the run loop ends the
    /// scenarios (teardown and the summary then run uninterrupted).
    pub(crate) fn take_request(&self) -> bool {
        self.0
            .stop
            .compare_exchange(ASKED, SEEN, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// The caller's shutdown future fired: false when the run loop had
    /// already taken the stop (by [`StopSwitch::take_request`]), so it is
    /// not acted on twice.
    pub(crate) fn shutdown_is_new(&self) -> bool {
        self.0.stop.swap(SEEN, Ordering::SeqCst) != SEEN
    }

    fn asked(&self) -> bool {
        self.0.stop.load(Ordering::SeqCst) == ASKED
    }

    /// QuickJS's interrupt handler for the run's runtime.
    pub(crate) fn handler(&self) -> Box<dyn FnMut() -> bool + 'static> {
        let me = self.clone();
        Box::new(move || {
            super::super::js::vu::ABORTING.with(Cell::get)
                || (me.0.hint.load(Ordering::Relaxed) && me.look())
        })
    }

    /// The hint was set: is the running VU to stop?
    #[cold]
    fn look(&self) -> bool {
        if !crate::js::vu::in_vu() {
            // Init code, handleSummary: never interrupted (the hint stays
            // for the next VU).
            return false;
        }
        let past = DEADLINE
            .with(Cell::get)
            .is_some_and(|d| Instant::now() >= d);
        if past || self.asked() {
            FIRED.with(|f| f.set(true));
            return true;
        }
        self.0.hint.store(false, Ordering::SeqCst);
        // A stop set between the two looks keeps its hint.
        if self.asked() {
            FIRED.with(|f| f.set(true));
            return true;
        }
        false
    }

    /// Starts the ticker; it ends when the returned value is dropped.
    pub(crate) fn ticker(&self) -> Ticker {
        let me = self.clone();
        let quit = Arc::new(AtomicBool::new(false));
        let q = quit.clone();
        let handle = std::thread::Builder::new()
            .name("k6-js-watchdog".into())
            .spawn(move || {
                while !q.load(Ordering::Relaxed) {
                    std::thread::park_timeout(TICK);
                    me.0.hint.store(true, Ordering::Relaxed);
                }
            })
            .ok();
        Ticker { quit, handle }
    }
}

/// The ticker thread of [`StopSwitch::ticker`].
pub(crate) struct Ticker {
    quit: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.quit.store(true, Ordering::Relaxed);
        if let Some(h) = self.handle.take() {
            h.thread().unpark();
            let _ = h.join();
        }
    }
}

thread_local! {
    /// The running VU's deadline (none between resumes).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The handler interrupted the running VU.
    static FIRED: Cell<bool> = const { Cell::new(false) };
}

/// The deadline of the VU about to be resumed (`None` after it yields).
pub(crate) fn set_deadline(d: Option<Instant>) {
    DEADLINE.with(|c| c.set(d));
}

/// True once after the handler interrupted a VU.
pub(crate) fn take_fired() -> bool {
    FIRED.with(|f| f.replace(false))
}
