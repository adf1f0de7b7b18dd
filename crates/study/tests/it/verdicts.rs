//! The hypothesis verdict path, from stored runs to the words a reader sees:
//! a verdict must never contradict the p-value and interval printed beside
//! it, and a design that cannot reach the level says so (issue 14 item 6).

use std::path::Path;

use loadlab_core::Sample;
use loadlab_study::Plan;
use loadlab_study::analysis::{self, Answer};
use loadlab_study::collect::Collector;
use loadlab_study::stats::Verdict;
use loadlab_study::store::RunRow;

fn plan(reps: u32, hypothesis: &str) -> Plan {
    let yaml = format!(
        r#"
name: verdicts
targets:
  - {{name: c5, url: "http://127.0.0.1:1/c5"}}
  - {{name: c6g, url: "http://127.0.0.1:1/c6g"}}
load: {{rates: [100, 200, 400, 800], step: 2s, warmup: 500ms}}
repetitions: {reps}
hypotheses: ["{hypothesis}"]
"#
    );
    Plan::from_yaml(&yaml, "plan.yaml", Path::new(".")).unwrap()
}

/// One synthetic run: 200 requests, `failed` of them 503, latency `ms` + jitter.
fn run(id: i64, target: &str, rate: u64, rep: u32, ms: u64, failed: u64) -> RunRow {
    let mut c = Collector::new(rate, 0, 100_000_000);
    for i in 0..200u64 {
        let at = i * 1_000_000_000 / rate;
        let lat = (ms + (i * 7 + rep as u64 * 3) % 5) * 1_000_000 + rep as u64 * 137_000;
        c.record(&Sample {
            seq: i,
            intended_ns: at,
            sent_ns: at,
            done_ns: at + lat,
            status: if i < failed { 503 } else { 200 },
            bytes_in: 100,
            ..Default::default()
        });
    }
    let data = c.finish();
    RunRow {
        id,
        study_id: 1,
        phase: "sweep".into(),
        rate,
        target: target.into(),
        repetition: rep,
        started_at: "2026-01-01T00:00:00Z".into(),
        slo_pass: None,
        summary: data.summary,
        latency: data.latency,
        service: data.service,
        series: data.series,
        monitor: Vec::new(),
    }
}

/// The demo's shape: c5 slower than c6g, and c5 losing requests only at 400/s
/// (where it stopped); c6g never fails. `reps` repetitions.
fn demo_runs(reps: u32) -> Vec<RunRow> {
    let mut runs = Vec::new();
    for rate in [100, 200, 400, 800] {
        for rep in 1..=reps {
            let id = runs.len() as i64 + 1;
            if rate <= 400 {
                let failed = if rate == 400 { 9 + rep as u64 } else { 0 };
                runs.push(run(id, "c5", rate, rep, 20 + rate / 20, failed));
            }
            runs.push(run(id + 1, "c6g", rate, rep, 15 + rate / 40, 0));
        }
    }
    runs
}

fn answer(reps: u32, h: &str) -> Answer {
    let p = plan(reps, h);
    analysis::answer(&p, &demo_runs(reps), &p.hypotheses[0])
}

#[test]
fn one_differing_rate_with_two_runs_is_inconclusive_and_says_what_is_needed() {
    // The issue's case: SUPPORTED was printed beside p = 0.221 with n = 2.
    let a = answer(2, "c6g.success >= c5.success");
    assert_eq!(a.verdict, Verdict::Inconclusive, "{}", a.explanation);
    assert_eq!(
        a.headline(),
        "inconclusive — n = 2 per cell, at least 3 needed"
    );
    assert!(
        a.explanation
            .starts_with("n = 2 per cell, at least 3 needed."),
        "{}",
        a.explanation
    );
    assert!(
        a.explanation.contains("`repetitions: 3`"),
        "{}",
        a.explanation
    );
    // The exact p for c6g > c5 is 1/6 (one informative rate, 2 vs 2), and the
    // interval must hold 0, not be [+4.08 %, +5.17 %] (the rates where both
    // had 100 % make any shift below 0 implausible: it starts at 0).
    let ev = a.evidence.as_ref().unwrap();
    assert!((ev.p_greater - 1.0 / 6.0).abs() < 1e-12, "{ev:?}");
    assert_eq!((ev.ci.0, ev.ci_open.0), (Some(0.0), false), "{ev:?}");
    assert!(
        a.explanation.contains("90% CI [+0.00%, +"),
        "{}",
        a.explanation
    );
    assert!(
        a.explanation.contains("p = 0.167 for c6g > c5"),
        "{}",
        a.explanation
    );
}

#[test]
fn three_runs_reach_the_level_and_the_interval_agrees() {
    let a = answer(3, "c6g.success >= c5.success");
    assert_eq!(a.verdict, Verdict::Supported, "{}", a.explanation);
    assert_eq!(a.headline(), "supported — p = 0.050 for c6g − c5 > 0");
    let ev = a.evidence.as_ref().unwrap();
    let lo = ev.ci.0.expect("a lower end");
    assert!(lo > 0.0 || (lo == 0.0 && ev.ci_open.0), "{ev:?}");
}

