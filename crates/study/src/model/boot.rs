//! Weights and seeded bootstrap intervals of the capacity model: each
//! resample draws every step's repetitions with replacement, refits, and
//! the 2.5th and 97.5th percentiles of the refits bound each figure.

use super::Step;
use super::fit::{self, Usl, Weighted};

/// A point estimate and its 95 % interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub mid: f64,
    pub hi: f64,
}

impl Interval {
    /// Every end multiplied by `f`.
    pub fn scaled(&self, f: f64) -> Interval {
        Interval {
            lo: self.lo * f,
            mid: self.mid * f,
            hi: self.hi * f,
        }
    }

    /// True when `v` lies within the interval.
    pub fn covers(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

/// The fitted throughput at concurrency `n`, with its 95 % band.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Band {
    pub n: f64,
    pub x: Interval,
}

/// The resampled intervals.
pub struct Boot {
    pub sigma: Interval,
    pub kappa: Interval,
    pub x_max: Interval,
    pub n_star: Interval,
    pub band: Vec<Band>,
}

/// SplitMix64: a small seeded generator, so intervals repeat exactly.
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.unit() * n as f64) as usize % n.max(1)
    }
}

/// The step means as weighted points: the weight is the inverse variance
/// of the step's mean throughput, floored at a 1 % spread so a step whose
/// repetitions happen to agree does not take the whole fit.
pub fn weighted(steps: &[Step]) -> Vec<Weighted> {
    steps
        .iter()
        .map(|s| {
            let x = s.x();
            let k = s.runs.len() as f64;
            let var = if s.runs.len() > 1 {
                s.runs.iter().map(|o| (o.x - x).powi(2)).sum::<f64>() / (k - 1.0) / k
            } else {
                0.0
            };
            Weighted {
                n: s.n(),
                x,
                w: 1.0 / (var + (0.01 * x).powi(2)).max(1e-300),
            }
        })
        .collect()
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = (q * (v.len() - 1) as f64).round() as usize;
    v[i.min(v.len() - 1)]
}

/// Student's t at 97.5 % for `df` degrees of freedom (at least 1).
pub fn t975(df: usize) -> f64 {
    const T: [f64; 10] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    ];
    T.get(df.max(1) - 1)
        .copied()
        .unwrap_or(2.0 + 2.4 / df as f64)
}

/// Student's t at 97.5 % over the normal's 1.96.
fn t_over_z(df: usize) -> f64 {
    t975(df) / 1.96
}

/// The 95 % percentile interval of the resamples, each side widened by
/// `widen` from the point estimate (the resamples of few repetitions
/// scatter less than studies do: see [`bootstrap`]). Every figure of the
/// model is positive or zero: the widening is by ratio (on a log scale)
/// where it can be, and never crosses zero.
fn interval(mut v: Vec<f64>, mid: f64, widen: f64) -> Interval {
    if v.is_empty() {
        return Interval {
            lo: mid,
            mid,
            hi: mid,
        };
    }
    let (lo, hi) = (percentile(&mut v, 0.025), percentile(&mut v, 0.975));
    let stretch = |e: f64| {
        if e > 0.0 && mid > 0.0 {
            mid * (e / mid).powf(widen)
        } else {
            (mid + (e - mid) * widen).max(0.0)
        }
    };
    Interval {
        lo: stretch(lo.min(mid)),
        mid,
        hi: if hi.is_finite() {
            stretch(hi.max(mid))
        } else {
            hi
        },
    }
}

/// One resample: each step's repetitions drawn with replacement.
fn resample(steps: &[Step], rng: &mut SplitMix) -> Vec<Step> {
    steps
        .iter()
        .map(|s| Step {
            level: s.level,
            runs: (0..s.runs.len())
                .map(|_| s.runs[rng.below(s.runs.len())])
                .collect(),
        })
        .collect()
}

/// `resamples` refits of `steps` around the point fit `usl`.
///
/// Resampling k repetitions understates the spread of a mean by
/// sqrt((k−1)/k) and, with few repetitions, the normal quantile understates
/// Student's: each interval is widened from the point estimate by
/// sqrt(k/(k−1))·t₀.₉₇₅(df)/1.96, k the fewest repetitions of a step and
/// df = (k−1)·steps the degrees of freedom of the spread within steps,
/// which brings the coverage of seeded simulated studies to about 95 %.
pub fn bootstrap(steps: &[Step], usl: &Usl, resamples: usize, seed: u64) -> Boot {
    let mut rng = SplitMix::new(seed);
    let k = steps.iter().map(|s| s.runs.len()).min().unwrap_or(2).max(2);
    let widen = (k as f64 / (k - 1) as f64).sqrt() * t_over_z((k - 1) * steps.len());
    let interval = |v, mid| interval(v, mid, widen);
    let fits: Vec<Usl> = (0..resamples)
        .map(|_| {
            let pts = weighted(&resample(steps, &mut rng));
            fit::refine(*usl, &pts)
        })
        .collect();
    let pick = |f: fn(&Usl) -> f64| fits.iter().map(f).collect::<Vec<f64>>();
    let lo_n = steps.iter().map(Step::n).fold(f64::INFINITY, f64::min);
    let hi_n = steps.iter().map(Step::n).fold(0.0, f64::max);
    let n_star = usl.peak_concurrency();
    let top = if n_star.is_finite() {
        hi_n.max(n_star * 1.2)
    } else {
        hi_n
    };
    let band = (0..=40)
        .map(|i| {
            let from = lo_n.clamp(0.0, 1.0);
            let n = from + (top - from) * i as f64 / 40.0;
            let xs = fits.iter().map(|m| m.throughput(n)).collect();
            Band {
                n,
                x: interval(xs, usl.throughput(n)),
            }
        })
        .collect();
    Boot {
        sigma: interval(pick(|m| m.sigma), usl.sigma),
        kappa: interval(pick(|m| m.kappa), usl.kappa),
        x_max: interval(pick(Usl::peak_throughput), usl.peak_throughput()),
        n_star: interval(pick(Usl::peak_concurrency), n_star),
        band,
    }
}
