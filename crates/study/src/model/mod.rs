//! The capacity model of a study: Gunther's Universal Scalability Law,
//! X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted per target to its steps by
//! weighted non-linear least squares ([`fit`]), with seeded bootstrap
//! intervals over the repetitions ([`boot`]) for σ (contention), κ
//! (coherency), the peak throughput X_max and the concurrency N* where it
//! peaks, and the queueing reading of each step (utilisation X/X_max and
//! the work in service X·S₀ at the low-load service time S₀).
//!
//! Concurrency N is Little's law, N = X·R (measured throughput times mean
//! latency), on the `rate` axis; the step's level (threads, virtual users)
//! on the others. Where the data cannot carry a model — too few steps or
//! repetitions, a poor fit, steps that never approach the knee — the model
//! is a sentence saying so ([`Capacity::refusal`]), never a number.
//!
//! On the rate axis, steps that were sent more than the target answered
//! measured its capacity: X_max is then read from them ([`saturation`]),
//! not from the curve's peak, and no knee needs to be approached.

pub mod boot;
pub mod fit;
pub mod saturation;
#[cfg(test)]
mod tests;

use crate::plan::Plan;
use crate::store::RunRow;
pub use boot::{Band, Interval};
pub use fit::Usl;
pub use saturation::Saturation;

/// Fewest steps a fit of three parameters accepts.
pub const MIN_STEPS: usize = 4;
/// Fewest repetitions of a step the bootstrap accepts.
pub const MIN_REPETITIONS: usize = 2;
/// A fit whose weighted RMS relative miss exceeds this is refused.
pub const MAX_RMS_MISS: f64 = 0.10;
/// The highest step must reach this share of X_max, else the steps never
/// approached the knee and X_max would be an extrapolation.
pub const KNEE_REACH: f64 = 0.80;
/// Bootstrap resamples and their seed (fixed: a report is reproducible).
pub const RESAMPLES: usize = 400;
pub const SEED: u64 = 0x005e_ed0f_051a;

/// One run: its concurrency, throughput (per s) and mean latency (s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    pub n: f64,
    /// Successful responses over the run and the wait for its last
    /// answers (vegeta's throughput).
    pub x: f64,
    pub r: f64,
    /// Requests sent per second of sending (0 off the rate axis).
    pub sent: f64,
    /// Successful responses per second of sending.
    pub delivered: f64,
    /// Successful responses over the span from the first answer to the
    /// last: the target's throughput while it was busy.
    pub busy: f64,
}

impl Obs {
    /// A run of a closed model (threads, virtual users): nothing sent at
    /// a set rate, every throughput the measured one.
    pub fn closed(n: f64, x: f64, r: f64) -> Obs {
        Obs {
            n,
            x,
            r,
            sent: 0.0,
            delivered: x,
            busy: x,
        }
    }
}

/// The runs of one step (one level, every repetition).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub level: u64,
    pub runs: Vec<Obs>,
}

impl Step {
    pub(crate) fn mean(&self, f: impl Fn(&Obs) -> f64) -> f64 {
        self.runs.iter().map(f).sum::<f64>() / self.runs.len().max(1) as f64
    }
    /// Mean concurrency.
    pub fn n(&self) -> f64 {
        self.mean(|o| o.n)
    }
    /// Mean throughput.
    pub fn x(&self) -> f64 {
        self.mean(|o| o.x)
    }
    /// Mean latency (s).
    pub fn r(&self) -> f64 {
        self.mean(|o| o.r)
    }
    /// Lowest and highest throughput of the repetitions.
    pub fn x_range(&self) -> (f64, f64) {
        let lo = self.runs.iter().map(|o| o.x).fold(f64::INFINITY, f64::min);
        let hi = self.runs.iter().map(|o| o.x).fold(0.0, f64::max);
        (lo, hi)
    }
}

