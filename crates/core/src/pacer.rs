//! Pure, clock-free schedules.
//!
//! A [`Pacer`] answers one question: *at what offset from the start is request
//! `n` due?* The engine sleeps until `start + send_at(n)` (an absolute instant,
//! so there is no drift from relative sleeps) and measures latency from that
//! intended instant. Pacers are plain values, so they are tested with tables,
//! not clocks.
//!
//! Shapes:
//! * constant: `-rate=400`, `-rate=10/100ms`; `-rate=0`/`infinity` = unlimited;
//! * linear ramp: `-rate=100 -ramp-to=1000 -ramp-duration=60s` (then holds 1000/s);
//! * piecewise plan: `-pace="30s@50,1m@200,2m@200->800"`: each segment is
//!   `DURATION@RATE` (constant) or `DURATION@FROM->TO` (linear); the attack ends
//!   when the plan does;
//! * sine: `-rate=100 -sine-amplitude=50 -sine-period=1m` (mean ± amplitude).

use std::fmt;
use std::time::Duration;

use crate::duration::{format_go_duration, parse_go_duration};
use crate::rate::Rate;

/// The schedule of an attack.
pub trait Pacer: Send + Sync + fmt::Debug {
    /// Offset from the start at which request `n` (0-based) is due, or `None`
    /// when the pacer's own plan has no request `n`.
    fn send_at(&self, n: u64) -> Option<Duration>;
    /// The planned rate in requests per second at elapsed time `t`
    /// (`f64::INFINITY` when unlimited, 0 after the plan ends).
    fn rate_at(&self, t: Duration) -> f64;
    /// True when there is no schedule: send as fast as the caps allow.
    fn is_unlimited(&self) -> bool {
        false
    }
    /// The length of the plan if the pacer ends by itself.
    fn planned_duration(&self) -> Option<Duration> {
        None
    }
}

/// Why a pacer description was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PacerError {
    #[error("invalid pace plan {input:?}: segment {index} ({segment:?}): {reason}")]
    BadSegment {
        input: String,
        index: usize,
        segment: String,
        reason: String,
    },
    #[error("invalid pace plan: it is empty")]
    EmptyPlan,
    #[error(
        "invalid sine pacer: amplitude {amp} is larger than the mean rate {mean} (the rate would go negative)"
    )]
    SineAmplitude { mean: f64, amp: f64 },
    #[error("invalid {what}: {reason}")]
    Invalid { what: &'static str, reason: String },
}

/// A constant rate (vegeta's `ConstantPacer`), with exact integer arithmetic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConstantPacer(pub Rate);

impl Pacer for ConstantPacer {
    fn send_at(&self, n: u64) -> Option<Duration> {
        if self.0.is_unlimited() {
            return Some(Duration::ZERO);
        }
        let ns = (n as u128) * self.0.per.as_nanos() / self.0.freq as u128;
        Some(Duration::from_nanos(u64::try_from(ns).ok()?))
    }
    fn rate_at(&self, _t: Duration) -> f64 {
        self.0.hz()
    }
    fn is_unlimited(&self) -> bool {
        self.0.is_unlimited()
    }
}

/// One piece of a piecewise-linear plan: the rate moves linearly from `from`
/// to `to` (requests per second) over `duration`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    pub duration: Duration,
    pub from: f64,
    pub to: f64,
}

impl Segment {
    fn count(&self) -> f64 {
        (self.from + self.to) / 2.0 * self.duration.as_secs_f64()
    }
}

/// A piecewise-linear rate: steps, ramps and combinations of both. With
/// `hold == true` the last segment's final rate continues forever.
#[derive(Debug, Clone, PartialEq)]
pub struct PiecewisePacer {
    segments: Vec<Segment>,
    /// Cumulative request count at the start of each segment, plus the total.
    starts: Vec<f64>,
    offsets: Vec<Duration>,
    hold: bool,
}

