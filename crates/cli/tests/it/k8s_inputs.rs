//! What `loadlab k8s render` puts in its manifests from the user's files:
//! a script's `open()`s only when called in code and inside its folder, a
//! script that compiles (or an error before any pod starts), and a plan's
//! literal credentials in a Secret, never in the ConfigMap.

use loadlab_testkit::proc::BoundedOutput;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use loadlab_testkit::proc::{text, wait_bounded};

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

/// The YAML documents of a render, as text.
fn documents(yaml: &str) -> Vec<String> {
    yaml.split("\n---\n")
        .map(|d| d.trim_start_matches("---\n").to_string())
        .filter(|d| !d.trim().is_empty())
        .collect()
}

fn render_script(dir: &Path, js: &str) -> Output {
    let script = dir.join("main.js");
    std::fs::write(&script, js).unwrap();
    run(&[
        "k8s",
        "render",
        "--workers=2",
        "--name=inputs",
        "--results=pvc:r",
        "--",
        "k6",
        "run",
        "-u",
        "2",
        script.to_str().unwrap(),
    ])
}

/// The one line of an error, as loadlab prints it.
fn one_line(out: &Output) -> String {
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    err.trim_end().to_string()
}

#[test]
fn script_render_packs_only_files_opened_in_code_inside_the_scripts_folder() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join("data")).unwrap();
    std::fs::write(proj.join("data/u.csv"), "ann\n").unwrap();
    std::fs::write(dir.path().join("outside.csv"), "not for the pods\n").unwrap();
    // Paths in a comment, a string, a template's text and a regular
    // expression name nothing; the one call in code is packed.
    let out = render_script(
        &proj,
        "// open('/etc/shadow')\n/* open('/etc/passwd') */\nconst s = \"open('/etc/group')\";\nconst t = `open('/etc/hosts')`;\nconst r = /open('\\/etc\\/hostname')/;\nconst u = open('./data/u.csv');\nexport default function () {}\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let cm: ConfigMap = serde_norway::from_str(&documents(&yaml)[0]).unwrap();
    let mut keys: Vec<String> = cm.data.unwrap().into_values().collect();
    keys.sort();
    assert_eq!(keys.len(), 2, "{keys:?}");
    assert!(keys.iter().any(|v| v == "ann\n"), "{keys:?}");
    assert!(!yaml.contains("root:"), "{yaml}");

    // A call in code of an absolute path, or of one that leaves the
    // script's folder: refused, naming the call's place and the path.
    for (js, place, path) in [
        (
            "const a = 1;\nconst h = open('/etc/hostname');\n",
            "main.js:2:11:",
            "/etc/hostname",
        ),
        (
            "  open('../outside.csv');\n",
            "main.js:1:3:",
            "../outside.csv",
        ),
    ] {
        let out = render_script(&proj, js);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        let line = one_line(&out);
        assert!(
            line.contains(&format!(
                "{place} open({path:?}) names a file outside the script's folder"
            )),
            "{line}"
        );
    }
}

#[test]
fn script_render_compiles_the_script_and_its_modules_before_any_pod() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path();
    std::fs::create_dir_all(proj.join("lib")).unwrap();
    // The script itself: k6's exit code for a script error, 107.
    let out = render_script(proj, "export default function () {\n  let x = ;\n}\n");
    assert_eq!(out.status.code(), Some(107), "{}", text(&out.stderr));
    let line = one_line(&out);
    assert!(line.contains("main.js:2:"), "{line}");
    assert!(line.contains("SyntaxError"), "{line}");
    // A local module it imports.
    std::fs::write(
        proj.join("lib/f.js"),
        "export function f() {\n\n  return )\n}\n",
    )
    .unwrap();
    let main = "import { f } from './lib/f.js';\nexport default function () { f(); }\n";
    let out = render_script(proj, main);
    assert_eq!(out.status.code(), Some(107), "{}", text(&out.stderr));
    let line = one_line(&out);
    assert!(line.contains("lib/f.js:3:"), "{line}");
    // A module that is not there: the module and the importing file.
    std::fs::remove_file(proj.join("lib/f.js")).unwrap();
    let out = render_script(proj, main);
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
    let line = one_line(&out);
    assert!(
        line.contains("cannot read the module ") && line.contains("lib/f.js that "),
        "{line}"
    );
    assert!(line.contains("main.js:1:19 imports: "), "{line}");
}