#[test]
fn a_margin_makes_equal_rates_count_for_non_inferiority() {
    let a = answer(2, "c6g.success >= c5.success within 0.5%");
    assert_eq!(a.verdict, Verdict::Supported, "{}", a.explanation);
    // Three rates with both sides, each 2 vs 2 entirely above c5 − 0.5 points: (1/6)^3.
    assert_eq!(a.summary, "p = 0.0046 for c6g − c5 > -0.50%");
    assert!(
        a.explanation.contains("Margin (`within`): 0.50%"),
        "{}",
        a.explanation
    );
}

#[test]
fn latency_at_two_rates_with_two_runs_is_supported_and_the_reverse_rejected() {
    let a = answer(2, "c6g.p99 < c5.p99 at rate <= 200");
    assert_eq!(a.verdict, Verdict::Supported, "{}", a.explanation);
    assert_eq!(a.summary, "p = 0.028 for c6g − c5 < 0");
    let ev = a.evidence.as_ref().unwrap();
    assert!(ev.ci.1.is_some_and(|h| h < 0.0), "{ev:?}");
    let a = answer(2, "c6g.p99 > c5.p99 at rate <= 200");
    assert_eq!(a.verdict, Verdict::Rejected, "{}", a.explanation);
    assert_eq!(a.summary, "p = 0.028 for c6g − c5 < 0");
    // One rate: 1/6 at best.
    let a = answer(2, "c6g.p99 < c5.p99 at rate 100");
    assert_eq!(
        a.headline(),
        "inconclusive — n = 2 per cell, at least 3 needed"
    );
}

#[test]
fn against_a_constant_the_sign_test_counts_every_run() {
    let a = answer(2, "c5.p50 > 10ms at rate <= 200");
    assert_eq!(
        a.headline(),
        "inconclusive — n = 2 per cell, at least 3 needed"
    );
    let a = answer(3, "c5.p50 > 10ms at rate <= 200");
    assert_eq!(a.verdict, Verdict::Supported, "{}", a.explanation);
    assert_eq!(a.summary, "p = 0.016 for c5 − 10.000ms > 0");
    assert!(
        a.explanation.contains("exact sign test over 6 runs"),
        "{}",
        a.explanation
    );
}

#[test]
fn nothing_varies_nothing_is_claimed() {
    let a = answer(2, "c6g.success >= c5.success at rate <= 200");
    assert_eq!(a.verdict, Verdict::Inconclusive);
    assert!(a.summary.starts_with("no variation"), "{}", a.summary);
}

#[test]
fn each_verdict_says_first_in_plain_words_what_the_runs_showed() {
    let a = answer(3, "c6g.success >= c5.success");
    assert!(
        a.plain.starts_with("c6g kept ") && a.plain.contains(" success where c5 had "),
        "{}",
        a.plain
    );
    assert!(a.plain.ends_with(": the claim holds."), "{}", a.plain);
    let a = answer(2, "c6g.success >= c5.success");
    assert!(
        a.plain
            .ends_with("too few runs to tell whether the claim holds."),
        "{}",
        a.plain
    );
}

/// c6g's runs are c5's, the repetitions in another order: the same
/// latency at every rate, within a fraction of a millisecond.
fn twin_runs(reps: u32) -> Vec<RunRow> {
    let mut runs = Vec::new();
    for rate in [100, 200, 400, 800] {
        for rep in 1..=reps {
            let id = runs.len() as i64 + 1;
            let ms = 20 + rate / 20;
            runs.push(run(id, "c5", rate, rep, ms, 0));
            runs.push(run(id + 1, "c6g", rate, reps + 1 - rep, ms, 0));
        }
    }
    runs
}

fn twin_answer(reps: u32, h: &str) -> Answer {
    let p = plan(reps, h);
    analysis::answer(&p, &twin_runs(reps), &p.hypotheses[0])
}

#[test]
fn an_equivalence_reads_equivalent_with_its_interval_and_margin() {
    let a = twin_answer(3, "c6g.p99 ≈ c5.p99 within 5%");
    assert_eq!(
        (a.verdict, a.word()),
        (Verdict::Supported, "equivalent"),
        "{}",
        a.explanation
    );
    assert!(
        a.headline()
            .starts_with("equivalent — within ±5% (c6g − c5: +0.0% of c5, 90% CI ["),
        "{}",
        a.headline()
    );
    // Both ends of the interval (from the test on the ratio) inside ±5 %.
    let ev = a.ratio_evidence.as_ref().expect("the test on the ratio");
    let (lo, hi) = (ev.ci.0.unwrap(), ev.ci.1.unwrap());
    assert!(lo > 0.95f64.ln() && hi < 1.05f64.ln(), "{ev:?}");
    // (1/20)^4 on each side: every run of c6g within 5 % of every run of c5.
    assert!(a.summary.ends_with("; p = 6.3e-6)"), "{}", a.summary);
    // The margin in the metric's unit, at c5's level at each rate.
    assert!(
        a.explanation
            .contains("Margin (`within`): ±5% of c5 at each rate (±1.4"),
        "{}",
        a.explanation
    );
    assert!(a.explanation.contains("ms at c5's mean per rate)"));
    // The shift in the metric's unit, from the same test on the values.
    assert!(a.explanation.contains(". c6g − c5: median shift +0.000ms"));
}