impl PiecewisePacer {
    pub fn new(segments: Vec<Segment>, hold: bool) -> Self {
        let mut starts = Vec::with_capacity(segments.len() + 1);
        let mut offsets = Vec::with_capacity(segments.len() + 1);
        let (mut c, mut t) = (0.0, Duration::ZERO);
        for s in &segments {
            starts.push(c);
            offsets.push(t);
            c += s.count();
            t += s.duration;
        }
        starts.push(c);
        offsets.push(t);
        PiecewisePacer {
            segments,
            starts,
            offsets,
            hold,
        }
    }

    /// A constant `rate` (requests per second, any positive real) from the
    /// start: request `n` is due at exactly `n / rate` seconds (one held
    /// segment of no length, so no rounding of a segment's end comes in).
    pub fn constant(rate: f64) -> Self {
        PiecewisePacer::linear(rate, rate, Duration::ZERO)
    }

    /// A linear ramp from `from` to `to` over `over`, then holding `to`.
    pub fn linear(from: f64, to: f64, over: Duration) -> Self {
        PiecewisePacer::new(
            vec![Segment {
                duration: over,
                from,
                to,
            }],
            true,
        )
    }
}

impl PiecewisePacer {
    /// When the plan has accrued `m` requests in all (its cumulative count
    /// reaches `m`, give or take `tol`), or `None` if its segments end
    /// first. k6's ramping arrival rate starts arrival `n` once `n + 1`
    /// have accrued (a rate of 2/s starts its first at 0.5 s).
    pub fn accrued_at(&self, m: f64, tol: f64) -> Option<Duration> {
        let mut t0 = 0.0;
        for (k, seg) in self.segments.iter().enumerate() {
            let d = seg.duration.as_secs_f64();
            if self.starts[k + 1] >= m - tol {
                // Within `tol` of the segment's end, rounding may leave no
                // root: the count is reached at the segment's end.
                let x = solve_ramp(seg, m - self.starts[k]).unwrap_or(d);
                return Some(Duration::from_secs_f64(t0 + x.clamp(0.0, d)));
            }
            t0 += d;
        }
        None
    }
}

/// Solves `a t² + b t = m` for the smallest t ≥ 0, in the form that stays
/// stable when `a` is 0 or `b` is 0.
fn solve_ramp(seg: &Segment, m: f64) -> Option<f64> {
    let d = seg.duration.as_secs_f64();
    let b = seg.from;
    let a = (seg.to - seg.from) / (2.0 * d);
    if m <= 0.0 {
        return Some(0.0);
    }
    let disc = b * b + 4.0 * a * m;
    if disc < 0.0 {
        return None;
    }
    let denom = b + disc.sqrt();
    if denom <= 0.0 {
        return None;
    }
    Some(2.0 * m / denom)
}

impl Pacer for PiecewisePacer {
    fn send_at(&self, n: u64) -> Option<Duration> {
        let nf = n as f64;
        let total = *self.starts.last()?;
        if nf >= total {
            if !self.hold {
                return None;
            }
            let rate = self.segments.last().map(|s| s.to)?;
            if rate <= 0.0 {
                return None;
            }
            let end = *self.offsets.last()?;
            return Some(end + Duration::from_secs_f64((nf - total) / rate));
        }
        // Last segment whose start count is <= n and that holds requests.
        let k = match self.starts[..self.segments.len()]
            .partition_point(|&c| c <= nf)
            .checked_sub(1)
        {
            Some(k) => k,
            None => return Some(Duration::ZERO),
        };
        // Skip empty (zero-rate) segments: n belongs to a later one.
        let mut k = k;
        while k < self.segments.len() && self.starts[k + 1] <= nf {
            k += 1;
        }
        let seg = self.segments.get(k)?;
        let local = solve_ramp(seg, nf - self.starts[k])?;
        let local = local.min(seg.duration.as_secs_f64());
        Some(self.offsets[k] + Duration::from_secs_f64(local))
    }

