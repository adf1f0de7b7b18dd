//! `grpc.Stream`: a call whose request body stays open while the script
//! writes to it and whose response messages become `data` events, as
//! k6's streams (client, server and bidirectional alike). A stream's
//! request goes out when it is made; `write` queues a message, `end`
//! closes the request side. The VU's event loop waits on its streams
//! (`next_events`) with its timers, and dispatches what came: `data` per
//! message, then at the end `error` (a status other than OK) and `end`.
//!
//! Shared state: the streams of the run's VUs, by id, on the run's thread
//! (`STREAMS`); one goes when its end was dispatched or its VU's
//! iteration is over.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::{Body as _, Frame, Incoming};
use prost_reflect::MethodDescriptor;
use tokio::sync::mpsc;

use super::call::Conn;
use crate::tags::Tags;

/// The response's head, or why it did not come.
type Head = Pin<Box<dyn Future<Output = Result<hyper::Response<Incoming>, String>>>>;

enum Phase {
    /// Waiting for the response's head.
    Head(Head),
    Body(Incoming),
    Done,
}

pub struct Stream {
    pub vu: usize,
    pub desc: MethodDescriptor,
    pub tags: Tags,
    pub started: Instant,
    pub counts_before: (u64, u64),
    pub conn: Conn,
    tx: Option<mpsc::UnboundedSender<Bytes>>,
    phase: Phase,
    buf: BytesMut,
    /// The task sending the request, stopped with the stream.
    sending: Option<tokio::task::AbortHandle>,
    /// An end the script caused (a message that did not encode), given
    /// to the event loop at its next turn.
    failed: Option<(u32, String)>,
}

impl Drop for Stream {
    fn drop(&mut self) {
        if let Some(t) = &self.sending {
            t.abort();
        }
    }
}

/// What a stream gave the event loop.
pub enum Event {
    Data(Vec<u8>),
    /// The end: its status and message.
    End(u32, String),
}

/// A request body of the messages written, as they come; it ends when
/// its sender goes (`end`).
struct ChanBody(mpsc::UnboundedReceiver<Bytes>);

impl hyper::body::Body for ChanBody {
    type Data = Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        self.0.poll_recv(cx).map(|m| m.map(|b| Ok(Frame::data(b))))
    }
}

