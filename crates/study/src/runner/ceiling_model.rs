//! The model-guided ceiling search (`ceiling: {method: model}`): each run
//! is scored against the SLO (1 = on the bound), the score near the
//! pass/fail bracket is fitted with the queueing reading
//! `s(X) = s0 / (1 − X/X_max)` (linear in `1/s`), and a seeded bootstrap
//! over the runs gives an interval of the rate where `s` crosses 1. The
//! next probe goes where the model is least sure (its median crossing)
//! while that interval is wider than the resolution; once it is narrower,
//! the probes close the measured bracket around it.
//!
//! A target that hits a wall (a fixed number served at once, a queue that
//! rejects when full) jumps from far below the bound to far above it
//! between two rates, and the score has nothing between to fit. Its
//! failing runs say where the wall is, though: past its capacity, a target
//! delivers about its capacity, whatever the rate. The saturation reading
//! ([`saturation`]) takes that capacity from the failing runs and places
//! the crossing by it; when it has none (or the runs since proved it wrong
//! by more than a resolution), the score fit does, and when neither can,
//! the probe is the bisection's midpoint.

use super::{Ctx, probes_left};
use crate::analysis::{PROBE, SWEEP, SloBound, bisection_steps};
use crate::collect::RunSummary;
use crate::error::StudyError;
use crate::model::boot::SplitMix;
// A failing run that delivered less than this share of what it sent (or
// less than the success bound's share) was past the target's capacity,
// as a step is for the capacity model.
use crate::model::saturation::SHORT;
use crate::plan::{CeilingPlan, Slo};

/// The runs of `target` so far (sweep and probes) as observations.
fn observed(ctx: &Ctx<'_>, target: &str) -> Result<Vec<Obs>, StudyError> {
    let Some(slo) = ctx.plan.slo.as_ref() else {
        return Ok(Vec::new());
    };
    Ok(ctx
        .store
        .runs(ctx.study)?
        .iter()
        .filter(|r| r.target == target && (r.phase == SWEEP || r.phase == PROBE))
        .map(|r| Obs {
            rate: r.rate as f64,
            score: score(slo, &r.summary),
            latency: latency_score(slo, &r.summary),
            sent: r.summary.rate,
            delivered: r.summary.rate * r.summary.success,
        })
        .collect())
}

/// The model-guided search over each target's bracket `(target, passed,
/// failed, probes)`, one probe per target per round (interleaved, as the
/// bisection). Says on the progress line how many probes it took against
/// the bisection's worst case over the same bracket.
pub(super) fn search(
    ctx: &mut Ctx<'_>,
    mut brackets: Vec<(String, u64, u64, u32)>,
    c: &CeilingPlan,
) -> Result<(), StudyError> {
    let start: Vec<(u64, u64)> = brackets.iter().map(|b| (b.1, b.2)).collect();
    let success = ctx.plan.slo.as_ref().and_then(|s| s.success);
    let mut guided = vec![0u32; brackets.len()];
    loop {
        let left: usize = brackets
            .iter()
            .map(|(_, lo, hi, n)| probes_left(*lo, *hi, *n, c))
            .sum();
        ctx.planned = ctx.position + left;
        let mut progressed = false;
        for (i, (t, lo, hi, probes)) in brackets.iter_mut().enumerate() {
            if *probes >= c.max_probes {
                continue;
            }
            let obs = observed(ctx, t)?;
            let spare = c.max_probes - *probes;
            let bracket = Bracket {
                lo: *lo,
                hi: *hi,
                resolution: c.resolution,
                spare,
            };
            let Some((rate, by)) = next_probe(&obs, &bracket, success, u64::from(*probes)) else {
                continue;
            };
            *probes += 1;
            guided[i] += u32::from(by.is_some());
            progressed = true;
            if ctx.run(PROBE, rate, t, 1)?.unwrap_or(true) {
                *lo = rate;
            } else {
                *hi = rate;
            }
        }
        if !progressed {
            break;
        }
    }
    for (i, (t, lo, hi, probes)) in brackets.iter().enumerate() {
        let bisect = probes_left(start[i].0, start[i].1, 0, c);
        (ctx.opts.progress)(&format!(
            "ceiling search (model) for {t}: {probes} probe(s) ({} placed by the model, the rest at the bracket's middle) to [{lo}, {hi}]; bisecting [{}, {}] to {} takes {bisect}",
            guided[i], start[i].0, start[i].1, c.resolution
        ));
    }
    Ok(())
}

