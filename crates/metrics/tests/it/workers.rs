//! The worker record of a split run (`-segment`, `-start-at`) and the
//! report's checks over the workers' files: absent segments, files cut
//! short, duplicated segments, start instants that disagree.

use crate::common;

use loadlab_core::{AttackInfo, Sample, Sink, TargetInfo, WorkerInfo};
use loadlab_metrics::distributed::{RunCheck, WorkerSegment, check};
use loadlab_metrics::{GroupBy, Grouped, ReportType, ResultsWriter, open_results};

const START: u64 = common::START;

fn worker(i: u64, n: u64, total: Option<u64>) -> WorkerInfo {
    WorkerInfo {
        index: i,
        count: n,
        start_at_unix_ns: START,
        began_unix_ns: START + 20_000,
        resolution_ns: 1_000_000,
        scheduled_total: total,
        // Well within the 1 ms resolution (an NTP-synchronized clock).
        clock_max_error_ns: Some(250_000),
        host: format!("pod-{i}"),
    }
}

/// Segment i of n of a `total`-request schedule at 1 request per ms, as
/// worker i writes it; `keep` samples (all by default); no end record when
/// `cut`.
fn file(w: WorkerInfo, start: u64, keep: Option<u64>, cut: bool, unsent: u64) -> Vec<u8> {
    let total = w.scheduled_total.unwrap_or(40);
    let (i, n) = (w.index, w.count);
    let buf = Shared::default();
    let mut wr = ResultsWriter::new(buf.clone());
    wr.begin(&AttackInfo {
        name: "split".into(),
        start_unix_ns: start,
        worker: Some(w),
        ..Default::default()
    });
    wr.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://198.18.0.1/".into(),
        },
    );
    let mine: Vec<u64> = (0..total).filter(|k| k % n == i).collect();
    let keep = keep.unwrap_or(mine.len() as u64);
    for &k in mine.iter().take(keep as usize) {
        wr.record(&Sample {
            seq: k,
            intended_ns: k * 1_000_000,
            sent_ns: k * 1_000_000 + 10_000,
            first_byte_ns: k * 1_000_000 + 200_000,
            done_ns: k * 1_000_000 + 210_000,
            status: 200,
            bytes_in: 11,
            ..Default::default()
        });
    }
    wr.write_unsent(unsent);
    if cut {
        // Killed: what was flushed is all there is, with no end record.
        wr.flush().unwrap();
        return buf.0.lock().unwrap().clone();
    }
    wr.into_inner().unwrap();
    buf.0.lock().unwrap().clone()
}

#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn read(files: &[Vec<u8>]) -> (Vec<WorkerSegment>, Grouped, Grouped) {
    let mut all = Vec::new();
    let mut text = Grouped::new(&ReportType::Text, None);
    let mut json = Grouped::new(&ReportType::Json, Some(GroupBy::Target));
    for (i, f) in files.iter().enumerate() {
        let mut r = open_results(
            Box::new(std::io::Cursor::new(f.clone())),
            &format!("w{i}.bin"),
        )
        .unwrap();
        for rec in r.by_ref() {
            let rec = rec.unwrap();
            text.add(&rec);
            json.add(&rec);
        }
        for (a, n) in r.unsent() {
            text.add_unsent(a, *n);
            json.add_unsent(a, *n);
        }
        for w in r.workers() {
            text.add_worker(w);
            json.add_worker(w);
            all.push(w.clone());
        }
    }
    (all, text, json)
}

fn render(g: &Grouped, kind: &ReportType) -> String {
    g.render(|m| loadlab_metrics::render(kind, m))
}

fn one(files: &[Vec<u8>]) -> RunCheck {
    let (w, ..) = read(files);
    let mut runs = check(&w);
    assert_eq!(runs.len(), 1, "{runs:?}");
    runs.remove(0)
}

#[test]
fn worker_record_round_trips_and_counts_what_the_file_holds() {
    let f = file(worker(1, 4, Some(40)), START, None, false, 0);
    let (w, ..) = read(&[f]);
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].info, worker(1, 4, Some(40)));
    assert_eq!(w[0].info.scheduled(), Some(10));
    assert_eq!(w[0].samples, 10);
    assert!(w[0].ended);
    assert_eq!(w[0].start_unix_ns, START);
    assert_eq!(&*w[0].attack, "split");
    // Unknown fields stay unknown.
    let f = file(
        WorkerInfo {
            clock_max_error_ns: None,
            ..worker(0, 1, None)
        },
        START,
        None,
        false,
        0,
    );
    let (w, ..) = read(&[f]);
    assert_eq!(w[0].info.scheduled_total, None);
    assert_eq!(w[0].info.clock_max_error_ns, None);
}

