//! `run`: `--threads` connections, each running events (transactions) back
//! to back (closed model) or when they are due (`--rate`, open model: event
//! n is due at n / rate seconds, core's `PiecewisePacer::constant`, and
//! its latency counts from then, as sysbench 1.0's from the moment it
//! queues an event), until `--time` or `--events`, or until more than
//! [`QUEUE_LIMIT`] events are due and not started. The threads are tasks of
//! current-thread tokio runtimes (one per CPU by default: several replies
//! per wake-up), or, for MySQL, OS threads with a blocking socket each, as
//! sysbench's (the default at one connection: two system calls per
//! statement; see [`blocking_threads`]). A thread still waiting for a
//! reply `--forced-shutdown` seconds after the time limit is cut off.
//!
//! Figures go into [`loadlab_metrics::Distribution`]s and counters (total
//! and per interval); the results file, when asked for, gets one sample per
//! transaction and per statement, and the ignored errors and reconnects as
//! counter records, from a writer thread.

use std::io::Write;
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use loadlab_core::pacer::PiecewisePacer;
use loadlab_core::{
    AttackInfo, ErrorKind, MetricSample, Pacer, Sample, SeriesInfo, SeriesKind, Sink,
};
use loadlab_metrics::{Distribution, ResultsWriter};

use crate::driver::{ErrKind, SqlError};
use crate::options::{LOG_DEBUG, LOG_NOTICE, LOG_WARNING, Options};
use crate::report::{self, FinalFigures, IntervalFigures};
use crate::report04;
use crate::workload::{Class, Stmt, StmtRun, Worker};
use crate::{Error, now_seed};

mod client;
mod results;

use client::{Gate, Go, Sockets, blocking_thread, client_thread};
use results::{WriterThread, finish_writer, send_pending, start_writer};

/// Series ids in the results file.
const SERIES_TX: u32 = 0;
const SERIES_STMT0: u32 = 1;
const SERIES_ERRORS: u32 = SERIES_STMT0 + Stmt::ALL.len() as u32;
const SERIES_RECONNECTS: u32 = SERIES_ERRORS + 1;

/// Pause before a thread tries again to connect after an ignored error
/// (e.g. 1040 "Too many connections" in `--mysql-ignore-errors`).
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// How long after the run's time limit a thread may still wait for the
/// reply to its last statement (`--forced-shutdown`, 2 s by default); then
/// the controller shuts its socket down (a blocking connection) or drops
/// its task, which ends the wait, and the unfinished transaction is not
/// counted. `None` (`--forced-shutdown=off`): it waits for good.
fn stop_grace(o: &Options) -> Option<Duration> {
    o.forced_shutdown.map(Duration::from_secs_f64)
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    events: u64,
    reads: u64,
    writes: u64,
    others: u64,
    errors: u64,
    reconnects: u64,
}

enum Rec {
    /// The results file's header: sent once, when the events start.
    Begin(AttackInfo),
    Sample(Sample),
    Metric(MetricSample),
}

struct State {
    total: Counters,
    iv: Counters,
    lat: Distribution,
    iv_lat: Distribution,
    /// With `--rate`, the latency the final block's extra line shows
    /// (see [`report::FinalFigures::other_pct_ms`]).
    other_lat: Distribution,
    thread_events: Vec<u64>,
    thread_time_ns: Vec<u64>,
    next_event: u64,
    busy: u32,
    stop: bool,
    /// Set when the controller shuts down the sockets of the threads still
    /// waiting after the time limit's grace ([`stop_grace`]): their lost
    /// connection ends them quietly.
    forced: bool,
    /// Threads ended so (their last transaction not counted).
    cut: u32,
    fatal: Option<SqlError>,
    /// Results-file records not yet handed to the writer thread.
    pending: Option<Vec<Rec>>,
    /// At debug verbosity (sysbench 1.0 lines), the `DEBUG:` lines of the
    /// threads (errors ignored, reconnects) not yet printed.
    debug: Option<String>,
    seq: u64,
}

