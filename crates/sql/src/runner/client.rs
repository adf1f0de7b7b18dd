//! The client threads: each connection's loop of events (`thread`),
//! as tasks of a current-thread runtime per OS thread (`client_thread`)
//! or on an OS thread of its own with a blocking socket
//! (`blocking_thread`), and the start signal they wait for.

use super::*;

/// Waits until `t`: a plain sleep on a thread of its own (`blocking`), or
/// the runtime's timer for a task.
async fn pause_until(t: Instant, blocking: bool) {
    if blocking {
        std::thread::sleep(t.saturating_duration_since(Instant::now()));
    } else {
        tokio::time::sleep_until(t.into()).await;
    }
}

/// The blocking connections' sockets by thread id (second handles), for
/// the controller to shut down those still waiting after the time limit's
/// grace ([`stop_grace`]).
pub(super) type Sockets = Arc<Mutex<Vec<Option<std::net::TcpStream>>>>;

fn register(socks: &Option<Sockets>, tid: u32, w: Option<&Worker>) {
    if let Some(socks) = socks {
        let mut v = socks.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(slot) = v.get_mut(tid as usize) {
            *slot = w.and_then(Worker::blocking_socket);
        }
    }
}

fn thread_seed(seed: u64, tid: u32) -> u64 {
    seed.wrapping_add(u64::from(tid).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// One thread: connect (again, while the error is ignored), then events.
/// A task of a client thread's runtime, or (`blocking`) the whole of an OS
/// thread with a blocking connection, driven by [`crate::mysql_wire::ready`].
#[allow(clippy::too_many_arguments)]
async fn thread(
    o: Arc<Options>,
    tid: u32,
    mut w: Option<Worker>,
    st: Shared,
    clock: Instant,
    unique: Arc<AtomicU32>,
    seed: u64,
    blocking: bool,
    socks: Option<Sockets>,
) {
    let log = lock(&st).pending.is_some();
    loop {
        if w.is_some() || lock(&st).stop {
            break;
        }
        match Worker::connect(o.clone(), tid, seed, unique.clone(), clock, log, blocking).await {
            Ok(x) => {
                register(&socks, tid, Some(&x));
                w = Some(x);
            }
            Err(e) if ignorable(&o, &e) => {
                lock(&st).error(ns(clock));
                pause_until(Instant::now() + RECONNECT_PAUSE, blocking).await;
            }
            Err(e) => {
                let mut s = lock(&st);
                s.fatal.get_or_insert(e);
                s.stop = true;
                return;
            }
        }
    }
    let Some(mut w) = w else { return };
    let deadline = (o.time > 0.0).then(|| clock + Duration::from_secs_f64(o.time));
    let pacer = (o.rate > 0.0).then(|| PiecewisePacer::constant(o.rate));
    let cx = Cx {
        o: &o,
        tid,
        st: &st,
        clock,
        blocking,
        socks: &socks,
    };
    // The run's state is locked twice per event (claim, record): with 16
    // threads and other work on the host, a thread preempted while it
    // holds the lock stalls every other, so each lock taken counts.
    loop {
        let n = {
            let mut s = lock(&st);
            if s.stop || (o.events > 0 && s.next_event >= o.events) {
                break;
            }
            s.next_event += 1;
            if pacer.is_none() {
                s.busy += 1;
            }
            s.next_event - 1
        };
        let intended = if let Some(pacer) = &pacer {
            let Some(at) = pacer.send_at(n) else { break };
            let due = clock + at;
            if deadline.is_some_and(|d| due >= d) {
                break;
            }
            if due > Instant::now() {
                pause_until(due, blocking).await;
            }
            let mut s = lock(&st);
            if s.stop {
                break;
            }
            s.busy += 1;
            due
        } else {
            Instant::now()
        };
        let start = Instant::now();
        if !one_event(&cx, &mut w).await {
            break;
        }
        record_event(&cx, &mut w, intended, start, Instant::now());
    }
    register(&socks, tid, None);
    let counts = w.close().await;
    lock(&st).add_counts(counts);
}

/// What a thread's event needs to know of its run.
struct Cx<'a> {
    o: &'a Arc<Options>,
    tid: u32,
    st: &'a Shared,
    clock: Instant,
    blocking: bool,
    socks: &'a Option<Sockets>,
}

/// Runs one event, again after each ignored error, until it completes
/// (true: its statement counts and log are left in `w` for
/// [`record_event`]) or the thread must end (false: it is no longer
/// counted busy).
async fn one_event(cx: &Cx<'_>, w: &mut Worker) -> bool {
    let (o, st) = (cx.o, cx.st);
    loop {
        w.counts = [0; 3];
        let e = match w.event().await {
            Ok(()) => return true,
            Err(e) => e,
        };
        let t_ns = ns(cx.clock);
        // The state is borrowed only between awaits.
        let (e, stopping) = {
            let mut s = lock(st);
            s.add_counts(w.counts);
            if let Some(l) = w.log.as_mut() {
                s.statements(l);
            }
            if s.forced && e.kind == ErrKind::Lost {
                // Shut down by the controller after the time limit's
                // grace: the transaction is not counted.
                s.cut += 1;
                s.busy -= 1;
                return false;
            }
            if !ignorable(o, &e) {
                s.fatal.get_or_insert(e);
                s.stop = true;
                s.busy -= 1;
                return false;
            }
            s.error(t_ns);
            s.debug(&format!("Ignoring error {} {}, ", e.code, e.message));
            s.debug(if e.kind == ErrKind::Lost {
                "Reconnecting"
            } else {
                "Ignored error encountered, restarting transaction"
            });
            (e, s.stop)
        };
        if e.kind == ErrKind::Lost {
            if !reconnect(cx, w).await {
                return false;
            }
        } else if w.in_trx && o.driver == crate::options::Driver::Pgsql {
            // PostgreSQL refuses every statement of an aborted
            // transaction until ROLLBACK. MySQL has rolled a deadlock
            // back already, and sysbench sends no ROLLBACK there (its
            // "other" count grows by the retry's BEGIN alone): same here.
            w.counts = [0; 3];
            let _ = w.rollback().await;
            let mut s = lock(st);
            s.add_counts(w.counts);
            if let Some(l) = w.log.as_mut() {
                s.statements(l);
            }
        }
        if stopping {
            lock(st).busy -= 1;
            return false;
        }
    }
}

/// After a lost connection: reconnects until it works (true), the error
/// is not ignored or the run ends (false: no longer counted busy).
async fn reconnect(cx: &Cx<'_>, w: &mut Worker) -> bool {
    let st = cx.st;
    loop {
        if lock(st).stop {
            lock(st).busy -= 1;
            return false;
        }
        match w.reconnect().await {
            Ok(()) => {
                register(cx.socks, cx.tid, Some(w));
                let mut s = lock(st);
                s.reconnect(ns(cx.clock));
                s.debug("Reconnected");
                return true;
            }
            Err(e2) if ignorable(cx.o, &e2) => {
                lock(st).error(ns(cx.clock));
                pause_until(Instant::now() + RECONNECT_PAUSE, cx.blocking).await;
            }
            Err(e2) => {
                let mut s = lock(st);
                s.fatal.get_or_insert(e2);
                s.stop = true;
                s.busy -= 1;
                return false;
            }
        }
    }
}

/// Counts a completed event: its statements (and their log), its latency
/// (and, with `--rate`, from when it was due), its thread's share, its
/// results-file sample.
fn record_event(cx: &Cx<'_>, w: &mut Worker, intended: Instant, start: Instant, end: Instant) {
    let (o, tid, clock) = (cx.o, cx.tid, cx.clock);
    let mut s = lock(cx.st);
    s.add_counts(w.counts);
    if let Some(l) = w.log.as_mut() {
        s.statements(l);
    }
    s.busy -= 1;
    // With `--rate`, sysbench 1.0 counts a transaction's latency from the
    // moment it was queued (its intended start, queue wait included), and
    // sysbench 0.4's lines from a thread's start of it; the other figure
    // goes to its own line.
    let (from, other) = if o.rate > 0.0 && o.legacy.is_none() {
        (intended, start)
    } else {
        (start, intended)
    };
    let lat = end.duration_since(from).as_nanos() as u64;
    s.total.events += 1;
    s.iv.events += 1;
    s.lat.record(lat);
    s.iv_lat.record(lat);
    if o.rate > 0.0 {
        s.other_lat
            .record(end.duration_since(other).as_nanos() as u64);
    }
    s.thread_events[tid as usize] += 1;
    s.thread_time_ns[tid as usize] += lat;
    if s.pending.is_some() {
        s.seq += 1;
        let seq = s.seq;
        let base = |i: Instant| i.duration_since(clock).as_nanos() as u64;
        if let Some(p) = s.pending.as_mut() {
            p.push(Rec::Sample(Sample {
                seq,
                target: SERIES_TX,
                intended_ns: base(intended),
                sent_ns: base(start),
                first_byte_ns: base(end),
                done_ns: base(end),
                status: 200,
                ..Sample::default()
            }));
        }
    }
}

/// What the client threads are told once every connection is made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Go {
    Wait,
    Start(Instant),
    Abort,
    /// The time limit's grace ([`stop_grace`]) is over: end the tasks
    /// still waiting.
    Force,
}

