//! ApacheBench's text report, line for line, plus its `-g` gnuplot TSV and
//! `-e` percentile CSV. Everything here is pure: figures in, text out, so the
//! layouts are pinned by golden tests on synthetic data.

use std::fmt::Write as _;

use crate::hist::Dist;

/// ab's percentile rows.
const PERCENTS: [u32; 9] = [50, 66, 75, 80, 90, 95, 98, 99, 100];

/// Failed requests by ab's four causes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Failures {
    pub connect: u64,
    pub receive: u64,
    pub length: u64,
    pub exceptions: u64,
}

impl Failures {
    pub fn total(&self) -> u64 {
        self.connect + self.receive + self.length + self.exceptions
    }
}

/// Per-request phase durations in microseconds, as ab defines them:
/// Connect = connection set-up, Total = start to last byte, Processing =
/// Total − Connect, Waiting = request written to first response byte.
#[derive(Debug, Clone, Default)]
pub struct Phases {
    pub connect: Dist,
    pub processing: Dist,
    pub waiting: Dist,
    pub total: Dist,
}

impl Phases {
    pub fn record(&mut self, connect_us: u64, waiting_us: u64, total_us: u64) {
        self.connect.record(connect_us);
        self.processing.record(total_us.saturating_sub(connect_us));
        self.waiting.record(waiting_us);
        self.total.record(total_us);
    }
}

/// Every figure of ab's report.
#[derive(Debug, Clone, Default)]
pub struct AbReport {
    pub server_software: String,
    pub hostname: String,
    pub port: u16,
    /// `SSL/TLS Protocol` line, for https.
    pub tls_protocol: Option<String>,
    /// `TLS Server Name` line, for https with a host name.
    pub tls_server_name: Option<String>,
    pub path: String,
    /// None prints `Variable` (`-l`).
    pub document_length: Option<u64>,
    pub concurrency: u64,
    pub time_taken_s: f64,
    pub complete: u64,
    pub failures: Failures,
    pub write_errors: u64,
    pub non_2xx: u64,
    /// `Keep-Alive requests`, printed with `-k`.
    pub keepalive_requests: Option<u64>,
    pub total_transferred: u64,
    /// `Total body sent`, printed when a body was sent (`-p`/`-u`).
    pub body_sent: Option<u64>,
    pub html_transferred: u64,
    pub phases: Phases,
    /// false with `-S`: the short `min avg max` table.
    pub confidence: bool,
    /// false with `-d`: no percentage table.
    pub percentiles: bool,
}

fn round_ms(us: u64) -> u64 {
    (us + 500) / 1000
}

