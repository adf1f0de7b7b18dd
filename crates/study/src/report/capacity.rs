//! The report's Capacity model section: per target, the scalability curve
//! fitted to the steps (see [`crate::model`]) with its 95 % band, the peak
//! throughput and the concurrency where it peaks with their intervals, one
//! sentence in words, and the queueing reading of each step — or, where the
//! data cannot carry a model, the sentence that says why.

use super::charts::{Band, Figure, Line, Panel, Rule};
use super::doc::Block;
use super::target_index;
use crate::model::{self, Capacity, Interval, Model, sig3};
use crate::plan::Plan;
use crate::store::RunRow;

/// Colour of the fitted curve and its band (black in the palette).
const FIT_COLOR: usize = 6;
/// Colour of the capacity measured at saturation: vermilion, or orange
/// when vermilion is the target's own.
fn saturation_color(target: usize) -> usize {
    if target % super::charts::PALETTE.len() == 1 {
        4
    } else {
        1
    }
}

fn unit(plan: &Plan) -> &'static str {
    if plan.load.is_rate() { "req/s" } else { "/s" }
}

fn range(i: &Interval) -> String {
    format!("{} ({}–{})", sig3(i.mid), sig3(i.lo), sig3(i.hi))
}

/// Appends the section (nothing when no target has a step).
pub fn capacity_section(b: &mut Vec<Block>, plan: &Plan, runs: &[RunRow]) {
    let caps: Vec<Capacity> = model::capacities(plan, runs)
        .into_iter()
        .filter(|c| !c.steps.is_empty())
        .collect();
    if caps.is_empty() {
        return;
    }
    b.push(Block::Heading(2, "Capacity model".into()));
    let n_from = if plan.load.is_rate() {
        "N, the requests in flight, is Little's law: measured throughput × mean latency"
    } else {
        "N is the step's level"
    };
    b.push(Block::Para(format!(
        "Gunther's Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted to each target's steps by weighted least squares; {n_from}. σ is contention (the serial share), κ coherency (the cost of keeping in step, growing with N²). Intervals are 95 %, from {} seeded bootstrap resamples of the repetitions. No model is shown where there are fewer than {} steps or {} repetitions, where the curve misses the step means by more than {:.0} % (weighted RMS), or where the highest step stays below {:.0} % of the fitted peak.",
        model::RESAMPLES,
        model::MIN_STEPS,
        model::MIN_REPETITIONS,
        model::MAX_RMS_MISS * 100.0,
        model::KNEE_REACH * 100.0,
    )));
    if plan.load.is_rate() {
        b.push(Block::Para(format!(
            "Where steps were sent more than the target answered — it answered less than {:.0} % of what was sent, or less than {:.1} % over the span it was busy while its mean latency stood {:.1}× the lowest step's (a queue grew) — the peak was measured, not predicted (from the steps that refused work where there are any): X_max lies between what those steps answered per second of their whole span (the step and the wait for its last answers) and per second of sending, each widened by Student's t over their runs, and N* is X_max·S₀, the work in service at the knee. The curve is then fitted for its shape only.",
            model::saturation::SHORT * 100.0,
            model::saturation::BEHIND * 100.0,
            model::saturation::QUEUED,
        )));
    }
    for c in &caps {
        b.push(Block::Heading(3, c.target.clone()));
        match (&c.model, &c.refusal) {
            (Some(m), _) => {
                b.push(Block::Para(model::sentence(m, unit(plan))));
                b.push(figures_table(m, unit(plan)));
            }
            (None, Some(why)) => b.push(Block::Para(why.clone())),
            (None, None) => {}
        }
        b.push(steps_table(plan, c));
        b.push(Block::Chart(chart(plan, c)));
    }
}

