//! For the WebSocket tests (`k6/ws`, `k6/websockets`): testkit's server,
//! scripts run against it, and the summary export's figures.

use loadlab_script::Overrides;
use loadlab_testkit::ws::{self, WsServer};

/// testkit's WebSocket server on its own runtime.
pub fn server() -> (tokio::runtime::Runtime, WsServer) {
    on_runtime(ws::start())
}

/// testkit's `wss://` server (a self-signed certificate) on its own runtime.
pub fn server_tls() -> (tokio::runtime::Runtime, WsServer) {
    on_runtime(ws::start_tls())
}

fn on_runtime(start: impl Future<Output = WsServer>) -> (tokio::runtime::Runtime, WsServer) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let s = rt.block_on(start);
    (rt, s)
}

/// A figure of the summary export.
pub fn num(e: &serde_json::Value, metric: &str, field: &str) -> f64 {
    e["metrics"][metric][field]
        .as_f64()
        .unwrap_or_else(|| panic!("no {metric}.{field} in {}", e["metrics"]))
}

/// Runs `src` with `WS` set to the server's `ws://` address; the summary
/// export.
pub fn run(src: &str, s: &WsServer) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let env = vec![("WS".into(), format!("ws://{}", s.addr))];
    let (_, e) = super::run_script_full(dir.path(), src, env, Overrides::default(), true, false);
    e
}

/// Runs `src`, whose init code opens a socket: refused with k6's words,
/// and the server saw no upgrade.
pub fn init_use_refused(src: &str) {
    let (_rt, s) = server();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.js");
    std::fs::write(&path, src).unwrap();
    let cfg = loadlab_script::RunConfig {
        script: path,
        env: vec![("WS".into(), format!("ws://{}", s.addr))],
        quiet: true,
        ..Default::default()
    };
    let err = loadlab_script::run(cfg, std::future::pending()).unwrap_err();
    assert!(
        err.to_string()
            .contains("using websockets in the init context is not supported"),
        "{err}"
    );
    assert!(s.seen().upgrades.is_empty());
}