/// The report printed after the run, starting with ab's two blank lines.
pub fn render(r: &AbReport) -> String {
    let mut o = String::new();
    let t = r.time_taken_s;
    o.push_str("\n\n");
    let _ = writeln!(o, "Server Software:        {}", r.server_software);
    let _ = writeln!(o, "Server Hostname:        {}", r.hostname);
    let _ = writeln!(o, "Server Port:            {}", r.port);
    if let Some(p) = &r.tls_protocol {
        let _ = writeln!(o, "SSL/TLS Protocol:       {p}");
    }
    if let Some(n) = &r.tls_server_name {
        let _ = writeln!(o, "TLS Server Name:        {n}");
    }
    o.push('\n');
    let _ = writeln!(o, "Document Path:          {}", r.path);
    match r.document_length {
        Some(n) => {
            let _ = writeln!(o, "Document Length:        {n} bytes");
        }
        None => o.push_str("Document Length:        Variable\n"),
    }
    o.push('\n');
    let _ = writeln!(o, "Concurrency Level:      {}", r.concurrency);
    let _ = writeln!(o, "Time taken for tests:   {t:.3} seconds");
    let _ = writeln!(o, "Complete requests:      {}", r.complete);
    let f = &r.failures;
    let _ = writeln!(o, "Failed requests:        {}", f.total());
    if f.total() > 0 {
        let _ = writeln!(
            o,
            "   (Connect: {}, Receive: {}, Length: {}, Exceptions: {})",
            f.connect, f.receive, f.length, f.exceptions
        );
    }
    if r.write_errors > 0 {
        let _ = writeln!(o, "Write errors:           {}", r.write_errors);
    }
    if r.non_2xx > 0 {
        let _ = writeln!(o, "Non-2xx responses:      {}", r.non_2xx);
    }
    if let Some(k) = r.keepalive_requests {
        let _ = writeln!(o, "Keep-Alive requests:    {k}");
    }
    let _ = writeln!(o, "Total transferred:      {} bytes", r.total_transferred);
    if let Some(b) = r.body_sent {
        let _ = writeln!(o, "Total body sent:        {b}");
    }
    let _ = writeln!(o, "HTML transferred:       {} bytes", r.html_transferred);
    let done = r.complete;
    if t > 0.0 && done > 0 {
        let d = done as f64;
        let _ = writeln!(o, "Requests per second:    {:.2} [#/sec] (mean)", d / t);
        let _ = writeln!(
            o,
            "Time per request:       {:.3} [ms] (mean)",
            r.concurrency as f64 * t * 1000.0 / d
        );
        let _ = writeln!(
            o,
            "Time per request:       {:.3} [ms] (mean, across all concurrent requests)",
            t * 1000.0 / d
        );
        let _ = writeln!(
            o,
            "Transfer rate:          {:.2} [Kbytes/sec] received",
            r.total_transferred as f64 / 1024.0 / t
        );
        if let Some(b) = r.body_sent {
            let _ = writeln!(
                o,
                "                        {:.2} kb/s sent",
                b as f64 / 1024.0 / t
            );
            let _ = writeln!(
                o,
                "                        {:.2} kb/s total",
                (r.total_transferred + b) as f64 / 1024.0 / t
            );
        }
    }
    let p = &r.phases;
    if p.total.count() > 0 {
        o.push_str("\nConnection Times (ms)\n");
        let rows = [
            ("Connect:    ", &p.connect),
            ("Processing: ", &p.processing),
            ("Waiting:    ", &p.waiting),
            ("Total:      ", &p.total),
        ];
        if r.confidence {
            o.push_str("              min  mean[+/-sd] median   max\n");
            for (name, d) in rows {
                let (min, mean, sd, median, max) = row_figures(d);
                let _ = writeln!(o, "{name}{min:5} {mean:4} {sd:5.1} {median:6} {max:7}");
            }
            let what = [
                "the initial connection time",
                "the processing time",
                "the waiting time",
                "the total time",
            ];
            for (what, (_, d)) in what.iter().zip(rows) {
                let (_, mean, sd, median, _) = row_figures(d);
                let diff = (mean as f64 - median as f64).abs();
                if diff > 2.0 * sd {
                    let _ = writeln!(
                        o,
                        "ERROR: The median and mean for {what} are more than twice the standard"
                    );
                    o.push_str("       deviation apart. These results are NOT reliable.\n");
                } else if diff > sd {
                    let _ = writeln!(
                        o,
                        "WARNING: The median and mean for {what} are not within a normal deviation"
                    );
                    o.push_str("        These results are probably not that reliable.\n");
                }
            }
        } else {
            o.push_str("              min   avg   max\n");
            for (name, d) in rows {
                let (min, mean, _, _, max) = row_figures(d);
                let _ = writeln!(o, "{name}{min:5} {mean:5}{max:5}");
            }
        }
        if r.percentiles && p.total.count() > 1 {
            o.push_str("\nPercentage of the requests served within a certain time (ms)\n");
            for pc in PERCENTS {
                if pc >= 100 {
                    let _ = writeln!(o, " 100%  {:5} (longest request)", round_ms(p.total.max()));
                } else {
                    let _ = writeln!(o, "  {pc}%  {:5}", round_ms(served_within(&p.total, pc)));
                }
            }
        }
    }
    o
}

/// min, mean, sd, median, max in ms as ab prints them: whole milliseconds
/// rounded from microseconds (the mean is truncated to whole microseconds
/// first, as ab does), the standard deviation with one decimal.
fn row_figures(d: &Dist) -> (u64, u64, f64, u64, u64) {
    (
        round_ms(d.min()),
        round_ms(d.mean() as u64),
        d.sample_stdev() / 1000.0,
        round_ms(d.percentile(50.0)),
        round_ms(d.max()),
    )
}

/// The time within which `pc` % of the requests were served: the
/// histogram's value at that percentile, but never above the exact longest
/// request. ab reads its percentages from the sorted times, so its table
/// never decreases and ends at the maximum; a histogram bucket's highest
/// equivalent value can lie above the maximum (3,002 ms beside a longest
/// request of 3,001).
fn served_within(total: &Dist, pc: u32) -> u64 {
    total.percentile(pc as f64).min(total.max())
}

