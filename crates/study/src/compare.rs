//! `loadlab compare A B`: two targets of studies (`STUDY:TARGET`) or two runs
//! (`RUN`), compared with the same statistics as hypotheses.
//!
//! Targets are compared on per-repetition values at the sweep rates both
//! have (one stratum per rate). Two single runs have no repetitions, so their
//! time buckets (about 100 per run, warm-up excluded) serve as
//! pseudo-replicates: that captures within-run variation only, and the output
//! says so.

use serde::Serialize;

use crate::analysis::{SWEEP, values};
use crate::hypothesis::Metric;
use crate::stats::{self, Evidence, Stratum};
use crate::store::{RunRow, Store, StoreError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Side {
    Run(i64),
    Target { study: i64, target: String },
}

impl Side {
    /// `12` = run 12; `3:c5` = target `c5` of study 3.
    pub fn parse(s: &str) -> Result<Side, String> {
        match s.split_once(':') {
            Some((study, target)) => Ok(Side::Target {
                study: study
                    .parse()
                    .map_err(|_| format!("{s:?}: expected STUDY:TARGET with a numeric study id"))?,
                target: target.to_string(),
            }),
            None => s.parse().map(Side::Run).map_err(|_| {
                format!("{s:?}: expected a run id (e.g. 12) or STUDY:TARGET (e.g. 3:c5)")
            }),
        }
    }
    pub fn label(&self) -> String {
        match self {
            Side::Run(id) => format!("run {id}"),
            Side::Target { study, target } => format!("{study}:{target}"),
        }
    }
}

/// One compared metric.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub metric: Metric,
    pub evidence: Evidence,
    /// "A lower", "A higher" or "no clear difference" (95 % CI vs 0).
    pub reading: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub a: String,
    pub b: String,
    /// How the replicates were formed.
    pub basis: String,
    pub rows: Vec<Row>,
}

const METRICS: [Metric; 6] = [
    Metric::Mean,
    Metric::P50,
    Metric::P95,
    Metric::P99,
    Metric::Success,
    Metric::Throughput,
];

/// One-sided level of each direction: two-sided 5 %, with a 95 % interval.
pub const ALPHA: f64 = 0.025;

fn reading(ev: &Evidence) -> String {
    if ev.p_less <= ev.alpha {
        "A lower".into()
    } else if ev.p_greater <= ev.alpha {
        "A higher".into()
    } else if ev.p_floor > ev.alpha {
        format!(
            "too few replicates (p >= {:.3} at best)",
            (2.0 * ev.p_floor).min(1.0)
        )
    } else {
        "no clear difference".into()
    }
}

/// Two-sided p from the two one-sided ones.
fn two_sided(ev: &Evidence) -> f64 {
    (2.0 * ev.p_greater.min(ev.p_less)).min(1.0)
}

fn bucket_strata(a: &RunRow, b: &RunRow, m: Metric) -> Option<Stratum> {
    let vals = |r: &RunRow| -> Vec<f64> {
        let width = if r.series.len() > 1 {
            r.series[1].t - r.series[0].t
        } else {
            1.0
        };
        r.series
            .iter()
            .filter(|p| !p.warmup && p.count > 0)
            .filter_map(|p| match m {
                Metric::P50 => Some(p.p50_ns as f64),
                Metric::P99 => Some(p.p99_ns as f64),
                Metric::Max => Some(p.max_ns as f64),
                Metric::Success => Some(p.ok as f64 / p.count as f64),
                Metric::Throughput => Some(p.ok as f64 / width.max(1e-9)),
                _ => None,
            })
            .collect()
    };
    let (va, vb) = (vals(a), vals(b));
    (!va.is_empty() && !vb.is_empty()).then(|| Stratum {
        label: "buckets".into(),
        a: va,
        b: vb,
    })
}

