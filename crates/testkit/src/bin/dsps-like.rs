//! `dsps-like`: the DSPS-like pub/sub server of `loadlab_testkit::pubsub`
//! as a program, so DSPS's own k6 script (and examples/dsps-channels-local.yaml)
//! can run on one machine without DSPS:
//!
//! ```text
//! cargo run -p loadlab-testkit --bin dsps-like -- --listen 127.0.0.1:3000
//! ```

use std::io::Write;
use std::net::SocketAddr;

use loadlab_testkit::cmdline::{self, Arg};
use tokio::signal::unix::{SignalKind, signal};

const PROG: &str = "dsps-like";

const HELP: &str = "\
dsps-like: a pub/sub server speaking the part of DSPS's HTTP API that DSPS's
own k6 load-test script uses (publish, polling subscriptions, acknowledgements;
in memory), to run that script and examples/dsps-channels-local.yaml on one
machine. It is loadlab's test server, not DSPS: see docs/k6-harness.md.

Usage: dsps-like [--listen ADDR]

Options:
  --listen ADDR  where to listen: a loopback IP:PORT [default: 127.0.0.1:3000,
                 DSPS's port; port 0 takes a free one]
  -h, --help     this help

Once it accepts connections it prints `listening on http://ADDR` on stdout.
It runs until Ctrl-C or SIGTERM.

Exit status: 0 stopped by Ctrl-C or SIGTERM; 2 bad command line; 5 cannot
listen on ADDR.
";

fn main() {
    let args = cmdline::parse(std::env::args().skip(1), &["--help"], &["--listen"])
        .unwrap_or_else(|e| cmdline::usage_error(PROG, &e));
    let mut listen = "127.0.0.1:3000".to_string();
    for a in args {
        match a {
            Arg::Switch(_) => {
                print!("{HELP}");
                return;
            }
            Arg::Value(_, v) => listen = v,
        }
    }
    let addr: SocketAddr = listen.parse().unwrap_or_else(|e| {
        cmdline::usage_error(PROG, &format!("--listen {listen:?}: not an IP:PORT ({e})"))
    });
    if !addr.ip().is_loopback() {
        cmdline::usage_error(
            PROG,
            &format!("--listen {addr}: not a loopback address (127.0.0.0/8 or ::1)"),
        );
    }
    let cfg = loadlab_testkit::pubsub::Config::default();
    let (addr, _srv) = loadlab_testkit::pubsub::serve_blocking_on(addr, cfg)
        .unwrap_or_else(|e| cmdline::fail(PROG, 5, &format!("cannot listen on {addr}: {e}")));
    println!("listening on http://{addr}");
    let _ = std::io::stdout().flush();
    // Stopped by Ctrl-C or SIGTERM even when started where SIGINT is
    // ignored (a background job of a script).
    let stopped = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .and_then(|rt| {
            rt.block_on(async {
                let mut int = signal(SignalKind::interrupt())?;
                let mut term = signal(SignalKind::terminate())?;
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
                Ok(())
            })
        });
    if let Err(e) = stopped {
        cmdline::fail(PROG, 1, &format!("signals: {e}"));
    }
    eprintln!("{PROG}: stopped");
}