/// One run: its rate, its SLO score (≤ 1 within every bound), and what
/// the saturation reading needs.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Obs {
    pub rate: f64,
    pub score: f64,
    /// The score of the latency bounds alone (0 without one).
    pub latency: f64,
    /// Requests sent per second.
    pub sent: f64,
    /// Successful requests per second of sending: `sent` × the success
    /// ratio. (Not the run's throughput, successes over the run and the
    /// wait for its last answers: on a short step that wait alone makes
    /// it fall short of the rate.)
    pub delivered: f64,
}

/// The measured bracket (`lo` passed, `hi` failed), the width the search
/// stops at, and how many probes it may still run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bracket {
    pub lo: u64,
    pub hi: u64,
    pub resolution: u64,
    pub spare: u32,
}

/// The bootstrap interval of the crossing rate (2.5 %, 50 %, 97.5 %).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Crossing {
    pub lo: f64,
    pub median: f64,
    pub hi: f64,
}

/// The run's worst ratio to the SLO's bounds: a latency over its bound, or
/// the failed share over the share allowed to fail.
pub fn score(slo: &Slo, s: &RunSummary) -> f64 {
    bound_score(slo, s, true)
}

/// The run's worst ratio to the SLO's latency bounds (0 without one).
fn latency_score(slo: &Slo, s: &RunSummary) -> f64 {
    bound_score(slo, s, false)
}

fn bound_score(slo: &Slo, s: &RunSummary, with_success: bool) -> f64 {
    if s.requests == 0 {
        return f64::INFINITY;
    }
    SloBound::all(slo)
        .iter()
        .filter(|b| with_success || matches!(b, SloBound::Latency(..)))
        .map(|b| match *b {
            SloBound::Success(min) if min >= 1.0 => {
                if s.success >= 1.0 {
                    0.0
                } else {
                    f64::INFINITY
                }
            }
            SloBound::Success(min) => (1.0 - s.success) / (1.0 - min),
            SloBound::Latency(p, bound) => {
                let v = match p as u32 {
                    50 => s.p50_ns,
                    90 => s.p90_ns,
                    95 => s.p95_ns,
                    99 => s.p99_ns,
                    _ => s.max_ns,
                };
                v as f64 / bound.as_nanos().max(1) as f64
            }
        })
        .fold(0.0, f64::max)
}

