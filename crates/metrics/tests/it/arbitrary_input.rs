//! Results files from anywhere (a crash, a full disk, another tool, a typo):
//! `report` and `encode` read what is whole, return errors for the rest, and
//! never panic or loop forever.

use crate::common;

use std::io::Cursor;

use common::{START, realistic, write_file};
use loadlab_core::{AttackInfo, MetricSample, SeriesInfo, SeriesKind, Sink};
use loadlab_metrics::metrics::Metrics;
use loadlab_metrics::{Item, ResultsWriter, open_results};
use proptest::prelude::*;

/// Reads everything the way `report` does; bounded so that a reader that
/// never ends fails the test instead of hanging it.
fn report_all(bytes: Vec<u8>) -> Result<usize, String> {
    let len = bytes.len();
    let results = match open_results(Cursor::new(bytes), "fuzz.bin") {
        Ok(r) => r,
        Err(e) => return Err(e.to_string()),
    };
    let mut results = results;
    let mut m = Metrics::new();
    let mut n = 0;
    let mut i = 0;
    while let Some(r) = results.next_item() {
        assert!(
            i <= len + 16,
            "more items than bytes: the reader does not advance"
        );
        i += 1;
        match r {
            Ok(Item::Request(rec)) => {
                m.add(&rec);
                n += 1;
            }
            Ok(Item::Metric(rec)) => {
                assert!(rec.series.kind != SeriesKind::Sample);
                n += 1;
            }
            Err(e) => {
                // An error names the file it is about.
                assert!(e.to_string().contains("fuzz.bin"), "{e}");
            }
        }
    }
    Ok(n)
}

fn crc8(data: &[u8]) -> u8 {
    let mut crc = 0u8;
    for &b in data {
        crc ^= b;
        for _ in 0..8 {
            crc = if crc & 0x80 != 0 {
                (crc << 1) ^ 0x07
            } else {
                crc << 1
            };
        }
    }
    crc
}

fn valid_file() -> Vec<u8> {
    write_file(
        "fuzz",
        START,
        &[
            ("GET", "http://127.0.0.1:1/a"),
            ("POST", "http://127.0.0.1:1/b"),
        ],
        &realistic(300, 1000, 7),
    )
}