thread_local! {
    pub static STREAMS: RefCell<HashMap<u32, Stream>> = RefCell::new(HashMap::new());
    static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

/// Starts a stream of `path` on `conn`: its request (head and, as they
/// are written, messages) goes out at once.
pub fn open(
    conn: Conn,
    vu: usize,
    desc: MethodDescriptor,
    path: &str,
    meta: &[(String, String)],
    tags: Tags,
    timeout: Option<Duration>,
) -> Result<u32, String> {
    let (tx, rx) = mpsc::unbounded_channel();
    let uri = format!("{}{}", conn.base_uri(), path);
    let mut req = hyper::Request::post(uri)
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .header("user-agent", conn.user_agent.as_str());
    if let Some(t) = timeout {
        req = req.header("grpc-timeout", format!("{}m", t.as_millis().max(1)));
    }
    for (k, v) in meta {
        req = req.header(k.as_str(), v.as_str());
    }
    let req = req
        .body(ChanBody(rx).boxed_unsync())
        .map_err(|e| e.to_string())?;
    let mut sender = conn.sender.clone();
    let fut = async move {
        futures_util::future::poll_fn(|cx| sender.poll_ready(cx)).await?;
        sender.send_request(req).await
    };
    // The request goes out, and its messages as they are written, on a
    // task of its own, as in k6: not only when the VU's event loop turns
    // (a VU in `sleep()` or busy in its code still sends them).
    let (head, sending): (Head, _) = match tokio::runtime::Handle::try_current() {
        Ok(rt) => {
            let task = rt.spawn(fut);
            let abort = task.abort_handle();
            let head = async move {
                match task.await {
                    Ok(r) => r.map_err(|e| e.to_string()),
                    Err(e) => Err(e.to_string()),
                }
            };
            (Box::pin(head), Some(abort))
        }
        Err(_) => (
            Box::pin(async move { fut.await.map_err(|e| e.to_string()) }),
            None,
        ),
    };
    let id = NEXT.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    let counts_before = conn.bytes();
    STREAMS.with(|s| {
        s.borrow_mut().insert(
            id,
            Stream {
                vu,
                desc,
                tags,
                started: Instant::now(),
                counts_before,
                conn,
                tx: Some(tx),
                phase: Phase::Head(head),
                buf: BytesMut::new(),
                sending,
                failed: None,
            },
        )
    });
    Ok(id)
}

/// Queues an encoded message on stream `id`; false when its request side
/// is closed.
pub fn write(id: u32, msg: &[u8]) -> bool {
    let mut framed = Vec::with_capacity(msg.len() + 5);
    framed.push(0);
    framed.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    framed.extend_from_slice(msg);
    STREAMS.with(|s| {
        let mut s = s.borrow_mut();
        let Some(tx) = s.get_mut(&id).and_then(|st| st.tx.as_ref()) else {
            return false;
        };
        tx.send(Bytes::from(framed)).is_ok()
    })
}

/// Closes the request side of stream `id` (the server sees its end).
pub fn end(id: u32) {
    STREAMS.with(|s| {
        if let Some(st) = s.borrow_mut().get_mut(&id) {
            st.tx = None;
        }
    });
}

/// Ends stream `id` with `code` and `message` at the event loop's next
/// turn (as k6 ends a stream whose message did not encode): its request
/// side closes, and what the server sends from now on is not read.
pub fn fail(id: u32, code: u32, message: String) {
    STREAMS.with(|s| {
        if let Some(st) = s.borrow_mut().get_mut(&id) {
            st.tx = None;
            if !matches!(st.phase, Phase::Done) && st.failed.is_none() {
                st.failed = Some((code, message));
            }
        }
    });
}

/// Whether VU `vu` has streams not yet over.
pub fn live(vu: usize) -> bool {
    STREAMS.with(|s| s.borrow().values().any(|st| st.vu == vu))
}

/// The VU's streams go (its iteration is over): their ids.
pub fn drop_vu(vu: usize) -> Vec<u32> {
    STREAMS.with(|s| {
        let mut s = s.borrow_mut();
        let ids: Vec<u32> = s
            .iter()
            .filter(|(_, st)| st.vu == vu)
            .map(|(id, _)| *id)
            .collect();
        for id in &ids {
            s.remove(id);
        }
        ids
    })
}

/// Takes stream `id` out (its end was dispatched).
pub fn remove(id: u32) -> Option<Stream> {
    STREAMS.with(|s| s.borrow_mut().remove(&id))
}

/// Polls one stream for what it has now.
fn poll_stream(st: &mut Stream, cx: &mut Context<'_>, out: &mut Vec<Event>) {
    if let Some((code, message)) = st.failed.take() {
        st.phase = Phase::Done;
        out.push(Event::End(code, message));
        return;
    }
    loop {
        match &mut st.phase {
            Phase::Done => return,
            Phase::Head(f) => match f.as_mut().poll(cx) {
                Poll::Pending => return,
                Poll::Ready(Err(e)) => {
                    st.phase = Phase::Done;
                    out.push(Event::End(14, format!("connection error: {e}")));
                    return;
                }
                Poll::Ready(Ok(resp)) => {
                    let (parts, body) = resp.into_parts();
                    let grpc = parts
                        .headers
                        .get("grpc-status")
                        .and_then(|v| v.to_str().ok()?.parse().ok());
                    if let Some(code) = grpc {
                        // A trailers-only answer.
                        let msg = parts
                            .headers
                            .get("grpc-message")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("");
                        st.phase = Phase::Done;
                        out.push(Event::End(code, super::call::percent_decode(msg)));
                        return;
                    }
                    if parts.status != 200 {
                        st.phase = Phase::Done;
                        out.push(Event::End(
                            2,
                            format!(
                                "unexpected HTTP status code received from server: {}",
                                parts.status.as_u16()
                            ),
                        ));
                        return;
                    }
                    st.phase = Phase::Body(body);
                }
            },
            Phase::Body(body) => match Pin::new(body).poll_frame(cx) {
                Poll::Pending => return,
                Poll::Ready(None) => {
                    st.phase = Phase::Done;
                    out.push(Event::End(
                        13,
                        "server closed the stream without sending trailers".into(),
                    ));
                    return;
                }
                Poll::Ready(Some(Err(e))) => {
                    st.phase = Phase::Done;
                    out.push(Event::End(14, format!("reading the stream: {e}")));
                    return;
                }
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        st.buf.extend_from_slice(&data);
                        while st.buf.len() >= 5 {
                            let len =
                                u32::from_be_bytes([st.buf[1], st.buf[2], st.buf[3], st.buf[4]])
                                    as usize;
                            if st.buf.len() < 5 + len {
                                break;
                            }
                            st.buf.advance(5);
                            out.push(Event::Data(st.buf.split_to(len).to_vec()));
                        }
                        if !out.is_empty() {
                            return;
                        }
                    }
                    Err(frame) => {
                        let t = frame.into_trailers().unwrap_or_default();
                        let code = t
                            .get("grpc-status")
                            .and_then(|v| v.to_str().ok()?.parse().ok())
                            .unwrap_or(2);
                        let msg = t
                            .get("grpc-message")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("");
                        st.phase = Phase::Done;
                        out.push(Event::End(code, super::call::percent_decode(msg)));
                        return;
                    }
                },
            },
        }
    }
}

/// Waits (at most `wait`; `None`: without a limit) for what any of VU
/// `vu`'s streams has, and returns it by stream.
pub async fn next_events(vu: usize, wait: Option<Duration>) -> Vec<(u32, Event)> {
    let sleep = wait.map(tokio::time::sleep);
    let mut sleep = sleep.map(Box::pin);
    futures_util::future::poll_fn(move |cx| {
        let mut got = Vec::new();
        STREAMS.with(|s| {
            for (id, st) in s.borrow_mut().iter_mut().filter(|(_, st)| st.vu == vu) {
                let mut out = Vec::new();
                poll_stream(st, cx, &mut out);
                got.extend(out.into_iter().map(|e| (*id, e)));
            }
        });
        if !got.is_empty() {
            return Poll::Ready(got);
        }
        if let Some(t) = sleep.as_mut()
            && t.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(got);
        }
        Poll::Pending
    })
    .await
}
