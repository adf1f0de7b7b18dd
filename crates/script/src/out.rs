//! The run's files: our results file (v2, through the `Sink` API), k6's
//! NDJSON points (`--out json=FILE`) and the summary export.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use loadlab_core::{AttackInfo, MetricSample, Sample, SeriesInfo, Sink};
use loadlab_metrics::ResultsWriter;

use crate::ScriptError;
use crate::sched::RunConfig;

pub struct Outputs {
    results: Option<(PathBuf, ResultsWriter<BufWriter<File>>)>,
    json: Option<(PathBuf, BufWriter<File>)>,
    json_metrics: Vec<String>,
    export: Option<PathBuf>,
    next_id: u32,
    start_unix_ns: u64,
}

fn create(p: &PathBuf, what: &str) -> Result<File, ScriptError> {
    File::create(p)
        .map_err(|e| ScriptError::Output(format!("cannot create {what} {}: {e}", p.display())))
}

impl Outputs {
    pub fn none() -> Outputs {
        Outputs {
            results: None,
            json: None,
            json_metrics: Vec::new(),
            export: None,
            next_id: 0,
            start_unix_ns: 0,
        }
    }

    pub fn open(cfg: &RunConfig, start_unix_ns: u64) -> Result<Outputs, ScriptError> {
        let mut o = Outputs::none();
        o.start_unix_ns = start_unix_ns;
        if let Some(p) = &cfg.results_out {
            let mut w = ResultsWriter::new(BufWriter::new(create(p, "results file")?));
            w.begin(&AttackInfo {
                name: cfg
                    .script
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or_default(),
                start_unix_ns,
                timeout_ns: 60_000_000_000,
                ..Default::default()
            });
            o.results = Some((p.clone(), w));
        }
        if let Some(p) = &cfg.json_out {
            o.json = Some((p.clone(), BufWriter::new(create(p, "JSON output")?)));
        }
        if let Some(p) = &cfg.summary_export {
            // Made now so a bad path fails before the test.
            create(p, "summary export")?;
            o.export = Some(p.clone());
        }
        Ok(o)
    }

    pub fn has_results(&self) -> bool {
        self.results.is_some()
    }

    /// Declares a series in the results file; returns its id.
    pub fn register(&mut self, info: SeriesInfo) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        if let Some((_, w)) = &mut self.results {
            w.register_series(id, &info);
        }
        id
    }

    pub fn sample(&mut self, s: &Sample) {
        if let Some((_, w)) = &mut self.results {
            w.record(s);
        }
    }

    pub fn metric(&mut self, series: u32, t_ns: u64, value: f64) {
        if let Some((_, w)) = &mut self.results {
            w.metric(&MetricSample {
                series,
                t_ns,
                value,
            });
        }
    }

    /// One k6 JSON point (and the metric's declaration the first time).
    pub fn json_point(
        &mut self,
        def: &crate::metrics::MetricDef,
        unix_ns: u64,
        value: f64,
        tags: &[(String, String)],
    ) {
        let Some((_, w)) = &mut self.json else {
            return;
        };
        let metric = def.name.as_str();
        if !self.json_metrics.iter().any(|m| m == metric) {
            self.json_metrics.push(metric.to_string());
            let contains = if def.time {
                "time"
            } else if def.data {
                "data"
            } else {
                "default"
            };
            let decl = serde_json::json!({
                "type": "Metric",
                "data": {"name": metric, "type": def.kind.name(), "contains": contains, "thresholds": [], "submetrics": null},
                "metric": metric,
            });
            let _ = writeln!(w, "{decl}");
        }
        let mut t = serde_json::Map::new();
        for (k, v) in tags {
            t.insert(k.clone(), serde_json::Value::String(v.clone()));
        }
        let p = serde_json::json!({
            "metric": metric,
            "type": "Point",
            "data": {
                "time": loadlab_metrics::timefmt::rfc3339(unix_ns as i128),
                "value": value,
                "tags": t,
            },
        });
        let _ = writeln!(w, "{p}");
    }

    /// Closes every file; the summary export gets `export`.
    pub fn finish(&mut self, export: serde_json::Value) -> Result<(), ScriptError> {
        if let Some((p, mut w)) = self.results.take() {
            w.finish()
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        if let Some((p, mut w)) = self.json.take() {
            w.flush()
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        if let Some(p) = self.export.take() {
            let text = serde_json::to_string_pretty(&export).unwrap_or_default();
            std::fs::write(&p, text)
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", p.display())))?;
        }
        Ok(())
    }
}
