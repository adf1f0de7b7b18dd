//! `loadlab k8s render|run`: the manifests read back into k8s-openapi's
//! typed objects (the Kubernetes API schema as Rust types), the fields that
//! matter checked one by one, the workers' command lines run here as local
//! processes, and `k8s run`'s answer when there is no cluster.

use loadlab_testkit::proc::BoundedOutput;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::ConfigMap;
use loadlab_testkit::proc::{PATIENCE, text, wait_bounded, wait_results};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_loadlab")
}

/// Runs loadlab with `args` and `env`, feeding `stdin`, bounded in time.
fn run_env(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn loadlab");
    let mut si = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = si.write_all(&data);
    });
    let out = wait_bounded(child, Duration::from_secs(60));
    writer.join().unwrap();
    out
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_env(args, &[], stdin)
}

/// The YAML documents of a render, each as the typed object and as plain
/// JSON values (to compare with the typed object serialized again).
fn documents(yaml: &str) -> (ConfigMap, Job, serde_json::Value, serde_json::Value) {
    let docs: Vec<&str> = yaml
        .split("\n---\n")
        .map(|d| d.trim_start_matches("---\n"))
        .filter(|d| !d.trim().is_empty())
        .collect();
    assert_eq!(docs.len(), 2, "a ConfigMap and a Job in:\n{yaml}");
    let cm_value: serde_json::Value = serde_norway::from_str(docs[0]).unwrap();
    let job_value: serde_json::Value = serde_norway::from_str(docs[1]).unwrap();
    let cm: ConfigMap = serde_norway::from_str(docs[0]).expect("the first document is a ConfigMap");
    let job: Job = serde_norway::from_str(docs[1]).expect("the second document is a Job");
    (cm, job, cm_value, job_value)
}

