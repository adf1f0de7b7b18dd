//! An HTTPS server that counts every byte on its sockets (TLS handshakes
//! and records, HTTP/2 frames): what a client's `data_sent` and
//! `data_received` should add up to. It answers every request 200 with a
//! body of `body` bytes, over HTTP/1.1 or HTTP/2 as ALPN settles (a fresh
//! self-signed certificate for `localhost`), on its own thread.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body_util::Full;
use hyper::Response;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The running server; its thread ends with the process.
pub struct CountingHttps {
    pub addr: SocketAddr,
    /// Bytes the server read (the clients' sent) and wrote.
    read: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
}

impl CountingHttps {
    /// Bytes the clients sent and received so far.
    pub fn bytes(&self) -> (u64, u64) {
        (
            self.read.load(Ordering::SeqCst),
            self.written.load(Ordering::SeqCst),
        )
    }
}

/// Starts one offering `alpn` (`[b"h2", b"http/1.1"]` for HTTP/2).
pub fn serve(alpn: &[&[u8]], body: usize) -> CountingHttps {
    let acceptor = crate::tls::self_signed(alpn).acceptor;
    let std_listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    std_listener.set_nonblocking(true).expect("nonblocking");
    let addr = std_listener.local_addr().expect("addr");
    let read = Arc::new(AtomicU64::new(0));
    let written = Arc::new(AtomicU64::new(0));
    let (r, w) = (read.clone(), written.clone());
    let payload = Bytes::from(vec![b'x'; body]);
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(std_listener).expect("listener");
            loop {
                let Ok((tcp, _)) = listener.accept().await else {
                    return;
                };
                let counted = Counting {
                    inner: tcp,
                    read: r.clone(),
                    written: w.clone(),
                };
                let (acceptor, payload) = (acceptor.clone(), payload.clone());
                tokio::spawn(async move {
                    let Ok(tls) = acceptor.accept(counted).await else {
                        return;
                    };
                    let svc = hyper::service::service_fn(move |_req: hyper::Request<Incoming>| {
                        let p = payload.clone();
                        async move { Ok::<_, Infallible>(Response::new(Full::new(p))) }
                    });
                    let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), svc)
                        .await;
                });
            }
        });
    });
    CountingHttps {
        addr,
        read,
        written,
    }
}

struct Counting<S> {
    inner: S,
    read: Arc<AtomicU64>,
    written: Arc<AtomicU64>,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counting<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        let n = (buf.filled().len() - before) as u64;
        self.read.fetch_add(n, Ordering::SeqCst);
        r
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counting<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, data);
        if let Poll::Ready(Ok(n)) = &r {
            self.written.fetch_add(*n as u64, Ordering::SeqCst);
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
