//! Plans with several named origins (`origins:`): each started on its own
//! port and reached by `{origin.NAME}`, every bad reference or origin
//! refused where it is written.

use std::path::Path;

use loadlab_study::{Plan, Store, run_study};

use crate::study_e2e::opts;

/// Two origins whose routes differ in body size and latency: a target sent
/// to the other origin would get a 404 (neither serves the other's route).
const TWO: &str = r#"
name: two-origins
origins:
  master:
    recipes:
      - {route: /, random_content: 1kb, stages: [{at: 0, status: 200, latency: 2ms}]}
  multi:
    recipes:
      - {route: /news, random_content: 4kb, stages: [{at: 0, status: 200, latency: 8ms}]}
targets:
  - {name: single, url: "{origin.master}/"}
  - {name: multi, url: "{origin.multi}/news"}
load:
  rates: [50]
  step: 1s
  warmup: 200ms
"#;

#[test]
fn each_target_reaches_its_own_origin() {
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::from_yaml(TWO, "plan.yaml", dir.path()).unwrap();
    let (o, log) = opts(dir.path(), TWO, false);
    let out = run_study(&plan, o).unwrap();
    let log = log.lock().unwrap().join("\n");
    let store = Store::open(&dir.path().join("study.db")).unwrap();
    let runs = store.runs(out.study_id).unwrap();
    let by = |t: &str| &runs.iter().find(|r| r.target == t).unwrap().summary;
    let (single, multi) = (by("single"), by("multi"));
    for s in [single, multi] {
        // 0.8 s measured at 50/s, every one answered by its route.
        assert_eq!(s.requests, 40, "{log}");
        assert_eq!(s.success, 1.0, "{:?} {log}", s.status_codes);
    }
    // Each origin's own body size, and its latency as a floor (a busy
    // machine only adds to it).
    assert_eq!(single.bytes_in, 40 * 1024, "{log}");
    assert_eq!(multi.bytes_in, 40 * 4096, "{log}");
    assert!(single.min_ns >= 2_000_000, "{}", single.min_ns);
    assert!(multi.min_ns >= 8_000_000, "{}", multi.min_ns);

    // The stored plan keeps both origins; a plan stored before named
    // origins existed (no `origins` key) still reads back.
    let row = store.study(out.study_id).unwrap();
    let stored: Plan = serde_json::from_str(&row.plan_json).unwrap();
    let names: Vec<&str> = stored.origins.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["master", "multi"]);
    let mut old: serde_json::Value = serde_json::from_str(&row.plan_json).unwrap();
    old.as_object_mut().unwrap().remove("origins").unwrap();
    let old: Plan = serde_json::from_value(old).unwrap();
    assert!(old.origins.is_empty());

    // The report names each origin, its routes and its recipe, and shows
    // each target's command line at its own origin.
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).unwrap();
    for want in [
        "Origins (in-process): `master` at `http://ORIGIN-master` (inline: /); `multi` at `http://ORIGIN-multi` (inline: /news)",
        "Origin `master`: recipe (inline), served in-process at `http://ORIGIN-master`:",
        "Origin `multi`: recipe (inline), served in-process at `http://ORIGIN-multi`:",
        "echo \"GET http://ORIGIN-master/\" | loadlab attack",
        "echo \"GET http://ORIGIN-multi/news\" | loadlab attack",
    ] {
        assert!(report.contains(want), "{want} in {report}");
    }
}

#[test]
fn origin_and_origins_may_be_used_together() {
    let yaml = TWO.replace(
        "origins:",
        "origin:\n  recipes: [{route: /c5, body: ok, stages: [{at: 0, status: 200}]}]\norigins:",
    ) + "  # (the unnamed origin)\n";
    let yaml = yaml.replace(
        "targets:\n",
        "targets:\n  - {name: c5, url: \"{origin}/c5\"}\n",
    );
    let p = Plan::from_yaml(&yaml, "p.yaml", Path::new(".")).unwrap();
    assert!(p.origin.is_some());
    assert_eq!(p.origins.len(), 2);
}

fn err(yaml: &str) -> loadlab_study::PlanError {
    let dir = tempfile::tempdir().unwrap();
    Plan::from_yaml(yaml, "p.yaml", dir.path()).unwrap_err()
}

#[test]
fn bad_references_are_refused_where_they_are_written() {
    let cases: &[(&str, &str, (usize, usize), &str)] = &[
        (
            "{origin.master}/",
            "{origin.mastr}/",
            (11, 25),
            "targets[0].url: target \"single\" uses {origin.mastr}, an origin the plan does not start (did you mean {origin.master}?)",
        ),
        (
            "{origin.multi}/news",
            "{origin.zzz}/news",
            (12, 24),
            "targets[1].url: target \"multi\" uses {origin.zzz}, an origin the plan does not start (its origins: {origin.master}, {origin.multi})",
        ),
        (
            "{origin.multi}/news",
            "{origin}/news",
            (12, 24),
            "targets[1].url: target \"multi\" uses {origin} but the plan's origins are named (`origins:`): write {origin.master}, {origin.multi}",
        ),
        (
            "{origin.master}/",
            "{origin.}/",
            (11, 25),
            "targets[0].url: target \"single\": \"{origin.}\" is not an origin reference",
        ),
    ];
    for (from, to, at, message) in cases {
        let e = err(&TWO.replace(from, to));
        assert!(e.message.starts_with(message), "{e}");
        assert_eq!((e.line, e.column), *at, "{e}");
    }
    // Only `origin:`: a name is refused, `{origin}` is the way.
    let e = err(
        "name: x\norigin:\n  recipes: [{route: /a, body: ok, stages: [{at: 0, status: 200}]}]\ntargets:\n  - {name: a, url: \"{origin.a}/a\"}\nload: {rates: [10], step: 1s}\n",
    );
    assert_eq!((e.line, e.column), (5, 20), "{e}");
    assert_eq!(
        e.message,
        "targets[0].url: target \"a\" uses {origin.a} but the plan names no origin (`origins:`); its one `origin:` is {origin}"
    );
    // No origin at all.
    let e = err(
        "name: x\ntargets:\n  - {name: a, url: \"{origin.a}/a\"}\nload: {rates: [10], step: 1s}\n",
    );
    assert_eq!((e.line, e.column), (3, 20), "{e}");
    assert_eq!(
        e.message,
        "targets[0].url: target \"a\" uses {origin.a} but the plan starts no origin"
    );
}

