//! A gRPC server for tests (HTTP/2 cleartext, prior knowledge), serving
//! `loadlab.test.Greeter` of [`GREETER_PROTO`] with messages encoded by
//! hand (a few fields of protobuf's wire format):
//!
//! * `SayHello({name, times})` answers `{message: "hello NAME", count:
//!   times × 2}`, with the request's `x-test` metadata back in its
//!   `x-echo` header, its `user-agent` in `x-user-agent`, and a
//!   `x-trailer: t` trailer;
//! * `Fail({name})` answers status 5 (NOT_FOUND), `no greeting for NAME`,
//!   trailers-only (in the response's one HEADERS frame);
//! * `CountDown({name, times})` streams `times` replies (`NAME times`,
//!   `NAME times-1`, …, `NAME 1`) then OK;
//! * `Collect(stream {name})` answers once the client ends: the names
//!   joined by `+`, `count` the number of requests;
//! * `Chat(stream {name})` answers each request as it comes (`hi NAME`),
//!   then OK when the client ends;
//! * `Broken({name})` streams one reply, then status 9
//!   (FAILED_PRECONDITION), `stream broke`;
//! * server reflection (`grpc.reflection.v1` and `v1alpha`): the
//!   Greeter listed, its file by symbol or by name, answered request by
//!   request;
//! * `grpc.health.v1.Health/Check`: SERVING for the server ("") and the
//!   Greeter, NOT_FOUND for any other service;
//! * any other path: status 12 (UNIMPLEMENTED).

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::Frame;
use hyper_util::rt::{TokioExecutor, TokioIo};

/// The service's definition, as a test writes it next to its script.
pub const GREETER_PROTO: &str = r#"syntax = "proto3";

package loadlab.test;

service Greeter {
  rpc SayHello (HelloRequest) returns (HelloReply);
  rpc Fail (HelloRequest) returns (HelloReply);
  rpc CountDown (HelloRequest) returns (stream HelloReply);
  rpc Collect (stream HelloRequest) returns (HelloReply);
  rpc Chat (stream HelloRequest) returns (stream HelloReply);
  rpc Broken (HelloRequest) returns (stream HelloReply);
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
    greeter_on(None)
}

/// Serves the Greeter over TLS (the acceptor must offer ALPN `h2`).
pub fn greeter_tls(acceptor: crate::tls::TlsAcceptor) -> SocketAddr {
    greeter_on(Some(acceptor))
}

fn greeter_on(tls: Option<crate::tls::TlsAcceptor>) -> SocketAddr {
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
                let tls = tls.clone();
                tokio::spawn(async move {
                    let svc = hyper::service::service_fn(answer);
                    let h2 = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
                    match tls {
                        None => {
                            let _ = h2.serve_connection(TokioIo::new(s), svc).await;
                        }
                        // A client without the certificate the server
                        // asks for fails here.
                        Some(a) => {
                            if let Ok(t) = a.accept(s).await {
                                let _ = h2.serve_connection(TokioIo::new(t), svc).await;
                            }
                        }
                    }
                });
            }
        });
    });
    addr
}

type Body = UnsyncBoxBody<Bytes, Infallible>;

/// A message framed as gRPC sends it.
fn framed(msg: &[u8]) -> Bytes {
    let mut out = vec![0u8];
    out.extend_from_slice(&(msg.len() as u32).to_be_bytes());
    out.extend_from_slice(msg);
    Bytes::from(out)
}

fn ok_trailers() -> http::HeaderMap {
    let mut t = http::HeaderMap::new();
    t.insert("grpc-status", "0".parse().unwrap());
    t
}