impl State {
    fn add_counts(&mut self, c: [u64; 3]) {
        for k in [&mut self.total, &mut self.iv] {
            k.reads += c[Class::Read as usize];
            k.writes += c[Class::Write as usize];
            k.others += c[Class::Other as usize];
        }
    }

    fn error(&mut self, t_ns: u64) {
        self.total.errors += 1;
        self.iv.errors += 1;
        if let Some(p) = self.pending.as_mut() {
            p.push(Rec::Metric(MetricSample {
                series: SERIES_ERRORS,
                t_ns,
                value: 1.0,
            }));
        }
    }

    fn reconnect(&mut self, t_ns: u64) {
        self.total.reconnects += 1;
        self.iv.reconnects += 1;
        if let Some(p) = self.pending.as_mut() {
            p.push(Rec::Metric(MetricSample {
                series: SERIES_RECONNECTS,
                t_ns,
                value: 1.0,
            }));
        }
    }

    /// A `DEBUG:` line, at debug verbosity.
    fn debug(&mut self, line: &str) {
        if let Some(d) = self.debug.as_mut() {
            d.push_str("DEBUG: ");
            d.push_str(line);
            d.push('\n');
        }
    }

    fn statements(&mut self, log: &mut Vec<StmtRun>) {
        let Some(p) = self.pending.as_mut() else {
            log.clear();
            return;
        };
        for r in log.drain(..) {
            let (status, error) = match (r.error, r.lost) {
                (0, _) => (200, ErrorKind::None),
                (_, true) => (0, ErrorKind::ConnectionClosed),
                _ => (500, ErrorKind::None),
            };
            self.seq += 1;
            p.push(Rec::Sample(Sample {
                seq: self.seq,
                target: SERIES_STMT0 + r.stmt as u32,
                intended_ns: r.start_ns,
                sent_ns: r.start_ns,
                first_byte_ns: r.end_ns,
                done_ns: r.end_ns,
                status,
                error,
                ..Sample::default()
            }));
        }
    }
}

type Shared = Arc<Mutex<State>>;

/// The run's state, locked briefly (never across an await).
fn lock(st: &Shared) -> MutexGuard<'_, State> {
    st.lock().unwrap_or_else(PoisonError::into_inner)
}

fn ignorable(o: &Options, e: &SqlError) -> bool {
    e.kind != ErrKind::Script && o.ignore_errors.ignores(e.code)
}

fn ns(clock: Instant) -> u64 {
    clock.elapsed().as_nanos() as u64
}

/// Whether the connections are OS threads with blocking sockets (MySQL
/// only): by default (`--client-threads=0`) and with `--client-threads` ≥
/// `--threads`, a thread per connection, as sysbench runs them, which
/// keeps sysbench's tps on a host busy with other work; fewer client
/// threads share runtime threads (several replies per wake-up: cheaper on
/// a quiet host, but their tps collapses on a busy one). See
/// docs/sysbench.md for the measurements behind the choice.
pub fn blocking_threads(o: &Options) -> bool {
    o.driver == crate::options::Driver::Mysql
        && (o.client_threads == 0 || o.client_threads >= o.threads)
}

/// How a command ended, when it ended well.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ended {
    /// At its time limit or event count (or a prepare or cleanup done).
    Completed,
    /// Interrupted (Ctrl-C) after `seconds` and `events` transactions;
    /// the statistics printed cover that time.
    Interrupted { seconds: f64, events: u64 },
    /// With `--rate`, more than [`QUEUE_LIMIT`] transactions were due and
    /// not started after `seconds` (`queued` of them): the threads cannot
    /// keep up with the rate. sysbench 1.0 stops there with "FATAL: The
    /// event queue is full"; the statistics printed cover the time run.
    QueueFull {
        seconds: f64,
        events: u64,
        queued: u64,
    },
}

/// How many transactions may be due and not started (`--rate`) before the
/// run stops: sysbench 1.0.20's event queue holds 131,072 (2^17), found by
/// running it past its capacity (it stopped with the queue line at 127,596
/// and the next 1 s later beyond 131,072).
pub const QUEUE_LIMIT: u64 = 131_072;

