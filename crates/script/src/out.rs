//! The run's files: our results file (v2, through the `Sink` API), k6's
//! NDJSON points (`--out json=FILE`) and the summary export.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

use loadlab_core::{AttackInfo, MetricSample, Sample, SeriesInfo, Sink, WorkerInfo};
use loadlab_metrics::ResultsWriter;
use loadlab_metrics::distributed::WorkerPlan;

use crate::ScriptError;
use crate::sched::RunConfig;

/// A record held until the test starts (see [`Outputs::start`]).
enum Held {
    Series(u32, SeriesInfo),
    Sample(Sample),
    Metric(MetricSample),
}

/// The results file's header, written when the test starts: a worker's
/// record says when it began, which is known only then.
struct Pending {
    info: AttackInfo,
    plan: Option<WorkerPlan>,
    held: Vec<Held>,
}

/// A metric's thresholds (their sources) and sub-metrics (their tag filters).
type MetricDecl = (Vec<String>, Vec<Vec<(String, String)>>);

pub struct Outputs {
    results: Option<(PathBuf, ResultsWriter<BufWriter<File>>)>,
    pending: Option<Pending>,
    json: Option<(PathBuf, BufWriter<File>)>,
    json_metrics: Vec<String>,
    /// Per metric: its thresholds' sources and its sub-metrics' filters,
    /// for the JSON output's `Metric` lines (k6's `thresholds`, `submetrics`).
    json_decl: std::collections::HashMap<String, MetricDecl>,
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
            pending: None,
            json: None,
            json_metrics: Vec::new(),
            json_decl: std::collections::HashMap::new(),
            export: None,
            next_id: 0,
            start_unix_ns: 0,
        }
    }

    /// Opens the files. A worker of a split run (`worker`: its record and
    /// its plan) writes its results header when the test starts
    /// ([`Outputs::start`]); records made before (series declared at init,
    /// `setup()`'s requests) are held until then.
    pub fn open(
        cfg: &RunConfig,
        start_unix_ns: u64,
        worker: Option<(WorkerInfo, WorkerPlan)>,
    ) -> Result<Outputs, ScriptError> {
        let mut o = Outputs::none();
        o.start_unix_ns = start_unix_ns;
        if let Some(p) = &cfg.results_out {
            let w = ResultsWriter::new(BufWriter::new(create(p, "results file")?));
            let (worker, plan) = match worker {
                Some((w, p)) => (Some(w), Some(p)),
                None => (None, None),
            };
            let worker_tag = worker
                .as_ref()
                .map(|w| ("worker".to_string(), format!("{}/{}", w.index, w.count)));
            let w = match worker_tag {
                // As `attack -segment`: `report -by=worker` splits by segment.
                Some(t) => w.with_tags(vec![t]),
                None => w,
            };
            o.pending = Some(Pending {
                info: AttackInfo {
                    name: cfg
                        .script
                        .file_name()
                        .map(|n| n.to_string_lossy().to_string())
                        .unwrap_or_default(),
                    start_unix_ns,
                    timeout_ns: 60_000_000_000,
                    worker,
                    ..Default::default()
                },
                plan,
                held: Vec::new(),
            });
            o.results = Some((p.clone(), w));
            if o.pending.as_ref().is_some_and(|p| p.info.worker.is_none()) {
                o.start(0);
            }
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

    /// True with `--out json=FILE`.
    pub fn has_json(&self) -> bool {
        self.json.is_some()
    }

    /// The test starts: the results header is written (a worker's record
    /// with `began_unix_ns`, its wall clock now), then what was held.
    pub fn start(&mut self, began_unix_ns: u64) {
        let (Some(p), Some((_, w))) = (self.pending.take(), &mut self.results) else {
            return;
        };
        let mut info = p.info;
        if let Some(wi) = &mut info.worker {
            wi.began_unix_ns = began_unix_ns;
        }
        w.begin(&info);
        if let Some(plan) = &p.plan {
            w.write_worker_plan(plan);
        }
        for h in p.held {
            match h {
                Held::Series(id, s) => w.register_series(id, &s),
                Held::Sample(s) => w.record(&s),
                Held::Metric(m) => w.metric(&m),
            }
        }
    }

    /// Hands what is buffered to the file (a worker killed later leaves a
    /// file readable up to here).
    pub fn flush(&mut self) {
        if self.pending.is_none()
            && let Some((_, w)) = &mut self.results
        {
            let _ = w.flush();
        }
    }

    /// Declares a series in the results file; returns its id.
    pub fn register(&mut self, info: SeriesInfo) -> u32 {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Series(id, info));
        } else if let Some((_, w)) = &mut self.results {
            w.register_series(id, &info);
        }
        id
    }

    pub fn sample(&mut self, s: &Sample) {
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Sample(*s));
        } else if let Some((_, w)) = &mut self.results {
            w.record(s);
        }
    }

    pub fn metric(&mut self, series: u32, t_ns: u64, value: f64) {
        let m = MetricSample {
            series,
            t_ns,
            value,
        };
        if let Some(p) = &mut self.pending {
            p.held.push(Held::Metric(m));
        } else if let Some((_, w)) = &mut self.results {
            w.metric(&m);
        }
    }

    /// What the JSON output's `Metric` lines say of each metric, as k6: the
    /// thresholds on the metric itself, and a sub-metric per tag filter that
    /// a threshold names (`http_req_duration` always has
    /// `expected_response:true`).
    pub fn declare_thresholds(&mut self, options: &crate::options::Options) {
        for t in &options.thresholds {
            if t.filter.is_empty() {
                let e = self.json_decl.entry(t.metric.clone()).or_default();
                e.0.push(t.source.clone());
            }
        }
        let expected = (
            "http_req_duration".to_string(),
            vec![("expected_response".to_string(), "true".to_string())],
        );
        for (metric, filter) in options.submetrics.iter().chain([&expected]) {
            let e = self.json_decl.entry(metric.clone()).or_default();
            if !e.1.contains(filter) {
                e.1.push(filter.clone());
            }
        }
        for e in self.json_decl.values_mut() {
            e.1.sort();
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
            let (thresholds, subs) = self.json_decl.get(metric).cloned().unwrap_or_default();
            let submetrics = if subs.is_empty() {
                serde_json::Value::Null
            } else {
                subs.iter()
                    .map(|f| {
                        let suffix = f
                            .iter()
                            .map(|(k, v)| format!("{k}:{v}"))
                            .collect::<Vec<_>>()
                            .join(",");
                        let tags: serde_json::Map<String, serde_json::Value> = f
                            .iter()
                            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
                            .collect();
                        serde_json::json!({"name": format!("{metric}{{{suffix}}}"), "suffix": suffix, "tags": tags})
                    })
                    .collect()
            };
            let decl = serde_json::json!({
                "type": "Metric",
                "data": {"name": metric, "type": def.kind.name(), "contains": contains, "thresholds": thresholds, "submetrics": submetrics},
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
        if self.pending.is_some() {
            // Ended before the start (Ctrl-C while waiting): a readable file.
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos() as u64);
            self.start(now);
        }
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
