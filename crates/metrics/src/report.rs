//! Report renderers: `text` (vegeta's layout line for line, plus our extra
//! lines), `json` (vegeta's fields plus ours), `hist[...]` and `hdrplot`.
//! Each takes a [`Metrics`] by reference, so the CLI can render the same
//! metrics periodically (`-every`) while records keep arriving.

use std::fmt::Write;
use std::str::FromStr;

use crate::gofmt::{go_duration, json_float, json_string, round_for_text};
use crate::metrics::{LatencySummary, Metrics, Summary};
use crate::tabwriter::align;
use crate::timefmt::write_rfc3339;

/// What `report -type=` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportType {
    Text,
    Json,
    /// Lower bounds of the buckets, in ns (a leading 0 is added when the
    /// first bound is above 0, as vegeta does).
    Hist(Vec<u64>),
    HdrPlot,
}

/// Why a `-type` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReportTypeError {
    #[error(
        "unknown report type {0:?}: use text, json, hist[BUCKETS] (e.g. hist[0,1ms,5ms,10ms]) or hdrplot"
    )]
    Unknown(String),
    #[error(
        "bad histogram {input:?}: expected hist[D1,D2,...] with Go durations, e.g. hist[0,1ms,5ms]"
    )]
    BadHist { input: String },
    #[error("bad histogram bucket {bucket:?} in {input:?}: {reason}")]
    BadBucket {
        input: String,
        bucket: String,
        reason: String,
    },
}

impl FromStr for ReportType {
    type Err = ReportTypeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "text" => return Ok(ReportType::Text),
            "json" => return Ok(ReportType::Json),
            "hdrplot" => return Ok(ReportType::HdrPlot),
            _ => {}
        }
        let Some(rest) = s.strip_prefix("hist") else {
            return Err(ReportTypeError::Unknown(s.to_string()));
        };
        let inner = rest
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .filter(|r| !r.trim().is_empty())
            .ok_or_else(|| ReportTypeError::BadHist {
                input: s.to_string(),
            })?;
        let mut bounds: Vec<u64> = Vec::new();
        for (i, part) in inner.split(',').enumerate() {
            let b = part.trim();
            let bad = |reason: String| ReportTypeError::BadBucket {
                input: s.to_string(),
                bucket: b.to_string(),
                reason,
            };
            let d = loadlab_core::parse_go_duration(b).map_err(|e| bad(e.to_string()))?;
            let ns = u64::try_from(d.as_nanos()).map_err(|_| bad("too large".to_string()))?;
            if i == 0 && ns > 0 {
                bounds.push(0);
            }
            if let Some(&prev) = bounds.last()
                && ns <= prev
                && !(i == 0 && ns == 0)
            {
                return Err(bad(format!(
                    "buckets must increase, but it is not above {}",
                    go_duration(prev)
                )));
            }
            bounds.push(ns);
        }
        Ok(ReportType::Hist(bounds))
    }
}

impl ReportType {
    /// Metrics set up for this report (a `hist` report needs bucket counters).
    pub fn new_metrics(&self) -> Metrics {
        match self {
            ReportType::Hist(b) => Metrics::new().with_buckets(b.clone()),
            _ => Metrics::new(),
        }
    }
}

/// Renders `m` as `rt` asks.
pub fn render(rt: &ReportType, m: &Metrics) -> String {
    match rt {
        ReportType::Text => format_report_text(m),
        ReportType::Json => format_report_json(m),
        ReportType::Hist(b) => format_report_hist(m, b),
        ReportType::HdrPlot => format_report_hdrplot(m),
    }
}

/// How [`text_with_style`] renders vegeta's text layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextStyle {
    /// Round durations as vegeta's text report does (`1.99s`), or print
    /// every nanosecond (as vegeta's older versions and the study's run
    /// pages do).
    pub round: bool,
    /// Add loadlab's lines (`Wire In`, `Unsent`, `Schedule`, `Send Lag`,
    /// `Uncorrected`) when they say something.
    pub loadlab_lines: bool,
}

impl TextStyle {
    /// `loadlab report -type=text`.
    pub const REPORT: TextStyle = TextStyle {
        round: true,
        loadlab_lines: true,
    };
    /// vegeta's lines alone, every nanosecond (the study's run pages,
    /// which add their own lines).
    pub const EXACT_VEGETA: TextStyle = TextStyle {
        round: false,
        loadlab_lines: false,
    };
}