#[test]
fn render_output_is_a_config_map_and_an_indexed_job_of_the_api_schema() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, br#"{"hello":"world"}"#).unwrap();
    let bin_body = dir.path().join("body.bin");
    std::fs::write(&bin_body, [0u8, 159, 146, 150, 255]).unwrap();
    let targets = dir.path().join("targets.txt");
    std::fs::write(
        &targets,
        format!(
            "POST http://10.0.0.1:8080/a\nContent-Type: application/json\n@{}\n\nGET http://10.0.0.1:8080/b\n",
            body.display()
        ),
    )
    .unwrap();
    let secret = "s3cr3t-value-never-in-manifests";
    let out = run_env(
        &[
            "k8s",
            "render",
            "--workers",
            "4",
            "--name",
            "spike",
            "--namespace",
            "load",
            "--image",
            "registry.example/loadlab:1",
            "--results",
            "s3://results-bucket/runs",
            "--start-at",
            "2030-01-01T00:00:00Z",
            "--",
            "-rate=10000",
            "-duration=60s",
            &format!("-targets={}", targets.display()),
            "-body",
            bin_body.to_str().unwrap(),
            "-header=X-Run: 7",
        ],
        &[
            ("AWS_SECRET_ACCESS_KEY", secret),
            ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    assert!(
        !yaml.contains(secret) && !yaml.contains("AKIDEXAMPLE"),
        "{yaml}"
    );
    let (cm, job, cm_value, job_value) = documents(&yaml);

    // The typed objects hold every field of the YAML: serialized again they
    // are the same documents (no field unknown to the schema, none lost).
    assert_eq!(serde_json::to_value(&cm).unwrap(), cm_value);
    assert_eq!(serde_json::to_value(&job).unwrap(), job_value);

    // The ConfigMap: the targets with their body line pointing at the mount,
    // the text body in data, the binary one in binaryData.
    assert_eq!(cm.metadata.name.as_deref(), Some("spike-input"));
    assert_eq!(cm.metadata.namespace.as_deref(), Some("load"));
    let data = cm.data.as_ref().unwrap();
    assert_eq!(
        data["targets"],
        "POST http://10.0.0.1:8080/a\nContent-Type: application/json\n@/loadlab/input/body-0\n\nGET http://10.0.0.1:8080/b\n"
    );
    assert_eq!(data["body-0"], r#"{"hello":"world"}"#);
    assert_eq!(
        cm.binary_data.as_ref().unwrap()["body"].0,
        vec![0u8, 159, 146, 150, 255]
    );

    // The Job.
    assert_eq!(job.metadata.name.as_deref(), Some("spike"));
    assert_eq!(job.metadata.namespace.as_deref(), Some("load"));
    let spec = job.spec.as_ref().unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!(spec.parallelism, Some(4));
    assert_eq!(spec.completions, Some(4));
    assert_eq!(spec.backoff_limit_per_index, Some(0));
    assert_eq!(spec.max_failed_indexes, Some(4));
    assert!(spec.active_deadline_seconds.unwrap() > 60);
    let pod = spec.template.spec.as_ref().unwrap();
    assert_eq!(pod.restart_policy.as_deref(), Some("Never"));
    assert_eq!(pod.containers.len(), 1);
    let c = &pod.containers[0];
    assert_eq!(c.image.as_deref(), Some("registry.example/loadlab:1"));
    assert_eq!(c.command.as_deref(), Some(&["loadlab".to_string()][..]));
    assert_eq!(
        c.termination_message_policy.as_deref(),
        Some("FallbackToLogsOnError")
    );
    assert_eq!(pod.automount_service_account_token, Some(false));
    // The "restricted" Pod Security Standard's container fields.
    let sc = c.security_context.as_ref().unwrap();
    assert_eq!(sc.allow_privilege_escalation, Some(false));
    assert_eq!(sc.run_as_non_root, Some(true));
    assert_eq!(
        sc.capabilities.as_ref().unwrap().drop.as_deref(),
        Some(&["ALL".to_string()][..])
    );
    assert_eq!(sc.seccomp_profile.as_ref().unwrap().type_, "RuntimeDefault");
    let args = c.args.as_ref().unwrap();
    assert_eq!(
        &args[..5],
        [
            "attack",
            "-segment=$(JOB_COMPLETION_INDEX)/4",
            "-start-at=2030-01-01T00:00:00Z",
            "-output=s3://results-bucket/runs/spike/worker-$(JOB_COMPLETION_INDEX).bin",
            "-tag=worker=$(JOB_COMPLETION_INDEX)",
        ]
    );
    for a in [
        "-rate=10000",
        "-duration=60s",
        "-targets=/loadlab/input/targets",
        "-body=/loadlab/input/body",
        "-header=X-Run: 7",
    ] {
        assert!(args.contains(&a.to_string()), "{a} in {args:?}");
    }
    // The index: declared from the annotation the Job controller sets.
    let env = c.env.as_ref().unwrap();
    let index = env
        .iter()
        .find(|e| e.name == "JOB_COMPLETION_INDEX")
        .expect("JOB_COMPLETION_INDEX env");
    assert_eq!(
        index
            .value_from
            .as_ref()
            .unwrap()
            .field_ref
            .as_ref()
            .unwrap()
            .field_path,
        "metadata.annotations['batch.kubernetes.io/job-completion-index']"
    );
    // S3 credentials by reference only.
    let from = c.env_from.as_ref().unwrap();
    assert_eq!(from[0].secret_ref.as_ref().unwrap().name, "loadlab-s3");
    assert!(env.iter().all(|e| e.value.as_deref() != Some(secret)));
    // The ConfigMap is mounted where the flags point.
    let mount = &c.volume_mounts.as_ref().unwrap()[0];
    assert_eq!(
        (mount.mount_path.as_str(), mount.read_only),
        ("/loadlab/input", Some(true))
    );
    let vol = pod
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .find(|v| v.name == mount.name)
        .unwrap();
    assert_eq!(vol.config_map.as_ref().unwrap().name, "spike-input");
}

/// The Kubernetes project's own OpenAPI schemas (1.33, the oldest the
/// manifests target, and 1.37), strict (no property the schema does not
/// know), through `kubernetes-validate` from PyPI, which ships them
/// (`.ci/run` installs it). Without it the test says so, and fails under CI.
#[test]
fn rendered_manifests_pass_the_kubernetes_json_schemas_strictly() {
    let exe = std::env::var("KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    if !loadlab_testkit::need::program(
        "rendered_manifests_pass_the_kubernetes_json_schemas_strictly",
        &exe,
        "pip install kubernetes-validate",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("b.bin");
    std::fs::write(&body, [0u8, 255, 1]).unwrap();
    let renders: [&[&str]; 2] = [
        &[
            "k8s",
            "render",
            "--workers=5",
            "--name=schema-s3",
            "--namespace=load",
            "--results=s3://b/p",
            "--s3-endpoint=http://minio:9000",
            "--secret-env=tok",
            "--",
            "-rate=1000",
            "-duration=1m",
            "-body",
            body.to_str().unwrap(),
        ],
        &[
            "k8s",
            "render",
            "--workers=2",
            "--name=schema-pvc",
            "--results=pvc:shared",
            "--",
            "-pace=10s@10,10s@10->100",
        ],
    ];
    for (i, args) in renders.iter().enumerate() {
        let out = run(args, b"GET http://svc:8080/\n");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let file = dir.path().join(format!("m{i}.yaml"));
        std::fs::write(&file, &out.stdout).unwrap();
        for version in ["1.33.0", "1.37.0"] {
            let v = Command::new(&exe)
                .args(["--strict", "-k", version])
                .arg(&file)
                .output_bounded()
                .unwrap();
            let report = format!("{}{}", text(&v.stdout), text(&v.stderr));
            assert!(v.status.success(), "{args:?} against {version}:\n{report}");
            assert!(
                report.contains("passed for resource job/")
                    && report.contains("passed for resource configmap/"),
                "{report}"
            );
        }
    }
}

#[test]
fn render_to_a_volume_mounts_the_claim_and_reads_targets_from_stdin() {
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=3",
            "--name=soak",
            "--results=pvc:shared-results",
            "--start-delay=45s",
            "--",
            "-rate",
            "300",
            "-duration",
            "10m",
        ],
        b"GET http://svc.default:8080/\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (cm, job, _, _) = documents(&text(&out.stdout));
    assert_eq!(
        cm.data.as_ref().unwrap()["targets"],
        "GET http://svc.default:8080/\n"
    );
    let pod = job.spec.as_ref().unwrap().template.spec.clone().unwrap();
    let c = &pod.containers[0];
    let args = c.args.as_ref().unwrap();
    assert!(
        args.contains(&"-output=/results/soak-worker-$(JOB_COMPLETION_INDEX).bin".to_string()),
        "{args:?}"
    );
    assert!(c.env_from.is_none(), "no S3 secret for a volume");
    let claim = pod
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .find_map(|v| v.persistent_volume_claim.clone())
        .expect("a claim volume");
    assert_eq!(claim.claim_name, "shared-results");
    assert!(
        c.volume_mounts
            .as_ref()
            .unwrap()
            .iter()
            .any(|m| m.mount_path == "/results")
    );
    // now + 45 s, in whole seconds.
    let start = args
        .iter()
        .find_map(|a| a.strip_prefix("-start-at="))
        .unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let t = loadlab_metrics_rfc3339_secs(start);
    assert!((now + 40..=now + 50).contains(&t), "{start} vs now {now}");
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ` (days from civil).
fn loadlab_metrics_rfc3339_secs(s: &str) -> i64 {
    let n = |r: std::ops::Range<usize>| s[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    let (y2, m2) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = y2.div_euclid(400);
    let yoe = y2 - era * 400;
    let doy = (153 * m2 + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19)
}

#[test]
fn render_refuses_what_it_cannot_honour_with_one_line_and_its_exit_code() {
    let t = b"GET http://h/\n";
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["k8s", "render", "--workers=2", "--", "-rate=10"],
            2,
            "--results",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--",
                "-output=x.bin",
            ],
            2,
            "-output",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--",
                "-rate=fast",
            ],
            2,
            "attack flags",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=0",
                "--results=s3://b/p",
                "--",
                "-rate=10",
            ],
            2,
            "--workers",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--name=Bad_Name",
            ],
            2,
            "--name",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--s3-secret=Bad_Secret",
            ],
            2,
            "--s3-secret",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--start-at=noon",
            ],
            2,
            "--start-at",
        ),
        (
            &["k8s", "render", "--workers=2", "--results=nfs://x", "--"],
            2,
            "--results",
        ),
        (
            &[
                "k8s",
                "render",
                "--workers=2",
                "--results=s3://b/p",
                "--",
                "-targets=/nonexistent/targets.txt",
            ],
            4,
            "/nonexistent/targets.txt",
        ),
    ];
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=2",
            "--results=s3://b/p",
            "-rate=10",
        ],
        t,
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.starts_with("loadlab: -rate is an attack flag: put the attack's flags after `--`"),
        "{err}"
    );
    for (args, code, needle) in cases {
        let out = run(args, t);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(*code), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}: no partial manifests");
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line: {err}"
        );
        assert!(err.contains(needle), "{args:?}: {needle} in {err}");
    }
}

#[test]
fn targets_larger_than_a_config_map_are_refused() {
    // More than 1 MB of targets on stdin (as from a generator that never
    // ends): refused after reading what a ConfigMap holds, exit 3.
    let line = "GET http://h/0123456789012345678901234567890123456789\n";
    let big = line.repeat(2_000_000 / line.len());
    let out = run(
        &["k8s", "render", "--workers=2", "--results=s3://b/p"],
        big.as_bytes(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("a ConfigMap holds at most about 1 MB"),
        "{err}"
    );
}

#[test]
fn a_start_instant_in_the_past_is_warned_about() {
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=2",
            "--results=s3://b/p",
            "--start-at=1000000000",
        ],
        b"GET http://h/\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: --start-at 2001-09-09T01:46:40Z is in the past"),
        "{err}"
    );
    assert!(text(&out.stdout).contains("-start-at=2001-09-09T01:46:40Z"));
}

#[test]
fn credential_headers_in_the_flags_are_warned_about() {
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=2",
            "--results=s3://b/p",
            "--",
            "-header=Authorization: Bearer abc",
        ],
        b"GET http://h/\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: header Authorization") && err.contains("--secret-env"),
        "{err}"
    );
    // The way round it: the value from a Secret, expanded by the kubelet.
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=2",
            "--results=s3://b/p",
            "--secret-env=api-token",
            "--",
            "-header=Authorization: $(TOKEN)",
        ],
        b"GET http://h/\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let (_, job, _, _) = documents(&text(&out.stdout));
    let c = &job.spec.unwrap().template.spec.unwrap().containers[0];
    assert!(
        c.env_from
            .as_ref()
            .unwrap()
            .iter()
            .any(|e| e.secret_ref.as_ref().is_some_and(|s| s.name == "api-token"))
    );
}

#[test]
fn k8s_run_without_a_cluster_says_so_in_one_line_with_its_own_exit_code() {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(bin());
    cmd.args([
        "k8s",
        "run",
        "--workers=2",
        "--results=s3://b/p",
        "--",
        "-rate=10",
        "-duration=1s",
    ])
    .env("KUBECONFIG", home.path().join("no-such-kubeconfig"))
    .env("HOME", home.path())
    .env_remove("KUBERNETES_SERVICE_HOST")
    .env_remove("KUBERNETES_SERVICE_PORT")
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"GET http://127.0.0.1:1/\n")
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(30));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("loadlab: no Kubernetes cluster configured"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn k8s_run_with_an_unreachable_api_server_says_so_in_one_line() {
    let home = tempfile::tempdir().unwrap();
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let kubeconfig = home.path().join("config");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: tok-0123456789-secret\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n    namespace: loadtest\ncurrent-context: x\n"
        ),
    )
    .unwrap();
    let mut cmd = Command::new(bin());
    cmd.args([
        "k8s",
        "run",
        "--workers=2",
        "--results=s3://b/p",
        "--",
        "-rate=10",
        "-duration=1s",
    ])
    .env("KUBECONFIG", &kubeconfig)
    .env("HOME", home.path())
    .env_remove("KUBERNETES_SERVICE_HOST")
    .env_remove("KUBERNETES_SERVICE_PORT")
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"GET http://127.0.0.1:1/\n")
        .unwrap();
    let out = wait_bounded(child, Duration::from_secs(60));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.starts_with("loadlab: Kubernetes API: cannot apply ConfigMap loadlab-"),
        "{err}"
    );
    assert!(!err.contains("tok-0123456789-secret"), "{err}");
    assert!(out.stdout.is_empty());
}

/// A rendered Job's workers as local processes: the ConfigMap's files in a
/// folder standing for the mount, `$(JOB_COMPLETION_INDEX)` replaced by each
/// index, the results volume a folder. Returns the children and the files
/// they write.
fn local_workers(
    render_args: &[&str],
    targets: &str,
    dir: &std::path::Path,
) -> (Vec<std::process::Child>, Vec<String>) {
    let out = run(render_args, targets.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (cm, job, _, _) = documents(&text(&out.stdout));
    let input = dir.join("input");
    let results = dir.join("results");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::create_dir_all(&results).unwrap();
    for (k, v) in cm.data.unwrap_or_default() {
        std::fs::write(input.join(k), v).unwrap();
    }
    for (k, v) in cm.binary_data.unwrap_or_default() {
        std::fs::write(input.join(k), v.0).unwrap();
    }
    let name = job.metadata.name.clone().unwrap();
    let spec = job.spec.unwrap();
    let n = spec.completions.unwrap() as u32;
    let c = &spec.template.spec.unwrap().containers[0];
    let args = c.args.clone().unwrap();
    let local = |a: &str, i: u32| -> String {
        a.replace("$(JOB_COMPLETION_INDEX)", &i.to_string())
            .replace("/loadlab/input", input.to_str().unwrap())
            .replace("/results", results.to_str().unwrap())
    };
    let children = (0..n)
        .map(|i| {
            Command::new(bin())
                .args(args.iter().map(|a| local(a, i)))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let files = (0..n)
        .map(|i| {
            results
                .join(format!("{name}-worker-{i}.bin"))
                .display()
                .to_string()
        })
        .collect();
    (children, files)
}

fn fast_origin() -> loadlab_origin::OriginHandle {
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

/// A worker killed mid-run (as a node lost): its share shows as missing in
/// the merged report, never silently dropped.
#[test]
fn a_worker_killed_mid_run_shows_as_missing_in_the_merged_report() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let (mut children, files) = local_workers(
        &[
            "k8s",
            "render",
            "--workers=4",
            "--name=killed",
            "--results=pvc:r",
            "--start-delay=2s",
            "--",
            "-rate=400",
            "-duration=6s",
        ],
        &format!("GET {}/x\n", o.url()),
        dir.path(),
    );
    // Kill worker 3 mid-attack: once its file holds its first requests
    // (of its 600).
    wait_results(std::path::Path::new(&files[3]), &[0x03], 20, PATIENCE);
    children[3].kill().unwrap();
    for ch in children {
        let _ = wait_bounded(ch, Duration::from_secs(60));
    }
    let mut args = vec!["report"];
    args.extend(files.iter().map(String::as_str));
    let rep = run(&args, b"");
    let all = format!("{}{}", text(&rep.stdout), text(&rep.stderr));
    assert_eq!(rep.status.code(), Some(0), "{all}");
    assert!(
        all.lines().any(|l| l.contains("missing")),
        "a line with 'missing' in:\n{all}"
    );
}

/// The Job's worker command lines, run here: the ConfigMap's files in a
/// folder standing for the mount, `$(JOB_COMPLETION_INDEX)` replaced by each
/// index, the results volume a folder; then `report` merges the files.
#[test]
fn the_jobs_worker_commands_run_locally_split_the_schedule_and_merge_exactly() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let (children, files) = local_workers(
        &[
            "k8s",
            "render",
            "--workers=4",
            "--name=local",
            "--results=pvc:r",
            "--start-delay=3s",
            "--",
            "-rate=1000",
            "-duration=2s",
        ],
        &format!("GET {}/x\n", o.url()),
        dir.path(),
    );
    for ch in children {
        let out = wait_bounded(ch, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    for f in &files {
        let rep = run(&["report", "-type=json", f], b"");
        let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        let n = json["requests"].as_u64().unwrap();
        assert!((499..=501).contains(&n), "{f}: a quarter of 2000, got {n}");
    }
    let mut args = vec!["report", "-type=json"];
    args.extend(files.iter().map(String::as_str));
    let rep = run(&args, b"");
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(json["requests"].as_u64(), Some(2000));
    assert_eq!(json["success"].as_f64(), Some(1.0));
}

/// A k6 script's workers: `k8s render --workers N -- k6 run [k6 flags]
/// script.js`. The manifests read back into k8s-openapi's types (and
/// serialize to the same documents); the ConfigMap holds the script, the
/// module it imports and the file it `open()`s, mounted at their paths
/// (`items`); pod I runs `loadlab k6 run --execution-segment-index I/N
/// --start-at T --out loadlab=…`. Then the Job's command lines run here
/// (the ConfigMap's items written to a folder standing for the mount): the
/// workers split the script's arrivals and `report` merges them exactly.
#[test]
fn script_workers_render_and_their_commands_run_locally_and_merge() {
    let o = fast_origin();
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join("lib")).unwrap();
    std::fs::create_dir_all(proj.join("data")).unwrap();
    std::fs::write(
        proj.join("main.js"),
        r#"import http from 'k6/http';
import { pick } from './lib/util.js';
const users = open('./data/users.csv').trim().split('\n');
export const options = {
  scenarios: {
    a: { executor: 'constant-arrival-rate', rate: 60, timeUnit: '1s', duration: '2s',
         preAllocatedVUs: 6 },
  },
};
export default function () { http.get(`${__ENV.BASE_URL}/u/${pick(users)}`); }
"#,
    )
    .unwrap();
    std::fs::write(
        proj.join("lib/util.js"),
        "export function pick(a) { return a[Math.floor(Math.random() * a.length)]; }\n",
    )
    .unwrap();
    std::fs::write(proj.join("data/users.csv"), "ann\nbob\n").unwrap();
    let base = format!("BASE_URL={}", o.url());
    let script = proj.join("main.js");
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=3",
            "--name=script",
            "--namespace=load",
            "--results=pvc:r",
            "--start-delay=3s",
            "--",
            "k6",
            "run",
            "-e",
            &base,
            script.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let (cm, job, cm_value, job_value) = documents(&yaml);
    assert_eq!(serde_json::to_value(&cm).unwrap(), cm_value);
    assert_eq!(serde_json::to_value(&job).unwrap(), job_value);
    let spec = job.spec.clone().unwrap();
    assert_eq!(spec.completion_mode.as_deref(), Some("Indexed"));
    assert_eq!((spec.parallelism, spec.completions), (Some(3), Some(3)));
    assert_eq!(spec.backoff_limit_per_index, Some(0));
    let pod = spec.template.spec.unwrap();
    let c = &pod.containers[0];
    let args = c.args.clone().unwrap();
    assert_eq!(
        &args[..6],
        [
            "k6",
            "run",
            "--execution-segment-index=$(JOB_COMPLETION_INDEX)/3",
            &args[3],
            "--out=loadlab=/results/script-worker-$(JOB_COMPLETION_INDEX).bin",
            "--tag=worker=$(JOB_COMPLETION_INDEX)",
        ]
    );
    assert!(args[3].starts_with("--start-at=20"), "{args:?}");
    assert_eq!(args.last().unwrap(), "/loadlab/input/main.js");
    // The three files, each mounted at its path under /loadlab/input.
    let vol = pod
        .volumes
        .as_ref()
        .unwrap()
        .iter()
        .find(|v| v.name == "input")
        .unwrap();
    let items = vol.config_map.as_ref().unwrap().items.clone().unwrap();
    let data = cm.data.clone().unwrap();
    let mut paths: Vec<(String, String)> = items
        .iter()
        .map(|i| (i.path.clone(), data[&i.key].clone()))
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 3, "{paths:?}");
    assert_eq!(paths[0], ("data/users.csv".into(), "ann\nbob\n".into()));
    assert_eq!(paths[1].0, "lib/util.js");
    assert_eq!(paths[2].0, "main.js");
    assert_eq!(data.len(), 3);

    // The pods' commands, here.
    let input = dir.path().join("input");
    let results = dir.path().join("results");
    std::fs::create_dir_all(&results).unwrap();
    for (path, content) in &paths {
        let p = input.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    let children: Vec<_> = (0..3)
        .map(|i| {
            let local = |a: &String| {
                a.replace("$(JOB_COMPLETION_INDEX)", &i.to_string())
                    .replace("/loadlab/input", input.to_str().unwrap())
                    .replace("/results", results.to_str().unwrap())
            };
            Command::new(bin())
                .args(args.iter().map(local))
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for ch in children {
        let out = wait_bounded(ch, Duration::from_secs(60));
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    }
    let files: Vec<String> = (0..3)
        .map(|i| {
            results
                .join(format!("script-worker-{i}.bin"))
                .display()
                .to_string()
        })
        .collect();
    for f in &files {
        let rep = run(&["report", "-type=json", f], b"");
        let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
        assert_eq!(json["requests"].as_u64(), Some(40), "{f}: a third of 120");
    }
    let mut a = vec!["report", "-type=json"];
    a.extend(files.iter().map(String::as_str));
    let rep = run(&a, b"");
    assert_eq!(rep.status.code(), Some(0), "{}", text(&rep.stderr));
    let json: serde_json::Value = serde_json::from_slice(&rep.stdout).unwrap();
    assert_eq!(json["requests"].as_u64(), Some(120));
    let w = &json["workers"][0];
    assert_eq!(
        (w["present"].as_u64(), w["missing"].as_u64()),
        (Some(3), Some(0)),
        "{w}"
    );
    assert_eq!(w["start_spread"].as_u64(), Some(0), "{w}");
    assert_eq!(w["scheduled"].as_u64(), Some(120), "{w}");

    // Flags the renderer owns are refused, naming the reason.
    for bad in [
        &["--execution-segment=0:1/2"][..],
        &["--out", "loadlab=x.lr"],
        &["--start-at=1"],
    ] {
        let mut a = vec![
            "k8s",
            "render",
            "--workers=2",
            "--results=pvc:r",
            "--",
            "k6",
            "run",
        ];
        a.extend_from_slice(bad);
        a.push(script.to_str().unwrap());
        let out = run(&a, b"");
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("not for k8s render"),
            "{}",
            text(&out.stderr)
        );
    }
    // A log flag's value is checked as `loadlab k6 run` checks it.
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=2",
            "--results=pvc:r",
            "--",
            "k6",
            "run",
            "--log-format=jsn",
            script.to_str().unwrap(),
        ],
        b"",
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("in the k6 run flags after --: --log-format \"jsn\""),
        "{err}"
    );
}

/// The script render against the Kubernetes project's JSON schemas, strictly
/// (as the attack renders above; skipped, saying so, without
/// `kubernetes-validate`).
#[test]
fn script_render_passes_the_kubernetes_json_schemas_strictly() {
    let exe = std::env::var("KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    if !loadlab_testkit::need::program(
        "script_render_passes_the_kubernetes_json_schemas_strictly",
        &exe,
        "pip install kubernetes-validate",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    std::fs::write(
        dir.path().join("s.js"),
        "import { f } from './lib/f.js';\nconst d = open('d.bin', 'b');\nexport default function () { f(); }\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("lib/f.js"), "export function f() {}\n").unwrap();
    std::fs::write(dir.path().join("d.bin"), [0u8, 255, 1]).unwrap();
    let script = dir.path().join("s.js");
    let out = run(
        &[
            "k8s",
            "render",
            "--workers=4",
            "--name=schema-k6",
            "--namespace=load",
            "--results=s3://b/p",
            "--",
            "k6",
            "run",
            "-u",
            "8",
            "-d",
            "1m",
            script.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let (cm, job, _, _) = documents(&text(&out.stdout));
    assert_eq!(cm.binary_data.as_ref().unwrap().len(), 1);
    // -d 1m: a deadline past the start, the minute and the graceful stop.
    assert!(job.spec.unwrap().active_deadline_seconds.unwrap() >= 30 + 60 + 30);
    let file = dir.path().join("m.yaml");
    std::fs::write(&file, &out.stdout).unwrap();
    for version in ["1.33.0", "1.37.0"] {
        let v = Command::new(&exe)
            .args(["--strict", "-k", version])
            .arg(&file)
            .output_bounded()
            .unwrap();
        let report = format!("{}{}", text(&v.stdout), text(&v.stderr));
        assert!(v.status.success(), "against {version}:\n{report}");
        assert!(
            report.contains("passed for resource job/")
                && report.contains("passed for resource configmap/"),
            "{report}"
        );
    }
}
