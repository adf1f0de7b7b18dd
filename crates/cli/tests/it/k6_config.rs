//! k6's configuration file (`--config`, `K6_CONFIG`, the default
//! `~/.config/k6/config.json`): its options under the script's, its `out`
//! under `--out`, and a bad file refused with k6's exit code; side by side
//! with k6 v1.8.1 where it is installed.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::Command;

/// Checks, in the script, of options that come from the file, from the
/// script, and from the script over the file.
const SCRIPT: &str = r#"
import exec from 'k6/execution';
import { check } from 'k6';
export const options = { iterations: 2, tags: { from: 'script' }, thresholds: { checks: ['rate==1'] } };
export default function () {
  const o = exec.test.options;
  check(o, {
    'the file sets userAgent': (o) => o.userAgent === 'cfg-ua',
    'the file sets vus': (o) => o.scenarios.default.vus === 1,
    "the script's iterations replace the file's duration": (o) =>
      o.scenarios.default.iterations === 2 && o.scenarios.default.executor === 'shared-iterations',
    "the script's tags win": (o) => o.tags.from === 'script',
  });
}
"#;

/// The file: options under the script's, a key k6 does not know (ignored
/// without a word), and an output.
fn config(out: &Path) -> String {
    format!(
        r#"{{"vus": 1, "duration": "5s", "userAgent": "cfg-ua", "tags": {{"from": "file"}}, "bogus": 1, "out": ["json={}"]}}"#,
        out.display()
    )
}

fn loadlab() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_loadlab"));
    c.args(["k6", "run", "-q"]);
    c
}

/// Runs `cmd` in `dir` (also its home) with `args` then the script, and
/// `K6_CONFIG` set to `k6_config`; (exit code, stdout, stderr).
fn run(
    mut cmd: Command,
    dir: &Path,
    args: &[&str],
    k6_config: Option<&Path>,
) -> (i32, String, String) {
    cmd.current_dir(dir)
        .args(args)
        .arg("s.js")
        .env_remove("K6_CONFIG")
        .env_remove("K6_OUT")
        .env("HOME", dir)
        .env_remove("XDG_CONFIG_HOME");
    if let Some(f) = k6_config {
        cmd.env("K6_CONFIG", f);
    }
    let o = cmd.output_bounded().expect("run");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Each way of naming the file, under loadlab and (where installed) k6:
/// every check passes, the file's output is written, nothing is said of
/// its unknown key.
#[test]
fn a_config_file_sits_under_the_script_as_in_k6() {
    let k6 = loadlab_testkit::k6::k6_or_skip("a_config_file_sits_under_the_script_as_in_k6");
    for (tool, name) in [(None, "loadlab"), (k6.as_deref(), "k6")] {
        if name == "k6" && tool.is_none() {
            continue;
        }
        for how in ["--config", "K6_CONFIG", "default"] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
            let out = dir.path().join("points.json");
            let file = match how {
                "default" => dir.path().join(".config/k6/config.json"),
                _ => dir.path().join("c.json"),
            };
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(&file, config(&out)).unwrap();
            let cmd = match tool {
                Some(k6) => {
                    let mut c = loadlab_testkit::k6::run_command(k6);
                    c.arg("-q");
                    c
                }
                None => loadlab(),
            };
            let file_arg = file.to_str().unwrap();
            let args: &[&str] = match how {
                "--config" => &["--config", file_arg],
                _ => &[],
            };
            let env = (how == "K6_CONFIG").then_some(file.as_path());
            let (code, stdout, stderr) = run(cmd, dir.path(), args, env);
            let seen = format!("{name} {how}: exit {code}\n{stdout}\n{stderr}");
            assert_eq!(code, 0, "{seen}");
            assert!(stdout.contains("8 out of 8"), "{seen}");
            assert!(!stderr.contains("bogus"), "{seen}");
            let points = std::fs::read_to_string(&out).unwrap_or_default();
            assert!(
                points.contains("\"metric\":\"iterations\""),
                "{name} {how}: the file's out wrote no points"
            );
        }
    }
}

/// `--out` replaces the file's `out`; the file's options still apply.
#[test]
fn out_on_the_command_line_replaces_the_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
    let (from_file, from_flag) = (dir.path().join("f.json"), dir.path().join("o.json"));
    std::fs::write(dir.path().join("c.json"), config(&from_file)).unwrap();
    let flag = format!("json={}", from_flag.display());
    let (code, stdout, stderr) = run(
        loadlab(),
        dir.path(),
        &["--config", "c.json", "--out", &flag],
        None,
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("8 out of 8"), "{stdout}");
    assert!(from_flag.exists() && !from_file.exists());
}

/// A file named but missing, or not JSON: k6's exit code for an invalid
/// configuration (104), one line naming the file (and where in it).
#[test]
fn a_missing_or_broken_config_file_is_refused_as_k6_does() {
    let k6 =
        loadlab_testkit::k6::k6_or_skip("a_missing_or_broken_config_file_is_refused_as_k6_does");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.js"), SCRIPT).unwrap();
    std::fs::write(dir.path().join("bad.json"), "{\"vus\": ").unwrap();
    std::fs::write(dir.path().join("list.json"), "[1, 2]").unwrap();
    for (file, said) in [
        (
            "nope.json",
            "nope.json: cannot read the configuration file: No such file or directory",
        ),
        (
            "bad.json",
            "bad.json:1:8: not a k6 configuration (JSON): EOF while parsing a value",
        ),
        (
            "list.json",
            "list.json: not a k6 configuration: expected a JSON object",
        ),
    ] {
        let (code, stdout, stderr) = run(loadlab(), dir.path(), &["--config", file], None);
        assert_eq!(code, 104, "{file}: {stdout}\n{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{file}: {stderr}");
        assert!(stderr.contains(said), "{file}: {stderr}");
        assert!(!stdout.contains("iterations"), "{file}: {stdout}");
        if let Some(k6) = &k6 {
            let mut c = loadlab_testkit::k6::run_command(k6);
            c.arg("-q");
            let (kcode, kout, kerr) = run(c, dir.path(), &["--config", file], None);
            assert_eq!(kcode, code, "k6 {file}:\n{kout}\n{kerr}");
        }
    }
}
