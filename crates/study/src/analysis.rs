//! Analysis of a study's stored runs: SLO pass/fail, ceilings, verdicts.
//!
//! Everything here is a pure function of the plan and the runs, so a report
//! can be rebuilt from the store at any time and the runner's decisions
//! (stop rules, bisection) are reproducible on `--resume`.

use serde::{Deserialize, Serialize};

use crate::collect::RunSummary;
use crate::hypothesis::{Cmp, Hypothesis, Metric, Operand};
use crate::plan::{Plan, Slo};
use crate::stats::{self, Evidence, Stratum, Verdict};
use crate::store::RunRow;

mod margin;

use margin::{Margin, Reading};

/// Sweep steps are the plan's rates; probes are the ceiling search's bisection.
pub const SWEEP: &str = "sweep";
pub const PROBE: &str = "probe";

/// One bound of an SLO: the success ratio, or the latency at a percentile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SloBound {
    /// Minimum success ratio, 0..=1.
    Success(f64),
    /// Maximum latency at the percentile (100 = max).
    Latency(f64, std::time::Duration),
}

impl SloBound {
    /// Every bound of `slo`, success first.
    pub fn all(slo: &Slo) -> Vec<SloBound> {
        let lat = slo.latency.iter().map(|(p, d)| SloBound::Latency(*p, *d));
        slo.success
            .map(SloBound::Success)
            .into_iter()
            .chain(lat)
            .collect()
    }

    /// The measured figure this bound limits: `success`, `p99`, `max`.
    pub fn metric(&self) -> String {
        match self {
            SloBound::Success(_) => "success".into(),
            SloBound::Latency(p, _) if *p >= 100.0 => "max".into(),
            SloBound::Latency(p, _) => format!("p{p}"),
        }
    }

    /// Whether run summary `s` keeps within this bound.
    pub fn holds(&self, s: &RunSummary) -> bool {
        match *self {
            SloBound::Success(min) => s.success >= min,
            SloBound::Latency(p, bound) => {
                let v = match p as u32 {
                    50 => s.p50_ns,
                    90 => s.p90_ns,
                    95 => s.p95_ns,
                    99 => s.p99_ns,
                    _ => s.max_ns,
                };
                v as u128 <= bound.as_nanos()
            }
        }
    }
}

/// The SLO bounds run `s` breaks; a run without requests breaks them all.
pub fn slo_failures(slo: &Slo, s: &RunSummary) -> Vec<SloBound> {
    SloBound::all(slo)
        .into_iter()
        .filter(|b| s.requests == 0 || !b.holds(s))
        .collect()
}

/// Whether a run meets the SLO (None when the plan has no SLO).
pub fn slo_pass(slo: Option<&Slo>, s: &RunSummary) -> Option<bool> {
    let slo = slo?;
    Some(s.requests > 0 && slo_failures(slo, s).is_empty())
}

/// Bisection probes a bracket may still need, at most (the wider half kept).
pub fn bisection_probes(lo: u64, hi: u64, probes: u32, c: &crate::plan::CeilingPlan) -> usize {
    bisection_steps(lo, hi, c.resolution).min(c.max_probes.saturating_sub(probes) as usize)
}

/// Bisection probes from `[lo, hi]` to a bracket within `resolution`, in
/// the worst case (the wider half kept each time), with no cap.
pub fn bisection_steps(mut lo: u64, mut hi: u64, resolution: u64) -> usize {
    let mut n = 0;
    while hi - lo > resolution {
        let mid = lo + (hi - lo) / 2;
        if mid == 0 || mid == lo {
            break;
        }
        if hi - mid >= mid - lo {
            lo = mid;
        } else {
            hi = mid;
        }
        n += 1;
    }
    n
}

/// A step passes when a strict majority of its repetitions pass.
pub fn step_pass(passes: &[bool]) -> bool {
    !passes.is_empty() && passes.iter().filter(|p| **p).count() * 2 > passes.len()
}

/// A target's ceiling: the highest rate known to pass and the lowest known to fail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ceiling {
    pub target: String,
    /// Highest passing rate below `fail` (None: even the lowest rate failed).
    pub pass: Option<u64>,
    /// Lowest failing rate (None: never failed, the ceiling is above the sweep).
    pub fail: Option<u64>,
}

