//! A VU's HTTP request (or batch) in flight, as the scheduler holds it.
//!
//! A single request, by far the common case, runs in a box taken from the
//! scheduler's [`Boxes`] and given back when it ends; the box's future
//! runs one request after another ([`serve`]). A request's future
//! is ~8.8 KiB (the test below), and glibc's malloc
//! answers a request of that size from its large bins after merging every
//! free small chunk first (`malloc_consolidate`): one fresh box per request
//! cost the k6 face ~10 % of its CPU per request on the DSPS pub/sub script (bench/k6.py, paired).
//! A batch, rare, gets a box of its own.

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use loadlab_engine::client::{Client, ClientRequest, ClientResponse};
use tokio::time::Instant;

/// A batch's requests in flight: their responses, in request order.
pub type Batch = Pin<Box<dyn Future<Output = Vec<ClientResponse>>>>;

/// The boxes of requests that ended, for the next ones: as many as were
/// in flight at once at most (not one per VU: a request's future is
/// 8.8 KiB, and a box per VU kept 84 MiB idle at 10,000 sleeping VUs,
/// bench/RESULTS.md).
#[derive(Default)]
pub struct Boxes(Vec<Pin<Box<dyn OneRequest>>>);

impl Boxes {
    fn take(&mut self) -> Pin<Box<dyn OneRequest>> {
        self.0.pop().unwrap_or_else(|| {
            Box::pin(Reused {
                make: serve,
                slot: Rc::default(),
                fut: None,
            })
        })
    }
}

/// One VU's request in flight, if any.
#[derive(Default)]
pub struct InFlight {
    state: State,
}

#[derive(Default)]
enum State {
    #[default]
    Idle,
    /// One request, in a box taken from [`Boxes`].
    One(Pin<Box<dyn OneRequest>>),
    Many(Batch),
    /// Ended while it was being started (a bad URL, say): handed over by
    /// the scheduler's next pass.
    Done(Vec<ClientResponse>),
}

impl InFlight {
    /// True while a request is in flight (or ended and not yet taken).
    pub fn is_busy(&self) -> bool {
        !matches!(self.state, State::Idle)
    }

    /// Starts one request, begun at `begin` (see [`Client::send_polled`]).
    pub fn start_one(
        &mut self,
        boxes: &mut Boxes,
        client: Rc<Client>,
        req: ClientRequest,
        begin: Instant,
    ) {
        self.clear(boxes);
        let mut b = boxes.take();
        b.as_mut().start(client, req, begin);
        self.state = State::One(b);
    }

    /// Starts a batch.
    pub fn start_batch(&mut self, boxes: &mut Boxes, batch: Batch) {
        self.clear(boxes);
        self.state = State::Many(batch);
    }

    /// Polls the request; its responses once it ended (then idle again,
    /// its box back in `boxes`).
    pub fn poll(&mut self, cx: &mut Context<'_>, boxes: &mut Boxes) -> Poll<Vec<ClientResponse>> {
        let out = match &mut self.state {
            State::Idle => return Poll::Pending,
            State::One(b) => match b.as_mut().poll_one(cx) {
                Poll::Ready(r) => vec![r],
                Poll::Pending => return Poll::Pending,
            },
            State::Many(f) => match f.as_mut().poll(cx) {
                Poll::Ready(r) => r,
                Poll::Pending => return Poll::Pending,
            },
            State::Done(r) => std::mem::take(r),
        };
        if let State::One(b) = std::mem::take(&mut self.state) {
            boxes.0.push(b);
        }
        Poll::Ready(out)
    }

    /// Polls a request just started, once: if it ended already, keeps its
    /// responses for the next [`poll`](Self::poll) and returns true.
    pub fn poll_started(&mut self, cx: &mut Context<'_>, boxes: &mut Boxes) -> bool {
        match self.poll(cx, boxes) {
            Poll::Ready(r) => {
                self.state = State::Done(r);
                true
            }
            Poll::Pending => false,
        }
    }

