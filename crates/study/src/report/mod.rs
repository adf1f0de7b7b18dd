//! The study report: `report.md` (+ `charts/*.png`) and a self-contained
//! `report.html` (charts as inline SVG), shaped like a hand-written load-test
//! write-up: question and hypotheses, verdicts, setup, summary tables,
//! ceilings, charts, then one section per step with vegeta-style numbers.

pub mod capacity;
pub mod charts;
pub mod command;
pub mod concurrent;
pub mod doc;
pub mod figures;
pub mod run_pages;
pub mod split_note;
pub mod text;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hdrhistogram::Histogram;
use loadlab_core::{Rate, format_go_duration};

use crate::analysis::{self, Analysis, PROBE, SWEEP};
use crate::env::Environment;
use crate::origins::Origins;
use crate::plan::{CeilingMethod, CeilingPlan, Plan};
use crate::store::{RunRow, StudyRow};
use charts::{Figure, Line, Panel, Rule, Shade};
pub use command::attack_command;
use doc::Block;
use figures::{charts_section, slo_p99_rule, spectrum_panel};

/// Table-friendly latency: 3 significant digits in ms (full precision lives in the vegeta blocks).
fn ms(ns: f64) -> String {
    let v = ns / 1e6;
    if v >= 100.0 {
        format!("{v:.0}ms")
    } else if v >= 10.0 {
        format!("{v:.1}ms")
    } else {
        format!("{v:.2}ms")
    }
}

/// Pooled figures of one (phase, rate, target) over its repetitions.
struct Agg<'a> {
    runs: Vec<&'a RunRow>,
    hist: Histogram<u64>,
    success: f64,
    throughput: f64,
    codes: BTreeMap<u16, u64>,
    cpu: Option<f64>,
    pass: Option<bool>,
}

fn aggregate<'a>(runs: &'a [RunRow], phase: &str, rate: u64, target: &str) -> Option<Agg<'a>> {
    let rs: Vec<&RunRow> = runs
        .iter()
        .filter(|r| r.phase == phase && r.rate == rate && r.target == target)
        .collect();
    if rs.is_empty() {
        return None;
    }
    let mut hist = rs[0].latency.clone();
    for r in &rs[1..] {
        let _ = hist.add(&r.latency);
    }
    let total: u64 = rs.iter().map(|r| r.summary.requests).sum();
    let ok: f64 = rs
        .iter()
        .map(|r| r.summary.success * r.summary.requests as f64)
        .sum();
    let mut codes = BTreeMap::new();
    for r in &rs {
        for (c, n) in &r.summary.status_codes {
            *codes.entry(*c).or_insert(0) += n;
        }
    }
    let cpus: Vec<f64> = rs.iter().filter_map(|r| r.summary.cpu_mean).collect();
    let passes: Vec<bool> = rs.iter().filter_map(|r| r.slo_pass).collect();
    Some(Agg {
        success: if total > 0 { ok / total as f64 } else { 0.0 },
        throughput: rs.iter().map(|r| r.summary.throughput).sum::<f64>() / rs.len() as f64,
        cpu: (!cpus.is_empty()).then(|| cpus.iter().sum::<f64>() / cpus.len() as f64),
        pass: (!passes.is_empty()).then(|| crate::analysis::step_pass(&passes)),
        runs: rs,
        hist,
        codes,
    })
}

fn q(h: &Histogram<u64>, p: f64) -> f64 {
    if h.is_empty() {
        0.0
    } else {
        h.value_at_quantile(p) as f64
    }
}

fn target_index(plan: &Plan, name: &str) -> usize {
    plan.targets
        .iter()
        .position(|t| t.name == name)
        .unwrap_or(0)
}

fn percent_of(h: &Histogram<u64>) -> impl Fn(f64) -> f64 + '_ {
    move |p| q(h, p)
}

/// ` (label L)` after the study's number, when it has one.
fn label_note(label: &str) -> String {
    if label.is_empty() {
        String::new()
    } else {
        format!(" (label {label})")
    }
}

