//! Test helpers shared by loadlab's crates. A dev-dependency only
//! (`publish = false`): nothing here is part of any shipped binary.
//! Two of them are programs too, for users trying the examples on one
//! machine: `dsps-like` (the [`pubsub`] server) and `private-db` (a
//! [`db`] MariaDB until Ctrl-C), with [`cmdline`] their command lines.
//!
//! * [`tls`]: a self-signed certificate for `localhost` and a TLS acceptor
//!   presenting it;
//! * [`golden`]: compares output with a file under `tests/golden/`
//!   (`UPDATE_GOLDEN=1` rewrites it);
//! * [`browser`]: finds headless Chromium, or says loudly that a browser
//!   test was skipped (and fails under `CI`);
//! * [`db`]: private MariaDB and PostgreSQL servers in temporary
//!   directories on free 127.0.0.1 ports, stopped on drop;
//! * [`raw`]: raw HTTP/1.1 servers on 127.0.0.1:0: accept loops and reading
//!   one request head;
//! * [`har`]: a HAR 1.2 document of what a headless Chromium tab fetched
//!   (from the DevTools protocol's network events, see [`cdp`]);
//! * [`site`]: a small web site with a login whose token a later request
//!   must send back, to record and replay;
//! * [`netns`]: private networks of network namespaces on a bridge of
//!   their own (198.18.0.0/15), removed when the test ends.
//! * [`pubsub`]: a pub/sub server speaking DSPS's HTTP API subset (for
//!   scripted virtual users, e.g. DSPS's own k6 load-test script);
//! * [`k6`]: finds real k6 (or says loudly that a side-by-side test was
//!   skipped) and builds a `k6 run` command that stays on this machine;
//! * [`moto`]: a real S3-compatible server (moto's) on a free 127.0.0.1
//!   port, with buckets, objects and the AWS environment pointing at it;
//! * [`need`]: what a test needs from the machine; a missing peer skips
//!   the test loudly, or fails it under `CI`;
//! * [`proc`]: bounded waits for child processes, kill-on-drop guards,
//!   and waits for the signals a process gives instead of sleeps: a line
//!   on its output ([`proc::Watch`]), a file growing, a results file's
//!   records, a server-side counter ([`proc::wait_until`], async
//!   [`proc::until`]), and hang guards ([`proc::finish_within`],
//!   [`proc::within`]) that fail only past a generous bound
//!   ([`proc::PATIENCE`], [`proc::HANG`]);
//! * [`refused`]: a loopback port that refuses connections for as long as
//!   the test holds it (a dropped listener's port may be taken again);
//! * [`ws`]: a WebSocket server on 127.0.0.1:0 whose paths echo, push,
//!   close, drop or refuse.

pub mod browser;
pub mod cdp;
pub mod cmdline;
mod datadir;
pub mod db;
pub mod golden;
pub mod grpc;
pub mod har;
pub mod https;
pub mod k6;
pub mod moto;
pub mod need;
pub mod netns;
pub mod proc;
pub mod pubsub;
pub mod raw;
pub mod redis;
pub mod refused;
pub mod site;
pub mod tls;
pub mod ws;
