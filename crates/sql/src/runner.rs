//! `run`: `--threads` connections, each running events (transactions) back
//! to back (closed model) or when they are due (`--rate`, open model: event
//! n is due at n / rate seconds, and its corrected latency counts from
//! then), until `--time` or `--events`. All of it on one current-thread
//! tokio runtime: the threads are tasks, which keeps the client's CPU per
//! query low.
//!
//! Figures go into [`loadlab_metrics::Distribution`]s and counters (total
//! and per interval); the results file, when asked for, gets one sample per
//! transaction and per statement, and the ignored errors and reconnects as
//! counter records, from a writer thread.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use loadlab_core::{AttackInfo, ErrorKind, MetricSample, Sample, SeriesInfo, SeriesKind, Sink};
use loadlab_metrics::{Distribution, ResultsWriter};

use crate::driver::{ErrKind, SqlError};
use crate::options::Options;
use crate::report::{self, FinalFigures, IntervalFigures};
use crate::workload::{Class, Stmt, StmtRun, Worker};
use crate::{Error, now_seed};

/// Series ids in the results file.
const SERIES_TX: u32 = 0;
const SERIES_STMT0: u32 = 1;
const SERIES_ERRORS: u32 = SERIES_STMT0 + Stmt::ALL.len() as u32;
const SERIES_RECONNECTS: u32 = SERIES_ERRORS + 1;

/// Pause before a thread tries again to connect after an ignored error
/// (e.g. 1040 "Too many connections" in `--mysql-ignore-errors`).
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

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
    Sample(Sample),
    Metric(MetricSample),
}

