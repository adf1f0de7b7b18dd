//! vegeta's JSON and CSV results: reading lines written from vegeta's
//! documented format, round trips through our encoders, mixed-format merges
//! and clear errors for anything else.

use crate::common;

use std::io::Cursor;
use std::sync::Arc;

use common::{START, realistic, write_file};
use loadlab_core::{ErrorKind, Sample};
use loadlab_metrics::{
    Encoder, Encoding, Format, Metrics, ReadError, Record, format_report_text, open_results,
};

fn read(bytes: &[u8], name: &str) -> (Format, Vec<Record>) {
    let res = open_results(Cursor::new(bytes.to_vec()), name).expect("opens");
    let f = res.format();
    (f, res.map(|r| r.expect("decodes")).collect())
}

const JSON: &str = concat!(
    r#"{"attack":"big","seq":0,"code":200,"timestamp":"2020-02-07T16:20:19.782123456+01:00","latency":2709000,"bytes_out":0,"bytes_in":463428,"error":"","body":"aGVsbG8=","method":"GET","url":"http://localhost:8080/","headers":{"Content-Type":["text/plain"]}}"#,
    "\n",
    r#"{"attack":"big","seq":1,"code":500,"timestamp":"2020-02-07T15:20:19.787Z","latency":1000,"bytes_out":10,"bytes_in":21,"error":"500 Internal Server Error","body":null,"method":"GET","url":"http://localhost:8080/","headers":null}"#,
    "\n\n",
    r#"{"attack":"big","seq":2,"code":0,"timestamp":"2020-02-07T15:20:19.792Z","latency":30000000000,"bytes_out":0,"bytes_in":0,"error":"Get \"http://localhost:8080/\": dial tcp 127.0.0.1:8080: connect: connection refused","body":"","method":"GET","url":"http://localhost:8080/","headers":{}}"#,
    "\n"
);

const CSV: &str = "1581088819782123456,200,2709000,0,463428,,aGVsbG8=,big,0,GET,http://localhost:8080/,Q29udGVudC1UeXBlOiB0ZXh0L3BsYWluDQoNCg==\n\
1581088819787000000,500,1000,10,21,500 Internal Server Error,,big,1,GET,http://localhost:8080/,\n\
1581088819792000000,0,30000000000,0,0,\"Get \"\"http://localhost:8080/\"\": dial tcp 127.0.0.1:8080: connect: connection refused\",,big,2,GET,http://localhost:8080/,\n";

fn check_hand_written(recs: &[Record]) {
    assert_eq!(recs.len(), 3);
    let t0 = 1_581_088_819_782_123_456u64;
    let r = &recs[0];
    assert_eq!(
        (&*r.attack, &*r.method, &*r.url),
        ("big", "GET", "http://localhost:8080/")
    );
    assert_eq!(r.abs_intended_ns(), t0);
    assert_eq!(r.sample.sent_ns, r.sample.intended_ns);
    assert_eq!(r.abs_done_ns(), t0 + 2_709_000);
    assert_eq!(
        (r.sample.status, r.sample.error, r.sample.bytes_in),
        (200, ErrorKind::None, 463_428)
    );
    assert_eq!(r.error_text, None);
    let r = &recs[1];
    assert_eq!(
        (
            r.sample.seq,
            r.sample.status,
            r.sample.bytes_out,
            r.sample.bytes_in
        ),
        (1, 500, 10, 21)
    );
    assert_eq!(r.error_string(), "500 Internal Server Error");
    let r = &recs[2];
    assert_eq!(
        (r.sample.status, r.sample.error),
        (0, ErrorKind::ConnectRefused)
    );
    assert_eq!(r.sample.latency_ns(), 30_000_000_000);
    assert_eq!(
        r.error_string(),
        "Get \"http://localhost:8080/\": dial tcp 127.0.0.1:8080: connect: connection refused"
    );
    // Labels are shared, not copied per record.
    assert!(Arc::ptr_eq(&recs[0].url, &recs[2].url));
}

#[test]
fn reads_hand_written_vegeta_json() {
    let (f, recs) = read(JSON.as_bytes(), "old.json");
    assert_eq!(f, Format::VegetaJson);
    check_hand_written(&recs);
}

#[test]
fn reads_hand_written_vegeta_csv() {
    let (f, recs) = read(CSV.as_bytes(), "old.csv");
    assert_eq!(f, Format::VegetaCsv);
    check_hand_written(&recs);
}

