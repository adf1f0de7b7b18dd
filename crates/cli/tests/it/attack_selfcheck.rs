//! The generator's self-check in `loadlab report`: a run where the client
//! could not keep its schedule says so (one that kept it says nothing: a
//! unit test of `loadlab_metrics::selfcheck`, free of the machine's load).

use loadlab_testkit::proc::BoundedOutput;
use std::io::Write;
use std::process::{Command, Stdio};

use loadlab_origin::{OriginConfig, parse_recipes, spawn};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

fn attack_then_report(url: &str, args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.bin");
    let mut a = Command::new(BIN)
        .arg("attack")
        .args(args)
        .arg(format!("-output={}", file.display()))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(a.stdin.take().unwrap(), "GET {url}").unwrap();
    assert!(a.wait().unwrap().success());
    let r = Command::new(BIN)
        .arg("report")
        .arg(&file)
        .output_bounded()
        .unwrap();
    assert!(r.status.success());
    String::from_utf8_lossy(&r.stdout).into_owned()
}

#[test]
fn a_generator_that_fell_behind_is_named_in_the_report() {
    let recipes = parse_recipes(
        r#"{"route":"/*","body":"ok","stages":[{"at":0,"status":200,"latency":"200ms"}]}"#,
    )
    .unwrap();
    let slow = spawn(
        "127.0.0.1:0".parse().unwrap(),
        OriginConfig {
            recipes,
            ..Default::default()
        },
    )
    .unwrap();
    // One connection for 50 requests/s to a 200 ms route: at most five a
    // second can be sent, so most are never sent.
    let text = attack_then_report(
        &format!("{}/x", slow.url()),
        &[
            "-rate=50",
            "-duration=2s",
            "-workers=1",
            "-max-workers=1",
            "-max-connections=1",
        ],
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("Generator"))
        .unwrap_or_else(|| panic!("no self-check line: {text}"));
    assert!(
        line.contains("the generator fell behind (send lag p99 "),
        "{line}"
    );
    assert!(
        line.contains("never sent") && line.contains("lower -rate"),
        "{line}"
    );
}
