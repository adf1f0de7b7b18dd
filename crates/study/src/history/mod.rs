//! History across studies: one plan's studies in order, a metric's value
//! per study (the median of the runs of one target at one rate, with the
//! sign-test interval of [`stats::compare_const`]), and the change points
//! of the per-study means ([`changepoint`], E-divisive means with a permutation
//! test), each with its size and the Hodges–Lehmann interval of
//! [`stats::compare`] between the runs before and after it.
//!
//! Studies of different plans, or of the same plan edited, are not one
//! history: [`history`] refuses them with each plan's name and hash unless
//! forced. [`check()`] turns a history into findings for a CI gate.

pub mod baseline;
pub mod changepoint;
pub mod check;
pub mod gate;
pub mod label;
pub mod render;

use serde::Serialize;

use crate::analysis::values;
use crate::hypothesis::Metric;
use crate::stats::{self, Stratum};
use crate::store::{RunRow, Store, StoreError, StudyRow};

pub use changepoint::{ChangePoint, Settings, detect};
pub use check::{Finding, check};
pub use gate::{Gate, gate};
pub use label::default_label;

/// The hash that names a plan's content: FNV-1a 64 of its resolved JSON,
/// 12 hex digits.
pub fn plan_hash(plan_json: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in plan_json.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{:012x}", h >> 16)
}

/// What a history is over.
#[derive(Debug, Clone)]
pub struct Query {
    pub target: Option<String>,
    pub rate: Option<u64>,
    pub metric: Metric,
    /// Take studies of different plans (or edited plans) as one history.
    pub force: bool,
}

/// One study's value.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub study: i64,
    pub label: String,
    pub plan_hash: String,
    /// Median of the runs.
    pub value: f64,
    /// Mean of the runs: the series change points are sought in (for the
    /// usual run-to-run spread, the mean locates a step better than the
    /// median).
    pub mean: f64,
    /// The 90 % interval of the median (None on a side the runs cannot bound).
    pub ci: (Option<f64>, Option<f64>),
    pub runs: Vec<f64>,
}

/// One change point, between `points[index - 1]` and `points[index]`.
#[derive(Debug, Clone, Serialize)]
pub struct Shift {
    pub index: usize,
    pub study: i64,
    pub label: String,
    /// Hodges–Lehmann shift after − before, and its 95 % interval.
    pub diff: f64,
    pub ci: (Option<f64>, Option<f64>),
    /// `diff` relative to the mean before.
    pub relative: Option<f64>,
    /// The mean of the runs before.
    pub before: f64,
    pub p: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct History {
    pub plan: String,
    pub target: String,
    pub rate: u64,
    #[serde(skip)]
    pub metric: Metric,
    pub points: Vec<Point>,
    pub shifts: Vec<Shift>,
}

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Refused(String),
}

/// The sweep targets and rates present in `runs`.
fn cells(runs: &[RunRow]) -> (Vec<String>, Vec<u64>) {
    let mut t: Vec<String> = runs.iter().map(|r| r.target.clone()).collect();
    let mut r: Vec<u64> = runs.iter().map(|r| r.rate).collect();
    t.sort();
    t.dedup();
    r.sort_unstable();
    r.dedup();
    (t, r)
}

/// Refuses studies of more than one plan content, naming each.
fn same_plan(studies: &[StudyRow], force: bool) -> Result<(), HistoryError> {
    let mut plans: Vec<(String, String, i64)> = Vec::new();
    for s in studies {
        let h = plan_hash(&s.plan_json);
        if !plans.iter().any(|(n, ph, _)| *n == s.name && *ph == h) {
            plans.push((s.name.clone(), h, s.id));
        }
    }
    if plans.len() > 1 && !force {
        let list: Vec<String> = plans
            .iter()
            .map(|(n, h, id)| format!("{n:?} {h} (from study {id})"))
            .collect();
        return Err(HistoryError::Refused(format!(
            "the studies are of {} plans: {}; choose one with --plan NAME or --plan HASH, or --force to take them as one history",
            plans.len(),
            list.join(", ")
        )));
    }
    Ok(())
}

