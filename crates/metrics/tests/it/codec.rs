//! The binary results file: size per request, exact round trips, truncated
//! and concatenated files, flushing while an attack runs.

use crate::common;

use std::io::Cursor;
use std::time::Duration;

use common::{Rng, START, realistic, write_file};
use loadlab_core::{
    AttackInfo, ErrorKind, MetricSample, Sample, SeriesInfo, SeriesKind, Sink, TargetInfo,
};
use loadlab_metrics::{Format, Item, Record, ResultsReader, ResultsWriter, open_results};

fn read_all(bytes: Vec<u8>) -> (Vec<Record>, Vec<String>) {
    let mut r = ResultsReader::new(Cursor::new(bytes), "test.bin").expect("header");
    let recs: Vec<Record> = r.by_ref().map(|x| x.expect("no error")).collect();
    (recs, r.warnings().to_vec())
}

#[test]
fn typical_request_costs_at_most_24_bytes() {
    let samples = realistic(100_000, 5_000, 7);
    let bytes = write_file(
        "size",
        START,
        &[("GET", "http://127.0.0.1:8080/100b")],
        &samples,
    );
    let per = bytes.len() as f64 / samples.len() as f64;
    println!(
        "results file: {} bytes for {} requests = {per:.2} B/request",
        bytes.len(),
        samples.len()
    );
    assert!(per <= 24.0, "{per:.2} bytes per request");
    let (recs, warnings) = read_all(bytes);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(recs.len(), samples.len());
    for (r, s) in recs.iter().zip(&samples) {
        assert_eq!(&r.sample, s);
        assert_eq!(&*r.attack, "size");
        assert_eq!(r.start_unix_ns, START);
        assert_eq!((&*r.method, &*r.url), ("GET", "http://127.0.0.1:8080/100b"));
    }
}

#[test]
fn errors_and_several_targets_round_trip() {
    let samples: Vec<Sample> = (0..200u64)
        .map(|i| Sample {
            seq: i,
            target: (i % 3) as u32,
            intended_ns: i * 1_000_000,
            sent_ns: i * 1_000_000 + 10,
            first_byte_ns: if i % 7 == 0 { 0 } else { i * 1_000_000 + 5_000 },
            done_ns: i * 1_000_000 + 9_000,
            connect_ns: 0,
            status: if i % 7 == 0 {
                0
            } else if i % 5 == 0 {
                503
            } else {
                200
            },
            error: if i % 7 == 0 {
                ErrorKind::ALL[(i as usize / 7) % (ErrorKind::ALL.len() - 1) + 1]
            } else {
                ErrorKind::None
            },
            bytes_out: i % 4 * 10,
            bytes_in: if i % 7 == 0 { 0 } else { 1_000 + i },
            // Some decoded gzip bodies: their bytes as they came.
            wire_in: if i % 11 == 0 { 300 + i } else { 0 },
        })
        .collect();
    let targets = [
        ("GET", "http://a/1"),
        ("POST", "http://a/2"),
        ("DELETE", "http://b/ü?x=1&y=2"),
    ];
    let bytes = write_file("mixed", START, &targets, &samples);
    let (recs, warnings) = read_all(bytes);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(recs.len(), 200);
    for (r, s) in recs.iter().zip(&samples) {
        assert_eq!(&r.sample, s);
        let (m, u) = targets[s.target as usize];
        assert_eq!((&*r.method, &*r.url), (m, u));
    }
}