impl Ceiling {
    /// On the request-rate axis.
    pub fn describe(&self) -> String {
        self.describe_with(&|n| format!("{n} req/s"))
    }

    /// On the plan's axis (`8 threads`, `CHANNELS=200`).
    pub fn describe_on(&self, load: &crate::plan::LoadPlan) -> String {
        self.describe_with(&|n| load.level_label(n))
    }

    /// On the plan's axis, for this target: a concurrent group's member
    /// with a `level:` of its own ran at that level in every step, so its
    /// ceiling is in the group's steps, and says so.
    pub fn describe_in(&self, plan: &Plan) -> String {
        let text = self.describe_on(&plan.load);
        match plan
            .target(&self.target)
            .and_then(|t| t.level.map(|l| (t, l)))
        {
            Some((t, own)) => format!(
                "{text}, in steps of group {} (this member runs at {} in every step)",
                t.group.as_deref().unwrap_or("?"),
                plan.load.level_label(own)
            ),
            None => text,
        }
    }

    fn describe_with(&self, label: &dyn Fn(u64) -> String) -> String {
        match (self.pass, self.fail) {
            (Some(p), Some(f)) => format!("{} (passes at {p}, fails at {f})", label(p)),
            (Some(p), None) => format!("at least {} (never failed)", label(p)),
            (None, Some(f)) => format!("below {} (failed at the lowest step tried)", label(f)),
            (None, None) => "unknown (no runs)".into(),
        }
    }
}

/// Pass/fail outcome per (phase, rate) for one target, from its runs.
pub fn step_outcomes(runs: &[RunRow], target: &str, phase: &str) -> Vec<(u64, bool)> {
    let mut rates: Vec<u64> = runs
        .iter()
        .filter(|r| r.target == target && r.phase == phase)
        .map(|r| r.rate)
        .collect();
    rates.sort_unstable();
    rates.dedup();
    rates
        .into_iter()
        .map(|rate| {
            let passes: Vec<bool> = runs
                .iter()
                .filter(|r| r.target == target && r.phase == phase && r.rate == rate)
                .map(|r| r.slo_pass.unwrap_or(true))
                .collect();
            (rate, step_pass(&passes))
        })
        .collect()
}

/// The ceiling of one target from its sweep and probe outcomes.
pub fn ceiling(runs: &[RunRow], target: &str) -> Ceiling {
    let mut all = step_outcomes(runs, target, SWEEP);
    all.extend(step_outcomes(runs, target, PROBE));
    let fail = all.iter().filter(|(_, p)| !p).map(|(r, _)| *r).min();
    let pass = all
        .iter()
        .filter(|(r, p)| *p && fail.is_none_or(|f| *r < f))
        .map(|(r, _)| *r)
        .max();
    Ceiling {
        target: target.into(),
        pass,
        fail,
    }
}

/// The value of `metric` in one run.
pub fn metric_value(m: Metric, s: &RunSummary) -> Option<f64> {
    Some(match m {
        Metric::Mean => s.mean_ns,
        Metric::P50 => s.p50_ns as f64,
        Metric::P90 => s.p90_ns as f64,
        Metric::P95 => s.p95_ns as f64,
        Metric::P99 => s.p99_ns as f64,
        Metric::Max => s.max_ns as f64,
        Metric::Success => s.success,
        Metric::Throughput => s.throughput,
        Metric::Cpu => s.cpu_mean?,
        Metric::Ceiling => return None,
    })
}

/// Per-repetition values of a target's sweep runs at one rate.
pub fn values(runs: &[RunRow], target: &str, rate: u64, m: Metric) -> Vec<f64> {
    runs.iter()
        .filter(|r| r.phase == SWEEP && r.target == target && r.rate == rate)
        .filter_map(|r| metric_value(m, &r.summary))
        .collect()
}

