//! sysbench 1.0.20's text layout: the banner, the interval lines, the
//! latency histogram and the final blocks (SQL statistics, General
//! statistics, Latency (ms), Threads fairness). Renderers only: every
//! figure comes from the run's [`loadlab_metrics::Distribution`]s and
//! counters; nothing here computes a percentile.

use std::fmt::Write;

use loadlab_metrics::Distribution;

use crate::options::Options;

/// The lines before the run, as sysbench prints them.
pub fn banner(o: &Options, seed_given: bool) -> String {
    let mut s = format!(
        "loadlab {} sysbench (sysbench 1.0.20 compatible)\n\n",
        env!("CARGO_PKG_VERSION")
    );
    s.push_str("Running the test with following options:\n");
    let _ = writeln!(s, "Number of threads: {}", o.threads);
    if o.rate > 0.0 {
        let _ = writeln!(s, "Target transaction rate: {}/sec", fmt_g(o.rate));
    }
    if o.report_interval > 0.0 {
        let _ = writeln!(
            s,
            "Report intermediate results every {} second(s)",
            fmt_g(o.report_interval)
        );
    }
    if seed_given {
        let _ = writeln!(
            s,
            "Initializing random number generator from seed ({}).",
            o.rand_seed
        );
    } else {
        s.push_str("Initializing random number generator from current time\n");
    }
    s.push_str("\n\nInitializing worker threads...\n\n");
    s
}

/// `500` for 500.0, `2.5` for 2.5.
fn fmt_g(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// At debug verbosity, the lines sysbench 1.0 logs as it starts its
/// threads: those before `Initializing worker threads...` (the reporting
/// and the event generating threads) and those after it (each worker
/// started, then each initialized).
pub fn debug_start(o: &Options) -> (String, String) {
    let mut before = String::new();
    if o.report_interval > 0.0 {
        before.push_str("DEBUG: Reporting thread started\n");
    }
    if o.rate > 0.0 {
        before.push_str("DEBUG: Event generating thread started\n");
    }
    let mut after = String::new();
    for what in ["started", "initialized"] {
        for i in 0..o.threads {
            let _ = writeln!(after, "DEBUG: Worker thread (#{i}) {what}");
        }
    }
    (before, after)
}

/// One interval's figures (per second).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IntervalFigures {
    pub elapsed_s: f64,
    pub threads: u32,
    pub tps: f64,
    pub qps: f64,
    pub reads_ps: f64,
    pub writes_ps: f64,
    pub others_ps: f64,
    pub percentile: u32,
    pub lat_ms: f64,
    pub err_ps: f64,
    pub reconn_ps: f64,
}

/// `[ 1s ] thds: 2 tps: … qps: … (r/w/o: …) lat (ms,95%): … err/s: … reconn/s: …`
pub fn interval_line(f: &IntervalFigures) -> String {
    // With --percentile=0, as sysbench: `lat (ms,0%): 0.00`.
    format!(
        "[ {:.0}s ] thds: {} tps: {:4.2} qps: {:4.2} (r/w/o: {:4.2}/{:4.2}/{:4.2}) lat (ms,{}%): {:4.2} err/s: {:4.2} reconn/s: {:4.2}\n",
        f.elapsed_s,
        f.threads,
        f.tps,
        f.qps,
        f.reads_ps,
        f.writes_ps,
        f.others_ps,
        f.percentile,
        f.lat_ms,
        f.err_ps,
        f.reconn_ps
    )
}

/// `[ 1s ] queue length: 0, concurrency: 0` (with `--rate`).
pub fn queue_line(elapsed_s: f64, queue: u64, concurrency: u32) -> String {
    format!("[ {elapsed_s:.0}s ] queue length: {queue}, concurrency: {concurrency}\n")
}

/// Everything the final blocks print.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FinalFigures {
    pub reads: u64,
    pub writes: u64,
    pub others: u64,
    pub transactions: u64,
    pub tps: f64,
    pub qps: f64,
    /// Reads and writes per second, and other statements per second
    /// (sysbench 0.4's layout).
    pub rw_ps: f64,
    pub others_ps: f64,
    pub ignored_errors: u64,
    pub err_ps: f64,
    pub reconnects: u64,
    pub reconn_ps: f64,
    pub total_time_s: f64,
    pub events: u64,
    pub lat_min_ms: f64,
    pub lat_avg_ms: f64,
    pub lat_max_ms: f64,
    pub percentile: u32,
    pub lat_pct_ms: f64,
    pub lat_sum_ms: f64,
    /// With `--rate`: the percentile of the other latency. On sysbench
    /// 1.0's lines the main figures count from each transaction's intended
    /// start (queue wait included, as sysbench 1.0), and this one from the
    /// moment a thread started it; on 0.4's lines the other way round.
    pub other_pct_ms: Option<f64>,
    pub events_avg: f64,
    pub events_stddev: f64,
    pub time_avg_s: f64,
    pub time_stddev_s: f64,
}

/// `         label:` padded so the value ends in column 53, as sysbench's
/// latency block.
fn lat_line(s: &mut String, label: &str, v: f64) {
    let width = 53usize.saturating_sub(9 + label.len());
    let _ = writeln!(s, "         {label}{v:>width$.2}");
}