    fn rate_at(&self, t: Duration) -> f64 {
        for (i, s) in self.segments.iter().enumerate() {
            let end = self.offsets[i + 1];
            if t < end {
                let x = (t - self.offsets[i]).as_secs_f64() / s.duration.as_secs_f64().max(1e-12);
                return s.from + (s.to - s.from) * x;
            }
        }
        if self.hold {
            self.segments.last().map_or(0.0, |s| s.to)
        } else {
            0.0
        }
    }

    fn planned_duration(&self) -> Option<Duration> {
        if self.hold {
            None
        } else {
            self.offsets.last().copied()
        }
    }
}

/// A sinusoidal rate: `mean + amp · sin(2πt/period + phase)` (vegeta's SinePacer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SinePacer {
    pub mean: f64,
    pub amp: f64,
    pub period: Duration,
    pub phase: f64,
}

impl SinePacer {
    fn count(&self, t: f64) -> f64 {
        let p = self.period.as_secs_f64();
        let w = std::f64::consts::TAU / p;
        self.mean * t + self.amp / w * (self.phase.cos() - (w * t + self.phase).cos())
    }
    fn rate(&self, t: f64) -> f64 {
        let w = std::f64::consts::TAU / self.period.as_secs_f64();
        self.mean + self.amp * (w * t + self.phase).sin()
    }
}

impl Pacer for SinePacer {
    fn send_at(&self, n: u64) -> Option<Duration> {
        if self.mean <= 0.0 {
            return None;
        }
        let nf = n as f64;
        if nf == 0.0 {
            return Some(Duration::ZERO);
        }
        // count(t) is non-decreasing and within ±2·amp/w of mean·t: bracket, then
        // safeguarded Newton (falls back to bisection when a step leaves the bracket).
        let w = std::f64::consts::TAU / self.period.as_secs_f64();
        let slack = 2.0 * self.amp / w;
        let mut lo = ((nf - slack) / self.mean).max(0.0);
        let mut hi = (nf + slack) / self.mean;
        let mut t = nf / self.mean;
        for _ in 0..100 {
            let f = self.count(t) - nf;
            if f.abs() < 1e-9 {
                break;
            }
            if f > 0.0 {
                hi = t
            } else {
                lo = t
            }
            let r = self.rate(t);
            let next = if r > 1e-12 { t - f / r } else { f64::NAN };
            t = if next.is_finite() && next > lo && next < hi {
                next
            } else {
                (lo + hi) / 2.0
            };
            if hi - lo < 1e-10 {
                break;
            }
        }
        Some(Duration::from_secs_f64(t.max(0.0)))
    }
    fn rate_at(&self, t: Duration) -> f64 {
        self.rate(t.as_secs_f64())
    }
}

/// A validated description of a pacer, built from flags or a plan file.
#[derive(Debug, Clone, PartialEq)]
pub enum PacerSpec {
    Constant(Rate),
    /// Linear ramp from `from` to `to` over `over`, then holding `to`.
    Linear {
        from: f64,
        to: f64,
        over: Duration,
    },
    /// Piecewise plan; the attack ends when the plan does.
    Plan(Vec<Segment>),
    Sine {
        mean: f64,
        amp: f64,
        period: Duration,
    },
}

impl PacerSpec {
    pub fn build(&self) -> Box<dyn Pacer> {
        match self {
            PacerSpec::Constant(r) => Box::new(ConstantPacer(*r)),
            PacerSpec::Linear { from, to, over } => {
                Box::new(PiecewisePacer::linear(*from, *to, *over))
            }
            PacerSpec::Plan(segs) => Box::new(PiecewisePacer::new(segs.clone(), false)),
            PacerSpec::Sine { mean, amp, period } => Box::new(SinePacer {
                mean: *mean,
                amp: *amp,
                period: *period,
                phase: 0.0,
            }),
        }
    }

