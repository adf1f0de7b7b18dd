//! How a verdict with a margin reads: the claims its one-sided tests are
//! about, the margin in the metric's unit and relative to B, and the words
//! of an equivalence (`≈`): EQUIVALENT within ±5 %, NOT EQUIVALENT, or
//! inconclusive.

use crate::hypothesis::{Cmp, Hypothesis, Metric};
use crate::relative::{self, RelativeEvidence};
use crate::stats::{Evidence, Judgement, Stratum, Verdict};

use super::fmt_p;

/// A hypothesis' margin (`within`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Margin {
    None,
    /// In the metric's unit (`within 2ms`; `within 0.5%` of success).
    Unit(f64),
    /// A fraction of B at each rate (`within 5%` of latency, throughput, cpu).
    Relative(f64),
}

impl Margin {
    pub fn of(h: &Hypothesis) -> Margin {
        match (h.margin_relative, h.margin) {
            (Some(r), _) => Margin::Relative(r),
            (None, Some(m)) if m > 0.0 => Margin::Unit(m),
            _ => Margin::None,
        }
    }
}

/// A signed value of `m` for people: `+3.000ms`, `-0.50%`.
pub fn signed(m: Metric, v: f64) -> String {
    let s = m.fmt_value(v.abs());
    if v < 0.0 {
        format!("-{s}")
    } else {
        format!("+{s}")
    }
}

/// What a verdict is read from: the two sides, the margin and the evidence.
pub struct Reading<'a> {
    pub a: &'a str,
    pub b: &'a str,
    pub metric: Metric,
    pub margin: Margin,
    /// The test in the metric's unit (always computed, for description).
    pub ev: &'a Evidence,
    /// The test on the ratio scale, for a relative margin.
    pub rel: Option<&'a RelativeEvidence>,
}

