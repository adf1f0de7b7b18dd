//! Plan validation: every error names file, line and column; unknown keys get
//! the nearest valid key; the shipped examples parse.

use std::path::Path;

use loadlab_study::Plan;

fn err(yaml: &str) -> loadlab_study::PlanError {
    Plan::from_yaml(yaml, "p.yaml", Path::new(".")).unwrap_err()
}

const GOOD: &str = "name: x
targets:
  - name: a
    url: http://127.0.0.1:1/
load:
  rates: [10, 20]
  step: 2s
";

#[test]
fn a_minimal_plan_gets_defaults() {
    let p = Plan::from_yaml(GOOD, "p.yaml", Path::new(".")).unwrap();
    assert_eq!(p.repetitions, 1);
    assert_eq!(p.load.workers, 10);
    assert_eq!(p.load.warmup, std::time::Duration::ZERO);
    assert_eq!(p.targets[0].requests[0].method, "GET");
}

#[test]
fn unknown_key_is_located_and_the_nearest_key_suggested() {
    let e = err(&GOOD.replace("  step: 2s", "  step: 2s\n  warmpu: 1s"));
    assert_eq!((e.file.as_str(), e.line, e.column), ("p.yaml", 8, 3), "{e}");
    assert!(
        e.message
            .contains("unknown key `warmpu` (did you mean `warmup`?)"),
        "{e}"
    );
    let e = err(&GOOD.replace("name: x", "name: x\nrepetitons: 3"));
    assert_eq!(e.line, 2, "{e}");
    assert!(e.message.contains("did you mean `repetitions`?"), "{e}");
    assert!(e.to_string().starts_with("p.yaml:2:1: "), "{e}");
}

#[test]
fn bad_values_are_located() {
    let e = err(&GOOD.replace("step: 2s", "step: 2 seconds"));
    assert_eq!(e.line, 7, "{e}");
    assert!(e.message.contains("invalid duration"), "{e}");
    let e = err(&GOOD.replace("[10, 20]", "[20, 10]"));
    assert_eq!(e.line, 6, "{e}");
    assert!(e.message.contains("ascending"), "{e}");
    let e = err(&GOOD.replace("[10, 20]", "[10, fast]"));
    assert_eq!(e.line, 6, "{e}");
    let e = err(&format!("{GOOD}hypotheses:\n  - a.p99 < c.p99\n"));
    assert_eq!((e.line, e.column), (9, 5), "{e}");
    assert!(e.message.contains("unknown target \"c\""), "{e}");
    let e = err(&format!("{GOOD}slo:\n  success: 120%\n"));
    assert_eq!(e.line, 9, "{e}");
    let e = err(&format!("{GOOD}ceiling:\n  resolution: 10\n"));
    assert!(e.message.contains("needs an `slo`"), "{e}");
    let e = err(&GOOD.replace("http://127.0.0.1:1/", "\"{origin}/x\""));
    assert!(e.message.contains("starts no origin"), "{e}");
    let e = err("name: x\ntargets: []\nload: {rates: [1], step: 1s}\n");
    assert!(e.message.contains("at least one target"), "{e}");
    let e = err(&GOOD.replace(
        "    url: http://127.0.0.1:1/\n",
        "    url: http://127.0.0.1:1/\n  - name: a\n    url: http://x/\n",
    ));
    assert!(e.message.contains("duplicate target"), "{e}");
    // Syntax errors carry the YAML parser's location.
    let e = err("name: [unclosed\n");
    assert!(
        e.file == "p.yaml" && e.line >= 1 && !e.message.contains(" at line "),
        "{e}"
    );
}

