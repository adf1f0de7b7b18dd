//! The run's files opened as its configuration asks.

use std::io::{BufWriter, Write};

use loadlab_core::{AttackInfo, WorkerInfo};
use loadlab_metrics::ResultsWriter;
use loadlab_metrics::distributed::WorkerPlan;

use super::config::RunConfig;
use crate::ScriptError;
use crate::out::{Outputs, Pending, create};
use crate::system_tags::SystemTags;

impl Outputs {
    /// Opens the files. A worker of a split run (`worker`: its record and
    /// its plan) writes its results header when the test starts
    /// ([`Outputs::start`]); records made before (series declared at init,
    /// `setup()`'s requests) are held until then.
    pub fn open(
        cfg: &RunConfig,
        start_unix_ns: u64,
        worker: Option<(WorkerInfo, WorkerPlan)>,
        sys: SystemTags,
    ) -> Result<Outputs, ScriptError> {
        let mut o = Outputs::none();
        o.start_unix_ns = start_unix_ns;
        o.sys = sys;
        o.csv_cols = sys.columns();
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
        if let Some(c) = &cfg.csv_out {
            let f = BufWriter::new(create(&c.path, "CSV output")?);
            let mut w: Box<dyn Write> = if c.path.extension().is_some_and(|e| e == "gz") {
                Box::new(flate2::write::GzEncoder::new(
                    f,
                    flate2::Compression::default(),
                ))
            } else {
                Box::new(f)
            };
            // As k6: a column per system tag kept (`vu` and `iter` go to
            // the metadata).
            let header = format!(
                "metric_name,timestamp,metric_value,{},extra_tags,metadata\n",
                o.csv_cols.join(",")
            );
            w.write_all(header.as_bytes())
                .map_err(|e| ScriptError::Output(format!("writing {}: {e}", c.path.display())))?;
            o.csv = Some((c.path.clone(), w, c.time_format));
        }
        if let Some(p) = &cfg.summary_export {
            // Made now so a bad path fails before the test.
            create(p, "summary export")?;
            o.export = Some(p.clone());
        }
        Ok(o)
    }
}
