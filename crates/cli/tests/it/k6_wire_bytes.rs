//! `data_sent` and `data_received` are the bytes on the wire, as k6
//! counts them: over TLS with the handshakes and the records' overhead,
//! over HTTP/2 with its frames. Each tool's totals are checked against
//! what the server's own sockets carried, side by side with k6 v1.8.1,
//! so that a threshold on them holds or fails in both alike.

use loadlab_testkit::https::{CountingHttps, serve};
use loadlab_testkit::proc::text;

use crate::side_by_side::tools;

const SCRIPT: &str = r#"
import http from 'k6/http';
export const options = { iterations: 20, insecureSkipTLSVerify: true };
export default function () {
  http.get(`https://127.0.0.1:${__ENV.PORT}/item`);
}
"#;

/// A run's `data_sent` and `data_received` counts, from its summary export.
fn run_counts(
    tool: &crate::side_by_side::Tool,
    dir: &std::path::Path,
    srv: &CountingHttps,
) -> (u64, u64) {
    let export = dir.join(format!("{}.json", tool.name));
    let (port, summary) = (
        format!("PORT={}", srv.addr.port()),
        format!("--summary-export={}", export.display()),
    );
    let o = tool.run_in(dir, &["-q", "-e", &port, &summary, "s.js"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}: {}",
        tool.name,
        text(&o.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&export).unwrap()).unwrap();
    let count = |m: &str| v["metrics"][m]["count"].as_f64().unwrap() as u64;
    (count("data_sent"), count("data_received"))
}

fn counts_match_the_wire(test: &str, alpn: &[&[u8]]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
    for tool in tools(test) {
        let srv = serve(alpn, 1000);
        let (sent, received) = run_counts(&tool, dir.path(), &srv);
        let (wire_sent, wire_received) = srv.bytes();
        eprintln!(
            "{test} {}: data_sent {sent} (wire {wire_sent}), data_received {received} (wire {wire_received})",
            tool.name
        );
        // What a connection carries after its last request (a TLS
        // close_notify, HTTP/2's GOAWAY) is in no request's count.
        let near = |a: u64, b: u64| a.abs_diff(b) <= (b / 100).max(100);
        assert!(
            near(sent, wire_sent),
            "{}: data_sent {sent}, on the wire {wire_sent}",
            tool.name
        );
        assert!(
            near(received, wire_received),
            "{}: data_received {received}, on the wire {wire_received}",
            tool.name
        );
    }
}

#[test]
fn tls_bytes_are_counted_as_on_the_wire() {
    counts_match_the_wire("tls_bytes_are_counted_as_on_the_wire", &[b"http/1.1"]);
}

#[test]
fn http2_frames_are_counted_as_on_the_wire() {
    counts_match_the_wire(
        "http2_frames_are_counted_as_on_the_wire",
        &[b"h2", b"http/1.1"],
    );
}
