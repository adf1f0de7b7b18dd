//! The live dashboard (`attack -dashboard`): a local web page that shows a
//! run as it goes, over server-sent events, and the same page written as one
//! self-contained HTML file at the end (`-dashboard-export`).
//!
//! The interface is small: the run adds [`Dashboard::sink`] to its sinks
//! and calls [`Dashboard::finish`] when it ends; a ticker thread takes the
//! current second's figures once a second and the [`hub::Hub`] hands them to
//! every connected page. The whole run is always recorded (a page opened
//! late shows the right totals); the per-second figures are only computed
//! while a page is connected or an export is due.

pub mod hub;
#[cfg(feature = "k6")]
pub mod k6;
mod page;
pub mod run_pages;
mod server;
pub mod sink;
pub mod study;

use std::path::PathBuf;
use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use loadlab_core::Pacer;
use loadlab_engine::LiveStats;
use serde_json::{Value, json};

use crate::exit::CliError;
use hub::Hub;
use sink::{Acc, DashSink, latencies};

/// What was asked for on the command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Serve the live page on this address (`127.0.0.1:0` by default).
    pub addr: Option<String>,
    /// Required of every request when the address is not loopback.
    pub token: Option<String>,
    /// Write the whole run as one HTML file here at the end.
    pub export: Option<PathBuf>,
}

impl Options {
    pub fn any(&self) -> bool {
        self.addr.is_some() || self.export.is_some()
    }
}

/// The default address: loopback, a free port.
pub const DEFAULT_ADDR: &str = "127.0.0.1:0";

pub struct Dashboard {
    hub: Arc<Hub>,
    acc: Arc<Mutex<Acc>>,
    server: Option<crate::local_server::LocalServer>,
    ticker: Option<(Sender<()>, JoinHandle<Ticker>)>,
    export: Option<PathBuf>,
    /// A study's figures around the current run's (see [`study`]).
    context: Option<Arc<Mutex<Value>>>,
    /// The run the points belong to (a study's runs, from 1; 0 otherwise).
    run: u64,
}

/// The totals as published: the run's, inside the study's context if any.
fn wrap(context: &Option<Arc<Mutex<Value>>>, totals: Value) -> Value {
    match context.as_ref().and_then(|c| c.lock().ok()) {
        Some(c) => json!({ "study": *c, "run": totals }),
        None => totals,
    }
}

impl Dashboard {
    /// Binds the server (a busy port fails here, before the run starts) and
    /// prints the page's URL on stderr. `meta` describes the run.
    pub fn start(opts: &Options, meta: Value) -> Result<Dashboard, CliError> {
        let hub = Hub::new(meta, opts.export.is_some());
        let server = match &opts.addr {
            Some(addr) => {
                let (s, url) = server::start(addr, opts.token.clone(), hub.clone())?;
                eprintln!("loadlab: dashboard on {url}");
                Some(s)
            }
            None => None,
        };
        Ok(Dashboard {
            hub,
            acc: Arc::new(Mutex::new(Acc::default())),
            server,
            ticker: None,
            export: opts.export.clone(),
            context: None,
            run: 0,
        })
    }

    /// The sink to add to the run's sinks.
    pub fn sink(&self) -> DashSink {
        DashSink {
            acc: self.acc.clone(),
            hub: self.hub.clone(),
        }
    }

    pub fn hub(&self) -> Arc<Hub> {
        self.hub.clone()
    }

