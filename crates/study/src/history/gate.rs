//! A plan's `regression:` block run after a study: the new study against
//! the history of its plan (same name, same content), per target and rate,
//! with the findings of [`check()`](super::check()).

use super::{Finding, History, HistoryError, Query, Settings, cells, check, history, plan_hash};
use crate::analysis::SWEEP;
use crate::plan::{RegressionPlan, Since};
use crate::store::Store;

/// What the gate found: one line per finding (each naming its target and
/// rate), and notes on what could not be checked.
#[derive(Debug, Default)]
pub struct Gate {
    pub findings: Vec<Finding>,
    pub notes: Vec<String>,
}

/// Where `since` is in `h`, the new study being its last point; `None`
/// when there is nothing before the new study.
fn since_index(h: &History, since: &Since) -> Result<Option<usize>, HistoryError> {
    let before = h.points.len().saturating_sub(1);
    match since {
        Since::Previous => Ok(before.checked_sub(1)),
        Since::Label(l) => {
            let earlier = &h.points[..before];
            match earlier.iter().rposition(|p| &p.label == l) {
                Some(i) => Ok(Some(i)),
                None => {
                    let labels: Vec<&str> = earlier.iter().map(|p| p.label.as_str()).collect();
                    Err(HistoryError::Refused(format!(
                        "regression.since {l}: no earlier study of plan {:?} has that label (labels: {})",
                        h.plan,
                        if labels.is_empty() {
                            "none".to_string()
                        } else {
                            labels.join(", ")
                        }
                    )))
                }
            }
        }
    }
}

/// Checks study `study` of the store against the studies of its plan
/// before it, as `r` says.
pub fn gate(store: &Store, study: i64, r: &RegressionPlan) -> Result<Gate, HistoryError> {
    let row = store.study(study)?;
    let hash = plan_hash(&row.plan_json);
    let studies: Vec<_> = store
        .studies()?
        .into_iter()
        .filter(|s| s.id <= study && s.name == row.name && plan_hash(&s.plan_json) == hash)
        .collect();
    let runs: Vec<_> = store
        .runs(study)?
        .into_iter()
        .filter(|x| x.phase == SWEEP)
        .collect();
    let (targets, rates) = cells(&runs);
    let mut out = Gate::default();
    for target in targets
        .iter()
        .filter(|t| r.target.as_ref().is_none_or(|w| w == *t))
    {
        for rate in rates.iter().filter(|x| r.rate.is_none_or(|w| w == **x)) {
            let q = Query {
                target: Some(target.clone()),
                rate: Some(*rate),
                metric: r.metric,
                force: false,
            };
            let h = history(store, &studies, &q, &Settings::default())?;
            if h.points.last().is_none_or(|p| p.study != study) {
                continue;
            }
            let Some(since) = since_index(&h, &r.since)? else {
                out.notes.push(format!(
                    "{target} at {rate}/s: no earlier study of plan {:?} to check against",
                    h.plan
                ));
                continue;
            };
            for mut f in check(&h, since, r.margin) {
                f.line = format!("{target} at {rate}/s: {}", f.line);
                out.findings.push(f);
            }
        }
    }
    Ok(out)
}
