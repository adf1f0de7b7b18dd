//! No credential a script uses lands in `loadlab k6 run`'s outputs: a
//! URL's password (k6's `****:****` in tags and outputs, Go's `***` in
//! error texts), and credential headers of requests and responses in
//! `--http-debug` dumps.

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
        .output()
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
