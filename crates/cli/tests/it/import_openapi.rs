//! `loadlab import openapi`: a petstore-like document converted to a plan
//! and a targets file, run against a small server that implements it and
//! checks every request; bad documents refused with where and why.

use loadlab_testkit::proc::BoundedOutput;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::Command;
use std::sync::{Arc, Mutex};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");
const SPEC: &str = include_str!("openapi_petstore.yaml");

type Counts = Arc<Mutex<HashMap<String, (u64, u64)>>>;

/// The operation a request is, and whether it is valid for it.
fn judge(method: &str, target: &str, headers: &[String], body: &[u8]) -> (String, bool) {
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let seg: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    let has_query = |k: &str| query.split('&').any(|kv| kv.starts_with(&format!("{k}=")));
    match (method, seg.as_slice()) {
        ("GET", ["pets"]) => (
            "listPets".into(),
            has_query("limit") && headers.iter().any(|h| h.starts_with("x-request-id:")),
        ),
        ("POST", ["pets"]) => {
            let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
            let ok =
                v["name"].as_str().is_some_and(|n| n.len() >= 2) && v["birth"].as_str().is_some();
            ("createPet".into(), ok)
        }
        ("GET", ["pets", id]) => ("getPet".into(), id.parse::<u64>().is_ok()),
        ("DELETE", ["pets", id]) => ("deletePet".into(), id.parse::<u64>().is_ok()),
        ("GET", ["stores", id, "orders"]) => {
            ("listOrders".into(), id.len() == 36 && has_query("status"))
        }
        _ => (format!("{method} {path}"), false),
    }
}

fn serve_conn(s: TcpStream, counts: Counts) {
    let mut r = BufReader::new(s.try_clone().unwrap());
    let mut w = s;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut headers = Vec::new();
        let mut len = 0usize;
        loop {
            let mut h = String::new();
            if r.read_line(&mut h).unwrap_or(0) == 0 {
                return;
            }
            let h = h.trim_end().to_ascii_lowercase();
            if h.is_empty() {
                break;
            }
            if let Some(v) = h.strip_prefix("content-length:") {
                len = v.trim().parse().unwrap_or(0);
            }
            headers.push(h);
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).is_err() {
            return;
        }
        let (op, ok) = judge(&method, &target, &headers, &body);
        let e = &mut *counts.lock().unwrap();
        let c = e.entry(op).or_default();
        if ok {
            c.0 += 1
        } else {
            c.1 += 1
        }
        let status = if ok { "200 OK" } else { "400 Bad Request" };
        if w.write_all(format!("HTTP/1.1 {status}\r\ncontent-length: 2\r\n\r\n{{}}").as_bytes())
            .is_err()
        {
            return;
        }
    }
}

/// The server on 127.0.0.1:0: its base URL and its per-operation counts
/// of (valid, refused) requests.
fn petstore() -> (String, Counts) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", l.local_addr().unwrap());
    let counts: Counts = Arc::default();
    let c = counts.clone();
    std::thread::spawn(move || {
        for s in l.incoming().flatten() {
            let c = c.clone();
            std::thread::spawn(move || serve_conn(s, c));
        }
    });
    (base, counts)
}

fn loadlab(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output_bounded()
        .unwrap()
}

fn every_operation_valid(counts: &Counts) {
    let c = counts.lock().unwrap();
    for op in ["listPets", "createPet", "getPet", "deletePet", "listOrders"] {
        let (ok, bad) = c.get(op).copied().unwrap_or_default();
        assert!(ok > 0, "{op} got no valid request: {c:?}");
        assert_eq!(bad, 0, "{op} got refused requests: {c:?}");
    }
    assert_eq!(c.len(), 5, "requests to unknown operations: {c:?}");
}

#[test]
fn openapi_plan_study_hits_every_operation_with_2xx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("spec.yaml"), SPEC).unwrap();
    let (base, counts) = petstore();
    let out = loadlab(
        d,
        &[
            "import",
            "openapi",
            "spec.yaml",
            "--to",
            "plan",
            "--base-url",
            &base,
            "-o",
            "api.yaml",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan = std::fs::read_to_string(d.join("api.yaml")).unwrap();
    assert!(plan.contains("weights: [1, 1, 1, 1, 1]"), "{plan}");
    let short = plan
        .replace("rates: [5, 10]", "rates: [40]")
        .replace("step: 30s", "step: 1s")
        .replace("warmup: 2s", "warmup: 100ms");
    std::fs::write(d.join("api.yaml"), short).unwrap();
    let check = loadlab(d, &["study", "--check", "api.yaml"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let run = loadlab(d, &["study", "api.yaml", "--db", "s.db", "--out", "out"]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    every_operation_valid(&counts);
}

#[test]
fn openapi_targets_attack_hits_every_operation_with_2xx() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("spec.yaml"), SPEC).unwrap();
    let (base, counts) = petstore();
    let out = loadlab(
        d,
        &[
            "import",
            "openapi",
            "spec.yaml",
            "--base-url",
            &base,
            "-o",
            "t.txt",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = std::fs::read_to_string(d.join("t.txt")).unwrap();
    let tags: Vec<&str> = t.lines().filter(|l| l.starts_with("# tag: ")).collect();
    assert_eq!(tags, ["# tag: admin", "# tag: pets", "# tag: store"], "{t}");
    let run = loadlab(
        d,
        &[
            "attack",
            "-targets=t.txt",
            "-rate=50",
            "-duration=1s",
            "-output=r.bin",
        ],
    );
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    every_operation_valid(&counts);
}

#[test]
fn bad_openapi_documents_are_refused_with_where_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            SPEC.replace("schemas/Pet'}", "schemas/Pett'}"),
            "spec.yaml: paths./pets/{id}.get.responses.200.content.application/json.schema: unresolved $ref '#/components/schemas/Pett'",
        ),
        (
            "swagger: \"2.0\"\npaths: {}\n".to_string(),
            "spec.yaml: swagger: 2.0: Swagger/OpenAPI 2 is not supported",
        ),
        (
            "openapi: 3.1.0\ninfo: {title: t, version: \"1\"}\npaths: {}\n".to_string(),
            "spec.yaml: paths: no paths",
        ),
    ];
    for (doc, want) in cases {
        std::fs::write(d.join("spec.yaml"), &doc).unwrap();
        let out = loadlab(d, &["import", "openapi", "spec.yaml", "-o", "t.txt"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{err}");
        assert!(err.contains(want), "want {want:?}, got {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