/// The blocks after the run.
pub fn final_blocks(f: &FinalFigures) -> String {
    let mut s = String::new();
    s.push_str("SQL statistics:\n    queries performed:\n");
    let _ = writeln!(s, "        read:                            {}", f.reads);
    let _ = writeln!(s, "        write:                           {}", f.writes);
    let _ = writeln!(s, "        other:                           {}", f.others);
    let _ = writeln!(
        s,
        "        total:                           {}",
        f.reads + f.writes + f.others
    );
    let _ = writeln!(
        s,
        "    transactions:                        {:<6} ({:.2} per sec.)",
        f.transactions, f.tps
    );
    let _ = writeln!(
        s,
        "    queries:                             {:<6} ({:.2} per sec.)",
        f.reads + f.writes + f.others,
        f.qps
    );
    let _ = writeln!(
        s,
        "    ignored errors:                      {:<6} ({:.2} per sec.)",
        f.ignored_errors, f.err_ps
    );
    let _ = writeln!(
        s,
        "    reconnects:                          {:<6} ({:.2} per sec.)",
        f.reconnects, f.reconn_ps
    );
    s.push_str("\nGeneral statistics:\n");
    let _ = writeln!(
        s,
        "    total time:                          {:.4}s",
        f.total_time_s
    );
    let _ = writeln!(s, "    total number of events:              {}", f.events);
    s.push_str("\nLatency (ms):\n");
    lat_line(&mut s, "min:", f.lat_min_ms);
    lat_line(&mut s, "avg:", f.lat_avg_ms);
    lat_line(&mut s, "max:", f.lat_max_ms);
    if f.percentile > 0 {
        lat_line(
            &mut s,
            &format!("{}th percentile:", f.percentile),
            f.lat_pct_ms,
        );
    } else {
        s.push_str("         percentile stats:               disabled\n");
    }
    lat_line(&mut s, "sum:", f.lat_sum_ms);
    if let Some(c) = f.other_pct_ms {
        lat_line(
            &mut s,
            &format!("{}th percentile (no queue):", f.percentile),
            c,
        );
    }
    threads_fairness(&mut s, f);
    s
}

/// The `Threads fairness:` block, the same in sysbench 1.0 and 0.4.12.
pub(crate) fn threads_fairness(s: &mut String, f: &FinalFigures) {
    s.push_str("\nThreads fairness:\n");
    let _ = writeln!(
        s,
        "    events (avg/stddev):           {:.4}/{:3.2}",
        f.events_avg, f.events_stddev
    );
    let _ = writeln!(
        s,
        "    execution time (avg/stddev):   {:.4}/{:3.2}",
        f.time_avg_s, f.time_stddev_s
    );
    s.push('\n');
}

/// sysbench's histogram buckets: 1024 on a log scale from 0.001 ms to
/// 100 s.
const HIST_LO_MS: f64 = 0.001;
const HIST_HI_MS: f64 = 100_000.0;
const HIST_BUCKETS: f64 = 1024.0;

/// `Latency histogram (values are in milliseconds)` of a distribution in ns,
/// its recorded values grouped into sysbench's log-scale buckets.
pub fn histogram(d: &Distribution) -> String {
    let step = (HIST_HI_MS / HIST_LO_MS).ln() / HIST_BUCKETS;
    let mut rows: Vec<(i64, u64)> = Vec::new();
    for v in d.histogram().iter_recorded() {
        let ms = v.value_iterated_to() as f64 / 1e6;
        let i = ((ms.max(HIST_LO_MS) / HIST_LO_MS).ln() / step).floor() as i64;
        match rows.last_mut() {
            Some((j, n)) if *j == i => *n += v.count_at_value(),
            _ => rows.push((i, v.count_at_value())),
        }
    }
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    let mut s = String::from("Latency histogram (values are in milliseconds)\n");
    s.push_str("       value  ------------- distribution ------------- count\n");
    for (i, n) in rows {
        let v = HIST_LO_MS * (step * i as f64).exp();
        let stars = "*".repeat((n * 40 / max) as usize);
        let _ = writeln!(s, "{v:12.3} |{stars:<40} {n}");
    }
    s.push_str(" \n");
    s
}

/// A line logged by each of `n` threads, as sysbench's log prints it: once,
/// then `(last message repeated N times)`.
pub fn repeated(line: &str, n: u32) -> String {
    let mut s = format!("{line}\n");
    if n > 1 {
        let _ = writeln!(s, "(last message repeated {} times)", n - 1);
    }
    s
}

/// The limit that ended a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Time,
    Events,
}

/// The lines between the run and its statistics, at info verbosity: the
/// word of each of the `threads` threads on the limit that ended the run
/// (sysbench 0.4 ends quietly at its request limit), then `Done.`.
pub fn run_end(o: &Options, limit: Option<Limit>, threads: u32) -> String {
    if o.verbosity < crate::options::LOG_INFO {
        return String::new();
    }
    let line = match (limit, o.legacy.is_some()) {
        (Some(Limit::Time), _) => Some("Time limit exceeded, exiting..."),
        (Some(Limit::Events), false) => Some("Event limit exceeded, exiting..."),
        _ => None,
    };
    let mut s = line.map(|l| repeated(l, threads)).unwrap_or_default();
    s.push_str("Done.\n\n");
    s
}

/// Mean and population standard deviation, as sysbench's fairness lines.
pub fn avg_stddev(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let n = values.len() as f64;
    let avg = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - avg) * (v - avg)).sum::<f64>() / n;
    (avg, var.sqrt())
}
