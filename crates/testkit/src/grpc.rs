//! A gRPC server for tests (HTTP/2 cleartext, prior knowledge), serving
//! `loadlab.test.Greeter` of [`GREETER_PROTO`] with messages encoded by
//! hand (a few fields of protobuf's wire format):
//!
//! * `SayHello({name, times})` answers `{message: "hello NAME", count:
//!   times × 2}`, with the request's `x-test` metadata back in its
//!   `x-echo` header and a `x-trailer: t` trailer;
//! * `Fail({name})` answers status 5 (NOT_FOUND), `no greeting for NAME`,
//!   in the trailers;
//! * any other path: status 12 (UNIMPLEMENTED).

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper_util::rt::{TokioExecutor, TokioIo};

/// The service's definition, as a test writes it next to its script.
pub const GREETER_PROTO: &str = r#"syntax = "proto3";

package loadlab.test;

service Greeter {
  rpc SayHello (HelloRequest) returns (HelloReply);
  rpc Fail (HelloRequest) returns (HelloReply);
}

message HelloRequest {
  string name = 1;
  int32 times = 2;
}

message HelloReply {
  string message = 1;
  int64 count = 2;
  repeated string notes = 3;
}
"#;

/// Serves the Greeter on `127.0.0.1:0` from a thread of its own; its address.
pub fn greeter() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    listener.set_nonblocking(true).expect("nonblocking");
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            while let Ok((s, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let svc = hyper::service::service_fn(answer);
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(s), svc)
                        .await;
                });
            }
        });
    });
    addr
}

type Body =
    StreamBody<futures_util::stream::Iter<std::vec::IntoIter<Result<Frame<Bytes>, Infallible>>>>;

async fn answer(
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Body>, Infallible> {
    let path = req.uri().path().to_string();
    let echo = req.headers().get("x-test").cloned();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let msg = if body.len() >= 5 {
        &body[5..]
    } else {
        &body[..]
    };
    let (name, times) = read_request(msg);
    let mut head = hyper::Response::builder().header("content-type", "application/grpc");
    let mut frames = Vec::new();
    let mut trailers = http::HeaderMap::new();
    match path.as_str() {
        "/loadlab.test.Greeter/SayHello" => {
            if let Some(v) = echo {
                head = head.header("x-echo", v);
            }
            let reply = write_reply(&format!("hello {name}"), i64::from(times) * 2);
            let mut framed = vec![0u8];
            framed.extend_from_slice(&(reply.len() as u32).to_be_bytes());
            framed.extend_from_slice(&reply);
            frames.push(Ok(Frame::data(Bytes::from(framed))));
            trailers.insert("grpc-status", "0".parse().unwrap());
            trailers.insert("x-trailer", "t".parse().unwrap());
        }
        "/loadlab.test.Greeter/Fail" => {
            trailers.insert("grpc-status", "5".parse().unwrap());
            let m = format!("no greeting for {name}").replace(' ', "%20");
            trailers.insert("grpc-message", m.parse().unwrap());
        }
        _ => {
            trailers.insert("grpc-status", "12".parse().unwrap());
            trailers.insert("grpc-message", "unknown%20method".parse().unwrap());
        }
    }
    frames.push(Ok(Frame::trailers(trailers)));
    let body = StreamBody::new(futures_util::stream::iter(frames));
    Ok(head.body(body).expect("response"))
}

fn varint(buf: &[u8], i: &mut usize) -> u64 {
    let (mut v, mut shift) = (0u64, 0);
    while *i < buf.len() {
        let b = buf[*i];
        *i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            break;
        }
        shift += 7;
    }
    v
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// `HelloRequest`'s `name` (1) and `times` (2).
fn read_request(buf: &[u8]) -> (String, i32) {
    let (mut name, mut times, mut i) = (String::new(), 0, 0);
    while i < buf.len() {
        let key = varint(buf, &mut i);
        match (key >> 3, key & 7) {
            (1, 2) => {
                let n = varint(buf, &mut i) as usize;
                name = String::from_utf8_lossy(&buf[i..(i + n).min(buf.len())]).into_owned();
                i += n;
            }
            (2, 0) => times = varint(buf, &mut i) as i32,
            (_, 0) => {
                varint(buf, &mut i);
            }
            (_, 2) => {
                let n = varint(buf, &mut i) as usize;
                i += n;
            }
            _ => break,
        }
    }
    (name, times)
}

/// `HelloReply{message, count}`.
fn write_reply(message: &str, count: i64) -> Vec<u8> {
    let mut out = vec![0x0a];
    put_varint(&mut out, message.len() as u64);
    out.extend_from_slice(message.as_bytes());
    if count != 0 {
        out.push(0x10);
        put_varint(&mut out, count as u64);
    }
    out
}