#[test]
fn an_equivalence_without_a_margin_is_located_and_says_what_is_missing() {
    let two = GOOD.replace(
        "    url: http://127.0.0.1:1/\n",
        "    url: http://127.0.0.1:1/\n  - name: b\n    url: http://127.0.0.1:1/b\n",
    );
    let e = err(&format!(
        "{two}hypotheses:\n  - a.p99 < b.p99\n  - a.p99 ≈ b.p99 at rate 10\n"
    ));
    assert_eq!(
        (e.file.as_str(), e.line, e.column),
        ("p.yaml", 12, 5),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "p.yaml:12:5: hypotheses[1]: hypothesis \"a.p99 ≈ b.p99 at rate 10\": \
         ≈ needs a margin: within 5% or within 2ms"
    );
    let e = err(&format!("{two}hypotheses: [\"a.p99 ~= b.p99\"]\n"));
    assert_eq!((e.line, e.column), (10, 14), "{e}");
    assert!(
        e.message
            .ends_with("≈ needs a margin: within 5% or within 2ms"),
        "{e}"
    );
    // With one, it loads.
    let p = Plan::from_yaml(
        &format!("{two}hypotheses:\n  - a.p99 ≈ b.p99 within 5% at rate 10\n"),
        "p.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(p.hypotheses[0].margin_relative, Some(0.05));
}

#[test]
fn ramp_targets_file_and_recipe_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("targets.txt"), "# two targets\nGET http://127.0.0.1:1/a\nX-A: 1\n\nPOST http://127.0.0.1:1/b\n@body.json\n").unwrap();
    std::fs::write(dir.path().join("body.json"), "{}").unwrap();
    std::fs::write(
        dir.path().join("recipe.json"),
        r#"{"route":"/*","stages":[{"at":0,"status":200,"latency":0}],"body":"ok"}"#,
    )
    .unwrap();
    let yaml = "name: r
origin: {recipe: recipe.json}
targets:
  - {name: t, targets_file: targets.txt, headers: {x-all: y}}
load: {ramp: {from: 100, to: 500, by: 200}, step: 1s}
";
    std::fs::write(dir.path().join("plan.yaml"), yaml).unwrap();
    let p = Plan::from_file(&dir.path().join("plan.yaml")).unwrap();
    assert_eq!(p.load.rates, vec![100, 300, 500]);
    let r = &p.targets[0].requests;
    assert_eq!(r.len(), 2);
    assert_eq!(
        r[0].headers,
        vec![
            ("x-all".to_string(), "y".to_string()),
            ("X-A".to_string(), "1".to_string())
        ]
    );
    assert_eq!(
        (r[1].method.as_str(), r[1].body.as_deref()),
        ("POST", Some("{}"))
    );
    assert_eq!(p.origin.unwrap().source, "recipe.json");
    let missing = yaml.replace("recipe.json", "nope.json");
    let e = Plan::from_yaml(&missing, "plan.yaml", dir.path()).unwrap_err();
    assert!(e.message.contains("cannot read recipe"), "{e}");
}

#[test]
fn shipped_plans_parse() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let mut n = 0;
    for e in std::fs::read_dir(&root).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "yaml") {
            // A database password is a `${NAME}` reference read at load:
            // PATH, always set, stands in for it here.
            let text = std::fs::read_to_string(&p)
                .unwrap()
                .replace("${MYSQL_PASSWORD}", "${PATH}");
            Plan::from_yaml(&text, &p.display().to_string(), &root)
                .unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 1);
    let demo =
        Plan::from_yaml(loadlab_study::demo::DEMO_PLAN, "demo.yaml", Path::new(".")).unwrap();
    assert_eq!(demo.hypotheses.len(), 3);
    // The demo's recipes must be accepted by the origin itself.
    loadlab_origin::parse_recipes(&demo.origin.unwrap().recipes_json).unwrap();
}