#[test]
fn a_file_cut_anywhere_reads_up_to_its_last_whole_record_with_a_warning() {
    let samples = realistic(300, 5_000, 3);
    let full = write_file("cut", START, &[("GET", "http://x/")], &samples);
    // Where each whole sample record ends: the file of the first k samples,
    // minus its end record (type, length, varint count, checksum).
    let ends: Vec<usize> = (0..=samples.len())
        .map(|k| {
            let end_len = 3 + if k < 128 { 1 } else { 2 };
            write_file("cut", START, &[("GET", "http://x/")], &samples[..k]).len() - end_len
        })
        .collect();
    let cuts = (1..full.len())
        .rev()
        .take(120)
        .chain((1..full.len()).step_by(37));
    for cut in cuts {
        let part = full[..cut].to_vec();
        let mut res = open_results(Cursor::new(part), "cut.bin").expect("opens");
        let recs: Vec<Record> = res
            .by_ref()
            .map(|r| r.expect("a cut file is not an error"))
            .collect();
        let whole = ends.iter().rposition(|&e| e <= cut).unwrap_or(0);
        assert_eq!(recs.len(), whole, "cut at {cut}");
        for (r, s) in recs.iter().zip(&samples) {
            assert_eq!(&r.sample, s, "cut at {cut}");
        }
        assert!(!res.warnings().is_empty(), "cut at {cut} gave no warning");
    }
    // The whole file: every record, no warning.
    let mut res = open_results(Cursor::new(full.clone()), "whole.bin").unwrap();
    assert_eq!(res.by_ref().count(), samples.len());
    assert!(res.warnings().is_empty());
    // Cut one byte short: all samples (the end record is what was cut).
    let mut res = open_results(Cursor::new(full[..full.len() - 1].to_vec()), "short.bin").unwrap();
    assert_eq!(res.by_ref().count(), samples.len());
    let w = res.warnings();
    assert!(
        w.iter()
            .any(|w| w.contains("short.bin") && w.contains("truncated")),
        "{w:?}"
    );
}

#[test]
fn concatenated_files_read_as_several_attacks() {
    let a = realistic(500, 1_000, 11);
    let b = realistic(700, 2_000, 12);
    let mut bytes = write_file("first", START, &[("GET", "http://a/")], &a);
    bytes.extend(write_file(
        "second",
        START + 5_000_000_000,
        &[("POST", "http://b/"), ("GET", "http://b/2")],
        &b,
    ));
    let (recs, warnings) = read_all(bytes);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(recs.len(), 1_200);
    assert!(
        recs[..500]
            .iter()
            .all(|r| &*r.attack == "first" && r.start_unix_ns == START && &*r.url == "http://a/")
    );
    assert!(
        recs[500..]
            .iter()
            .all(|r| &*r.attack == "second" && &*r.method == "POST")
    );
    assert_eq!(recs[500].sample, b[0]);
}

#[test]
fn periodic_flush_leaves_a_readable_file_when_the_process_dies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.bin");
    let file = std::fs::File::create(&path).unwrap();
    let mut w = ResultsWriter::new(file).flush_interval(Duration::from_millis(20));
    w.begin(&AttackInfo {
        name: "live".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    w.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://x/".into(),
        },
    );
    let samples = realistic(100, 1_000, 5);
    for s in &samples {
        w.record(s);
    }
    // The engine's clock moves on: a sample completing 30 ms after the last
    // one triggers the timed flush (interval 20 ms).
    let last = samples.iter().map(|s| s.done_ns).max().unwrap();
    w.record(&Sample {
        seq: 100,
        done_ns: last + 30_000_000,
        ..samples[0]
    });
    // No finish(): as if killed. Whatever reached the file must be readable.
    let mut res = open_results(std::fs::File::open(&path).unwrap(), "live.bin").unwrap();
    assert_eq!(res.format(), Format::Loadlab);
    let n = res.by_ref().map(|r| r.unwrap()).collect::<Vec<_>>().len();
    assert_eq!(n, 101);
    assert!(
        res.warnings().iter().any(|w| w.contains("no end record")),
        "{:?}",
        res.warnings()
    );
    drop(w);
}

#[test]
fn corruption_never_panics_and_stops_with_a_warning() {
    let samples = realistic(200, 5_000, 9);
    let full = write_file("flip", START, &[("GET", "http://x/")], &samples);
    let mut rng = Rng(99);
    for _ in 0..500 {
        let mut b = full.clone();
        for _ in 0..1 + rng.below(3) {
            let i = 10 + rng.below(b.len() as u64 - 10) as usize;
            b[i] ^= 1 << rng.below(8);
        }
        let mut res = open_results(Cursor::new(b), "flip.bin").unwrap();
        let mut n = 0;
        for r in res.by_ref() {
            if r.is_err() {
                break;
            }
            n += 1;
        }
        assert!(n <= samples.len() + 1);
        let _ = res.warnings();
    }
    // A zero-filled tail (delayed allocation after a crash) is a warning.
    let mut b = full.clone();
    b.extend(std::iter::repeat_n(0u8, 4096));
    let mut res = open_results(Cursor::new(b), "zeros.bin").unwrap();
    assert_eq!(
        res.by_ref().map(|r| r.unwrap()).collect::<Vec<_>>().len(),
        samples.len()
    );
    assert!(
        res.warnings().iter().any(|w| w.contains("corrupt")),
        "{:?}",
        res.warnings()
    );
}

