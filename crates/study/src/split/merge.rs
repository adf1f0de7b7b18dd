//! One merged run from the workers' runs of one slot ([`merge_run`]).

use std::collections::BTreeMap;
use std::time::Duration;

use base64::Engine as _;
use hdrhistogram::Histogram;
use loadlab_core::{ScheduleSegment, format_go_duration};

use crate::collect::{RunData, RunSummary, SeriesPoint};
use crate::plan::Plan;
use crate::store::{MonitorPoint, RunRow};
use crate::timetable::scheduled_total_checked;
use crate::worker::WorkersNote;

/// A worker that begins more than this after its slot is named in the
/// merged run (as `report` does for attack workers).
const LATE_BEGIN_NS: u64 = 10_000_000;

fn decode_b64_hist(s: &str) -> Option<Histogram<u64>> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(s).ok()?;
    hdrhistogram::serialization::Deserializer::new()
        .deserialize(&mut &bytes[..])
        .ok()
}

/// `hist`'s value at quantile `q`, clamped to the exact min and max (what
/// every vegeta-style figure of loadlab is); 0 when empty.
fn quantile(h: &Histogram<u64>, q: f64, min: u64, max: u64) -> u64 {
    if h.is_empty() {
        0
    } else {
        h.value_at_quantile(q).clamp(min, max)
    }
}

fn add_into(acc: &mut Option<Histogram<u64>>, h: &Histogram<u64>) {
    match acc {
        Some(a) => {
            let _ = a.add(h);
        }
        None => *acc = Some(h.clone()),
    }
}

