//! Metric records (results format version 2) in reports: counters, trends,
//! rates and gauges are reported per series beside the requests, split by
//! their tags, and merge exactly.

use crate::common;

use std::io::Cursor;

use common::{START, realistic};
use loadlab_core::{AttackInfo, MetricSample, SeriesInfo, SeriesKind, Sink};
use loadlab_metrics::{
    GroupBy, Grouped, Item, Metrics, ReportType, ResultsWriter, open_results, render,
};

fn series(kind: SeriesKind, name: &str, time: bool, tags: &[(&str, &str)]) -> SeriesInfo {
    SeriesInfo {
        kind,
        name: name.into(),
        time,
        tags: tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// 100 requests and 38 metric records of 5 series.
fn file() -> Vec<u8> {
    let mut w = ResultsWriter::new(Vec::new());
    w.begin(&AttackInfo {
        name: "k6".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    w.register_series(
        0,
        &SeriesInfo::http("GET", "http://h/a").with_tag("scenario", "browse"),
    );
    w.register_series(
        1,
        &series(
            SeriesKind::Counter,
            "reconnects",
            false,
            &[("statement", "select")],
        ),
    );
    w.register_series(
        2,
        &series(
            SeriesKind::Trend,
            "msg_delay",
            true,
            &[("scenario", "browse")],
        ),
    );
    w.register_series(3, &series(SeriesKind::Trend, "queue_len", false, &[]));
    w.register_series(
        4,
        &series(SeriesKind::Rate, "checks", false, &[("scenario", "browse")]),
    );
    w.register_series(5, &series(SeriesKind::Gauge, "vus", false, &[]));
    let samples = realistic(100, 1_000, 5);
    let mut metrics = Vec::new();
    for i in 0..10u64 {
        metrics.push((1, 1.0));
        metrics.push((2, ((i + 1) * 1_000_000) as f64));
        metrics.push((4, if i < 7 { 1.0 } else { 0.0 }));
    }
    metrics.push((1, 2.5));
    for v in [1.5, 2.0, 3.0] {
        metrics.push((3, v));
    }
    for v in [1.0, 5.0, 10.0, 3.0] {
        metrics.push((5, v));
    }
    let mut m = metrics.iter();
    for (i, s) in samples.iter().enumerate() {
        w.record(s);
        if i % 2 == 0
            && let Some(&(series, value)) = m.next()
        {
            w.metric(&MetricSample {
                series,
                t_ns: s.done_ns,
                value,
            });
        }
    }
    assert!(m.next().is_none(), "every metric record written");
    w.into_inner().unwrap()
}

/// Reads `bytes` the way `loadlab report` does.
fn read(bytes: Vec<u8>, g: &mut Grouped) {
    let mut res = open_results(Cursor::new(bytes), "m.bin").unwrap();
    while let Some(item) = res.next_item() {
        match item.unwrap() {
            Item::Request(r) => g.add(&r),
            Item::Metric(m) => g.add_metric(&m),
        }
    }
    assert!(res.warnings().is_empty(), "{:?}", res.warnings());
}

fn report(kind: &str, by: Option<GroupBy>) -> String {
    let kind: ReportType = kind.parse().unwrap();
    let mut g = Grouped::new(&kind, by);
    read(file(), &mut g);
    g.render(|m| render(&kind, m))
}

#[test]
fn the_text_report_lists_every_metric_series_after_the_requests() {
    let text = report("text", None);
    let tail = text.split("\nMetrics:\n").nth(1).expect(&text);
    assert_eq!(
        tail,
        "\
reconnects{statement=select}  counter  [total, count]                    12.5, 11
msg_delay{scenario=browse}    trend    [min, mean, 50, 90, 95, 99, max]  1ms, 5.5ms, 5.001ms, 9.003ms, 10ms, 10ms, 10ms
checks{scenario=browse}       rate     [ratio, hits, total]              70.00%, 7, 10
queue_len                     trend    [min, mean, 50, 90, 95, 99, max]  1.5, 2.1666666666666665, 2, 3, 3, 3, 3
vus                           gauge    [last, min, max]                  3, 1, 10
"
    );
    // In order of first appearance; percentiles within the histogram's 3
    // significant digits, min, mean and max exact. vegeta's lines come
    // first, unchanged.
    assert!(
        text.starts_with("Requests      [total, rate, throughput]         100, "),
        "{text}"
    );
}

#[test]
fn the_json_report_has_a_metrics_list() {
    let v: serde_json::Value = serde_json::from_str(&report("json", None)).unwrap();
    assert_eq!(v["requests"], 100);
    let m = v["metrics"].as_array().unwrap();
    assert_eq!(m.len(), 5);
    assert_eq!(m[0]["name"], "reconnects");
    assert_eq!(m[0]["kind"], "counter");
    assert_eq!(m[0]["tags"]["statement"], "select");
    assert_eq!(
        (m[0]["count"].as_u64(), m[0]["total"].as_f64()),
        (Some(11), Some(12.5))
    );
    assert_eq!(m[1]["kind"], "trend");
    assert_eq!(m[1]["time"], true);
    assert_eq!(m[1]["max"].as_f64(), Some(10_000_000.0));
    // Percentiles within the histogram's 3 significant digits.
    assert_eq!(m[1]["50th"].as_f64(), Some(5_001_215.0));
    assert_eq!(m[2]["kind"], "rate");
    assert_eq!(
        (m[2]["hits"].as_u64(), m[2]["total"].as_u64()),
        (Some(7), Some(10))
    );
    assert_eq!(m[4]["last"].as_f64(), Some(3.0));
}

#[test]
fn metric_records_split_by_their_tags() {
    let text = report("text", Some("scenario".parse().unwrap()));
    let blocks: Vec<&str> = text.split("Scenario: ").skip(1).collect();
    assert_eq!(blocks.len(), 2, "{text}");
    assert!(blocks[0].starts_with("browse\n"));
    assert!(blocks[0].contains("msg_delay{scenario=browse}"), "{text}");
    assert!(blocks[0].contains("checks{scenario=browse}"), "{text}");
    assert!(!blocks[0].contains("reconnects"), "{text}");
    assert!(blocks[1].starts_with("(none)\n"), "{text}");
    assert!(blocks[1].contains("reconnects"), "{text}");
    assert!(blocks[1].contains("vus"), "{text}");
}

/// Metrics of parts of the records, merged in any order, equal the metrics
/// of all of them: counts and sums add, trend histograms add, the gauge
/// keeps its latest value.
#[test]
fn metric_figures_merge_exactly() {
    let mut res = open_results(Cursor::new(file()), "m.bin").unwrap();
    let mut whole = Metrics::new();
    let mut parts = [Metrics::new(), Metrics::new(), Metrics::new()];
    let mut i = 0;
    while let Some(item) = res.next_item() {
        let part = &mut parts[i % 3];
        i += 1;
        match item.unwrap() {
            Item::Request(r) => {
                whole.add(&r);
                part.add(&r);
            }
            Item::Metric(m) => {
                whole.add_metric(&m);
                part.add_metric(&m);
            }
        }
    }
    for order in [[0, 1, 2], [2, 0, 1]] {
        let mut merged = Metrics::new();
        for k in order {
            merged.merge(&parts[k]);
        }
        for kind in [ReportType::Text, ReportType::Json] {
            assert_eq!(render(&kind, &merged), render(&kind, &whole), "{order:?}");
        }
    }
}