/// vegeta's text report, line for line, with durations rounded as vegeta
/// rounds them (see [`round_for_text`]): `1.99s`, `59.997s`, `2.709ms`.
///
/// `Requests` and `Duration` come from the actual sends, as in vegeta.
/// loadlab's own lines come after all of vegeta's (the error set included),
/// after a blank line, and only when they say something: `Wire In` (the
/// response body bytes as they came, when gzip bodies were decoded and
/// `Bytes In` counts them decoded, as vegeta does), `Unsent` (requests the
/// schedule called for that were never sent) when there are any, then,
/// when [`Summary::corrections_matter`], `Schedule` (the rate and span the
/// sends were meant to keep), `Send Lag` (mean, 99th percentile, max, and
/// the count of late sends) and `Uncorrected` (the seven latency figures
/// from the actual send). Scripts that pick vegeta's lines by prefix or by
/// position are unaffected.
pub fn format_report_text(m: &Metrics) -> String {
    let mut out = text_from_summary(&m.summary());
    workers_text(&mut out, &m.worker_checks());
    metrics_text(&mut out, m.metric_figures(), TextStyle::REPORT);
    out
}

/// The checks of a split run's workers, after a blank line, only for
/// results written by workers (`-segment`, `-start-at`): one `Workers`
/// line per run, one `Missing` line per absent or short segment (with the
/// word `missing` and the count), one `Warning` line per warning.
fn workers_text(out: &mut String, runs: &[crate::distributed::RunCheck]) {
    if runs.is_empty() {
        return;
    }
    let mut t = String::new();
    for r in runs {
        let name = if r.attack.is_empty() || runs.len() == 1 {
            String::new()
        } else {
            format!(" ({})", r.attack)
        };
        let _ = writeln!(
            t,
            "Workers\t[segments, start spread]\t{} of {}, {}{name}",
            r.present,
            r.segments,
            go_duration(round_for_text(r.start_spread_ns))
        );
        let unit = if r.unit.is_empty() {
            "requests"
        } else {
            r.unit.as_str()
        };
        if r.missing > 0 || r.missing_lower_bound {
            let of = r
                .scheduled
                .map_or(String::new(), |s| format!(" of {s} scheduled"));
            let count = match (r.missing, r.missing_lower_bound) {
                (0, true) => format!("an unknown number of {unit}"),
                (n, true) => format!("at least {n}"),
                (n, false) => n.to_string(),
            };
            let _ = writeln!(t, "Missing\t[{unit}]\t{count} missing{of}");
        }
        for p in &r.problems {
            let _ = writeln!(t, "Missing\t[segment]\t{p}");
        }
        for w in &r.warnings {
            let _ = writeln!(t, "Warning\t[workers]\t{w}");
        }
    }
    out.push('\n');
    out.push_str(&align(&t));
}

/// The checks of a split run's workers as JSON (see `workers_text`).
fn workers_json(o: &mut String, runs: &[crate::distributed::RunCheck]) {
    if runs.is_empty() {
        return;
    }
    o.push_str(",\"workers\":[");
    for (i, r) in runs.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str("{\"attack\":");
        json_string(o, &r.attack);
        if !r.unit.is_empty() {
            o.push_str(",\"unit\":");
            json_string(o, &r.unit);
        }
        let _ = write!(
            o,
            ",\"segments\":{},\"present\":{},\"scheduled\":{},\"missing\":{},\"missing_lower_bound\":{},\"start_spread\":{},\"resolution\":{},\"problems\":[",
            r.segments,
            r.present,
            r.scheduled.map_or("null".to_string(), |s| s.to_string()),
            r.missing,
            r.missing_lower_bound,
            r.start_spread_ns,
            r.resolution_ns
        );
        for (j, p) in r.problems.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            json_string(o, p);
        }
        o.push_str("],\"warnings\":[");
        for (j, w) in r.warnings.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            json_string(o, w);
        }
        o.push_str("],\"hosts\":{");
        for (j, (idx, h)) in r.hosts.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            let _ = write!(o, "\"{idx}\":");
            json_string(o, h);
        }
        o.push_str("}}");
    }
    o.push(']');
}

/// A number as a report prints it: integers without a fraction, others
/// with their shortest exact digits.
fn num(v: f64) -> String {
    if v.is_finite() && v.trunc() == v && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v}")
    }
}

