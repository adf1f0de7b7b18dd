//! Replay logs: whatever the text, each format reads it or refuses it line
//! by line, never a panic; and the schedule made of the records (reorder
//! window, spread, window, speed, loop, strict) as a table.

use std::io::Cursor;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use loadlab_engine::Timed;
use loadlab_engine::replay::{
    Item, LogFormat, Opener, Replay, ReplayFormat, ReplayOptions, ReplayStats, SharedStats,
};
use proptest::prelude::*;

fn formats() -> Vec<ReplayFormat> {
    vec![
        ReplayFormat::parse("combined").unwrap(),
        ReplayFormat::parse("common").unwrap(),
        ReplayFormat::parse(
            r#"log:$msec $host "$request" $request_time "$http_cookie" $request_body"#,
        )
        .unwrap(),
        ReplayFormat::Har,
        ReplayFormat::VegetaJson,
        ReplayFormat::Alb,
        ReplayFormat::CloudFront,
    ]
}

fn opener(text: String, format: ReplayFormat) -> Opener {
    Box::new(
        move || Ok(format.source(Box::new(Cursor::new(text.clone().into_bytes())), "fuzz.log")),
    )
}

fn run(text: &str, format: ReplayFormat, opts: ReplayOptions) -> (Vec<Timed>, ReplayStats, bool) {
    let stats: SharedStats = Arc::new(Mutex::new(ReplayStats::default()));
    let mut out = Vec::new();
    let mut failed = false;
    for t in Replay::new(opts, opener(text.to_string(), format), stats.clone()).take(100_000) {
        match t {
            Ok(t) => out.push(t),
            Err(_) => failed = true,
        }
    }
    let s = stats.lock().unwrap().clone();
    (out, s, failed)
}

fn opts() -> ReplayOptions {
    let mut o = ReplayOptions::new("fuzz.log");
    o.base = Some("http://127.0.0.1:9".into());
    o
}

/// Lines shaped like access logs, JSON targets and HAR pieces, plus any text.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        r#"[0-9.:a-f]{0,15} - [a-z-]{0,5} \[[0-9]{1,2}/(Jan|Feb|Oct|Foo)/[0-9]{4}:[0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}\] "(GET|POST|get|-) ?[/a-z?=&%\\x0-9]{0,20} ?(HTTP/1.1)?" [0-9]{3} [0-9-]{1,5}( "[^"]{0,10}" "[^"]{0,10}")?"#,
        r#"[0-9]{9,11}\.[0-9]{0,4} [a-z.:]{0,12} "(GET|PUT) [/a-z]{0,8} HTTP/2.0" [0-9.]{0,5} "[^"]{0,8}" .{0,10}"#,
        r#"\{"timestamp":("20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]{0,12}(Z|[+-][0-9:]{0,5})"|[0-9.]{1,12}|null),"method":"(GET|P)","url":"(http://[a-z.]{1,8}|/|)[/a-z]{0,6}","body":"[A-Za-z0-9+/=]{0,8}"\}"#,
        r#"\{"log":\{"entries":\[(\{"startedDateTime":"[0-9T:.Z-]{0,24}","request":\{"method":"GET","url":"[a-z:/.]{0,20}","headers":\[\{"name":"[:a-z]{0,6}","value":"x"\}\]\}\},?){0,3}\]\}\}"#,
        r#"(http|https|h2) 20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]{8,12}Z app/x/1 [0-9.:]{0,12} - [0-9. -]{0,20} "(GET|POST|-) (https?://[a-z.:0-9]{1,10}|)[/a-z]{0,6} HTTP/1.1" "[^"]{0,6}"( [a-z-]{0,4}){0,7}( 20[0-9T:.Z-]{0,24})?"#,
        "(#Fields: date time cs-method x-host-header cs-uri-stem|20[0-9]{2}-[0-9]{2}-[0-9]{2}	[0-9:]{8}	(GET|P|-)	[a-z.]{0,8}	[/a-z%0-9]{0,8})",
        ".{0,60}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn no_format_panics_on_any_text(lines in prop::collection::vec(line(), 0..12)) {
        let text = lines.join("\n");
        for f in formats() {
            let _ = f.source(Box::new(Cursor::new(text.clone().into_bytes())), "fuzz.log").count();
            let (out, stats, _) = run(&text, f, opts());
            prop_assert!(out.len() as u64 <= stats.records);
            prop_assert!(out.windows(2).all(|w| w[0].at <= w[1].at), "offsets never go back");
        }
        loadlab_engine::fuzzing::check_replay(text.as_bytes());
    }

    #[test]
    fn log_format_specs_compile_or_refuse(spec in r#"[$a-z_{} "\[\]]{0,40}"#, line in ".{0,40}") {
        if let Ok(f) = LogFormat::parse(&spec) {
            let _ = f.record(&line);
        }
    }
}