/// Merges the workers' runs of one slot into the run one machine would have
/// recorded: counts, bytes, status codes and errors add; the latency,
/// service-time and send-lag histograms add bucket by bucket (percentiles
/// are read from the sum, clamped to the exact min and max — never
/// averaged); the mean comes from the exact sums; rate, throughput and wait
/// from the earliest and latest instants over all workers. The
/// latency-over-time series adds counts per bucket; its per-bucket p99 is
/// the largest of the workers' (an upper bound) and its p50 their
/// count-weighted mean (an approximation: the per-bucket histograms are
/// not stored). CPU and memory figures and the monitor's points are worker
/// 0's (the lowest segment present): each worker monitors its own host.
///
/// `parts` are (segment, run); `segments` the study's count.
pub fn merge_run(
    plan: &Plan,
    rate: u64,
    segments: u64,
    parts: &[(u64, &RunRow)],
) -> (RunData, Vec<MonitorPoint>, WorkersNote) {
    let mut parts: Vec<(u64, &RunRow)> = parts.to_vec();
    parts.sort_by_key(|(s, _)| *s);
    let mut s = RunSummary {
        offered_rate: rate,
        ..RunSummary::default()
    };
    let (mut lat, mut svc, mut lag) = (None, None, None);
    let (mut lat_min, mut lat_max) = (u64::MAX, 0u64);
    let (mut svc_min, mut svc_max) = (u64::MAX, 0u64);
    let (mut lag_min, mut lag_max) = (u64::MAX, 0u64);
    let (mut earliest, mut latest, mut end) = (u64::MAX, 0u64, 0u64);
    let mut lat_sum: u128 = 0;
    let mut successes = 0u64;
    let mut series: BTreeMap<u64, (SeriesPoint, f64)> = BTreeMap::new();
    let mut starts = Vec::new();
    let mut late = Vec::new();
    let mut scheduled_total = None;
    for (seg, r) in &parts {
        let x = &r.summary;
        s.requests += x.requests;
        s.bytes_in += x.bytes_in;
        s.bytes_out += x.bytes_out;
        s.warmup_requests += x.warmup_requests;
        s.unsent += x.unsent;
        s.late += x.late;
        s.connect_errors += x.connect_errors;
        for (c, n) in &x.status_codes {
            *s.status_codes.entry(*c).or_default() += n;
        }
        for (e, n) in &x.errors {
            *s.errors.entry(e.clone()).or_default() += n;
        }
        add_into(&mut lat, &r.latency);
        add_into(&mut svc, &r.service);
        let p = x.part.clone().unwrap_or_default();
        if let Some(h) = decode_b64_hist(&p.lag_hdr) {
            add_into(&mut lag, &h);
        }
        if x.requests > 0 {
            lat_min = lat_min.min(x.min_ns);
            lat_max = lat_max.max(x.max_ns);
            svc_min = svc_min.min(p.service_min_ns);
            svc_max = svc_max.max(p.service_max_ns);
            lag_min = lag_min.min(p.lag_min_ns);
            lag_max = lag_max.max(p.lag_max_ns);
        }
        lat_sum += p.latency_sum_ns;
        successes += p.successes;
        // Instants on the common (wall) clock.
        if let (Some(e), Some(l), Some(d)) = (p.earliest_ns, p.latest_ns, p.end_ns) {
            earliest = earliest.min(p.start_unix_ns + e);
            latest = latest.max(p.start_unix_ns + l);
            end = end.max(p.start_unix_ns + d);
        }
        starts.push(p.start_unix_ns);
        late.extend(late_begin(*seg, segments, &p));
        if scheduled_total.is_none() {
            scheduled_total = p.scheduled_total;
        }
        add_series(&mut series, &r.series);
    }
    let n = s.requests;
    if n > 0 && earliest != u64::MAX {
        s.attack_ns = latest - earliest;
        s.wait_ns = end.saturating_sub(latest);
        s.duration_ns = s.attack_ns + s.wait_ns;
        let secs = |ns: u64| (ns / 1_000_000_000) as f64 + (ns % 1_000_000_000) as f64 / 1e9;
        if s.attack_ns > 0 {
            s.rate = n as f64 / secs(s.attack_ns);
            s.throughput = successes as f64 / secs(s.attack_ns + s.wait_ns);
        } else {
            s.rate = n as f64;
            s.throughput = successes as f64;
        }
        s.success = successes as f64 / n as f64;
        s.min_ns = lat_min;
        s.max_ns = lat_max;
        s.mean_ns = lat_sum as f64 / n as f64;
    }
    let empty = || Histogram::new_with_bounds(1, 24 * 3_600_000_000_000, 3).expect("static bounds");
    let lat = lat.unwrap_or_else(empty);
    let svc = svc.unwrap_or_else(empty);
    if n > 0 {
        s.p50_ns = quantile(&lat, 0.50, lat_min, lat_max);
        s.p90_ns = quantile(&lat, 0.90, lat_min, lat_max);
        s.p95_ns = quantile(&lat, 0.95, lat_min, lat_max);
        s.p99_ns = quantile(&lat, 0.99, lat_min, lat_max);
        s.service_p99_ns = quantile(&svc, 0.99, svc_min, svc_max);
        if let Some(l) = &lag {
            s.send_lag_p99_ns = quantile(l, 0.99, lag_min, lag_max);
        }
    }
    let monitor = first_host(&parts, &mut s);
    // What is missing.
    let total = scheduled_total.or_else(|| scheduled_total_checked(plan, rate));
    let note = missing_note(segments, &parts, total, &starts, late);
    s.workers = Some(note.clone());
    let series = finish_series(series);
    (
        RunData {
            summary: s,
            latency: lat,
            service: svc,
            series,
        },
        monitor,
        note,
    )
}