fn pick<T: Clone + std::fmt::Display + PartialEq>(
    what: &str,
    flag: &str,
    want: Option<T>,
    have: &[T],
) -> Result<T, HistoryError> {
    let list = have
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    match want {
        Some(w) if have.contains(&w) => Ok(w),
        Some(w) => Err(HistoryError::Refused(format!(
            "{flag} {w}: no such {what} in these studies (they have: {list})"
        ))),
        None if have.len() == 1 => Ok(have[0].clone()),
        None => Err(HistoryError::Refused(format!(
            "the studies have several {what}s ({list}): choose one with {flag}"
        ))),
    }
}

/// The history of `studies` (finished ones, in id order) for `q`.
pub fn history(
    store: &Store,
    studies: &[StudyRow],
    q: &Query,
    settings: &Settings,
) -> Result<History, HistoryError> {
    let studies: Vec<&StudyRow> = studies.iter().filter(|s| s.status == "done").collect();
    let Some(last) = studies.last() else {
        return Err(HistoryError::Refused(
            "no finished study in the store".into(),
        ));
    };
    same_plan(
        &studies.iter().map(|s| (*s).clone()).collect::<Vec<_>>(),
        q.force,
    )?;
    let mut all = Vec::with_capacity(studies.len());
    for s in &studies {
        all.push(store.runs(s.id)?);
    }
    let sweep: Vec<RunRow> = all
        .iter()
        .flatten()
        .filter(|r| r.phase == crate::analysis::SWEEP)
        .cloned()
        .collect();
    let (targets, rates) = cells(&sweep);
    let target = pick("target", "--target", q.target.clone(), &targets)?;
    let rate = pick("rate", "--rate", q.rate, &rates)?;
    let mut points = Vec::new();
    for (s, runs) in studies.iter().zip(&all) {
        let v = values(runs, &target, rate, q.metric);
        if v.is_empty() {
            continue;
        }
        let st = [Stratum {
            label: rate.to_string(),
            a: v.clone(),
            b: vec![],
        }];
        let (value, ci) = stats::compare_const(&st, 0.0, stats::ALPHA)
            .map_or((v[0], (None, None)), |e| (e.diff, e.ci));
        points.push(Point {
            study: s.id,
            label: s.label.clone(),
            plan_hash: plan_hash(&s.plan_json),
            value,
            ci,
            mean: v.iter().sum::<f64>() / v.len() as f64,
            runs: v,
        });
    }
    let series: Vec<f64> = points.iter().map(|p| p.mean).collect();
    let found = detect(&series, settings);
    let shifts = shifts(&points, &found);
    Ok(History {
        plan: last.name.clone(),
        target,
        rate,
        metric: q.metric,
        points,
        shifts,
    })
}

/// Sizes the change points: the runs of the segment after each against
/// those of the segment before (bounded by the neighbouring change points).
fn shifts(points: &[Point], found: &[ChangePoint]) -> Vec<Shift> {
    let mut bounds: Vec<usize> = vec![0];
    bounds.extend(found.iter().map(|c| c.index));
    bounds.push(points.len());
    found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let runs = |a: usize, b: usize| -> Vec<f64> {
                points[a..b].iter().flat_map(|p| p.runs.clone()).collect()
            };
            let st = [Stratum {
                label: "history".into(),
                a: runs(c.index, bounds[i + 2]),
                b: runs(bounds[i], c.index),
            }];
            let ev = stats::compare(&st, crate::compare::ALPHA);
            Shift {
                index: c.index,
                study: points[c.index].study,
                label: points[c.index].label.clone(),
                diff: ev.as_ref().map_or(0.0, |e| e.diff),
                ci: ev.as_ref().map_or((None, None), |e| e.ci),
                relative: ev.as_ref().and_then(|e| e.relative),
                before: ev.as_ref().map_or(0.0, |e| e.mean_b),
                p: c.p,
            }
        })
        .collect()
}
