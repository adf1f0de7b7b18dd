//! Payloads: built once when a recipe is accepted, then shared by every request.
//!
//! Random content, `<<size>>` placeholders, gzip and origin fetches all happen
//! here, at ingestion. The request path only clones a `Bytes` (a reference
//! count), so a 200 KB body costs the same per request as a 100 B one.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderName, HeaderValue, StatusCode};
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::rt::TokioIo;
use rand::RngCore;

use crate::recipe::{MAX_PAYLOAD, Piece, Recipe, Source, split_placeholders};

/// The origin fetch gives up after this long (OriginSimulator's `recv_timeout`).
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(3);

/// What a route serves, ready to go.
#[derive(Debug, Clone)]
pub struct Payload {
    /// The body exactly as sent (already gzip-compressed when asked).
    pub body: Bytes,
    /// Headers sent with the payload: content-type, then the recipe's headers.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Headers sent with plain-text error bodies: the recipe's, minus content-encoding
    /// (OriginSimulator labels its `Error 500` text as gzip; we don't).
    pub error_headers: Vec<(HeaderName, HeaderValue)>,
    /// The status the origin answered, served instead of a stage's 200.
    pub origin_status: Option<StatusCode>,
    /// The same bytes in an in-memory file, so HTTP/1.1 can `sendfile` them
    /// without copying through user space (large bodies only).
    pub file: Option<Arc<std::fs::File>>,
}

/// Bodies at least this large are also kept in a memory file for sendfile.
pub const SENDFILE_MIN: usize = 16 * 1024;

fn file_copy(body: &[u8]) -> Option<Arc<std::fs::File>> {
    if body.len() < SENDFILE_MIN {
        return None;
    }
    let fd =
        rustix::fs::memfd_create("loadlab-origin-payload", rustix::fs::MemfdFlags::CLOEXEC).ok()?;
    let mut file = std::fs::File::from(fd);
    // Without a file copy the body is still served, by ordinary writes.
    file.write_all(body).ok()?;
    Some(Arc::new(file))
}

/// Why a payload could not be built (an origin fetch failed).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct FetchError(pub String);

/// Builds the payload of a validated recipe (fetching its origin, if any).
pub async fn build(recipe: &Recipe) -> Result<Payload, FetchError> {
    let gzip = recipe.wants_gzip();
    let mut origin_status = None;
    let mut origin_type = None;
    let mut location = None;
    let body: Bytes = match &recipe.source {
        Source::Random(n) => random_ascii(*n as usize).into(),
        Source::Body(text) => expand(text).into(),
        Source::Origin(url) => {
            let fetched = fetch(url, &recipe.headers, gzip).await?;
            origin_status = Some(fetched.status);
            origin_type = fetched.content_type;
            location = fetched.location;
            if gzip && !fetched.gzipped {
                // Asked for gzip but the origin sent plain bytes: compress them ourselves.
                gzip_bytes(&fetched.body).into()
            } else {
                fetched.body
            }
        }
    };
    let body = match &recipe.source {
        Source::Origin(_) => body,
        _ if gzip => gzip_bytes(&body).into(),
        _ => body,
    };

    let sniffed = if matches!(recipe.source, Source::Origin(_)) {
        None
    } else if body_starts_with_brace(&recipe.source) {
        Some(HeaderValue::from_static("application/json; charset=utf-8"))
    } else {
        Some(HeaderValue::from_static("text/html; charset=utf-8"))
    };
    let mut headers = Vec::new();
    let mut error_headers = Vec::new();
    if let Some(ct) = origin_type.or(sniffed) {
        headers.push((http::header::CONTENT_TYPE, ct));
    }
    if let Some(loc) = location {
        headers.push((http::header::LOCATION, loc));
    }
    for (k, v) in &recipe.headers {
        // Validated by the parser, so these conversions cannot fail here.
        let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) else {
            continue;
        };
        headers.retain(|(n, _)| *n != name);
        if name != http::header::CONTENT_ENCODING {
            error_headers.push((name.clone(), value.clone()));
        }
        headers.push((name, value));
    }
    let file = file_copy(&body);
    Ok(Payload {
        body,
        headers,
        error_headers,
        origin_status,
        file,
    })
}

fn body_starts_with_brace(src: &Source) -> bool {
    matches!(src, Source::Body(b) if b.starts_with('{'))
}

/// `n` random base64-alphabet characters, like OriginSimulator's random content.
pub fn random_ascii(n: usize) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut buf = vec![0u8; n];
    rand::rng().fill_bytes(&mut buf);
    for b in &mut buf {
        *b = ALPHABET[(*b & 63) as usize];
    }
    buf
}

