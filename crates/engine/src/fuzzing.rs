//! What the `targets` fuzz target checks (`fuzz/fuzz_targets/targets.rs`),
//! shared with the corpus replay test (`tests/it/fuzz_corpus.rs`) so that a
//! plain `cargo test` keeps the committed corpus green. Not a public API.

use std::io::Cursor;

use base64::Engine as _;
use bytes::Bytes;

use crate::targets::{Target, TargetFormat, TargetReader, check_url, parse_targets, redact_url};

/// Reads `data` as targets in both of vegeta's formats and checks:
/// * no panic; an error names the source;
/// * the reader advances (no more items than lines) and stops after an error;
/// * every target read has an absolute http(s) URL the engine accepts;
/// * targets written back in the same format read back the same (http:
///   method, URL and headers; json: everything, body included).
///
/// Inputs whose http-format `@body` line names a path with a `/` are
/// skipped: the reader would read that file (`@/dev/zero` never ends).
pub fn check_targets(data: &[u8]) {
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    let reads_files = data
        .split(|&b| b == b'\n')
        .any(|l| l.trim_ascii().starts_with(b"@") && l.contains(&b'/'));
    if !reads_files {
        let http = read(data, TargetFormat::Http, lines);
        let mut text = String::new();
        for t in &http {
            write_http(&mut text, t);
        }
        let again = read(text.as_bytes(), TargetFormat::Http, usize::MAX);
        assert_eq!(again.len(), http.len(), "http format written back:\n{text}");
        for (a, b) in http.iter().zip(&again) {
            assert_eq!(
                (&a.method, &a.url, &a.headers),
                (&b.method, &b.url, &b.headers),
                "http format written back:\n{text}"
            );
        }
        let _ = parse_targets(
            Cursor::new(data),
            TargetFormat::Http,
            "fuzz",
            Some(&Bytes::from_static(b"x")),
            &[("A".into(), "b".into())],
        );
    }

    let json = read(data, TargetFormat::Json, lines);
    let mut text = String::new();
    for t in &json {
        write_json(&mut text, t);
    }
    let again = read(text.as_bytes(), TargetFormat::Json, usize::MAX);
    assert_eq!(again, json, "json format written back:\n{text}");
}

/// Every target until the first error (which must name the source).
fn read(data: &[u8], format: TargetFormat, max: usize) -> Vec<Target> {
    let mut out = Vec::new();
    let mut n = 0;
    for t in TargetReader::new(Cursor::new(data), format, "fuzz") {
        n += 1;
        assert!(
            n <= max,
            "more items than lines: the reader does not advance"
        );
        match t {
            Ok(t) => {
                assert!(check_url(&t.url).is_ok(), "{:?} was accepted", t.url);
                let _ = redact_url(&t.url);
                out.push(t);
            }
            Err(e) => {
                assert!(e.to_string().contains("fuzz"), "{e}");
                // An error ends the stream: the iterator yields nothing more.
                break;
            }
        }
    }
    out
}

fn write_http(out: &mut String, t: &Target) {
    out.push_str(t.method.as_str());
    out.push(' ');
    out.push_str(&t.url);
    out.push('\n');
    for (k, v) in &t.headers {
        out.push_str(k);
        out.push_str(": ");
        out.push_str(v);
        out.push('\n');
    }
    out.push('\n');
}

fn write_json(out: &mut String, t: &Target) {
    let mut header = serde_json::Map::new();
    for (k, v) in &t.headers {
        header
            .entry(k.clone())
            .or_insert_with(|| serde_json::Value::Array(Vec::new()))
            .as_array_mut()
            .expect("an array")
            .push(serde_json::Value::String(v.clone()));
    }
    let mut obj = serde_json::Map::new();
    obj.insert("method".into(), t.method.as_str().into());
    obj.insert("url".into(), t.url.clone().into());
    if !t.body.is_empty() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(&t.body);
        obj.insert("body".into(), b64.into());
    }
    if !header.is_empty() {
        obj.insert("header".into(), serde_json::Value::Object(header));
    }
    out.push_str(&serde_json::Value::Object(obj).to_string());
    out.push('\n');
}

/// Reads `data` as a replay log in every format (combined, common, a custom
/// `log_format`, HAR, vegeta JSON with timestamps, ALB, CloudFront) and checks:
/// * no panic; errors name the log;
/// * no more records than lines (HAR: than the document's bytes), and
///   every record read is sent unless an error ends the replay;
/// * the schedule's offsets never go back, and every target has a URL the
///   engine accepts;
/// * with `strict`, a malformed line ends the replay.
pub fn check_replay(data: &[u8]) {
    use std::sync::{Arc, Mutex};

    use crate::replay::{Replay, ReplayFormat, ReplayOptions, ReplayStats};

    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    let custom = r#"log:$msec $scheme $host "$request" $request_time "$http_cookie" $request_body"#;
    for f in [
        "combined",
        "common",
        custom,
        "har",
        "json",
        "alb",
        "cloudfront",
    ] {
        let format = ReplayFormat::parse(f).expect("a known format");
        for strict in [false, true] {
            let mut opts = ReplayOptions::new("fuzz.log");
            opts.base = Some("http://127.0.0.1:9".into());
            opts.strict = strict;
            opts.reorder = 4;
            let stats = Arc::new(Mutex::new(ReplayStats::default()));
            let doc = data.to_vec();
            let fmt = format.clone();
            let open =
                Box::new(move || Ok(fmt.source(Box::new(Cursor::new(doc.clone())), "fuzz.log")));
            let mut last = std::time::Duration::ZERO;
            let (mut n, mut failed) = (0, false);
            for t in Replay::new(opts, open, stats.clone()).take(lines.max(data.len()) + 1) {
                match t {
                    Ok(t) => {
                        assert!(t.at >= last, "offsets never go back");
                        last = t.at;
                        check_url(&t.target.url).expect("a URL the engine accepts");
                        n += 1;
                    }
                    Err(e) => {
                        assert!(e.to_string().contains("fuzz.log"), "{e}");
                        failed = true;
                    }
                }
            }
            let s = stats.lock().expect("stats").clone();
            // An error ends the replay: records still in the window stay unsent.
            if !failed {
                assert_eq!(n, s.records, "every record read is sent");
            }
            if strict {
                assert_eq!(s.malformed, 0, "strict stops at the first malformed line");
            }
            assert!(n as usize <= lines.max(data.len()));
        }
    }
    let _ = ReplayFormat::detect(data);
}
