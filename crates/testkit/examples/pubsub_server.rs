//! Runs the DSPS-like pub/sub test server (`loadlab_testkit::pubsub`) until
//! killed, for running k6 (or `loadlab k6 run`) against it by hand:
//!
//! ```text
//! cargo run -p loadlab-testkit --example pubsub_server [-- 127.0.0.1:3000]
//! ```
//!
//! Prints `listening on http://ADDR` on stdout once it accepts connections.
//! The address must be on loopback (default `127.0.0.1:0`, any free port).

use std::io::Write;
use std::net::SocketAddr;

fn main() {
    let arg = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:0".into());
    let addr: SocketAddr = match arg.parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pubsub_server: {arg:?} is not an address (IP:PORT): {e}");
            std::process::exit(2);
        }
    };
    if !addr.ip().is_loopback() {
        eprintln!("pubsub_server: {addr} is not a loopback address");
        std::process::exit(2);
    }
    let cfg = loadlab_testkit::pubsub::Config::default();
    let (addr, _srv) = match loadlab_testkit::pubsub::serve_blocking_on(addr, cfg) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("pubsub_server: cannot listen on {addr}: {e}");
            std::process::exit(1);
        }
    };
    println!("listening on http://{addr}");
    std::io::stdout().flush().unwrap();
    loop {
        std::thread::park();
    }
}
