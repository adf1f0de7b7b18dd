//! Concurrent groups: several workloads in one run, started together, each
//! stored as its own run beside the group's combined one.

use loadlab_study::{Plan, Store, run_study};

use crate::study_e2e::opts;

const GROUP_PLAN: &str = r#"
name: routes
origin:
  recipes:
    - route: /news
      random_content: 1kb
      stages: [{at: 0, status: 200, latency: 5ms}]
    - route: /sport
      random_content: 2kb
      stages: [{at: 0, status: 200, latency: 5ms}]
    - route: /sounds
      random_content: 1kb
      stages: [{at: 0, status: 200, latency: 5ms}]
targets:
  - name: three
    concurrent:
      - {name: news, url: "{origin}/news"}
      - {name: sport, url: "{origin}/sport"}
      - {name: sounds, url: "{origin}/sounds", level: 25}
load:
  rates: [50]
  step: 1s
  warmup: 200ms
repetitions: 1
slo:
  success: 99%
hypotheses:
  - three/news.p99 <= three/sport.p99 within 50ms
"#;

#[test]
fn a_group_runs_its_members_together_and_adds_them_up() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(GROUP_PLAN, "plan.yaml", dir.path()).unwrap();
    let (o, log) = opts(dir.path(), GROUP_PLAN, false);
    let out = run_study(&plan, o).unwrap();
    let store = Store::open(&dir.path().join("study.db")).unwrap();
    let runs = store.runs(out.study_id).unwrap();
    let log = log.lock().unwrap().join("\n");
    let targets: Vec<&str> = runs.iter().map(|r| r.target.as_str()).collect();
    assert_eq!(
        targets,
        ["three/news", "three/sport", "three/sounds", "three"],
        "{log}"
    );
    let by = |t: &str| &runs.iter().find(|r| r.target == t).unwrap().summary;
    // 0.8 s measured: 40 requests at 50/s, 20 at the member's own 25/s.
    assert_eq!(by("three/news").requests, 40, "{log}");
    assert_eq!(by("three/sport").requests, 40, "{log}");
    assert_eq!(by("three/sounds").requests, 20, "{log}");
    let g = by("three");
    assert_eq!(g.requests, 100, "{log}");
    assert_eq!(g.offered_rate, 125);
    assert_eq!(
        g.bytes_in,
        by("three/news").bytes_in + by("three/sport").bytes_in + by("three/sounds").bytes_in
    );
    let note = g.group.as_ref().expect("the group's note");
    assert_eq!(note.members, ["three/news", "three/sport", "three/sounds"]);
    // Every member shares the start instant: the spread is measured.
    assert!(note.start_spread_ns.is_some(), "{note:?}");
    // The members' own runs are plain runs (no split-run part).
    assert!(by("three/news").part.is_none());
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    assert!(
        report.contains("Concurrent    3 workloads together (start spread "),
        "{report}"
    );
    assert!(report.contains("`three` (concurrent: three/news, three/sport, three/sounds)"));
    // The step shows the workloads' vegeta lines side by side, then the
    // combined run's.
    assert!(
        report.contains(
            "| three — repetition 1 | three/news | three/sport | three/sounds | combined |"
        ),
        "{report}"
    );
    assert!(
        report.contains("| Requests [total] | 40 | 40 | 20 | 100 |"),
        "{report}"
    );
    assert!(
        report.contains("loadlab attack -duration=1s -rate=25"),
        "the member with its own level: {report}"
    );
    // A hypothesis may name a member.
    assert!(
        report.contains("`three/news.p99 <= three/sport.p99 within 50ms`"),
        "{report}"
    );
    assert_eq!(out.executed, 1, "one run of the group: {log}");
}

fn plan_err(yaml: &str) -> loadlab_study::PlanError {
    let dir = tempfile::tempdir().unwrap();
    Plan::from_yaml(yaml, "p.yaml", dir.path()).unwrap_err()
}

