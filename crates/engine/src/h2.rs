//! HTTP/2 (over TLS with ALPN, or cleartext with prior knowledge) through
//! hyper's connection API. Connections are shared by many streams; the pool
//! (`transport.rs`) opens another when every one is full.

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http2::SendRequest;
use hyper_util::rt::{TokioExecutor, TokioIo};
use loadlab_core::ErrorKind;
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use crate::stream::{Stream, classify};

/// `max_headers_size` is advertised as the largest header list the client
/// takes (hyper's own default is 16 KiB).
pub(crate) async fn handshake(
    stream: Stream,
    permit: Option<OwnedSemaphorePermit>,
    max_headers_size: usize,
    on_close: impl FnOnce() + Send + 'static,
) -> Result<SendRequest<Full<Bytes>>, ErrorKind> {
    let (sender, conn) = hyper::client::conn::http2::Builder::new(TokioExecutor::new())
        .max_header_list_size(u32::try_from(max_headers_size).unwrap_or(u32::MAX))
        .handshake(TokioIo::new(stream))
        .await
        .map_err(|e| hyper_kind(&e))?;
    tokio::spawn(async move {
        // The connection lives (and holds its -max-connections slot) until the
        // server closes it or every sender is gone.
        let _ = conn.await;
        drop(permit);
        on_close();
    });
    Ok(sender)
}

/// Maps a hyper error to a sample's error kind.
pub(crate) fn hyper_kind(e: &hyper::Error) -> ErrorKind {
    let mut src: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return classify(io);
        }
        src = s.source();
    }
    if e.is_timeout() {
        ErrorKind::Timeout
    } else if e.is_closed() || e.is_incomplete_message() || e.is_canceled() {
        ErrorKind::ConnectionClosed
    } else {
        ErrorKind::Protocol
    }
}

pub(crate) struct H2Response {
    pub status: u16,
    pub location: Option<String>,
}

/// Sends one request on a shared HTTP/2 connection and counts the body
/// into `body` as it arrives (so a failed or timed-out body still counts
/// what came; a gzip body is decoded when `gzip` lends a decoder, the
/// engine having asked for gzip). `first_byte` is set, and `in_body`
/// becomes true, when the response head arrives.
pub(crate) async fn exchange(
    sender: &mut SendRequest<Full<Bytes>>,
    req: http::Request<Full<Bytes>>,
    first_byte: &mut Option<Instant>,
    body: &mut crate::gunzip::Body,
    in_body: &mut bool,
    mut capture: Option<&mut crate::stream::Capture>,
    gzip: Option<&crate::gunzip::GunzipPool>,
) -> Result<H2Response, ErrorKind> {
    sender.ready().await.map_err(|e| hyper_kind(&e))?;
    let resp = sender.send_request(req).await.map_err(|e| hyper_kind(&e))?;
    *first_byte = Some(Instant::now());
    *in_body = true;
    let status = resp.status().as_u16();
    let location = if resp.status().is_redirection() {
        resp.headers()
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    } else {
        None
    };
    if let Some(c) = capture.as_deref_mut() {
        c.headers.clear();
        c.body.clear();
        for (k, v) in resp.headers() {
            c.headers
                .push(k.as_str(), &String::from_utf8_lossy(v.as_bytes()));
        }
    }
    // Go's client decodes when the first Content-Encoding field is `gzip`.
    let gzipped = resp
        .headers()
        .get(http::header::CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes().trim_ascii().eq_ignore_ascii_case(b"gzip"));
    body.start(gzip.filter(|_| gzipped));
    let mut frames = resp.into_body();
    while let Some(frame) = frames.frame().await {
        let frame = frame.map_err(|e| match hyper_kind(&e) {
            ErrorKind::ConnectionClosed => ErrorKind::UnexpectedEof,
            k => k,
        })?;
        if let Some(d) = frame.data_ref() {
            body.put(d, capture.as_deref_mut().map(|c| &mut c.body));
        }
    }
    body.end()?;
    Ok(H2Response { status, location })
}
