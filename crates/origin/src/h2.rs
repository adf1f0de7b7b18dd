//! h2c (HTTP/2 with prior knowledge), served by hyper on the same port.
//! The first bytes, already read to tell the protocols apart, are replayed.

use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, header};
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::graceful::Watcher;
use tokio::net::TcpStream;

use crate::admin::{self, AdminBody, Simple};
use crate::body::{Aborted, OriginBody};
use crate::respond::{self, Reply, Send};
use crate::state::State;

/// The socket with the bytes already read put back in front.
struct Rewound {
    pre: Bytes,
    inner: TokioIo<TcpStream>,
}

impl hyper::rt::Read for Rewound {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<std::io::Result<()>> {
        if !self.pre.is_empty() {
            let n = self.pre.len().min(buf.remaining());
            let chunk = self.pre.split_to(n);
            buf.put_slice(&chunk);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl hyper::rt::Write for Rewound {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
}

struct Conn {
    state: Arc<State>,
    peer: SocketAddr,
}

pub(crate) async fn serve(
    stream: TcpStream,
    pre: Bytes,
    state: Arc<State>,
    peer: SocketAddr,
    watcher: Watcher,
) {
    let conn = Arc::new(Conn { state, peer });
    let io = Rewound {
        pre,
        inner: TokioIo::new(stream),
    };
    let svc = service_fn(move |req| handle(req, conn.clone()));
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder.max_concurrent_streams(1024);
    // The same 64 KiB limit on request heads as HTTP/1.1 (hyper's default is 16 KiB); h2 answers 431 beyond.
    builder.max_header_list_size(64 * 1024);
    let _ = watcher.watch(builder.serve_connection(io, svc)).await;
}

async fn handle(req: Request<Incoming>, conn: Arc<Conn>) -> Result<Response<OriginBody>, Aborted> {
    let is_head = req.method() == Method::HEAD;
    if admin::is_admin(req.uri().path()) {
        let (parts, body) = req.into_parts();
        let limit = conn.state.config.admin_body_limit;
        let body = match Limited::new(body, limit).collect().await {
            Ok(b) => AdminBody::Data(b.to_bytes()),
            Err(e)
                if e.downcast_ref::<http_body_util::LengthLimitError>()
                    .is_some() =>
            {
                AdminBody::TooLarge
            }
            Err(e) => AdminBody::Failed(e.to_string()),
        };
        let s = admin::handle(
            &parts.method,
            parts.uri.path(),
            &parts.headers,
            body,
            &conn.state,
            conn.peer,
        )
        .await;
        return Ok(simple(s, is_head));
    }
    match respond::handle(&conn.state, req.uri().path(), std::future::pending()).await {
        Reply::Send(s) => Ok(to_response(&s, is_head)),
        // Over HTTP/2 a reset or a close ends the stream, not the connection.
        Reply::Reset | Reply::Close => Err(Aborted),
    }
}

fn simple(s: Simple, is_head: bool) -> Response<OriginBody> {
    let len = s.body.len();
    let mut resp = Response::new(if is_head {
        OriginBody::empty()
    } else {
        OriginBody::full(s.body)
    });
    *resp.status_mut() = s.status;
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, s.content_type);
    if is_head {
        resp.headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    resp
}

fn to_response(s: &Send, is_head: bool) -> Response<OriginBody> {
    let mut resp = Response::new(OriginBody::empty());
    *resp.status_mut() = s.status;
    let h = resp.headers_mut();
    s.each_header(|k, v| {
        h.insert(k.clone(), v.clone());
    });
    let body = s.body().clone();
    if is_head {
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        return resp;
    }
    *resp.body_mut() = match s.shape {
        Some(sh) if !body.is_empty() => OriginBody::shaped(body, sh.keep, sh.bytes_per_sec),
        _ => OriginBody::full(body),
    };
    resp
}