#[test]
fn a_difference_beyond_the_margin_is_not_equivalent() {
    // c6g is about 29 % faster than c5.
    let a = answer(3, "c6g.p99 ≈ c5.p99 within 5%");
    assert_eq!((a.verdict, a.word()), (Verdict::Rejected, "not equivalent"));
    assert!(
        a.summary
            .starts_with("outside ±5% (c6g − c5: -29% of c5, 90% CI [-"),
        "{}",
        a.summary
    );
    // An absolute margin: in the metric's unit, and relative to c5's mean.
    let a = answer(3, "c6g.p99 ~= c5.p99 within 2ms");
    assert_eq!(a.word(), "not equivalent");
    assert!(
        a.summary
            .starts_with("outside ±2.000ms (c6g − c5: -10.000ms, 90% CI ["),
        "{}",
        a.summary
    );
    assert!(
        a.explanation.contains("±2.000ms = 5.56% of c5's mean 35.9"),
        "{}",
        a.explanation
    );
    // But c6g is not slower than c5 by more than 5 % (non-inferiority).
    let a = answer(3, "c6g.p99 <= c5.p99 within 5%");
    assert_eq!((a.verdict, a.word()), (Verdict::Supported, "supported"));
    assert_eq!(a.summary, "p = 0.0001 for c6g − c5 < +5.0% of c5");
}

#[test]
fn an_equivalence_the_design_cannot_reach_says_how_many_runs_it_needs() {
    // One rate of 2 vs 2: 1/6 at best on each side.
    let a = twin_answer(2, "c6g.p99 ≈ c5.p99 within 5% at rate 100");
    assert_eq!(
        (a.verdict, a.word()),
        (Verdict::Inconclusive, "inconclusive")
    );
    assert_eq!(
        a.headline(),
        "inconclusive — n = 2 per cell, at least 3 needed"
    );
    assert!(
        a.explanation
            .contains("the equivalence's two one-sided tests cannot both reach p <= 0.050"),
        "{}",
        a.explanation
    );
    // Two rates of 2 vs 2 reach 1/36 on both sides.
    let a = twin_answer(2, "c6g.p99 ≈ c5.p99 within 5% at rate <= 200");
    assert_eq!(a.word(), "equivalent", "{}", a.explanation);
}

#[test]
fn the_terminal_answer_and_the_report_lead_with_the_equivalence_word() {
    let reps = 3;
    let p = plan(reps, "c6g.p99 ≈ c5.p99 within 5%");
    let runs = twin_runs(reps);
    let an = analysis::analyse(&p, &runs);
    let text = analysis::render_answer(&p, &an);
    assert!(
        text.contains("  EQUIVALENT    c6g.p99 ≈ c5.p99 within 5%  within ±5% (c6g − c5: "),
        "{text}"
    );
    let dir = tempfile::tempdir().unwrap();
    let row = loadlab_study::store::StudyRow {
        id: 1,
        name: "verdicts".into(),
        plan_path: "plan.yaml".into(),
        plan_yaml: String::new(),
        plan_json: serde_json::to_string(&p).unwrap(),
        environment_json: "{}".into(),
        out_dir: String::new(),
        created_at: "2026-01-01T00:00:00Z".into(),
        finished_at: None,
        status: "done".into(),
        runs: runs.len() as i64,
        label: String::new(),
    };
    let out = dir.path().join("report");
    loadlab_study::report::write_report(&row, &p, &runs, &an, &out).unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(
        md.contains("**EQUIVALENT** — 1. `c6g.p99 ≈ c5.p99 within 5%` — "),
        "{md}"
    );
    assert!(md.contains("within ±5% (c6g − c5: "), "{md}");
    assert!(
        md.contains("An equivalence (≈) is two one-sided tests, each at 0.05")
            && md.contains("on the logarithms of the runs' values"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<div class=\"verdict supported\"><strong>EQUIVALENT</strong> — "),
        "{html}"
    );
    // The stored analysis reads back with its words.
    let back: analysis::Analysis =
        serde_json::from_str(&serde_json::to_string(&an).unwrap()).unwrap();
    assert_eq!(back.answers[0].word(), "equivalent");
}
