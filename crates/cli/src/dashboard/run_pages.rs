//! Each study run's own dashboard page, written into the report's folder
//! (`runs/<phase>-<rate>-<target>-<rep>.html`, named by
//! [`loadlab_study::report::run_pages::page_name`]) as the run ends: the
//! attack page of that run alone, the same self-contained file as
//! `-dashboard-export`, which the study's report links. Its totals leave
//! the warm-up out, as the store's figures do; its charts show it.

use std::path::PathBuf;
use std::sync::Arc;

use loadlab_core::{Sink, Tee};
use loadlab_engine::LiveStats;
use loadlab_study::plan::Slo;
use loadlab_study::runner::{Observer, RunInfo};
use serde_json::{Value, json};

use super::{Dashboard, Options};

/// Records each run for its page, beside another observer.
pub struct RunPages {
    out: PathBuf,
    slo: Option<Value>,
    inner: Box<dyn Observer>,
    current: Option<Dashboard>,
}

impl RunPages {
    /// Pages into `out/runs/`.
    pub fn new(out: PathBuf, slo: Option<&Slo>, inner: Box<dyn Observer>) -> RunPages {
        RunPages {
            out,
            slo: slo.map(super::study::slo_json),
            inner,
            current: None,
        }
    }
}

impl Observer for RunPages {
    fn outline(&mut self, lines: &[String]) {
        self.inner.outline(lines);
    }

    fn run_started(&mut self, run: &RunInfo, live: Arc<LiveStats>) -> Option<Box<dyn Sink>> {
        let theirs = self.inner.run_started(run, live.clone());
        let name = loadlab_study::report::run_pages::page_name(
            &run.phase,
            run.rate,
            &run.target,
            run.repetition,
        );
        let path = self.out.join(name);
        if let Some(dir) = path.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            eprintln!("loadlab: warning: {}: {e}; no run pages", dir.display());
            return theirs;
        }
        let opts = Options {
            export: Some(path),
            ..Default::default()
        };
        let meta = json!({ "kind": "attack", "name": run.label(), "slo": self.slo });
        let Ok(mut d) = Dashboard::start(&opts, meta) else {
            return theirs;
        };
        if let Ok(mut a) = d.acc.lock() {
            a.warmup_ns = run.warmup.as_nanos() as u64;
        }
        let pacer =
            loadlab_core::PacerSpec::Constant(loadlab_core::Rate::per_second(run.rate)).build();
        d.start_ticker(live, pacer);
        let mine: Box<dyn Sink> = Box::new(d.sink());
        self.current = Some(d);
        Some(match theirs {
            Some(t) => Box::new(Tee(vec![t, mine])),
            None => mine,
        })
    }

    fn run_ended(&mut self) {
        self.inner.run_ended();
        if let Some(d) = self.current.take()
            && let Err(e) = d.finish()
        {
            eprintln!("loadlab: warning: {}", e.message);
        }
    }
}
