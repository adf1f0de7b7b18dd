//! Axis ranges and ticks, chosen here rather than by a plotting library:
//! linear axes step by 1, 2 or 5 × 10^k with the same number of decimals on
//! every label, log axes tick at decades, or 1-2-5 within decades when the
//! range is narrow.

use super::Axis;

/// A value in drawing units: log10 of it on a log axis.
pub fn tr(axis: Axis, v: f64) -> f64 {
    match axis {
        Axis::Linear => v,
        Axis::Log => v.max(1e-9).log10(),
    }
}

/// The drawn range of `vals` (already in drawing units), padded by 5 %; a
/// linear axis with `zero` starts at zero (or below, for negative data).
pub fn range(vals: impl Iterator<Item = f64>, axis: Axis, zero: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let from_zero = axis == Axis::Linear && zero;
    if from_zero {
        lo = lo.min(0.0);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    (if from_zero && lo >= 0.0 { lo } else { lo - pad }, hi + pad)
}

/// The 1, 2 or 5 × 10^k step that cuts `span` into at most `max` intervals.
fn nice_step(span: f64, max: usize) -> f64 {
    let raw = (span / max as f64).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag)
}

/// Ticks of a linear axis over `lo..=hi`: multiples of a 1-2-5 step, every
/// label with the decimals the step needs (`0.0, 0.5, 1.0`).
pub fn linear_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let step = nice_step(hi - lo, 8);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (first, last) = (
        (lo / step - 1e-9).ceil() as i64,
        (hi / step + 1e-9).floor() as i64,
    );
    (first..=last)
        .map(|i| {
            let v = i as f64 * step;
            (v, format!("{:.*}", decimals, if i == 0 { 0.0 } else { v }))
        })
        .collect()
}

/// A tick value of a log axis as text: as many decimals as it needs.
fn log_label(v: f64) -> String {
    let decimals = (-v.log10().floor()).max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// Ticks of a log axis whose data run over `10^lo..=10^hi`: positions in log10
/// units. Decades when there are at least three, else 1-2-5 (or 1…9) per
/// decade; within a narrow range, round linear steps.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
    let inside = |v: &f64| *v >= a * (1.0 - 1e-9) && *v <= b * (1.0 + 1e-9);
    let mults: [&[f64]; 3] = [
        &[1.0],
        &[1.0, 2.0, 5.0],
        &[1., 2., 3., 4., 5., 6., 7., 8., 9.],
    ];
    for m in mults {
        let mut vals: Vec<f64> = (lo.floor() as i32..=hi.ceil() as i32)
            .flat_map(|k| m.iter().map(move |x| x * 10f64.powi(k)))
            .filter(inside)
            .collect();
        if vals.len() >= 3 {
            if vals.len() > 8 {
                // Many decades: every second (third …) one.
                let every = vals.len().div_ceil(8);
                vals = vals.into_iter().step_by(every).collect();
            }
            return vals
                .into_iter()
                .map(|v| (v.log10(), log_label(v)))
                .collect();
        }
    }
    linear_ticks(a, b)
        .into_iter()
        .filter(|(v, _)| *v > 0.0)
        .map(|(v, t)| (v.log10(), t))
        .collect()
}

/// The ticks of one axis of a panel, in the axis' drawing units.
pub fn ticks(
    axis: Axis,
    custom: Option<fn(f64) -> String>,
    lo: f64,
    hi: f64,
) -> Vec<(f64, String)> {
    match (axis, custom) {
        // Custom labels name whole decades (90%, 99%, 99.9% …) and the median.
        (_, Some(f)) => {
            let mut t: Vec<f64> = (lo.ceil() as i64..=hi.floor() as i64)
                .map(|k| k as f64)
                .collect();
            let median = 2f64.log10();
            if (lo..=hi).contains(&median) {
                t.insert(t.iter().filter(|k| **k < median).count(), median);
            }
            t.into_iter()
                .map(|k| (k, f(k)))
                .filter(|(_, l)| !l.is_empty())
                .collect()
        }
        (Axis::Log, None) => log_ticks(lo, hi),
        (Axis::Linear, None) => linear_ticks(lo, hi),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &[(f64, String)]) -> Vec<&str> {
        t.iter().map(|x| x.1.as_str()).collect()
    }

    #[test]
    fn linear_ticks_share_their_decimals() {
        assert_eq!(
            labels(&linear_ticks(0.0, 1.05)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(&linear_ticks(0.0, 2.6)),
            ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]
        );
        assert_eq!(
            labels(&linear_ticks(0.0, 1260.0)),
            ["0", "200", "400", "600", "800", "1000", "1200"]
        );
        assert_eq!(
            labels(&linear_ticks(-0.3, 0.3)),
            ["-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"]
        );
    }

    #[test]
    fn log_ticks_are_decades_or_1_2_5() {
        let l = |a: f64, b: f64| log_ticks(a.log10(), b.log10());
        assert_eq!(labels(&l(0.3, 2000.0)), ["1", "10", "100", "1000"]);
        assert_eq!(labels(&l(3.0, 80.0)), ["5", "10", "20", "50"]);
        assert_eq!(labels(&l(0.04, 0.6)), ["0.05", "0.1", "0.2", "0.5"]);
        // A narrow range (39.8 … 50.1): round values, not 39.8, 44.7, 50.1.
        assert_eq!(labels(&l(39.8, 50.1)), ["40", "42", "44", "46", "48", "50"]);
        assert!(l(1e-3, 1e9).len() <= 8);
    }

    #[test]
    fn a_linear_range_starts_at_zero_only_when_asked() {
        let vals = [95.0, 100.0];
        assert_eq!(range(vals.into_iter(), Axis::Linear, true).0, 0.0);
        let (lo, hi) = range(vals.into_iter(), Axis::Linear, false);
        assert!((lo - 94.75).abs() < 1e-9 && (hi - 100.25).abs() < 1e-9);
    }
}
