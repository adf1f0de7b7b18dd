//! Plans whose targets are sysbench tests or k6 scripts: the axis they step
//! along, what each kind accepts, secrets kept out of the plan, hypotheses
//! on the axis, and the equivalent command of a step.

use std::path::Path;
use std::time::Duration;

use loadlab_study::{Plan, WorkloadPlan};

fn parse(yaml: &str, base: &Path) -> Result<Plan, loadlab_study::PlanError> {
    Plan::from_yaml(yaml, "p.yaml", base)
}

const SYSBENCH: &str = "name: db
targets:
  - name: micro
    sysbench: oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=${PATH} --tables=1
  - name: xlarge
    sysbench:
      - oltp_read_only
      - --db-driver=mysql
      - --mysql-host=127.0.0.2
      - --mysql-password=${PATH}
load:
  threads: [1, 4, 8, 16]
  step: 5s
repetitions: 3
hypotheses:
  - xlarge.tps > micro.tps at threads >= 8
";

#[test]
fn a_sysbench_thread_sweep_is_a_plan() {
    // PATH stands in for a password: set everywhere, and unmistakable.
    let secret = std::env::var("PATH").unwrap();
    let p = parse(SYSBENCH, Path::new(".")).unwrap();
    assert_eq!(p.load.axis, "threads");
    assert_eq!(p.load.rates, [1, 4, 8, 16]);
    assert_eq!(p.load.level_label(8), "8 threads");
    let w = p.targets[0].workload.as_ref().unwrap();
    let cmd = w.command("threads", "8", Duration::from_secs(5)).join(" ");
    assert_eq!(
        cmd,
        "loadlab sysbench oltp_read_only --db-driver=mysql --mysql-host=127.0.0.1 --mysql-password=${PATH} --tables=1 --threads=8 --time=5 run"
    );
    assert!(matches!(
        p.targets[1].workload,
        Some(WorkloadPlan::Sysbench { ref args }) if args.len() == 4
    ));
    assert!(p.hypotheses[0].covers_rate(8) && !p.hypotheses[0].covers_rate(4));
    // The stored plan keeps the reference, never the value.
    let stored = serde_json::to_string(&p).unwrap();
    assert!(!stored.contains(&secret), "{stored}");
    assert!(stored.contains("${PATH}"), "{stored}");
}

#[test]
fn a_literal_password_is_refused_where_it_is_written() {
    let yaml = SYSBENCH.replace("${PATH} --tables", "hunter2 --tables");
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert_eq!(e.line, 4, "{e}");
    assert!(e.message.contains("targets[0].sysbench"), "{e}");
    assert!(e.message.contains("--mysql-password=${NAME}"), "{e}");
    assert!(!e.to_string().contains("hunter2"), "{e}");
}

#[test]
fn steps_the_study_sets_are_refused_in_the_target() {
    let yaml = SYSBENCH.replace("--tables=1", "--threads=4");
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert!(
        e.message.contains("\"--threads=4\" is set by the study"),
        "{e}"
    );
}

#[test]
fn each_kind_steps_along_its_own_axes() {
    // An HTTP target cannot step along threads.
    let yaml = SYSBENCH.replace(
        "  - name: xlarge\n    sysbench:\n      - oltp_read_only\n      - --db-driver=mysql\n      - --mysql-host=127.0.0.2\n      - --mysql-password=${PATH}",
        "  - name: web\n    url: http://127.0.0.1:1/",
    );
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert!(
        e.message.contains(
            "target \"web\" cannot step along load.threads: an HTTP target steps along `rates` (or give it a fixed `level`)"
        ),
        "{e}"
    );
    // Two axes at once.
    let yaml = SYSBENCH.replace("  step: 5s", "  rates: [10]\n  step: 5s");
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert!(e.message.contains("one axis"), "{e}");
    // No axis at all.
    let yaml = SYSBENCH.replace("  threads: [1, 4, 8, 16]\n", "");
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert!(e.message.contains("`threads` (a sysbench target)"), "{e}");
    // A hypothesis on another axis.
    let yaml = SYSBENCH.replace("at threads >= 8", "at rate >= 8");
    let e = parse(&yaml, Path::new(".")).unwrap_err();
    assert!(e.message.contains("expected `at threads [OP] N`"), "{e}");
    // sysbench's arrival rate is an axis too.
    let yaml = SYSBENCH
        .replace("  threads: [1, 4, 8, 16]", "  rates: [100, 200]")
        .replace("at threads >= 8", "at rate >= 100");
    let p = parse(&yaml, Path::new(".")).unwrap();
    assert_eq!(p.load.axis, "rate");
    let cmd =
        p.targets[0]
            .workload
            .as_ref()
            .unwrap()
            .command("rate", "200", Duration::from_secs(5));
    assert!(cmd.contains(&"--rate=200".to_string()), "{cmd:?}");
}

#[test]
fn a_script_steps_along_a_list_in_its_env() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("loadtest.k6.js"),
        "export default function () {}\n",
    )
    .unwrap();
    let yaml = "name: pubsub
targets:
  - name: dsps
    script: loadtest.k6.js
    env:
      BASE_URL: http://127.0.0.1:3100
      CHANNELS: [50, 100, 200]
load:
  step: 18s
hypotheses:
  - dsps.p99 < 500ms at CHANNELS <= 100
";
    let p = parse(yaml, dir.path()).unwrap();
    assert_eq!(p.load.axis, "CHANNELS");
    assert_eq!(p.load.rates, [50, 100, 200]);
    assert_eq!(p.load.level_label(100), "CHANNELS=100");
    let w = p.targets[0].workload.as_ref().unwrap();
    let cmd = w.command("CHANNELS", "100", Duration::from_secs(18));
    assert_eq!(
        cmd[..5],
        [
            "loadlab",
            "k6",
            "run",
            "-e",
            "BASE_URL=http://127.0.0.1:3100"
        ]
    );
    assert_eq!(
        cmd[5..],
        [
            "-e".to_string(),
            "CHANNELS=100".to_string(),
            dir.path().join("loadtest.k6.js").display().to_string()
        ]
    );
    // A missing script is named at load.
    let e = parse(&yaml.replace("loadtest.k6.js", "nope.js"), dir.path()).unwrap_err();
    assert!(e.message.contains("targets[0].script: cannot read"), "{e}");
    assert_eq!(e.line, 4, "{e}");
    // Two list variables are two axes.
    let e = parse(
        &yaml.replace("BASE_URL: http://127.0.0.1:3100", "RAMP: [1, 2]"),
        dir.path(),
    )
    .unwrap_err();
    assert!(e.message.contains("only one variable may be a list"), "{e}");
    // `vus` is the other axis of a script.
    let p = parse(
        &yaml
            .replace("      CHANNELS: [50, 100, 200]\n", "")
            .replace("  step: 18s", "  vus: [10, 20]\n  step: 18s")
            .replace("at CHANNELS <= 100", "at vus <= 10"),
        dir.path(),
    )
    .unwrap();
    assert_eq!(p.load.axis, "vus");
    assert_eq!(p.load.level_short(20), "20 VUs");
}