/// `Chat`: a reply per request as it comes, then OK when the client ends.
fn chat(body: hyper::body::Incoming) -> Body {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Result<Frame<Bytes>, Infallible>>();
    tokio::spawn(async move {
        let mut body = body;
        let mut buf = Vec::new();
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                buf.extend_from_slice(&data);
                while buf.len() >= 5 {
                    let n = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
                    if buf.len() < 5 + n {
                        break;
                    }
                    let (name, _) = read_request(&buf[5..5 + n]);
                    buf.drain(..5 + n);
                    let reply = framed(&write_reply(&format!("hi {name}"), 0));
                    let _ = tx.send(Ok(Frame::data(reply)));
                }
            }
        }
        let _ = tx.send(Ok(Frame::trailers(ok_trailers())));
    });
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|f| (f, rx)) });
    StreamBody::new(stream).boxed_unsync()
}

/// The Greeter's definitions as a protoset (an encoded
/// `FileDescriptorSet`, as `protoc --descriptor_set_out` writes one).
pub fn greeter_protoset() -> Vec<u8> {
    use prost::Message as _;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("greeter.proto"), GREETER_PROTO).expect("write");
    protox::compile(["greeter.proto"], [dir.path()])
        .expect("the Greeter compiles")
        .encode_to_vec()
}

/// The Greeter's file, as reflection sends it (an encoded
/// `FileDescriptorProto`, named `greeter.proto`).
fn greeter_file() -> Vec<u8> {
    use prost::Message as _;
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("greeter.proto"), GREETER_PROTO).expect("write");
    let set = protox::compile(["greeter.proto"], [dir.path()]).expect("the Greeter compiles");
    set.file[0].encode_to_vec()
}

/// A length-delimited field.
fn put_bytes(out: &mut Vec<u8>, field: u64, b: &[u8]) {
    put_varint(out, field << 3 | 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A reflection request's answer.
fn reflect_answer(req: &[u8], file: &[u8]) -> Vec<u8> {
    let mut i = 0;
    let mut out = Vec::new();
    while i < req.len() {
        let key = varint(req, &mut i);
        if key & 7 != 2 {
            varint(req, &mut i);
            continue;
        }
        let n = varint(req, &mut i) as usize;
        let text = String::from_utf8_lossy(&req[i..(i + n).min(req.len())]).into_owned();
        i += n;
        match key >> 3 {
            // list_services
            7 => {
                let mut svc = Vec::new();
                put_bytes(&mut svc, 1, b"loadlab.test.Greeter");
                let mut list = Vec::new();
                put_bytes(&mut list, 1, &svc);
                put_bytes(&mut out, 6, &list);
            }
            // file_by_filename, file_containing_symbol
            3 | 4 if text == "greeter.proto" || text.starts_with("loadlab.test.") => {
                let mut files = Vec::new();
                put_bytes(&mut files, 1, file);
                put_bytes(&mut out, 4, &files);
            }
            3 | 4 => {
                let mut err = Vec::new();
                put_varint(&mut err, 1 << 3);
                put_varint(&mut err, 5);
                put_bytes(&mut err, 2, format!("{text} not found").as_bytes());
                put_bytes(&mut out, 7, &err);
            }
            _ => {}
        }
    }
    out
}

/// Server reflection: an answer per request as it comes, then OK.
fn reflection(body: hyper::body::Incoming) -> Body {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Result<Frame<Bytes>, Infallible>>();
    tokio::spawn(async move {
        let file = greeter_file();
        let mut body = body;
        let mut buf = Vec::new();
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(data) = frame.into_data() {
                buf.extend_from_slice(&data);
                while buf.len() >= 5 {
                    let n = u32::from_be_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize;
                    if buf.len() < 5 + n {
                        break;
                    }
                    let answer = reflect_answer(&buf[5..5 + n], &file);
                    buf.drain(..5 + n);
                    let _ = tx.send(Ok(Frame::data(framed(&answer))));
                }
            }
        }
        let _ = tx.send(Ok(Frame::trailers(ok_trailers())));
    });
    let stream =
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|f| (f, rx)) });
    StreamBody::new(stream).boxed_unsync()
}