/// The shipped demo plan with one line replaced; returns the error and the
/// 1-based line number of the replaced line.
fn example_with(line_start: &str, replacement: &str) -> (loadlab_study::PlanError, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/c5-vs-c6g.yaml");
    let src = std::fs::read_to_string(&path).unwrap();
    let mut line_no = 0;
    let text: Vec<String> = src
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if l.starts_with(line_start) {
                assert_eq!(line_no, 0, "{line_start:?} appears twice");
                line_no = i + 1;
                replacement.to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    assert!(line_no > 0, "{line_start:?} not in the example");
    let e = Plan::from_yaml(&(text.join("\n") + "\n"), "c5-vs-c6g.yaml", &path).unwrap_err();
    (e, line_no)
}

#[test]
fn value_errors_point_at_the_value_with_its_full_key_path() {
    // issue 14 item 5: each of these used to be located at the first place the
    // text appeared anywhere in the file (a recipe, the plan's name, ...).
    for (key, bad) in [("step", "4"), ("timeout", "5"), ("cooldown", "300")] {
        let (e, line) = example_with(&format!("  {key}: "), &format!("  {key}: {bad}"));
        assert_eq!(
            (e.file.as_str(), e.line, e.column),
            ("c5-vs-c6g.yaml", line, 5 + key.len()),
            "{e}"
        );
        assert!(
            e.message
                .starts_with(&format!("load.{key}: invalid duration \"{bad}\"")),
            "{e}"
        );
        assert_eq!(e.message.matches("invalid duration").count(), 1, "{e}");
        assert_eq!(e.message.matches(&format!("{bad:?}")).count(), 2, "{e}");
    }
    // Inside a list: the second target's name.
    let (e, line) = example_with("  - name: c6g", "  - name: c5");
    assert_eq!((e.line, e.column), (line, 11), "{e}");
    assert!(e.message.starts_with("targets[1].name: "), "{e}");
    assert!(e.message.contains("duplicate target"), "{e}");
    let (e, line) = example_with("  - name: c6g", "  - name: \"c 6g\"");
    assert_eq!((e.line, e.column), (line, 11), "{e}");
    assert!(e.message.starts_with("targets[1].name: "), "{e}");
    // A hypothesis.
    let (e, line) = example_with("  - c6g.success", "  - c6g.succes >= c5.success");
    assert_eq!((e.line, e.column), (line, 5), "{e}");
    assert!(e.message.starts_with("hypotheses[1]: "), "{e}");
    assert!(e.message.contains("did you mean \"success\""), "{e}");
    // A value the check reads from two keys: the one that is wrong.
    let (e, line) = example_with("  warmup: ", "  warmup: 10s");
    assert_eq!((e.line, e.column), (line, 11), "{e}");
    assert!(e.message.starts_with("load.warmup: "), "{e}");
    // slo.success
    let (e, line) = example_with("  success: ", "  success: 120%");
    assert_eq!((e.line, e.column), (line, 12), "{e}");
    assert!(e.message.starts_with("slo.success: "), "{e}");
    assert_eq!(e.message.matches("slo.success").count(), 1, "{e}");
}

#[test]
fn rates_are_written_as_for_attack() {
    // issue 10 item 4: load.rates and load.ramp take loadlab's rate type, as
    // `loadlab attack -rate` does.
    let p = Plan::from_yaml(
        &GOOD.replace("[10, 20]", "[\"50/100ms\", 600, 700/1s, 60000/1m]"),
        "p.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(p.load.rates, vec![500, 600, 700, 1000]);
    let p = Plan::from_yaml(
        &GOOD.replace(
            "rates: [10, 20]",
            "ramp: {from: 10/100ms, to: 300, by: 100/1s}",
        ),
        "p.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(p.load.rates, vec![100, 200, 300]);
    // A bad rate, where it is written.
    let e = err(&GOOD.replace("[10, 20]", "[10, fast]"));
    assert_eq!((e.line, e.column), (6, 15), "{e}");
    assert!(
        e.message
            .starts_with("load.rates[1]: invalid rate \"fast\": expected FREQ or FREQ/DURATION"),
        "{e}"
    );
    // A study's steps are whole requests per second.
    let e = err(&GOOD.replace("[10, 20]", "[1/2s, 20]"));
    assert_eq!((e.line, e.column), (6, 11), "{e}");
    assert_eq!(
        e.message,
        "load.rates[0]: 1/2s is 0.5 requests per second; a study's rates are whole requests per second"
    );
    let e = err(&GOOD.replace("rates: [10, 20]", "ramp: {from: 10, to: 30, by: 5/2s}"));
    assert_eq!((e.line, e.column), (6, 32), "{e}");
    assert!(
        e.message
            .starts_with("load.ramp.by: 5/2s is 2.5 requests per second"),
        "{e}"
    );
    for unlimited in ["0", "infinity"] {
        let e = err(&GOOD.replace("[10, 20]", &format!("[10, {unlimited}]")));
        assert_eq!(e.line, 6, "{e}");
        assert_eq!(
            e.message, "load.rates: must be a non-empty list of rates > 0",
            "{e}"
        );
    }
}

#[test]
fn targets_are_read_and_checked_at_load_as_attack_reads_them() {
    // issue 10 item 4: targets files go through the engine's reader (vegeta's
    // rules, `@body` beside the file), and every URL, method and header is
    // checked when the plan is loaded, not when its run comes.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("t/sub")).unwrap();
    std::fs::write(
        d.join("t/targets.txt"),
        "GET {origin}/a\nX-A: 1\n\n# b\nPOST http://127.0.0.1:1/b\n@sub/body.json\n",
    )
    .unwrap();
    std::fs::write(d.join("t/sub/body.json"), "{}").unwrap();
    let plan = |targets: &str| {
        format!(
            "name: t\norigin:\n  recipes: [{{route: /a, body: ok, stages: [{{at: 0, status: 200}}]}}]\ntargets:\n{targets}load: {{rates: [10], step: 1s}}\n"
        )
    };
    let ok = plan("  - {name: t, targets_file: t/targets.txt, headers: {X-All: y}}\n");
    let p = Plan::from_yaml(&ok, "plan.yaml", d).unwrap();
    let r = &p.targets[0].requests;
    assert_eq!(
        (r[0].method.as_str(), r[0].url.as_str()),
        ("GET", "{origin}/a")
    );
    assert_eq!(
        r[0].headers,
        vec![("X-All".into(), "y".into()), ("X-A".into(), "1".into())]
    );
    assert_eq!(
        (r[1].method.as_str(), r[1].body.as_deref()),
        ("POST", Some("{}"))
    );

    let bad_file = |text: &[u8]| {
        std::fs::write(d.join("t/targets.txt"), text).unwrap();
        let e = Plan::from_yaml(&ok, "plan.yaml", d).unwrap_err();
        assert_eq!((e.line, e.column), (5, 29), "{e}");
        assert!(e.message.starts_with("targets[0].targets_file: "), "{e}");
        e.message
    };
    let m = bad_file(b"GET http://h/\nnot a header\n");
    assert!(
        m.contains("targets.txt:2: expected a header \"Name: value\""),
        "{m}"
    );
    let m = bad_file(b"GET http://h/\n\nget http://h/\n");
    assert!(m.contains("targets.txt:3: bad method \"get\""), "{m}");
    let m = bad_file(b"GET http://h/\n\nGET ftp://u:pw-in-url@h/x\n");
    assert!(
        m.contains("targets.txt:3: bad URL \"ftp://u:xxxxx@h/x\": expected an absolute http:// or https:// URL"),
        "{m}"
    );
    let m = bad_file(b"POST http://h/\n@sub/none.json\n");
    assert!(
        m.contains("targets.txt:2: cannot read body file \"sub/none.json\""),
        "{m}"
    );
    std::fs::write(d.join("t/sub/bin"), [0xff, 0xfe]).unwrap();
    let m = bad_file(b"POST http://h/\n@sub/bin\n");
    assert!(
        m.contains("targets.txt:1: the body is not UTF-8 text"),
        "{m}"
    );
    let m = bad_file(b"# nothing\n");
    assert!(m.contains("targets.txt: no targets found"), "{m}");

    // Inline targets: each problem at its key.
    let inline = |t: &str| {
        Plan::from_yaml(&plan(&format!("  - {{name: a, {t}}}\n")), "plan.yaml", d).unwrap_err()
    };
    let e = inline("url: \"http://u:pw-in-url@/x\"");
    assert_eq!(
        (e.line, e.column, e.message.as_str()),
        (
            5,
            20,
            "targets[0].url: bad URL \"http://u:xxxxx@/x\": invalid authority"
        )
    );
    let e = inline("url: \"x{origin}/\"");
    assert!(
        e.message
            .starts_with("targets[0].url: bad URL \"x{origin}/\": expected an absolute"),
        "{e}"
    );
    let e = inline("url: \"http://h/\", method: \"G T\"");
    assert_eq!((e.line, e.column), (5, 41), "{e}");
    assert_eq!(e.message, "targets[0].method: invalid method \"G T\"");
    let e = inline("url: \"http://h/\", headers: {\"a b\": x}");
    assert_eq!((e.line, e.column), (5, 33), "{e}");
    assert_eq!(e.message, "targets[0].headers: bad header name \"a b\"");
    let e = inline("url: \"http://h/\", headers: {X-Ok: \"a\\nb\"}");
    assert_eq!(
        e.message,
        "targets[0].headers: bad value for header \"X-Ok\""
    );
}

#[test]
fn recipes_are_checked_at_load_where_they_are_written() {
    // issue 10 item 4: the origin's recipes are parsed once, when the plan
    // is loaded; a bad one is reported at its place in the plan.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plan = |origin: &str| {
        format!(
            "name: r\norigin:\n{origin}targets:\n  - {{name: a, url: \"{{origin}}/a\"}}\nload: {{rates: [10], step: 1s}}\n"
        )
    };
    let good = plan(
        "  recipes:\n    - {route: /a, body: ok, stages: [{at: 0, status: 200}]}\n    - route: /b\n      body: ok\n      stages: [{at: 0, status: 200, latency: 2ms}]\n",
    );
    let p = Plan::from_yaml(&good, "plan.yaml", d).unwrap();
    let o = p.origin.unwrap();
    assert_eq!(o.recipes.len(), 2);
    assert_eq!(
        (o.recipes[1].route.as_str(), o.source.as_str()),
        ("/b", "inline")
    );

    let e = Plan::from_yaml(
        &good.replace("latency: 2ms", "latency: soon"),
        "plan.yaml",
        d,
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (7, 46), "{e}");
    assert!(
        e.message
            .starts_with("origin.recipes[1].stages[0].latency: ")
            && e.message.ends_with("(route \"/b\")"),
        "{e}"
    );
    // An unknown key, at the key; every bad recipe of a list is named.
    let e = Plan::from_yaml(&good.replace("body: ok", "bdy: ok"), "plan.yaml", d).unwrap_err();
    assert_eq!((e.line, e.column), (4, 19), "{e}");
    assert!(
        e.message
            .starts_with("origin.recipes[0].bdy: unknown field (known: origin, body")
            && e.message
                .contains("; 1 more bad recipe: origin.recipes[1].bdy: unknown field"),
        "{e}"
    );
    // A single inline recipe (a mapping).
    let e = Plan::from_yaml(
        &plan("  recipes: {route: /a, body: ok, stages: [{at: 0, status: 99}]}\n"),
        "plan.yaml",
        d,
    )
    .unwrap_err();
    assert_eq!((e.line, e.column), (3, 59), "{e}");
    assert!(
        e.message.starts_with("origin.recipes.stages[0].status: "),
        "{e}"
    );
    // A recipe file: at the file's name in the plan.
    std::fs::write(
        d.join("recipe.json"),
        r#"{"route": "/a", "body": "ok", "stages": [{"at": 0, "status": 99}]}"#,
    )
    .unwrap();
    let e = Plan::from_yaml(&plan("  recipe: recipe.json\n"), "plan.yaml", d).unwrap_err();
    assert_eq!((e.line, e.column), (3, 11), "{e}");
    assert!(
        e.message
            .starts_with("origin.recipe: recipe.json: stages[0].status: "),
        "{e}"
    );
    std::fs::write(d.join("recipe.json"), "{").unwrap();
    let e = Plan::from_yaml(&plan("  recipe: recipe.json\n"), "plan.yaml", d).unwrap_err();
    assert!(
        e.message
            .starts_with("origin.recipe: recipe.json: (json): malformed JSON at line 1"),
        "{e}"
    );
}

#[test]
fn load_settings_the_engine_would_refuse_are_refused_at_load() {
    // issue 10 item 4: the plan's load becomes the engine's configuration in
    // one place (LoadPlan::attack_config), checked when the plan is loaded.
    for (key, value, message) in [
        ("workers", "0", "load.workers: must be at least 1"),
        ("max_workers", "0", "load.max_workers: must be at least 1"),
        (
            "max_connections",
            "0",
            "load.max_connections: must be at least 1",
        ),
        ("timeout", "0s", "load.timeout: must be longer than zero"),
    ] {
        let e = err(&GOOD.replace("  step: 2s", &format!("  step: 2s\n  {key}: {value}")));
        assert_eq!((e.line, e.column), (8, 5 + key.len()), "{e}");
        assert_eq!(e.message, message);
    }
    let p = Plan::from_yaml(
        &GOOD.replace(
            "  step: 2s",
            "  step: 2s\n  max_connections: 3\n  keepalive: false",
        ),
        "p.yaml",
        Path::new("."),
    )
    .unwrap();
    let c = p.load.attack_config(loadlab_core::Rate::per_second(20));
    assert_eq!(
        (c.duration, c.max_connections, c.keepalive, c.workers),
        (Some(std::time::Duration::from_secs(2)), Some(3), false, 10)
    );
    assert_eq!(
        c.pacer,
        loadlab_core::PacerSpec::Constant(loadlab_core::Rate::per_second(20))
    );
}

#[test]
fn a_file_that_is_not_a_plan_is_named_so() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("hello.js");
    std::fs::write(&f, "export default function () {}\n").unwrap();
    let e = loadlab_study::Plan::from_file(&f).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("not a study plan"), "{text}");
    assert!(!text.contains("RawPlan"), "{text}");
}
