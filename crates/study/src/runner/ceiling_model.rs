//! The model-guided ceiling search (`ceiling: {method: model}`): each run
//! is scored against the SLO (1 = on the bound), the score near the
//! pass/fail bracket is fitted with the queueing reading
//! `s(X) = s0 / (1 − X/X_max)` (linear in `1/s`), and a seeded bootstrap
//! over the runs gives an interval of the rate where `s` crosses 1. The
//! next probe goes where the model is least sure (its median crossing)
//! while that interval is wider than the resolution; once it is narrower,
//! the probes close the measured bracket around it. When the score cannot
//! be fitted (too few rates, no rise with the rate), the probe is the
//! bisection's midpoint.

use super::{Ctx, probes_left};
use crate::analysis::{PROBE, SWEEP, SloBound, bisection_steps};
use crate::collect::RunSummary;
use crate::error::StudyError;
use crate::model::boot::SplitMix;
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
            let Some((rate, by)) =
                next_probe(&obs, *lo, *hi, c.resolution, u64::from(*probes), spare)
            else {
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

/// One run: its rate and its SLO score (≤ 1 within every bound).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Obs {
    pub rate: f64,
    pub score: f64,
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
    if s.requests == 0 {
        return f64::INFINITY;
    }
    SloBound::all(slo)
        .iter()
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

/// The next probe inside the measured bracket (`lo` passed, `hi` failed),
/// and the crossing it was placed by (None: the bisection's midpoint).
/// None when the bracket is already within `resolution`. `spare` is how
/// many probes the search may still run: once bisecting what is left
/// would take all of them, the midpoint is taken (the model's guesses on a
/// noisy target must not leave the bracket open at the probes' cap).
pub fn next_probe(
    obs: &[Obs],
    lo: u64,
    hi: u64,
    resolution: u64,
    seed: u64,
    spare: u32,
) -> Option<(u64, Option<Crossing>)> {
    if hi.saturating_sub(lo) <= resolution || hi <= lo + 1 {
        return None;
    }
    let midpoint = Some((lo + (hi - lo) / 2, None));
    if bisection_steps(lo, hi, resolution) >= spare as usize {
        return midpoint;
    }
    let inside = |x: f64| (x.round() as u64).clamp(lo + 1, hi - 1);
    let Some(c) = crossing(obs, lo, hi, seed) else {
        return midpoint;
    };
    let (a, b) = (c.lo.max(lo as f64), c.hi.min(hi as f64));
    let probe = if b - a > resolution as f64 {
        // Least sure where the bootstrap's crossings split in half.
        inside(c.median)
    } else if a > lo as f64 + 0.5 {
        // Sure enough: a passing run just below the crossing ...
        inside(a.floor())
    } else {
        // ... and a failing one a resolution above it close the bracket.
        inside((lo + resolution) as f64)
    };
    Some((probe, Some(c)))
}

/// Probes the model search takes on a simulated target whose score at
/// rate `x` is `truth(x)` (`noise(i)` added to probe `i`), from a sweep
/// of `sweep` rates (`reps` runs each): (probes, final bracket).
#[cfg(test)]
pub(crate) fn simulate(
    truth: &dyn Fn(f64) -> f64,
    noise: &mut dyn FnMut() -> f64,
    sweep: &[u64],
    reps: usize,
    resolution: u64,
) -> (usize, u64, u64) {
    let mut obs = Vec::new();
    for &r in sweep {
        for _ in 0..reps {
            obs.push(Obs {
                rate: r as f64,
                score: truth(r as f64) * (1.0 + noise()),
            });
        }
    }
    let fail = sweep
        .iter()
        .copied()
        .find(|r| truth(*r as f64) > 1.0)
        .unwrap();
    let mut lo = sweep
        .iter()
        .copied()
        .filter(|r| *r < fail)
        .max()
        .unwrap_or(0);
    let mut hi = fail;
    let mut n = 0;
    while let Some((p, _)) = next_probe(&obs, lo, hi, resolution, 7 + n as u64, 40 - n as u32) {
        let s = truth(p as f64) * (1.0 + noise());
        obs.push(Obs {
            rate: p as f64,
            score: s,
        });
        if s <= 1.0 {
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
                let (n, lo, hi) = simulate(truth, &mut noise(seed, 0.01), &sweep, 3, 5);
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

    #[test]
    fn too_few_rates_fall_back_to_the_midpoint() {
        let obs = [
            Obs {
                rate: 100.0,
                score: 0.5,
            },
            Obs {
                rate: 200.0,
                score: 1.5,
            },
        ];
        assert_eq!(next_probe(&obs, 100, 200, 10, 1, 8), Some((150, None)));
        assert_eq!(next_probe(&obs, 100, 105, 10, 1, 8), None);
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
            })
            .collect();
        let (guided, by) = next_probe(&obs, 100, 240, 15, 1, 8).unwrap();
        assert!(by.is_some() && guided != 170, "{guided}");
        // [100, 240] to 15 takes 4 bisection probes: with 4 left, the
        // midpoint.
        assert_eq!(bisection(100, 240, 15), 4);
        assert_eq!(next_probe(&obs, 100, 240, 15, 1, 4), Some((170, None)));
        assert!(next_probe(&obs, 100, 240, 15, 1, 5).unwrap().1.is_some());
    }
}
