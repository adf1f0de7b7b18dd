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

pub(crate) struct Collector {
    pub tx: mpsc::Sender<Msg>,
    pub done: oneshot::Receiver<std::io::Result<()>>,
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

/// A buffered sample, ordered by completion, then by arrival.
struct Held {
    done: u64,
    arrival: u64,
    at: std::time::Instant,
    sample: Sample,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.done, self.arrival) == (o.done, o.arrival)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.done, self.arrival).cmp(&(o.done, o.arrival))
    }
}

pub(crate) fn spawn(
    mut sink: Box<dyn Sink>,
    info: AttackInfo,
    targets: Vec<TargetInfo>,
    holds: Arc<Holds>,
) -> std::io::Result<Collector> {
    let (tx, mut rx) = mpsc::channel::<Msg>(CHANNEL_BATCHES);
    let (done_tx, done) = oneshot::channel();
    std::thread::Builder::new()
        .name("loadlab-sink".into())
        .spawn(move || {
            sink.begin(&info);
            for (i, t) in targets.iter().enumerate() {
                sink.register_target(i as u32, t);
            }
            let mut heap: BinaryHeap<Reverse<Held>> = BinaryHeap::new();
            let mut arrival = 0u64;
            let mut open = true;
            while open {
                // Holds first, then the channel: a worker clears its hold
                // only after its batch is in the channel, so a cleared hold
                // means the batch is there to drain.
                let mark = holds.watermark();
                let mut take = |msg: Msg, heap: &mut BinaryHeap<Reverse<Held>>| match msg {
                    Msg::Batch(samples) => {
                        let at = std::time::Instant::now();
                        for s in samples {
                            arrival += 1;
                            heap.push(Reverse(Held {
                                done: s.done_ns,
                                arrival,
                                at,
                                sample: s,
                            }));
                        }
                    }
                    // Registered at once: it precedes its samples either way.
                    Msg::Target(i, t) => sink.register_target(i, &t),
                };
                if heap.is_empty() {
                    // Nothing buffered: sleep until a worker sends.
                    match rx.blocking_recv() {
                        Some(msg) => take(msg, &mut heap),
                        None => open = false,
                    }
                    continue;
                }
                loop {
                    match rx.try_recv() {
                        Ok(msg) => take(msg, &mut heap),
                        Err(TryRecvError::Empty) => break,
                        Err(TryRecvError::Disconnected) => {
                            open = false;
                            break;
                        }
                    }
                }
                let mut released = false;
                while let Some(Reverse(top)) = heap.peek() {
                    if open && top.done >= mark && top.at.elapsed() < HOLD_MAX {
                        break;
                    }
                    let Reverse(h) = heap.pop().expect("peeked");
                    sink.record(&h.sample);
                    released = true;
                }
                if open && !released && !heap.is_empty() {
                    std::thread::sleep(POLL);
                }
            }
            for Reverse(h) in heap.into_sorted_vec().into_iter().rev() {
                sink.record(&h.sample);
            }
            let _ = done_tx.send(sink.finish());
        })?;
    Ok(Collector { tx, done })
}