impl Reading<'_> {
    /// A shift a one-sided test is done at, for people.
    fn shift(&self, at: f64) -> String {
        match self.margin {
            Margin::Relative(_) => relative::fmt_pct(relative::as_ratio(at)),
            _ if at == 0.0 => "0".into(),
            _ => signed(self.metric, at),
        }
    }

    /// The margin for people: `±5.0%`, `±2.000ms`.
    pub fn margin_text(&self) -> String {
        match self.margin {
            Margin::Relative(r) => format!("±{}", relative::fmt_margin(r)),
            Margin::Unit(m) => format!("±{}", self.metric.fmt_value(m)),
            Margin::None => "±0".into(),
        }
    }

    /// The margin as written for `op`: `±` only for an equivalence.
    fn bare(&self, op: Cmp) -> String {
        let t = self.margin_text();
        if op == Cmp::Eq {
            t
        } else {
            t.trim_start_matches('±').to_string()
        }
    }

    /// The statement a one-sided test (or both, for `==`) is about.
    pub fn claim(&self, c: Cmp, at: f64) -> String {
        let (a, b) = (self.a, self.b);
        match (c, self.margin) {
            (Cmp::Eq, Margin::Relative(_)) => format!("{a} within {} of {b}", self.margin_text()),
            (Cmp::Eq, _) => format!("|{a} − {b}| < {}", self.metric.fmt_value(at)),
            (_, Margin::Relative(_)) if at != 0.0 => {
                format!("{a} − {b} {} {} of {b}", c.symbol(), self.shift(at))
            }
            _ => format!("{a} − {b} {} {}", c.symbol(), self.shift(at)),
        }
    }

    /// The evidence the verdict rests on and its interval for people.
    fn tested(&self) -> (&Evidence, String) {
        match (self.margin, self.rel) {
            (Margin::Relative(_), Some(r)) => {
                let f = |v: f64| relative::fmt_pct(relative::as_ratio(v));
                (&r.evidence, r.evidence.fmt_ci(f))
            }
            _ => (self.ev, self.ev.fmt_ci(|v| signed(self.metric, v))),
        }
    }

    /// The shift the verdict's test estimates, for people.
    fn estimate(&self) -> String {
        let (ev, _) = self.tested();
        match self.margin {
            Margin::Relative(_) => format!(
                "{} of {}",
                relative::fmt_pct(relative::as_ratio(ev.diff)),
                self.b
            ),
            _ => signed(self.metric, ev.diff),
        }
    }

    /// The word of an equivalence's verdict (None: not an equivalence).
    pub fn word(&self, op: Cmp, j: &Judgement) -> Option<&'static str> {
        if op != Cmp::Eq || self.margin == Margin::None {
            return None;
        }
        Some(match j.verdict {
            Verdict::Supported => "equivalent",
            Verdict::Rejected => "not equivalent",
            Verdict::Inconclusive => "inconclusive",
        })
    }

    /// The summary of an equivalence decided by its test (None when it is
    /// not an equivalence, or when the design or the runs say nothing).
    pub fn equivalence_summary(&self, op: Cmp, j: &Judgement, alpha: f64) -> Option<String> {
        self.word(op, j)?;
        if j.no_variation || j.underpowered.is_some() {
            return None;
        }
        let (ev, ci) = self.tested();
        let (a, b, margin) = (self.a, self.b, self.margin_text());
        let shift = self.estimate();
        let level = ev.confidence_pct();
        Some(match j.verdict {
            Verdict::Supported => format!(
                "within {margin} ({a} − {b}: {shift}, {level:.0}% CI {ci}; p = {})",
                fmt_p(j.p)
            ),
            Verdict::Rejected => format!(
                "outside {margin} ({a} − {b}: {shift}, {level:.0}% CI {ci}; p = {})",
                fmt_p(j.p)
            ),
            Verdict::Inconclusive => format!(
                "the {level:.0}% CI {ci} of {a} − {b} reaches past {margin}; p = {}, not below {}",
                fmt_p(j.p),
                fmt_p(alpha)
            ),
        })
    }

    /// The sentence on the margin: in the metric's unit and relative to B,
    /// and the claim it makes the test about.
    pub fn sentence(&self, j: &Judgement, strata: &[Stratum]) -> String {
        let claim = self.claim(j.tested.0, j.tested.1);
        match (self.margin, self.rel) {
            (Margin::Relative(r), Some(rel)) => {
                let means: Vec<f64> = strata
                    .iter()
                    .filter(|s| !rel.left_out.contains(&s.label) && !s.b.is_empty())
                    .map(|s| s.b.iter().sum::<f64>() / s.b.len() as f64)
                    .collect();
                let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let unit = if means.len() > 1 && lo != hi {
                    format!(
                        "±{} to ±{} at {}'s mean per rate",
                        self.metric.fmt_value(r * lo),
                        self.metric.fmt_value(r * hi),
                        self.b
                    )
                } else {
                    format!("±{} at {}'s mean", self.metric.fmt_value(r * hi), self.b)
                };
                let (ev, ci) = self.tested();
                let (blo, bhi) = relative::bounds(r);
                let against = match j.tested.0 {
                    Cmp::Eq => format!(
                        "({blo:+.4}, {bhi:+.4}) = (ln {:.3}, ln {:.3})",
                        1.0 - r,
                        1.0 + r
                    ),
                    Cmp::Gt => format!("{blo:+.4} = ln {:.3}", 1.0 - r),
                    _ => format!("{bhi:+.4} = ln {:.3}", 1.0 + r),
                };
                let mut s = format!(
                    " Margin (`within`): {} of {} at each rate ({unit}); tested with the same \
                     exact test on the logarithms of the runs' values, ln {} − ln {} against \
                     {against}: {} − {} = {}, {:.0}% CI {ci}; the claim tested is {claim}.",
                    self.bare(j.tested.0),
                    self.b,
                    self.a,
                    self.b,
                    self.a,
                    self.b,
                    self.estimate(),
                    ev.confidence_pct(),
                );
                if !rel.left_out.is_empty() {
                    s.push_str(&format!(
                        " Left out (a run there measured 0, which has no ratio): {}.",
                        rel.left_out.join(", ")
                    ));
                }
                s
            }
            (Margin::Unit(m), _) => {
                let of_b = match self.ev.mean_b {
                    b if b != 0.0 && self.metric != Metric::Success => format!(
                        " = {} of {}'s mean {}; its {:.0}% CI relative to that mean: {}",
                        relative::fmt_margin(m / b.abs()),
                        self.b,
                        self.metric.fmt_value(b),
                        self.ev.confidence_pct(),
                        self.ev.fmt_ci(|v| relative::fmt_pct(v / b.abs())),
                    ),
                    _ => String::new(),
                };
                format!(
                    " Margin (`within`): {}{of_b}, so the claim tested is {claim}.",
                    self.bare(j.tested.0)
                )
            }
            _ => String::new(),
        }
    }
}
