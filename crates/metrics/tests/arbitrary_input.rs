//! Results files from anywhere (a crash, a full disk, another tool, a typo):
//! `report` and `encode` read what is whole, return errors for the rest, and
//! never panic or loop forever.

mod common;

use std::io::Cursor;

use common::{START, realistic, write_file};
use loadlab_metrics::metrics::Metrics;
use loadlab_metrics::open_results;
use proptest::prelude::*;

/// Reads everything the way `report` does; bounded so that a reader that
/// never ends fails the test instead of hanging it.
fn report_all(bytes: Vec<u8>) -> Result<usize, String> {
    let len = bytes.len();
    let results = match open_results(Cursor::new(bytes), "fuzz.bin") {
        Ok(r) => r,
        Err(e) => return Err(e.to_string()),
    };
    let mut m = Metrics::new();
    let mut n = 0;
    for (i, r) in results.enumerate() {
        assert!(
            i <= len + 16,
            "more items than bytes: the reader does not advance"
        );
        match r {
            Ok(rec) => {
                m.add(&rec);
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
    fn vegeta_json_with_any_values_never_panics(lines in proptest::collection::vec(vegeta_json_line(), 1..20)) {
        let _ = report_all((lines.join("\n") + "\n").into_bytes());
    }

    #[test]
    fn vegeta_csv_with_any_values_never_panics(lines in proptest::collection::vec(vegeta_csv_line(), 1..20)) {
        let _ = report_all((lines.join("\n") + "\n").into_bytes());
    }
}
