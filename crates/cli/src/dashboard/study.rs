//! The dashboard for `loadlab study --dashboard`: the plan's ladder of
//! runs with each finished run's figures and the study's SLO verdict, the current
//! run live (the attack page), the SLO lines, the ceiling as the runs so
//! far bracket it, and the time left.

use std::sync::{Arc, Mutex};

use loadlab_core::{PacerSpec, Rate, Sink, Tee};
use loadlab_engine::LiveStats;
use loadlab_study::plan::Slo;
use loadlab_study::runner::{Observer, RunInfo};
use serde_json::{Value, json};

use super::Dashboard;

/// Shows the study on the page, beside another observer (the terminal's).
pub struct StudyDash {
    dash: Option<Dashboard>,
    inner: Box<dyn Observer>,
    context: Arc<Mutex<Value>>,
}

impl StudyDash {
    pub fn new(mut dash: Dashboard, inner: Box<dyn Observer>, slo: Option<Slo>) -> StudyDash {
        let slo_json = slo.as_ref().map(slo_json);
        let context = Arc::new(Mutex::new(json!({
            "outline": [], "ladder": [], "current": null, "slo": slo_json, "ceiling": [],
        })));
        dash.context = Some(context.clone());
        StudyDash {
            dash: Some(dash),
            inner,
            context,
        }
    }

    /// What the study's progress lines must reach (see [`verdict_line`]).
    pub fn context(&self) -> Arc<Mutex<Value>> {
        self.context.clone()
    }

    fn set(&self, key: &str, v: Value) {
        if let Ok(mut c) = self.context.lock() {
            c[key] = v;
        }
    }
}

/// The SLO as the page draws it: its success bound and latency bounds.
pub fn slo_json(s: &Slo) -> Value {
    json!({
        "success": s.success,
        "latency": s.latency.iter().map(|(p, d)| json!({ "p": p, "ms": d.as_secs_f64() * 1e3 })).collect::<Vec<_>>(),
    })
}

/// The study's verdict on the run that just ended, from its progress
/// line (`[run 2/3, …] sweep 100/s a #1: …, within SLO`): the ladder's
/// last row takes it, and the ceiling is worked out again.
pub fn verdict_line(context: &Arc<Mutex<Value>>, line: &str) {
    if !line.starts_with("[run ") {
        return;
    }
    // (More may follow the verdict: `; the generator fell behind …`.)
    let verdict = if line.contains(" within SLO") {
        Some(true)
    } else if line.contains(" FAILS SLO") {
        Some(false)
    } else {
        None
    };
    if let Ok(mut c) = context.lock() {
        if let Some(last) = c["ladder"].as_array_mut().and_then(|l| l.last_mut()) {
            last["slo_ok"] = json!(verdict);
        }
        let ladder = c["ladder"].as_array().cloned().unwrap_or_default();
        c["ceiling"] = ceiling(&ladder);
    }
}

/// Per target: the highest rate that passed below the lowest that failed.
fn ceiling(ladder: &[Value]) -> Value {
    let mut targets: Vec<String> = Vec::new();
    for r in ladder {
        let t = r["target"].as_str().unwrap_or("").to_string();
        if !targets.contains(&t) {
            targets.push(t);
        }
    }
    let out: Vec<Value> = targets
        .iter()
        .map(|t| {
            let runs = ladder.iter().filter(|r| r["target"] == t.as_str());
            let (mut pass, mut fail): (Option<u64>, Option<u64>) = (None, None);
            for r in runs {
                let rate = r["rate"].as_u64().unwrap_or(0);
                match r["slo_ok"].as_bool() {
                    Some(true) => pass = pass.max(Some(rate)),
                    Some(false) => fail = Some(fail.map_or(rate, |f| f.min(rate))),
                    None => {}
                }
            }
            json!({ "target": t, "passed": pass, "failed": fail })
        })
        .collect();
    json!(out)
}

impl Observer for StudyDash {
    fn outline(&mut self, lines: &[String]) {
        self.set("outline", json!(lines));
        self.inner.outline(lines);
    }

    fn run_started(&mut self, run: &RunInfo, live: Arc<LiveStats>) -> Option<Box<dyn Sink>> {
        let theirs = self.inner.run_started(run, live.clone());
        self.set(
            "current",
            json!({ "index": run.index, "total": run.total, "label": run.label(),
                    "phase": run.phase, "level": run.level, "target": run.target,
                    "repetition": run.repetition, "rate": run.rate,
                    "left_s": run.left.as_secs_f64(), "step_s": run.step.as_secs_f64() }),
        );
        let Some(d) = self.dash.as_mut() else {
            return theirs;
        };
        d.acc = Arc::new(Mutex::new(super::sink::Acc::default()));
        d.run = run.index as u64;
        let pacer = PacerSpec::Constant(Rate::per_second(run.rate)).build();
        d.start_ticker(live, pacer);
        let mine: Box<dyn Sink> = Box::new(d.sink());
        Some(match theirs {
            Some(t) => Box::new(Tee(vec![t, mine])),
            None => mine,
        })
    }

    fn run_ended(&mut self) {
        self.inner.run_ended();
        let Some(d) = self.dash.as_mut() else {
            return;
        };
        d.stop_ticker();
        let totals = d.acc.lock().map_or(Value::Null, |a| a.totals());
        let current = self
            .context
            .lock()
            .map_or(Value::Null, |c| c["current"].clone());
        let entry = json!({
            "index": current["index"], "label": current["label"],
            "phase": current["phase"], "level": current["level"], "target": current["target"],
            "repetition": current["repetition"], "rate": current["rate"],
            "requests": totals["requests"], "achieved": totals["rate"], "success": totals["success"],
            // The study's own verdict follows in its line (`verdicts`).
            "p99": totals["lat"]["p99"], "slo_ok": null,
        });
        if let Ok(mut c) = self.context.lock() {
            if let Some(l) = c["ladder"].as_array_mut() {
                l.push(entry);
            }
            let ladder = c["ladder"].as_array().cloned().unwrap_or_default();
            c["ceiling"] = ceiling(&ladder);
        }
        d.hub.publish(None, super::wrap(&d.context, totals));
    }
}

impl Drop for StudyDash {
    fn drop(&mut self) {
        if let Some(mut d) = self.dash.take() {
            d.stop_ticker();
            if let Ok(mut c) = self.context.lock() {
                c["current"] = Value::Null;
            }
            let totals = d.acc.lock().map_or(Value::Null, |a| a.totals());
            d.hub.finish(super::wrap(&d.context, totals));
            if let Err(e) = d.close() {
                eprintln!("loadlab: warning: {}", e.message);
            }
        }
    }
}