/// How often the controller looks at the queue of due transactions.
const QUEUE_CHECK: Duration = Duration::from_millis(10);

/// Why the controller's loop ended.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stop {
    /// The time limit, the event count, or a fatal error.
    Limit,
    Interrupted,
    /// [`Ended::QueueFull`] with this many queued.
    QueueFull(u64),
}

/// Transactions due by `now` (`--rate`) and not yet started.
fn queued(o: &Options, s: &State, clock: Instant, now: Instant) -> u64 {
    let due = (now.duration_since(clock).as_secs_f64() * o.rate) as u64 + 1;
    let due = if o.events > 0 { due.min(o.events) } else { due };
    due.saturating_sub(s.next_event)
}

/// How long after an interrupt the threads still waiting for a reply are
/// cut off when `--forced-shutdown=off`: a Ctrl-C always ends the run.
const INTERRUPT_GRACE: Duration = Duration::from_secs(2);

/// Runs the test; prints sysbench's layout on `out`. When `interrupt`
/// resolves the run stops as at its time limit (threads still waiting for
/// a reply are cut off after the grace) and its figures cover the time it
/// ran.
pub async fn run(
    o: Arc<Options>,
    out: &mut dyn Write,
    interrupt: impl std::future::Future<Output = ()>,
) -> Result<Ended, Error> {
    let seed_given = o.rand_seed != 0;
    let seed = if seed_given { o.rand_seed } else { now_seed() };
    let unique = Arc::new(AtomicU32::new((seed as u32) & 0x3fff_ffff));
    // One connection first: it tells whether the server, the login and
    // the tables are there before anything else starts.
    let mut probe = crate::driver::Conn::connect(o.driver, &o.conn, o.ps_mode)
        .await
        .map_err(|e| Error::connect(&o, e))?;
    let exist = crate::data::existing_tables(&mut probe, o.tables)
        .await
        .map_err(|e| Error::connect(&o, e))?;
    probe.close().await;
    if let Some(t) = (1..=o.tables)
        .find(|t| !exist.contains(t))
        .filter(|_| o.script.is_none())
    {
        return Err(Error::TablesMissing {
            table: format!("sbtest{t}"),
            db: o.conn.db.clone(),
            test: o.test.name(),
        });
    }
    if o.script.is_some() {
        crate::lua::thread::main_function(&o, "init").await?;
    }
    let writer = start_writer(&o)?;
    let st: Shared = Arc::new(Mutex::new(State {
        total: Counters::default(),
        iv: Counters::default(),
        lat: Distribution::new(),
        iv_lat: Distribution::new(),
        other_lat: Distribution::new(),
        thread_events: vec![0; o.threads as usize],
        thread_time_ns: vec![0; o.threads as usize],
        next_event: 0,
        busy: 0,
        stop: false,
        forced: false,
        cut: 0,
        fatal: None,
        pending: writer.as_ref().map(|_| Vec::with_capacity(4096)),
        debug: (o.verbosity >= LOG_DEBUG && o.legacy.is_none()).then(String::new),
        seq: 0,
    }));
    let mut th = start_threads(&o, &st, &unique, seed)?;
    let mut fatal = None;
    let mut missing = 0;
    for _ in 0..th.k {
        match th.conn_rx.recv().await {
            Some(Ok(m)) => missing += m,
            Some(Err(e)) => {
                fatal.get_or_insert(e);
            }
            None => break,
        }
    }
    if let Some(e) = fatal {
        th.abort();
        if let Some((tx, h)) = writer {
            drop(tx);
            let _ = h.join();
        }
        return Err(Error::connect(&o, e));
    }
    // Connection failures ignored above count as errors of the run.
    for _ in 0..missing {
        lock(&st).error(0);
    }
    let mut text = before_run(&o, seed_given);
    if let Some(s) = &o.script {
        // What thread_init printed goes where sysbench prints it: after
        // "Initializing worker threads...", before "Threads started!".
        let at = text.find("Threads started!").unwrap_or(text.len());
        let _ = out.write_all(&text.as_bytes()[..at]);
        crate::lua::drain(&s.printed, out);
        text.replace_range(..at, "");
    }
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    if let Some(at) = o.start_at_unix_ns {
        wait_for_start(at).await;
    }
    let clock = Instant::now();
    if let Some((tx, _)) = &writer {
        let _ = tx.send(vec![Rec::Begin(header(&o, unix_now_ns()))]);
    }
    let _ = th.go_tx.send(Go::Start(clock));
    th.gate.set(Go::Start(clock));
    let stop = control(&o, &st, &mut th, clock, &writer, out, interrupt).await;
    let interrupted = stop != Stop::Limit;
    let total_s = clock.elapsed().as_secs_f64();
    for j in th.joins {
        let _ = j.join();
    }
    send_pending(&st, &writer);
    let writer_result = finish_writer(&o, writer);
    if let Some(s) = &o.script {
        crate::lua::drain(&s.printed, out);
    }
    let s = lock(&st);
    if let Some(e) = s.fatal.clone() {
        writer_result?;
        return Err(Error::during_run(&o, e, s.total.events));
    }
    if s.cut > 0 && o.verbosity >= LOG_WARNING {
        eprintln!(
            "loadlab: sysbench: warning: {} of {} threads had no reply from the server {} s after the time limit \
             (--forced-shutdown); their connections were closed and their unfinished transactions are not counted",
            s.cut,
            o.threads,
            o.forced_shutdown.unwrap_or_default()
        );
    }
    let f = final_figures(&o, &s, total_s);
    let _ = out.write_all(after_run(&o, &s, &f, interrupted).as_bytes());
    let _ = out.flush();
    writer_result?;
    let (seconds, events) = (total_s, s.total.events);
    Ok(match stop {
        Stop::Limit => Ended::Completed,
        Stop::Interrupted => Ended::Interrupted { seconds, events },
        Stop::QueueFull(queued) => Ended::QueueFull {
            seconds,
            events,
            queued,
        },
    })
}