/// A fitted model with its intervals.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    pub usl: Usl,
    pub sigma: Interval,
    pub kappa: Interval,
    pub x_max: Interval,
    /// `hi` (and maybe `mid`) infinite when κ may be zero: throughput
    /// levels off instead of falling.
    pub n_star: Interval,
    /// The capacity measured by saturated steps, which X_max and N* are
    /// read from; None when they come from the curve's peak.
    pub saturation: Option<Saturation>,
    /// Weighted RMS relative miss of the curve at the step means.
    pub rms_miss: f64,
    /// Mean latency of the lowest step (s): the low-load service time S₀.
    pub service: f64,
    /// The fitted curve with its 95 % band, over the measured range.
    pub band: Vec<Band>,
    pub resamples: usize,
}

impl Model {
    /// X_max·S₀: how much work the target serves at once at its peak.
    pub fn servers(&self) -> f64 {
        self.x_max.mid * self.service
    }
}

/// A target's capacity: its steps, and the model or why there is none.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    pub target: String,
    pub steps: Vec<Step>,
    pub model: Option<Model>,
    /// Why there is no model, in a sentence.
    pub refusal: Option<String>,
}

/// The runs of `target` grouped into steps by level, lowest first. Runs
/// with no successful response carry no throughput and are left out.
pub fn steps(plan: &Plan, runs: &[RunRow], target: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    for r in runs.iter().filter(|r| r.target == target) {
        let s = &r.summary;
        if s.throughput <= 0.0 || !s.throughput.is_finite() {
            continue;
        }
        let lat = s.mean_ns / 1e9;
        let o = if plan.load.is_rate() {
            open_obs(s, lat)
        } else {
            Obs::closed(r.rate as f64, s.throughput, lat)
        };
        match out.iter_mut().find(|st| st.level == r.rate) {
            Some(st) => st.runs.push(o),
            None => out.push(Step {
                level: r.rate,
                runs: vec![o],
            }),
        }
    }
    out.sort_by_key(|s| s.level);
    out
}

/// A run of the rate axis: concurrency by Little's law, and what it sent
/// and answered over its spans.
fn open_obs(s: &crate::collect::RunSummary, lat: f64) -> Obs {
    let sending = s.attack_ns as f64 / 1e9;
    let wait = s.wait_ns as f64 / 1e9;
    let successes = s.requests as f64 * s.success;
    let per = |span: f64| if span > 0.0 { successes / span } else { 0.0 };
    // The first answer came no sooner than the fastest one took.
    let first = (s.min_ns as f64 / 1e9).min(wait);
    Obs {
        n: s.throughput * lat,
        x: s.throughput,
        r: lat,
        sent: s.rate,
        delivered: per(sending),
        busy: per(sending + wait - first).max(s.throughput),
    }
}

/// Fits the model to `steps`, or says why not.
pub fn model(steps: &[Step], resamples: usize, seed: u64) -> Result<Model, String> {
    if steps.len() < MIN_STEPS {
        return Err(format!(
            "No capacity model: fitting contention, coherency and the single-unit rate needs at least {MIN_STEPS} steps with successful responses, and there {} {}.",
            if steps.len() == 1 { "is" } else { "are" },
            steps.len()
        ));
    }
    let reps = steps.iter().map(|s| s.runs.len()).min().unwrap_or(0);
    if reps < MIN_REPETITIONS {
        return Err(format!(
            "No capacity model: intervals need at least {MIN_REPETITIONS} repetitions of every step, and a step has {reps}; set `repetitions: {MIN_REPETITIONS}` or more."
        ));
    }
    let usl = fit::fit(&boot::weighted(steps));
    let rms = rms_miss(&usl, steps);
    // Steps past a wall measured X_max: the curve only gives its shape.
    let sat = saturation::reading(steps);
    if sat.is_none() && rms > MAX_RMS_MISS {
        return Err(format!(
            "No capacity model: the best scalability curve misses the measured throughput by {:.1} % on average (weighted RMS), more than the {:.0} % a usable fit allows; the target does not behave like one queue of shared work here.",
            rms * 100.0,
            MAX_RMS_MISS * 100.0
        ));
    }
    let b = boot::bootstrap(steps, &usl, resamples, seed);
    let s0 = steps[0].r();
    let (x_max, n_star) = match &sat {
        Some(s) => (s.x, s.x.scaled(s0)),
        None => {
            knee_reached(steps, &usl, &b)?;
            (b.x_max, b.n_star)
        }
    };
    Ok(Model {
        usl,
        sigma: b.sigma,
        kappa: b.kappa,
        x_max,
        n_star,
        saturation: sat,
        rms_miss: rms,
        service: s0,
        band: b.band,
        resamples,
    })
}

