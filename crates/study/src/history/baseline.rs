//! `loadlab study --baseline STUDY`: the report's "Against the baseline"
//! section, every target and sweep rate of this study against the same
//! target and rate of the baseline, with the exact rank test of
//! `loadlab compare` (Wilcoxon–Mann–Whitney, Hodges–Lehmann shift and its
//! 95 % interval).

use crate::analysis::{SWEEP, values};
use crate::compare::ALPHA;
use crate::hypothesis::Metric;
use crate::report::doc::Block;
use crate::stats::{self, Evidence, Stratum};
use crate::store::{Store, StoreError};

const METRICS: [Metric; 4] = [
    Metric::P50,
    Metric::P99,
    Metric::Success,
    Metric::Throughput,
];

fn reading(ev: &Evidence) -> &'static str {
    if ev.p_less <= ev.alpha {
        "lower than the baseline"
    } else if ev.p_greater <= ev.alpha {
        "higher than the baseline"
    } else if ev.p_floor > ev.alpha {
        "too few runs to tell"
    } else {
        "no clear difference"
    }
}

fn pct(v: Option<f64>, base: f64) -> String {
    match v {
        Some(v) if base != 0.0 => format!("{:+.1}%", v / base.abs() * 100.0),
        Some(v) => format!("{v:+.3}"),
        None => "∞".into(),
    }
}

/// The section's blocks: this study (`study`) against `baseline`.
pub fn section(store: &Store, baseline: i64, study: i64) -> Result<Vec<Block>, StoreError> {
    let base = store.study(baseline)?;
    let (a, b) = (store.runs(study)?, store.runs(baseline)?);
    let mut cells: Vec<(String, u64)> = a
        .iter()
        .filter(|r| r.phase == SWEEP)
        .map(|r| (r.target.clone(), r.rate))
        .filter(|(t, rate)| {
            b.iter()
                .any(|r| r.phase == SWEEP && &r.target == t && r.rate == *rate)
        })
        .collect();
    cells.sort();
    cells.dedup();
    let name = if base.label.is_empty() {
        format!("study {}", base.id)
    } else {
        format!("study {} ({})", base.id, base.label)
    };
    let mut out = vec![
        Block::Heading(2, "Against the baseline".into()),
        Block::Para(format!(
            "This study against {name} ({:?}, {}), target by target at each sweep rate both have: \
             an exact Wilcoxon–Mann–Whitney test over the runs, the Hodges–Lehmann shift \
             (this study − the baseline, relative to the baseline's mean) and its 95 % interval.",
            base.name, base.created_at
        )),
    ];
    if cells.is_empty() {
        out.push(Block::Para(format!(
            "No target and sweep rate in common with {name}: nothing to compare."
        )));
        return Ok(out);
    }
    let mut rows = Vec::new();
    for (target, rate) in &cells {
        for m in METRICS {
            let st = [Stratum {
                label: rate.to_string(),
                a: values(&a, target, *rate, m),
                b: values(&b, target, *rate, m),
            }];
            let Some(ev) = stats::compare(&st, ALPHA) else {
                continue;
            };
            let p = (2.0 * ev.p_greater.min(ev.p_less)).min(1.0);
            rows.push(vec![
                target.clone(),
                rate.to_string(),
                m.name().to_string(),
                m.fmt_value(ev.mean_a),
                m.fmt_value(ev.mean_b),
                pct(Some(ev.diff), ev.mean_b),
                format!("{} to {}", pct(ev.ci.0, ev.mean_b), pct(ev.ci.1, ev.mean_b)),
                format!("{p:.3}"),
                reading(&ev).to_string(),
            ]);
        }
    }
    out.push(Block::Table {
        header: [
            "target",
            "rate",
            "metric",
            "this study",
            "baseline",
            "shift",
            "95 % interval",
            "p",
            "reading",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    });
    Ok(out)
}