#[test]
fn a_complete_split_run_reports_nothing_missing() {
    let files: Vec<_> = (0..4)
        .map(|i| file(worker(i, 4, Some(40)), START, None, false, 0))
        .collect();
    let c = one(&files);
    assert_eq!((c.segments, c.present, c.missing), (4, 4, 0));
    assert!(c.problems.is_empty() && c.warnings.is_empty(), "{c:?}");
    let (_, text, _) = read(&files);
    let t = render(&text, &ReportType::Text);
    assert!(
        t.contains("\nWorkers  [segments, start spread]  4 of 4, 0s\n"),
        "{t}"
    );
    assert!(!t.contains("issing"), "{t}");
}

#[test]
fn absent_and_short_segments_are_missing_with_their_counts() {
    // 4 × 2,500: segment 2 absent, segment 1 killed after 1,212.
    let files = vec![
        file(worker(0, 4, Some(10_000)), START, None, false, 0),
        file(worker(1, 4, Some(10_000)), START, Some(1_212), true, 0),
        file(worker(3, 4, Some(10_000)), START, None, false, 0),
    ];
    let c = one(&files);
    assert_eq!(c.missing, 2_500 + 1_288);
    assert_eq!(
        c.problems,
        [
            "1288 requests missing: segment 1/4 stopped after 1212 of 2500 (its file has no end record: the worker was killed or is still writing)",
            "2500 requests missing: segment 2/4 absent",
        ]
    );
    let (_, text, json) = read(&files);
    let t = render(&text, &ReportType::Text);
    assert!(t.contains("3788 missing of 10000 scheduled"), "{t}");
    assert!(
        t.contains("2500 requests missing: segment 2/4 absent"),
        "{t}"
    );
    // Split by target, every block carries the run's checks; JSON too.
    let j: serde_json::Value = serde_json::from_str(&render(&json, &ReportType::Json)).unwrap();
    let w = &j["GET http://198.18.0.1/"]["workers"][0];
    assert_eq!(w["missing"], 3788);
    assert_eq!(w["present"], 3);
    assert_eq!(w["scheduled"], 10_000);
    assert_eq!(w["hosts"]["1"], "pod-1");
    assert_eq!(w["problems"].as_array().unwrap().len(), 2);
}

#[test]
fn unsent_requests_are_not_counted_twice() {
    // Worker 0 fell behind: 7 of its 10 went out, 3 recorded as unsent.
    let files: Vec<_> = (0..4)
        .map(|i| {
            if i == 0 {
                file(worker(0, 4, Some(40)), START, Some(7), false, 3)
            } else {
                file(worker(i, 4, Some(40)), START, None, false, 0)
            }
        })
        .collect();
    assert_eq!(one(&files).missing, 0);
}

#[test]
fn unknown_counts_and_duplicates_are_said() {
    let files = vec![
        file(worker(0, 3, None), START, Some(5), true, 0),
        file(worker(2, 3, None), START, None, false, 0),
        file(worker(2, 3, None), START, None, false, 0),
    ];
    let c = one(&files);
    assert!(c.missing_lower_bound);
    assert!(
        c.problems
            .iter()
            .any(|p| p.contains("segment 1/3 absent") && p.contains("unknown")),
        "{c:?}"
    );
    assert!(
        c.problems
            .iter()
            .any(|p| p.starts_with("requests missing: segment 0/3 stopped after 5 requests")),
        "{c:?}"
    );
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("segment 2/3 appears 2 times")),
        "{c:?}"
    );
    let (_, text, _) = read(&files);
    let t = render(&text, &ReportType::Text);
    assert!(
        t.contains("Missing  [requests]                an unknown number of requests missing\n"),
        "{t}"
    );
}

#[test]
fn workers_with_different_schedules_are_warned_about() {
    let files = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(worker(1, 2, Some(80)), START, None, false, 0),
    ];
    let c = one(&files);
    assert!(
        c.warnings[0].contains("disagree on the size of the schedule (40 vs 80 requests)"),
        "{c:?}"
    );
}

