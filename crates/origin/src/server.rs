//! The accept loop: tells HTTP/1.x from h2c by the first bytes, hands each
//! connection to its server, and drains everything on shutdown.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use bytes::BytesMut;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use crate::state::State;
use crate::{h2, http1};

/// errno: this process, or the whole system, is out of file descriptors.
const EMFILE: i32 = rustix::io::Errno::MFILE.raw_os_error();
const ENFILE: i32 = rustix::io::Errno::NFILE.raw_os_error();

/// The HTTP/2 connection preface starts with this; no HTTP/1 method does.
const H2_START: &[u8] = b"PRI ";

/// Serves connections until `shutdown` resolves, then drains them (bounded by the grace period).
pub(crate) async fn accept_loop(
    listener: TcpListener,
    state: Arc<State>,
    stop_tx: tokio::sync::watch::Sender<bool>,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut tasks = JoinSet::new();
    let mut warned = false;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            a = listener.accept() => a,
        };
        while tasks.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Usually EMFILE under a flood of connections. Meanwhile the
                // kernel completes handshakes for the accept queue, and those
                // clients send requests nobody reads: they would wait until
                // some connection closes (or their own timeout). So the
                // connections idle between requests close now (their clients
                // reconnect when they next need one), it is said once, and
                // accept is tried again shortly.
                if matches!(e.raw_os_error(), Some(EMFILE | ENFILE)) {
                    state.shed.send_modify(|g| *g += 1);
                    if !warned {
                        warned = true;
                        eprintln!(
                            "loadlab origin: cannot accept connections: {e}; closing idle \
                             keep-alive connections to make room (raise the open-file limit, \
                             `ulimit -n`)"
                        );
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tasks.spawn(connection(stream, peer, state.clone(), graceful.watcher()));
    }
    drop(listener);
    // Idle connections close, hanging requests end, in-flight ones finish.
    let _ = stop_tx.send(true);
    let drain = async {
        graceful.shutdown().await;
        while tasks.join_next().await.is_some() {}
    };
    let _ = tokio::time::timeout(state.config.shutdown_grace, drain).await;
    tasks.abort_all();
}

async fn connection(mut stream: TcpStream, peer: SocketAddr, state: Arc<State>, watcher: Watcher) {
    let mut buf = BytesMut::with_capacity(4096);
    let mut stop = state.stop.clone();
    let t = state.config.timeouts;
    // Read until the first bytes tell the protocol apart: the first byte
    // within the idle limit, the rest within the head's.
    let mut until = tokio::time::Instant::now() + t.idle;
    let mut started = false;
    while buf.len() < H2_START.len() && H2_START.starts_with(&buf) {
        if !started && !buf.is_empty() {
            started = true;
            until = tokio::time::Instant::now() + t.header;
        }
        let read = tokio::select! {
            r = stream.read_buf(&mut buf) => r,
            _ = stop.wait_for(|s| *s) => return,
            _ = tokio::time::sleep_until(until) => return,
        };
        match read {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
    }
    if buf.starts_with(H2_START) {
        h2::serve(stream, buf.freeze(), state, peer, watcher).await;
    } else {
        drop(watcher);
        http1::serve(stream, buf, state, peer).await;
    }
}
