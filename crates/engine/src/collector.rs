//! The sink thread: every [`Sink`] call happens on one dedicated OS thread fed
//! by a bounded channel of sample batches, so a slow sink (a disk write, a
//! full pipe) can never stall the runtime's threads. When the channel is full,
//! workers wait (backpressure) instead of dropping samples.
//!
//! **Completion order.** Workers hand samples over in batches (up to
//! [`BATCH`] samples or 200 ms), so batches from different workers overlap
//! in time. The sink thread puts them back in order of completion (`done`)
//! before any reaches the sink: each worker publishes a *hold*, the earliest
//! completion any sample it has not yet handed over can have (the start of
//! its first unflushed request, or "none"). A buffered sample is released
//! once every hold is later than it, so no sample released later can be
//! earlier. One case cannot be waited out: a worker that finished requests
//! and then spends long in one slow request holds the others back; after
//! [`HOLD_MAX`] the buffered samples are released anyway, and the held ones
//! follow when they arrive (docs/results-format.md says so).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loadlab_core::{AttackInfo, Sample, Sink, TargetInfo};
use tokio::sync::mpsc::error::TryRecvError;
use tokio::sync::{mpsc, oneshot};

/// Samples per batch: large enough to make channel traffic negligible,
/// small enough that the live view stays current.
pub(crate) const BATCH: usize = 256;
/// Batches the channel holds before workers wait.
const CHANNEL_BATCHES: usize = 256;
/// The longest a sample waits for a slow worker's earlier samples.
pub(crate) const HOLD_MAX: Duration = Duration::from_secs(1);
/// How often the sink thread looks again at the holds while it buffers samples.
const POLL: Duration = Duration::from_millis(5);

pub(crate) enum Msg {
    Batch(Vec<Sample>),
    Target(u32, TargetInfo),
}

pub(crate) struct Collector<S> {
    pub tx: mpsc::Sender<Msg>,
    /// The sink's `finish` result and the sink itself, handed back.
    pub done: oneshot::Receiver<(std::io::Result<()>, S)>,
}

/// No unflushed sample.
const NONE: u64 = u64::MAX;

/// One worker's hold: the earliest `done_ns` a sample it still holds (or is
/// about to produce) can have. Stored once per batch, not per request.
#[derive(Clone)]
pub(crate) struct Hold(Arc<AtomicU64>);

impl Hold {
    /// The worker's batch was empty and a request starts at `begin_ns`.
    pub fn begin(&self, begin_ns: u64) {
        self.0.store(begin_ns, Ordering::Release);
    }

    /// Everything the worker held is in the channel (call after the send).
    pub fn clear(&self) {
        self.0.store(NONE, Ordering::Release);
    }
}

/// Every worker's hold.
#[derive(Default)]
pub(crate) struct Holds(Mutex<Vec<Arc<AtomicU64>>>);

impl Holds {
    pub fn register(&self) -> Hold {
        let h = Arc::new(AtomicU64::new(NONE));
        self.0.lock().expect("holds lock").push(h.clone());
        Hold(h)
    }

    fn watermark(&self) -> u64 {
        let v = self.0.lock().expect("holds lock");
        v.iter()
            .map(|h| h.load(Ordering::Acquire))
            .min()
            .unwrap_or(NONE)
    }
}

/// One worker's batch, sorted by completion, as it waits to be written.
struct Run {
    samples: Vec<Sample>,
    next: usize,
    /// When it arrived (the [`HOLD_MAX`] clock).
    at: std::time::Instant,
}