fn sample_records() -> Vec<Record> {
    let samples = realistic(300, 1_000, 21);
    let bytes = write_file(
        "rt, \"quoted\" <name>",
        START,
        &[("GET", "http://h:1/a?x=1&y=2")],
        &samples,
    );
    let mut recs = read(&bytes, "rt.bin").1;
    // Mix in failures of every kind and error statuses.
    for (i, r) in recs.iter_mut().enumerate().filter(|(i, _)| i % 10 == 0) {
        let k = ErrorKind::ALL[(i / 10) % (ErrorKind::ALL.len() - 1) + 1];
        r.sample.status = if i % 20 == 0 { 0 } else { 503 };
        r.sample.error = if r.sample.status == 0 {
            k
        } else {
            ErrorKind::None
        };
    }
    recs
}

fn encode(recs: &[Record], enc: Encoding) -> Vec<u8> {
    let mut e = Encoder::new(Vec::new(), enc);
    for r in recs {
        e.encode(r).unwrap();
    }
    e.finish().unwrap()
}

/// What survives vegeta's encodings: the intended time as timestamp, the
/// corrected latency, status, error, bytes, labels.
fn assert_representable_fields_equal(a: &Record, b: &Record) {
    assert_eq!(a.abs_intended_ns(), b.abs_intended_ns());
    assert_eq!(a.abs_done_ns(), b.abs_done_ns());
    assert_eq!(a.sample.latency_ns(), b.sample.latency_ns());
    assert_eq!(
        (
            a.sample.seq,
            a.sample.status,
            a.sample.error,
            a.sample.bytes_in,
            a.sample.bytes_out
        ),
        (
            b.sample.seq,
            b.sample.status,
            b.sample.error,
            b.sample.bytes_in,
            b.sample.bytes_out
        )
    );
    assert_eq!(
        (&a.attack, &a.method, &a.url),
        (&b.attack, &b.method, &b.url)
    );
    assert_eq!(a.error_string(), b.error_string());
}

#[test]
fn json_and_csv_round_trip() {
    let recs = sample_records();
    for enc in [Encoding::Json, Encoding::Csv] {
        let bytes = encode(&recs, enc);
        let (f, back) = read(&bytes, "rt");
        assert_eq!(
            f,
            if enc == Encoding::Json {
                Format::VegetaJson
            } else {
                Format::VegetaCsv
            }
        );
        assert_eq!(back.len(), recs.len());
        for (a, b) in recs.iter().zip(&back) {
            assert_representable_fields_equal(a, b);
        }
        // And a second trip is byte-identical.
        assert_eq!(encode(&back, enc), bytes, "{enc:?}");
    }
}

#[test]
fn json_encoding_uses_vegeta_field_names_and_order() {
    let recs = sample_records();
    let line = String::from_utf8(encode(&recs[1..2], Encoding::Json)).unwrap();
    let r = &recs[1];
    let want = format!(
        "{{\"attack\":\"rt, \\\"quoted\\\" \\u003cname\\u003e\",\"seq\":{},\"code\":200,\"timestamp\":\"{}\",\"latency\":{},\"bytes_out\":0,\"bytes_in\":100,\"error\":\"\",\"body\":null,\"method\":\"GET\",\"url\":\"http://h:1/a?x=1\\u0026y=2\",\"headers\":null}}\n",
        r.sample.seq,
        loadlab_metrics::timefmt::rfc3339(r.abs_intended_ns().into()),
        r.sample.latency_ns()
    );
    assert_eq!(line, want);
    let v: serde_json::Value = serde_json::from_str(&line).expect("valid JSON");
    assert_eq!(v["url"], "http://h:1/a?x=1&y=2");
    let csv = String::from_utf8(encode(&recs[1..2], Encoding::Csv)).unwrap();
    assert_eq!(
        csv,
        format!(
            "{},200,{},0,100,,,\"rt, \"\"quoted\"\" <name>\",{},GET,http://h:1/a?x=1&y=2,\n",
            r.abs_intended_ns(),
            r.sample.latency_ns(),
            r.sample.seq
        )
    );
}