/// One client OS thread: its own current-thread runtime, its share of the
/// connections (tasks), connected before the run starts.
#[allow(clippy::too_many_arguments)]
pub(super) fn client_thread(
    o: Arc<Options>,
    tids: Vec<u32>,
    st: Shared,
    unique: Arc<AtomicU32>,
    seed: u64,
    conn_tx: tokio::sync::mpsc::UnboundedSender<Result<usize, SqlError>>,
    mut go_rx: tokio::sync::watch::Receiver<Go>,
    done_tx: tokio::sync::mpsc::UnboundedSender<()>,
) {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let _ = conn_tx.send(Err(SqlError {
                kind: ErrKind::Other,
                code: 0,
                message: format!("cannot start a client thread's runtime: {e}"),
            }));
            return;
        }
    };
    let log = o.output.is_some();
    // A local set: a Lua script's threads hold Lua states, which stay on
    // the OS thread that made them.
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async move {
        let mut workers = Vec::new();
        let mut missing = 0;
        let mut fatal = None;
        for &tid in &tids {
            match Worker::connect(
                o.clone(),
                tid,
                thread_seed(seed, tid),
                unique.clone(),
                Instant::now(),
                log,
                false,
            )
            .await
            {
                Ok(w) => workers.push((tid, Some(w))),
                Err(e) if ignorable(&o, &e) && e.kind == ErrKind::TooManyConnections => {
                    missing += 1;
                    workers.push((tid, None));
                }
                Err(e) => {
                    fatal = Some(e);
                    break;
                }
            }
        }
        let _ = conn_tx.send(match fatal {
            Some(e) => Err(e),
            None => Ok(missing),
        });
        let clock = loop {
            match *go_rx.borrow_and_update() {
                Go::Start(c) => break Some(c),
                Go::Abort | Go::Force => break None,
                Go::Wait => {}
            }
            if go_rx.changed().await.is_err() {
                break None;
            }
        };
        let Some(clock) = clock else {
            for (_, w) in workers {
                if let Some(w) = w {
                    let _ = w.close().await;
                }
            }
            let _ = done_tx.send(());
            return;
        };
        let mut tasks = tokio::task::JoinSet::new();
        for (tid, mut w) in workers {
            if let Some(w) = w.as_mut() {
                w.clock = clock;
            }
            tasks.spawn_local(thread(
                o.clone(),
                tid,
                w,
                st.clone(),
                clock,
                unique.clone(),
                thread_seed(seed, tid),
                false,
                None,
            ));
        }
        let mut told = true;
        loop {
            tokio::select! {
                r = tasks.join_next() => {
                    if r.is_none() {
                        break;
                    }
                }
                ch = go_rx.changed(), if told => {
                    if ch.is_err() {
                        told = false;
                    } else if *go_rx.borrow_and_update() == Go::Force {
                        // Still waiting for a reply after the grace: the
                        // tasks are dropped, their connections closed.
                        let n = tasks.len() as u32;
                        tasks.abort_all();
                        while tasks.join_next().await.is_some() {}
                        lock(&st).cut += n;
                        break;
                    }
                }
            }
        }
        let _ = done_tx.send(());
    });
}