#[test]
fn a_reference_in_a_script_variable_is_checked_too() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.js"), "export default function () {}\n").unwrap();
    let yaml = TWO.replace(
        "  - {name: multi, url: \"{origin.multi}/news\"}",
        "  - {name: k, script: t.js, env: {BASE_URL: \"{origin.mult}\"}}",
    );
    let yaml = yaml
        .replace("  - {name: single, url: \"{origin.master}/\"}\n", "")
        .replace("rates: [50]", "vus: [5]");
    let e = Plan::from_yaml(&yaml, "p.yaml", dir.path()).unwrap_err();
    assert_eq!((e.line, e.column), (11, 45), "{e}");
    assert_eq!(
        e.message,
        "targets[0].env.BASE_URL: target \"k\" uses {origin.mult}, an origin the plan does not start (did you mean {origin.multi}?)"
    );
}

#[test]
fn a_reference_in_a_targets_file_is_refused_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("routes.txt"),
        "GET {origin.multi}/news\n\nGET {origin.mutli}/sport\n",
    )
    .unwrap();
    let yaml = TWO.replace(
        "  - {name: multi, url: \"{origin.multi}/news\"}",
        "  - {name: multi, targets_file: routes.txt}",
    );
    let e = Plan::from_yaml(&yaml, "p.yaml", dir.path()).unwrap_err();
    assert_eq!((e.line, e.column), (12, 33), "{e}");
    let file = dir.path().join("routes.txt").display().to_string();
    assert_eq!(
        e.message,
        format!(
            "targets[1].targets_file: {file}:3: target \"multi\" uses {{origin.mutli}}, an origin the plan does not start (did you mean {{origin.multi}}?)"
        )
    );
}

#[test]
fn bad_origins_are_refused_where_they_are_written() {
    // A name that cannot be written in `{origin.NAME}`: at the name.
    let e = err(&TWO.replace("  multi:\n", "  multi.v2:\n"));
    assert_eq!((e.line, e.column), (7, 3), "{e}");
    assert_eq!(
        e.message,
        "origins: origin name \"multi.v2\" must be letters, digits, '-' or '_'"
    );
    // A bad recipe of one origin: its full key path.
    let e = err(&TWO.replace("latency: 8ms", "latency: soon"));
    assert_eq!((e.line, e.column), (9, 84), "{e}");
    assert!(
        e.message
            .starts_with("origins.multi.recipes[0].stages[0].latency: "),
        "{e}"
    );
    // An unknown key of a recipe: at the key, every bad recipe named.
    let two_bad = TWO.replace(
        "      - {route: /news,",
        "      - {route: /a, bdy: x, stages: [{at: 0, status: 200}]}\n      - {route: /news, bdy: y,",
    );
    let e = err(&two_bad);
    assert_eq!((e.line, e.column), (9, 21), "{e}");
    assert!(
        e.message
            .starts_with("origins.multi.recipes[0].bdy: unknown field")
            && e.message
                .contains("; 1 more bad recipe: origins.multi.recipes[1].bdy: unknown field"),
        "{e}"
    );
    // An unknown key of an origin.
    let e = err(&TWO.replace("  multi:\n    recipes:", "  multi:\n    recipez:"));
    assert_eq!((e.line, e.column), (8, 5), "{e}");
    assert!(
        e.message
            .starts_with("origins.multi: unknown key `recipez` (did you mean `recipe"),
        "{e}"
    );
    // Neither recipe nor recipes.
    let e = err(&TWO.replace(
        "  master:\n    recipes:\n      - {route: /, random_content: 1kb, stages: [{at: 0, status: 200, latency: 2ms}]}\n",
        "  master: {}\n",
    ));
    assert_eq!((e.line, e.column), (4, 3), "{e}");
    assert_eq!(
        e.message,
        "origins.master: an origin needs exactly one of `recipe` (a file) or `recipes` (inline)"
    );
    // A name given twice.
    let e = err(&TWO.replace("  multi:\n", "  master:\n"));
    assert_eq!(
        e.to_string(),
        "p.yaml:4:3: origins: duplicate origin name \"master\""
    );
    // An empty mapping.
    let e = err(&TWO.replace(
        "  master:\n    recipes:\n      - {route: /, random_content: 1kb, stages: [{at: 0, status: 200, latency: 2ms}]}\n  multi:\n    recipes:\n      - {route: /news, random_content: 4kb, stages: [{at: 0, status: 200, latency: 8ms}]}\n",
        "",
    ).replace("origins:\n", "origins: {}\n"));
    assert_eq!((e.line, e.column), (3, 1), "{e}");
    assert!(e.message.starts_with("origins: names no origin"), "{e}");
}
