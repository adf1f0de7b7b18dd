//! What the side-by-side authentication tests share: a loopback server
//! whose every connection gets a thread of its own (the clients are
//! `side_by_side`'s).

use std::net::{SocketAddr, TcpListener, TcpStream};
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
