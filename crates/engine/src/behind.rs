//! What a request does when the client is behind its schedule and finds no
//! idle connection: open a new one, or wait for one of the pool's.
//!
//! An open-model generator that falls behind must not make its target
//! slower. Opening a connection for every late request does: each one costs
//! the client and the server a handshake and a slot in their event loops,
//! and a client that is late because it lacks CPU gets later still, so it
//! opens more (the connection spiral). But a server that holds its
//! connections (a slow answer, a long body) needs new connections for new
//! requests, or the schedule stalls behind it. The rules tell the two apart
//! by what the pool's busy HTTP/1.1 connections are waiting for:
//!
//! 1. A request that leaves on time (less than [`BEHIND_LAG`] after its
//!    intended time) opens a connection when none is idle, as before.
//! 2. So does a late one while the endpoint has fewer than `-workers`
//!    connections open or being opened (the floor).
//! 3. Past the floor, a late request waits for one of the pool's
//!    connections while any busy connection is *held by the client*: one
//!    taken for a request not yet written,
//!    one whose request was written less than [`ANSWER_GRACE`] ago, or one
//!    whose answer is already in its socket unread (the kernel's `FIONREAD`).
//!    Such a connection is free as soon as the client gets to it; a new one
//!    would only add work for the side that is already short of it. More
//!    than [`LONG_ANSWER`] unread is a long answer, not a quick one (a large
//!    or endless body read slowly): the server's, as in rule 4.
//! 4. When every busy connection is *held by the server* (a response in
//!    progress: its head was read and its body is still coming; or a
//!    request written [`ANSWER_GRACE`] ago or more with no byte of the
//!    answer yet), the late request opens a new connection, as vegeta does:
//!    the server, not the client, sets the pace, and it needs one more.
//!    Late requests decide one at a time (under the pool's lock), and at
//!    most `-workers` connections are being opened at once for them.
//!
//! A waiting request takes the first connection returned to the pool; one
//! of the waiters looks at the pool again every [`RECHECK`], and when the
//! verdict turned to rule 4 wakes them all. The others look again at least
//! every [`IDLE_RECHECK`] on their own, so that no waiter depends on being
//! handed the rechecking turn (a hand-off through the pool's `Notify` could
//! leave a permit that the same task takes back at once, a loop that never
//! yields on a single-thread runtime). `-max-connections` still caps
//! every connection; HTTP/2 connections, whose requests share them, are not
//! looked at.

use std::os::fd::RawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

/// A request that leaves this long after its intended time finds the
/// client behind its schedule (rule 1).
pub(crate) const BEHIND_LAG: Duration = Duration::from_millis(1);

/// A request written less than this ago counts as the client's still: a
/// quick server answers well within it (rule 3).
const ANSWER_GRACE: Duration = Duration::from_millis(2);

/// Bytes unread in a connection's socket above which its answer is a long
/// one, held by the server (rule 4), not a quick one the client is about
/// to read (rule 3).
const LONG_ANSWER: i32 = 64 * 1024;

/// How often a waiting request looks at the pool again (rule 4 may have
/// come true without a connection being returned).
const RECHECK: Duration = Duration::from_millis(5);

/// How long a waiter that does not hold the rechecking turn waits at most
/// before it looks at the pool again (it may take the turn then).
const IDLE_RECHECK: Duration = Duration::from_millis(25);

/// How long a verdict on the pool is reused by other late requests (each
/// verdict reads every busy connection's socket).
const VERDICT_FOR: Duration = Duration::from_millis(1);

const IDLE: u64 = 0;
const TAKEN: u64 = 1;
const IN_BODY: u64 = u64::MAX;

/// Nanoseconds since a process-wide epoch (0 is never returned, written
/// stamps are kept apart from the states above).
fn now_ns() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    let e = *EPOCH.get_or_init(Instant::now);
    e.elapsed().as_nanos() as u64 + 2
}

/// One HTTP/1.1 connection's exchange as its pool sees it.
pub(crate) struct Watch {
    /// [`IDLE`], [`TAKEN`], [`IN_BODY`], or when the request was written.
    state: AtomicU64,
    /// Its socket (-1: none to ask).
    fd: RawFd,
}

impl Watch {
    pub fn taken(&self) {
        self.state.store(TAKEN, Ordering::Relaxed);
    }

    pub fn written(&self) {
        self.state.store(now_ns(), Ordering::Relaxed);
    }

    pub fn in_body(&self) {
        self.state.store(IN_BODY, Ordering::Relaxed);
    }

    pub fn idle(&self) {
        self.state.store(IDLE, Ordering::Relaxed);
    }

    /// True when the client holds this connection (rule 3).
    fn held_by_client(&self, now: u64) -> bool {
        match self.state.load(Ordering::Relaxed) {
            IDLE | IN_BODY => false,
            TAKEN => true,
            written => {
                now.saturating_sub(written) < ANSWER_GRACE.as_nanos() as u64 || {
                    let n = unread(self.fd);
                    n > 0 && n <= LONG_ANSWER
                }
            }
        }
    }
}

