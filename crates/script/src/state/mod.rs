//! What the k6 modules' natives and the run share, the layer below the
//! modules (k6's `lib.State` and `modules.VU`): the metric registry and the
//! outputs every VU records into (`run_state.rs`, an HTTP request's records
//! in `http.rs`, `--http-debug` in `http_debug.rs`), each VU's facts, and
//! what a request carries besides what the engine sends (`request.rs`).
//!
//! # State rules
//!
//! * **One thread.** The QuickJS runtime, the scheduler, every VU's
//!   coroutine and the transport (tokio, current-thread) run on the thread
//!   that called [`crate::run::setup::run`]; nothing here is `Send`, and the
//!   only locks are those of state other threads read (the logger, the
//!   remote-write pusher).
//! * **[`run_state::RunState`] holds what the natives and the scheduler both
//!   touch**: the metric registry and its series caches (`reg`, `fast*`,
//!   `http_cache`, `file_http`), the outputs (`out`, `rw`), each VU's facts
//!   (`vus`: id, scenario, group, tags, iteration numbers, expected
//!   statuses), the test's counters (`completed`, `interrupted`, `active`,
//!   `scenario_iters`), the progress lines (`views`, `live`), `abort`, and
//!   the run's fixed facts (options JSON, base tags, system tags, start
//!   instants). What one executor or one VU alone needs is not in it: the
//!   scheduler's own state lives in `Sched` and `ScenState`, a VU's
//!   JavaScript values in its `Slot`'s holder.
//! * **A `RefCell` of `RunState` is borrowed only inside one function that
//!   neither runs JavaScript nor switches VU**: a borrow never lives across
//!   a call into the script (a callback, `handleSummary`, a timer), across
//!   `vu::suspend`/`vu::resume`, or across another method of `RunState` that
//!   borrows the same cell (`log` borrows `live`; `script_console` borrows
//!   `console_file`). Take what is needed, drop the borrow, then call.
//!   Two shared borrows of one cell (the summary reading `reg` while the
//!   thresholds read it) are fine; a `borrow_mut` is always alone.
//! * **Re-entry.** A native the script calls runs on the calling VU's
//!   coroutine (`crate::js::vu::current` says which VU). When it calls back into
//!   JavaScript (a response callback, a WebSocket handler, a timer), that
//!   code may call natives again, on the same stack: so a native holds no
//!   `RunState` borrow and no `&mut` into a VU's state while it calls back,
//!   and reads the VU's facts again afterwards (another VU may have run in
//!   between if the callback suspended). A VU suspends only through
//!   `vu::suspend`, which saves and restores its current-VU mark, stack
//!   limits and QuickJS frame chain (`js/vu.rs`).

pub(crate) mod http;
pub(crate) mod http_debug;
pub(crate) mod request;
pub mod run_state;