#[test]
fn start_instants_that_disagree_are_warned_about() {
    // Worker 1 started 3 ms after the others (another -start-at, or none).
    let files = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(worker(1, 2, Some(40)), START + 3_000_000, None, false, 0),
    ];
    let c = one(&files);
    assert_eq!(c.start_spread_ns, 3_000_000);
    assert!(
        c.warnings[0].contains("disagree by 3ms, more than the send clock's resolution (1ms)"),
        "{c:?}"
    );
    // Workers given different -start-at instants: one run, warned about.
    let other = WorkerInfo {
        start_at_unix_ns: START + 2_000_000_000,
        ..worker(1, 2, Some(40))
    };
    let files2 = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(other, START + 2_000_000_000, None, false, 0),
    ];
    let c = one(&files2);
    assert_eq!((c.present, c.missing), (2, 0));
    assert!(c.warnings[0].contains("disagree by 2s"), "{c:?}");
    // Within the resolution: no warning.
    let files = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(worker(1, 2, Some(40)), START + 900_000, None, false, 0),
    ];
    assert!(one(&files).warnings.is_empty());
    // A worker that began late (a slow pod) is named.
    let late = WorkerInfo {
        began_unix_ns: START + 250_000_000,
        ..worker(1, 2, Some(40))
    };
    let files = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(late, START, None, false, 0),
    ];
    let c = one(&files);
    assert!(
        c.warnings
            .iter()
            .any(|w| w.contains("segment 1/2 (pod-1) began 250ms after the start instant")),
        "{c:?}"
    );
}

#[test]
fn plain_attacks_have_no_worker_lines() {
    let f = common::write_file(
        "plain",
        START,
        &[("GET", "http://x/")],
        &common::realistic(50, 1000, 1),
    );
    let (w, text, _) = read(&[f]);
    assert!(w.is_empty());
    let t = render(&text, &ReportType::Text);
    assert!(!t.contains("Workers"), "{t}");
    let j = loadlab_metrics::render(&ReportType::Json, &text.groups()[0].1);
    assert!(!j.contains("\"workers\""), "{j}");
}

#[test]
fn segment_files_merge_exactly_into_the_whole() {
    // One attack's requests, split by k mod 4 as 4 workers would write them:
    // the merged report is the whole's, figure for figure (HdrHistograms
    // add; no percentile is averaged), plus the workers' lines.
    let all = common::realistic(20_000, 10_000, 42);
    let target = [("GET", "http://198.18.0.1/")];
    let whole = common::write_file("split", START, &target, &all);
    let files: Vec<Vec<u8>> = (0..4u64)
        .map(|i| {
            let mine: Vec<Sample> = all.iter().filter(|s| s.seq % 4 == i).copied().collect();
            let mut w = ResultsWriter::new(Vec::new());
            w.begin(&AttackInfo {
                name: "split".into(),
                start_unix_ns: START,
                worker: Some(worker(i, 4, Some(20_000))),
                ..Default::default()
            });
            w.register_target(
                0,
                &TargetInfo {
                    method: "GET".into(),
                    url: "http://198.18.0.1/".into(),
                },
            );
            for s in &mine {
                w.record(s);
            }
            w.into_inner().unwrap()
        })
        .collect();
    let (_, one_text, _) = read(std::slice::from_ref(&whole));
    let (workers, merged_text, _) = read(&files);
    assert_eq!(workers.len(), 4);
    for kind in [ReportType::Text, ReportType::Json, ReportType::HdrPlot] {
        let a = render(&one_text, &kind);
        let b = render(&merged_text, &kind);
        let b = match kind {
            ReportType::Text => b[..b.find("\n\nWorkers").expect("workers lines") + 1].to_string(),
            ReportType::Json => {
                let i = b.find(",\"workers\":").expect("workers key");
                format!("{}}}\n", &b[..i])
            }
            _ => b,
        };
        assert_eq!(a, b, "{kind:?}");
    }
}

