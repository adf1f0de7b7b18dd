//! Shared test helpers: real hyper servers on 127.0.0.1:0 and a sink that
//! keeps every sample.
#![allow(dead_code)]

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use loadlab_core::{AttackInfo, Sample, Sink, TargetInfo};
use tokio::net::TcpListener;

/// What the server saw of one request.
#[derive(Debug, Clone)]
pub struct Seen {
    pub method: String,
    pub path: String,
    /// The request URI's authority (HTTP/2's `:authority`), if it had one.
    pub authority: Option<String>,
    pub version: http::Version,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

#[derive(Debug, Default)]
pub struct Stats {
    pub accepted: AtomicU64,
    pub requests: AtomicU64,
    pub in_flight: AtomicU64,
    pub max_in_flight: AtomicU64,
    pub seen: Mutex<Vec<Seen>>,
}

pub type Handler =
    Arc<dyn Fn(Seen) -> Pin<Box<dyn Future<Output = Response<Full<Bytes>>> + Send>> + Send + Sync>;

pub fn handler<F, Fut>(f: F) -> Handler
where
    F: Fn(Seen) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Response<Full<Bytes>>> + Send + 'static,
{
    Arc::new(move |s| Box::pin(f(s)))
}

pub fn ok(body: &'static str) -> Response<Full<Bytes>> {
    Response::new(Full::new(Bytes::from_static(body.as_bytes())))
}

pub fn hello() -> Handler {
    handler(|_| async { ok("hello") })
}

pub struct Server {
    pub addr: SocketAddr,
    pub stats: Arc<Stats>,
}

impl Server {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
    pub fn accepted(&self) -> u64 {
        self.stats.accepted.load(Ordering::SeqCst)
    }
    pub fn requests(&self) -> u64 {
        self.stats.requests.load(Ordering::SeqCst)
    }
}

async fn handle(
    req: Request<Incoming>,
    stats: Arc<Stats>,
    h: Handler,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let n = stats.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    stats.max_in_flight.fetch_max(n, Ordering::SeqCst);
    stats.requests.fetch_add(1, Ordering::SeqCst);
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    let seen = Seen {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map_or("/".into(), |p| p.to_string()),
        authority: parts.uri.authority().map(|a| a.to_string()),
        version: parts.version,
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body,
    };
    stats.seen.lock().unwrap().push(seen.clone());
    let resp = h(seen).await;
    stats.in_flight.fetch_sub(1, Ordering::SeqCst);
    Ok(resp)
}

/// Serves HTTP/1.1 and h2c (auto-detected) on 127.0.0.1:0.
pub async fn serve(h: Handler) -> Server {
    serve_with(move |sock, st| serve_conn(TokioIo::new(sock), st, h.clone())).await
}

/// Listens on 127.0.0.1:0, counts accepted connections and hands each one
/// (with the server's stats) to `per_conn`.
pub async fn serve_with<F>(per_conn: F) -> Server
where
    F: Fn(tokio::net::TcpStream, Arc<Stats>) + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stats = Arc::new(Stats::default());
    let st = stats.clone();
    tokio::spawn(async move {
        loop {
            let Ok((sock, _)) = listener.accept().await else {
                return;
            };
            st.accepted.fetch_add(1, Ordering::SeqCst);
            per_conn(sock, st.clone());
        }
    });
    Server { addr, stats }
}

pub fn serve_conn<I>(io: I, st: Arc<Stats>, h: Handler)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let svc = hyper::service::service_fn(move |req| handle(req, st.clone(), h.clone()));
        let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
            .serve_connection(io, svc)
            .await;
    });
}

/// A sink that keeps everything, for assertions.
#[derive(Clone, Default)]
pub struct Collect {
    pub samples: Arc<Mutex<Vec<Sample>>>,
    pub targets: Arc<Mutex<Vec<(u32, TargetInfo)>>>,
    pub info: Arc<Mutex<Option<AttackInfo>>>,
    pub finished: Arc<AtomicBool>,
    pub thread: Arc<Mutex<Option<String>>>,
}

impl Collect {
    pub fn samples(&self) -> Vec<Sample> {
        let mut v = self.samples.lock().unwrap().clone();
        v.sort_by_key(|s| s.seq);
        v
    }
    pub fn boxed(&self) -> Box<dyn Sink> {
        Box::new(self.clone())
    }
}

impl Sink for Collect {
    fn begin(&mut self, info: &AttackInfo) {
        *self.info.lock().unwrap() = Some(info.clone());
        *self.thread.lock().unwrap() = std::thread::current().name().map(str::to_string);
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        self.targets.lock().unwrap().push((index, target.clone()));
    }
    fn record(&mut self, sample: &Sample) {
        let known = self
            .targets
            .lock()
            .unwrap()
            .iter()
            .any(|(i, _)| *i == sample.target);
        assert!(known, "sample for unregistered target {}", sample.target);
        self.samples.lock().unwrap().push(*sample);
    }
    fn finish(&mut self) -> std::io::Result<()> {
        self.finished.store(true, Ordering::SeqCst);
        Ok(())
    }
}

pub fn get(url: &str) -> loadlab_engine::Target {
    loadlab_engine::Target {
        method: http::Method::GET,
        url: url.to_string(),
        headers: vec![],
        body: Bytes::new(),
    }
}

pub fn one(url: &str) -> loadlab_engine::TargetSource {
    loadlab_engine::TargetSource::Static(vec![get(url)])
}

pub fn never() -> impl Future<Output = ()> + Send {
    std::future::pending()
}

/// Percentile by sorting (nearest rank).
pub fn pct(mut v: Vec<u64>, p: f64) -> u64 {
    v.sort_unstable();
    let i = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[i.clamp(1, v.len()) - 1]
}

pub fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}