/// The start signal for the blocking threads (which cannot await the
/// runtime's watch channel).
pub(super) struct Gate {
    pub(super) go: Mutex<Go>,
    pub(super) cv: std::sync::Condvar,
}

impl Gate {
    pub(super) fn set(&self, g: Go) {
        *self.go.lock().unwrap_or_else(PoisonError::into_inner) = g;
        self.cv.notify_all();
    }

    fn wait(&self) -> Go {
        let mut g = self.go.lock().unwrap_or_else(PoisonError::into_inner);
        while *g == Go::Wait {
            g = self.cv.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        *g
    }
}

/// One connection on an OS thread of its own, with a blocking socket, as
/// sysbench runs them: connect, say so, wait for the start, run.
#[allow(clippy::too_many_arguments)]
pub(super) fn blocking_thread(
    o: Arc<Options>,
    tid: u32,
    st: Shared,
    unique: Arc<AtomicU32>,
    seed: u64,
    socks: Sockets,
    conn_tx: tokio::sync::mpsc::UnboundedSender<Result<usize, SqlError>>,
    gate: Arc<Gate>,
    done_tx: tokio::sync::mpsc::UnboundedSender<()>,
) {
    use crate::mysql_wire::ready;
    let log = o.output.is_some();
    let seed = thread_seed(seed, tid);
    let socks = Some(socks);
    let r = ready(Worker::connect(
        o.clone(),
        tid,
        seed,
        unique.clone(),
        Instant::now(),
        log,
        true,
    ));
    let mut w = match r {
        Ok(w) => {
            register(&socks, tid, Some(&w));
            let _ = conn_tx.send(Ok(0));
            Some(w)
        }
        Err(e) if ignorable(&o, &e) && e.kind == ErrKind::TooManyConnections => {
            let _ = conn_tx.send(Ok(1));
            None
        }
        Err(e) => {
            // The controller aborts the run and joins this thread.
            let _ = conn_tx.send(Err(e));
            return;
        }
    };
    match gate.wait() {
        Go::Start(clock) => {
            if let Some(w) = w.as_mut() {
                w.clock = clock;
            }
            ready(thread(o, tid, w, st, clock, unique, seed, true, socks));
        }
        _ => {
            if let Some(w) = w {
                let _ = ready(w.close());
            }
        }
    }
    let _ = done_tx.send(());
}
