//! A deliberately small HTTP/1.1 client over raw sockets, so tests can see
//! exactly what the server did: a response, a reset, a close, a truncated body.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use loadlab_origin::{OriginConfig, OriginHandle};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
}

#[derive(Debug)]
pub enum Outcome {
    Resp(Resp),
    /// The connection was reset (RST).
    Reset,
    /// Closed with no response bytes at all.
    Closed,
    /// A response head arrived but fewer body bytes than announced.
    Truncated {
        status: u16,
        got: usize,
        expected: usize,
    },
    /// Nothing within the deadline.
    Timeout,
}

pub fn start(config: OriginConfig) -> OriginHandle {
    loadlab_origin::spawn("127.0.0.1:0".parse().unwrap(), config).expect("origin starts")
}

pub fn start_with(recipe_json: &str) -> OriginHandle {
    let recipes = loadlab_origin::parse_recipes(recipe_json).expect("valid recipe");
    start(OriginConfig {
        recipes,
        ..Default::default()
    })
}

pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    deadline: Duration,
) -> Outcome {
    match tokio::time::timeout(deadline, request_inner(addr, method, path, headers, body)).await {
        Ok(o) => o,
        Err(_) => Outcome::Timeout,
    }
}

async fn request_inner(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Outcome {
    let mut s = TcpStream::connect(addr).await.expect("connect");
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if !body.is_empty() || method == "POST" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    let mut bytes = req.into_bytes();
    bytes.extend_from_slice(body);
    if s.write_all(&bytes).await.is_err() {
        return Outcome::Reset;
    }
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 65536];
    loop {
        match s.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                if buf.is_empty() {
                    return Outcome::Reset;
                }
                break;
            }
            Err(e) => panic!("read: {e}"),
        }
    }
    if buf.is_empty() {
        return Outcome::Closed;
    }
    parse(&buf, method == "HEAD")
}

fn parse(buf: &[u8], head: bool) -> Outcome {
    let end = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("complete head")
        + 4;
    let head_text = String::from_utf8_lossy(&buf[..end]);
    let mut lines = head_text.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect();
    let rest = &buf[end..];
    let resp = Resp {
        status,
        headers,
        body: rest.to_vec(),
    };
    if head {
        return Outcome::Resp(Resp {
            body: Vec::new(),
            ..resp
        });
    }
    if let Some(len) = resp
        .header("content-length")
        .and_then(|v| v.parse::<usize>().ok())
    {
        if rest.len() < len {
            return Outcome::Truncated {
                status,
                got: rest.len(),
                expected: len,
            };
        }
        return Outcome::Resp(Resp {
            body: rest[..len].to_vec(),
            ..resp
        });
    }
    if resp
        .header("transfer-encoding")
        .is_some_and(|v| v.contains("chunked"))
    {
        return Outcome::Resp(Resp {
            body: dechunk(rest),
            ..resp
        });
    }
    Outcome::Resp(resp)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(nl) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(std::str::from_utf8(&b[..nl]).unwrap().trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[nl + 2..nl + 2 + size]);
        b = &b[nl + 2 + size + 2..];
    }
}

pub async fn send(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> Resp {
    match request(addr, method, path, &[], body, Duration::from_secs(20)).await {
        Outcome::Resp(r) => r,
        other => panic!("{method} {path}: expected a response, got {other:?}"),
    }
}

pub async fn get(addr: SocketAddr, path: &str) -> Resp {
    send(addr, "GET", path, b"").await
}

pub async fn post_recipe(addr: SocketAddr, json: &str) -> Resp {
    send(addr, "POST", "/_admin/add_recipe", json.as_bytes()).await
}

pub fn gunzip(b: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(b)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

/// A one-shot-per-connection upstream answering every request with this raw response.
pub async fn fake_upstream(raw_response: &'static str) -> SocketAddr {
    loadlab_testkit::raw::serve(move |mut s| async move {
        if loadlab_testkit::raw::read_head(&mut s).await.is_none() {
            return;
        }
        let _ = s.write_all(raw_response.as_bytes()).await;
        let _ = s.shutdown().await;
    })
    .await
}