    /// Drops the request in flight (closing its connection).
    pub fn clear(&mut self, boxes: &mut Boxes) {
        if let State::One(mut b) = std::mem::take(&mut self.state) {
            b.as_mut().clear();
            boxes.0.push(b);
        }
    }
}

/// A box's requests, one after another: the job handed over by
/// [`OneRequest::start`], and the response it ended with.
#[derive(Default)]
struct Slot {
    job: Cell<Option<(Rc<Client>, ClientRequest, Instant)>>,
    done: Cell<Option<ClientResponse>>,
}

/// The box's future: it runs each job put in `slot` and leaves its
/// response there. It lives as long as the box, so starting a request
/// writes a job, not a new ~8.8 KiB future (its copy into place under
/// `Pin::set` was 1.1 % of the k6 face's CPU on the DSPS pub/sub script).
fn serve(slot: Rc<Slot>) -> impl Future<Output = ()> {
    // Unconstrained: the requests run inside the scheduler's own task,
    // whose cooperative budget would otherwise run out after a hundred
    // reads and make every further read return at once (woken again,
    // polled again: a spin).
    tokio::task::unconstrained(async move {
        loop {
            let (client, req, begin) = std::future::poll_fn(|_| match slot.job.take() {
                Some(j) => Poll::Ready(j),
                // Polled only by the scheduler, after it started a job.
                None => Poll::Pending,
            })
            .await;
            let r = client.send_polled(req, begin).await;
            slot.done.set(Some(r));
        }
    })
}

/// The reusable box's face (its future's type has no name).
pub trait OneRequest {
    fn start(self: Pin<&mut Self>, client: Rc<Client>, req: ClientRequest, begin: Instant);
    fn poll_one(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ClientResponse>;
    fn clear(self: Pin<&mut Self>);
}

pin_project_lite::pin_project! {
    struct Reused<F> {
        make: fn(Rc<Slot>) -> F,
        slot: Rc<Slot>,
        #[pin]
        fut: Option<F>,
    }
}

impl<F: Future<Output = ()>> OneRequest for Reused<F> {
    fn start(self: Pin<&mut Self>, client: Rc<Client>, req: ClientRequest, begin: Instant) {
        let mut this = self.project();
        this.slot.job.set(Some((client, req, begin)));
        if this.fut.is_none() {
            // The first request, or the first after a `clear`.
            let f = (this.make)(this.slot.clone());
            this.fut.set(Some(f));
        }
    }

    fn poll_one(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ClientResponse> {
        let this = self.project();
        let Some(f) = this.fut.as_pin_mut() else {
            return Poll::Pending;
        };
        // Never ready: it waits for the next job once a response is in.
        let _ = f.poll(cx);
        match this.slot.done.take() {
            Some(r) => Poll::Ready(r),
            None => Poll::Pending,
        }
    }

    fn clear(self: Pin<&mut Self>) {
        // Drops the request in flight, if any (closing its connection).
        let mut this = self.project();
        this.fut.set(None);
        this.slot.job.set(None);
        this.slot.done.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size the module's notes quote (a future this large is why the
    /// boxes are reused).
    #[test]
    fn a_request_future_is_kilobytes() {
        let client = Rc::new(Client::new(&loadlab_engine::AttackConfig::default()).unwrap());
        let req = ClientRequest {
            method: http::Method::GET,
            url: "http://127.0.0.1:1/".into(),
            headers: Vec::new(),
            body: bytes::Bytes::new(),
            timeout: std::time::Duration::from_secs(1),
            redirects: 0,
            keep_body: false,
            redirect_cookies: None,
            uri: None,
            owner: loadlab_engine::client::Owner::default(),
        };
        let f = async move { client.send_polled(req, Instant::now()).await };
        let n = std::mem::size_of_val(&f);
        eprintln!("request future: {n} bytes");
        assert!(n > 1024, "{n}");
    }
}