/// Replaces every valid `<<size>>` placeholder with that many random characters.
pub fn expand(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for piece in split_placeholders(text) {
        match piece {
            Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
            Piece::Random(spec) => match crate::timing::parse_size_str(spec) {
                Ok(n) => out.extend(random_ascii(n as usize)),
                // The parser refuses such bodies; keep the text if one slips through.
                Err(_) => {
                    out.extend_from_slice(b"<<");
                    out.extend_from_slice(spec.as_bytes());
                    out.extend_from_slice(b">>");
                }
            },
        }
    }
    out
}

pub fn gzip_bytes(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(
        Vec::with_capacity(data.len() / 2 + 64),
        flate2::Compression::default(),
    );
    // Writing into a Vec cannot fail.
    let _ = enc.write_all(data);
    enc.finish().unwrap_or_default()
}

struct Fetched {
    status: StatusCode,
    content_type: Option<HeaderValue>,
    location: Option<HeaderValue>,
    gzipped: bool,
    body: Bytes,
}

/// GETs `url` once, without following redirects, keeping status and content type.
async fn fetch(
    url: &str,
    recipe_headers: &[(String, String)],
    gzip: bool,
) -> Result<Fetched, FetchError> {
    tokio::time::timeout(FETCH_TIMEOUT, fetch_inner(url, recipe_headers, gzip))
        .await
        .map_err(|_| {
            FetchError(format!(
                "fetching {url}: no complete answer within {FETCH_TIMEOUT:?}"
            ))
        })?
}

async fn fetch_inner(
    url: &str,
    recipe_headers: &[(String, String)],
    gzip: bool,
) -> Result<Fetched, FetchError> {
    let fail = |what: String| FetchError(format!("fetching {url}: {what}"));
    let uri: http::Uri = url.parse().map_err(|e| fail(format!("bad URL: {e}")))?;
    let tls = uri.scheme_str() == Some("https");
    let host = uri
        .host()
        .ok_or_else(|| fail("no host".into()))?
        .to_string();
    let port = uri.port_u16().unwrap_or(if tls { 443 } else { 80 });
    let tcp = tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port))
        .await
        .map_err(|e| fail(format!("cannot connect: {e}")))?;
    let mut req = http::Request::builder()
        .uri(uri.path_and_query().map(|p| p.as_str()).unwrap_or("/"))
        .header(
            http::header::HOST,
            uri.authority().map(|a| a.as_str()).unwrap_or(&host),
        )
        .header(http::header::USER_AGENT, "loadlab-origin");
    for (k, v) in recipe_headers {
        // OriginSimulator sends the recipe's headers on the fetch, swapping
        // content-encoding for accept-encoding.
        if k == "content-encoding" {
            continue;
        }
        req = req.header(k.as_str(), v.as_str());
    }
    if gzip {
        req = req.header(http::header::ACCEPT_ENCODING, "gzip");
    }
    let req = req
        .body(Empty::<Bytes>::new())
        .map_err(|e| fail(e.to_string()))?;
    let resp = if tls {
        let mut roots = rustls::RootCertStore::empty();
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .map_err(|e| fail(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
        let name = rustls::pki_types::ServerName::try_from(host.clone())
            .map_err(|e| fail(e.to_string()))?;
        let stream = tokio_rustls::TlsConnector::from(Arc::new(config))
            .connect(name, tcp)
            .await
            .map_err(|e| fail(format!("TLS: {e}")))?;
        send(TokioIo::new(stream), req).await
    } else {
        send(TokioIo::new(tcp), req).await
    }
    .map_err(fail)?;
    let status = resp.status();
    let get = |h| resp.headers().get(h).cloned();
    let content_type = get(http::header::CONTENT_TYPE);
    let location = get(http::header::LOCATION);
    let gzipped = resp
        .headers()
        .get(http::header::CONTENT_ENCODING)
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"gzip"));
    let body = Limited::new(resp.into_body(), MAX_PAYLOAD as usize)
        .collect()
        .await
        .map_err(|e| fail(format!("reading the body: {e}")))?
        .to_bytes();
    Ok(Fetched {
        status,
        content_type,
        location,
        gzipped,
        body,
    })
}

async fn send<T>(
    io: T,
    req: http::Request<Empty<Bytes>>,
) -> Result<http::Response<hyper::body::Incoming>, String>
where
    T: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let (mut sender, conn) = hyper::client::conn::http1::handshake(io)
        .await
        .map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    sender.send_request(req).await.map_err(|e| e.to_string())
}