/// The figures of metric records (results format version 2), one line per
/// series after everything else, under `Metrics:`; nothing when there are
/// none.
fn metrics_text(out: &mut String, set: &crate::figures::MetricSet, style: TextStyle) {
    use crate::figures::{MetricFigures, trend_value};
    if set.is_empty() {
        return;
    }
    let dur = |ns: f64| {
        let ns = if ns.is_finite() && ns > 0.0 {
            ns.round() as u64
        } else {
            0
        };
        if style.round {
            go_duration(round_for_text(ns))
        } else {
            go_duration(ns)
        }
    };
    let mut t = String::new();
    for (series, f) in set.series() {
        let value = |v: f64| if series.time { dur(v) } else { num(v) };
        let figures = match f {
            MetricFigures::Counter { count, .. } => {
                format!("[total, count]\t{}, {count}", value(f.total()))
            }
            MetricFigures::Trend {
                dist,
                sum,
                min,
                max,
            } => {
                let n = dist.count();
                let mean = if n == 0 { 0.0 } else { sum / n as f64 };
                let q = |p: f64| value(trend_value(series.time, dist.quantile(p)));
                let (lo, hi) = if n == 0 { (0.0, 0.0) } else { (*min, *max) };
                format!(
                    "[min, mean, 50, 90, 95, 99, max]\t{}, {}, {}, {}, {}, {}, {}",
                    value(lo),
                    value(mean),
                    q(0.5),
                    q(0.9),
                    q(0.95),
                    q(0.99),
                    value(hi)
                )
            }
            MetricFigures::Rate { hits, total } => {
                let r = if *total == 0 {
                    0.0
                } else {
                    *hits as f64 * 100.0 / *total as f64
                };
                format!("[ratio, hits, total]\t{r:.2}%, {hits}, {total}")
            }
            MetricFigures::Gauge { last, min, max, .. } => {
                format!(
                    "[last, min, max]\t{}, {}, {}",
                    value(*last),
                    value(*min),
                    value(*max)
                )
            }
        };
        let _ = writeln!(t, "{}\t{}\t{figures}", series.label(), series.kind.name());
    }
    out.push_str("\nMetrics:\n");
    out.push_str(&align(&t));
}

fn metrics_json(o: &mut String, set: &crate::figures::MetricSet) {
    use crate::figures::{MetricFigures, trend_value};
    if set.is_empty() {
        return;
    }
    o.push_str(",\"metrics\":[");
    for (i, (series, f)) in set.series().iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str("{\"name\":");
        json_string(o, &series.name);
        let _ = write!(
            o,
            ",\"kind\":\"{}\",\"time\":{},\"tags\":{{",
            series.kind.name(),
            series.time
        );
        for (j, (k, v)) in series.tags.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            json_string(o, k);
            o.push(':');
            json_string(o, v);
        }
        o.push('}');
        let field = |o: &mut String, name: &str, v: f64| {
            let _ = write!(o, ",\"{name}\":");
            json_float(o, v);
        };
        match f {
            MetricFigures::Counter { count, .. } => {
                let _ = write!(o, ",\"count\":{count}");
                field(o, "total", f.total());
            }
            MetricFigures::Trend {
                dist,
                sum,
                min,
                max,
            } => {
                let n = dist.count();
                let _ = write!(o, ",\"count\":{n}");
                field(o, "total", *sum);
                field(o, "mean", if n == 0 { 0.0 } else { sum / n as f64 });
                for (name, p) in [("50th", 0.5), ("90th", 0.9), ("95th", 0.95), ("99th", 0.99)] {
                    field(o, name, trend_value(series.time, dist.quantile(p)));
                }
                field(o, "max", if n == 0 { 0.0 } else { *max });
                field(o, "min", if n == 0 { 0.0 } else { *min });
            }
            MetricFigures::Rate { hits, total } => {
                let _ = write!(o, ",\"hits\":{hits},\"total\":{total}");
                field(
                    o,
                    "rate",
                    if *total == 0 {
                        0.0
                    } else {
                        *hits as f64 / *total as f64
                    },
                );
            }
            MetricFigures::Gauge { last, min, max, .. } => {
                field(o, "last", *last);
                field(o, "min", *min);
                field(o, "max", *max);
            }
        }
        o.push('}');
    }
    o.push(']');
}

pub fn text_from_summary(s: &Summary) -> String {
    text_with_style(s, TextStyle::REPORT)
}

