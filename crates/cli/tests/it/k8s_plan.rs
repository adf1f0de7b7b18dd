//! `loadlab k8s render --workers N PLAN.yaml`: a split study as an Indexed
//! Job. The manifests read back into k8s-openapi's typed objects and
//! validated against the Kubernetes JSON schemas; the Job's worker
//! commands run here as local processes against `loadlab origin` on
//! loopback, their stores kept on a folder standing for the volume, or
//! uploaded to a local S3 server (moto) and merged by `k8s gather`.

use loadlab_testkit::proc::BoundedOutput;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ConfigMap;
use loadlab_study::Store;
use loadlab_testkit::moto::Moto;
use loadlab_testkit::proc::{text, unix_now, wait_bounded};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

fn run(args: &[&str]) -> Output {
    let child = Command::new(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_bounded(child, Duration::from_secs(60))
}

fn documents(yaml: &str) -> (ConfigMap, Job, serde_json::Value, serde_json::Value) {
    let docs: Vec<&str> = yaml
        .split("\n---\n")
        .map(|d| d.trim_start_matches("---\n"))
        .filter(|d| !d.trim().is_empty())
        .collect();
    assert_eq!(docs.len(), 2, "a ConfigMap and a Job in:\n{yaml}");
    let cm_value: serde_json::Value = serde_norway::from_str(docs[0]).unwrap();
    let job_value: serde_json::Value = serde_norway::from_str(docs[1]).unwrap();
    let cm: ConfigMap = serde_norway::from_str(docs[0]).expect("a ConfigMap");
    let job: Job = serde_norway::from_str(docs[1]).expect("a Job");
    (cm, job, cm_value, job_value)
}

/// A plan with a targets file and a body beside it, in `dir`.
fn write_plan(dir: &Path, url: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("data/t.txt"),
        format!("POST {url}/b\nContent-Type: application/json\n@body.json\n"),
    )
    .unwrap();
    std::fs::write(dir.join("data/body.json"), "{\"n\": 1}\n").unwrap();
    let p = dir.join("plan.yaml");
    std::fs::write(
        &p,
        format!(
            "name: split-k8s
targets:
  - {{name: a, url: \"{url}/a\"}}
  - {{name: b, targets_file: data/t.txt}}
load: {{rates: [200, 400], step: 1s, max_workers: 40}}
"
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_plan_renders_as_a_config_map_and_an_indexed_job_of_the_api_schema() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), "http://svc:8080");
    let out = run(&[
        "k8s",
        "render",
        "--workers=3",
        "--name=study-1",
        "--namespace=load",
        "--results=s3://b/runs",
        "--start-at=2030-01-01T00:00:00Z",
        "--step-slack=3s",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let (cm, job, cm_value, job_value) = documents(&yaml);
    // Nothing the schema does not know, nothing lost.
    assert_eq!(serde_json::to_value(&cm).unwrap(), cm_value);
    assert_eq!(serde_json::to_value(&job).unwrap(), job_value);
    let data = cm.data.unwrap();
    assert_eq!(
        data.keys().collect::<Vec<_>>(),
        ["f0-plan.yaml", "f1-t.txt", "f2-body.json"]
    );
    assert!(data["f0-plan.yaml"].contains("targets_file: data/t.txt"));
    assert_eq!(data["f2-body.json"], "{\"n\": 1}\n");
    let spec = job.spec.unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!((spec.completions, spec.parallelism), (Some(3), Some(3)));
    assert_eq!(spec.backoff_limit_per_index, Some(0));
    // 4 runs (2 rates × 2 targets) of 1 s + 3 s slack, + 300 s.
    let until_start = 1_893_456_000
        - std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs() as i64;
    let deadline = spec.active_deadline_seconds.unwrap();
    assert!(
        (deadline - until_start - 16 - 300).abs() <= 2,
        "{deadline} vs {until_start}"
    );
    let pod = spec.template.spec.unwrap();
    let c = &pod.containers[0];
    assert_eq!(
        c.args.as_ref().unwrap(),
        &[
            "study",
            "/loadlab/input/plan.yaml",
            "--segment=$(JOB_COMPLETION_INDEX)/3",
            "--start-at=2030-01-01T00:00:00Z",
            "--step-slack=3000ms",
            "--db=s3://b/runs/study-1/worker-$(JOB_COMPLETION_INDEX).db",
            "--out=/loadlab/scratch/report",
        ]
    );
    let env = c.env.as_ref().unwrap();
    assert!(env.iter().any(|e| e.name == "JOB_COMPLETION_INDEX"));
    assert!(
        env.iter()
            .any(|e| e.name == "TMPDIR" && e.value.as_deref() == Some("/loadlab/scratch"))
    );
    let vols = pod.volumes.unwrap();
    let items: Vec<(String, String)> = vols[0]
        .config_map
        .as_ref()
        .unwrap()
        .items
        .as_ref()
        .unwrap()
        .iter()
        .map(|i| (i.key.clone(), i.path.clone()))
        .collect();
    assert_eq!(
        items,
        [
            ("f0-plan.yaml".to_string(), "plan.yaml".to_string()),
            ("f1-t.txt".into(), "data/t.txt".into()),
            ("f2-body.json".into(), "data/body.json".into()),
        ]
    );
    assert!(
        vols.iter()
            .any(|v| v.name == "scratch" && v.empty_dir.is_some())
    );
    assert!(
        c.volume_mounts
            .as_ref()
            .unwrap()
            .iter()
            .any(|m| m.name == "scratch" && m.mount_path == "/loadlab/scratch")
    );

    // The Kubernetes project's JSON schemas, strict, as for the attack mode.
    let exe = std::env::var("KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    if !loadlab_testkit::need::program(
        "a_plan_renders_as_a_config_map_and_an_indexed_job_of_the_api_schema",
        &exe,
        "pip install kubernetes-validate",
    ) {
        return;
    }
    let file = dir.path().join("m.yaml");
    std::fs::write(&file, yaml).unwrap();
    for version in ["1.33.0", "1.37.0"] {
        let v = Command::new(&exe)
            .args(["--strict", "-k", version])
            .arg(&file)
            .output_bounded()
            .unwrap();
        let report = format!("{}{}", text(&v.stdout), text(&v.stderr));
        assert!(v.status.success(), "{version}:\n{report}");
        assert!(
            report.contains("passed for resource job/study-1")
                && report.contains("passed for resource configmap/study-1-input"),
            "{report}"
        );
    }
}

#[test]
fn plans_that_cannot_be_split_or_mounted_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("plans");
    let plan = write_plan(&d, "http://svc:8080");
    let base = std::fs::read_to_string(&plan).unwrap();
    std::fs::write(dir.path().join("outside.txt"), "GET http://svc/\n").unwrap();
    let cases: &[(&str, &str, i32)] = &[
        (
            "slo: {p99: 10ms}\nceiling: {resolution: 10}\n",
            "`ceiling`: each probe's rate depends on the merged outcome",
            3,
        ),
        ("", "the plan names ../outside.txt, outside its folder", 2),
    ];
    for (extra, want, code) in cases {
        let text_ = if extra.is_empty() {
            base.replace("data/t.txt", "../outside.txt")
        } else {
            format!("{base}{extra}")
        };
        std::fs::write(&plan, text_).unwrap();
        let out = run(&[
            "k8s",
            "render",
            "--workers=2",
            "--results=s3://b/p",
            plan.to_str().unwrap(),
        ]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{extra}: {err}");
        assert!(err.contains(want), "{extra}: {err}");
        assert!(out.stdout.is_empty());
    }
    std::fs::write(&plan, &base).unwrap();
    let out = run(&[
        "k8s",
        "render",
        "--workers=2",
        "--results=s3://b/p",
        plan.to_str().unwrap(),
        "--",
        "-rate=10",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // A plan and attack flags: one or the other (clap's one line).
    assert!(
        text(&out.stderr).contains("unexpected argument"),
        "{}",
        text(&out.stderr)
    );
}

fn origin() -> loadlab_origin::OriginHandle {
    loadlab_origin::spawn(
        "127.0.0.1:0".parse().unwrap(),
        loadlab_origin::OriginConfig {
            recipes: loadlab_origin::parse_recipes(
                r#"{"route":"/*","body":"ok","stages":[{"at":0,"status":200,"latency":"0ms"}]}"#,
            )
            .unwrap(),
            workers: Some(1),
            ..Default::default()
        },
    )
    .unwrap()
}

/// The rendered Job's workers as local processes: the ConfigMap's files
/// placed as its `items` say in a folder standing for the mount,
/// `$(JOB_COMPLETION_INDEX)` replaced, the volume and scratch folders
/// local. `only`: the indexes to start (the others never ran).
fn local_workers(
    yaml: &str,
    dir: &Path,
    only: &[u32],
    env: &[(String, String)],
) -> (Vec<Child>, String, u32) {
    let (cm, job, _, _) = documents(yaml);
    let input = dir.join("input");
    let results = dir.join("results");
    std::fs::create_dir_all(&results).unwrap();
    let name = job.metadata.name.clone().unwrap();
    let spec = job.spec.unwrap();
    let n = spec.completions.unwrap() as u32;
    let pod = spec.template.spec.unwrap();
    let data = cm.data.unwrap();
    for v in pod.volumes.iter().flatten() {
        for i in v.config_map.iter().flat_map(|c| c.items.iter().flatten()) {
            let to = input.join(&i.path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, &data[&i.key]).unwrap();
        }
    }
    let args = pod.containers[0].args.clone().unwrap();
    let children = only
        .iter()
        .map(|&i| {
            let scratch = dir.join(format!("scratch-{i}"));
            std::fs::create_dir_all(&scratch).unwrap();
            let local = |a: &str| -> String {
                a.replace("$(JOB_COMPLETION_INDEX)", &i.to_string())
                    .replace("/loadlab/input", input.to_str().unwrap())
                    .replace("/loadlab/scratch", scratch.to_str().unwrap())
                    .replace("=/results/", &format!("={}/", results.display()))
            };
            let mut c = Command::new(bin());
            c.args(args.iter().map(|a| local(a)))
                .env("TMPDIR", &scratch)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            for (k, v) in env {
                c.env(k, v);
            }
            c.spawn().unwrap()
        })
        .collect();
    (children, name, n)
}

fn requests_of(db: &Path) -> Vec<(u64, String, u64, u64)> {
    let s = Store::open(db).unwrap();
    let id = s.studies().unwrap().last().unwrap().id;
    let mut r: Vec<(u64, String, u64, u64)> = s
        .runs(id)
        .unwrap()
        .into_iter()
        .map(|r| {
            let w = r.summary.workers.as_ref().map_or(0, |w| w.missing);
            (
                r.rate,
                r.target,
                r.summary.requests + r.summary.warmup_requests + r.summary.unsent,
                w,
            )
        })
        .collect();
    r.sort();
    r
}

/// The Job's worker commands, on a volume: each writes its store there,
/// `study merge` adds them into the whole study.
#[test]
fn the_jobs_study_workers_run_locally_and_merge_exactly() {
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(&dir.path().join("src"), &o.url());
    let out = run(&[
        "k8s",
        "render",
        "--workers=2",
        "--name=local",
        "--results=pvc:r",
        "--start-delay=5s",
        "--step-slack=1s",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (children, name, n) = local_workers(&text(&out.stdout), dir.path(), &[0, 1], &[]);
    assert_eq!(n, 2);
    for ch in children {
        let out = wait_bounded(ch, Duration::from_secs(90));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let stores: Vec<String> = (0..n)
        .map(|i| {
            dir.path()
                .join(format!("results/{name}-worker-{i}.db"))
                .display()
                .to_string()
        })
        .collect();
    let merged = dir.path().join("merged.db");
    let mut args = vec![
        "study",
        "merge",
        "--db",
        merged.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ];
    args.extend(stores.iter().map(String::as_str));
    let m = run(&args);
    assert_eq!(m.status.code(), Some(0), "{}", text(&m.stderr));
    assert_eq!(
        requests_of(&merged),
        vec![
            (200, "a".into(), 200, 0),
            (200, "b".into(), 200, 0),
            (400, "a".into(), 400, 0),
            (400, "b".into(), 400, 0),
        ]
    );
}

/// The Job's start instant, from its workers' `--start-at=`.
fn start_of(yaml: &str) -> f64 {
    let (_, job, _, _) = documents(yaml);
    let args = job.spec.unwrap().template.spec.unwrap().containers[0]
        .args
        .clone()
        .unwrap();
    let at = args
        .iter()
        .find_map(|a| a.strip_prefix("--start-at="))
        .unwrap();
    loadlab_metrics::timefmt::parse_rfc3339(at).unwrap() as f64 / 1e9
}

/// The Job's worker commands with S3: each uploads its store after every
/// run. Worker 2 is killed (SIGKILL, as a lost node) in the third run: the
/// two runs it had committed are in S3 and merged; worker 3 never ran (its
/// pod never came up): `k8s gather` names it, and the merged study says
/// what is missing, by count.
#[test]
fn stores_uploaded_to_s3_are_gathered_and_dead_workers_are_missing() {
    let moto = Moto::start();
    moto.bucket("results");
    let o = origin();
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(&dir.path().join("src"), &o.url());
    let out = run(&[
        "k8s",
        "render",
        "--workers=4",
        "--name=s3study",
        "--results=s3://results/runs",
        "--start-delay=5s",
        "--step-slack=1s",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let at = start_of(&yaml);
    let env = moto.env("not-a-real-secret");
    let (mut children, _, _) = local_workers(&yaml, dir.path(), &[0, 1, 2], &env);
    // Slots of 2 s (1 s step + 1 s slack): run 3 sends from T + 4 s to
    // T + 5 s; run 2 was committed and uploaded at about T + 3 s.
    while unix_now() < at + 4.6 {
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut killed = children.remove(2);
    killed.kill().unwrap();
    let _ = killed.wait();
    for ch in children {
        let out = wait_bounded(ch, Duration::from_secs(90));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("store uploaded to s3://results/runs/s3study/worker-"),
            "{}",
            text(&out.stderr)
        );
    }
    let merged = dir.path().join("merged.db");
    let mut c = Command::new(bin());
    c.args([
        "k8s",
        "gather",
        "--workers=4",
        "--name=s3study",
        "--results=s3://results/runs",
        "--db",
        merged.to_str().unwrap(),
        "--out",
        dir.path().join("report").to_str().unwrap(),
    ]);
    for (k, _) in std::env::vars() {
        if k.starts_with("AWS_") {
            c.env_remove(k);
        }
    }
    for (k, v) in &env {
        c.env(k, v);
    }
    let g = wait_bounded(
        c.stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(60),
    );
    let err = text(&g.stderr);
    assert_eq!(g.status.code(), Some(0), "{err}");
    assert!(
        err.contains(
            "worker 3 uploaded no store (worker-3.db missing under s3://results/runs/s3study/)"
        ),
        "{err}"
    );
    assert!(!err.contains("worker 2 uploaded no store"), "{err}");
    // A quarter of 200 and of 400 requests per missing segment.
    assert!(
        err.contains("50 requests missing: segment 3/4 absent"),
        "{err}"
    );
    assert!(
        err.contains("100 requests missing: segment 2/4 absent"),
        "{err}"
    );
    assert_eq!(
        requests_of(&merged),
        vec![
            (200, "a".into(), 150, 50),
            (200, "b".into(), 150, 50),
            (400, "a".into(), 200, 200),
            (400, "b".into(), 200, 200),
        ]
    );
    let md = std::fs::read_to_string(dir.path().join("report/report.md")).unwrap();
    assert!(md.contains("Merged from 3 of 4 workers"), "{md}");
    assert!(
        md.contains("Missing       200 requests missing of 400 scheduled"),
        "{md}"
    );
}

/// `k8s run … PLAN.yaml` without a cluster: one line, exit 6, as for an
/// attack (the apply-and-follow path itself has no cluster to run on here).
#[test]
fn k8s_run_of_a_plan_without_a_cluster_says_so_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(dir.path(), "http://svc:8080");
    let out = Command::new(bin())
        .args(["k8s", "run", "--workers=2", "--results=s3://b/p"])
        .arg(&plan)
        .env("KUBECONFIG", dir.path().join("no-such-kubeconfig"))
        .env("HOME", dir.path())
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = wait_bounded(out, Duration::from_secs(30));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("loadlab: no Kubernetes cluster configured"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}