/// Bytes in the socket's receive queue (0 when it cannot be asked). One
/// `ioctl` call: the workspace denies unsafe code, this is allowed by name.
#[allow(unsafe_code)]
fn unread(fd: RawFd) -> i32 {
    if fd < 0 {
        return 0;
    }
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int; a stale descriptor only gives a
    // wrong count (or an error, read as 0).
    let r = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    if r < 0 { 0 } else { n }
}

/// A pool's view of its HTTP/1.1 connections for the rules above.
#[derive(Default)]
pub(crate) struct Gate {
    watches: Mutex<Watches>,
    /// Connections being opened (counted until the dial ends).
    dialing: AtomicUsize,
    /// Late requests waiting for a connection.
    waiters: AtomicUsize,
    /// One waiter holds it and looks again every [`RECHECK`].
    rechecking: AtomicBool,
    /// The last verdict: when (ns) << 1 | held by the client.
    verdict: AtomicU64,
}

#[derive(Default)]
struct Watches {
    list: Vec<Weak<Watch>>,
    /// The list is pruned of closed connections when it reaches this.
    prune_at: usize,
}

impl Gate {
    /// A new connection's watch, counted in the pool until it is dropped.
    pub fn watch(&self, fd: RawFd) -> Arc<Watch> {
        let w = Arc::new(Watch {
            state: AtomicU64::new(TAKEN),
            fd,
        });
        let mut ws = self.watches.lock().expect("gate lock");
        if ws.list.len() >= ws.prune_at {
            ws.list.retain(|w| w.strong_count() > 0);
            ws.prune_at = (ws.list.len() * 2).max(64);
        }
        ws.list.push(Arc::downgrade(&w));
        w
    }

    /// Counts a connection being opened until the guard is dropped.
    pub fn dialing(&self) -> Dialing<'_> {
        Count::new(&self.dialing)
    }

    /// True when requests wait here (returned and closed connections must
    /// wake them).
    pub fn has_waiters(&self) -> bool {
        self.waiters.load(Ordering::Acquire) > 0
    }

    /// For a late request that found no idle connection: the turn to open
    /// one (rules 2 and 4), or `None` to wait for one of the pool's (rule
    /// 3). Decided under the pool's lock, so that late requests deciding at
    /// once cannot all open one; while the client is behind, at most
    /// `floor` connections are being opened at a time.
    pub fn admit(&self, floor: usize) -> Option<Dialing<'_>> {
        let ws = self.watches.lock().expect("gate lock");
        let dialing = self.dialing.load(Ordering::Acquire);
        let open = ws.list.iter().filter(|w| w.strong_count() > 0).count();
        if open + dialing < floor {
            return Some(self.dialing());
        }
        if dialing >= floor || self.held_by_client(&ws) {
            return None;
        }
        Some(self.dialing())
    }

    /// True when a busy connection is held by the client (rule 3); the
    /// verdict is reused for [`VERDICT_FOR`].
    fn held_by_client(&self, ws: &Watches) -> bool {
        let now = now_ns();
        let v = self.verdict.load(Ordering::Relaxed);
        if now.saturating_sub(v >> 1) < VERDICT_FOR.as_nanos() as u64 {
            return v & 1 == 1;
        }
        let held = ws
            .list
            .iter()
            .filter_map(Weak::upgrade)
            .any(|w| w.held_by_client(now));
        self.verdict
            .store(now << 1 | u64::from(held), Ordering::Relaxed);
        held
    }

    /// Waits until a connection is returned or closed, or (for the one
    /// waiter that rechecks) [`RECHECK`] passed; the caller then tries
    /// again.
    pub async fn wait(&self, freed: &Notify) {
        let _waiting = Count::new(&self.waiters);
        let notified = freed.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        if self
            .rechecking
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            let _ = tokio::time::timeout(IDLE_RECHECK, notified).await;
            return;
        }
        let _token = Token(self);
        if tokio::time::timeout(RECHECK, notified).await.is_err() {
            self.verdict.store(0, Ordering::Relaxed);
            let ws = self.watches.lock().expect("gate lock");
            if !self.held_by_client(&ws) {
                // The server holds every connection now: the others may
                // open theirs too.
                freed.notify_waiters();
            }
        }
    }
}

/// A connection being opened (see [`Gate::dialing`]).
pub(crate) type Dialing<'a> = Count<'a>;

/// One more in a count (requests waiting, connections being opened) until
/// dropped.
pub(crate) struct Count<'a>(&'a AtomicUsize);

impl<'a> Count<'a> {
    pub fn new(n: &'a AtomicUsize) -> Self {
        n.fetch_add(1, Ordering::AcqRel);
        Count(n)
    }
}

impl Drop for Count<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The rechecking turn, given up when dropped: the next waiter to look
/// takes it.
struct Token<'a>(&'a Gate);

impl Drop for Token<'_> {
    fn drop(&mut self) {
        self.0.rechecking.store(false, Ordering::Release);
    }
}