/// vegeta's text layout of `s`: the one renderer of it, for `report`, the
/// study's run pages and `runs show`.
pub fn text_with_style(s: &Summary, style: TextStyle) -> String {
    let rd = |ns: u64| {
        if style.round {
            go_duration(round_for_text(ns))
        } else {
            go_duration(ns)
        }
    };
    let lat7 = |l: &LatencySummary| {
        [l.min, l.mean, l.p50, l.p90, l.p95, l.p99, l.max]
            .map(rd)
            .join(", ")
    };
    // vegeta's tabbed lines and ours are aligned together (our labels and
    // brackets are no wider than vegeta's, so its columns do not move);
    // the error set, which has no tabs, is spliced in between afterwards.
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Requests\t[total, rate, throughput]\t{}, {:.2}, {:.2}",
        s.requests, s.rate, s.throughput
    );
    let _ = writeln!(
        t,
        "Duration\t[total, attack, wait]\t{}, {}, {}",
        rd(s.duration_ns + s.wait_ns),
        rd(s.duration_ns),
        rd(s.wait_ns)
    );
    let _ = writeln!(
        t,
        "Latencies\t[min, mean, 50, 90, 95, 99, max]\t{}",
        lat7(&s.latencies)
    );
    let _ = writeln!(
        t,
        "Bytes In\t[total, mean]\t{}, {:.2}",
        s.bytes_in.total, s.bytes_in.mean
    );
    let _ = writeln!(
        t,
        "Bytes Out\t[total, mean]\t{}, {:.2}",
        s.bytes_out.total, s.bytes_out.mean
    );
    let _ = writeln!(t, "Success\t[ratio]\t{:.2}%", s.success * 100.0);
    t.push_str("Status Codes\t[code:count]\t");
    for (code, n) in &s.status_codes {
        let _ = write!(t, "{code}:{n}  ");
    }
    t.push('\n');
    const VEGETA_TABBED: usize = 7;
    if style.loadlab_lines && s.wire_in.total != s.bytes_in.total {
        let _ = writeln!(
            t,
            "Wire In\t[body total, mean]\t{}, {:.2}",
            s.wire_in.total, s.wire_in.mean
        );
    }
    if style.loadlab_lines && s.unsent > 0 {
        let scope = if s.unsent_attack_wide {
            "whole attack"
        } else {
            "scheduled, never sent"
        };
        let _ = writeln!(t, "Unsent\t[{scope}]\t{}", s.unsent);
    }
    if style.loadlab_lines && s.corrections_matter() {
        let _ = writeln!(
            t,
            "Schedule\t[rate, attack]\t{:.2}, {}",
            s.schedule.rate,
            rd(s.schedule.duration_ns)
        );
        let l = &s.send_lag;
        let _ = writeln!(
            t,
            "Send Lag\t[mean, 99, max, late>{}]\t{}, {}, {}, {}",
            go_duration(s.late_threshold_ns),
            rd(l.mean),
            rd(l.p99),
            rd(l.max),
            s.late
        );
        let _ = writeln!(
            t,
            "Uncorrected\t[min, mean, 50, 90, 95, 99, max]\t{}",
            lat7(&s.uncorrected)
        );
    }
    if style.loadlab_lines
        && let Some(l) = crate::selfcheck::line(s.send_lag.p99, s.late, s.unsent)
    {
        let _ = writeln!(t, "Generator\t[self-check]\t{l}");
    }
    let aligned = align(&t);
    let mut lines = aligned.split_inclusive('\n');
    let mut out: String = lines.by_ref().take(VEGETA_TABBED).collect();
    out.push_str("Error Set:\n");
    for e in &s.errors {
        out.push_str(e);
        out.push('\n');
    }
    let ours: String = lines.collect();
    if !ours.is_empty() {
        out.push('\n');
        out.push_str(&ours);
    }
    out
}

fn json_latencies(out: &mut String, l: &LatencySummary) {
    let _ = write!(
        out,
        "{{\"total\":{},\"mean\":{},\"50th\":{},\"90th\":{},\"95th\":{},\"99th\":{},\"max\":{},\"min\":{}}}",
        l.total, l.mean, l.p50, l.p90, l.p95, l.p99, l.max, l.min
    );
}

/// Go's zero `time.Time`, which vegeta prints when there are no requests.
const GO_ZERO_TIME_NS: i128 = -62_135_596_800_000_000_000;

fn json_time(out: &mut String, t: Option<u64>) {
    out.push('"');
    write_rfc3339(out, t.map_or(GO_ZERO_TIME_NS, i128::from));
    out.push('"');
}

