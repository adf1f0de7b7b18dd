//! Throughput figures (not timing assertions): run with
//! `cargo test --release -p loadlab-metrics --test it -- bench:: --ignored --nocapture`.

use crate::common;

use std::io::BufReader;
use std::time::Instant;

use common::{START, realistic};
use loadlab_core::{AttackInfo, Sink, TargetInfo};
use loadlab_metrics::{
    Encoder, Encoding, Metrics, ResultsWriter, format_report_text, open_results,
};

#[test]
#[ignore]
fn ten_million_records_write_read_report() {
    const N: u64 = 10_000_000;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.bin");
    let samples = realistic(1_000_000, 5_000, 1);

    let t = Instant::now();
    let mut w = ResultsWriter::new(std::fs::File::create(&path).unwrap());
    w.begin(&AttackInfo {
        name: "bench".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    w.register_target(
        0,
        &TargetInfo {
            method: "GET".into(),
            url: "http://127.0.0.1:8080/".into(),
        },
    );
    for round in 0..N / samples.len() as u64 {
        let shift = round * 200_000_000_000;
        for s in &samples {
            let mut s = *s;
            s.seq += round * samples.len() as u64;
            s.intended_ns += shift;
            s.sent_ns += shift;
            s.first_byte_ns += shift;
            s.done_ns += shift;
            w.record(&s);
        }
    }
    w.finish().unwrap();
    let write = t.elapsed();
    let size = std::fs::metadata(&path).unwrap().len();

    let t = Instant::now();
    let res = open_results(std::fs::File::open(&path).unwrap(), "big.bin").unwrap();
    let mut n = 0u64;
    for r in res {
        let _ = r.unwrap();
        n += 1;
    }
    let read_only = t.elapsed();

    let t = Instant::now();
    let mut m = Metrics::new();
    for r in open_results(std::fs::File::open(&path).unwrap(), "big.bin").unwrap() {
        m.add(&r.unwrap());
    }
    let report = format_report_text(&m);
    let read_report = t.elapsed();

    let t = Instant::now();
    let json_path = dir.path().join("big.json");
    let mut e = Encoder::new(
        std::io::BufWriter::new(std::fs::File::create(&json_path).unwrap()),
        Encoding::Json,
    );
    for r in open_results(std::fs::File::open(&path).unwrap(), "big.bin")
        .unwrap()
        .take(1_000_000)
    {
        e.encode(&r.unwrap()).unwrap();
    }
    e.finish().unwrap();
    let encode_1m = t.elapsed();
    let json_size = std::fs::metadata(&json_path).unwrap().len();
    let t = Instant::now();
    let mut m2 = Metrics::new();
    for r in open_results(
        BufReader::new(std::fs::File::open(&json_path).unwrap()),
        "big.json",
    )
    .unwrap()
    {
        m2.add(&r.unwrap());
    }
    let json_read_1m = t.elapsed();

    let t = Instant::now();
    let mut w = ResultsWriter::new(std::io::sink());
    w.begin(&AttackInfo {
        name: "bench".into(),
        start_unix_ns: START,
        ..Default::default()
    });
    for _ in 0..10 {
        for s in &samples {
            w.record(s);
        }
    }
    w.finish().unwrap();
    let encode_only = t.elapsed();

    assert_eq!(n, N);
    println!("{report}");
    println!(
        "write {N} samples:        {write:?} ({:.0} ns/sample)",
        write.as_nanos() as f64 / N as f64
    );
    println!(
        "file size:                {size} bytes ({:.2} B/request)",
        size as f64 / N as f64
    );
    println!(
        "encode only (io::sink):   {:.0} ns/sample",
        encode_only.as_nanos() as f64 / N as f64
    );
    println!("read {N} records:         {read_only:?}");
    println!("read + metrics + report:  {read_report:?}");
    println!(
        "encode 1M to vegeta JSON: {encode_1m:?} ({:.0} B/request)",
        json_size as f64 / 1e6
    );
    println!("read 1M vegeta JSON + metrics: {json_read_1m:?}");
}