struct State {
    total: Counters,
    iv: Counters,
    lat: Distribution,
    iv_lat: Distribution,
    corrected: Distribution,
    thread_events: Vec<u64>,
    thread_time_ns: Vec<u64>,
    next_event: u64,
    busy: u32,
    stop: bool,
    fatal: Option<SqlError>,
    /// Results-file records not yet handed to the writer thread.
    pending: Option<Vec<Rec>>,
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

fn ignorable(o: &Options, e: &SqlError) -> bool {
    o.ignore_errors.ignores(e.code)
}

fn ns(clock: Instant) -> u64 {
    clock.elapsed().as_nanos() as u64
}

/// One thread: connect (again, while the error is ignored), then events.
async fn thread(
    o: Arc<Options>,
    tid: u32,
    mut w: Option<Worker>,
    st: Rc<RefCell<State>>,
    clock: Instant,
    unique: Arc<AtomicU32>,
    seed: u64,
) {
    let log = st.borrow().pending.is_some();
    loop {
        if w.is_some() || st.borrow().stop {
            break;
        }
        match Worker::connect(o.clone(), tid, seed, unique.clone(), clock, log).await {
            Ok(x) => w = Some(x),
            Err(e) if ignorable(&o, &e) => {
                st.borrow_mut().error(ns(clock));
                tokio::time::sleep(RECONNECT_PAUSE).await;
            }
            Err(e) => {
                let mut s = st.borrow_mut();
                s.fatal.get_or_insert(e);
                s.stop = true;
                return;
            }
        }
    }
    let Some(mut w) = w else { return };
    let deadline = (o.time > 0.0).then(|| clock + Duration::from_secs_f64(o.time));
    'events: loop {
        let n = {
            let mut s = st.borrow_mut();
            if s.stop || (o.events > 0 && s.next_event >= o.events) {
                break;
            }
            s.next_event += 1;
            s.next_event - 1
        };
        let intended = if o.rate > 0.0 {
            let due = clock + Duration::from_secs_f64(n as f64 / o.rate);
            if deadline.is_some_and(|d| due >= d) {
                break;
            }
            if due > Instant::now() {
                tokio::time::sleep_until(due.into()).await;
                if st.borrow().stop {
                    break;
                }
            }
            due
        } else {
            Instant::now()
        };
        let start = Instant::now();
        st.borrow_mut().busy += 1;
        loop {
            w.counts = [0; 3];
            let r = w.event().await;
            let t_ns = ns(clock);
            // The state is borrowed only between awaits.
            let (e, stopping) = {
                let mut s = st.borrow_mut();
                s.add_counts(w.counts);
                if let Some(l) = w.log.as_mut() {
                    s.statements(l);
                }
                let e = match r {
                    Ok(()) => break,
                    Err(e) => e,
                };
                if !ignorable(&o, &e) {
                    s.fatal.get_or_insert(e);
                    s.stop = true;
                    s.busy -= 1;
                    break 'events;
                }
                s.error(t_ns);
                (e, s.stop)
            };
            if e.kind == ErrKind::Lost {
                // Reconnect until it works, the error is not ignored or
                // the run ends.
                loop {
                    if st.borrow().stop {
                        st.borrow_mut().busy -= 1;
                        break 'events;
                    }
                    match w.reconnect().await {
                        Ok(()) => {
                            st.borrow_mut().reconnect(ns(clock));
                            break;
                        }
                        Err(e2) if ignorable(&o, &e2) => {
                            st.borrow_mut().error(ns(clock));
                            tokio::time::sleep(RECONNECT_PAUSE).await;
                        }
                        Err(e2) => {
                            let mut s = st.borrow_mut();
                            s.fatal.get_or_insert(e2);
                            s.stop = true;
                            s.busy -= 1;
                            break 'events;
                        }
                    }
                }
            } else if w.in_trx && o.driver == crate::options::Driver::Pgsql {
                // PostgreSQL refuses every statement of an aborted
                // transaction until ROLLBACK. MySQL has rolled a deadlock
                // back already, and sysbench sends no ROLLBACK there (its
                // "other" count grows by the retry's BEGIN alone): same here.
                w.counts = [0; 3];
                let _ = w.rollback().await;
                let mut s = st.borrow_mut();
                s.add_counts(w.counts);
                if let Some(l) = w.log.as_mut() {
                    s.statements(l);
                }
            }
            if stopping {
                st.borrow_mut().busy -= 1;
                break 'events;
            }
        }
        let end = Instant::now();
        let mut s = st.borrow_mut();
        s.busy -= 1;
        let lat = end.duration_since(start).as_nanos() as u64;
        s.total.events += 1;
        s.iv.events += 1;
        s.lat.record(lat);
        s.iv_lat.record(lat);
        if o.rate > 0.0 {
            s.corrected
                .record(end.duration_since(intended).as_nanos() as u64);
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
    w.conn.close().await;
}

fn series(o: &Options) -> Vec<(u32, SeriesInfo)> {
    let tags = |stmt: &str| {
        vec![
            ("statement".to_string(), stmt.to_string()),
            ("test".to_string(), o.test.name().to_string()),
            ("driver".to_string(), o.driver.name().to_string()),
        ]
    };
    let mut v = vec![(
        SERIES_TX,
        SeriesInfo {
            kind: SeriesKind::Sample,
            name: "sql_tx".into(),
            time: true,
            tags: tags("transaction"),
        },
    )];
    for s in Stmt::ALL {
        v.push((
            SERIES_STMT0 + s as u32,
            SeriesInfo {
                kind: SeriesKind::Sample,
                name: "sql_stmt".into(),
                time: true,
                tags: tags(s.tag()),
            },
        ));
    }
    for (id, name) in [
        (SERIES_ERRORS, "sql_ignored_errors"),
        (SERIES_RECONNECTS, "sql_reconnects"),
    ] {
        v.push((
            id,
            SeriesInfo {
                kind: SeriesKind::Counter,
                name: name.into(),
                time: false,
                tags: vec![
                    ("test".to_string(), o.test.name().to_string()),
                    ("driver".to_string(), o.driver.name().to_string()),
                ],
            },
        ));
    }
    v
}

type WriterThread = (
    std::sync::mpsc::SyncSender<Vec<Rec>>,
    std::thread::JoinHandle<std::io::Result<()>>,
);

fn start_writer(o: &Options, start_unix_ns: u64) -> Result<Option<WriterThread>, Error> {
    let Some(path) = o.output.clone() else {
        return Ok(None);
    };
    let file = std::fs::File::create(&path).map_err(|e| Error::Output {
        path: path.display().to_string(),
        err: e.to_string(),
    })?;
    let info = AttackInfo {
        name: o.test.name().to_string(),
        start_unix_ns,
        ..AttackInfo::default()
    };
    let series = series(o);
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Rec>>(64);
    let h = std::thread::spawn(move || {
        let mut w = ResultsWriter::new(std::io::BufWriter::new(file));
        w.begin(&info);
        for (id, s) in &series {
            w.register_series(*id, s);
        }
        for batch in rx {
            for r in batch {
                match r {
                    Rec::Sample(s) => w.record(&s),
                    Rec::Metric(m) => w.metric(&m),
                }
            }
        }
        w.finish()
    });
    Ok(Some((tx, h)))
}

/// Runs the test; prints sysbench's layout on `out`.
pub async fn run(o: Arc<Options>, out: &mut dyn Write) -> Result<(), Error> {
    let seed_given = o.rand_seed != 0;
    let seed = if seed_given { o.rand_seed } else { now_seed() };
    let clock = Instant::now();
    let start_unix_ns = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    let unique = Arc::new(AtomicU32::new((seed as u32) & 0x3fff_ffff));
    let log = o.output.is_some();
    // Thread 0 first: its connection tells whether the server, the login
    // and the tables are there before anything else starts.
    let mut first = Worker::connect(o.clone(), 0, seed, unique.clone(), clock, log)
        .await
        .map_err(|e| Error::connect(&o, e))?;
    let exist = crate::data::existing_tables(&mut first.conn, o.tables)
        .await
        .map_err(|e| Error::connect(&o, e))?;
    if let Some(t) = (1..=o.tables).find(|t| !exist.contains(t)) {
        first.conn.close().await;
        return Err(Error::TablesMissing {
            table: format!("sbtest{t}"),
            db: o.conn.db.clone(),
            test: o.test.name(),
        });
    }
    let mut workers: Vec<Option<Worker>> = vec![Some(first)];
    let mut pending = Vec::new();
    for tid in 1..o.threads {
        pending.push(Worker::connect(
            o.clone(),
            tid,
            seed.wrapping_add(u64::from(tid).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            unique.clone(),
            clock,
            log,
        ));
    }
    // Connect the others at once (as sysbench's thread_init does).
    let mut fatal = None;
    for f in pending {
        match f.await {
            Ok(w) => workers.push(Some(w)),
            Err(e) if ignorable(&o, &e) && e.kind == ErrKind::TooManyConnections => {
                workers.push(None)
            }
            Err(e) => {
                fatal.get_or_insert(e);
                workers.push(None);
            }
        }
    }
    if let Some(e) = fatal {
        for w in workers.into_iter().flatten() {
            w.conn.close().await;
        }
        return Err(Error::connect(&o, e));
    }
    let writer = start_writer(&o, start_unix_ns)?;
    let st = Rc::new(RefCell::new(State {
        total: Counters::default(),
        iv: Counters::default(),
        lat: Distribution::new(),
        iv_lat: Distribution::new(),
        corrected: Distribution::new(),
        thread_events: vec![0; o.threads as usize],
        thread_time_ns: vec![0; o.threads as usize],
        next_event: 0,
        busy: 0,
        stop: false,
        fatal: None,
        pending: writer.as_ref().map(|_| Vec::with_capacity(4096)),
        seq: 0,
    }));
    // Connection failures ignored above count as errors of the run.
    let missing = workers.iter().filter(|w| w.is_none()).count();
    for _ in 0..missing {
        st.borrow_mut().error(0);
    }
    let _ = out.write_all(report::banner(&o, seed_given).as_bytes());
    let _ = out.write_all(b"Threads started!\n\n");
    let _ = out.flush();
    let clock = Instant::now();
    let local = tokio::task::LocalSet::new();
    let st2 = st.clone();
    let o2 = o.clone();
    let out2: &mut dyn Write = &mut *out;
    let writer = local
        .run_until(async move {
            let mut handles = Vec::new();
            for (tid, w) in workers.into_iter().enumerate() {
                handles.push(tokio::task::spawn_local(thread(
                    o2.clone(),
                    tid as u32,
                    w,
                    st2.clone(),
                    clock,
                    unique.clone(),
                    seed.wrapping_add((tid as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
                )));
            }
            let all_done = async {
                for h in handles {
                    let _ = h.await;
                }
            };
            tokio::pin!(all_done);
            let iv = (o2.report_interval > 0.0).then(|| Duration::from_secs_f64(o2.report_interval));
            let mut k: u32 = 1;
            let mut last_report = clock;
            let deadline = (o2.time > 0.0).then(|| clock + Duration::from_secs_f64(o2.time));
            let far = clock + Duration::from_secs(86_400 * 365);
            let mut flush_at = clock + Duration::from_millis(100);
            loop {
                let next_report = iv.map(|d| clock + d * k).unwrap_or(far);
                let stop_at = if st2.borrow().stop { far } else { deadline.unwrap_or(far) };
                tokio::select! {
                    _ = &mut all_done => break,
                    _ = tokio::time::sleep_until(next_report.into()), if iv.is_some() => {
                        let now = Instant::now();
                        let secs = now.duration_since(last_report).as_secs_f64().max(1e-9);
                        last_report = now;
                        let mut s = st2.borrow_mut();
                        let c = std::mem::take(&mut s.iv);
                        let d = std::mem::replace(&mut s.iv_lat, Distribution::new());
                        let line = report::interval_line(&IntervalFigures {
                            elapsed_s: iv.unwrap_or_default().as_secs_f64() * f64::from(k),
                            threads: o2.threads,
                            tps: c.events as f64 / secs,
                            qps: (c.reads + c.writes + c.others) as f64 / secs,
                            reads_ps: c.reads as f64 / secs,
                            writes_ps: c.writes as f64 / secs,
                            others_ps: c.others as f64 / secs,
                            percentile: o2.percentile,
                            lat_ms: d.quantile(f64::from(o2.percentile) / 100.0) as f64 / 1e6,
                            err_ps: c.errors as f64 / secs,
                            reconn_ps: c.reconnects as f64 / secs,
                        });
                        let queue = if o2.rate > 0.0 {
                            let due = (now.duration_since(clock).as_secs_f64() * o2.rate) as u64 + 1;
                            Some(report::queue_line(
                                iv.unwrap_or_default().as_secs_f64() * f64::from(k),
                                due.saturating_sub(s.next_event),
                                s.busy,
                            ))
                        } else {
                            None
                        };
                        drop(s);
                        let _ = out2.write_all(line.as_bytes());
                        if let Some(q) = queue {
                            let _ = out2.write_all(q.as_bytes());
                        }
                        let _ = out2.flush();
                        k += 1;
                    }
                    _ = tokio::time::sleep_until(stop_at.into()), if stop_at != far => {
                        st2.borrow_mut().stop = true;
                    }
                    _ = tokio::time::sleep_until(flush_at.into()), if writer.is_some() => {
                        flush_at += Duration::from_millis(100);
                        send_pending(&st2, &writer);
                    }
                }
            }
            send_pending(&st2, &writer);
            writer
        })
        .await;
    let total_s = clock.elapsed().as_secs_f64();
    let finish_writer = |w: Option<WriterThread>| -> Result<(), Error> {
        if let Some((tx, h)) = w {
            drop(tx);
            let path = o
                .output
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
            match h.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(Error::Output {
                        path,
                        err: e.to_string(),
                    });
                }
                Err(_) => {
                    return Err(Error::Output {
                        path,
                        err: "writer thread panicked".into(),
                    });
                }
            }
        }
        Ok(())
    };
    let writer_result = finish_writer(writer);
    let s = st.borrow();
    if let Some(e) = s.fatal.clone() {
        writer_result?;
        return Err(Error::during_run(&o, e, s.total.events));
    }
    let f = final_figures(&o, &s, total_s);
    if o.histogram {
        let _ = out.write_all(report::histogram(&s.lat).as_bytes());
    }
    let _ = out.write_all(report::final_blocks(&f).as_bytes());
    let _ = out.flush();
    writer_result
}

fn send_pending(st: &Rc<RefCell<State>>, writer: &Option<WriterThread>) {
    let Some((tx, _)) = writer else { return };
    let batch = {
        let mut s = st.borrow_mut();
        match s.pending.as_mut() {
            Some(p) if !p.is_empty() => std::mem::replace(p, Vec::with_capacity(4096)),
            _ => return,
        }
    };
    let _ = tx.send(batch);
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
        corrected_pct_ms: (o.rate > 0.0).then(|| {
            ms(s.corrected
                .quantile(if o.percentile == 0 { 0.95 } else { p }))
        }),
        events_avg,
        events_stddev,
        time_avg_s,
        time_stddev_s,
    }
}