/// vegeta's JSON report (same keys, same order, one line), followed by our
/// keys: `wire_in` (`total`, `mean`: the response body bytes as they came
/// over the wire, gzip bodies compressed), `uncorrected` and `send_lag` (latency blocks in ns), `late` and
/// `late_threshold` (ns), `unsent` (requests scheduled but never sent),
/// and `schedule` (`earliest`, `latest`: the first
/// and last intended send; `duration` in ns; `rate`). `buckets` appears
/// when the metrics count buckets.
pub fn format_report_json(m: &Metrics) -> String {
    let s = m.summary();
    let mut o = String::with_capacity(1024);
    o.push_str("{\"latencies\":");
    json_latencies(&mut o, &s.latencies);
    if !s.buckets.is_empty() {
        o.push_str(",\"buckets\":{");
        for (i, (b, c)) in s.buckets.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            let _ = write!(o, "\"{b}\":{c}");
        }
        o.push('}');
    }
    let _ = write!(
        o,
        ",\"bytes_in\":{{\"total\":{},\"mean\":",
        s.bytes_in.total
    );
    json_float(&mut o, s.bytes_in.mean);
    let _ = write!(
        o,
        "}},\"bytes_out\":{{\"total\":{},\"mean\":",
        s.bytes_out.total
    );
    json_float(&mut o, s.bytes_out.mean);
    o.push_str("},\"earliest\":");
    json_time(&mut o, s.earliest_unix_ns);
    o.push_str(",\"latest\":");
    json_time(&mut o, s.latest_unix_ns);
    o.push_str(",\"end\":");
    json_time(&mut o, s.end_unix_ns);
    let _ = write!(
        o,
        ",\"duration\":{},\"wait\":{},\"requests\":{},\"rate\":",
        s.duration_ns, s.wait_ns, s.requests
    );
    json_float(&mut o, s.rate);
    o.push_str(",\"throughput\":");
    json_float(&mut o, s.throughput);
    o.push_str(",\"success\":");
    json_float(&mut o, s.success);
    o.push_str(",\"status_codes\":{");
    for (i, (code, n)) in s.status_codes.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let _ = write!(o, "\"{code}\":{n}");
    }
    o.push_str("},\"errors\":[");
    for (i, e) in s.errors.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_string(&mut o, e);
    }
    let _ = write!(o, "],\"wire_in\":{{\"total\":{},\"mean\":", s.wire_in.total);
    json_float(&mut o, s.wire_in.mean);
    o.push_str("},\"uncorrected\":");
    json_latencies(&mut o, &s.uncorrected);
    o.push_str(",\"send_lag\":");
    json_latencies(&mut o, &s.send_lag);
    let _ = write!(
        o,
        ",\"late\":{},\"late_threshold\":{},\"unsent\":{},\"schedule\":{{\"earliest\":",
        s.late, s.late_threshold_ns, s.unsent
    );
    json_time(&mut o, s.schedule.earliest_unix_ns);
    o.push_str(",\"latest\":");
    json_time(&mut o, s.schedule.latest_unix_ns);
    let _ = write!(o, ",\"duration\":{},\"rate\":", s.schedule.duration_ns);
    json_float(&mut o, s.schedule.rate);
    o.push('}');
    workers_json(&mut o, &m.worker_checks());
    metrics_json(&mut o, m.metric_figures());
    o.push_str("}\n");
    o
}

/// Bucket counts: exact when the metrics were built with these bounds
/// ([`ReportType::new_metrics`]), otherwise derived from the corrected
/// latency HdrHistogram (exact to its 3 significant digits).
fn bucket_counts(m: &Metrics, bounds: &[u64]) -> Vec<u64> {
    let s = m.summary();
    if !s.buckets.is_empty() && s.buckets.iter().map(|b| b.0).eq(bounds.iter().copied()) {
        return s.buckets.iter().map(|b| b.1).collect();
    }
    let mut counts = vec![0u64; bounds.len()];
    if bounds.is_empty() {
        return counts;
    }
    for v in m.latency().histogram().iter_recorded() {
        let lat = v.value_iterated_to();
        let i = bounds.partition_point(|&b| b <= lat);
        let i = if i == 0 { counts.len() - 1 } else { i - 1 };
        counts[i] += v.count_at_value();
    }
    counts
}

