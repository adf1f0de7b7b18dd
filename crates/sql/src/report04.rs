//! sysbench 0.4.12's text layout, for the 0.4 command lines
//! (`--test=oltp`): the lines before the run (the options, the OLTP test's
//! mode), and the blocks after it ("OLTP test statistics", "Test execution
//! summary", "Threads fairness"), with 0.4.12's labels, widths and number
//! formats. Renderers only, as [`crate::report`]: the figures are the
//! run's, in [`FinalFigures`].

use std::fmt::Write;

use crate::options::{LOG_INFO, LOG_NOTICE, Legacy, OltpMode, Options, RandType};
use crate::report::FinalFigures;

/// The first line and the blank line after it, as 0.4.12 begins every
/// command (its program name replaced).
pub fn header() -> String {
    format!(
        "loadlab {} sysbench (sysbench 0.4.12 compatible):  multi-threaded system evaluation benchmark\n\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The start of `prepare`, `run` and `cleanup` at `o.verbosity`: the
/// header, then (at info) the driver taken when none was named.
pub fn start(o: &Options, l: &Legacy) -> String {
    let mut s = String::new();
    if o.verbosity >= LOG_NOTICE {
        s.push_str(&header());
    }
    if o.verbosity >= LOG_INFO && !l.driver_given {
        s.push_str("No DB drivers specified, using mysql\n");
    }
    s
}

/// The lines before the run, up to "Threads started!" (at notice).
pub fn banner(o: &Options, l: &Legacy) -> String {
    let mut s = start(o, l);
    if o.verbosity < LOG_NOTICE {
        return s;
    }
    s.push_str("Running the test with following options:\n");
    let _ = writeln!(s, "Number of threads: {}", o.threads);
    if let (true, Some(grace)) = (l.forced_shutdown_given && o.time > 0.0, o.forced_shutdown) {
        let _ = writeln!(
            s,
            "Forcing shutdown in {} seconds",
            (o.time + grace).trunc()
        );
    }
    s.push_str("\nDoing OLTP test.\n");
    s.push_str(match l.mode {
        OltpMode::Simple => "Running simple OLTP test\n",
        OltpMode::Complex => "Running mixed OLTP test\n",
        OltpMode::Nontrx => "Running non-transactional test\n",
    });
    if l.read_only {
        s.push_str("Doing read-only test\n");
    }
    match o.rand_type {
        RandType::Uniform => s.push_str("Using Uniform distribution\n"),
        RandType::Special => {
            let _ = writeln!(
                s,
                "Using Special distribution (12 iterations,  {} pct of values are returned in {} pct cases)",
                o.rand_spec_pct, o.rand_spec_res
            );
        }
    }
    if o.skip_trx {
        s.push_str("Skipping BEGIN/COMMIT\n");
    } else {
        s.push_str("Using \"BEGIN\" for starting transactions\n");
    }
    if o.auto_inc {
        s.push_str("Using auto_inc on the id column\n");
    } else {
        s.push_str("Not using auto_inc on the id column\n");
    }
    if o.events > 0 {
        let _ = writeln!(
            s,
            "Maximum number of requests for OLTP test is limited to {}",
            o.events
        );
    }
    s.push_str("Threads started!\n");
    if o.verbosity >= crate::options::LOG_DEBUG {
        for i in 0..o.threads {
            let _ = writeln!(s, "DEBUG: Runner thread started ({i})!");
        }
    }
    s
}

/// `label` padded to 0.4's value column (41), then `v` in 10 columns and
/// `ms`, as its per-request statistics.
fn ms_line(s: &mut String, label: &str, v: f64) {
    let _ = writeln!(s, "{label:<41}{v:10.2}ms");
}

/// The blocks after the run: OLTP test statistics (the deadlocks are the
/// errors retried), Test execution summary, Threads fairness.
pub fn final_blocks(f: &FinalFigures) -> String {
    let t = f.total_time_s;
    let mut s = String::from("OLTP test statistics:\n    queries performed:\n");
    for (label, n) in [
        ("read:", f.reads),
        ("write:", f.writes),
        ("other:", f.others),
        ("total:", f.reads + f.writes + f.others),
    ] {
        let _ = writeln!(s, "        {label:<33}{n}");
    }
    for (label, n, rate) in [
        ("transactions:", f.transactions, f.tps),
        ("deadlocks:", f.ignored_errors, f.err_ps),
        ("read/write requests:", f.reads + f.writes, f.rw_ps),
        ("other operations:", f.others, f.others_ps),
    ] {
        let _ = writeln!(s, "    {label:<37}{n:<6} ({rate:.2} per sec.)");
    }
    s.push_str("\nTest execution summary:\n");
    let _ = writeln!(s, "    total time:                          {t:.4}s");
    let _ = writeln!(s, "    total number of events:              {}", f.events);
    let _ = writeln!(
        s,
        "    total time taken by event execution: {:.4}",
        f.lat_sum_ms / 1e3
    );
    s.push_str("    per-request statistics:\n");
    ms_line(&mut s, "         min:", f.lat_min_ms);
    ms_line(&mut s, "         avg:", f.lat_avg_ms);
    ms_line(&mut s, "         max:", f.lat_max_ms);
    ms_line(
        &mut s,
        &format!("         approx. {:3} percentile:", f.percentile),
        f.lat_pct_ms,
    );
    if let Some(c) = f.other_pct_ms {
        ms_line(
            &mut s,
            &format!("         {}th percentile (corrected):", f.percentile),
            c,
        );
    }
    crate::report::threads_fairness(&mut s, f);
    s
}

/// The end of `cleanup` at info: `Done.`.
pub fn cleanup_done(o: &Options) -> &'static str {
    if o.verbosity >= LOG_INFO {
        "Done.\n"
    } else {
        ""
    }
}
