//! The layout of sysbench 0.4 lines (`--test=oltp`) is sysbench 0.4.12's:
//! the golden files `tests/golden/sysbench-0.4.12-*.txt` are sysbench
//! 0.4.12's real output (built from its source, run against a MariaDB
//! 10.11 on 127.0.0.1); their figures are read back and rendered by
//! loadlab's renderers, and the text must be the same, byte for byte, from
//! the second line on (the first names loadlab).

use loadlab_sql::report::{self, FinalFigures, Limit};
use loadlab_sql::{Parsed, report04};

pub fn golden(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Each golden run, and the 0.4 line it was made with (the connection
/// options left out).
pub const RUNS: [(&str, &str); 3] = [
    (
        "sysbench-0.4.12-oltp.txt",
        "--test=oltp --oltp-table-size=10000 --max-requests=2000 run",
    ),
    (
        "sysbench-0.4.12-oltp-read-only-time.txt",
        "--test=oltp --db-driver=mysql --oltp-table-size=10000 --max-time=2 --max-requests=0 \
         --oltp-read-only --oltp-skip-trx --oltp-nontrx-mode=select --num-threads=4 run",
    ),
    (
        "sysbench-0.4.12-oltp-verbosity3.txt",
        "--test=oltp --db-driver=mysql --oltp-table-size=10000 --max-requests=300 --max-time=10 \
         --forced-shutdown=3 --oltp-dist-type=uniform --oltp-skip-trx --num-threads=2 \
         --verbosity=3 --percentile=99 run",
    ),
];

fn options(line: &str) -> loadlab_sql::Options {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    match loadlab_sql::parse(&args).unwrap() {
        Parsed::Do(o) => *o,
        other => panic!("{other:?}"),
    }
}

/// The numbers of a line, in order.
fn nums(line: &str) -> Vec<f64> {
    let mut v = Vec::new();
    let mut cur = String::new();
    for ch in line.chars().chain(std::iter::once(' ')) {
        if ch.is_ascii_digit() || (ch == '.' && !cur.is_empty()) {
            cur.push(ch);
        } else {
            if !cur.is_empty() {
                v.push(cur.trim_end_matches('.').parse().unwrap());
            }
            cur.clear();
        }
    }
    v
}

/// The numbers after `label:` on its line.
fn after(text: &str, label: &str) -> Vec<f64> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no line {label}"));
    nums(&line[line.find(label).unwrap() + label.len()..])
}

/// Reads 0.4's final blocks back into figures.
fn figures(text: &str) -> FinalFigures {
    let pct = after(text, "approx.");
    let (tx, dl, rw, oth) = (
        after(text, "transactions:"),
        after(text, "deadlocks:"),
        after(text, "read/write requests:"),
        after(text, "other operations:"),
    );
    let (ev, tm) = (
        after(text, "events (avg/stddev):"),
        after(text, "execution time (avg/stddev):"),
    );
    FinalFigures {
        reads: after(text, "read:")[0] as u64,
        writes: after(text, "write:")[0] as u64,
        others: after(text, "other:")[0] as u64,
        transactions: tx[0] as u64,
        tps: tx[1],
        ignored_errors: dl[0] as u64,
        err_ps: dl[1],
        rw_ps: rw[1],
        others_ps: oth[1],
        total_time_s: after(text, "total time:")[0],
        events: after(text, "total number of events:")[0] as u64,
        lat_sum_ms: after(text, "total time taken by event execution:")[0] * 1e3,
        lat_min_ms: after(text, "min:")[0],
        lat_avg_ms: after(text, "avg:")[0],
        lat_max_ms: after(text, "max:")[0],
        percentile: pct[0] as u32,
        lat_pct_ms: pct[1],
        events_avg: ev[0],
        events_stddev: ev[1],
        time_avg_s: tm[0],
        time_stddev_s: tm[1],
        ..FinalFigures::default()
    }
}

/// `text` from `marker` on.
fn from<'a>(text: &'a str, marker: &str) -> &'a str {
    &text[text.find(marker).unwrap_or_else(|| panic!("no {marker}"))..]
}

#[test]
fn final_blocks_match_sysbench_0_4_12() {
    for (name, _) in RUNS {
        let text = golden(name);
        let want = from(&text, "OLTP test statistics:");
        assert_eq!(report04::final_blocks(&figures(want)), want, "{name}");
    }
}

#[test]
fn lines_before_the_run_match_sysbench_0_4_12_after_the_first_line() {
    for (name, line) in RUNS {
        let text = golden(name);
        let o = options(line);
        let want = &text[text.find('\n').unwrap()..];
        let want = &want[..want.find("Threads started!\n").unwrap() + 17];
        let got = report04::banner(&o, o.legacy.as_ref().unwrap());
        assert_eq!(&got[got.find('\n').unwrap()..], want, "{name}");
        assert!(got.starts_with("loadlab "), "{got}");
        assert!(
            got.lines().next().unwrap().ends_with(
                "(sysbench 0.4.12 compatible):  multi-threaded system evaluation benchmark"
            ),
            "{got}"
        );
    }
}

#[test]
fn lines_between_the_run_and_its_statistics_match_sysbench_0_4_12() {
    // The runs ended by their request limit (quietly), by the time limit
    // (each thread says so), and one at verbosity 3 (nothing).
    let ends = [(Limit::Events, 1), (Limit::Time, 4), (Limit::Events, 2)];
    for ((name, line), (limit, threads)) in RUNS.into_iter().zip(ends) {
        let text = golden(name);
        let o = options(line);
        let start = text.find("Threads started!\n").unwrap() + 17;
        let want = &text[start..text.find("OLTP test statistics:").unwrap()];
        assert_eq!(report::run_end(&o, Some(limit), threads), want, "{name}");
    }
}
