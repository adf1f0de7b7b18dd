//! A connection that counts the bytes it writes and reads (TLS and
//! protocol framing included), as k6 counts `data_sent` and
//! `data_received` for the connections its modules open. The counts are
//! atomics, so the connection may be driven by a task of its own.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use crate::state::run_state::RunState;

/// A stream that counts the bytes it writes and reads.
pub(crate) struct Counted<S> {
    inner: S,
    counts: Arc<[AtomicU64; 2]>,
}

impl<S> Counted<S> {
    /// `inner`, counted, and its counts: bytes written, bytes read.
    pub(crate) fn new(inner: S) -> (Self, Arc<[AtomicU64; 2]>) {
        let counts: Arc<[AtomicU64; 2]> = Arc::default();
        (
            Counted {
                inner,
                counts: counts.clone(),
            },
            counts,
        )
    }

    /// `inner`, counted into `counts` (bytes written, bytes read), which
    /// its owner made before the connection.
    pub(crate) fn sharing(inner: S, counts: Arc<[AtomicU64; 2]>) -> Self {
        Counted { inner, counts }
    }
}

impl<S: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Counted<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        self.counts[1].fetch_add((buf.filled().len() - before) as u64, Ordering::Relaxed);
        r
    }
}

impl<S: tokio::io::AsyncWrite + Unpin> tokio::io::AsyncWrite for Counted<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = &r {
            self.counts[0].fetch_add(*n as u64, Ordering::Relaxed);
        }
        r
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Bytes on a connection of VU `vu_id`, in `data_sent` and
/// `data_received`, with the VU's tags (without `url`).
pub(crate) fn add_bytes(sh: &RunState, vu_id: usize, sent: u64, received: u64) {
    let mut tags = sh.vu_tags(vu_id);
    tags.retain(|(k, _)| k != "url");
    sh.add_vu_named(vu_id, "data_sent", sent as f64, tags.clone());
    sh.add_vu_named(vu_id, "data_received", received as f64, tags);
}