/// A script worker's file (`loadlab k6 run --execution-segment`): its
/// worker record, its plan (every segment's scheduled iterations), and
/// `iterations` / `dropped_iterations` metric records.
fn script_file(
    i: u64,
    plan: &[Option<u64>],
    seq: &str,
    done: u64,
    dropped: u64,
    cut: bool,
) -> Vec<u8> {
    use loadlab_core::{MetricSample, SeriesInfo, SeriesKind};
    use loadlab_metrics::distributed::WorkerPlan;
    let buf = Shared::default();
    let mut wr = ResultsWriter::new(buf.clone());
    wr.begin(&AttackInfo {
        name: "script.js".into(),
        start_unix_ns: START,
        worker: Some(worker(i, plan.len() as u64, None)),
        ..Default::default()
    });
    let b: Vec<&str> = seq.split(',').collect();
    wr.write_worker_plan(&WorkerPlan {
        unit: "iterations".into(),
        segment: format!("{}:{}", b[i as usize], b[i as usize + 1]),
        sequence: seq.into(),
        scheduled: plan.to_vec(),
    });
    for (id, name) in [(0u32, "iterations"), (1, "dropped_iterations")] {
        wr.register_series(
            id,
            &SeriesInfo {
                kind: SeriesKind::Counter,
                name: name.into(),
                time: false,
                tags: vec![("scenario".into(), "a".into())],
            },
        );
    }
    for k in 0..done {
        wr.metric(&MetricSample {
            series: 0,
            t_ns: k * 1_000_000,
            value: 1.0,
        });
    }
    if dropped > 0 {
        wr.metric(&MetricSample {
            series: 1,
            t_ns: 0,
            value: dropped as f64,
        });
    }
    if cut {
        wr.flush().unwrap();
        return buf.0.lock().unwrap().clone();
    }
    wr.into_inner().unwrap();
    buf.0.lock().unwrap().clone()
}

#[test]
fn script_workers_count_iterations_against_their_plan() {
    let seq = "0,1/4,1";
    let plan = [Some(10), Some(30)];
    // Complete: 8 done + 2 dropped of 10; 30 of 30.
    let files = vec![
        script_file(0, &plan, seq, 8, 2, false),
        script_file(1, &plan, seq, 30, 0, false),
    ];
    let (w, ..) = read(&files);
    assert_eq!(w[0].plan.as_ref().unwrap().segment, "0:1/4");
    assert_eq!((w[0].iterations, w[0].dropped), (8, 2));
    let c = one(&files);
    assert_eq!(
        (c.missing, c.scheduled, c.unit.as_str()),
        (0, Some(40), "iterations")
    );
    assert!(c.problems.is_empty() && c.warnings.is_empty(), "{c:?}");
    // Killed after 12 of 30; then absent.
    let cut = vec![
        script_file(0, &plan, seq, 8, 2, false),
        script_file(1, &plan, seq, 12, 0, true),
    ];
    let c = one(&cut);
    assert_eq!(c.missing, 18);
    assert!(
        c.problems[0]
            .starts_with("18 iterations missing: segment 1/2 (1/4:1) stopped after 12 of 30"),
        "{c:?}"
    );
    let c = one(&cut[..1]);
    assert_eq!(
        c.problems,
        ["30 iterations missing: segment 1/2 (1/4:1) absent"]
    );
    let (_, text, json) = read(&cut[..1]);
    let t = render(&text, &ReportType::Text);
    assert!(t.contains("30 missing of 40 scheduled"), "{t}");
    // (The JSON form, `"unit": "iterations"`, is checked in crates/cli/tests/it/k6.rs.)
    let _ = json;
    // Unknown counts (constant VUs): named, without a count.
    let c = one(&[script_file(1, &[None, None], seq, 5, 0, true)]);
    assert!(c.missing_lower_bound);
    assert!(
        c.problems
            .iter()
            .any(|p| p
                .starts_with("iterations missing: segment 1/2 (1/4:1) stopped after 5 iterations")),
        "{c:?}"
    );
    assert!(
        c.problems
            .iter()
            .any(|p| p.contains("segment 0/2 (0:1/4) absent")),
        "{c:?}"
    );
    // Workers given other options: warned about.
    let c = one(&[
        script_file(0, &plan, seq, 8, 2, false),
        script_file(1, &[Some(10), Some(31)], seq, 31, 0, false),
    ]);
    assert!(c.warnings.iter().any(|w| w.contains("disagree")), "{c:?}");
}