#[test]
fn newer_versions_are_refused_clearly() {
    let mut b = write_file("v", START, &[], &[]);
    b[8] = 9;
    let err = open_results(Cursor::new(b), "new.bin")
        .err()
        .expect("refused");
    assert_eq!(
        err.to_string(),
        "new.bin: loadlab results format version 9 is newer than this loadlab understands (version 2)"
    );
}

/// A reader fed chunk by chunk, like a pipe from a running attack.
struct PipeReader(std::sync::mpsc::Receiver<Vec<u8>>, Vec<u8>);

impl std::io::Read for PipeReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.1.is_empty() {
            match self.0.recv() {
                Ok(chunk) => self.1 = chunk,
                Err(_) => return Ok(0), // sender gone: EOF
            }
        }
        let n = buf.len().min(self.1.len());
        buf[..n].copy_from_slice(&self.1[..n]);
        self.1.drain(..n);
        Ok(n)
    }
}

#[test]
fn a_live_stream_yields_records_before_more_bytes_arrive() {
    let samples = realistic(3, 1_000, 4);
    let full = write_file("live", START, &[("GET", "http://x/")], &samples);
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    let (out_tx, out_rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut res = open_results(PipeReader(rx, Vec::new()), "stdin").unwrap();
        for r in res.by_ref() {
            out_tx.send(r.unwrap().sample).unwrap();
        }
        res.warnings()
    });
    // Everything up to the end of the first sample: far less than the
    // sniffing window, and the "attack" sends nothing more for now.
    let first_end = write_file("live", START, &[("GET", "http://x/")], &samples[..1]).len() - 4;
    tx.send(full[..first_end].to_vec()).unwrap();
    let got = out_rx
        .recv_timeout(Duration::from_secs(10))
        .expect("first record before more input");
    assert_eq!(got, samples[0]);
    tx.send(full[first_end..].to_vec()).unwrap();
    drop(tx);
    let rest: Vec<Sample> = out_rx.iter().collect();
    assert_eq!(rest, samples[1..]);
    assert!(reader.join().unwrap().is_empty());
}

/// An attack that could not keep its schedule says how many requests it
/// never sent: an optional record before the end record, which the reader
/// returns per attack. A reader that does not know the record skips it (a
/// record type from 0x40 up), and files without it read as before.
#[test]
fn unsent_count_is_carried_per_attack_and_skippable() {
    let samples = realistic(10, 1_000, 3);
    let mut buf = Vec::new();
    for (name, unsent) in [("first", 80u64), ("second", 0), ("third", 7)] {
        let mut w = ResultsWriter::new(&mut buf);
        w.begin(&AttackInfo {
            name: name.into(),
            start_unix_ns: START,
            ..Default::default()
        });
        w.register_target(
            0,
            &TargetInfo {
                method: "GET".into(),
                url: "http://h/".into(),
            },
        );
        for s in &samples {
            w.record(s);
        }
        w.flush().unwrap();
        w.write_unsent(unsent);
        w.finish().unwrap();
    }
    let mut r = ResultsReader::new(Cursor::new(buf.clone()), "u.bin").unwrap();
    assert_eq!(r.by_ref().count(), 30);
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let unsent: Vec<(String, u64)> = r
        .unsent()
        .iter()
        .map(|(a, n)| (a.to_string(), *n))
        .collect();
    assert_eq!(
        unsent,
        [("first".to_string(), 80), ("third".to_string(), 7)]
    );
    // The record is optional: its type is in the range every version-1
    // reader skips, and it sits inside the attack, before the end record.
    let pos = buf
        .windows(2)
        .position(|w| w == [0x40, 1])
        .expect("an unsent record");
    assert!(
        buf[pos + 2] == 80 && buf[pos + 4] == 0x04,
        "{:x?}",
        &buf[pos..pos + 8]
    );
    // Through open_results too.
    let mut res = open_results(Cursor::new(buf), "u.bin").unwrap();
    assert_eq!(res.by_ref().count(), 30);
    assert_eq!(res.unsent().len(), 2);
}