/// Batches waiting for the watermark, merged in completion order: a heap of
/// each batch's next completion (16 bytes an entry, one entry per batch, not
/// per sample).
#[derive(Default)]
struct Pending {
    runs: Vec<Option<Run>>,
    free: Vec<u32>,
    /// (next completion, arrival number, run slot), smallest first.
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    arrivals: u64,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    fn add(&mut self, mut samples: Vec<Sample>) {
        if samples.is_empty() {
            return;
        }
        // A worker's batch is in completion order already (an O(n) check).
        samples.sort_by_key(|s| s.done_ns);
        let first = samples[0].done_ns;
        let run = Run {
            samples,
            next: 0,
            at: std::time::Instant::now(),
        };
        let slot = match self.free.pop() {
            Some(i) => {
                self.runs[i as usize] = Some(run);
                i
            }
            None => {
                self.runs.push(Some(run));
                (self.runs.len() - 1) as u32
            }
        };
        self.arrivals += 1;
        self.heap.push(Reverse((first, self.arrivals, slot)));
    }

    /// Writes, in completion order, every sample that completed before
    /// `mark` (or waited [`HOLD_MAX`]); all of them when `mark` is `None`.
    /// Returns how many.
    fn release(&mut self, mark: Option<u64>, sink: &mut dyn Sink) -> usize {
        let mut n = 0;
        while let Some(mut top) = self.heap.peek_mut() {
            let Reverse((done, order, slot)) = *top;
            let run = self.runs[slot as usize].as_mut().expect("live run");
            if mark.is_some_and(|m| done >= m) && run.at.elapsed() < HOLD_MAX {
                break;
            }
            sink.record(&run.samples[run.next]);
            run.next += 1;
            n += 1;
            match run.samples.get(run.next) {
                Some(s) => *top = Reverse((s.done_ns, order, slot)),
                None => {
                    std::collections::binary_heap::PeekMut::pop(top);
                    self.runs[slot as usize] = None;
                    self.free.push(slot);
                }
            }
        }
        n
    }
}

/// Starts the sink thread. It begins the sink when `info` arrives (the
/// attack's start: the thread can be made before a `-start-at` instant,
/// and the start stamped after it), then writes what the workers send.
pub(crate) fn spawn<S: Sink + 'static>(
    mut sink: S,
    info: std::sync::mpsc::Receiver<AttackInfo>,
    targets: Vec<TargetInfo>,
    holds: Arc<Holds>,
) -> std::io::Result<Collector<S>> {
    let (tx, mut rx) = mpsc::channel::<Msg>(CHANNEL_BATCHES);
    let (done_tx, done) = oneshot::channel();
    std::thread::Builder::new()
        .name("loadlab-sink".into())
        .spawn(move || {
            // Batches sent before it wait in the channel; without it (the
            // attack failed before its start) the sink is finished unbegun.
            let Ok(info) = info.recv() else {
                let finished = sink.finish();
                let _ = done_tx.send((finished, sink));
                return;
            };
            sink.begin(&info);
            for (i, t) in targets.iter().enumerate() {
                sink.register_target(i as u32, t);
            }
            let mut pending = Pending::default();
            let mut open = true;
            while open {
                // Holds first, then the channel: a worker clears its hold
                // only after its batch is in the channel, so a cleared hold
                // means the batch is there to drain.
                let mark = holds.watermark();
                let mut take = |msg: Msg, pending: &mut Pending| match msg {
                    Msg::Batch(samples) => pending.add(samples),
                    // Registered at once: it precedes its samples either way.
                    Msg::Target(i, t) => sink.register_target(i, &t),
                };
                if pending.is_empty() {
                    // Nothing buffered: sleep until a worker sends.
                    match rx.blocking_recv() {
                        Some(msg) => take(msg, &mut pending),
                        None => open = false,
                    }
                    continue;
                }
                loop {
                    match rx.try_recv() {
                        Ok(msg) => take(msg, &mut pending),
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => {
                            open = false;
                            break;
                        }
                    }
                }
                let released = pending.release(open.then_some(mark), &mut sink);
                if open && released == 0 && !pending.is_empty() {
                    std::thread::sleep(POLL);
                }
            }
            pending.release(None, &mut sink);
            let finished = sink.finish();
            let _ = done_tx.send((finished, sink));
        })?;
    Ok(Collector { tx, done })
}