#[test]
fn merging_files_of_mixed_formats_equals_one_metrics_of_all_records() {
    let recs = sample_records();
    let mut all = Metrics::new();
    for (i, r) in recs.iter().enumerate() {
        // The JSON and CSV files (records 100 on) keep one send instant per
        // request, the one the corrected latency counts from.
        let mut r = r.clone();
        if i >= 100 {
            let t = r.sample.intended_ns.min(r.sample.sent_ns);
            (r.sample.intended_ns, r.sample.sent_ns) = (t, t);
        }
        all.add(&r);
    }
    // Split the same requests across a binary, a JSON and a CSV file.
    let (a, rest) = recs.split_at(100);
    let (b, c) = rest.split_at(100);
    let bin_samples: Vec<Sample> = a.iter().map(|r| r.sample).collect();
    let bin = write_file(
        &a[0].attack,
        START,
        &[("GET", "http://h:1/a?x=1&y=2")],
        &bin_samples,
    );
    let json = encode(b, Encoding::Json);
    let csv = encode(c, Encoding::Csv);
    let mut merged = Metrics::new();
    for (bytes, name) in [(bin, "a.bin"), (json, "b.json"), (csv, "c.csv")] {
        for r in read(&bytes, name).1 {
            merged.add(&r);
        }
    }
    let (sa, sm) = (all.summary(), merged.summary());
    assert_eq!(sa.latencies, sm.latencies);
    assert_eq!(
        (sa.requests, sa.earliest_unix_ns, sa.end_unix_ns),
        (sm.requests, sm.earliest_unix_ns, sm.end_unix_ns)
    );
    assert_eq!(sa.status_codes, sm.status_codes);
    assert_eq!(sa.errors, sm.errors);
    // vegeta files have no separate send time, so only the corrected view is
    // comparable; the vegeta lines of the text report are identical.
    let strip = |t: String| {
        t.lines()
            .filter(|l| !l.starts_with("Uncorrected") && !l.starts_with("Send Lag"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(format_report_text(&all)),
        strip(format_report_text(&merged))
    );
}

#[test]
fn other_files_get_clear_errors() {
    let cases: [(&[u8], &str); 3] = [
        (
            b"GET http://localhost:8080/\nHost: x\n",
            "targets.txt: not a loadlab results file, vegeta gob, JSON or CSV results (starts with \"GET http://localhost:808...\")",
        ),
        (
            &[0x1f, 0x8b, 8, 0, 0, 0],
            "x.gz: not a loadlab results file, vegeta gob, JSON or CSV results (starts with 1f 8b: gzip-compressed data; decompress it first)",
        ),
        (
            &[0x00, 0xff, 0x01, 0x02],
            "bin: not a loadlab results file, vegeta gob, JSON or CSV results (starts with bytes 00 ff 01 02)",
        ),
    ];
    for (bytes, want) in cases {
        let name = want.split(':').next().unwrap();
        let err = open_results(Cursor::new(bytes.to_vec()), name)
            .err()
            .expect("refused");
        assert!(!err.is_io());
        assert_eq!(err.to_string(), want);
    }
}

#[test]
fn malformed_lines_are_named() {
    let bad_json = format!("{}{{\"seq\":1,\"timestamp\":\"yesterday\"}}\n", JSON);
    let res = open_results(Cursor::new(bad_json.into_bytes()), "b.json").unwrap();
    let errs: Vec<ReadError> = res.filter_map(Result::err).collect();
    assert_eq!(errs.len(), 1);
    assert_eq!(
        errs[0].to_string(),
        "b.json: line 5: timestamp \"yesterday\" is not RFC 3339"
    );

    let bad_json = "{\"seq\":1,\n";
    let mut res = open_results(Cursor::new(bad_json.as_bytes().to_vec()), "c.json").unwrap();
    let e = res.next().unwrap().unwrap_err().to_string();
    assert!(
        e.starts_with("c.json: line 1: not a vegeta JSON result"),
        "{e}"
    );

    let bad_csv = format!("{CSV}1,2,3,4,5,6,7,8,9,10,11\n");
    let res = open_results(Cursor::new(bad_csv.into_bytes()), "b.csv").unwrap();
    let errs: Vec<String> = res.filter_map(Result::err).map(|e| e.to_string()).collect();
    assert_eq!(
        errs,
        ["b.csv: line 4: expected 12 vegeta CSV columns, found 11"]
    );

    let bad_csv =
        "1581088819782123456,abc,1,0,0,,,a,0,GET,http://x/,\n1,2,3,4,5,6,7,8,9,10,11,12\n";
    let mut res = open_results(Cursor::new(bad_csv.as_bytes().to_vec()), "c.csv").unwrap();
    assert_eq!(
        res.next().unwrap().unwrap_err().to_string(),
        "c.csv: line 1: column 2 (code): \"abc\" is not a valid number"
    );
}

#[test]
fn empty_input_is_an_empty_stream() {
    let mut res = open_results(Cursor::new(Vec::new()), "empty").unwrap();
    assert_eq!(res.format(), Format::Empty);
    assert!(res.next().is_none());
}

/// Files written by vegeta itself (v12 built from source, a 2 s attack on a
/// loopback server plus one on a closed port): our text report is vegeta's
/// report of the same file, line for line, except the percentiles (vegeta
/// estimates them with a t-digest; ours come from an HdrHistogram).
#[test]
fn real_vegeta_files_report_like_vegeta() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    for name in ["vegeta.json", "vegeta.csv"] {
        let want = std::fs::read_to_string(format!("{dir}/{name}.report.txt")).unwrap();
        let mut m = Metrics::new();
        for r in open_results(std::fs::File::open(format!("{dir}/{name}")).unwrap(), name).unwrap()
        {
            m.add(&r.unwrap());
        }
        let got = format_report_text(&m);
        assert_eq!(got.lines().count(), want.lines().count(), "{got}");
        for (g, w) in got.lines().zip(want.lines()) {
            if w.starts_with("Latencies") {
                let f = |l: &str| {
                    l.split("  ")
                        .last()
                        .unwrap()
                        .split(", ")
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                };
                let (g, w) = (f(g), f(w));
                assert_eq!(
                    (&g[0], &g[1], &g[6]),
                    (&w[0], &w[1], &w[6]),
                    "min, mean, max"
                );
            } else {
                assert_eq!(g, w, "{name}");
            }
        }
    }
}

/// vegeta's default output: a Go gob stream of its `Result`s. Each fixture
/// was written by vegeta (`vegeta attack > x.gob`; the mixed one has named
/// attacks, bodies, headers, 200s, 500s and refused connections), with
/// vegeta's own `encode -to=json` and `report` of it beside it: the records
/// must equal those of vegeta's JSON, and the report vegeta's (percentiles
/// aside: t-digest vs HdrHistogram).
#[test]
fn vegeta_gob_results_read_like_their_json_encoding() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    for (name, n) in [("vegeta.gob", 50), ("vegeta_mixed.gob", 30)] {
        let gob = std::fs::read(format!("{dir}/{name}")).unwrap();
        let json = std::fs::read(format!("{dir}/{name}.json")).unwrap();
        let (f, from_gob) = read(&gob, name);
        assert_eq!(f, Format::VegetaGob);
        let (_, from_json) = read(&json, "x.json");
        assert_eq!(from_gob.len(), n, "{name}");
        assert_eq!(from_gob, from_json, "{name}");
        let mut m = Metrics::new();
        for r in &from_gob {
            m.add(r);
        }
        let want = std::fs::read_to_string(format!("{dir}/{name}.report.txt")).unwrap();
        let got = format_report_text(&m);
        assert_eq!(got.lines().count(), want.lines().count(), "{got}");
        for (g, w) in got.lines().zip(want.lines()) {
            if !w.starts_with("Latencies") {
                assert_eq!(g, w, "{name}");
            }
        }
    }
    let gob = std::fs::read(format!("{dir}/vegeta_mixed.gob")).unwrap();

    // Cut anywhere: the whole results before the cut, and a warning.
    for cut in [gob.len() - 1, gob.len() / 2, 300, 40] {
        let res = open_results(Cursor::new(gob[..cut].to_vec()), "cut.gob");
        let mut res = match res {
            Ok(r) => r,
            Err(e) => panic!("cut at {cut}: {e}"),
        };
        let mut n = 0;
        for r in res.by_ref() {
            r.expect("whole results");
            n += 1;
        }
        assert!(n < 30, "cut at {cut}: {n}");
        assert!(
            res.warnings().iter().any(|w| w.contains("truncated")),
            "cut at {cut}: {:?}",
            res.warnings()
        );
    }
    // A damaged byte anywhere: never a panic; an error names the file and
    // the byte offset of the message.
    let mut errors = 0;
    for at in 0..gob.len() {
        for v in [0x00, 0x7f, 0xff] {
            let mut bad = gob.clone();
            bad[at] = v;
            let Ok(res) = open_results(Cursor::new(bad), "bad.gob") else {
                continue;
            };
            for e in res.filter_map(Result::err) {
                errors += 1;
                assert!(e.to_string().starts_with("bad.gob: byte "), "{e}");
            }
        }
    }
    assert!(errors > 100, "{errors}");
}
