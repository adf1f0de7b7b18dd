//! One preliminary request before a run, for the facts the engine's samples do
//! not carry: the `Server` header (ab's "Server Software"), the size of the
//! response head (so "Total transferred" and wrk's "MB read" can count header
//! bytes as those tools do) and the negotiated TLS protocol.
//!
//! The probe uses GET only when the run itself uses GET (otherwise HEAD, so a
//! POST run never sends an extra POST), reads the response head and hangs up.

use std::sync::Arc;
use std::time::Duration;

use http::Uri;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// Where a face sends its requests, taken apart once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub https: bool,
    /// Host as written in the URL (no brackets for IPv6).
    pub host: String,
    pub port: u16,
    /// Path and query, `/` when the URL has none.
    pub path: String,
}

/// Why a URL was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    #[error("invalid URL {0:?}: expected http://host[:port]/path or https://...")]
    Invalid(String),
}

impl Endpoint {
    pub fn parse(url: &str) -> Result<Endpoint, UrlError> {
        let bad = || UrlError::Invalid(url.to_string());
        let uri: Uri = url.parse().map_err(|_| bad())?;
        let https = match uri.scheme_str() {
            Some("http") => false,
            Some("https") => true,
            _ => return Err(bad()),
        };
        let host = uri
            .host()
            .ok_or_else(bad)?
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        if host.is_empty() {
            return Err(bad());
        }
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let path = uri
            .path_and_query()
            .map(|p| p.as_str())
            .filter(|p| !p.is_empty())
            .unwrap_or("/")
            .to_string();
        Ok(Endpoint {
            https,
            host,
            port,
            path,
        })
    }

    /// `host:port` for connecting (brackets around IPv6 literals).
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The Host header value: the port only when it is not the default.
    pub fn host_header(&self) -> String {
        let default = if self.https { 443 } else { 80 };
        let h = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == default {
            h
        } else {
            format!("{h}:{}", self.port)
        }
    }
}

/// What the probe learnt.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeInfo {
    pub status: u16,
    /// The `Server` header, empty when absent.
    pub server: String,
    /// Bytes of the status line and headers, blank line included.
    pub head_len: u64,
    /// e.g. `TLSv1.3,TLS13_AES_256_GCM_SHA384`.
    pub tls_protocol: Option<String>,
    /// The response head as text (for `ab -v 2`).
    pub head_text: String,
}

/// Why the probe failed (the run goes on without its facts).
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("probe request to {0} failed: {1}")]
    Io(String, std::io::Error),
    #[error("probe request to {0} timed out")]
    Timeout(String),
    #[error("probe response from {0} is not valid HTTP")]
    Protocol(String),
}

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

/// Sends one request (`method` is GET or HEAD) and reads the response head.
pub async fn probe(
    ep: &Endpoint,
    method: &str,
    headers: &[(String, String)],
    timeout: Duration,
) -> Result<ProbeInfo, ProbeError> {
    let who = ep.authority();
    match tokio::time::timeout(timeout, probe_inner(ep, method, headers)).await {
        Ok(r) => r.map_err(|e| match e {
            Inner::Io(e) => ProbeError::Io(who, e),
            Inner::Protocol => ProbeError::Protocol(who),
        }),
        Err(_) => Err(ProbeError::Timeout(who)),
    }
}

enum Inner {
    Io(std::io::Error),
    Protocol,
}

impl From<std::io::Error> for Inner {
    fn from(e: std::io::Error) -> Self {
        Inner::Io(e)
    }
}