/// The workers' metric series (each tagged `worker=I/N`) merge into one
/// series in the report: one line, the count of both, the percentiles of
/// the merged histogram; `-by=worker` still shows each worker's own.
#[test]
fn script_workers_metric_series_merge_across_workers() {
    use loadlab_core::{MetricSample, SeriesInfo, SeriesKind};
    let make = |i: u64, values: &[f64]| {
        let buf = Shared::default();
        let mut wr =
            ResultsWriter::new(buf.clone()).with_tags(vec![("worker".into(), format!("{i}/2"))]);
        wr.begin(&AttackInfo {
            name: "script.js".into(),
            start_unix_ns: START,
            ..Default::default()
        });
        wr.register_series(
            0,
            &SeriesInfo {
                kind: SeriesKind::Trend,
                name: "msg_delay".into(),
                time: false,
                tags: vec![("scenario".into(), "a".into())],
            },
        );
        for (k, v) in values.iter().enumerate() {
            wr.metric(&MetricSample {
                series: 0,
                t_ns: k as u64 * 1_000_000,
                value: *v,
            });
        }
        wr.into_inner().unwrap();
        buf.0.lock().unwrap().clone()
    };
    let files = [make(0, &[1.0, 2.0, 3.0]), make(1, &[100.0, 200.0])];
    let group = |by: Option<GroupBy>| {
        let mut g = Grouped::new(&ReportType::Text, by);
        for (i, f) in files.iter().enumerate() {
            let mut r = open_results(
                Box::new(std::io::Cursor::new(f.clone())),
                &format!("w{i}.bin"),
            )
            .unwrap();
            while let Some(item) = r.next_item() {
                match item.unwrap() {
                    loadlab_metrics::Item::Request(x) => g.add(&x),
                    loadlab_metrics::Item::Metric(x) => g.add_metric(&x),
                }
            }
        }
        g
    };
    let t = render(&group(None), &ReportType::Text);
    let lines: Vec<&str> = t.lines().filter(|l| l.starts_with("msg_delay")).collect();
    assert_eq!(lines.len(), 1, "{t}");
    assert!(lines[0].starts_with("msg_delay{scenario=a} "), "{t}");
    assert!(lines[0].contains(", 200"), "the max of both workers: {t}");
    // Split by worker: each its own.
    let t = render(
        &group(Some(GroupBy::Tag("worker".into()))),
        &ReportType::Text,
    );
    assert!(t.contains("0/2") && t.contains("1/2"), "{t}");
}

#[test]
fn a_worker_clock_that_may_be_off_by_more_than_the_resolution_is_named() {
    // Worker 1's kernel says its clock may be off by up to 40 ms (NTP not
    // synchronized): the start instants agree, but its share may be shifted.
    let off = WorkerInfo {
        clock_max_error_ns: Some(40_000_000),
        ..worker(1, 2, Some(40))
    };
    let files = vec![
        file(worker(0, 2, Some(40)), START, None, false, 0),
        file(off, START, None, false, 0),
    ];
    let c = one(&files);
    assert_eq!(c.warnings.len(), 1, "{c:?}");
    assert!(
        c.warnings[0].contains("segment 1/2 (pod-1)'s clock may be off by up to 40ms")
            && c.warnings[0].contains("more than the send clock's resolution (1ms)"),
        "{c:?}"
    );
    // Workers on one host share its clock: nothing to say.
    let same_host = |i| WorkerInfo {
        clock_max_error_ns: Some(40_000_000),
        host: "node-a".into(),
        ..worker(i, 2, Some(40))
    };
    let files = vec![
        file(same_host(0), START, None, false, 0),
        file(same_host(1), START, None, false, 0),
    ];
    assert!(one(&files).warnings.is_empty(), "{:?}", one(&files));
}

#[test]
fn a_huge_segment_count_in_a_header_costs_nothing_and_reads_as_ranges() {
    // One worker of 4,294,967,297 (a header no `attack` writes now): its
    // absent siblings are summed in one range, in the time and memory of
    // the one file given.
    let n = 4_294_967_297;
    let files = vec![file(worker(0, n, Some(300)), START, None, false, 0)];
    let c = one(&files);
    assert_eq!(c.missing, 299);
    assert_eq!(
        c.problems,
        ["299 requests missing: segments 1–4294967296 of 4294967297 (4294967296 segments) absent"]
    );
    // Two present segments of 10: the gaps between them, one line each.
    let files = vec![
        file(worker(2, 10, Some(100)), START, None, false, 0),
        file(worker(7, 10, Some(100)), START, None, false, 0),
    ];
    let c = one(&files);
    assert_eq!(c.missing, 80);
    assert_eq!(
        c.problems,
        [
            "20 requests missing: segments 0–1 of 10 (2 segments) absent",
            "40 requests missing: segments 3–6 of 10 (4 segments) absent",
            "20 requests missing: segments 8–9 of 10 (2 segments) absent",
        ]
    );
}
