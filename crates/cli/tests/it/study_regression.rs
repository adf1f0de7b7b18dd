//! A plan's `regression:` block end to end: three short studies of one
//! plan against an origin whose route answers 30 % slower in the third;
//! `loadlab study` itself passes the first two and exits 9 on the third,
//! with one line naming the target, the rate and the change.

use std::path::Path;

use super::study_history::{loadlab, origin, text};

fn plan(d: &Path, addr: std::net::SocketAddr, regression: &str) {
    let plan = format!(
        "name: gate\ntargets:\n  - {{name: api, url: \"http://{addr}/h\"}}\n\
         load: {{rates: [50], step: 300ms, warmup: 100ms}}\nrepetitions: 5\n\
         regression: {regression}\n"
    );
    std::fs::write(d.join("plan.yaml"), plan).unwrap();
}

fn study(d: &Path, i: u32) -> std::process::Output {
    let (label, out) = (format!("v{i}"), format!("out{i}"));
    loadlab(
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
    )
}

#[test]
fn a_plan_regression_block_fails_the_study_that_got_slower() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut o = origin("127.0.0.1:0".parse().unwrap(), "200ms");
    let addr = o.addr;
    plan(d, addr, "{since: previous, margin: 10%, metric: p50}");

    let r = study(d, 1);
    assert!(r.status.success(), "{}", text(&r));
    assert!(
        text(&r).contains("regression: api at 50/s: no earlier study of plan \"gate\""),
        "{}",
        text(&r)
    );
    let r = study(d, 2);
    assert!(r.status.success(), "{}", text(&r));
    assert!(
        text(&r).contains("regression: none in p50 beyond 10.0%"),
        "{}",
        text(&r)
    );

    o.shutdown();
    o = origin(addr, "260ms");
    let r = study(d, 3);
    let out = text(&r);
    assert_eq!(r.status.code(), Some(9), "{out}");
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("regression: api at 50/s: study 3 (v3) against 2 (v2): p50 +"))
        .collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(lines[0].contains("beyond the 10.0% margin"), "{out}");
    // The report was written before the gate failed.
    assert!(d.join("out3/report.md").exists());

    // A label no earlier study has: refused by name, as bad input.
    plan(d, addr, "{since: v9, margin: 10%}");
    let r = study(d, 4);
    assert_eq!(r.status.code(), Some(3), "{}", text(&r));
    assert!(
        text(&r).contains("regression.since v9: no earlier study of plan \"gate\""),
        "{}",
        text(&r)
    );
    o.shutdown();
}

#[test]
fn a_bad_regression_block_is_refused_where_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (block, want) in [
        ("{margin: lots}", "regression.margin"),
        ("{metric: p42}", "regression.metric"),
        ("{target: web}", "regression.target"),
        (
            "{sinse: previous}",
            "unknown key `sinse` (did you mean `since`?)",
        ),
    ] {
        plan(d, "127.0.0.1:9".parse().unwrap(), block);
        let r = loadlab(d, &["study", "plan.yaml", "--check", "--db", "s.db"]);
        assert_eq!(r.status.code(), Some(3), "{block}: {}", text(&r));
        let t = text(&r);
        assert!(
            t.contains(want) && t.contains("plan.yaml:6:"),
            "{block}: {t}"
        );
    }
}