fn figures_table(m: &Model, unit: &str) -> Block {
    let n_star = if m.n_star.mid.is_finite() {
        range(&m.n_star)
    } else {
        "none: levels off".into()
    };
    let read_from = match &m.saturation {
        Some(s) => format!(
            "measured: {} runs of the saturated steps, from {} {unit}",
            s.runs, s.from
        ),
        None => "the fitted curve's peak".into(),
    };
    let rows = vec![
        vec![format!("Peak throughput X_max ({unit})"), range(&m.x_max)],
        vec!["X_max read from".into(), read_from],
        vec!["In flight at the peak, N*".into(), n_star],
        vec!["Contention σ".into(), range(&m.sigma)],
        vec!["Coherency κ".into(), range(&m.kappa)],
        vec!["Single-unit rate λ (/s)".into(), sig3(m.usl.lambda)],
        vec![
            "Low-load service time S₀".into(),
            format!("{} ms", sig3(m.service * 1e3)),
        ],
        vec![
            "Work in service at the peak, X_max·S₀".into(),
            sig3(m.servers()),
        ],
        vec![
            "Fit: weighted RMS miss".into(),
            format!("{:.1} %", m.rms_miss * 100.0),
        ],
    ];
    Block::Table {
        header: vec!["Figure".into(), "Estimate (95 % interval)".into()],
        rows,
    }
}

/// The measured points with their spread, and the queueing reading.
fn steps_table(plan: &Plan, c: &Capacity) -> Block {
    let s0 = c.steps.first().map_or(0.0, model::Step::r);
    let x_max = c.model.as_ref().map(|m| m.x_max.mid);
    let rows = c
        .steps
        .iter()
        .map(|s| {
            let (lo, hi) = s.x_range();
            vec![
                plan.load.level_label(s.level),
                format!("{}", s.runs.len()),
                sig3(s.n()),
                format!("{} ({}–{})", sig3(s.x()), sig3(lo), sig3(hi)),
                format!("{} ms", sig3(s.r() * 1e3)),
                sig3(s.x() * s0),
                x_max.map_or("—".into(), |x| format!("{:.0} %", 100.0 * s.x() / x)),
            ]
        })
        .collect();
    Block::Table {
        header: vec![
            "Step".into(),
            "Runs".into(),
            "N".into(),
            format!("Throughput, {} (min–max)", unit(plan)),
            "Mean latency".into(),
            "X·S₀".into(),
            "X / X_max".into(),
        ],
        rows,
    }
}

/// Throughput against concurrency: the step means with the lowest and
/// highest run of each step (the spread), the fitted curve and its band.
/// Every line is named in the legend and has its own dash.
fn chart(plan: &Plan, c: &Capacity) -> Figure {
    let color = target_index(plan, &c.target);
    let mut p = Panel::new(
        &format!("usl-{}", c.target.replace('/', "--")),
        if plan.load.is_rate() {
            "requests in flight, N = X·R"
        } else {
            "concurrency, N"
        },
        format!("successful {}", unit(plan)),
    );
    // In order of N (on the rate axis a saturated step may hold fewer in
    // flight than the one below it).
    let mut steps: Vec<&model::Step> = c.steps.iter().collect();
    steps.sort_by(|a, b| a.n().total_cmp(&b.n()));
    let series = [
        ("step means", steps.iter().map(|s| (s.n(), s.x())).collect()),
        (
            "lowest run",
            steps.iter().map(|s| (s.n(), s.x_range().0)).collect(),
        ),
        (
            "highest run",
            steps.iter().map(|s| (s.n(), s.x_range().1)).collect(),
        ),
    ];
    for (label, pts) in series {
        let mut l = Line::new(label, color, pts);
        l.markers = true;
        p.lines.push(l);
    }
    if let Some(m) = &c.model {
        let pick = |f: fn(&Interval) -> f64| m.band.iter().map(|b| (b.n, f(&b.x))).collect();
        p.lines
            .push(Line::new("USL fit", FIT_COLOR, pick(|i| i.mid)));
        p.bands.push(Band {
            label: "95 % band of the fit".into(),
            color: FIT_COLOR,
            points: m.band.iter().map(|b| (b.n, b.x.lo, b.x.hi)).collect(),
        });
        if m.saturation.is_some() {
            let x = m.x_max;
            p.bands.push(Band {
                label: "capacity measured at saturation (95 %)".into(),
                color: saturation_color(color),
                points: m.band.iter().map(|b| (b.n, x.lo, x.hi)).collect(),
            });
            p.rules.push(Rule {
                vertical: false,
                value: x.mid,
                label: format!("X_max, measured: {}", sig3(x.mid)),
                color: saturation_color(color),
            });
        }
    }
    Figure {
        id: format!("capacity-{}", c.target.replace('/', "--")),
        title: format!("Capacity model — {}", c.target),
        panels: vec![p],
    }
}