/// What a version-1 reader does with an optional record it does not know
/// (how older loadlab versions read the unsent record): skip it.
#[test]
fn unknown_optional_records_are_skipped() {
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
    let samples = realistic(5, 1_000, 9);
    let mut bytes = write_file("x", START, &[("GET", "http://h/")], &samples);
    // The end record is the last 4 bytes: type, length 1, count 5, crc.
    let end = bytes.len() - 4;
    assert_eq!(&bytes[end..end + 3], &[0x04, 1, 5]);
    // 0x7e: an optional type no version defines (0x40 unsent and 0x41
    // worker are defined now).
    let mut rec = vec![0x7e, 3, 1, 2, 3];
    rec.push(crc8(&rec));
    bytes.splice(end..end, rec);
    let (recs, warnings) = read_all(bytes.clone());
    assert_eq!(recs.len(), 5);
    assert!(warnings.is_empty(), "{warnings:?}");
    // A worker record that does not decode is skipped with a warning.
    let mut rec = vec![0x41, 3, 1, 2, 3];
    rec.push(crc8(&rec));
    bytes.splice(end..end, rec);
    let (recs, warnings) = read_all(bytes);
    assert_eq!(recs.len(), 5);
    assert!(
        warnings[0].contains("undecodable worker record"),
        "{warnings:?}"
    );
}

/// The samples of `tests/fixtures/loadlab_v1.bin`, which loadlab wrote
/// before version 2 (commit 41d75c8, `ResultsWriter` of format version 1):
/// three targets, failures, the begin record's optional fields, an unsent
/// record.
fn v1_fixture_samples() -> Vec<Sample> {
    (0..200u64)
        .map(|i| Sample {
            seq: i,
            target: (i % 3) as u32,
            intended_ns: i * 1_000_000,
            sent_ns: i * 1_000_000 + 10,
            first_byte_ns: if i % 7 == 0 { 0 } else { i * 1_000_000 + 5_000 },
            done_ns: i * 1_000_000 + 9_000,
            connect_ns: if i < 3 { 70_000 } else { 0 },
            status: if i % 7 == 0 {
                0
            } else if i % 5 == 0 {
                503
            } else {
                200
            },
            error: if i % 7 == 0 {
                ErrorKind::ConnectRefused
            } else {
                ErrorKind::None
            },
            bytes_out: i % 4 * 10,
            bytes_in: if i % 7 == 0 { 0 } else { 1_000 + i },
            wire_in: 0,
        })
        .collect()
}

#[test]
fn version_1_files_still_read() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/loadlab_v1.bin"
    ))
    .unwrap();
    assert_eq!(bytes[8], 1, "the fixture is a version 1 file");
    let mut r = ResultsReader::new(Cursor::new(bytes), "v1.bin").unwrap();
    let recs: Vec<Record> = r.by_ref().map(|x| x.unwrap()).collect();
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    let want = v1_fixture_samples();
    assert_eq!(recs.len(), want.len());
    let targets = [
        ("GET", "http://a/1"),
        ("POST", "http://a/2"),
        ("DELETE", "http://b/ü?x=1&y=2"),
    ];
    for (r, s) in recs.iter().zip(&want) {
        assert_eq!(&r.sample, s);
        assert_eq!(&*r.attack, "v1");
        assert_eq!((&*r.method, &*r.url), targets[s.target as usize]);
        // A version 1 target is an HTTP series known by method and URL only.
        assert_eq!(r.series, None);
        assert_eq!(r.tag("method"), Some(targets[s.target as usize].0));
        assert_eq!(r.tag("endpoint"), None);
    }
    // The begin record's optional fields still reach the error texts.
    assert_eq!(
        recs[0].error_text.as_deref(),
        Some("Get \"http://a/1\": connect 127.0.0.1:9: connection refused")
    );
    let unsent: Vec<(String, u64)> = r
        .unsent()
        .iter()
        .map(|(a, n)| (a.to_string(), *n))
        .collect();
    assert_eq!(unsent, [("v1".to_string(), 17)]);
}