const HEAD: &str = "name: g\nload: {rates: [10], step: 1s}\ntargets:\n";

#[test]
fn a_bad_group_is_refused_where_it_is_written() {
    let cases = [
        (
            "  - name: g\n    concurrent:\n      - {name: a, url: \"http://127.0.0.1:1/\"}\n      - {name: a, url: \"http://127.0.0.1:1/\"}\n",
            (7, 16),
            "targets[0].concurrent[1].name: duplicate member name \"a\" in group \"g\"",
        ),
        (
            "  - name: g\n    url: http://127.0.0.1:1/\n    concurrent:\n      - {name: a, url: \"http://127.0.0.1:1/\"}\n",
            (5, 10),
            "targets[0].url: a `concurrent` group has no `url` of its own",
        ),
        (
            "  - name: g\n    concurrent:\n      - name: a\n        concurrent: [{name: b, url: \"http://127.0.0.1:1/\"}]\n",
            (7, 9),
            "targets[0].concurrent[0].concurrent: a member of a `concurrent` group cannot be a group",
        ),
        (
            "  - name: t\n    url: http://127.0.0.1:1/\n    level: 5\n",
            (6, 12),
            "targets[0].level: `level` is for a member of a `concurrent` group",
        ),
        (
            "  - name: g\n    concurrent:\n      - {name: a, url: \"http://127.0.0.1:1/\", level: 0}\n",
            (6, 54),
            "targets[0].concurrent[0].level: must be > 0",
        ),
    ];
    for (targets, (line, column), message) in cases {
        let e = plan_err(&format!("{HEAD}{targets}"));
        assert!(e.message.starts_with(message), "{e}");
        assert_eq!((e.line, e.column), (line, column), "{e}");
    }
}

#[test]
fn a_weighted_mix_runs_as_one_attack_with_its_weights() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("routes.txt"),
        "GET {origin}/news\nGET {origin}/sport\nGET {origin}/sounds\n",
    )
    .unwrap();
    let yaml = r#"
name: mix
origin:
  recipes:
    - {route: /news, body: "n", stages: [{at: 0, status: 200}]}
    - {route: /sport, body: "s", stages: [{at: 0, status: 200}]}
    - {route: /sounds, body: "o", stages: [{at: 0, status: 200}]}
targets:
  - name: mix
    targets_file: routes.txt
    weights: [70, 20, 10]
load:
  rates: [100]
  step: 1s
"#;
    let plan = Plan::from_yaml(yaml, "plan.yaml", dir.path()).unwrap();
    let (o, log) = opts(dir.path(), yaml, false);
    let out = run_study(&plan, o).unwrap();
    let store = Store::open(&dir.path().join("study.db")).unwrap();
    let runs = store.runs(out.study_id).unwrap();
    assert_eq!(runs[0].summary.requests, 100, "{:?}", log.lock().unwrap());
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    assert!(report.contains("-weights=70,20,10"), "{report}");
    // Weights that do not fit the requests are refused where written.
    let bad = yaml.replace("[70, 20, 10]", "[70, 30]");
    let e = Plan::from_yaml(&bad, "plan.yaml", dir.path()).unwrap_err();
    assert!(
        e.to_string().contains(
            "targets[0].weights: 2 weight(s) for 3 request(s): give one weight per request"
        ),
        "{e}"
    );
    assert_eq!(e.line, 11, "{e}");
}

#[test]
fn a_member_with_its_own_level_says_its_ceiling_is_the_groups_steps() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(GROUP_PLAN, "plan.yaml", dir.path()).unwrap();
    let c = |t: &str| loadlab_study::analysis::Ceiling {
        target: t.into(),
        pass: Some(50),
        fail: None,
    };
    assert_eq!(
        c("three/sounds").describe_in(&plan),
        "at least 50 req/s (never failed), in steps of group three (this member runs at 25 req/s in every step)"
    );
    assert_eq!(
        c("three/news").describe_in(&plan),
        "at least 50 req/s (never failed)"
    );
}
