//! The sink thread: every [`Sink`] call happens on one dedicated OS thread fed
//! by a bounded channel of sample batches, so a slow sink (a disk write, a
//! full pipe) can never stall the runtime's threads. When the channel is full,
//! workers wait (backpressure) instead of dropping samples.

use loadlab_core::{AttackInfo, Sample, Sink, TargetInfo};
use tokio::sync::{mpsc, oneshot};

/// Samples per batch: large enough to make channel traffic negligible,
/// small enough that the live view stays current.
pub(crate) const BATCH: usize = 256;
/// Batches the channel holds before workers wait.
const CHANNEL_BATCHES: usize = 256;

pub(crate) enum Msg {
    Batch(Vec<Sample>),
    Target(u32, TargetInfo),
}

pub(crate) struct Collector {
    pub tx: mpsc::Sender<Msg>,
    pub done: oneshot::Receiver<std::io::Result<()>>,
}

pub(crate) fn spawn(
    mut sink: Box<dyn Sink>,
    info: AttackInfo,
    targets: Vec<TargetInfo>,
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
            while let Some(msg) = rx.blocking_recv() {
                match msg {
                    Msg::Batch(samples) => {
                        for s in &samples {
                            sink.record(s);
                        }
                    }
                    Msg::Target(i, t) => sink.register_target(i, &t),
                }
            }
            let _ = done_tx.send(sink.finish());
        })?;
    Ok(Collector { tx, done })
}