fn tagged(kind: SeriesKind, name: &str, time: bool, tags: &[(&str, &str)]) -> SeriesInfo {
    SeriesInfo {
        kind,
        name: name.to_string(),
        time,
        tags: tags
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

/// Metric values that must round-trip bit for bit: integers (small, large,
/// negative), fractions, the extremes, -0.0, NaN and infinities.
const ODD_VALUES: [f64; 14] = [
    0.0,
    1.0,
    -1.0,
    42.0,
    1.5,
    -2.25,
    1e300,
    9_007_199_254_740_991.0,
    9_007_199_254_740_992.0,
    -0.0,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MIN_POSITIVE,
];

/// A version 2 file: the series dictionary (with tags, the writer's own
/// `worker` tag added to each) and metric records of every kind, in file
/// order between the requests.
fn v2_file() -> (Vec<u8>, Vec<Sample>, Vec<MetricSample>) {
    let samples = realistic(40, 1_000, 21);
    let mut w = ResultsWriter::new(Vec::new()).with_tags(vec![("worker".into(), "w1".into())]);
    w.begin(&AttackInfo {
        name: "v2".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    w.register_series(
        0,
        &SeriesInfo::http("GET", "http://h/a")
            .with_tag("endpoint", "list")
            .with_tag("scenario", "browse"),
    );
    w.register_series(
        1,
        &tagged(
            SeriesKind::Counter,
            "reconnects",
            false,
            &[("statement", "select")],
        ),
    );
    w.register_series(2, &tagged(SeriesKind::Trend, "msg_delay", true, &[]));
    w.register_series(
        3,
        &tagged(
            SeriesKind::Rate,
            "checks",
            false,
            &[("check", "status is 200")],
        ),
    );
    w.register_series(
        4,
        &tagged(SeriesKind::Gauge, "vus", false, &[("worker", "own")]),
    );
    let mut metrics = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        w.record(s);
        let v = ODD_VALUES[i % ODD_VALUES.len()];
        let m = MetricSample {
            series: 1 + (i % 4) as u32,
            // Timestamps may go back and forth.
            t_ns: s
                .done_ns
                .wrapping_sub(if i % 3 == 0 { 5_000_000 } else { 0 }),
            value: v,
        };
        w.metric(&m);
        metrics.push(m);
    }
    (w.into_inner().unwrap(), samples, metrics)
}

fn same_value(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

#[test]
fn series_and_metric_records_round_trip() {
    let (bytes, samples, metrics) = v2_file();
    assert_eq!(bytes[8], 2, "version 2");
    let mut r = ResultsReader::new(Cursor::new(bytes.clone()), "v2.bin").unwrap();
    let mut items = Vec::new();
    while let Some(it) = r.next_item() {
        items.push(it.unwrap());
    }
    assert!(r.warnings().is_empty(), "{:?}", r.warnings());
    assert_eq!(items.len(), samples.len() + metrics.len());
    for (i, pair) in items.chunks(2).enumerate() {
        let Item::Request(req) = &pair[0] else {
            panic!("item {} is not a request", 2 * i)
        };
        assert_eq!(req.sample, samples[i]);
        assert_eq!((&*req.method, &*req.url), ("GET", "http://h/a"));
        let series = req.series.as_ref().expect("a v2 series");
        assert_eq!(&*series.name, "http_req");
        assert_eq!(series.kind, SeriesKind::Sample);
        assert_eq!(req.tag("endpoint"), Some("list"));
        assert_eq!(req.tag("scenario"), Some("browse"));
        assert_eq!(req.tag("worker"), Some("w1"));
        let Item::Metric(m) = &pair[1] else {
            panic!("item {} is not a metric", 2 * i + 1)
        };
        let want = &metrics[i];
        assert_eq!(m.t_ns, want.t_ns);
        assert!(
            same_value(m.value, want.value),
            "{} vs {}",
            m.value,
            want.value
        );
        assert_eq!(&*m.attack, "v2");
        assert_eq!(m.start_unix_ns, START);
        let (kind, name) = [
            (SeriesKind::Counter, "reconnects"),
            (SeriesKind::Trend, "msg_delay"),
            (SeriesKind::Rate, "checks"),
            (SeriesKind::Gauge, "vus"),
        ][want.series as usize - 1];
        assert_eq!((m.series.kind, &*m.series.name), (kind, name));
        assert_eq!(m.series.time, kind == SeriesKind::Trend);
    }
    // A series' own tag wins over the writer's.
    let vus = items.iter().find_map(|i| match i {
        Item::Metric(m) if &*m.series.name == "vus" => Some(m.series.clone()),
        _ => None,
    });
    assert_eq!(vus.unwrap().tag("worker"), Some("own"));
    // The iterator yields the requests alone, in order.
    let mut res = open_results(Cursor::new(bytes), "v2.bin").unwrap();
    let reqs: Vec<Sample> = res.by_ref().map(|r| r.unwrap().sample).collect();
    assert_eq!(reqs, samples);
    assert!(res.warnings().is_empty(), "{:?}", res.warnings());
}

#[test]
fn a_cut_version_2_file_keeps_its_whole_records() {
    let (full, samples, metrics) = v2_file();
    let count = |cut: usize| {
        let mut r = match ResultsReader::new(Cursor::new(full[..cut].to_vec()), "cut.bin") {
            Ok(r) => r,
            Err(_) => return (0, true),
        };
        let mut n = 0;
        while let Some(it) = r.next_item() {
            let it = it.expect("a cut file is not an error");
            match (&it, n % 2) {
                (Item::Request(q), 0) => assert_eq!(q.sample, samples[n / 2], "cut at {cut}"),
                (Item::Metric(m), 1) => {
                    assert!(same_value(m.value, metrics[n / 2].value), "cut at {cut}")
                }
                _ => panic!("cut at {cut}: item {n} out of order"),
            }
            n += 1;
        }
        (n, !r.warnings().is_empty())
    };
    // Every cut yields a prefix of the items, more items the later the cut,
    // and says the file was cut.
    let mut last = 0;
    for cut in 10..full.len() {
        let (n, warned) = count(cut);
        assert!(n >= last, "cut at {cut}: {n} items after {last}");
        assert!(warned, "cut at {cut} gave no warning");
        last = n;
    }
    // Just before the end record: every item.
    assert_eq!(last, samples.len() + metrics.len());
    assert_eq!(count(full.len()), (samples.len() + metrics.len(), false));
}

#[test]
fn a_metric_record_of_an_unknown_series_is_skipped_with_a_warning() {
    let mut w = ResultsWriter::new(Vec::new());
    w.begin(&AttackInfo::default());
    w.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://h/".into(),
        },
    );
    let s = realistic(2, 1_000, 1);
    w.record(&s[0]);
    w.metric(&MetricSample {
        series: 7,
        t_ns: 1,
        value: 1.0,
    });
    // A sample series is no metric series either.
    w.metric(&MetricSample {
        series: 0,
        t_ns: 2,
        value: 1.0,
    });
    w.record(&s[1]);
    let bytes = w.into_inner().unwrap();
    let mut r = ResultsReader::new(Cursor::new(bytes), "m.bin").unwrap();
    let mut n = 0;
    while let Some(it) = r.next_item() {
        assert!(matches!(it.unwrap(), Item::Request(_)));
        n += 1;
    }
    assert_eq!(n, 2);
    assert_eq!(r.warnings().len(), 1, "{:?}", r.warnings());
    assert!(r.warnings()[0].contains("series 7"), "{:?}", r.warnings());
}

/// A version 1 segment and a version 2 segment concatenated (`cat old.bin
/// new.bin`) read as two attacks.
#[test]
fn version_1_and_2_files_concatenate() {
    let mut bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/loadlab_v1.bin"
    ))
    .unwrap();
    let (v2, samples, _) = v2_file();
    bytes.extend(v2);
    let (recs, warnings) = read_all(bytes);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(recs.len(), 200 + samples.len());
    assert_eq!(&*recs[199].attack, "v1");
    assert_eq!(&*recs[200].attack, "v2");
    assert_eq!(recs[200].tag("endpoint"), Some("list"));
}