/// What is printed before the run, up to `Threads started!`: sysbench
/// 1.0's lines or, on a 0.4 line, 0.4's, at the verbosity asked for.
fn before_run(o: &Options, seed_given: bool) -> String {
    match &o.legacy {
        Some(l) => report04::banner(o, l),
        None if o.verbosity >= LOG_NOTICE => {
            let mut s = report::banner(o, seed_given);
            if o.verbosity >= LOG_DEBUG {
                let (before, after) = report::debug_start(o);
                let at = s.find("Initializing worker threads...").unwrap_or(s.len());
                s.insert_str(at, &before);
                s.push_str(&after);
            }
            s + "Threads started!\n\n"
        }
        None => String::new(),
    }
}

/// What is printed after the run: at info, each thread's word on the
/// limit that ended it and `Done.`; at notice, the histogram and the
/// final blocks (0.4's on a 0.4 line).
fn after_run(o: &Options, s: &State, f: &FinalFigures, interrupted: bool) -> String {
    let limit = if interrupted {
        None
    } else if o.events > 0 && s.total.events >= o.events {
        Some(report::Limit::Events)
    } else {
        (o.time > 0.0).then_some(report::Limit::Time)
    };
    let mut text = report::run_end(o, limit, o.threads.saturating_sub(s.cut));
    if o.verbosity >= LOG_NOTICE {
        if o.histogram {
            text.push_str(&report::histogram(&s.lat));
        }
        text.push_str(&match o.legacy {
            Some(_) => report04::final_blocks(f),
            None => report::final_blocks(f),
        });
    }
    text
}

/// The client threads of a run, and the channels between them and the
/// controller.
struct Threads {
    joins: Vec<std::thread::JoinHandle<()>>,
    /// How many threads say (once each) that their connections are made.
    k: u32,
    conn_rx: tokio::sync::mpsc::UnboundedReceiver<Result<usize, SqlError>>,
    done_rx: tokio::sync::mpsc::UnboundedReceiver<()>,
    go_tx: tokio::sync::watch::Sender<Go>,
    gate: Arc<Gate>,
    socks: Sockets,
}

