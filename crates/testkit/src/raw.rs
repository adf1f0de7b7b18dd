//! Raw HTTP/1.1 servers for tests that need bytes no library server sends
//! (odd framing, early closes, stalls): an accept loop on 127.0.0.1:0 and
//! reading one request head.

use std::future::Future;
use std::net::SocketAddr;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::net::{TcpListener, TcpStream};

/// Listens on 127.0.0.1:0 and runs `per_conn` on its own task for every
/// connection accepted, until the runtime ends; returns the address.
pub async fn serve<F, Fut>(per_conn: F) -> SocketAddr
where
    F: Fn(TcpStream) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((c, _)) = l.accept().await {
            tokio::spawn(per_conn(c));
        }
    });
    addr
}

/// Reads until the end of a request head (`\r\n\r\n`); returns what was read
/// (the head and whatever followed it in the last read), or `None` when the
/// connection ended or failed first.
pub async fn read_head<R: AsyncRead + Unpin>(r: &mut R) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 8192];
    let mut got = Vec::new();
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    Some(got)
}

/// [`read_head`] on a blocking reader (a `std::net::TcpStream`).
pub fn read_head_blocking<R: std::io::Read>(r: &mut R) -> Option<Vec<u8>> {
    let mut buf = vec![0u8; 8192];
    let mut got = Vec::new();
    while !got.windows(4).any(|w| w == b"\r\n\r\n") {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => return None,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    Some(got)
}