fn combined(sec: u32, path: &str) -> String {
    format!(r#"1.2.3.4 - - [28/Nov/2026:10:00:{sec:02} +0000] "GET {path} HTTP/1.1" 200 5 "-" "t""#)
}

fn ms(t: &Timed) -> u64 {
    t.at.as_millis() as u64
}

#[test]
fn schedule_spreads_sorts_scales_and_loops() {
    let lines = [
        combined(0, "/a"),
        combined(0, "/b"),
        combined(2, "/d"),
        combined(1, "/c"),
        "junk".to_string(),
        combined(0, "/late"),
    ];
    let text = lines.join("\n");
    let f = || ReplayFormat::parse("combined").unwrap();
    // Reorder window of 2: /c is sorted before /d; /late is too far back
    // (read when /c and /d filled the window): it goes right after the
    // record sent before it (/d, whose second it then shares).
    let mut o = opts();
    o.reorder = 2;
    let (out, stats, failed) = run(&text, f(), o.clone());
    assert!(!failed);
    let urls: Vec<&str> = out.iter().map(|t| t.target.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "http://127.0.0.1:9/a",
            "http://127.0.0.1:9/b",
            "http://127.0.0.1:9/c",
            "http://127.0.0.1:9/d",
            "http://127.0.0.1:9/late"
        ]
    );
    assert_eq!(
        out.iter().map(ms).collect::<Vec<_>>(),
        [0, 500, 1000, 2000, 2500]
    );
    assert_eq!(
        (
            stats.records,
            stats.malformed,
            stats.backwards,
            stats.beyond_window
        ),
        (5, 1, 2, 1)
    );
    assert_eq!(
        stats.examples,
        ["fuzz.log:5: the line does not match the log format"]
    );
    // ×4, a window from 1 s, looped twice.
    o.reorder = 100;
    o.speed = 4.0;
    o.window = (Duration::from_secs(1), None);
    o.looped = true;
    let (out, _, _) = run(&text, f(), o.clone());
    let first: Vec<u64> = out
        .iter()
        .take(4)
        .map(|t| t.at.as_micros() as u64)
        .collect();
    // /c at 0, /d at 250 ms; the next pass one mean gap (1 s / 4) later.
    assert_eq!(first, [0, 250_000, 500_000, 750_000]);
    // Strict: the junk line ends the replay with its place.
    o.strict = true;
    o.looped = false;
    let (out, _, failed) = run(&text, f(), o);
    assert!(failed);
    assert!(out.len() < 5);
}

#[test]
fn har_and_json_targets_keep_headers_and_bodies() {
    let har = r#"{"log":{"entries":[
      {"startedDateTime":"2026-11-28T10:00:00.000Z","request":{"method":"POST","url":"https://shop.example.com/login","headers":[{"name":":authority","value":"x"},{"name":"Cookie","value":"s=1"},{"name":"Content-Type","value":"application/json"}],"postData":{"text":"{\"u\":1}"}}},
      {"startedDateTime":"2026-11-28T10:00:00.250Z","request":{"method":"GET","url":"https://shop.example.com/a","headers":[]}}
    ]}}"#;
    assert_eq!(
        ReplayFormat::detect(har.as_bytes()),
        Some(ReplayFormat::Har)
    );
    let mut o = opts();
    o.rewrite.hosts = vec![("shop.example.com".into(), "http://127.0.0.1:9".into())];
    o.rewrite.drop_headers = vec!["cookie".into()];
    let (out, _, _) = run(har, ReplayFormat::Har, o);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].target.url, "http://127.0.0.1:9/login");
    assert_eq!(
        out[0].target.headers,
        [("Content-Type".to_string(), "application/json".to_string())]
    );
    assert_eq!(&out[0].target.body[..], b"{\"u\":1}");
    assert_eq!(ms(&out[1]), 250);
    let json = "{\"timestamp\":1700000000.5,\"method\":\"GET\",\"url\":\"http://127.0.0.1:9/x\"}\n{\"timestamp\":\"2023-11-14T22:13:21Z\",\"method\":\"PUT\",\"url\":\"http://127.0.0.1:9/y\",\"body\":\"aGk=\",\"header\":{\"A\":[\"1\"]}}\n";
    assert_eq!(
        ReplayFormat::detect(json.as_bytes()),
        Some(ReplayFormat::VegetaJson)
    );
    let (out, _, _) = run(json, ReplayFormat::VegetaJson, opts());
    assert_eq!(out.iter().map(ms).collect::<Vec<_>>(), [0, 500]);
    assert_eq!(&out[1].target.body[..], b"hi");
    let empty = r#"{"log":{"entries":[]}}"#;
    let items: Vec<_> = ReplayFormat::Har
        .source(Box::new(Cursor::new(empty.as_bytes().to_vec())), "e.har")
        .collect();
    assert!(
        matches!(&items[..], [Err(e)] if e.to_string().contains("e.har") && e.to_string().contains("no entries"))
    );
    let _ = Item::Malformed(1, String::new());
}

/// However bursty the log, the records read and not yet handed out never
/// exceed the reorder window: a second of 40 requests (spread across it
/// as a group) does not come on top of a full window of 10.
#[test]
fn records_held_never_exceed_the_window() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let mut lines = Vec::new();
    for sec in 0..5 {
        let n = if sec == 2 { 40 } else { 4 };
        lines.extend((0..n).map(|i| combined(sec, &format!("/s{sec}/{i}"))));
    }
    let text = lines.join("\n");
    let read = Arc::new(AtomicUsize::new(0));
    let counted = read.clone();
    let f = ReplayFormat::parse("combined").unwrap();
    let open: Opener = Box::new(move || {
        let counted = counted.clone();
        let src = f.source(
            Box::new(Cursor::new(text.clone().into_bytes())),
            "burst.log",
        );
        Ok(Box::new(src.inspect(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
        })))
    });
    let mut o = opts();
    o.reorder = 10;
    let stats: SharedStats = Arc::new(Mutex::new(ReplayStats::default()));
    let mut given = 0;
    let mut most = 0;
    for t in Replay::new(o, open, stats) {
        t.unwrap();
        given += 1;
        most = most.max(read.load(Ordering::Relaxed) - given);
    }
    assert_eq!(given, 56, "every record handed out");
    assert!(
        most <= 10,
        "{most} records held at once, beyond the window of 10"
    );
}