/// The least-squares crossing of `1/s = b0 + b1·X` with 1, if the score
/// rises with the rate.
fn fit(obs: &[Obs]) -> Option<f64> {
    let n = obs.len() as f64;
    // A run far within the SLO (no failure at all: score 0) says little
    // about where the bound is crossed: its weight is capped at a score
    // of 1/20.
    let ys = |o: &Obs| 1.0 / o.score.max(0.05);
    let mx = obs.iter().map(|o| o.rate).sum::<f64>() / n;
    let my = obs.iter().map(ys).sum::<f64>() / n;
    let sxx: f64 = obs.iter().map(|o| (o.rate - mx).powi(2)).sum();
    let sxy: f64 = obs.iter().map(|o| (o.rate - mx) * (ys(o) - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b1 = sxy / sxx;
    let b0 = my - b1 * mx;
    let x = (1.0 - b0) / b1;
    (b1 < 0.0 && x.is_finite()).then_some(x)
}

/// The runs the model is fitted to: those at the three distinct rates
/// nearest the bracket `[lo, hi]` (the queueing reading holds near the
/// knee, not across the whole range).
fn near(obs: &[Obs], lo: u64, hi: u64) -> Vec<Obs> {
    let mid = (lo + hi) as f64 / 2.0;
    let mut rates: Vec<f64> = obs
        .iter()
        .filter(|o| o.score.is_finite())
        .map(|o| o.rate)
        .collect();
    rates.sort_by(|a, b| (a - mid).abs().total_cmp(&(b - mid).abs()));
    rates.dedup();
    let keep: Vec<f64> = rates.into_iter().take(3).collect();
    obs.iter()
        .filter(|o| o.score.is_finite() && keep.contains(&o.rate))
        .copied()
        .collect()
}

/// The crossing's bootstrap interval from the runs near `[lo, hi]`; None
/// when fewer than 3 rates are there or most resamples do not fit.
pub fn crossing(obs: &[Obs], lo: u64, hi: u64, seed: u64) -> Option<Crossing> {
    let pts = near(obs, lo, hi);
    let mut distinct: Vec<f64> = pts.iter().map(|o| o.rate).collect();
    distinct.dedup();
    if distinct.len() < 3 {
        return None;
    }
    let median = fit(&pts)?;
    let mut rng = SplitMix::new(seed);
    const RESAMPLES: usize = 200;
    let mut xs: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let r: Vec<Obs> = (0..pts.len()).map(|_| pts[rng.below(pts.len())]).collect();
            fit(&r)
        })
        .collect();
    if xs.len() < RESAMPLES * 4 / 5 {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let q = |p: f64| xs[((xs.len() - 1) as f64 * p).round() as usize];
    Some(Crossing {
        lo: q(0.025),
        median,
        hi: q(0.975),
    })
}

/// The saturation reading of a target with a wall: an interval of the
/// crossing, from the capacity its saturated failing runs delivered. None
/// without such a run.
///
/// The capacity `X_sat` is the median of what the saturated runs
/// delivered (successful requests per second of sending: a queue that
/// absorbs the excess for the length of a step counts, as it does for the
/// step's verdict). A success bound `m` is crossed between `X_sat` and
/// `X_sat / m` (past the capacity only `X_sat` of the rate succeeds). A
/// latency bound is crossed below the wall only if the saturated runs
/// broke it (else the full queue's wait is within it), between
/// [`queue_crossing`] and `X_sat` (a flat latency up to a wall). The
/// crossing is the lower of the bounds' crossings.
pub fn saturation(obs: &[Obs], success: Option<f64>) -> Option<Crossing> {
    let short = success.map_or(SHORT, |m| m.max(SHORT));
    let mut caps: Vec<f64> = obs
        .iter()
        .filter(|o| o.score > 1.0 && o.sent > 0.0 && o.delivered < short * o.sent)
        .map(|o| o.delivered)
        .collect();
    if caps.is_empty() {
        return None;
    }
    caps.sort_by(f64::total_cmp);
    let cap = caps[caps.len() / 2];
    if cap <= 0.0 {
        return None;
    }
    let by_success = success
        .filter(|m| *m > 0.0)
        .map(|m| (cap, cap / m.min(1.0)));
    let broke_latency = obs
        .iter()
        .any(|o| o.score > 1.0 && o.delivered < short * o.sent && o.latency > 1.0);
    let by_latency = broke_latency.then(|| (queue_crossing(obs, cap), cap));
    let (lo, hi) = [by_success, by_latency]
        .into_iter()
        .flatten()
        .reduce(|a, b| (a.0.min(b.0), a.1.min(b.1)))?;
    Some(Crossing {
        lo,
        median: (lo + hi) / 2.0,
        hi,
    })
}

/// Where a latency bound is crossed below a wall at `cap` if it rises as a
/// queue's: the score of the lowest passing run, `s_idle` (the service
/// time's own spread), plus a queueing part `k·X/(cap − X)` that the
/// highest passing run's rise above it sets. With no rise, the latency is
/// flat up to the wall: `cap`.
fn queue_crossing(obs: &[Obs], cap: f64) -> f64 {
    let passing = || {
        obs.iter()
            .filter(|o| o.score <= 1.0 && o.rate > 0.0 && o.rate < cap)
    };
    let by_rate = |a: &&Obs, b: &&Obs| a.rate.total_cmp(&b.rate);
    let (Some(low), Some(high)) = (passing().min_by(by_rate), passing().max_by(by_rate)) else {
        return cap;
    };
    let idle = low.latency.clamp(0.0, 1.0);
    let k = (high.latency - idle).max(0.0) * (cap - high.rate) / high.rate;
    if idle + k <= 0.0 || idle >= 1.0 {
        return cap;
    }
    cap * (1.0 - idle) / (1.0 - idle + k)
}

/// The next probe inside the measured bracket, and the crossing it was
/// placed by (None: the bisection's midpoint). None when the bracket is
/// already within `resolution`. Once bisecting what is left would take
/// every spare probe, the midpoint is taken (the model's guesses on a
/// noisy target must not leave the bracket open at the probes' cap).
/// `success` is the SLO's success bound, for the saturation reading.
pub fn next_probe(
    obs: &[Obs],
    bracket: &Bracket,
    success: Option<f64>,
    seed: u64,
) -> Option<(u64, Option<Crossing>)> {
    let (lo, hi, resolution) = (bracket.lo, bracket.hi, bracket.resolution);
    if hi.saturating_sub(lo) <= resolution || hi <= lo + 1 {
        return None;
    }
    let midpoint = Some((lo + (hi - lo) / 2, None));
    if bisection_steps(lo, hi, resolution) >= bracket.spare as usize {
        return midpoint;
    }
    let inside = |x: f64| (x.round() as u64).clamp(lo + 1, hi - 1);
    // Two probes close the bracket around a crossing the model places
    // within `[a, b]`, at most a resolution wide: one at `a` (which it
    // says passes), then one a resolution above the passing rate (which
    // it says fails, with the most room above `b`). When `a` is less than
    // half a resolution above the passing rate already measured (or `b`
    // as near the failing one), one probe a resolution from that end
    // closes the bracket if the model is right.
    let close = |a: f64, b: f64| {
        let r = resolution as f64;
        if a.floor() < lo as f64 + r / 2.0 {
            inside((lo + resolution) as f64)
        } else if b.ceil() > hi as f64 - r / 2.0 {
            inside((hi - resolution) as f64)
        } else {
            inside(a.floor())
        }
    };
    // The saturation reading, unless the runs since proved it wrong by
    // more than a resolution; else the score's fit.
    let r = resolution as f64;
    let Some(c) = saturation(obs, success)
        .filter(|c| c.hi > lo as f64 - r && c.lo < hi as f64 + r)
        .or_else(|| crossing(obs, lo, hi, seed))
    else {
        return midpoint;
    };
    let (a, b) = (c.lo.max(lo as f64), c.hi.min(hi as f64));
    let probe = if b - a > r {
        // Least sure where the crossings split in half.
        inside(c.median.clamp(a, b))
    } else {
        close(a, b)
    };
    Some((probe, Some(c)))
}

/// Probes the model search takes on a simulated target, `run(x)` being a
/// run at rate `x` (its score past 1 fails), from a sweep of `sweep`
/// rates (`reps` runs each): (probes, final bracket).
#[cfg(test)]
pub(crate) fn simulate(
    run: &mut dyn FnMut(f64) -> Obs,
    success: Option<f64>,
    sweep: &[u64],
    reps: usize,
    resolution: u64,
) -> (usize, u64, u64) {
    let mut obs = Vec::new();
    for &r in sweep {
        for _ in 0..reps {
            obs.push(run(r as f64));
        }
    }
    let fail = obs.iter().find(|o| o.score > 1.0).unwrap().rate as u64;
    let mut lo = sweep
        .iter()
        .copied()
        .filter(|r| *r < fail)
        .max()
        .unwrap_or(0);
    let mut hi = fail;
    let mut n = 0;
    loop {
        let b = Bracket {
            lo,
            hi,
            resolution,
            spare: 40 - n as u32,
        };
        let Some((p, _)) = next_probe(&obs, &b, success, 7 + n as u64) else {
            break;
        };
        let o = run(p as f64);
        obs.push(o);
        if o.score <= 1.0 {
            lo = p;
        } else {
            hi = p;
        }
        n += 1;
        assert!(n < 40, "no convergence");
    }
    (n, lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::analysis::bisection_steps as bisection;

    fn bracket(lo: u64, hi: u64, resolution: u64, spare: u32) -> Bracket {
        Bracket {
            lo,
            hi,
            resolution,
            spare,
        }
    }

    fn noise(seed: u64, cv: f64) -> impl FnMut() -> f64 {
        let mut rng = SplitMix::new(seed);
        move || cv * (rng.unit() + rng.unit() + rng.unit() - 1.5) * 2.0
    }

    #[test]
    fn the_model_search_needs_fewer_probes_than_bisection_on_two_shapes() {
        // A queueing knee (p99 bound at 3× the idle latency, capacity
        // 640/s: crossing at 427/s) and a hard wall (flat until 510/s,
        // then a queue that grows fast).
        let queue = |x: f64| {
            if x >= 640.0 {
                50.0
            } else {
                (1.0 / 3.0) / (1.0 - x / 640.0)
            }
        };
        let wall = |x: f64| {
            if x < 480.0 {
                0.4 + x / 4000.0
            } else {
                0.52 + (x - 480.0) / 62.0
            }
        };
        let sweep = [100, 200, 300, 400, 500, 600];
        for (name, truth, crossing) in [
            ("queue", &queue as &dyn Fn(f64) -> f64, 426.7),
            ("wall", &wall, 509.8),
        ] {
            let (mut model, mut bis) = (0, 0);
            for seed in 0..20 {
                let mut noise = noise(seed, 0.01);
                let mut run = |x: f64| Obs {
                    rate: x,
                    score: truth(x) * (1.0 + noise()),
                    ..Obs::default()
                };
                let (n, lo, hi) = simulate(&mut run, None, &sweep, 3, 5);
                assert!(hi - lo <= 5, "{name} seed {seed}: [{lo}, {hi}]");
                // The bracket holds the true crossing, give or take the noise.
                assert!(
                    lo as f64 <= crossing + 6.0 && hi as f64 >= crossing - 6.0,
                    "{name} seed {seed}: [{lo}, {hi}] vs {crossing}"
                );
                model += n;
                bis += bisection(400, 500, 5).min(bisection(500, 600, 5));
            }
            println!("{name}: model {model} probes, bisection {bis} (20 seeds)");
            assert!(
                model < bis,
                "{name}: model {model} probes, bisection {bis} (20 seeds)"
            );
        }
    }

    /// A target with a wall (a fixed capacity; past it, the rest is
    /// rejected and the queue's latency jumps) scores far below the bound
    /// on one side and far above it on the other: the score fit has
    /// nothing to go on, but the failing runs delivered the capacity.
    #[test]
    fn a_wall_is_found_from_what_the_failing_runs_delivered() {
        let sweep = [100, 200, 300, 400, 500, 600];
        let (mut model, mut bis) = (0, 0);
        for seed in 0..20 {
            let mut noise = noise(seed, 0.01);
            let cap = 510.0 + 1000.0 * noise();
            // SLO: success ≥ 99 %, p99 at 0.3 of its bound below the wall
            // and 3 times it past.
            let mut run = |x: f64| {
                let delivered = x.min(cap) * (1.0 + noise() / 4.0);
                let success = (delivered / x).min(1.0);
                let latency: f64 = if x < cap { 0.3 } else { 3.0 };
                Obs {
                    rate: x,
                    score: latency.max((1.0 - success) / 0.01),
                    latency,
                    sent: x,
                    delivered,
                }
            };
            let (n, lo, hi) = simulate(&mut run, Some(0.99), &sweep, 3, 5);
            assert!(hi - lo <= 5, "seed {seed}: [{lo}, {hi}]");
            assert!(
                lo as f64 <= cap + 1.0 && hi as f64 >= cap - 1.0,
                "seed {seed}: [{lo}, {hi}] vs {cap}"
            );
            model += n;
            bis += bisection(lo - lo % 100, lo - lo % 100 + 100, 5);
        }
        println!("wall: model {model} probes, bisection {bis} (20 seeds)");
        assert!(model * 3 <= bis * 2, "model {model}, bisection {bis}");
    }

    fn run(rate: f64, latency: f64, delivered: f64) -> Obs {
        let success = delivered / rate;
        Obs {
            rate,
            score: latency.max((1.0 - success) / 0.01),
            latency,
            sent: rate,
            delivered,
        }
    }

    /// Past the wall the runs failed the success bound only: the full
    /// queue's wait is within the latency bound, which says nothing.
    #[test]
    fn a_full_queue_within_the_latency_bound_leaves_the_success_bound() {
        let obs = [
            run(50.0, 0.2, 50.0),
            run(200.0, 0.6, 200.0),
            run(300.0, 0.9, 250.0),
        ];
        let c = saturation(&obs, Some(0.99)).expect("a reading");
        assert_eq!((c.lo, c.hi), (250.0, 250.0 / 0.99), "{c:?}");
    }

    /// A latency bound broken past the wall is crossed below it as far as
    /// the passing runs' latency rose: not at all for a pool of workers, a
    /// queue's rise above the service time's own spread for one server.
    #[test]
    fn a_broken_latency_bound_is_crossed_as_far_below_the_wall_as_it_rose() {
        let flat = [
            run(50.0, 0.6, 50.0),
            run(200.0, 0.6, 200.0),
            run(300.0, 1.5, 250.0),
        ];
        let c = saturation(&flat, Some(0.99)).expect("a reading");
        assert_eq!((c.lo, c.hi), (250.0, 250.0), "{c:?}");
        let rising = [
            run(50.0, 0.2, 50.0),
            run(200.0, 0.5, 200.0),
            run(300.0, 1.5, 250.0),
        ];
        let c = saturation(&rising, Some(0.99)).expect("a reading");
        // k = 0.3·(250 − 200)/200 = 0.075: 250·0.8/0.875.
        assert!((c.lo - 250.0 * 0.8 / 0.875).abs() < 1e-9, "{c:?}");
        assert_eq!(c.hi, 250.0);
    }

    #[test]
    fn too_few_rates_fall_back_to_the_midpoint() {
        let obs = [
            Obs {
                rate: 100.0,
                score: 0.5,
                ..Obs::default()
            },
            Obs {
                rate: 200.0,
                score: 1.5,
                ..Obs::default()
            },
        ];
        assert_eq!(
            next_probe(&obs, &bracket(100, 200, 10, 8), None, 1),
            Some((150, None))
        );
        assert_eq!(next_probe(&obs, &bracket(100, 105, 10, 8), None, 1), None);
    }

    /// With only as many probes left as bisecting the bracket takes, the
    /// search bisects, whatever the model says: it closes the bracket
    /// within the plan's cap even when the model's guesses went wrong.
    #[test]
    fn the_last_probes_bisect() {
        // Scores that fit well: the model would place its probe at its
        // crossing, near 150 in [100, 240].
        let obs: Vec<Obs> = [60.0, 80.0, 100.0, 240.0, 260.0]
            .iter()
            .map(|&r| Obs {
                rate: r,
                score: 0.5 / (1.0 - r / 300.0),
                ..Obs::default()
            })
            .collect();
        let (guided, by) = next_probe(&obs, &bracket(100, 240, 15, 8), None, 1).unwrap();
        assert!(by.is_some() && guided != 170, "{guided}");
        // [100, 240] to 15 takes 4 bisection probes: with 4 left, the
        // midpoint.
        assert_eq!(bisection(100, 240, 15), 4);
        assert_eq!(
            next_probe(&obs, &bracket(100, 240, 15, 4), None, 1),
            Some((170, None))
        );
        assert!(
            next_probe(&obs, &bracket(100, 240, 15, 5), None, 1)
                .unwrap()
                .1
                .is_some()
        );
    }
}
