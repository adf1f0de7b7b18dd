//! What the side-by-side authentication tests share: a loopback server
//! whose every connection gets a thread of its own, and the `k6 run` of
//! either client.

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::Command;
use std::sync::Arc;

/// A listener on 127.0.0.1:0 whose connections `serve` takes, each on a
/// thread of its own, with `state`; its address.
pub(crate) fn serve_each<S: Send + Sync + 'static>(
    state: Arc<S>,
    serve: fn(TcpStream, &S),
) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for s in listener.incoming().flatten() {
            let state = state.clone();
            std::thread::spawn(move || serve(s, &state));
        }
    });
    addr
}

/// `k6 run` of k6 (`Some`) or of loadlab (`None`), and the client's name.
pub(crate) fn k6_run(k6: Option<&std::path::Path>) -> (Command, &'static str) {
    match k6 {
        Some(k6) => (loadlab_testkit::k6::run_command(k6), "k6"),
        None => {
            let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
            c.args(["k6", "run"]);
            (c, "loadlab")
        }
    }
}