/// The messages of a request body.
fn messages(body: &[u8]) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 5 <= body.len() {
        let n = u32::from_be_bytes([body[i + 1], body[i + 2], body[i + 3], body[i + 4]]) as usize;
        let end = (i + 5 + n).min(body.len());
        out.push(read_request(&body[i + 5..end]));
        i = end;
    }
    out
}

async fn answer(
    req: hyper::Request<hyper::body::Incoming>,
) -> Result<hyper::Response<Body>, Infallible> {
    let path = req.uri().path().to_string();
    if path == "/loadlab.test.Greeter/Chat" {
        let head = hyper::Response::builder().header("content-type", "application/grpc");
        return Ok(head.body(chat(req.into_body())).expect("response"));
    }
    if path.ends_with(".ServerReflection/ServerReflectionInfo") {
        let head = hyper::Response::builder().header("content-type", "application/grpc");
        return Ok(head.body(reflection(req.into_body())).expect("response"));
    }
    let echo = req.headers().get("x-test").cloned();
    let agent = req.headers().get("user-agent").cloned();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .unwrap_or_default();
    let all = messages(&body);
    let (name, times) = all.first().cloned().unwrap_or_default();
    let mut head = hyper::Response::builder().header("content-type", "application/grpc");
    let mut frames = Vec::new();
    let mut trailers = http::HeaderMap::new();
    match path.as_str() {
        "/loadlab.test.Greeter/SayHello" => {
            if let Some(v) = echo {
                head = head.header("x-echo", v);
            }
            if let Some(v) = agent {
                head = head.header("x-user-agent", v);
            }
            let reply = write_reply(&format!("hello {name}"), i64::from(times) * 2);
            frames.push(Ok(Frame::data(framed(&reply))));
            trailers.insert("grpc-status", "0".parse().unwrap());
            trailers.insert("x-trailer", "t".parse().unwrap());
        }
        "/loadlab.test.Greeter/CountDown" => {
            for i in (1..=times).rev() {
                frames.push(Ok(Frame::data(framed(&write_reply(
                    &format!("{name} {i}"),
                    0,
                )))));
            }
            trailers = ok_trailers();
        }
        "/loadlab.test.Greeter/Collect" => {
            let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
            frames.push(Ok(Frame::data(framed(&write_reply(
                &names.join("+"),
                all.len() as i64,
            )))));
            trailers = ok_trailers();
        }
        "/loadlab.test.Greeter/Broken" => {
            frames.push(Ok(Frame::data(framed(&write_reply(
                &format!("{name} once"),
                0,
            )))));
            trailers.insert("grpc-status", "9".parse().unwrap());
            trailers.insert("grpc-message", "stream%20broke".parse().unwrap());
        }
        "/grpc.health.v1.Health/Check" => {
            if name.is_empty() || name == "loadlab.test.Greeter" {
                frames.push(Ok(Frame::data(framed(&[0x08, 0x01]))));
                trailers = ok_trailers();
            } else {
                trailers.insert("grpc-status", "5".parse().unwrap());
                trailers.insert("grpc-message", "unknown%20service".parse().unwrap());
            }
        }
        "/loadlab.test.Greeter/Fail" => {
            // Trailers-only, as gRPC servers answer an error without a
            // message: one HEADERS frame that ends the stream.
            let m = format!("no greeting for {name}").replace(' ', "%20");
            let head = head.header("grpc-status", "5").header("grpc-message", m);
            let empty = http_body_util::Empty::<Bytes>::new().boxed_unsync();
            return Ok(head.body(empty).expect("response"));
        }
        _ => {
            trailers.insert("grpc-status", "12".parse().unwrap());
            trailers.insert("grpc-message", "unknown%20method".parse().unwrap());
        }
    }
    frames.push(Ok(Frame::trailers(trailers)));
    let body = StreamBody::new(futures_util::stream::iter(frames)).boxed_unsync();
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