/// A hypothesis answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    pub hypothesis: String,
    pub verdict: Verdict,
    pub evidence: Option<Evidence>,
    /// The per-rate values the verdict rests on.
    pub strata: Vec<Stratum>,
    /// What the verdict rests on, in a few words: "p = 0.003", or why there is
    /// none ("n = 2 per cell, at least 3 needed").
    #[serde(default)]
    pub summary: String,
    /// One-paragraph explanation for the report (starts with `summary`).
    pub explanation: String,
    /// The verdict in one plain sentence, shown before the statistics
    /// ("c6g kept 100.00% success where c5 had 86.00%: the claim holds.").
    #[serde(default)]
    pub plain: String,
    /// Runs the verdict rests on in which the load generator fell behind
    /// its schedule (they measure the client): the verdict is flagged,
    /// not changed.
    #[serde(default)]
    pub behind: usize,
    /// The verdict's word when it is not the plain one: an equivalence
    /// (`≈`) is "equivalent" or "not equivalent".
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub word: String,
    /// For a relative margin (`within 5%`): the test the verdict rests on,
    /// on ln A − ln B (its shifts read as ratios, `exp(s) − 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio_evidence: Option<Evidence>,
}

impl Answer {
    /// The verdict's word: `supported`, `rejected`, `inconclusive`,
    /// `equivalent`, `not equivalent`.
    pub fn word(&self) -> &str {
        if self.word.is_empty() {
            self.verdict.word()
        } else {
            &self.word
        }
    }

    /// `supported — p = 0.003`, `inconclusive — n = 2 per cell, at least 3 needed`,
    /// `equivalent — within ±5.0% (…)`.
    pub fn headline(&self) -> String {
        if self.summary.is_empty() {
            self.word().to_string()
        } else {
            format!("{} — {}", self.word(), self.summary)
        }
    }
}

fn mirror(op: Cmp) -> Cmp {
    match op {
        Cmp::Lt => Cmp::Gt,
        Cmp::Le => Cmp::Ge,
        Cmp::Gt => Cmp::Lt,
        Cmp::Ge => Cmp::Le,
        Cmp::Eq => Cmp::Eq,
    }
}

/// A p-value for people: 0.167, 0.0046, 1.2e-6.
pub fn fmt_p(p: f64) -> String {
    if p >= 0.01 {
        format!("{p:.3}")
    } else if p >= 0.0001 {
        format!("{p:.4}")
    } else {
        format!("{p:.1e}")
    }
}

/// Answers one hypothesis from the runs.
pub fn answer(plan: &Plan, runs: &[RunRow], h: &Hypothesis) -> Answer {
    let m = h.metric();
    // Normalise so the left side is a target.
    let (left, op, right) = match (&h.left, &h.right) {
        (Operand::Const(_), _) => (&h.right, mirror(h.op), &h.left),
        _ => (&h.left, h.op, &h.right),
    };
    let Operand::Target { target: a, .. } = left else {
        unreachable!("parser guarantees a target side")
    };
    if m == Metric::Ceiling {
        return answer_ceiling(runs, h, a, op, right, plan);
    }
    let mut strata = Vec::new();
    for &rate in &plan.load.rates {
        if !h.covers_rate(rate) {
            continue;
        }
        let va = values(runs, a, rate, m);
        let vb = match right {
            Operand::Target { target, .. } => values(runs, target, rate, m),
            Operand::Const(c) => vec![*c],
        };
        if !va.is_empty() && !vb.is_empty() {
            strata.push(Stratum {
                label: plan.load.level_label(rate),
                a: va,
                b: vb,
            });
        }
    }
    let b_name = match right {
        Operand::Target { target, .. } => target.clone(),
        Operand::Const(c) => m.fmt_value(*c),
    };
    let ev = match right {
        Operand::Target { .. } => stats::compare(&strata, stats::ALPHA),
        Operand::Const(c) => stats::compare_const(&strata, *c, stats::ALPHA),
    };
    let Some(ev) = ev else {
        return nothing_to_compare(h, strata, "no rate has runs of both sides");
    };
    let margin = Margin::of(h);
    let rel = match margin {
        Margin::Relative(_) => match crate::relative::compare(&strata, stats::ALPHA) {
            Some(r) => Some(r),
            None => {
                return nothing_to_compare(
                    h,
                    strata,
                    "no rate has values above 0 on both sides (a ratio needs them)",
                );
            }
        },
        _ => None,
    };
    let j = match (margin, &rel) {
        (Margin::Relative(r), Some(rel)) => crate::relative::judge(op, r, rel, stats::ALPHA),
        (Margin::Unit(m), _) => stats::judge(op, m, &ev, stats::ALPHA),
        _ => stats::judge(op, 0.0, &ev, stats::ALPHA),
    };
    let is_const = matches!(right, Operand::Const(_));
    let reading = Reading {
        a,
        b: &b_name,
        metric: m,
        margin,
        ev: &ev,
        rel: rel.as_ref(),
    };
    let summary = summary(&reading, op, &j);
    let plain = plain_sentence(a, &b_name, m, &strata, is_const, &j);
    let explanation = explain(&reading, op, &j, &strata, &summary, &plan.load, is_const);
    Answer {
        behind: 0,
        plain,
        hypothesis: h.text.clone(),
        verdict: j.verdict,
        word: reading.word(op, &j).unwrap_or_default().to_string(),
        evidence: Some(ev),
        ratio_evidence: rel.map(|r| r.evidence),
        strata,
        summary,
        explanation,
    }
}