#[test]
fn attack_render_warns_of_url_passwords_and_an_s3_endpoint_with_credentials() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.txt");
    std::fs::write(
        &t,
        "GET http://127.0.0.1:1/\nGET http://me:hunter22@127.0.0.1:1/x\n",
    )
    .unwrap();
    let targets = format!("-targets={}", t.display());
    let out = run(&[
        "k8s",
        "render",
        "--workers=2",
        "--name=warn",
        "--results=s3://b/p",
        "--s3-endpoint=http://AKIDEXAMPLE:s3kr1tkey@127.0.0.1:9000",
        "--",
        "-rate=10",
        "-duration=1s",
        &targets,
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "a URL password (in the targets from {}, line 2)",
            t.display()
        )),
        "{err}"
    );
    assert!(err.contains("--s3-endpoint holds a password"), "{err}");
    assert!(
        !err.contains("hunter22") && !err.contains("s3kr1tkey"),
        "{err}"
    );
}

const SECRETS: [&str; 4] = ["tok-5ecret-1", "hunter22", "c00kie-5ecret", "pw-5ecret-2"];

/// A plan with literal credentials (a header and a URL password) and a
/// targets file with more (a Cookie, a URL password), against `url`.
fn write_plan(dir: &Path, host: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join("data/t.txt"),
        format!("GET http://u:pw-5ecret-2@{host}/b\nCookie: s=c00kie-5ecret\n"),
    )
    .unwrap();
    let p = dir.join("plan.yaml");
    std::fs::write(
        &p,
        format!(
            "name: creds-k8s
targets:
  - name: a
    url: \"http://me:hunter22@{host}/a\"
    headers: {{Authorization: \"Bearer tok-5ecret-1\"}}
  - {{name: b, targets_file: data/t.txt}}
load: {{rates: [50], step: 1s, max_workers: 10}}
"
        ),
    )
    .unwrap();
    p
}

#[test]
fn plan_credentials_go_into_a_secret_and_never_into_the_config_map() {
    let o = loadlab_origin::spawn(
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
    .unwrap();
    let host = o.url().trim_start_matches("http://").to_string();
    let dir = tempfile::tempdir().unwrap();
    let plan = write_plan(&dir.path().join("src"), &host);
    let out = run(&[
        "k8s",
        "render",
        "--workers=1",
        "--name=creds",
        "--namespace=load",
        "--results=pvc:r",
        "--start-delay=3s",
        "--step-slack=1s",
        plan.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let yaml = text(&out.stdout);
    let err = text(&out.stderr);
    for s in SECRETS {
        assert!(!yaml.contains(s), "{s} in the manifests:\n{yaml}");
        assert!(!err.contains(s), "{s} on stderr:\n{err}");
    }
    assert!(
        err.contains("plan.yaml holds credentials (a URL password at plan.yaml:4, a credential header at plan.yaml:5): it goes into the Secret creds-credentials"),
        "{err}"
    );
    assert!(
        err.contains("data/t.txt holds credentials (a URL password at data/t.txt:1, header Cookie at data/t.txt:2)"),
        "{err}"
    );
    let docs = documents(&yaml);
    assert_eq!(docs.len(), 3, "a ConfigMap, a Secret and a Job:\n{yaml}");
    let cm: ConfigMap = serde_norway::from_str(&docs[0]).expect("a ConfigMap");
    let secret: Secret = serde_norway::from_str(&docs[1]).expect("a Secret");
    let job: Job = serde_norway::from_str(&docs[2]).expect("a Job");
    // Every ConfigMap value is free of them; the Secret holds them.
    let cm_text: String = cm
        .data
        .iter()
        .flatten()
        .map(|(k, v)| format!("{k}{v}"))
        .collect();
    for s in SECRETS {
        assert!(!cm_text.contains(s), "{s} in the ConfigMap");
    }
    assert_eq!(secret.metadata.name.as_deref(), Some("creds-credentials"));
    assert_eq!(secret.metadata.namespace.as_deref(), Some("load"));
    let secret_text: String = secret
        .data
        .iter()
        .flatten()
        .map(|(_, v)| String::from_utf8_lossy(&v.0).into_owned())
        .collect();
    for s in SECRETS {
        assert!(secret_text.contains(s), "{s} not in the Secret");
    }

    // The pods still run: the projected volume puts the Secret's files
    // beside the plan; here, a local worker with the files placed so.
    assert_eq!(
        worker_from_projected_files(&cm, &secret, job, dir.path()),
        [("a".to_string(), 50), ("b".to_string(), 50)]
    );
    validate_strictly(&out.stdout, dir.path());
}

/// Runs the Job's worker 0 here, its input folder made of the projected
/// volume's files (the ConfigMap's and the Secret's items), and gives the
/// requests of each target it stored.
fn worker_from_projected_files(
    cm: &ConfigMap,
    secret: &Secret,
    job: Job,
    dir: &Path,
) -> Vec<(String, u64)> {
    let pod = job.spec.unwrap().template.spec.unwrap();
    let input = dir.join("input");
    let vol = pod
        .volumes
        .iter()
        .flatten()
        .find(|v| v.name == "input")
        .unwrap();
    let sources = vol.projected.as_ref().unwrap().sources.clone().unwrap();
    let cm_data = cm.data.clone().unwrap_or_default();
    let secret_data = secret.data.clone().unwrap();
    let mut placed = Vec::new();
    for s in &sources {
        let mut items: Vec<(String, Vec<u8>)> = Vec::new();
        if let Some(c) = &s.config_map {
            assert_eq!(c.name, "creds-input");
            for i in c.items.iter().flatten() {
                items.push((i.path.clone(), cm_data[&i.key].clone().into_bytes()));
            }
        }
        if let Some(c) = &s.secret {
            assert_eq!(c.name, "creds-credentials");
            for i in c.items.iter().flatten() {
                items.push((i.path.clone(), secret_data[&i.key].0.clone()));
            }
        }
        for (path, data) in items {
            let to = input.join(&path);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::write(to, data).unwrap();
            placed.push(path);
        }
    }
    placed.sort();
    assert_eq!(placed, ["data/t.txt", "plan.yaml"]);
    let results = dir.join("results");
    let scratch = dir.join("scratch");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::create_dir_all(&scratch).unwrap();
    let args: Vec<String> = pod.containers[0]
        .args
        .clone()
        .unwrap()
        .iter()
        .map(|a| {
            a.replace("$(JOB_COMPLETION_INDEX)", "0")
                .replace("/loadlab/input", input.to_str().unwrap())
                .replace("/loadlab/scratch", scratch.to_str().unwrap())
                .replace("=/results/", &format!("={}/", results.display()))
        })
        .collect();
    let worker = Command::new(bin())
        .args(&args)
        .env("TMPDIR", &scratch)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let w = wait_bounded(worker, Duration::from_secs(90));
    assert_eq!(w.status.code(), Some(0), "{}", text(&w.stderr));
    let store = loadlab_study::Store::open(&results.join("creds-worker-0.db")).unwrap();
    let id = store.studies().unwrap().last().unwrap().id;
    let mut runs: Vec<(String, u64)> = store
        .runs(id)
        .unwrap()
        .into_iter()
        .map(|r| (r.target, r.summary.requests + r.summary.warmup_requests))
        .collect();
    runs.sort();
    runs
}

/// `kubernetes-validate --strict` for 1.33 and 1.37 passes the three
/// objects (skipped, saying so, without the program).
fn validate_strictly(yaml: &[u8], dir: &Path) {
    let exe = std::env::var("KUBERNETES_VALIDATE").unwrap_or_else(|_| "kubernetes-validate".into());
    if !loadlab_testkit::need::program(
        "plan_credentials_go_into_a_secret_and_never_into_the_config_map",
        &exe,
        "pip install kubernetes-validate",
    ) {
        return;
    }
    let file = dir.join("m.yaml");
    std::fs::write(&file, yaml).unwrap();
    for version in ["1.33.0", "1.37.0"] {
        let v = Command::new(&exe)
            .args(["--strict", "-k", version])
            .arg(&file)
            .output_bounded()
            .unwrap();
        let report = format!("{}{}", text(&v.stdout), text(&v.stderr));
        assert!(v.status.success(), "against {version}:\n{report}");
        assert!(
            report.contains("passed for resource secret/")
                && report.contains("passed for resource job/")
                && report.contains("passed for resource configmap/"),
            "{report}"
        );
    }
}