    /// The highest rate the plan asks for (requests per second).
    pub fn peak_rate(&self) -> f64 {
        match self {
            PacerSpec::Constant(r) => r.hz(),
            PacerSpec::Linear { from, to, .. } => from.max(*to),
            PacerSpec::Plan(s) => s.iter().map(|s| s.from.max(s.to)).fold(0.0, f64::max),
            PacerSpec::Sine { mean, amp, .. } => mean + amp,
        }
    }

    pub fn is_unlimited(&self) -> bool {
        matches!(self, PacerSpec::Constant(r) if r.is_unlimited())
    }

    /// Builds a linear ramp, checking its arguments.
    pub fn linear(from: f64, to: f64, over: Duration) -> Result<PacerSpec, PacerError> {
        if over.is_zero() {
            return Err(PacerError::Invalid {
                what: "ramp",
                reason: "-ramp-duration must be greater than zero".into(),
            });
        }
        if !(from.is_finite() && to.is_finite())
            || from < 0.0
            || to < 0.0
            || (from == 0.0 && to == 0.0)
        {
            return Err(PacerError::Invalid {
                what: "ramp",
                reason: format!(
                    "rates must be finite, non-negative and not both zero (got {from} -> {to})"
                ),
            });
        }
        Ok(PacerSpec::Linear { from, to, over })
    }

    /// Builds a sine pacer, checking its arguments.
    pub fn sine(mean: f64, amp: f64, period: Duration) -> Result<PacerSpec, PacerError> {
        if period.is_zero() {
            return Err(PacerError::Invalid {
                what: "sine pacer",
                reason: "-sine-period must be greater than zero".into(),
            });
        }
        if !(mean.is_finite() && mean > 0.0) || amp < 0.0 {
            return Err(PacerError::Invalid {
                what: "sine pacer",
                reason: "needs a finite mean rate > 0 and amplitude >= 0".into(),
            });
        }
        if amp > mean {
            return Err(PacerError::SineAmplitude { mean, amp });
        }
        Ok(PacerSpec::Sine { mean, amp, period })
    }

    /// Parses a piecewise plan: `30s@50,1m@200,2m@200->800`. Rates may also be
    /// written as vegeta rates (`10/100ms`).
    pub fn parse_plan(input: &str) -> Result<PacerSpec, PacerError> {
        let mut segs = Vec::new();
        for (i, raw) in input.split(',').enumerate() {
            let part = raw.trim();
            if part.is_empty() {
                if input.trim().is_empty() {
                    return Err(PacerError::EmptyPlan);
                }
                continue;
            }
            let bad = |reason: String| PacerError::BadSegment {
                input: input.to_string(),
                index: i + 1,
                segment: part.to_string(),
                reason,
            };
            let (d, r) = part.split_once('@').ok_or_else(|| {
                bad("expected DURATION@RATE or DURATION@FROM->TO, e.g. 30s@50".into())
            })?;
            let duration = parse_go_duration(d.trim()).map_err(|e| bad(e.to_string()))?;
            if duration.is_zero() {
                return Err(bad("the duration must be greater than zero".into()));
            }
            let parse_rate = |s: &str| -> Result<f64, PacerError> {
                let rate = Rate::parse(s.trim()).map_err(|e| bad(e.to_string()))?;
                if rate.is_unlimited() && s.trim() != "0" {
                    return Err(bad("a plan segment cannot be unlimited".into()));
                }
                Ok(if rate.is_unlimited() { 0.0 } else { rate.hz() })
            };
            let (from, to) = match r.split_once("->") {
                Some((a, b)) => (parse_rate(a)?, parse_rate(b)?),
                None => {
                    let x = parse_rate(r)?;
                    (x, x)
                }
            };
            segs.push(Segment { duration, from, to });
        }
        if segs.is_empty() {
            return Err(PacerError::EmptyPlan);
        }
        Ok(PacerSpec::Plan(segs))
    }
}

