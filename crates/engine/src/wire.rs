//! What a connection carried: the bytes written to and read from its
//! socket, counted by the TCP stream (`rxtime`) and taken by the requests
//! that report them (k6's `data_sent` and `data_received`).

use std::sync::atomic::{AtomicU64, Ordering};

/// The bytes a TCP connection wrote and read on its socket (TLS records
/// and handshakes, HTTP/2 frames and all), and how many of them a request
/// already took: k6 counts `data_sent` and `data_received` there. Atomics,
/// as an HTTP/2 connection is driven by a task of its own while its
/// requests take the counts.
#[derive(Debug, Default)]
pub(crate) struct WireCounts {
    written: AtomicU64,
    read: AtomicU64,
    taken_written: AtomicU64,
    taken_read: AtomicU64,
}

impl WireCounts {
    pub fn written(&self, n: u64) {
        self.written.fetch_add(n, Ordering::Relaxed);
    }

    pub fn read(&self, n: u64) {
        self.read.fetch_add(n, Ordering::Relaxed);
    }

    /// The bytes written and read since the last take (the first take
    /// has the connection's handshakes): each byte is taken once, by
    /// whichever request takes next.
    pub fn take(&self) -> (u64, u64) {
        let w = self.written.load(Ordering::Relaxed);
        let r = self.read.load(Ordering::Relaxed);
        let w0 = self.taken_written.swap(w, Ordering::Relaxed);
        let r0 = self.taken_read.swap(r, Ordering::Relaxed);
        (w.saturating_sub(w0), r.saturating_sub(r0))
    }
}
