//! The binary results file: size per request, exact round trips, truncated
//! and concatenated files, flushing while an attack runs.

mod common;

use std::io::Cursor;
use std::time::Duration;

use common::{Rng, START, realistic, write_file};
use loadlab_core::{AttackInfo, ErrorKind, Sample, Sink, TargetInfo};
use loadlab_metrics::{Format, Record, ResultsReader, ResultsWriter, open_results};

fn read_all(bytes: Vec<u8>) -> (Vec<Record>, Vec<String>) {
    let mut r = ResultsReader::new(Cursor::new(bytes), "test.bin").expect("header");
    let recs: Vec<Record> = r.by_ref().map(|x| x.expect("no error")).collect();
    (recs, r.warnings().to_vec())
}

#[test]
fn typical_request_costs_at_most_32_bytes() {
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
    assert!(per <= 32.0, "{per:.2} bytes per request");
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
        "new.bin: loadlab results format version 9 is newer than this loadlab understands (version 1)"
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
    let mut rec = vec![0x41, 3, 1, 2, 3];
    rec.push(crc8(&rec));
    bytes.splice(end..end, rec);
    let (recs, warnings) = read_all(bytes);
    assert_eq!(recs.len(), 5);
    assert!(warnings.is_empty(), "{warnings:?}");
}