/// Refuses a peak read off the curve past the steps: the highest step must
/// reach [`KNEE_REACH`] of it, and the peak's interval must be closed.
fn knee_reached(steps: &[Step], usl: &Usl, b: &boot::Boot) -> Result<(), String> {
    let top = steps.iter().map(Step::x).fold(0.0, f64::max);
    let x_max = usl.peak_throughput();
    if x_max.is_finite() && top >= KNEE_REACH * x_max && !b.x_max.hi.is_finite() {
        return Err(format!(
            "No capacity model: the steps never approach the knee clearly enough — the highest measured throughput, {top:.0}/s, is {:.0} % of the fitted peak, but some resamples of the repetitions never level off, so the peak's interval has no upper end; add higher steps or repetitions.",
            100.0 * top / x_max
        ));
    }
    if !b.x_max.hi.is_finite() || !x_max.is_finite() || top < KNEE_REACH * x_max {
        return Err(format!(
            "No capacity model: the steps never approach the knee — the highest measured throughput, {:.0}/s, is {} of where the fitted curve would level off, and a peak read from it would be an extrapolation; add higher steps.",
            top,
            if x_max.is_finite() {
                format!("only {:.0} %", 100.0 * top / x_max)
            } else {
                "an unknown share".into()
            }
        ));
    }
    Ok(())
}

/// Weighted RMS of the relative miss (X̄ − X(N̄)) / X̄ over the steps.
fn rms_miss(m: &Usl, steps: &[Step]) -> f64 {
    let pts = boot::weighted(steps);
    let wsum: f64 = pts.iter().map(|p| p.w * p.x * p.x).sum();
    (fit::sse(m, &pts) / wsum.max(1e-300)).sqrt()
}

/// Every target's capacity, in the plan's order.
pub fn capacities(plan: &Plan, runs: &[RunRow]) -> Vec<Capacity> {
    plan.targets
        .iter()
        .map(|t| {
            let steps = steps(plan, runs, &t.name);
            let (model, refusal) = match model(&steps, RESAMPLES, SEED) {
                Ok(m) => (Some(m), None),
                Err(e) => (None, Some(e)),
            };
            Capacity {
                target: t.name.clone(),
                steps,
                model,
                refusal,
            }
        })
        .collect()
}

/// A number with about three significant figures.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        "∞".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// The model in one sentence: "throughput peaks near 640 req/s (610–675)
/// at ~48 in flight; past that, coherency costs dominate."
pub fn sentence(m: &Model, unit: &str) -> String {
    let x = &m.x_max;
    let xs = format!("{} {unit} ({}–{})", sig3(x.mid), sig3(x.lo), sig3(x.hi));
    if let Some(sat) = &m.saturation {
        return format!(
            "Throughput levels off at {xs}, measured: from the {} {unit} step on, the target answered less than it was sent (its queue grew, or it refused work). About {} requests were in service at the peak (X_max·S₀); more load only queues or is refused.",
            sat.from,
            sig3(m.servers().max(1.0))
        );
    }
    if m.n_star.mid.is_finite() && m.n_star.hi.is_finite() {
        format!(
            "Throughput peaks near {xs} at ~{} in flight; past that, coherency costs dominate and more load lowers throughput.",
            sig3(m.n_star.mid)
        )
    } else {
        format!(
            "Throughput levels off near {xs}: contention (σ ≈ {}) caps it, and beyond ~{} in flight more load only queues.",
            sig3(m.usl.sigma),
            sig3(m.servers().max(1.0))
        )
    }
}