    /// Starts taking a point every second: `live` gives the sends, `pacer`
    /// the intended rate.
    pub fn start_ticker(&mut self, live: Arc<LiveStats>, pacer: Box<dyn Pacer>) {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let mut t = Ticker {
            hub: self.hub.clone(),
            acc: self.acc.clone(),
            live,
            pacer,
            context: self.context.clone(),
            run: self.run,
            start: Instant::now(),
            last: Instant::now(),
            last_sent: 0,
        };
        let thread = std::thread::Builder::new()
            .name("loadlab-dashboard".into())
            .spawn(move || {
                let mut next = Instant::now() + Duration::from_secs(1);
                loop {
                    let wait = next.saturating_duration_since(Instant::now());
                    match rx.recv_timeout(wait) {
                        Err(RecvTimeoutError::Timeout) => {
                            t.tick(false);
                            next += Duration::from_secs(1);
                        }
                        _ => return t,
                    }
                }
            });
        if let Ok(th) = thread {
            self.ticker = Some((tx, th));
        }
    }

    /// For a run that gives the hub its own figures and its end
    /// (`k6 run`): the export, and the server stops.
    pub fn close(mut self) -> Result<(), CliError> {
        let written = self.export();
        drop(self.server.take());
        written
    }

    fn export(&self) -> Result<(), CliError> {
        match &self.export {
            Some(path) => {
                let html = page::render(Some(&self.hub.snapshot()));
                std::fs::write(path, html).map_err(|e| {
                    CliError::io(format!(
                        "cannot write the dashboard export {}: {e}",
                        path.display()
                    ))
                })
            }
            None => Ok(()),
        }
    }

    /// Stops the ticker, after a last point.
    fn stop_ticker(&mut self) {
        if let Some((tx, th)) = self.ticker.take() {
            let _ = tx.send(());
            if let Ok(mut t) = th.join() {
                t.tick(true);
            }
        }
    }

    /// The run ended (its sinks finished): the last point, the final
    /// totals to every page, the export, and the server stops.
    pub fn finish(mut self) -> Result<(), CliError> {
        self.stop_ticker();
        let totals = self.acc.lock().map_or(Value::Null, |a| a.totals());
        self.hub.finish(wrap(&self.context, totals));
        let written = self.export();
        drop(self.server.take());
        written
    }
}

/// Takes one point a second.
struct Ticker {
    hub: Arc<Hub>,
    acc: Arc<Mutex<Acc>>,
    live: Arc<LiveStats>,
    pacer: Box<dyn Pacer>,
    context: Option<Arc<Mutex<Value>>>,
    run: u64,
    start: Instant,
    last: Instant,
    last_sent: u64,
}

impl Ticker {
    /// One point; the `last` one (a part of a second, when the run ends)
    /// has no rates when it is under half a second (too short to say).
    fn tick(&mut self, last: bool) {
        let now = Instant::now();
        let raw = now.duration_since(self.last).as_secs_f64();
        let dt = raw.max(1e-3);
        let rates = !last || raw >= 0.5;
        let sent = self.live.sent();
        let sends = sent.saturating_sub(self.last_sent) as f64 / dt;
        let (from, to) = (
            self.last.duration_since(self.start),
            now.duration_since(self.start),
        );
        (self.last, self.last_sent) = (now, sent);
        if !self.hub.wanted() {
            if let Ok(mut a) = self.acc.lock() {
                a.drop_second();
            }
            return;
        }
        let Ok((second, totals)) = self.acc.lock().map(|mut a| a.take_second()) else {
            return;
        };
        // The schedule's mean rate over the second (sampled; exact for
        // constant and linear plans).
        let intended = (0..4)
            .map(|i| {
                self.pacer
                    .rate_at(from + (to - from).mul_f64((i as f64 + 0.5) / 4.0))
            })
            .sum::<f64>()
            / 4.0;
        let point = json!({
            "t": to.as_secs_f64(),
            "intended": (rates && intended.is_finite()).then_some(intended),
            "sent": rates.then_some(sends),
            "done": rates.then_some(second.requests as f64 / dt),
            "ok": (second.requests > 0).then_some(second.success),
            "lat": latencies(&second.latencies),
            "svc": latencies(&second.uncorrected),
            "lag": latencies(&second.send_lag),
            "inflight": self.live.in_flight(),
            "run": self.run,
        });
        self.hub.publish(Some(point), wrap(&self.context, totals));
    }
}