impl Threads {
    /// Tells the threads to close their connections without running, and
    /// waits for them.
    fn abort(self) {
        let _ = self.go_tx.send(Go::Abort);
        self.gate.set(Go::Abort);
        for j in self.joins {
            let _ = j.join();
        }
    }
}

/// Starts the connections, spread over the client OS threads, connected
/// at once as sysbench's thread_init: by default a thread per connection
/// (a blocking socket for MySQL, a current-thread runtime for
/// PostgreSQL), else `--client-threads` runtime threads ([`blocking_threads`]).
fn start_threads(
    o: &Arc<Options>,
    st: &Shared,
    unique: &Arc<AtomicU32>,
    seed: u64,
) -> Result<Threads, Error> {
    let blocking = blocking_threads(o);
    let k = if blocking || o.client_threads == 0 {
        o.threads
    } else {
        o.client_threads.min(o.threads)
    };
    let (conn_tx, conn_rx) = tokio::sync::mpsc::unbounded_channel();
    let (go_tx, go_rx) = tokio::sync::watch::channel(Go::Wait);
    let (done_tx, done_rx) = tokio::sync::mpsc::unbounded_channel();
    let gate = Arc::new(Gate {
        go: Mutex::new(Go::Wait),
        cv: std::sync::Condvar::new(),
    });
    let socks: Sockets = Arc::new(Mutex::new((0..o.threads).map(|_| None).collect::<Vec<_>>()));
    let mut joins = Vec::new();
    for tid in 0..o.threads {
        if !blocking {
            break;
        }
        let (o2, st, unique, socks) = (o.clone(), st.clone(), unique.clone(), socks.clone());
        let (conn_tx, gate2, done_tx) = (conn_tx.clone(), gate.clone(), done_tx.clone());
        let spawned = std::thread::Builder::new()
            .name(format!("sysbench-{tid}"))
            .spawn(move || {
                blocking_thread(o2, tid, st, unique, seed, socks, conn_tx, gate2, done_tx)
            });
        match spawned {
            Ok(j) => joins.push(j),
            Err(e) => {
                // The threads started close their connections and end.
                gate.set(Go::Abort);
                for j in joins {
                    let _ = j.join();
                }
                return Err(Error::Runtime(format!(
                    "cannot start client thread {} of {}: {e}",
                    tid + 1,
                    o.threads
                )));
            }
        }
    }
    for i in 0..k {
        if blocking {
            break;
        }
        let tids: Vec<u32> = (0..o.threads).filter(|t| t % k == i).collect();
        let (o, st, unique) = (o.clone(), st.clone(), unique.clone());
        let (conn_tx, go_rx, done_tx) = (conn_tx.clone(), go_rx.clone(), done_tx.clone());
        joins.push(
            std::thread::Builder::new()
                .name(format!("sysbench-{i}"))
                .spawn(move || client_thread(o, tids, st, unique, seed, conn_tx, go_rx, done_tx))
                .map_err(|e| Error::Runtime(e.to_string()))?,
        );
    }
    Ok(Threads {
        joins,
        k,
        conn_rx,
        done_rx,
        go_tx,
        gate,
        socks,
    })
}

