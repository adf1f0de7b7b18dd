//! The wakers of the VUs' requests in flight, and their sending.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Wake, Waker};

use loadlab_engine::client::{Client, ClientResponse};
use tokio::time::Instant;

/// The VUs whose request in flight made progress (its waker fired), for
/// the scheduler to poll: the requests are not tasks of their own, so an
/// answer resumes its VU in the same pass that read it, with no task
/// cell, channel message or extra wake-up of the scheduler per request.
#[derive(Default)]
pub(crate) struct Ready {
    pub(crate) list: Mutex<Vec<usize>>,
    /// The scheduler's waker while it waits.
    pub(crate) waker: Mutex<Option<Waker>>,
}

/// The waker of a future polled only after it has asked to be (see the
/// shutdown future in [`run`]): it notes the wake and passes it on to the
/// waker of whoever polls the gated future.
pub(crate) struct Gate {
    pub(crate) woken: AtomicBool,
    pub(crate) outer: Mutex<Option<Waker>>,
}

impl Default for Gate {
    fn default() -> Self {
        Gate {
            // The first poll goes through.
            woken: AtomicBool::new(true),
            outer: Mutex::new(None),
        }
    }
}

impl Gate {
    /// Keeps `outer` to wake; true when the gated future is to be polled
    /// (it was woken since its last poll).
    pub(crate) fn open(&self, outer: &Waker) -> bool {
        {
            let mut w = self.outer.lock().expect("gate lock");
            match &*w {
                Some(old) if old.will_wake(outer) => {}
                _ => *w = Some(outer.clone()),
            }
        }
        self.woken.swap(false, Ordering::AcqRel)
    }
}

impl Wake for Gate {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if let Some(w) = self.outer.lock().expect("gate lock").as_ref() {
            w.wake_by_ref();
        }
    }
}

/// A VU's request's waker: queues the VU once until it is polled.
pub(crate) struct VuWaker {
    pub(crate) vu: usize,
    pub(crate) queued: AtomicBool,
    pub(crate) ready: Arc<Ready>,
}

impl VuWaker {
    /// Queues the VU; true if it was not queued yet.
    pub(crate) fn queue(&self) -> bool {
        if self.queued.swap(true, Ordering::AcqRel) {
            return false;
        }
        self.ready.list.lock().expect("ready lock").push(self.vu);
        true
    }
}

impl Wake for VuWaker {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &Arc<Self>) {
        if self.queue()
            && let Some(w) = self.ready.waker.lock().expect("ready lock").take()
        {
            w.wake();
        }
    }
}

/// Sends a batch's requests concurrently (begun at `begin`, see
/// [`Client::send_polled`]); the responses in request order.
/// The host (and port) a request goes to, for `batchPerHost`.
pub(crate) fn authority(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let a = &rest[..end];
    a.rsplit_once('@').map_or(a, |(_, h)| h)
}

/// An `http.batch()`: every request at once when they fit in `limits`
/// (in flight, per host), as most batches do; else [`send_limited`].
pub(crate) async fn send_all(
    client: Rc<Client>,
    reqs: Vec<loadlab_engine::client::ClientRequest>,
    begin: Instant,
    limits: (usize, usize),
) -> Vec<ClientResponse> {
    let (batch, per_host) = limits;
    let fits = reqs.len() <= batch
        && (reqs.len() <= per_host || {
            let mut n: HashMap<&str, usize> = HashMap::new();
            reqs.iter().all(|r| {
                let c = n.entry(authority(&r.url)).or_default();
                *c += 1;
                *c <= per_host
            })
        });
    if !fits {
        return send_limited(client, reqs, limits).await;
    }
    let mut futs: Vec<Pin<Box<dyn Future<Output = ClientResponse>>>> = reqs
        .into_iter()
        .map(|r| {
            let c = client.clone();
            Box::pin(async move { c.send_polled(r, begin).await })
                as Pin<Box<dyn Future<Output = ClientResponse>>>
        })
        .collect();
    let mut out: Vec<Option<ClientResponse>> = futs.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, o) in futs.iter_mut().zip(out.iter_mut()) {
            if o.is_none() {
                match f.as_mut().poll(cx) {
                    Poll::Ready(r) => *o = Some(r),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    })
    .await;
    out.into_iter().flatten().collect()
}

/// An `http.batch()` over k6's limits (`batch`, `batchPerHost`): requests
/// start in order as room frees, at most `batch` in flight and
/// `batchPerHost` to one host. Each is timed, and timed out, from its own
/// start (its own timer: the scheduler's deadlines are the batch's start).
pub(crate) async fn send_limited(
    client: Rc<Client>,
    reqs: Vec<loadlab_engine::client::ClientRequest>,
    (batch, per_host): (usize, usize),
) -> Vec<ClientResponse> {
    type Fut = Pin<Box<dyn Future<Output = ClientResponse>>>;
    let hosts: Vec<String> = reqs.iter().map(|r| authority(&r.url).to_string()).collect();
    let mut waiting: std::collections::VecDeque<(usize, loadlab_engine::client::ClientRequest)> =
        reqs.into_iter().enumerate().collect();
    let mut out: Vec<Option<ClientResponse>> = (0..hosts.len()).map(|_| None).collect();
    let mut running: Vec<(usize, Fut)> = Vec::new();
    let mut busy: HashMap<String, usize> = HashMap::new();
    std::future::poll_fn(|cx| {
        loop {
            // Start, in order, what has room.
            let mut k = 0;
            while k < waiting.len() && running.len() < batch {
                let i = waiting[k].0;
                let c = busy.entry(hosts[i].clone()).or_default();
                if *c >= per_host {
                    k += 1;
                    continue;
                }
                *c += 1;
                let (_, r) = waiting.remove(k).expect("in range");
                let c = client.clone();
                running.push((i, Box::pin(async move { c.send(r).await })));
            }
            let mut ended = false;
            running.retain_mut(|(i, f)| match f.as_mut().poll(cx) {
                Poll::Ready(r) => {
                    out[*i] = Some(r);
                    if let Some(c) = busy.get_mut(&hosts[*i]) {
                        *c -= 1;
                    }
                    ended = true;
                    false
                }
                Poll::Pending => true,
            });
            if waiting.is_empty() && running.is_empty() {
                return Poll::Ready(());
            }
            if !ended {
                return Poll::Pending;
            }
        }
    })
    .await;
    out.into_iter().flatten().collect()
}