/// What is missing from a merged run: each absent segment's share of the
/// schedule, each short one's shortfall (`total`: the run's whole
/// schedule, when known).
fn missing_note(
    segments: u64,
    parts: &[(u64, &RunRow)],
    total: Option<u64>,
    starts: &[u64],
    late: Vec<String>,
) -> WorkersNote {
    let mut note = WorkersNote {
        segments,
        present: parts.iter().map(|(s, _)| *s).collect(),
        scheduled: total,
        start_spread_ns: match (starts.iter().min(), starts.iter().max()) {
            (Some(a), Some(b)) => b - a,
            _ => 0,
        },
        late,
        ..WorkersNote::default()
    };
    for i in 0..segments {
        let seg = ScheduleSegment {
            index: i,
            count: segments,
        };
        let share = total.map(|t| seg.share(t));
        match parts.iter().find(|(s, _)| *s == i) {
            None => match share {
                Some(c) => {
                    note.missing += c;
                    note.problems.push(format!(
                        "{c} requests missing: segment {i}/{segments} absent (its worker's store has no such run: it was killed, stopped or not given)"
                    ));
                }
                None => {
                    note.missing_lower_bound = true;
                    note.problems.push(format!(
                        "an unknown number of requests missing: segment {i}/{segments} absent"
                    ));
                }
            },
            Some((_, r)) => {
                let x = &r.summary;
                let got = x.requests + x.warmup_requests + x.unsent;
                if let Some(c) = share
                    && got < c
                {
                    note.missing += c - got;
                    note.problems.push(format!(
                        "{} requests missing: segment {i}/{segments} stopped after {got} of {c}",
                        c - got
                    ));
                }
            }
        }
    }
    note
}

/// Worker 0's view of the host it ran on: its monitor's points, its CPU
/// and memory figures copied into `s`.
fn first_host(parts: &[(u64, &RunRow)], s: &mut RunSummary) -> Vec<MonitorPoint> {
    let (monitor, first) = match parts.first() {
        Some((_, r)) => (r.monitor.clone(), Some(&r.summary)),
        None => (Vec::new(), None),
    };
    if let Some(f) = first {
        s.cpu_mean = f.cpu_mean;
        s.cpu_max = f.cpu_max;
        s.rss_max = f.rss_max;
    }
    monitor
}

/// The merged series' points, each p50 the count-weighted mean of the
/// workers'.
fn finish_series(series: BTreeMap<u64, (SeriesPoint, f64)>) -> Vec<SeriesPoint> {
    series
        .into_values()
        .map(|(mut p, w)| {
            if p.count > 0 {
                p.p50_ns = (w / p.count as f64).round() as u64;
            }
            p
        })
        .collect()
}

/// Why a worker's run began late for its slot, if it did.
fn late_begin(seg: u64, segments: u64, p: &crate::collect::RunPart) -> Option<String> {
    let began_late = p.began_unix_ns.saturating_sub(p.slot_unix_ns);
    (began_late > LATE_BEGIN_NS).then(|| {
        format!(
            "segment {seg}/{segments} began {} after the run's slot{}",
            format_go_duration(Duration::from_micros(began_late / 1000)),
            if p.start_unix_ns > p.slot_unix_ns {
                " (too late to keep the common schedule: its requests are shifted by that much)"
            } else {
                " (its first requests went out late, as send lag)"
            }
        )
    })
}

/// Adds a worker's latency-over-time points into the merged series (keyed
/// by bucket start in ns; the second value sums p50 × count).
fn add_series(series: &mut BTreeMap<u64, (SeriesPoint, f64)>, points: &[SeriesPoint]) {
    let bucket_of = |t: f64| (t * 1e9).round() as u64;
    for pt in points {
        let e = series.entry(bucket_of(pt.t)).or_insert_with(|| {
            (
                SeriesPoint {
                    t: pt.t,
                    count: 0,
                    ok: 0,
                    p50_ns: 0,
                    p99_ns: 0,
                    max_ns: 0,
                    warmup: false,
                },
                0.0,
            )
        });
        e.0.count += pt.count;
        e.0.ok += pt.ok;
        e.0.p99_ns = e.0.p99_ns.max(pt.p99_ns);
        e.0.max_ns = e.0.max_ns.max(pt.max_ns);
        e.0.warmup |= pt.warmup;
        e.1 += pt.p50_ns as f64 * pt.count as f64;
    }
}