/// Compares two sides stored in `store`.
pub fn compare(store: &Store, a: &Side, b: &Side) -> Result<Comparison, StoreError> {
    let mut rows = Vec::new();
    let basis;
    match (a, b) {
        (Side::Run(x), Side::Run(y)) => {
            let (ra, rb) = (store.run(*x)?, store.run(*y)?);
            basis = "time buckets within each run as pseudo-replicates (within-run variation only; repeat runs for a stronger answer)".into();
            for m in [
                Metric::P50,
                Metric::P99,
                Metric::Success,
                Metric::Throughput,
            ] {
                if let Some(s) = bucket_strata(&ra, &rb, m)
                    && let Some(ev) = stats::compare(&[s], ALPHA)
                {
                    rows.push(Row {
                        metric: m,
                        reading: reading(&ev),
                        evidence: ev,
                    });
                }
            }
        }
        (
            Side::Target {
                study: sa,
                target: ta,
            },
            Side::Target {
                study: sb,
                target: tb,
            },
        ) => {
            let (runs_a, runs_b) = (store.runs(*sa)?, store.runs(*sb)?);
            for (study, target, runs) in [(sa, ta, &runs_a), (sb, tb, &runs_b)] {
                if !runs.iter().any(|r| &r.target == target) {
                    let mut names: Vec<&str> = runs.iter().map(|r| r.target.as_str()).collect();
                    names.sort_unstable();
                    names.dedup();
                    let has = if names.is_empty() {
                        "it has no runs".to_string()
                    } else {
                        format!("its targets: {}", names.join(", "))
                    };
                    return Err(StoreError::Invalid(format!(
                        "study {study} has no target {target:?} ({has})"
                    )));
                }
            }
            let mut rates: Vec<u64> = runs_a
                .iter()
                .filter(|r| r.phase == SWEEP && &r.target == ta)
                .map(|r| r.rate)
                .collect();
            rates.sort_unstable();
            rates.dedup();
            basis =
                "per-repetition values at each sweep rate both sides ran (one stratum per rate)"
                    .into();
            for m in METRICS {
                let strata: Vec<Stratum> = rates
                    .iter()
                    .map(|&rate| Stratum {
                        label: format!("{rate}"),
                        a: values(&runs_a, ta, rate, m),
                        b: values(&runs_b, tb, rate, m),
                    })
                    .collect();
                if let Some(ev) = stats::compare(&strata, ALPHA) {
                    rows.push(Row {
                        metric: m,
                        reading: reading(&ev),
                        evidence: ev,
                    });
                }
            }
        }
        _ => {
            return Err(StoreError::Invalid(
                "compare two runs, or two STUDY:TARGET sides, not one of each".into(),
            ));
        }
    }
    Ok(Comparison {
        a: a.label(),
        b: b.label(),
        basis,
        rows,
    })
}

/// A plain-text table of a comparison.
pub fn render(c: &Comparison) -> String {
    let mut o = format!(
        "A = {}, B = {}\nbasis: {}\ntest: exact stratified rank test (Wilcoxon–Mann–Whitney), two-sided p\ncolumns: A and B mean are the mean of each stratum's mean; shift is the Hodges–Lehmann median of the A − B differences within each stratum, with its 95% interval (not the difference of the two means)\n\n",
        c.a, c.b, c.basis
    );
    o.push_str(&format!(
        "{:<11} {:>13} {:>13} {:>13} {:>29} {:>7} {:>6} {:>5}  {}\n",
        "metric", "A mean", "B mean", "shift A-B", "95% CI of shift", "p", "delta", "n", "reading"
    ));
    for r in &c.rows {
        let e = &r.evidence;
        let f = |v: f64| r.metric.fmt_value(v);
        let signed = |v: f64| if v < 0.0 { format!("-{}", f(-v)) } else { f(v) };
        o.push_str(&format!(
            "{:<11} {:>13} {:>13} {:>13} {:>29} {:>7} {:>+6.2} {:>5}  {}\n",
            r.metric.name(),
            f(e.mean_a),
            f(e.mean_b),
            signed(e.diff),
            e.fmt_ci(signed),
            crate::analysis::fmt_p(two_sided(e)),
            e.cliffs_delta,
            format!("{}/{}", e.n_a, e.n_b),
            r.reading
        ));
    }
    if c.rows.is_empty() {
        o.push_str("(nothing in common to compare: no shared rates or empty runs)\n");
    }
    o
}
