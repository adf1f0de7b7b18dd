//! The response body: a shared `Bytes` normally, or a shaped stream for the
//! slow-body and truncated-body faults.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};

/// The error that makes hyper abort a connection mid-response (a fault, on purpose).
#[derive(Debug)]
pub struct Aborted;

impl std::fmt::Display for Aborted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("response aborted by a simulated fault")
    }
}

impl std::error::Error for Aborted {}

pub enum OriginBody {
    /// The whole body in one frame (None once sent, or for empty bodies).
    Full(Option<Bytes>),
    Shaped(Box<Shaped>),
}

/// A body sent slowly and/or cut short.
pub struct Shaped {
    data: Bytes,
    sent: usize,
    /// Stop here; if short of the end, fail the body so the connection is cut.
    stop_at: usize,
    bytes_per_sec: Option<u64>,
    sleep: Option<Pin<Box<Sleep>>>,
    cutting: bool,
}

/// Slow bodies are sent in ticks of this length.
const TICK: Duration = Duration::from_millis(50);
/// A truncated body waits this long after its last bytes before the connection is cut.
const CUT_PAUSE: Duration = Duration::from_millis(20);

impl OriginBody {
    pub fn full(b: Bytes) -> Self {
        if b.is_empty() {
            OriginBody::Full(None)
        } else {
            OriginBody::Full(Some(b))
        }
    }

    pub fn empty() -> Self {
        OriginBody::Full(None)
    }

    pub fn shaped(data: Bytes, keep: Option<f64>, bytes_per_sec: Option<u64>) -> Self {
        let stop_at = match keep {
            Some(k) => ((data.len() as f64 * k) as usize).min(data.len().saturating_sub(1)),
            None => data.len(),
        };
        OriginBody::Shaped(Box::new(Shaped {
            data,
            sent: 0,
            stop_at,
            bytes_per_sec,
            sleep: None,
            cutting: false,
        }))
    }
}

impl Body for OriginBody {
    type Data = Bytes;
    type Error = Aborted;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Aborted>>> {
        match self.get_mut() {
            OriginBody::Full(b) => Poll::Ready(b.take().map(|b| Ok(Frame::data(b)))),
            OriginBody::Shaped(s) => s.poll_next(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(self, OriginBody::Full(None))
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            OriginBody::Full(b) => SizeHint::with_exact(b.as_ref().map_or(0, |b| b.len() as u64)),
            // The full length is announced even when the body will be cut short.
            OriginBody::Shaped(s) => SizeHint::with_exact((s.data.len() - s.sent) as u64),
        }
    }
}

impl Shaped {
    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Aborted>>> {
        if self.sent >= self.stop_at {
            if self.stop_at >= self.data.len() {
                return Poll::Ready(None);
            }
            // Cut short. Pause first so the bytes already given are flushed to the
            // socket; failing at once would make hyper drop them with the connection.
            if !self.cutting {
                self.cutting = true;
                self.sleep = Some(Box::pin(tokio::time::sleep(CUT_PAUSE)));
            }
            if let Some(sleep) = self.sleep.as_mut()
                && sleep.as_mut().poll(cx).is_pending()
            {
                return Poll::Pending;
            }
            return Poll::Ready(Some(Err(Aborted)));
        }
        let chunk = match self.bytes_per_sec {
            None => self.stop_at - self.sent,
            Some(bps) => {
                if let Some(sleep) = self.sleep.as_mut()
                    && sleep.as_mut().poll(cx).is_pending()
                {
                    return Poll::Pending;
                }
                let per_tick = ((bps as f64 * TICK.as_secs_f64()) as usize).max(1);
                let n = per_tick.min(self.stop_at - self.sent);
                let wait = Duration::from_secs_f64(n as f64 / bps as f64);
                let deadline = Instant::now() + wait;
                match self.sleep.as_mut() {
                    Some(s) => s.as_mut().reset(deadline),
                    None => self.sleep = Some(Box::pin(tokio::time::sleep_until(deadline))),
                }
                n
            }
        };
        let frame = self.data.slice(self.sent..self.sent + chunk);
        self.sent += chunk;
        Poll::Ready(Some(Ok(Frame::data(frame))))
    }
}

use std::future::Future as _;
