//! [`MetricsSink`]: feeds [`Metrics`] straight from the engine's sample
//! stream, for a report or live progress at the end of an attack without
//! re-reading the results file.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use loadlab_core::{AttackInfo, MetricSample, Sample, SeriesInfo, SeriesKind, Sink, TargetInfo};

use crate::metrics::Metrics;
use crate::record::{ErrorTexts, MetricRecord, Record, SeriesDef};

/// A [`Sink`] that adds every sample to a shared [`Metrics`]. Clone the
/// [`MetricsSink::handle`] to read the metrics from another thread (e.g. a
/// progress line every second) while the attack runs; the lock is held only
/// for one `add`.
pub struct MetricsSink {
    metrics: Arc<Mutex<Metrics>>,
    attack: Arc<str>,
    start_unix_ns: u64,
    targets: Vec<(Arc<str>, Arc<str>)>,
    /// Series declared with their tags (`Sink::register_series`).
    series: Vec<Option<Arc<SeriesDef>>>,
    empty: Arc<str>,
    texts: ErrorTexts,
}

impl MetricsSink {
    pub fn new(metrics: Metrics) -> Self {
        let empty: Arc<str> = Arc::from("");
        MetricsSink {
            metrics: Arc::new(Mutex::new(metrics)),
            attack: empty.clone(),
            start_unix_ns: 0,
            targets: Vec::new(),
            series: Vec::new(),
            empty,
            texts: ErrorTexts::default(),
        }
    }

    /// The shared metrics.
    pub fn handle(&self) -> Arc<Mutex<Metrics>> {
        self.metrics.clone()
    }

    /// Locks the metrics (a panic elsewhere does not make them unreadable).
    pub fn lock(&self) -> MutexGuard<'_, Metrics> {
        self.metrics.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Sink for MetricsSink {
    fn begin(&mut self, info: &AttackInfo) {
        self.attack = Arc::from(info.name.as_str());
        self.start_unix_ns = info.start_unix_ns;
        self.texts.reset(info.clone());
    }

    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        let i = index as usize;
        if self.targets.len() <= i {
            self.targets
                .resize(i + 1, (self.empty.clone(), self.empty.clone()));
        }
        self.targets[i] = (
            Arc::from(target.method.as_str()),
            Arc::from(target.url.as_str()),
        );
    }

    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        let def = SeriesDef::from_info(series);
        let i = id as usize;
        if self.series.len() <= i {
            self.series.resize(i + 1, None);
        }
        self.series[i] = Some(Arc::new(def));
        if let Some(t) = series.http_target() {
            self.register_target(id, &t);
        }
    }

    fn metric(&mut self, m: &MetricSample) {
        let Some(Some(series)) = self.series.get(m.series as usize) else {
            return;
        };
        if series.kind == SeriesKind::Sample {
            return;
        }
        let rec = MetricRecord {
            attack: self.attack.clone(),
            start_unix_ns: self.start_unix_ns,
            series: series.clone(),
            t_ns: m.t_ns,
            value: m.value,
        };
        self.lock().add_metric(&rec);
    }

    fn record(&mut self, sample: &Sample) {
        let (method, url) = match self.targets.get(sample.target as usize) {
            Some((m, u)) => (m.clone(), u.clone()),
            None => (self.empty.clone(), self.empty.clone()),
        };
        let error_text = self.texts.get(sample, &method, &url);
        let rec = Record {
            attack: self.attack.clone(),
            start_unix_ns: self.start_unix_ns,
            sample: *sample,
            method,
            url,
            error_text,
            series: self.series.get(sample.target as usize).cloned().flatten(),
        };
        self.lock().add(&rec);
    }
}
