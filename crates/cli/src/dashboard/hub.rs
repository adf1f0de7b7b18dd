//! The hub between a run and the dashboard's clients: the per-second points
//! published so far, the open event streams, and the Stop request.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use tokio::sync::mpsc;

/// Shared by the run (which publishes) and the server (which subscribes).
pub struct Hub {
    inner: Mutex<Inner>,
    /// An export was asked for: the whole run is recorded, watched or not.
    keep_all: bool,
    /// Some client is connected (kept beside the list: read per sample).
    watched: AtomicBool,
    stop: tokio::sync::Notify,
    stopped: AtomicBool,
}

#[derive(Default)]
struct Inner {
    /// What the run is (name, kind, targets), as JSON.
    meta: serde_json::Value,
    /// Every per-second point published, as JSON.
    points: Vec<serde_json::Value>,
    /// The latest whole-run totals.
    totals: serde_json::Value,
    /// Set when the run has ended.
    done: bool,
    clients: Vec<mpsc::UnboundedSender<Bytes>>,
}

/// One server-sent event.
fn event(name: &str, data: &serde_json::Value) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

impl Hub {
    pub fn new(meta: serde_json::Value, keep_all: bool) -> Arc<Hub> {
        Arc::new(Hub {
            inner: Mutex::new(Inner {
                meta,
                ..Default::default()
            }),
            keep_all,
            watched: AtomicBool::new(false),
            stop: tokio::sync::Notify::new(),
            stopped: AtomicBool::new(false),
        })
    }

    /// True while someone needs figures: a client is connected, or an
    /// export is to be written at the end. Otherwise no point is computed.
    pub fn wanted(&self) -> bool {
        self.keep_all || self.watched.load(Ordering::Relaxed)
    }

    /// A new event stream: first everything so far (one `hello` event),
    /// then each point as it is published.
    pub fn subscribe(&self) -> mpsc::UnboundedReceiver<Bytes> {
        let (tx, rx) = mpsc::unbounded_channel();
        if let Ok(mut g) = self.inner.lock() {
            let hello = serde_json::json!({
                "meta": g.meta,
                "points": g.points,
                "totals": g.totals,
                "done": g.done,
            });
            let _ = tx.send(event("hello", &hello));
            if !g.done {
                g.clients.push(tx);
                self.watched.store(true, Ordering::Relaxed);
            }
        }
        rx
    }

    /// Publishes one second's point and the totals so far; clients that
    /// went away are forgotten here.
    pub fn publish(&self, point: Option<serde_json::Value>, totals: serde_json::Value) {
        let Ok(mut g) = self.inner.lock() else {
            return;
        };
        let msg = event(
            "tick",
            &serde_json::json!({ "point": point, "totals": totals }),
        );
        if let Some(p) = point {
            g.points.push(p);
        }
        g.totals = totals;
        g.clients.retain(|c| c.send(msg.clone()).is_ok());
        self.watched.store(!g.clients.is_empty(), Ordering::Relaxed);
    }

    /// The run ended: clients get a last `done` event and their streams close.
    pub fn finish(&self, totals: serde_json::Value) {
        let Ok(mut g) = self.inner.lock() else {
            return;
        };
        g.done = true;
        g.totals = totals;
        let msg = event("done", &serde_json::json!({ "totals": g.totals }));
        for c in g.clients.drain(..) {
            let _ = c.send(msg.clone());
        }
        self.watched.store(false, Ordering::Relaxed);
    }

    /// Everything, for the exported page.
    pub fn snapshot(&self) -> serde_json::Value {
        self.inner.lock().map_or(serde_json::Value::Null, |g| {
            serde_json::json!({
                "meta": g.meta,
                "points": g.points,
                "totals": g.totals,
                "done": true,
            })
        })
    }

    /// The Stop button: ends the run as Ctrl-C does.
    pub fn request_stop(&self) {
        self.stopped.store(true, Ordering::Relaxed);
        self.stop.notify_one();
    }

    /// True once Stop was pressed.
    pub fn stop_was_requested(&self) -> bool {
        self.stopped.load(Ordering::Relaxed)
    }

    /// Resolves when Stop is pressed.
    pub async fn stopped(&self) {
        self.stop.notified().await;
    }
}
