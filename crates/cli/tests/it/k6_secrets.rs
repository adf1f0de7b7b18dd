//! No credential a script uses lands in `loadlab k6 run`'s outputs: a
//! URL's password (k6's `****:****` in tags and outputs, Go's `***` in
//! error texts), and credential headers of requests and responses in
//! `--http-debug` dumps.

use loadlab_testkit::proc::BoundedOutput;
use std::process::Command;

use loadlab_origin::{OriginConfig, parse_recipes, spawn};

const PASSWORD: &str = "s3cret-url-pw";
const TOKEN: &str = "s3cret-auth-token";
const COOKIE: &str = "s3cret-session-cookie";

#[test]
fn no_secret_of_the_script_reaches_an_output_or_a_log_line() {
    let recipes = parse_recipes(&format!(
        r#"{{"route":"/*","body":"ok","headers":{{"Set-Cookie":"sid={COOKIE}; Path=/"}},"stages":[{{"at":0,"status":200,"latency":"0ms"}}]}}"#
    ))
    .expect("recipe");
    let origin = spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes,
            workers: Some(1),
            ..Default::default()
        },
    )
    .expect("origin");
    let port = origin.addr.port();
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "import http from 'k6/http';\n\
         export const options = {{ iterations: 2 }};\n\
         export default function () {{\n\
           http.get('http://user:{PASSWORD}@127.0.0.1:{port}/a', {{ headers: {{ 'X-Auth-Token': '{TOKEN}' }} }});\n\
           http.get('http://user:{PASSWORD}@127.0.0.1:9/down');\n\
         }}\n"
    );
    std::fs::write(dir.path().join("s.js"), script).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run", "--http-debug=full", "--out", "json=o.json"])
        .args(["--out", "csv=o.csv", "--out", "loadlab=o.bin", "s.js"])
        .output_bounded()
        .expect("run loadlab");
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Set-Cookie: REDACTED"),
        "the response is dumped: {err}"
    );
    assert!(err.contains("X-Auth-Token: REDACTED"), "{err}");
    assert!(
        err.contains("user:***@127.0.0.1:9"),
        "Go's form in errors: {err}"
    );
    let json = std::fs::read_to_string(dir.path().join("o.json")).unwrap();
    assert!(
        json.contains("http://****:****@127.0.0.1:"),
        "k6's form in tags"
    );
    let mut all = vec![out.to_string(), err.to_string(), json];
    all.push(std::fs::read_to_string(dir.path().join("o.csv")).unwrap());
    all.push(String::from_utf8_lossy(&std::fs::read(dir.path().join("o.bin")).unwrap()).into());
    for (i, text) in all.iter().enumerate() {
        for secret in [PASSWORD, TOKEN, COOKIE] {
            assert!(!text.contains(secret), "output {i} holds {secret}");
        }
    }
}

/// `k6/secrets` with `--secret-source`, side by side with k6: the values
/// reach the script, every log line after shows `***SECRET_REDACTED***`
/// instead (console lines and the console file alike), and the same
/// errors reject the promises.
#[test]
fn k6_secrets_reads_sources_and_redacts_as_k6() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.file"),
        "cool=s3cret-one\nelse=s3cret-two\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("s.js"),
        "import secrets from 'k6/secrets';\n\
         export const options = { iterations: 1 };\n\
         export default async () => {\n\
           const a = await secrets.get('cool');\n\
           console.log(`a=${a} len=${a.length}`);\n\
           console.log(`b=${await secrets.source('mine').get('else')}`);\n\
           try { await secrets.get('nope'); } catch (e) { console.log(`err: ${e}`); }\n\
           try { await secrets.source('other').get('cool'); } catch (e) { console.log(`err: ${e}`); }\n\
           console.warn(a.split('').join('-'));\n\
         };\n",
    )
    .unwrap();
    let flags = [
        "--secret-source=file=name=mine,filename=s.file",
        "-q",
        "--log-format=json",
    ];
    let lines = |o: &std::process::Output| -> Vec<String> {
        let err = String::from_utf8_lossy(&o.stderr);
        err.lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| v["source"] == "console")
            .map(|v| format!("{} {}", v["level"], v["msg"]))
            .collect()
    };
    let ours = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run"])
        .args(flags)
        .arg("s.js")
        .output_bounded()
        .expect("run loadlab");
    assert_eq!(
        ours.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    let got = lines(&ours);
    assert_eq!(
        got,
        [
            "\"info\" \"a=***SECRET_REDACTED*** len=10\"",
            "\"info\" \"b=***SECRET_REDACTED***\"",
            "\"info\" \"err: no value\"",
            "\"info\" \"err: no secret source with name \\\"other\\\" is configured\"",
            "\"warning\" \"s-3-c-r-e-t---o-n-e\"",
        ],
        "{}",
        String::from_utf8_lossy(&ours.stderr)
    );
    // A bad source is refused before any load, in k6's words.
    let bad = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .current_dir(dir.path())
        .args(["k6", "run", "--secret-source=file=missing.file", "s.js"])
        .output_bounded()
        .expect("run loadlab");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--secret-source: open missing.file: no such file or directory"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    let Some(k6) = loadlab_testkit::k6::k6_or_skip("k6_secrets_reads_sources_and_redacts_as_k6")
    else {
        return;
    };
    let theirs = loadlab_testkit::k6::run_command(&k6)
        .current_dir(dir.path())
        .args(flags)
        .arg("s.js")
        .output_bounded()
        .expect("run k6");
    assert_eq!(theirs.status.code(), Some(0));
    assert_eq!(got, lines(&theirs), "k6 and loadlab log the same lines");
}