/// The run under way: interval lines, the time limit and its grace, the
/// interrupt, the results file's batches, until every client thread is
/// done. Returns whether the interrupt stopped the run.
async fn control(
    o: &Options,
    st: &Shared,
    th: &mut Threads,
    clock: Instant,
    writer: &Option<WriterThread>,
    out: &mut dyn Write,
    interrupt: impl std::future::Future<Output = ()>,
) -> Stop {
    let iv = (o.report_interval > 0.0).then(|| Duration::from_secs_f64(o.report_interval));
    let mut k_iv: u32 = 1;
    let mut last_report = clock;
    let deadline = (o.time > 0.0).then(|| clock + Duration::from_secs_f64(o.time));
    let far = clock + Duration::from_secs(86_400 * 365);
    let mut flush_at = clock + Duration::from_millis(100);
    let mut running = th.k;
    // When the threads still waiting for a reply are cut off: the time
    // limit's grace after the stop.
    let mut force_at = far;
    let mut interrupt = std::pin::pin!(interrupt);
    let (mut interrupt_seen, mut stopped) = (false, Stop::Limit);
    let mut queue_at = clock + QUEUE_CHECK;
    while running > 0 {
        print_debug(st, out);
        if let Some(s) = &o.script {
            crate::lua::drain(&s.printed, out);
        }
        let next_report = iv.map(|d| clock + d * k_iv).unwrap_or(far);
        let stop_at = if lock(st).stop {
            far
        } else {
            deadline.unwrap_or(far)
        };
        tokio::select! {
            d = th.done_rx.recv() => {
                match d {
                    Some(()) => running -= 1,
                    None => running = 0,
                }
            }
            _ = tokio::time::sleep_until(next_report.into()), if iv.is_some() => {
                let now = Instant::now();
                let secs = now.duration_since(last_report).as_secs_f64().max(1e-9);
                last_report = now;
                let at = iv.unwrap_or_default().as_secs_f64() * f64::from(k_iv);
                let text = interval_text(o, st, clock, at, secs, now);
                if o.verbosity >= LOG_NOTICE {
                    let _ = out.write_all(text.as_bytes());
                    let _ = out.flush();
                }
                k_iv += 1;
            }
            _ = tokio::time::sleep_until(stop_at.into()), if stop_at != far => {
                lock(st).stop = true;
                if let Some(g) = stop_grace(o) {
                    force_at = Instant::now() + g;
                }
            }
            () = &mut interrupt, if !interrupt_seen => {
                interrupt_seen = true;
                let mut s = lock(st);
                if s.stop {
                    // Already stopping (the time limit, an error): the
                    // interrupt ends the wait for the last replies.
                    force_at = Instant::now();
                } else {
                    stopped = Stop::Interrupted;
                    s.stop = true;
                    force_at = Instant::now() + stop_grace(o).unwrap_or(INTERRUPT_GRACE);
                }
            }
            _ = tokio::time::sleep_until(force_at.into()), if force_at != far => {
                force_at = far;
                lock(st).forced = true;
                let _ = th.go_tx.send(Go::Force);
                for s in th.socks.lock().unwrap_or_else(PoisonError::into_inner).iter().flatten() {
                    let _ = s.shutdown(std::net::Shutdown::Both);
                }
            }
            _ = tokio::time::sleep_until(queue_at.into()), if o.rate > 0.0 && stopped == Stop::Limit && !lock(st).stop => {
                let now = Instant::now();
                queue_at = now + QUEUE_CHECK;
                let q = queued(o, &lock(st), clock, now);
                if q > QUEUE_LIMIT {
                    // sysbench's words, on its output, at once; the
                    // threads stop as at an interrupt.
                    let _ = out.write_all(QUEUE_FULL_LINE.as_bytes());
                    let _ = out.flush();
                    stopped = Stop::QueueFull(q);
                    lock(st).stop = true;
                    force_at = now;
                }
            }
            _ = tokio::time::sleep_until(flush_at.into()), if writer.is_some() || o.verbosity >= LOG_DEBUG || o.script.is_some() => {
                flush_at += Duration::from_millis(100);
                send_pending(st, writer);
            }
        }
    }
    print_debug(st, out);
    stopped
}

/// sysbench 1.0's line when its event queue is full.
const QUEUE_FULL_LINE: &str = "FATAL: The event queue is full. This means the worker threads are unable to keep up with the specified event generation rate\n";

