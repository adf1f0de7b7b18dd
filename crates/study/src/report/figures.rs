//! The report's Charts section: saturation (throughput, p99 and success
//! against the load, with the SLO, the ceilings and the steps that broke the
//! SLO drawn in) and each target's percentile spectrum.

use loadlab_core::format_go_duration;

use super::charts::{self, Axis, Fail, Figure, Line, Panel, Rule};
use super::doc::Block;
use super::{Agg, aggregate, q, target_index};
use crate::analysis::{Analysis, SWEEP, SloBound, slo_failures};
use crate::plan::{Plan, Slo};
use crate::store::RunRow;

/// A bound in words: `success ≥ 99.00%`, `p99 ≤ 80ms`.
pub fn bound_text(b: &SloBound) -> String {
    match b {
        SloBound::Success(x) => format!("success ≥ {:.2}%", x * 100.0),
        SloBound::Latency(_, d) => format!("{} ≤ {}", b.metric(), format_go_duration(*d)),
    }
}

/// The bounds a step (a cell's runs pooled) broke: those a majority of its
/// runs broke. A step that fails the SLO with no such bound (each run broke
/// a different one) names every bound any run broke.
fn step_failures(slo: &Slo, a: &Agg) -> Vec<(SloBound, usize)> {
    let per_run: Vec<Vec<SloBound>> = a
        .runs
        .iter()
        .map(|r| slo_failures(slo, &r.summary))
        .collect();
    let broke = |b: &SloBound| per_run.iter().filter(|f| f.contains(b)).count();
    let all: Vec<(SloBound, usize)> = SloBound::all(slo)
        .into_iter()
        .map(|b| (b, broke(&b)))
        .filter(|(_, n)| *n > 0)
        .collect();
    let majority: Vec<(SloBound, usize)> = all
        .iter()
        // As `step_pass` rules: kept when a strict majority of the runs keep it.
        .filter(|(_, n)| (a.runs.len() - n) * 2 <= a.runs.len())
        .copied()
        .collect();
    match (majority.is_empty(), a.pass) {
        (false, _) => majority,
        (true, Some(false)) => all,
        (true, _) => Vec::new(),
    }
}

/// The pooled value of what `b` limits, in words: `91.0ms`, `97.50%`.
fn measured(b: &SloBound, a: &Agg) -> String {
    match b {
        SloBound::Success(_) => format!("{:.2}%", a.success * 100.0),
        SloBound::Latency(p, _) if *p >= 100.0 => super::ms(a.hist.max() as f64),
        SloBound::Latency(p, _) => super::ms(q(&a.hist, p / 100.0)),
    }
}

/// One target's three saturation lines (throughput, p99, success), with
/// failure marks on the p99 line (latency bounds) and the success line.
fn saturation_lines(
    plan: &Plan,
    runs: &[RunRow],
    steps: &[(String, u64)],
    name: &str,
) -> [Line; 3] {
    let c = target_index(plan, name);
    let mut cells: Vec<(u64, Agg)> = steps
        .iter()
        .filter_map(|(phase, rate)| Some((*rate, aggregate(runs, phase, *rate, name)?)))
        .collect();
    cells.sort_by_key(|(rate, _)| *rate);
    let mut lines = [
        Line::new(name, c, Vec::new()),
        Line::new(name, c, Vec::new()),
        Line::new(name, c, Vec::new()),
    ];
    for (i, (rate, a)) in cells.iter().enumerate() {
        let x = *rate as f64;
        lines[0].points.push((x, a.throughput));
        lines[1]
            .points
            .push((x, (q(&a.hist, 0.99) / 1e6).max(0.001)));
        lines[2].points.push((x, a.success * 100.0));
        let Some(slo) = &plan.slo else { continue };
        for (b, n) in step_failures(slo, a) {
            let fail = Fail {
                point: i,
                metric: b.metric(),
                bound: bound_text(&b),
                title: format!(
                    "{name} at {}: failed SLO {} in {n} of {} run(s); pooled {} {}",
                    plan.load.level_label(*rate),
                    bound_text(&b),
                    a.runs.len(),
                    b.metric(),
                    measured(&b, a)
                ),
            };
            let on = if matches!(b, SloBound::Success(_)) {
                2
            } else {
                1
            };
            lines[on].fails.push(fail);
        }
    }
    for l in &mut lines {
        l.markers = true;
    }
    lines
}