/// vegeta's `hist[...]` layout: bucket, count, percentage and a bar of up to
/// 75 `#`s.
pub fn format_report_hist(m: &Metrics, bounds: &[u64]) -> String {
    let counts = bucket_counts(m, bounds);
    let total: u64 = counts.iter().sum();
    let mut t = String::from("Bucket\t\t#\t%\tHistogram\n");
    for (i, c) in counts.iter().enumerate() {
        let ratio = if total == 0 {
            0.0
        } else {
            *c as f64 / total as f64
        };
        let lo = go_duration(bounds[i]);
        let hi = bounds
            .get(i + 1)
            .map_or_else(|| "+Inf".to_string(), |b| go_duration(*b));
        let bar = "#".repeat((ratio * 75.0) as usize);
        let _ = writeln!(t, "[{lo},\t{hi}]\t{c}\t{:.2}%\t{bar}", ratio * 100.0);
    }
    align(&t)
}

/// The quantiles of the `hdrplot` table: from 0, five steps per halving of
/// the distance to 1 (0.1 … 0.5, 0.55 … 0.75, 0.775 … 0.875, …), printed to
/// six decimals, until 0.999999, then 1.
pub fn hdrplot_quantiles() -> Vec<f64> {
    let mut out = vec![0.0f64];
    let mut level = 0;
    'outer: loop {
        let lo = 1.0 - 0.5f64.powi(level);
        let hi = 1.0 - 0.5f64.powi(level + 1);
        let step = (hi - lo) / 5.0;
        for i in 1..=5 {
            let q = ((lo + step * f64::from(i)) * 1e6).round() / 1e6;
            if q >= 1.0 {
                break 'outer;
            }
            if q != *out.last().expect("non-empty") {
                out.push(q);
            }
        }
        level += 1;
    }
    out.push(1.0);
    out
}

/// `Value(ms) Percentile TotalCount 1/(1-Percentile)`, from the corrected
/// latency HdrHistogram (a real one, unlike vegeta's t-digest estimate).
pub fn format_report_hdrplot(m: &Metrics) -> String {
    let lat = m.latency();
    let total = m.requests() as f64;
    let mut t = String::from("Value(ms)\tPercentile\tTotalCount\t1/(1-Percentile)\n");
    for q in hdrplot_quantiles() {
        let v = lat.quantile(q);
        let ms = (v / 1_000_000) as f64 + (v % 1_000_000) as f64 / 1e6;
        let count = (q * total + 0.5) as i64;
        let one_by = if q < 1.0 {
            1.0 / (1.0 - q)
        } else {
            10_000_000.0
        };
        let _ = writeln!(t, "{ms:.6}\t{q:.6}\t{count}\t{one_by:.6}");
    }
    align(&t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_report_types() {
        assert_eq!("text".parse(), Ok(ReportType::Text));
        assert_eq!("json".parse(), Ok(ReportType::Json));
        assert_eq!("hdrplot".parse(), Ok(ReportType::HdrPlot));
        assert_eq!(
            "hist[0,1ms,5ms]".parse(),
            Ok(ReportType::Hist(vec![0, 1_000_000, 5_000_000]))
        );
        assert_eq!(
            "hist[1ms, 5ms]".parse(),
            Ok(ReportType::Hist(vec![0, 1_000_000, 5_000_000]))
        );
    }

    #[test]
    fn rejects_bad_report_types_naming_the_culprit() {
        let e = "hist[0,1ms,5xs]".parse::<ReportType>().unwrap_err();
        assert!(e.to_string().contains("\"5xs\""), "{e}");
        let e = "hist[0,5ms,1ms]".parse::<ReportType>().unwrap_err();
        assert!(
            e.to_string().contains("\"1ms\"") && e.to_string().contains("increase"),
            "{e}"
        );
        assert!(matches!(
            "hist[]".parse::<ReportType>(),
            Err(ReportTypeError::BadHist { .. })
        ));
        assert!(matches!(
            "hist0,1ms".parse::<ReportType>(),
            Err(ReportTypeError::BadHist { .. })
        ));
        assert!(matches!(
            "txt".parse::<ReportType>(),
            Err(ReportTypeError::Unknown(_))
        ));
    }

    #[test]
    fn hdrplot_quantiles_are_the_usual_94() {
        let q = hdrplot_quantiles();
        assert_eq!(q.len(), 94);
        assert_eq!(&q[..7], &[0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.55]);
        assert!(q.contains(&0.985938) && q.contains(&0.99978));
        assert_eq!(&q[q.len() - 3..], &[0.999998, 0.999999, 1.0]);
    }
}
