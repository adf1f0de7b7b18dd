//! Serves `attack -prometheus-addr` while the attack runs: every path
//! answers with the current figures in Prometheus' text format, as vegeta's
//! exporter does. The server stops with the attack.

use std::net::TcpListener;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Response;
use loadlab_metrics::PromMetrics;

use crate::exit::{self, CliError};
use crate::local_server::{self, LocalServer};

/// Listens on `addr` (`HOST:PORT`, or `:PORT` for every interface, as
/// vegeta takes it; synchronously, so a busy port is reported before the
/// attack starts) and serves `metrics` on a thread of its own.
pub fn start(addr: &str, metrics: Arc<PromMetrics>) -> Result<LocalServer, CliError> {
    let want =
        local_server::parse_addr(addr, false, "-prometheus-addr", "127.0.0.1:8880 or :8880")?;
    let listener = TcpListener::bind(want).map_err(|e| {
        CliError::new(
            exit::NETWORK,
            format!("cannot listen on -prometheus-addr {addr}: {e}"),
        )
    })?;
    let answer = move |_req| {
        Response::builder()
            .header("content-type", "text/plain; version=0.0.4; charset=utf-8")
            .body(Full::new(Bytes::from(metrics.render())).boxed())
            .unwrap_or_default()
    };
    local_server::serve(listener, "loadlab-prometheus", answer, None)
}
