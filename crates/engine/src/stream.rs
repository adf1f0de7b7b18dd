//! The byte stream under a connection (plain TCP, a Unix socket, or TLS over
//! either), the mapping of I/O failures to [`ErrorKind`]s, and who owns the
//! keep-alive connections being made and reused ([`Owner`]): what the
//! HTTP/1.1 and HTTP/2 clients (`h1.rs`, `h2.rs`) and the dialler
//! (`transport.rs`) share, so that neither imports the other's module.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use loadlab_core::ErrorKind;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::UnixStream;

use crate::rxtime::StampedTcp;

/// Who the keep-alive connections a request takes and opens belong to.
/// The default (`id` 0) shares them among all requests. A request with an
/// owner reuses only that owner's idle connections, and the ones it opens
/// are that owner's: k6's `noVUConnectionReuse`, where each VU has its own
/// connections, closed by `Transport::close_idle_of` at the end of its
/// iterations. Those connections are bound to `laddr` when one is given
/// (k6's `--local-ips`: each VU has its own source address). HTTP/2
/// connections stay shared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Owner {
    /// 0: shared by all requests.
    pub id: u32,
    /// The local address new connections are bound to (`None`: the
    /// attack's `-laddr`, or any).
    pub laddr: Option<std::net::IpAddr>,
}

/// A byte stream to a server: plain TCP, a Unix socket, or TLS over either.
pub(crate) enum Stream {
    Tcp(StampedTcp),
    Unix(UnixStream),
    Tls(Box<tokio_rustls::client::TlsStream<Stream>>),
}

impl Stream {
    /// When the data of the last read reached this host, as the kernel
    /// stamped it (TCP, also under TLS); `None` where there is no stamp.
    /// True when reads carry the kernel's receive stamps.
    pub fn stamped(&self) -> bool {
        match self {
            Stream::Tcp(s) => s.stamped(),
            Stream::Unix(_) => false,
            Stream::Tls(s) => s.get_ref().0.stamped(),
        }
    }

    /// The socket under it (for the pool's look at unread answers).
    pub fn raw_fd(&self) -> std::os::fd::RawFd {
        use std::os::fd::AsRawFd;
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
            Stream::Tls(s) => s.get_ref().0.raw_fd(),
        }
    }

    /// The socket's byte counts (`None` on a Unix socket).
    pub fn counts(&self) -> Option<&std::sync::Arc<crate::wire::WireCounts>> {
        match self {
            Stream::Tcp(s) => Some(&s.counts),
            Stream::Unix(_) => None,
            Stream::Tls(s) => s.get_ref().0.counts(),
        }
    }

    pub fn last_rx(&self) -> Option<tokio::time::Instant> {
        match self {
            Stream::Tcp(s) => s.last_rx(),
            Stream::Unix(_) => None,
            Stream::Tls(s) => s.get_ref().0.last_rx(),
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Unix(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Unix(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_flush(cx),
            Stream::Unix(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Tcp(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Unix(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Maps an I/O failure to the short kind recorded in the sample.
pub(crate) fn classify(e: &io::Error) -> ErrorKind {
    use io::ErrorKind as K;
    if let Some(k) = crate::tls::tls_error_kind(e) {
        // A TLS alert can come after the handshake too (TLS 1.3 servers
        // check client certificates then): on the first read.
        return k;
    }
    match e.kind() {
        K::ConnectionRefused => ErrorKind::ConnectRefused,
        K::ConnectionReset | K::BrokenPipe | K::ConnectionAborted => ErrorKind::ConnectionReset,
        K::UnexpectedEof => ErrorKind::ConnectionClosed,
        K::AddrNotAvailable | K::AddrInUse => ErrorKind::AddressUnavailable,
        K::TimedOut => ErrorKind::Timeout,
        K::NotFound if e.raw_os_error().is_some() => ErrorKind::ConnectRefused,
        _ => ErrorKind::Io,
    }
}

/// The final response's header fields (as received, in order) and body,
/// kept for callers that read responses (`client.rs`); attacks never keep them.
#[derive(Debug, Default, Clone)]
pub struct Capture {
    pub headers: crate::header_list::HeaderList,
    pub body: Vec<u8>,
    /// Bytes written on the connection's socket for the request(s): the
    /// request line, header fields and body (every retry, and every
    /// redirect hop unless the hops are kept apart, as the k6 client
    /// does), with a new connection's TLS handshake, TLS records and
    /// HTTP/2 frames (an HTTP/2 connection's bytes go to whichever of its
    /// requests ends next). On a Unix socket, the request's own bytes.
    pub wire_out: u64,
    /// Bytes read off the socket for the response(s), counted as
    /// `wire_out` is.
    pub wire_in: u64,
    /// Where the request's time went before its response (k6's `blocked`,
    /// `connecting`, `tls_handshaking` and `sending`).
    pub phases: Phases,
    /// The response came over HTTP/2 (k6's `proto` is `HTTP/2.0`).
    pub http2: bool,
    /// The response's status line said HTTP/1.0 (k6's `proto` is
    /// `HTTP/1.0`).
    pub http10: bool,
    /// The connection's peer and TLS parameters.
    pub conn: ConnInfo,
    /// The status line's reason phrase when it is not the status's usual
    /// one (`200 Fine`); `None` for the usual one, or over HTTP/2.
    pub reason: Option<String>,
}

/// What a connection is: its peer address and TLS parameters.
#[derive(Debug, Default, Clone, Copy)]
pub struct ConnInfo {
    /// `None` on a Unix socket.
    pub peer: Option<std::net::SocketAddr>,
    pub tls: Option<TlsInfo>,
}

/// A TLS connection's version (`tls1.3`) and cipher suite
/// (`TLS_AES_128_GCM_SHA256`), named as Go names them.
#[derive(Debug, Clone, Copy)]
pub struct TlsInfo {
    pub version: &'static str,
    pub cipher_suite: &'static str,
}

impl TlsInfo {
    /// The parameters rustls negotiated on `conn`.
    pub(crate) fn of(conn: &rustls::ClientConnection) -> Option<TlsInfo> {
        let version = match conn.protocol_version()? {
            rustls::ProtocolVersion::TLSv1_3 => "tls1.3",
            rustls::ProtocolVersion::TLSv1_2 => "tls1.2",
            _ => "",
        };
        // As Go names it (rustls says TLS13_AES_128_GCM_SHA256).
        let cipher_suite = crate::tls::go_suite_name(conn.negotiated_cipher_suite()?.suite());
        Some(TlsInfo {
            version,
            cipher_suite,
        })
    }
}

/// The instants and dial times of one request (the last attempt's, when a
/// stale keep-alive connection made it retry), kept only where a response
/// is captured: attacks pay no clock read for them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Phases {
    /// When the request had its connection (a pooled one, or a new one
    /// dialled, its TLS and HTTP/2 handshakes done).
    pub got_conn: Option<tokio::time::Instant>,
    /// When the request's last byte was handed to the connection.
    pub wrote: Option<tokio::time::Instant>,
    /// The TCP connect of a new connection (name lookup excluded); zero on
    /// a reused one.
    pub connecting: std::time::Duration,
    /// The TLS handshake of a new connection; zero on a reused one.
    pub tls_handshaking: std::time::Duration,
}
