//! The two sinks side by side, as the engine drives them: the live
//! `MetricsSink` and the `ResultsWriter` on a real file, through a `Tee`,
//! must give the same report as re-reading the file.

use crate::common;

use common::{START, realistic};
use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo, Tee};
use loadlab_metrics::{
    Metrics, MetricsSink, ResultsWriter, format_report_json, format_report_text, open_results,
};

#[test]
fn live_metrics_equal_metrics_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.bin");
    let live = MetricsSink::new(Metrics::new());
    let handle = live.handle();
    let file = ResultsWriter::new(std::fs::File::create(&path).unwrap());
    let mut tee = Tee(vec![Box::new(live), Box::new(file)]);
    tee.begin(&AttackInfo {
        name: "tee".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    tee.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://127.0.0.1:1/".into(),
        },
    );
    tee.register_target(
        1,
        &TargetInfo {
            method: "POST".into(),
            url: "http://127.0.0.1:1/p".into(),
        },
    );
    let mut samples = realistic(20_000, 5_000, 3);
    for (i, s) in samples.iter_mut().enumerate() {
        s.target = (i % 2) as u32;
        if i % 1_000 == 0 {
            *s = Sample {
                status: 0,
                error: ErrorKind::Timeout,
                first_byte_ns: 0,
                bytes_in: 0,
                ..*s
            };
        }
    }
    for s in &samples {
        tee.record(s);
    }
    tee.finish().unwrap();

    let mut from_file = Metrics::new();
    let mut res = open_results(std::fs::File::open(&path).unwrap(), "run.bin").unwrap();
    for r in res.by_ref() {
        from_file.add(&r.unwrap());
    }
    assert!(res.warnings().is_empty(), "{:?}", res.warnings());
    let live = handle.lock().unwrap();
    assert_eq!(live.requests(), 20_000);
    assert_eq!(format_report_text(&live), format_report_text(&from_file));
    assert_eq!(format_report_json(&live), format_report_json(&from_file));
    let text = format_report_text(&live);
    assert!(
        text.contains("Get \"http://127.0.0.1:1/\": timeout awaiting response"),
        "{text}"
    );
    assert!(text.contains("0:20  200:19980"), "{text}");
}

/// Error Set texts name the dialled address and the configured timeout, in
/// the live report, in a report of the results file, in `encode` output and
/// in Prometheus' failure messages alike.
#[test]
fn error_texts_name_the_dialled_address_and_the_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.bin");
    let live = MetricsSink::new(Metrics::new());
    let handle = live.handle();
    let prom = loadlab_metrics::PromMetrics::new();
    let file = ResultsWriter::new(std::fs::File::create(&path).unwrap());
    let mut tee = Tee(vec![Box::new(live), Box::new(file), Box::new(prom.sink())]);
    tee.begin(&AttackInfo {
        name: "errs".into(),
        start_unix_ns: START,
        timeout_ns: 300_000_000,
        connect_to: vec![("example.test:80".into(), "127.0.0.1:9".into())],
        ..AttackInfo::default()
    });
    for (i, url) in ["http://example.test/", "http://127.0.0.1:1/"]
        .into_iter()
        .enumerate()
    {
        tee.register_target(
            i as u32,
            &TargetInfo {
                method: "GET".into(),
                url: url.into(),
            },
        );
    }
    let base = realistic(3, 100, 1)[0];
    for (seq, (target, error)) in [
        (0, ErrorKind::ConnectRefused),
        (1, ErrorKind::Timeout),
        (1, ErrorKind::ConnectTimeout),
        (0, ErrorKind::ConnectRefused),
    ]
    .into_iter()
    .enumerate()
    {
        tee.record(&Sample {
            seq: seq as u64,
            target,
            status: 0,
            error,
            first_byte_ns: 0,
            bytes_in: 0,
            ..base
        });
    }
    tee.finish().unwrap();

    let want = [
        "Get \"http://example.test/\": connect 127.0.0.1:9: connection refused",
        "Get \"http://127.0.0.1:1/\": timeout awaiting response after 300ms",
        "Get \"http://127.0.0.1:1/\": connect 127.0.0.1:1: i/o timeout after 300ms",
    ];
    let mut from_file = Metrics::new();
    let mut json = Vec::new();
    {
        let mut enc = loadlab_metrics::Encoder::new(&mut json, loadlab_metrics::Encoding::Json);
        for r in open_results(std::fs::File::open(&path).unwrap(), "run.bin").unwrap() {
            let r = r.unwrap();
            from_file.add(&r);
            enc.encode(&r).unwrap();
        }
        enc.finish().unwrap();
    }
    let live = handle.lock().unwrap();
    for m in [&*live, &from_file] {
        assert_eq!(m.summary().errors, want);
    }
    let json = String::from_utf8(json).unwrap();
    let prom = prom.render();
    for w in want {
        let (_, text) = w.split_once(": ").unwrap();
        assert!(json.contains(text), "{json}");
        assert!(prom.contains(text), "{prom}");
    }
}

/// Metric records through the live sink give the report of the file.
#[test]
fn live_metric_records_equal_the_files() {
    use loadlab_core::{MetricSample, SeriesInfo, SeriesKind};
    let live = MetricsSink::new(Metrics::new());
    let handle = live.handle();
    let mut both = (live, ResultsWriter::new(Vec::new()));
    both.begin(&AttackInfo {
        name: "m".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    both.register_series(
        0,
        &SeriesInfo::http("GET", "http://127.0.0.1:1/").with_tag("endpoint", "e"),
    );
    for (id, kind) in [
        (1, SeriesKind::Counter),
        (2, SeriesKind::Trend),
        (3, SeriesKind::Gauge),
    ] {
        both.register_series(
            id,
            &SeriesInfo {
                kind,
                name: format!("m{id}"),
                time: kind == SeriesKind::Trend,
                tags: vec![("endpoint".into(), "e".into())],
            },
        );
    }
    for (i, s) in realistic(500, 1_000, 9).iter().enumerate() {
        both.record(s);
        both.metric(&MetricSample {
            series: 1 + (i % 3) as u32,
            t_ns: s.done_ns,
            value: (i * 1_000) as f64,
        });
    }
    both.finish().unwrap();
    let (_, writer) = both;
    let mut from_file = Metrics::new();
    let mut res = open_results(std::io::Cursor::new(writer.into_inner().unwrap()), "m").unwrap();
    while let Some(item) = res.next_item() {
        match item.unwrap() {
            loadlab_metrics::Item::Request(r) => from_file.add(&r),
            loadlab_metrics::Item::Metric(m) => from_file.add_metric(&m),
        }
    }
    let live = handle.lock().unwrap();
    assert_eq!(live.metric_figures().series().len(), 3);
    assert_eq!(format_report_text(&live), format_report_text(&from_file));
    assert_eq!(format_report_json(&live), format_report_json(&from_file));
}