/// Prints the threads' `DEBUG:` lines logged since the last call.
fn print_debug(st: &Shared, out: &mut dyn Write) {
    let text = match lock(st).debug.as_mut() {
        Some(d) if !d.is_empty() => std::mem::take(d),
        _ => return,
    };
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// The interval line `at` seconds into the run (`secs` since the last
/// one), and with `--rate` the queue line; the interval's figures start
/// again.
fn interval_text(
    o: &Options,
    st: &Shared,
    clock: Instant,
    at: f64,
    secs: f64,
    now: Instant,
) -> String {
    let mut s = lock(st);
    let c = std::mem::take(&mut s.iv);
    let d = std::mem::take(&mut s.iv_lat);
    let mut text = report::interval_line(&IntervalFigures {
        elapsed_s: at,
        threads: o.threads,
        tps: c.events as f64 / secs,
        qps: (c.reads + c.writes + c.others) as f64 / secs,
        reads_ps: c.reads as f64 / secs,
        writes_ps: c.writes as f64 / secs,
        others_ps: c.others as f64 / secs,
        percentile: o.percentile,
        lat_ms: if o.percentile == 0 {
            0.0
        } else {
            d.quantile(f64::from(o.percentile) / 100.0) as f64 / 1e6
        },
        err_ps: c.errors as f64 / secs,
        reconn_ps: c.reconnects as f64 / secs,
    });
    if o.rate > 0.0 {
        text.push_str(&report::queue_line(at, queued(o, &s, clock, now), s.busy));
    }
    text
}

fn final_figures(o: &Options, s: &State, total_s: f64) -> FinalFigures {
    let t = s.total;
    let per = |n: u64| {
        if total_s > 0.0 {
            n as f64 / total_s
        } else {
            0.0
        }
    };
    let ms = |v: u64| v as f64 / 1e6;
    let p = f64::from(o.percentile) / 100.0;
    let events: Vec<f64> = s.thread_events.iter().map(|&e| e as f64).collect();
    let times: Vec<f64> = s.thread_time_ns.iter().map(|&t| t as f64 / 1e9).collect();
    let (events_avg, events_stddev) = report::avg_stddev(&events);
    let (time_avg_s, time_stddev_s) = report::avg_stddev(&times);
    FinalFigures {
        reads: t.reads,
        writes: t.writes,
        others: t.others,
        transactions: t.events,
        tps: per(t.events),
        qps: per(t.reads + t.writes + t.others),
        rw_ps: per(t.reads + t.writes),
        others_ps: per(t.others),
        ignored_errors: t.errors,
        err_ps: per(t.errors),
        reconnects: t.reconnects,
        reconn_ps: per(t.reconnects),
        total_time_s: total_s,
        events: t.events,
        lat_min_ms: ms(s.lat.min()),
        lat_avg_ms: s.lat.mean() / 1e6,
        lat_max_ms: ms(s.lat.max()),
        percentile: o.percentile,
        lat_pct_ms: ms(s.lat.quantile(p)),
        lat_sum_ms: s.lat.sum() as f64 / 1e6,
        other_pct_ms: (o.rate > 0.0 && o.percentile > 0).then(|| ms(s.other_lat.quantile(p))),
        events_avg,
        events_stddev,
        time_avg_s,
        time_stddev_s,
    }
}

fn unix_now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// `--start-at`: sleeps until the instant on the wall clock (every
/// connection is made by then), the last millisecond spinning on the
/// clock so that runs started together begin within microseconds.
async fn wait_for_start(at_unix_ns: u64) {
    const SPIN: u64 = 1_000_000;
    let now = unix_now_ns();
    if at_unix_ns > now + SPIN {
        tokio::time::sleep(std::time::Duration::from_nanos(at_unix_ns - now - SPIN)).await;
    }
    while unix_now_ns() < at_unix_ns {
        std::hint::spin_loop();
    }
}

/// The results file's header for events that start now (`began_unix_ns`,
/// the wall clock the samples' times count from).
fn header(o: &Options, began_unix_ns: u64) -> AttackInfo {
    AttackInfo {
        name: o.test.name().to_string(),
        start_unix_ns: began_unix_ns,
        // As `attack -start-at`: the instant asked for and the one the
        // events began on, so that runs started together show their spread.
        worker: o.start_at_unix_ns.map(|at| loadlab_core::WorkerInfo {
            index: 0,
            count: 1,
            start_at_unix_ns: at,
            began_unix_ns,
            resolution_ns: 1_000_000,
            scheduled_total: None,
            clock_max_error_ns: None,
            host: String::new(),
        }),
        ..AttackInfo::default()
    }
}