/// The Charts section: saturation (throughput, p99 and, with a success
/// bound in the SLO, success against the load) and each target's spectrum.
pub fn charts_section(
    b: &mut Vec<Block>,
    plan: &Plan,
    runs: &[RunRow],
    analysis: &Analysis,
    steps: &[(String, u64)],
    slo_p99: &Option<Rule>,
) {
    b.push(Block::Heading(2, "Charts".into()));
    let x_label = plan.load.axis_label();
    let mut thr = Panel::new("throughput", x_label.clone(), "successful req/s");
    thr.title = "Achieved throughput".into();
    let mut p99 = Panel::new("p99", x_label.clone(), "p99 latency (ms, log)");
    p99.title = "p99 latency".into();
    p99.y_axis = Axis::Log;
    let mut success = Panel::new("success", x_label, "success (%)");
    success.title = "Success ratio".into();
    success.y_zero = false;
    for t in &plan.targets {
        let [a, b, c] = saturation_lines(plan, runs, steps, &t.name);
        if a.points.is_empty() {
            continue;
        }
        thr.lines.push(a);
        p99.lines.push(b);
        success.lines.push(c);
    }
    // The p99 chart shows the SLO's p99 bound and each ceiling found.
    p99.rules.extend(slo_p99.iter().cloned());
    p99.rules.extend(ceiling_rules(plan, analysis));
    if let Some(max_rate) = runs
        .iter()
        .map(|r| r.rate)
        .max()
        .filter(|_| plan.load.is_rate())
    {
        let offered = vec![(0.0, 0.0), (max_rate as f64, max_rate as f64)];
        thr.lines.push(Line::new("offered", 6, offered));
    }
    let mut panels = vec![thr, p99];
    if let Some(min) = plan.slo.as_ref().and_then(|s| s.success) {
        success.rules.push(Rule {
            vertical: false,
            value: min * 100.0,
            label: format!("SLO {}", bound_text(&SloBound::Success(min))),
            color: 6,
        });
        panels.push(success);
    }
    b.push(Block::Chart(Figure {
        id: "saturation".into(),
        title: if plan.load.is_rate() {
            "Saturation: offered rate vs achieved throughput and p99".into()
        } else {
            format!(
                "Scaling: {} vs achieved throughput and p99",
                plan.load.axis_label()
            )
        },
        panels,
    }));
    for t in &plan.targets {
        let lines: Vec<Line> = plan
            .load
            .rates
            .iter()
            .enumerate()
            .filter_map(|(i, rate)| {
                let a = aggregate(runs, SWEEP, *rate, &t.name)?;
                let points = charts::spectrum_points(&a.hist);
                Some(Line::new(plan.load.level_label(*rate), i, points))
            })
            .collect();
        if lines.is_empty() {
            continue;
        }
        b.push(Block::Chart(Figure {
            id: format!("spectrum-{}", t.name.replace('/', "--")),
            title: format!("Percentile spectrum — {}", t.name),
            panels: vec![spectrum_panel(lines)],
        }));
    }
}

/// A vertical line at each ceiling found, in its target's colour; targets
/// with the same ceiling share one line (in black), named together, so no
/// line hides another.
fn ceiling_rules(plan: &Plan, analysis: &Analysis) -> Vec<Rule> {
    let mut at: Vec<(u64, Vec<&str>)> = Vec::new();
    for c in &analysis.ceilings {
        if let (Some(pass), Some(_)) = (c.pass, c.fail) {
            match at.iter_mut().find(|(v, _)| *v == pass) {
                Some((_, names)) => names.push(&c.target),
                None => at.push((pass, vec![&c.target])),
            }
        }
    }
    at.into_iter()
        .map(|(pass, names)| Rule {
            vertical: true,
            value: pass as f64,
            label: format!(
                "{} ceiling {}",
                names.join(", "),
                plan.load.level_label(pass)
            ),
            color: match names[..] {
                [one] => target_index(plan, one),
                _ => 6,
            },
        })
        .collect()
}

pub fn spectrum_panel(lines: Vec<Line>) -> Panel {
    let mut p = Panel::new(
        "spectrum",
        "percentile (log scale of 1/(1−p))",
        "latency (ms)",
    );
    p.x_axis = Axis::Log;
    p.x_ticks = Some(charts::percentile_tick);
    p.lines = lines;
    p
}

/// The SLO's p99 bound as a horizontal line (in ms), if the plan has one.
pub fn slo_p99_rule(plan: &Plan) -> Option<Rule> {
    let (_, d) = plan
        .slo
        .as_ref()?
        .latency
        .iter()
        .find(|(p, _)| (*p - 99.0).abs() < 1e-9)?;
    Some(Rule {
        vertical: false,
        value: d.as_secs_f64() * 1e3,
        label: format!("SLO p99 ≤ {}", format_go_duration(*d)),
        color: 6,
    })
}
