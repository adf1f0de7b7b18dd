//! A VU's HTTP request (or batch) in flight, as the scheduler holds it.
//!
//! A single request, by far the common case, runs in a box the VU keeps and
//! reuses. The request's future is over a kilobyte, and glibc's malloc
//! answers a request of that size from its large bins after merging every
//! free small chunk first (`malloc_consolidate`): one fresh box per request
//! cost the k6 face ~10 % of its CPU per request on seed 004's script (bench/k6.py, paired).
//! A batch, rare, gets a box of its own.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use loadlab_engine::client::{Client, ClientRequest, ClientResponse};
use tokio::time::Instant;

/// A batch's requests in flight: their responses, in request order.
pub type Batch = Pin<Box<dyn Future<Output = Vec<ClientResponse>>>>;

/// One VU's request in flight, if any.
#[derive(Default)]
pub struct InFlight {
    /// The single-request box, made at the VU's first request, then reused.
    one: Option<Pin<Box<dyn OneRequest>>>,
    state: State,
}

#[derive(Default)]
enum State {
    #[default]
    Idle,
    /// The request in `one`.
    One,
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
    pub fn start_one(&mut self, client: Rc<Client>, req: ClientRequest, begin: Instant) {
        self.clear();
        self.one
            .get_or_insert_with(|| {
                Box::pin(Reused {
                    make: one_request,
                    fut: None,
                })
            })
            .as_mut()
            .start(client, req, begin);
        self.state = State::One;
    }

    /// Starts a batch.
    pub fn start_batch(&mut self, batch: Batch) {
        self.clear();
        self.state = State::Many(batch);
    }

    /// Polls the request; its responses once it ended (then idle again).
    pub fn poll(&mut self, cx: &mut Context<'_>) -> Poll<Vec<ClientResponse>> {
        let out = match &mut self.state {
            State::Idle => return Poll::Pending,
            State::One => match self.one.as_mut() {
                Some(one) => match one.as_mut().poll_one(cx) {
                    Poll::Ready(r) => vec![r],
                    Poll::Pending => return Poll::Pending,
                },
                None => return Poll::Pending,
            },
            State::Many(f) => match f.as_mut().poll(cx) {
                Poll::Ready(r) => r,
                Poll::Pending => return Poll::Pending,
            },
            State::Done(r) => std::mem::take(r),
        };
        self.state = State::Idle;
        Poll::Ready(out)
    }

    /// Polls a request just started, once: if it ended already, keeps its
    /// responses for the next [`poll`](Self::poll) and returns true.
    pub fn poll_started(&mut self, cx: &mut Context<'_>) -> bool {
        match self.poll(cx) {
            Poll::Ready(r) => {
                self.state = State::Done(r);
                true
            }
            Poll::Pending => false,
        }
    }

    /// Drops the request in flight (closing its connection); keeps the box.
    pub fn clear(&mut self) {
        if let (State::One, Some(one)) = (&self.state, self.one.as_mut()) {
            one.as_mut().clear();
        }
        self.state = State::Idle;
    }
}

fn one_request(
    client: Rc<Client>,
    req: ClientRequest,
    begin: Instant,
) -> impl Future<Output = ClientResponse> {
    // Unconstrained: the requests run inside the scheduler's own task,
    // whose cooperative budget would otherwise run out after a hundred
    // reads and make every further read return at once (woken again,
    // polled again: a spin).
    tokio::task::unconstrained(async move { client.send_polled(req, begin).await })
}

/// The reusable box's face (its future's type has no name).
trait OneRequest {
    fn start(self: Pin<&mut Self>, client: Rc<Client>, req: ClientRequest, begin: Instant);
    fn poll_one(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ClientResponse>;
    fn clear(self: Pin<&mut Self>);
}

pin_project_lite::pin_project! {
    struct Reused<F> {
        make: fn(Rc<Client>, ClientRequest, Instant) -> F,
        #[pin]
        fut: Option<F>,
    }
}

impl<F: Future<Output = ClientResponse>> OneRequest for Reused<F> {
    fn start(self: Pin<&mut Self>, client: Rc<Client>, req: ClientRequest, begin: Instant) {
        let mut this = self.project();
        let f = (this.make)(client, req, begin);
        this.fut.set(Some(f));
    }

    fn poll_one(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ClientResponse> {
        let mut this = self.project();
        let Some(f) = this.fut.as_mut().as_pin_mut() else {
            return Poll::Pending;
        };
        let r = std::task::ready!(f.poll(cx));
        // Ended: dropped now, not at the next request.
        this.fut.set(None);
        Poll::Ready(r)
    }

    fn clear(self: Pin<&mut Self>) {
        let mut this = self.project();
        this.fut.set(None);
    }
}