impl fmt::Display for PacerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PacerSpec::Constant(r) => write!(f, "constant {r}"),
            PacerSpec::Linear { from, to, over } => {
                write!(
                    f,
                    "linear {from}/s -> {to}/s over {}",
                    format_go_duration(*over)
                )
            }
            PacerSpec::Plan(segs) => {
                let parts: Vec<String> = segs
                    .iter()
                    .map(|s| {
                        if s.from == s.to {
                            format!("{}@{}", format_go_duration(s.duration), s.from)
                        } else {
                            format!("{}@{}->{}", format_go_duration(s.duration), s.from, s.to)
                        }
                    })
                    .collect();
                write!(f, "plan {}", parts.join(","))
            }
            PacerSpec::Sine { mean, amp, period } => {
                write!(
                    f,
                    "sine {mean}/s ± {amp}/s every {}",
                    format_go_duration(*period)
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn constant_schedule_is_exact() {
        let p = ConstantPacer(Rate::per_second(400));
        assert_eq!(p.send_at(0), Some(Duration::ZERO));
        assert_eq!(p.send_at(1), Some(Duration::from_micros(2500)));
        assert_eq!(p.send_at(400), Some(Duration::from_secs(1)));
        assert_eq!(p.send_at(24_000), Some(Duration::from_secs(60)));
        let p = ConstantPacer(Rate::parse("10/100ms").unwrap());
        assert_eq!(p.send_at(10), Some(ms(100)));
        assert_eq!(p.send_at(3), Some(ms(30)));
        // No overflow far out.
        let p = ConstantPacer(Rate::per_second(1));
        assert_eq!(
            p.send_at(1_000_000_000),
            Some(Duration::from_secs(1_000_000_000))
        );
    }

    #[test]
    fn a_constant_real_rate_is_due_at_n_over_rate() {
        for rate in [2.5, 100.0, 333.3, 12_345.678] {
            let p = PiecewisePacer::constant(rate);
            for n in [0u64, 1, 2, 7, 1_000, 123_456_789] {
                let want = Duration::from_secs_f64(n as f64 / rate);
                assert_eq!(p.send_at(n), Some(want), "rate {rate}, n {n}");
            }
            assert_eq!(p.rate_at(Duration::from_secs(5)), rate);
            assert_eq!(p.planned_duration(), None);
        }
    }

    #[test]
    fn unlimited_is_always_due() {
        let p = ConstantPacer(Rate::UNLIMITED);
        assert!(p.is_unlimited());
        assert_eq!(p.send_at(12345), Some(Duration::ZERO));
    }

    #[test]
    fn linear_ramp_counts_match_the_integral() {
        // 100/s -> 1000/s over 60s: (100+1000)/2*60 = 33,000 requests in the ramp.
        let p = PiecewisePacer::linear(100.0, 1000.0, Duration::from_secs(60));
        let t = p.send_at(33_000).unwrap().as_secs_f64();
        assert!((t - 60.0).abs() < 1e-6, "{t}");
        // After the ramp it holds 1000/s.
        let t = p.send_at(34_000).unwrap().as_secs_f64();
        assert!((t - 61.0).abs() < 1e-6, "{t}");
        // First second: 100 + 15/2 = 107.5 requests, so #107 is before 1s and #108 after.
        assert!(p.send_at(107).unwrap() < Duration::from_secs(1));
        assert!(p.send_at(108).unwrap() > Duration::from_secs(1));
        assert!((p.rate_at(Duration::from_secs(30)) - 550.0).abs() < 1e-9);
        assert_eq!(p.planned_duration(), None);
    }

    #[test]
    fn accrued_counts_whole_requests_within_the_plan() {
        let seg = |s: u64, from: f64, to: f64| Segment {
            duration: Duration::from_secs(s),
            from,
            to,
        };
        let p = PiecewisePacer::new(vec![seg(1, 2.0, 2.0), seg(2, 2.0, 0.0)], false);
        assert_eq!(p.accrued_at(1.0, 1e-9), Some(ms(500)));
        assert_eq!(p.accrued_at(2.0, 1e-9), Some(ms(1000)));
        // The ramp down to 0 accrues its last one at its very end.
        assert_eq!(p.accrued_at(4.0, 1e-9), Some(ms(3000)));
        assert_eq!(p.accrued_at(4.5, 1e-9), None);
        let idle = PiecewisePacer::new(vec![seg(1, 0.0, 0.0)], false);
        assert_eq!(idle.accrued_at(1.0, 1e-9), None);
    }

    #[test]
    fn ramp_from_zero_works() {
        let p = PiecewisePacer::linear(0.0, 100.0, Duration::from_secs(10));
        // count(t) = 5 t^2, so request 500 is at 10s and request 20 at 2s.
        assert!((p.send_at(20).unwrap().as_secs_f64() - 2.0).abs() < 1e-9);
        assert!((p.send_at(500).unwrap().as_secs_f64() - 10.0).abs() < 1e-6);
    }

    #[test]
    fn ramp_down_then_ends() {
        let p = PacerSpec::parse_plan("10s@100->0").unwrap().build();
        // 500 requests in total; the last one is due before 10s.
        assert!(p.send_at(499).unwrap() <= Duration::from_secs(10));
        assert_eq!(p.send_at(500), None);
    }

    #[test]
    fn step_plan_is_monotonic_and_ends() {
        let spec = PacerSpec::parse_plan("30s@50, 1m@200,10s@0,1s@10/100ms").unwrap();
        let p = spec.build();
        assert_eq!(p.send_at(1500), Some(Duration::from_secs(30)));
        assert_eq!(
            p.send_at(1501),
            Some(Duration::from_secs(30) + Duration::from_millis(5))
        );
        // 1500 + 12000 = 13500 requests, then a 10 s pause, then 100 requests at 100/s.
        assert_eq!(p.send_at(13_500).unwrap().as_secs_f64().round(), 100.0);
        assert_eq!(
            p.send_at(13_599).map(|d| d < Duration::from_secs(101)),
            Some(true)
        );
        assert_eq!(p.send_at(13_600), None);
        assert_eq!(p.planned_duration(), Some(Duration::from_secs(101)));
        let mut prev = Duration::ZERO;
        for n in 0..13_600 {
            let t = p.send_at(n).unwrap();
            assert!(t >= prev, "not monotonic at {n}");
            prev = t;
        }
        assert_eq!(spec.peak_rate(), 200.0);
        assert_eq!(p.rate_at(Duration::from_secs(95)), 0.0);
    }

    #[test]
    fn plan_errors_name_the_segment() {
        let e = PacerSpec::parse_plan("30s@50,1m").unwrap_err().to_string();
        assert!(
            e.contains("segment 2") && e.contains("DURATION@RATE"),
            "{e}"
        );
        let e = PacerSpec::parse_plan("30x@50").unwrap_err().to_string();
        assert!(e.contains("segment 1") && e.contains("unknown unit"), "{e}");
        assert!(PacerSpec::parse_plan("").is_err());
        assert!(PacerSpec::parse_plan("1s@infinity").is_err());
        assert!(PacerSpec::parse_plan("0s@5").is_err());
    }

    #[test]
    fn sine_tracks_its_integral() {
        let spec = PacerSpec::sine(100.0, 50.0, Duration::from_secs(10)).unwrap();
        let p = spec.build();
        // Over a whole period the count equals mean * period.
        let t = p.send_at(1000).unwrap().as_secs_f64();
        assert!((t - 10.0).abs() < 1e-6, "{t}");
        let mut prev = Duration::ZERO;
        for n in 0..3000 {
            let t = p.send_at(n).unwrap();
            assert!(t >= prev);
            prev = t;
        }
        // The first quarter period runs faster than the mean.
        assert!(p.send_at(250).unwrap() < Duration::from_millis(2500));
        assert!(PacerSpec::sine(10.0, 20.0, Duration::from_secs(1)).is_err());
        assert!(PacerSpec::sine(10.0, 10.0, Duration::from_secs(1)).is_ok());
    }
}