/// Builds the whole document.
pub fn build(study: &StudyRow, plan: &Plan, runs: &[RunRow], analysis: &Analysis) -> Vec<Block> {
    // Reports are made to be shared: no credential in any line of them.
    let plan = &plan.redacted();
    let env: Environment = serde_json::from_str(&study.environment_json).unwrap_or_default();
    let mut b = Vec::new();
    b.push(Block::Heading(1, format!("Study: {}", plan.name)));
    b.push(Block::Para(format!(
        "Study #{}{} · started {} · status {} · {} runs · plan `{}`",
        study.id,
        label_note(&study.label),
        study.created_at,
        study.status,
        runs.len(),
        study.plan_path
    )));
    if !env.merged_from.is_empty() || env.worker.is_some() {
        b.push(Block::Para(split_note::report_note(&env, plan, runs)));
    }
    if let Some(qn) = &plan.question {
        b.push(Block::Heading(2, "Question".into()));
        b.push(Block::Para(qn.clone()));
    }

    // Verdicts first: the answer is what readers come for.
    verdicts_section(&mut b, analysis);
    runs_not_measured(&mut b, analysis);

    // Ceilings.
    if !analysis.ceilings.is_empty() {
        b.push(Block::Heading(2, "Ceilings".into()));
        let slo = plan.slo.as_ref().map(describe_slo).unwrap_or_default();
        b.push(Block::Para(format!(
            "Highest rate each target sustains within the SLO ({slo})."
        )));
        let rows = analysis
            .ceilings
            .iter()
            .map(|c| {
                vec![
                    c.target.clone(),
                    c.pass.map_or("—".into(), |p| p.to_string()),
                    c.fail.map_or("—".into(), |f| f.to_string()),
                    c.describe_in(plan),
                    probe_count(runs, &c.target).to_string(),
                ]
            })
            .collect();
        b.push(Block::Table {
            header: vec![
                "Target".into(),
                "Passes at".into(),
                "Fails at".into(),
                "Ceiling".into(),
                "Probe runs".into(),
            ],
            rows,
        });
        if let Some(c) = plan
            .ceiling
            .as_ref()
            .filter(|c| c.method == CeilingMethod::Model)
        {
            b.push(Block::Para(model_search_note(runs, analysis, c)));
        }
    }

    capacity::capacity_section(&mut b, plan, runs);
    let rates = summary_section(&mut b, plan, runs);

    let slo_p99 = slo_p99_rule(plan);
    charts_section(&mut b, plan, runs, analysis, &rates, &slo_p99);
    steps_section(&mut b, plan, runs, &rates, &slo_p99);

    // Setup last-but-one: long, for reproduction.
    b.push(Block::Heading(2, "Setup".into()));
    b.push(Block::Table {
        header: vec![
            "Host".into(),
            "CPU".into(),
            "Cores".into(),
            "Kernel".into(),
            "loadlab".into(),
            "Revision".into(),
        ],
        rows: vec![vec![
            env.host,
            env.cpu_model,
            env.cores.to_string(),
            env.kernel,
            env.loadlab_version,
            env.git_revision,
        ]],
    });
    let mut items = vec![
        format!(
            "Targets: {}",
            plan.targets
                .iter()
                .map(|t| format!(
                    "`{}` ({})",
                    t.name,
                    if let Some(w) = &t.workload {
                        format!("a {} workload", w.tool())
                    } else if let Some(r) = &t.replay {
                        match r.speed {
                            Some(s) => format!("replays {} at ×{s}", r.file),
                            None => format!("replays {} at each step's speed", r.file),
                        }
                    } else if t.members.is_empty() {
                        t.requests
                            .iter()
                            .map(|r| format!("{} {}", r.method, r.url))
                            .collect::<Vec<_>>()
                            .join(", ")
                    } else {
                        format!("concurrent: {}", t.members.join(", "))
                    }
                ))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        format!(
            "{}: {:?}{}, {} per run, {} warm-up, {} cool-down, {} repetition(s)",
            if plan.load.is_rate() {
                "Rates".to_string()
            } else {
                format!("Steps ({})", plan.load.axis)
            },
            plan.load.rates,
            if plan.load.is_rate() { " req/s" } else { "" },
            format_go_duration(plan.load.step),
            format_go_duration(plan.load.warmup),
            format_go_duration(plan.load.cooldown),
            plan.repetitions
        ),
    ];
    items.extend(origins_item(plan));
    if let Some(s) = &plan.slo {
        items.push(format!("SLO: {}", describe_slo(s)));
    }
    if let Some(c) = &plan.ceiling {
        items.push(format!(
            "Ceiling search: {} to {}, at most {} probes per target",
            match c.method {
                CeilingMethod::Bisect => "bisect",
                CeilingMethod::Model => "model-guided probes",
            },
            plan.load.level_label(c.resolution),
            c.max_probes
        ));
    }
    if let Some(m) = &plan.monitor {
        items.push(format!(
            "Monitored: {}",
            m.process
                .clone()
                .unwrap_or_else(|| format!("pid {}", m.pid.unwrap_or(0)))
        ));
    }
    b.push(Block::List(items));
    b.push(Block::Para(
        "Equivalent command lines (one per target; `-rate=X` is each step's rate):".into(),
    ));
    let cmds: Vec<String> = plan
        .targets
        .iter()
        .map(|t| {
            attack_command(
                plan,
                &t.name,
                None,
                &Origins::shown(plan.origin.as_ref(), &plan.origins),
            )
        })
        .collect();
    b.push(Block::Code("sh".into(), cmds.join("\n")));
    for (name, o, url) in origins_shown(plan) {
        let whose = name.map_or("Origin recipe".to_string(), |n| {
            format!("Origin `{n}`: recipe")
        });
        b.push(Block::Para(format!(
            "{whose} ({}), served in-process at `{url}`:",
            o.source
        )));
        b.push(Block::Code("json".into(), o.recipes_json.clone()));
    }
    b.push(Block::Para("The plan:".into()));
    b.push(Block::Code(
        "yaml".into(),
        crate::secrets::redact_plan_yaml(&study.plan_yaml),
    ));
    b
}

/// The Summary section, rate × target (and the custom metrics' table);
/// gives the steps in order.
/// The hypotheses' verdicts, each with its plain sentence first, and the
/// method they were computed with.
fn probe_count(runs: &[RunRow], target: &str) -> usize {
    runs.iter()
        .filter(|r| r.target == target && r.phase == PROBE)
        .count()
}

/// What the model-guided search cost against the bisection of the same
/// brackets (its worst case, as the plan's outline estimates it).
fn model_search_note(runs: &[RunRow], an: &Analysis, c: &CeilingPlan) -> String {
    let parts: Vec<String> = an
        .ceilings
        .iter()
        .filter_map(|ceil| {
            let steps = analysis::step_outcomes(runs, &ceil.target, SWEEP);
            let fail = steps.iter().filter(|s| !s.1).map(|s| s.0).min()?;
            let pass = steps
                .iter()
                .filter(|s| s.1 && s.0 < fail)
                .map(|s| s.0)
                .max();
            let bisect = analysis::bisection_probes(pass.unwrap_or(0), fail, 0, c);
            Some(format!(
                "{} {} probe run(s) where bisecting [{}, {fail}] takes {bisect}",
                ceil.target,
                probe_count(runs, &ceil.target),
                pass.unwrap_or(0)
            ))
        })
        .collect();
    format!(
        "Probes placed by the SLO model of the runs so far (method: model): {}.",
        if parts.is_empty() {
            "none needed".to_string()
        } else {
            parts.join("; ")
        }
    )
}

fn verdicts_section(b: &mut Vec<Block>, analysis: &Analysis) {
    if analysis.answers.is_empty() {
        return;
    }
    b.push(Block::Heading(2, "Hypotheses and verdicts".into()));
    for (i, a) in analysis.answers.iter().enumerate() {
        b.push(Block::Verdict {
            verdict: a.verdict.word().into(),
            label: a.word().into(),
            // The plain sentence first, then the statistics.
            text: if a.plain.is_empty() {
                format!("{}. `{}` — {}", i + 1, a.hypothesis, a.explanation)
            } else {
                format!(
                    "{}. `{}` — {} {}",
                    i + 1,
                    a.hypothesis,
                    a.plain,
                    a.explanation
                )
            },
        });
    }
    // The method of the verdicts shown, from the values that computed them.
    let tests: Vec<crate::stats::Test> = analysis
        .answers
        .iter()
        .filter_map(|a| a.evidence.as_ref().map(|e| e.test))
        .collect();
    let alpha = analysis
        .answers
        .iter()
        .find_map(|a| a.evidence.as_ref().map(|e| e.alpha))
        .unwrap_or(crate::stats::ALPHA);
    b.push(Block::Para(crate::stats::method_text(&tests, alpha)));
    let equivalence = analysis.answers.iter().any(|a| !a.word.is_empty());
    let relative = analysis.answers.iter().any(|a| a.ratio_evidence.is_some());
    if equivalence || relative {
        b.push(Block::Para(crate::relative::method_text(
            equivalence,
            relative,
            alpha,
        )));
    }
}

/// The runs whose figures are not the target's: every request failed to
/// connect, or the load generator fell behind its schedule. Named, never
/// left out silently (the verdicts that rest on them say so too).
fn runs_not_measured(b: &mut Vec<Block>, analysis: &Analysis) {
    if analysis.behind.is_empty() && analysis.unreachable.is_empty() {
        return;
    }
    b.push(Block::Heading(
        2,
        "Runs that did not measure the target".into(),
    ));
    if !analysis.unreachable.is_empty() {
        b.push(Block::Para(format!(
            "In {} run(s) no request reached the target:",
            analysis.unreachable.len()
        )));
        b.push(Block::List(analysis.unreachable.clone()));
    }
    if !analysis.behind.is_empty() {
        b.push(Block::Para(format!(
            "In {} run(s) {}: their figures are the client's limits, not the target's, and every verdict resting on them is flagged. Rerun those steps on a quieter machine (or with more workers) before relying on them:",
            analysis.behind.len(),
            crate::collect::BEHIND_NOTE.replace(": this run measures the client", ""),
        )));
        b.push(Block::List(analysis.behind.clone()));
    }
}

fn summary_section(b: &mut Vec<Block>, plan: &Plan, runs: &[RunRow]) -> Vec<(String, u64)> {
    // Summary table: rate × target.
    b.push(Block::Heading(
        2,
        if plan.load.is_rate() {
            "Summary by rate and target".into()
        } else {
            format!("Summary by {} and target", plan.load.axis)
        },
    ));
    // A database study's unit is the transaction, in a closed loop: no
    // HTTP status, no correction for an open model's schedule.
    let database = !runs.is_empty() && runs.iter().all(|r| r.summary.is_database());
    let latency = if database {
        "Latency is per transaction, as sysbench measures it (each thread sends its next transaction when the last is done); tps counts transactions, qps statements."
    } else {
        "Latency is measured from the intended send time (corrected for coordinated omission)."
    };
    b.push(Block::Para(format!(
        "Pooled over {} repetition(s) per cell, warm-up excluded. {latency}",
        plan.repetitions
    )));
    // A script's thresholds: a column beside the SLO's when any run has them.
    let thresholds = runs.iter().any(|r| !r.summary.thresholds.is_empty());
    let mut rows = Vec::new();
    let mut rates: Vec<(String, u64)> = runs.iter().map(|r| (r.phase.clone(), r.rate)).collect();
    rates.sort_by_key(|(p, r)| (*r, p != SWEEP));
    rates.dedup();
    for (phase, rate) in &rates {
        for t in &plan.targets {
            let Some(a) = aggregate(runs, phase, *rate, &t.name) else {
                continue;
            };
            let p = percent_of(&a.hist);
            let codes: Vec<String> = if database {
                let qps = a
                    .runs
                    .iter()
                    .filter_map(|r| r.summary.queries.as_ref().map(|q| q.per_second))
                    .sum::<f64>()
                    / a.runs.len() as f64;
                vec![format!("{qps:.1}")]
            } else {
                a.codes.iter().map(|(c, n)| format!("{c}:{n}")).collect()
            };
            rows.push(vec![
                format!("{rate}{}", if phase == PROBE { " (probe)" } else { "" }),
                t.name.clone(),
                a.runs.len().to_string(),
                ms(a.runs.iter().map(|r| r.summary.mean_ns).sum::<f64>() / a.runs.len() as f64),
                ms(p(0.5)),
                ms(p(0.95)),
                ms(p(0.99)),
                ms(a.hist.max() as f64),
                format!("{:.2}%", a.success * 100.0),
                format!("{:.1}", a.throughput),
                codes.join(" "),
                a.cpu.map_or("—".into(), |c| format!("{c:.0}%")),
                match a.pass {
                    Some(true) => "pass".into(),
                    Some(false) => "FAIL".into(),
                    None => "—".into(),
                },
            ]);
            if thresholds {
                rows.last_mut()
                    .expect("a row")
                    .push(thresholds_cell(&a.runs));
            }
        }
    }
    let axis_head = if plan.load.is_rate() {
        "Rate".to_string()
    } else {
        plan.load.axis.clone()
    };
    let header = [
        axis_head.as_str(),
        "Target",
        "Runs",
        "Mean",
        "p50",
        "p95",
        "p99",
        "Max",
        "Success",
        if database { "tps" } else { "Throughput" },
        if database { "qps" } else { "Status codes" },
        "CPU",
        "SLO",
    ];
    let mut header: Vec<String> = header.iter().map(|s| s.to_string()).collect();
    if thresholds {
        header.push("Thresholds".into());
    }
    b.push(Block::Table { header, rows });
    metrics_table(b, plan, runs, &rates);
    rates
}

/// A cell's threshold verdicts: `held (2)`, or each crossed one and in
/// how many of the cell's runs (`crossed: http_req_duration p(95)<50 in
/// 2 of 3 runs`).
fn thresholds_cell(runs: &[&RunRow]) -> String {
    let mut crossed: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut kinds = std::collections::BTreeSet::new();
    for r in runs {
        for t in &r.summary.thresholds {
            kinds.insert((t.metric.clone(), t.threshold.clone()));
            if !t.ok {
                *crossed
                    .entry((t.metric.clone(), t.threshold.clone()))
                    .or_default() += 1;
            }
        }
    }
    if kinds.is_empty() {
        return "—".into();
    }
    if crossed.is_empty() {
        return format!("held ({})", kinds.len());
    }
    let parts: Vec<String> = crossed
        .iter()
        .map(|((m, t), n)| format!("{m} {t} in {n} of {} runs", runs.len()))
        .collect();
    format!("crossed: {}", parts.join("; "))
}

/// The Steps section: per step, its charts, then its runs folded.
fn steps_section(
    b: &mut Vec<Block>,
    plan: &Plan,
    runs: &[RunRow],
    rates: &[(String, u64)],
    slo_p99: &Option<Rule>,
) {
    // Steps.
    b.push(Block::Heading(2, "Steps".into()));
    b.push(Block::Para(format!(
        "Each run lasts {} of which the first {} is warm-up: shaded in the charts and excluded from every figure. \
         Targets are interleaved within each step (A B A B …) so drift hits them alike.",
        format_go_duration(plan.load.step),
        format_go_duration(plan.load.warmup)
    )));
    for (i, (phase, rate)) in rates.iter().enumerate() {
        let kind = if phase == PROBE {
            "ceiling probe"
        } else {
            "step"
        };
        b.push(Block::Heading(
            3,
            format!("Test {} — {} ({kind})", i + 1, plan.load.level_label(*rate)),
        ));
        // The step's charts first; its runs, one block each, folded below.
        let mut run_blocks = Vec::new();
        let mut time_lines = Vec::new();
        let mut overlay = Vec::new();
        for t in &plan.targets {
            let Some(a) = aggregate(runs, phase, *rate, &t.name) else {
                continue;
            };
            let c = target_index(plan, &t.name);
            for r in &a.runs {
                run_blocks.extend(run_blocks_of(plan, &t.name, *rate, r));
                time_lines.push(time_line(plan, &t.name, a.runs.len(), r));
            }
            overlay.push(Line::new(
                t.name.clone(),
                c,
                charts::spectrum_points(&a.hist),
            ));
        }
        let slug = format!("{phase}-{rate}");
        b.push(Block::Chart(Figure {
            id: format!("latency-{slug}"),
            title: format!(
                "Latency over time at {} (p99 per bucket; warm-up shaded)",
                plan.load.level_label(*rate)
            ),
            panels: vec![time_panel(plan, time_lines, slo_p99)],
        }));
        if overlay.len() > 1 {
            b.push(Block::Chart(Figure {
                id: format!("ab-{slug}"),
                title: format!(
                    "A/B overlay at {}: percentile spectrum",
                    plan.load.level_label(*rate)
                ),
                panels: vec![spectrum_panel(overlay)],
            }));
        }
        concurrent::side_by_side(b, plan, runs, phase, *rate);
        if !run_blocks.is_empty() {
            let n = run_blocks.len() / 2;
            b.push(Block::Details {
                summary: format!("The {n} run(s) of this step: command lines and vegeta reports"),
                blocks: run_blocks,
            });
        }
    }
}

/// A run's heading and its command line with its vegeta-style report.
fn run_blocks_of(plan: &Plan, target: &str, rate: u64, r: &RunRow) -> [Block; 2] {
    let origins = Origins::shown(plan.origin.as_ref(), &plan.origins);
    let command = attack_command(plan, target, Some(Rate::per_second(rate)), &origins);
    [
        Block::Heading(4, format!("{target} — repetition {}", r.repetition)),
        Block::Code(
            String::new(),
            format!(
                "{command}\n\n{}{}",
                text::vegeta_text(&r.summary),
                text::extras(&r.summary, plan.load.warmup)
            ),
        ),
    ]
}

/// One run's line on its step's latency-over-time chart, named after the
/// SLO bounds the run broke, if any.
fn time_line(plan: &Plan, target: &str, reps: usize, r: &RunRow) -> Line {
    let pts: Vec<(f64, f64)> = r
        .series
        .iter()
        .map(|p| (p.t, p.p99_ns as f64 / 1e6))
        .collect();
    let mut label = if reps > 1 {
        format!("{target} #{} p99", r.repetition)
    } else {
        format!("{target} p99")
    };
    let broke: Vec<String> = plan
        .slo
        .as_ref()
        .map(|slo| crate::analysis::slo_failures(slo, &r.summary))
        .unwrap_or_default()
        .iter()
        .map(|b| b.metric())
        .collect();
    if !broke.is_empty() {
        label = format!("{label} (failed SLO {})", broke.join(", "));
    }
    Line::new(label, target_index(plan, target), pts)
}

/// A step's latency-over-time panel: each run's p99 per bucket, the
/// warm-up shaded, the SLO's p99 bound.
fn time_panel(plan: &Plan, lines: Vec<Line>, slo_p99: &Option<Rule>) -> Panel {
    let mut p = Panel::new("latency", "seconds since start of run", "latency (ms)");
    p.lines = lines;
    p.shade = (!plan.load.warmup.is_zero()).then(|| Shade {
        from: 0.0,
        to: plan.load.warmup.as_secs_f64(),
        label: "warm-up (excluded)".into(),
    });
    p.rules = slo_p99.iter().cloned().collect();
    p
}

/// Each in-process origin of `plan`: its name (`None`: `origin:`), its
/// plan and where the report shows it (`http://ORIGIN`, `http://ORIGIN-NAME`).
fn origins_shown(plan: &Plan) -> Vec<(Option<&str>, &crate::plan::OriginPlan, String)> {
    let shown = Origins::shown(plan.origin.as_ref(), &plan.origins);
    let unnamed = plan
        .origin
        .iter()
        .zip(&shown.unnamed)
        .map(|(o, u)| (None, o, u.clone()));
    let named = plan
        .origins
        .iter()
        .zip(&shown.named)
        .map(|((n, o), (_, u))| (Some(n.as_str()), o, u.clone()));
    unnamed.chain(named).collect()
}

/// The Setup line naming the in-process origins and the routes of each.
fn origins_item(plan: &Plan) -> Option<String> {
    let all = origins_shown(plan);
    if all.is_empty() {
        return None;
    }
    let described: Vec<String> = all
        .iter()
        .map(|(name, o, url)| {
            // A plan read back from the store has only the recipes' text.
            let routes = match loadlab_origin::parse_recipes(&o.recipes_json) {
                Ok(r) => r
                    .iter()
                    .map(|r| r.route.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                Err(_) => "recipes unreadable".into(),
            };
            let name = name.map_or(String::new(), |n| format!("`{n}` "));
            format!("{name}at `{url}` ({}: {routes})", o.source)
        })
        .collect();
    let label = if all.len() == 1 { "Origin" } else { "Origins" };
    Some(format!("{label} (in-process): {}", described.join("; ")))
}

pub fn describe_slo(s: &crate::plan::Slo) -> String {
    crate::analysis::SloBound::all(s)
        .iter()
        .map(figures::bound_text)
        .collect::<Vec<_>>()
        .join(", ")
}

/// Writes `report.md`, `charts/*.png` and `report.html` into `out`.
pub fn write_report(
    study: &StudyRow,
    plan: &Plan,
    runs: &[RunRow],
    analysis: &Analysis,
    out: &Path,
) -> Result<(), String> {
    write_report_with(study, plan, runs, analysis, out, Vec::new())
}

/// [`write_report`] with `extra` blocks at the end (the comparison with a
/// baseline study).
pub fn write_report_with(
    study: &StudyRow,
    plan: &Plan,
    runs: &[RunRow],
    analysis: &Analysis,
    out: &Path,
    extra: Vec<Block>,
) -> Result<(), String> {
    let charts_dir = out.join("charts");
    std::fs::create_dir_all(&charts_dir).map_err(|e| format!("{}: {e}", charts_dir.display()))?;
    let mut blocks = build(study, plan, runs, analysis);
    blocks.extend(run_pages::section(runs, out));
    blocks.extend(extra);
    for blk in &blocks {
        if let Block::Chart(f) = blk {
            f.png(&charts_dir.join(format!("{}.png", f.id)))?;
        }
    }
    let md = doc::markdown(&blocks);
    std::fs::write(out.join("report.md"), md).map_err(|e| format!("report.md: {e}"))?;
    let html = doc::html(&format!("Study: {}", plan.name), &blocks)?;
    std::fs::write(out.join("report.html"), html).map_err(|e| format!("report.html: {e}"))?;
    Ok(())
}

/// The scripts' and database tests' own metrics (k6 Counters, Trends, Rates,
/// Gauges): per step, target and metric, the median over the cell's runs.
fn metrics_table(b: &mut Vec<Block>, plan: &Plan, runs: &[RunRow], steps: &[(String, u64)]) {
    if runs.iter().all(|r| r.summary.metrics.is_empty()) {
        return;
    }
    b.push(Block::Heading(2, "Script and database metrics".into()));
    b.push(Block::Para(
        "Each figure is the median over the cell's runs, warm-up excluded. Counters: total and per second; trends: mean and percentiles (ms for times); rates: share of hits; gauges: last value.".into(),
    ));
    let median = |mut v: Vec<f64>| -> f64 {
        v.sort_by(f64::total_cmp);
        match v.len() {
            0 => 0.0,
            n if n % 2 == 1 => v[n / 2],
            n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
        }
    };
    let num = |v: f64| {
        if v == v.trunc() && v.abs() < 1e15 {
            format!("{v:.0}")
        } else {
            format!("{v:.2}")
        }
    };
    let mut rows = Vec::new();
    for (phase, level) in steps {
        for t in &plan.targets {
            let cell: Vec<&RunRow> = runs
                .iter()
                .filter(|r| r.phase == *phase && r.rate == *level && r.target == t.name)
                .collect();
            let mut labels: Vec<(&str, &str)> = Vec::new();
            for r in &cell {
                for m in &r.summary.metrics {
                    if !labels.iter().any(|(l, _)| *l == m.label) {
                        labels.push((&m.label, &m.kind));
                    }
                }
            }
            for (label, kind) in labels {
                let pick = |f: &dyn Fn(&crate::collect::MetricRow) -> f64| {
                    median(
                        cell.iter()
                            .filter_map(|r| r.summary.metrics.iter().find(|m| m.label == label))
                            .map(f)
                            .collect(),
                    )
                };
                let (value, per_s, pct) = match kind {
                    "counter" => (
                        num(pick(&|m| m.value)),
                        format!("{:.1}", pick(&|m| m.per_second)),
                        String::new(),
                    ),
                    "trend" => (
                        format!("{:.2}", pick(&|m| m.value)),
                        String::new(),
                        format!(
                            "{:.2} / {:.2} / {:.2} / {:.2}",
                            pick(&|m| m.p50),
                            pick(&|m| m.p90),
                            pick(&|m| m.p95),
                            pick(&|m| m.p99)
                        ),
                    ),
                    "rate" => (
                        format!("{:.2}%", pick(&|m| m.value) * 100.0),
                        String::new(),
                        String::new(),
                    ),
                    _ => (num(pick(&|m| m.value)), String::new(), String::new()),
                };
                rows.push(vec![
                    format!(
                        "{}{}",
                        plan.load.level_short(*level),
                        if phase == PROBE { " (probe)" } else { "" }
                    ),
                    t.name.clone(),
                    label.to_string(),
                    kind.to_string(),
                    value,
                    per_s,
                    pct,
                ]);
            }
        }
    }
    b.push(Block::Table {
        header: [
            "Step",
            "Target",
            "Metric",
            "Kind",
            "Value",
            "Per second",
            "p50 / p90 / p95 / p99",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    });
}

/// `studies/<id>-<name>` with the name made file-system safe.
pub fn default_out_dir(id: i64, name: &str) -> PathBuf {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    Path::new("studies").join(format!("{id}-{safe}"))
}