async fn probe_inner(
    ep: &Endpoint,
    method: &str,
    headers: &[(String, String)],
) -> Result<ProbeInfo, Inner> {
    let tcp = TcpStream::connect(ep.authority()).await?;
    let _ = tcp.set_nodelay(true);
    let mut tls_protocol = None;
    let mut stream: Box<dyn Stream> = if ep.https {
        let connector = tokio_rustls::TlsConnector::from(insecure_client_config()?);
        let name = rustls::pki_types::ServerName::try_from(ep.host.clone())
            .map_err(|e| Inner::Io(std::io::Error::new(std::io::ErrorKind::InvalidInput, e)))?;
        let tls = connector.connect(name, tcp).await?;
        let (_, conn) = tls.get_ref();
        if let (Some(v), Some(s)) = (conn.protocol_version(), conn.negotiated_cipher_suite()) {
            let v = match v {
                rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_string(),
                rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_string(),
                other => format!("{other:?}"),
            };
            tls_protocol = Some(format!("{v},{:?}", s.suite()));
        }
        Box::new(tls)
    } else {
        Box::new(tcp)
    };
    let mut req = format!("{method} {} HTTP/1.1\r\n", ep.path);
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {}\r\n", ep.host_header()));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("Connection: close\r\n\r\n");
    stream.write_all(req.as_bytes()).await?;
    let mut buf = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(Inner::Protocol);
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut hs = [httparse::EMPTY_HEADER; 64];
        let mut resp = httparse::Response::new(&mut hs);
        match resp.parse(&buf) {
            Ok(httparse::Status::Complete(len)) => {
                let server = resp
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("server"))
                    .map(|h| String::from_utf8_lossy(h.value).into_owned())
                    .unwrap_or_default();
                return Ok(ProbeInfo {
                    status: resp.code.unwrap_or(0),
                    server,
                    head_len: len as u64,
                    tls_protocol,
                    head_text: String::from_utf8_lossy(&buf[..len]).into_owned(),
                });
            }
            Ok(httparse::Status::Partial) if buf.len() < 64 * 1024 => continue,
            _ => return Err(Inner::Protocol),
        }
    }
}

/// ab and wrk never verify server certificates; the faces keep that behaviour
/// so that a self-signed test server works as it does with them.
fn insecure_client_config() -> Result<Arc<rustls::ClientConfig>, Inner> {
    let opts = loadlab_engine::TlsOptions {
        insecure: true,
        ..Default::default()
    };
    loadlab_engine::tls_client_config(&opts, false)
        .map_err(|e| Inner::Io(std::io::Error::other(e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        let e = Endpoint::parse("http://example.com/~Lars/md3/").unwrap();
        assert_eq!(
            (e.https, e.host.as_str(), e.port, e.path.as_str()),
            (false, "example.com", 80, "/~Lars/md3/")
        );
        let e = Endpoint::parse("https://h:8443").unwrap();
        assert_eq!(
            (e.https, e.port, e.path.as_str(), e.host_header()),
            (true, 8443, "/", "h:8443".to_string())
        );
        let e = Endpoint::parse("http://[::1]:81/x?y=1").unwrap();
        assert_eq!(
            (e.host.as_str(), e.authority(), e.path.as_str()),
            ("::1", "[::1]:81".to_string(), "/x?y=1")
        );
        assert!(Endpoint::parse("ftp://x/").is_err());
        assert!(Endpoint::parse("localhost:80/").is_err());
    }

    #[tokio::test]
    async fn probes_a_real_server() {
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (mut s, _) = l.accept().await.unwrap();
            let mut buf = vec![0u8; 1024];
            let n = s.read(&mut buf).await.unwrap();
            let req = String::from_utf8_lossy(&buf[..n]).into_owned();
            let head = "HTTP/1.1 200 OK\r\nServer: unit/1.0\r\nContent-Length: 5\r\n\r\n";
            s.write_all(head.as_bytes()).await.unwrap();
            s.write_all(b"hello").await.unwrap();
            req
        });
        let ep = Endpoint::parse(&format!("http://{addr}/p")).unwrap();
        let info = probe(
            &ep,
            "GET",
            &[("X-A".into(), "1".into())],
            Duration::from_secs(5),
        )
        .await
        .unwrap();
        assert_eq!(info.status, 200);
        assert_eq!(info.server, "unit/1.0");
        assert_eq!(info.head_len, 56);
        let req = server.await.unwrap();
        assert!(req.starts_with("GET /p HTTP/1.1\r\n"), "{req}");
        assert!(req.contains("X-A: 1\r\n"));
    }
}
