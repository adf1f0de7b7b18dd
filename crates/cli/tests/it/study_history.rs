//! `loadlab runs history` and `runs check` end to end: ten short studies of
//! one plan against an origin whose route answers 5 % slower from the
//! sixth study on, each stored with its label; the history marks the
//! sixth, the check fails, and the HTML page renders in headless Chromium.

use loadlab_testkit::proc::BoundedOutput;
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use loadlab_origin::{OriginConfig, OriginHandle, parse_recipes, spawn};
use loadlab_testkit::browser::{HEADLESS, chromium_or_skip};
use loadlab_testkit::proc::{PATIENCE, wait_bounded};

const BIN: &str = env!("CARGO_BIN_EXE_loadlab");

pub(crate) fn origin(addr: SocketAddr, latency: &str) -> OriginHandle {
    let recipe = format!(
        r#"{{"route":"/h","body":"ok","stages":[{{"at":0,"status":200,"latency":"{latency}"}}]}}"#
    );
    spawn(
        addr,
        OriginConfig {
            recipes: parse_recipes(&recipe).expect("recipe"),
            workers: Some(1),
            ..Default::default()
        },
    )
    .expect("origin")
}

pub(crate) fn loadlab(dir: &Path, args: &[&str]) -> Output {
    let child = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn loadlab");
    wait_bounded(child, PATIENCE)
}

pub(crate) fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn a_slower_route_from_the_sixth_study_is_a_change_point() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // 200 ms: long enough that a loaded machine's scheduling jitter (a
    // millisecond or two) is small beside the 5 % step.
    let mut o = origin("127.0.0.1:0".parse().unwrap(), "200ms");
    let addr = o.addr;
    let plan = format!(
        "name: nightly\ntargets:\n  - {{name: api, url: \"http://{addr}/h\"}}\n\
         load: {{rates: [50], step: 300ms, warmup: 100ms}}\nrepetitions: 5\n"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
    for i in 1..=10 {
        if i == 6 {
            // Same address, same plan: only the route's latency changes.
            o.shutdown();
            o = origin(addr, "210ms");
        }
        let label = format!("v{i}");
        let out = format!("out{i}");
        let r = loadlab(
            d,
            &[
                "study",
                "plan.yaml",
                "--db",
                "s.db",
                "--out",
                &out,
                "--label",
                &label,
            ],
        );
        assert!(r.status.success(), "study {i}: {}", text(&r));
    }

    let list = loadlab(d, &["runs", "--db", "s.db"]);
    assert!(text(&list).contains(" v6 "), "{}", text(&list));
    let report = std::fs::read_to_string(d.join("out6/report.md")).unwrap();
    assert!(
        report.contains("(label v6)"),
        "the report header names the label"
    );

    let h = loadlab(
        d,
        &[
            "runs", "history", "--db", "s.db", "--metric", "p50", "--html", "h.html",
        ],
    );
    let out = text(&h);
    assert!(h.status.success(), "{out}");
    assert!(out.contains("change point at study 6 (v6): p50 +"), "{out}");
    assert_eq!(out.matches("change point at study").count(), 1, "{out}");

    let c = loadlab(
        d,
        &[
            "runs", "check", "--db", "s.db", "--metric", "p50", "--since", "v3",
        ],
    );
    assert_eq!(c.status.code(), Some(9), "{}", text(&c));
    assert!(
        text(&c).contains("change point at study 6 (v6)"),
        "{}",
        text(&c)
    );
    // Since v7, after the change, nothing got worse by more than 2 %.
    let c = loadlab(
        d,
        &[
            "runs", "check", "--db", "s.db", "--metric", "p50", "--since", "v7", "--margin", "2%",
        ],
    );
    assert_eq!(c.status.code(), Some(0), "{}", text(&c));
    let c = loadlab(
        d,
        &[
            "runs", "check", "--db", "s.db", "--metric", "p50", "--since", "nope",
        ],
    );
    assert_eq!(c.status.code(), Some(3), "{}", text(&c));
    assert!(text(&c).contains("--since nope"), "{}", text(&c));

    // An edited plan (a longer warm-up), compared with the first study.
    let edited = std::fs::read_to_string(d.join("plan.yaml"))
        .unwrap()
        .replace("warmup: 100ms", "warmup: 150ms");
    std::fs::write(d.join("edited.yaml"), edited).unwrap();
    let r = loadlab(
        d,
        &[
            "study",
            "edited.yaml",
            "--db",
            "s.db",
            "--out",
            "out11",
            "--baseline",
            "1",
        ],
    );
    assert!(r.status.success(), "edited study: {}", text(&r));
    let md = std::fs::read_to_string(d.join("out11/report.md")).unwrap();
    let against = &md[md
        .find("## Against the baseline")
        .expect("baseline section")..];
    assert!(against.contains("study 1 (v1)"), "{against}");
    assert!(
        against.contains("| api | 50 | p50 |") && against.contains("higher than the baseline"),
        "{against}"
    );
    let r = loadlab(
        d,
        &["study", "plan.yaml", "--db", "s.db", "--baseline", "99"],
    );
    assert_eq!(r.status.code(), Some(3), "{}", text(&r));
    assert!(
        text(&r).contains("--baseline 99: no study 99"),
        "{}",
        text(&r)
    );

    // Two plan contents in the store: refused by name and hash, unless forced.
    let r = loadlab(d, &["runs", "history", "--db", "s.db", "--metric", "p50"]);
    assert_eq!(r.status.code(), Some(3), "{}", text(&r));
    assert!(
        text(&r).contains("the studies are of 2 plans: \"nightly\" "),
        "{}",
        text(&r)
    );
    let r = loadlab(
        d,
        &[
            "runs", "history", "--db", "s.db", "--metric", "p50", "--force",
        ],
    );
    assert!(r.status.success(), "{}", text(&r));
    assert!(text(&r).contains("11 studies"), "{}", text(&r));
    o.shutdown();

    let page = std::fs::read_to_string(d.join("h.html")).unwrap();
    assert!(
        page.contains("change at study 6 (v6)"),
        "the chart marks the change"
    );
    assert!(
        page.contains("<polygon class=\"band\""),
        "the interval is a filled band"
    );
    let Some(bin) = chromium_or_skip("a_slower_route_from_the_sixth_study_is_a_change_point")
    else {
        return;
    };
    let profile = tempfile::tempdir().unwrap();
    let url = format!(
        "file://{}",
        d.join("h.html").canonicalize().unwrap().display()
    );
    let dom = Command::new(bin)
        .args(HEADLESS)
        .args(["--disable-dev-shm-usage", "--window-size=1200,900"])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(&url)
        .output_bounded()
        .expect("run chromium");
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("<svg") && dom.contains("change at study 6 (v6)"),
        "{dom}"
    );
    assert_eq!(dom.matches("class=\"change\"").count(), 1, "one row marked");
    let png = d.join("history.png");
    let shot = Command::new(bin)
        .args(HEADLESS)
        .args([
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--window-size=1200,900",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--screenshot={}", png.display()))
        .arg(&url)
        .output_bounded()
        .expect("run chromium");
    let bytes = std::fs::read(&png).unwrap_or_default();
    assert!(
        bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000,
        "no screenshot: {}",
        String::from_utf8_lossy(&shot.stderr)
    );
    if let Some(keep) = std::env::var_os("LOADLAB_REPORT_SHOTS") {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::copy(&png, Path::new(&keep).join("history.png")).unwrap();
    }
}