/// A version 2 file: tagged request series and 100 metric records.
fn valid_v2_file() -> Vec<u8> {
    let mut w = ResultsWriter::new(Vec::new()).with_tags(vec![("worker".into(), "w".into())]);
    w.begin(&AttackInfo {
        name: "fuzz".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    w.register_series(
        0,
        &SeriesInfo::http("GET", "http://127.0.0.1:1/a").with_tag("endpoint", "a"),
    );
    for (id, kind) in [
        (1, SeriesKind::Counter),
        (2, SeriesKind::Trend),
        (3, SeriesKind::Rate),
        (4, SeriesKind::Gauge),
    ] {
        w.register_series(
            id,
            &SeriesInfo {
                kind,
                name: format!("m{id}"),
                time: id == 2,
                tags: vec![("k".into(), "v".into())],
            },
        );
    }
    for (i, s) in realistic(200, 1000, 3).iter().enumerate() {
        w.record(s);
        if i % 2 == 0 {
            w.metric(&MetricSample {
                series: 1 + (i as u32 / 2) % 4,
                t_ns: s.done_ns,
                value: if i % 4 == 0 { i as f64 } else { i as f64 / 3.0 },
            });
        }
    }
    w.into_inner().unwrap()
}

/// vegeta JSON lines with values anywhere in their types' ranges.
fn vegeta_json_line() -> impl Strategy<Value = String> {
    (
        any::<i64>(),
        any::<i32>(),
        "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,12})?(Z|[+-][0-9]{2}:[0-9]{2})?",
        any::<i64>(),
        any::<i64>(),
        any::<i64>(),
        ".{0,12}",
    )
        .prop_map(|(seq, code, ts, lat, bout, bin, err)| {
            format!(
                "{{\"attack\":\"a\",\"seq\":{seq},\"code\":{code},\"timestamp\":\"{ts}\",\"latency\":{lat},\"bytes_out\":{bout},\"bytes_in\":{bin},\"error\":{},\"body\":null,\"method\":\"GET\",\"url\":\"http://h/\",\"headers\":null}}",
                serde_json::to_string(&err).unwrap()
            )
        })
}

/// vegeta CSV rows: timestamp, code, latency, bytes out, bytes in, error, body, attack, seq, method, url, headers.
fn vegeta_csv_line() -> impl Strategy<Value = String> {
    (
        any::<i64>(),
        any::<i32>(),
        any::<i64>(),
        any::<i64>(),
        any::<i64>(),
        "[a-z ,\"]{0,10}",
        any::<u64>(),
    )
        .prop_map(|(ts, code, lat, bout, bin, err, seq)| {
            format!(
                "{ts},{code},{lat},{bout},{bin},\"{}\",,a,{seq},GET,http://h/,",
                err.replace('"', "\"\"")
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn any_bytes_are_read_or_refused(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let _ = report_all(bytes);
    }

    #[test]
    fn a_damaged_loadlab_file_never_panics(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..12),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut b = valid_file();
        for (at, v) in flips {
            let i = at.index(b.len());
            b[i] ^= v;
        }
        let keep = cut.index(b.len() + 1);
        b.truncate(keep);
        let _ = report_all(b);
    }

    #[test]
    fn a_cut_loadlab_file_keeps_its_whole_records(cut in any::<prop::sample::Index>()) {
        let whole = valid_file();
        let all = report_all(whole.clone()).unwrap();
        prop_assert_eq!(all, 300);
        let keep = cut.index(whole.len() + 1);
        if let Ok(n) = report_all(whole[..keep].to_vec()) {
            prop_assert!(n <= all);
        }
    }

    #[test]
    fn a_damaged_version_2_file_never_panics(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..12),
        cut in any::<prop::sample::Index>(),
    ) {
        let mut b = valid_v2_file();
        for (at, v) in flips {
            let i = at.index(b.len());
            b[i] ^= v;
        }
        let keep = cut.index(b.len() + 1);
        b.truncate(keep);
        let _ = report_all(b);
    }

    #[test]
    fn a_cut_version_2_file_keeps_its_whole_records(cut in any::<prop::sample::Index>()) {
        let whole = valid_v2_file();
        let all = report_all(whole.clone()).unwrap();
        prop_assert_eq!(all, 300);
        let keep = cut.index(whole.len() + 1);
        if let Ok(n) = report_all(whole[..keep].to_vec()) {
            prop_assert!(n <= all);
        }
    }

    #[test]
    fn version_2_records_with_any_bytes_never_panic(
        rtype in prop::sample::select(vec![0x02u8, 0x03, 0x05, 0x06, 0x41]),
        payload in proptest::collection::vec(any::<u8>(), 0..40),
    ) {
        // A well-framed record (right length and checksum) of any content,
        // after a valid start: decoded or refused, never a panic.
        let mut b = valid_v2_file();
        b.truncate(b.len() - 4); // the end record
        let mut rec = vec![rtype, payload.len() as u8];
        rec.extend(&payload);
        rec.push(crc8(&rec));
        b.extend(rec);
        let _ = report_all(b);
    }

    #[test]
    fn vegeta_json_with_any_values_never_panics(lines in proptest::collection::vec(vegeta_json_line(), 1..20)) {
        let _ = report_all((lines.join("\n") + "\n").into_bytes());
    }

    #[test]
    fn vegeta_csv_with_any_values_never_panics(lines in proptest::collection::vec(vegeta_csv_line(), 1..20)) {
        let _ = report_all((lines.join("\n") + "\n").into_bytes());
    }
}