/// The answer when there is no evidence at all.
fn nothing_to_compare(h: &Hypothesis, strata: Vec<Stratum>, why: &str) -> Answer {
    Answer {
        behind: 0,
        plain: format!("{}, so there is nothing to compare.", capitalise(why)),
        hypothesis: h.text.clone(),
        verdict: Verdict::Inconclusive,
        word: String::new(),
        evidence: None,
        ratio_evidence: None,
        strata,
        explanation: format!("{why} (stopped early, or outside the `at rate` range)."),
        summary: why.to_string(),
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

/// What the verdict rests on, in a few words.
fn summary(r: &Reading, op: Cmp, j: &stats::Judgement) -> String {
    let alpha = fmt_p(stats::ALPHA);
    let opposite = |c: Cmp| match c {
        Cmp::Gt => Cmp::Lt,
        Cmp::Lt => Cmp::Gt,
        c => c,
    };
    if j.no_variation {
        return format!(
            "no variation: every run gave {} − {} = {}",
            r.a,
            r.b,
            margin::signed(r.metric, r.ev.diff)
        );
    }
    if let Some((n, need)) = j.underpowered {
        return format!("n = {n} per cell, at least {need} needed");
    }
    if let Some(s) = r.equivalence_summary(op, j, stats::ALPHA) {
        return s;
    }
    match j.verdict {
        Verdict::Supported => {
            format!("p = {} for {}", fmt_p(j.p), r.claim(j.tested.0, j.tested.1))
        }
        Verdict::Rejected => match j.tested.0 {
            Cmp::Eq => format!("p = {} for a difference beyond the margin", fmt_p(j.p)),
            c => format!(
                "p = {} for {}",
                fmt_p(j.p),
                r.claim(opposite(c), j.tested.1)
            ),
        },
        Verdict::Inconclusive => format!(
            "p = {} for {}, not below {alpha}",
            fmt_p(j.p),
            r.claim(j.tested.0, j.tested.1)
        ),
    }
}

/// The paragraph under the verdict: the summary, the shift and its
/// interval in the metric's unit, the test, the margin, what is missing.
fn explain(
    r: &Reading,
    op: Cmp,
    j: &stats::Judgement,
    strata: &[Stratum],
    summary: &str,
    load: &crate::plan::LoadPlan,
    is_const: bool,
) -> String {
    let (a, b_name, m, ev) = (r.a, r.b, r.metric, r.ev);
    let fmt_d = |v: f64| margin::signed(m, v);
    let unit = if load.is_rate() { "rate" } else { "step" };
    let rates = |k: usize| {
        if k == 1 {
            format!("1 {unit}")
        } else {
            format!("{k} {unit}s")
        }
    };
    let rel = match ev.relative {
        Some(r) if m != Metric::Success => format!(" ({:+.1}%)", r * 100.0),
        _ => String::new(),
    };
    let test = if is_const {
        format!(
            "exact sign test over {} runs at {} (the median run against {b_name})",
            ev.n_a,
            rates(ev.strata)
        )
    } else {
        format!(
            "exact stratified Wilcoxon–Mann–Whitney test over {}, {} vs {} runs",
            rates(ev.strata),
            ev.n_a,
            ev.n_b
        )
    };
    let mut explanation = format!(
        "{summary}. {a} − {b_name}: median shift {}{rel}, {:.0}% CI {}; {test} (n = {} per cell); \
         one-sided p = {} for {a} > {b_name}, {} for {a} < {b_name}; Cliff's δ = {:+.2}.",
        fmt_d(ev.diff),
        ev.confidence_pct(),
        ev.fmt_ci(fmt_d),
        ev.per_cell,
        fmt_p(ev.p_greater),
        fmt_p(ev.p_less),
        ev.cliffs_delta,
    );
    if r.margin != Margin::None {
        explanation.push_str(&r.sentence(j, strata));
    } else if matches!(op, Cmp::Ge | Cmp::Le) && !is_const {
        explanation.push_str(&format!(
            " With no margin, `{}` needs evidence of a difference; add `within MARGIN` to test \
             \"not worse by more than MARGIN\" (non-inferiority).",
            op.symbol()
        ));
    }
    if let Some((n, need)) = j.underpowered {
        let both = if op == Cmp::Eq {
            "the equivalence's two one-sided tests cannot both"
        } else {
            "the test cannot"
        };
        explanation.push_str(&format!(
            " With {n} run(s) per cell {both} reach p <= {} whatever the numbers \
             (at best p = {}): set `repetitions: {need}` or more.",
            fmt_p(stats::ALPHA),
            fmt_p(j.floor)
        ));
    }
    explanation
}

/// The verdict in one plain sentence, before the statistics: what the
/// runs showed (medians over every run of each side) and what that means
/// for the claim ("c6g kept 100.00% success where c5 had 86.00%: the
/// claim holds.").
fn plain_sentence(
    a: &str,
    b: &str,
    m: Metric,
    strata: &[Stratum],
    is_const: bool,
    j: &stats::Judgement,
) -> String {
    let median = |v: &mut Vec<f64>| {
        v.sort_by(|x, y| x.total_cmp(y));
        match v.len() {
            0 => None,
            n if n % 2 == 1 => Some(v[n / 2]),
            n => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
        }
    };
    let mut av: Vec<f64> = strata.iter().flat_map(|s| s.a.iter().copied()).collect();
    let mut bv: Vec<f64> = strata.iter().flat_map(|s| s.b.iter().copied()).collect();
    let (Some(x), Some(y)) = (median(&mut av), median(&mut bv)) else {
        return String::new();
    };
    let name = m.name();
    let seen = if m == Metric::Success && !is_const {
        format!(
            "{a} kept {} success where {b} had {}",
            m.fmt_value(x),
            m.fmt_value(y)
        )
    } else if is_const {
        format!(
            "{a}'s median {name} was {} (the claim's bound: {b})",
            m.fmt_value(x)
        )
    } else {
        let rel = if y != 0.0 {
            let r = (x - y) / y.abs() * 100.0;
            let way = if r < 0.0 { "lower" } else { "higher" };
            format!(", {:.1}% {way}", r.abs())
        } else {
            String::new()
        };
        format!(
            "{a}'s median {name} was {} against {b}'s {}{rel}",
            m.fmt_value(x),
            m.fmt_value(y)
        )
    };
    let meaning = match j.verdict {
        Verdict::Supported => "the claim holds.",
        Verdict::Rejected => "the claim does not hold.",
        Verdict::Inconclusive if j.underpowered.is_some() => {
            "too few runs to tell whether the claim holds."
        }
        Verdict::Inconclusive => "the runs cannot tell whether the claim holds.",
    };
    format!("{seen}: {meaning}")
}

fn answer_ceiling(
    runs: &[RunRow],
    h: &Hypothesis,
    a: &str,
    op: Cmp,
    right: &Operand,
    plan: &Plan,
) -> Answer {
    let ca = ceiling(runs, a);
    // A ceiling is a bracket [pass, fail): compare brackets, not points.
    let (a_lo, a_hi) = (
        ca.pass.unwrap_or(0) as f64,
        ca.fail.map_or(f64::INFINITY, |f| f as f64),
    );
    let (b_lo, b_hi, b_desc) = match right {
        Operand::Target { target, .. } => {
            let cb = ceiling(runs, target);
            (
                cb.pass.unwrap_or(0) as f64,
                cb.fail.map_or(f64::INFINITY, |f| f as f64),
                format!("{target}: {}", cb.describe_in(plan)),
            )
        }
        Operand::Const(c) => (*c, *c, format!("{c}")),
    };
    // A > B for sure when A's known pass is at or above B's known failure.
    let (sup, rej) = match op {
        Cmp::Gt | Cmp::Ge => (a_lo >= b_hi, a_hi <= b_lo),
        Cmp::Lt | Cmp::Le => (a_hi <= b_lo, a_lo >= b_hi),
        Cmp::Eq => (false, a_lo >= b_hi || a_hi <= b_lo),
    };
    let verdict = if sup {
        Verdict::Supported
    } else if rej {
        Verdict::Rejected
    } else {
        Verdict::Inconclusive
    };
    let summary = match verdict {
        Verdict::Inconclusive => "the ceiling brackets overlap",
        _ => "the ceiling brackets do not overlap",
    }
    .to_string();
    let plain = match verdict {
        Verdict::Supported => "The ceilings found do not overlap: the claim holds.",
        Verdict::Rejected => "The ceilings found do not overlap: the claim does not hold.",
        Verdict::Inconclusive => "The ceilings found overlap: the search cannot tell.",
    }
    .to_string();
    Answer {
        behind: 0,
        word: String::new(),
        ratio_evidence: None,
        plain,
        hypothesis: h.text.clone(),
        verdict,
        evidence: None,
        strata: Vec::new(),
        summary,
        explanation: format!(
            "{a}: {}; {b_desc}. Each ceiling is a bracket from the search (one run per probe), \
             so the verdict compares brackets: it is only decided when they do not overlap.",
            ca.describe_in(plan)
        ),
    }
}

/// Everything the report needs besides the raw runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub ceilings: Vec<Ceiling>,
    pub answers: Vec<Answer>,
    /// The runs in which the load generator fell behind its schedule
    /// (`sweep 400/s c5 #2`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub behind: Vec<String>,
    /// The runs in which every request failed to connect, with what they
    /// met (`sweep 20/s c #1: connection refused on every request: is the
    /// target up?`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreachable: Vec<String>,
}

/// The sweep runs a hypothesis rests on where the generator fell behind.
fn behind_in(runs: &[RunRow], h: &Hypothesis) -> usize {
    let names: Vec<&str> = [&h.left, &h.right]
        .into_iter()
        .filter_map(|o| match o {
            Operand::Target { target, .. } => Some(target.as_str()),
            Operand::Const(_) => None,
        })
        .collect();
    runs.iter()
        .filter(|r| r.phase == SWEEP && names.contains(&r.target.as_str()))
        .filter(|r| h.metric() == Metric::Ceiling || h.covers_rate(r.rate))
        .filter(|r| r.summary.generator_behind())
        .count()
}

pub fn analyse(plan: &Plan, runs: &[RunRow]) -> Analysis {
    let mut an = analyse_runs(plan, runs);
    for (a, h) in an.answers.iter_mut().zip(&plan.hypotheses) {
        a.behind = behind_in(runs, h);
        if a.behind > 0 {
            a.explanation.push_str(&format!(
                " Flagged: {} of the runs it rests on were sent by a generator that fell behind its schedule (send lag p99 above {} or requests unsent); they measure the client more than the target, so rerun them before relying on this verdict.",
                a.behind,
                loadlab_core::format_go_duration(std::time::Duration::from_nanos(
                    crate::collect::BEHIND_LAG_P99_NS
                )),
            ));
        }
    }
    let label = |r: &RunRow| {
        format!(
            "{} {} {} #{}",
            r.phase,
            plan.load.level_short(r.rate),
            r.target,
            r.repetition
        )
    };
    an.behind = runs
        .iter()
        .filter(|r| r.summary.generator_behind())
        .map(label)
        .collect();
    an.unreachable = runs
        .iter()
        .filter(|r| r.summary.unreachable())
        .map(|r| {
            format!(
                "{}: {}",
                label(r),
                crate::collect::unreachable_words(&r.summary)
            )
        })
        .collect();
    an
}

fn analyse_runs(plan: &Plan, runs: &[RunRow]) -> Analysis {
    Analysis {
        behind: Vec::new(),
        unreachable: Vec::new(),
        ceilings: if plan.ceiling.is_some() || plan.slo.is_some() {
            plan.targets
                .iter()
                .map(|t| ceiling(runs, &t.name))
                .collect()
        } else {
            Vec::new()
        },
        answers: plan
            .hypotheses
            .iter()
            .map(|h| answer(plan, runs, h))
            .collect(),
    }
}

/// A study's answer in a few lines for a terminal: the question, each
/// hypothesis with its verdict and what it rests on, and the ceilings.
pub fn render_answer(plan: &Plan, an: &Analysis) -> String {
    use std::fmt::Write;
    let mut o = String::new();
    if let Some(q) = plan.question.as_deref() {
        let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
        let _ = writeln!(o, "Question: {q}\n");
    }
    if !an.answers.is_empty() {
        let _ = writeln!(
            o,
            "Verdicts (exact one-sided tests at {}%, n runs per target and {}; details in the report):",
            stats::ALPHA * 100.0,
            if plan.load.is_rate() { "rate" } else { "step" }
        );
        // Widths in characters (`≈` is one), as `{:<w$}` pads.
        let w = an
            .answers
            .iter()
            .map(|a| a.hypothesis.chars().count())
            .max()
            .unwrap_or(0);
        let ww = an
            .answers
            .iter()
            .map(|a| a.word().len())
            .fold(12, usize::max);
        for a in &an.answers {
            let flag = if a.behind > 0 {
                format!(
                    " [flagged: {} run(s) where the generator fell behind]",
                    a.behind
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "  {:<ww$}  {:<w$}  {}{flag}",
                a.word().to_uppercase(),
                a.hypothesis,
                a.summary
            );
        }
        o.push('\n');
    }
    for u in &an.unreachable {
        let _ = writeln!(o, "Run {u}\n");
    }
    if !an.behind.is_empty() {
        let shown: Vec<&str> = an.behind.iter().take(5).map(String::as_str).collect();
        let more = an.behind.len().saturating_sub(shown.len());
        let _ = writeln!(
            o,
            "In {} run(s) {} ({}{}): their figures are the client's limits, not the target's.\n",
            an.behind.len(),
            crate::collect::BEHIND_NOTE.replace(": this run measures the client", ""),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        );
    }
    if !an.ceilings.is_empty() {
        let slo = plan.slo.as_ref().map(|s| {
            let mut parts = Vec::new();
            if let Some(x) = s.success {
                parts.push(format!("success >= {}", Metric::Success.fmt_value(x)));
            }
            for (p, d) in &s.latency {
                let name = if *p >= 100.0 {
                    "max".to_string()
                } else {
                    format!("p{p}")
                };
                parts.push(format!(
                    "{name} <= {}",
                    loadlab_core::format_go_duration(*d)
                ));
            }
            parts.join(", ")
        });
        let _ = match slo {
            Some(s) if !s.is_empty() => writeln!(
                o,
                "Ceilings (highest {} within the SLO: {s}):",
                if plan.load.is_rate() {
                    "rate"
                } else {
                    plan.load.axis.as_str()
                }
            ),
            _ => writeln!(o, "Ceilings:"),
        };
        let w = an
            .ceilings
            .iter()
            .map(|c| c.target.len())
            .max()
            .unwrap_or(0);
        for c in &an.ceilings {
            let _ = writeln!(o, "  {:<w$}  {}", c.target, c.describe_in(plan));
        }
    }
    o
}
