//! The layout is sysbench 1.0.20's: the golden files are Debian's sysbench
//! 1.0.20's real output (tests/golden/sysbench-1.0.20-*.txt); their figures
//! are read back and rendered by loadlab's renderers, and the text must be
//! the same, byte for byte.

use loadlab_sql::report::{self, FinalFigures, IntervalFigures};

fn golden(name: &str) -> String {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The numbers of a line, in order (`95%` gives 95, `3.0024s` 3.0024).
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

fn line_after<'a>(text: &'a str, label: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(label))
        .unwrap_or_else(|| panic!("no line {label}"))
}

fn first(text: &str, label: &str) -> f64 {
    nums(line_after(text, label).split_once(':').unwrap().1)[0]
}

/// Reads sysbench's final blocks back into figures.
fn figures(text: &str) -> FinalFigures {
    // `--percentile=0`: "percentile stats: disabled" instead.
    let pct_line = text.lines().find(|l| l.contains("th percentile:"));
    let percentile = pct_line.map_or(0, |l| nums(l)[0] as u32);
    let per = |label: &str| nums(line_after(text, label).split_once(':').unwrap().1);
    let ev = per("events (avg/stddev)");
    let tm = per("execution time (avg/stddev)");
    FinalFigures {
        reads: first(text, "read:") as u64,
        writes: first(text, "write:") as u64,
        others: first(text, "other:") as u64,
        transactions: per("transactions:")[0] as u64,
        tps: per("transactions:")[1],
        qps: per("queries:")[1],
        rw_ps: 0.0,
        others_ps: 0.0,
        ignored_errors: per("ignored errors:")[0] as u64,
        err_ps: per("ignored errors:")[1],
        reconnects: per("reconnects:")[0] as u64,
        reconn_ps: per("reconnects:")[1],
        total_time_s: first(text, "total time:"),
        events: first(text, "total number of events:") as u64,
        lat_min_ms: first(text, "min:"),
        lat_avg_ms: first(text, "avg:"),
        lat_max_ms: first(text, "max:"),
        percentile,
        lat_pct_ms: pct_line.map_or(0.0, |l| nums(l.split_once(':').unwrap().1)[0]),
        lat_sum_ms: first(text, "sum:"),
        other_pct_ms: None,
        events_avg: ev[0],
        events_stddev: ev[1],
        time_avg_s: tm[0],
        time_stddev_s: tm[1],
    }
}

fn tail_from<'a>(text: &'a str, marker: &str) -> &'a str {
    &text[text.find(marker).unwrap()..]
}

#[test]
fn final_blocks_match_sysbench_1_0_20() {
    for name in [
        "sysbench-1.0.20-oltp_read_only.txt",
        "sysbench-1.0.20-oltp_point_select-rate.txt",
        "sysbench-1.0.20-oltp_read_write-histogram.txt",
        "sysbench-1.0.20-oltp_read_only-percentile0.txt",
    ] {
        let text = golden(name);
        let want = tail_from(&text, "SQL statistics:");
        let got = report::final_blocks(&figures(want));
        assert_eq!(got, want, "{name}");
    }
}

#[test]
fn interval_lines_match_sysbench_1_0_20() {
    let mut seen = 0;
    for name in [
        "sysbench-1.0.20-oltp_read_only.txt",
        "sysbench-1.0.20-oltp_point_select-rate.txt",
        "sysbench-1.0.20-oltp_read_only-percentile0.txt",
    ] {
        let text = golden(name);
        for line in text.lines().filter(|l| l.starts_with("[ ")) {
            let n = nums(line);
            let got = if line.contains("queue length") {
                report::queue_line(n[0], n[1] as u64, n[2] as u32)
            } else {
                report::interval_line(&IntervalFigures {
                    elapsed_s: n[0],
                    threads: n[1] as u32,
                    tps: n[2],
                    qps: n[3],
                    reads_ps: n[4],
                    writes_ps: n[5],
                    others_ps: n[6],
                    percentile: n[7] as u32,
                    lat_ms: n[8],
                    err_ps: n[9],
                    reconn_ps: n[10],
                })
            };
            assert_eq!(got, format!("{line}\n"), "{name}");
            seen += 1;
        }
    }
    assert!(seen >= 8, "{seen}");
}

#[test]
fn banner_matches_sysbench_1_0_20_after_the_first_line() {
    let args: Vec<String> = "--threads=2 --report-interval=1 --rate=500 oltp_point_select run"
        .split(' ')
        .map(String::from)
        .collect();
    let loadlab_sql::Parsed::Do(o) = loadlab_sql::parse(&args).unwrap() else {
        panic!()
    };
    let text = golden("sysbench-1.0.20-oltp_point_select-rate.txt");
    let want = &text[text.find('\n').unwrap()..text.find("Threads started!").unwrap()];
    let got = report::banner(&o, false);
    assert_eq!(&got[got.find('\n').unwrap()..], want);
}

#[test]
fn histogram_has_sysbench_shape() {
    let mut d = loadlab_metrics::Distribution::new();
    for v in [690_000u64, 702_000, 728_000, 728_500, 10_844_000] {
        d.record(v);
    }
    let h = report::histogram(&d);
    let text = golden("sysbench-1.0.20-oltp_read_write-histogram.txt");
    let head: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Latency histogram"))
        .take(2)
        .collect();
    let lines: Vec<&str> = h.lines().collect();
    assert_eq!(&lines[..2], &head[..]);
    // Rows: value right-aligned in 12 columns, 40 columns of stars, count.
    // Bucket values on sysbench's log scale (1024 buckets, 0.001 ms to
    // 100 s): the first row is within one bucket (1.8 %) of 0.690.
    let v: f64 = lines[2].split('|').next().unwrap().trim().parse().unwrap();
    assert!((v - 0.690).abs() < 0.690 * 0.019, "{h}");
    assert!(
        lines
            .iter()
            .any(|l| l.ends_with(" 2") && l.contains("****************************************")),
        "{h}"
    );
    assert_eq!(*lines.last().unwrap(), " ");
    // The same shape as sysbench's rows.
    let row = text.lines().find(|l| l.contains(" |")).unwrap();
    assert_eq!(row.find('|'), lines[2].find('|'));
    assert_eq!(row.len(), lines[2].len());
}