/// `-e`: `Percentage served,Time in ms`, one row per percent 0..=100, from the
/// Total time histogram.
pub fn percentile_csv(total: &Dist) -> String {
    let mut o = String::from("Percentage served,Time in ms\n");
    for i in 0..=100u32 {
        let us = match i {
            0 => total.min(),
            100 => total.max(),
            _ => served_within(total, i),
        };
        let _ = writeln!(o, "{i},{:.3}", us as f64 / 1000.0);
    }
    o
}

/// One `-g` row: a request's wall-clock start and its phases in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GnuplotRow {
    pub start_unix_us: u64,
    pub connect_us: u32,
    pub total_us: u32,
    pub waiting_us: u32,
}

/// `-g`: ab's gnuplot TSV, one row per request sorted by total time (as ab
/// writes it), times in whole milliseconds, start as a ctime string in UTC.
pub fn gnuplot_tsv(rows: &mut [GnuplotRow]) -> String {
    rows.sort_by_key(|r| (r.total_us, r.start_unix_us));
    let mut o = String::with_capacity(64 + rows.len() * 56);
    o.push_str("starttime\tseconds\tctime\tdtime\tttime\twait\n");
    for r in rows.iter() {
        let secs = r.start_unix_us / 1_000_000;
        let c = round_ms(r.connect_us as u64);
        let t = round_ms(r.total_us as u64);
        let d = round_ms(r.total_us.saturating_sub(r.connect_us) as u64);
        let w = round_ms(r.waiting_us as u64);
        let _ = writeln!(o, "{}\t{secs}\t{c}\t{d}\t{t}\t{w}", ctime_utc(secs));
    }
    o
}

/// `Sun Nov 22 12:12:55 2026`: APR's ctime layout (zero-padded day).
pub fn ctime_utc(unix_s: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = unix_s / 86_400;
    let rem = unix_s % 86_400;
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} {}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        y
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian
/// calendar (Howard Hinnant's well-known algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_percentage_table_never_passes_the_longest_request() {
        // 3,001 ms lies in a histogram bucket whose highest equivalent value
        // rounds to 3,002 ms.
        let mut r = AbReport {
            complete: 100,
            percentiles: true,
            ..AbReport::default()
        };
        for _ in 0..100 {
            r.phases.record(0, 3_000_900, 3_000_900);
        }
        assert!(r.phases.total.percentile(99.0) > r.phases.total.max() + 500);
        let text = render(&r);
        let rows: Vec<u64> = text
            .lines()
            .skip_while(|l| !l.starts_with("Percentage of the requests"))
            .skip(1)
            .map(|l| l.split_whitespace().nth(1).unwrap().parse().unwrap())
            .collect();
        assert_eq!(rows.len(), 9, "{text}");
        assert!(rows.windows(2).all(|w| w[0] <= w[1]), "{rows:?}\n{text}");
        assert_eq!(*rows.last().unwrap(), 3001, "{text}");
        let csv = percentile_csv(&r.phases.total);
        assert!(
            csv.lines().skip(1).all(|l| l.ends_with(",3000.900")),
            "{csv}"
        );
    }

    #[test]
    fn ctime_layout() {
        assert_eq!(ctime_utc(0), "Thu Jan 01 00:00:00 1970");
        assert_eq!(ctime_utc(1_795_350_775), "Sun Nov 22 12:32:55 2026");
        assert_eq!(ctime_utc(951_782_400), "Tue Feb 29 00:00:00 2000");
    }

    #[test]
    fn gnuplot_sorted_by_total_time() {
        let mut rows = vec![
            GnuplotRow {
                start_unix_us: 2_000_000,
                connect_us: 1_400,
                total_us: 9_000,
                waiting_us: 7_000,
            },
            GnuplotRow {
                start_unix_us: 1_000_000,
                connect_us: 0,
                total_us: 3_499,
                waiting_us: 2_500,
            },
        ];
        let tsv = gnuplot_tsv(&mut rows);
        assert_eq!(
            tsv,
            "starttime\tseconds\tctime\tdtime\tttime\twait\n\
             Thu Jan 01 00:00:01 1970\t1\t0\t3\t3\t3\n\
             Thu Jan 01 00:00:02 1970\t2\t1\t8\t9\t7\n"
        );
    }
}
