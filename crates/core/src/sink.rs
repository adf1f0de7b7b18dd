//! Consumers of the sample stream: results files, histograms, live progress, the store.

use crate::info::{AttackInfo, TargetInfo};
use crate::sample::Sample;
use crate::series::{MetricSample, SeriesInfo};

/// A consumer of samples. The engine calls [`Sink::begin`] once when the attack
/// starts, [`Sink::register_target`] once per target before the first sample
/// that refers to it, then [`Sink::record`] per completed request, then
/// [`Sink::finish`]. Calls come from one dedicated thread, never from async
/// tasks, so a sink may block (e.g. write to a file).
///
/// A target is the simplest [series](crate::series): HTTP requests to one
/// method and URL. Sources with more labels (a scenario, a group, an SQL
/// statement kind) declare their series with [`Sink::register_series`], and
/// record metric values (counters, trends, rates, gauges) with
/// [`Sink::metric`]; a sample's `target` field is then its series id.
pub trait Sink: Send {
    fn begin(&mut self, _info: &AttackInfo) {}
    fn register_target(&mut self, _index: u32, _target: &TargetInfo) {}
    /// Declares series `id` before the first sample or metric record of it.
    /// By default an HTTP request series is passed on as a target, and
    /// other series are ignored.
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        if let Some(t) = series.http_target() {
            self.register_target(id, &t);
        }
    }
    fn record(&mut self, sample: &Sample);
    /// One metric record (ignored by default).
    fn metric(&mut self, _m: &MetricSample) {}
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<S: Sink + ?Sized> Sink for Box<S> {
    fn begin(&mut self, info: &AttackInfo) {
        (**self).begin(info)
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        (**self).register_target(index, target)
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        (**self).register_series(id, series)
    }
    fn record(&mut self, sample: &Sample) {
        (**self).record(sample)
    }
    fn metric(&mut self, m: &MetricSample) {
        (**self).metric(m)
    }
    fn finish(&mut self) -> std::io::Result<()> {
        (**self).finish()
    }
}

/// Two sinks of their own types, each given every call, in order: the
/// engine hands the pair back when the attack ends, so each keeps its type
/// (`let (summary, (collector, writer)) = attack(…, (collector, writer), …)`).
impl<A: Sink, B: Sink> Sink for (A, B) {
    fn begin(&mut self, info: &AttackInfo) {
        self.0.begin(info);
        self.1.begin(info);
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        self.0.register_target(index, target);
        self.1.register_target(index, target);
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        self.0.register_series(id, series);
        self.1.register_series(id, series);
    }
    fn record(&mut self, sample: &Sample) {
        self.0.record(sample);
        self.1.record(sample);
    }
    fn metric(&mut self, m: &MetricSample) {
        self.0.metric(m);
        self.1.metric(m);
    }
    /// Finishes both, even when the first fails; the first error is returned.
    fn finish(&mut self) -> std::io::Result<()> {
        let a = self.0.finish();
        let b = self.1.finish();
        a.and(b)
    }
}

/// An optional sink: nothing happens when it is `None`.
impl<S: Sink> Sink for Option<S> {
    fn begin(&mut self, info: &AttackInfo) {
        if let Some(s) = self {
            s.begin(info);
        }
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        if let Some(s) = self {
            s.register_target(index, target);
        }
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        if let Some(s) = self {
            s.register_series(id, series);
        }
    }
    fn record(&mut self, sample: &Sample) {
        if let Some(s) = self {
            s.record(sample);
        }
    }
    fn metric(&mut self, m: &MetricSample) {
        if let Some(s) = self {
            s.metric(m);
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        match self {
            Some(s) => s.finish(),
            None => Ok(()),
        }
    }
}

/// Sends every sample to each of several sinks.
pub struct Tee(pub Vec<Box<dyn Sink>>);

impl Sink for Tee {
    fn begin(&mut self, info: &AttackInfo) {
        for s in &mut self.0 {
            s.begin(info);
        }
    }
    fn register_target(&mut self, index: u32, target: &TargetInfo) {
        for s in &mut self.0 {
            s.register_target(index, target);
        }
    }
    fn register_series(&mut self, id: u32, series: &SeriesInfo) {
        for s in &mut self.0 {
            s.register_series(id, series);
        }
    }
    fn record(&mut self, sample: &Sample) {
        for s in &mut self.0 {
            s.record(sample);
        }
    }
    fn metric(&mut self, m: &MetricSample) {
        for s in &mut self.0 {
            s.metric(m);
        }
    }
    fn finish(&mut self) -> std::io::Result<()> {
        for s in &mut self.0 {
            s.finish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Count(u64, bool, bool);
    impl Sink for Count {
        fn record(&mut self, _: &Sample) {
            self.0 += 1;
        }
        fn finish(&mut self) -> std::io::Result<()> {
            self.1 = true;
            if self.2 {
                Err(std::io::Error::other("full disk"))
            } else {
                Ok(())
            }
        }
    }

    #[test]
    fn pairs_and_options_pass_everything_on_and_keep_their_types() {
        let mut s = (Count::default(), Some(Count(0, false, true)));
        s.record(&Sample::default());
        s.record(&Sample::default());
        // Both are finished even though the second fails.
        assert_eq!(s.finish().unwrap_err().to_string(), "full disk");
        let (a, b) = s;
        let b = b.unwrap();
        assert_eq!((a.0, a.1, b.0, b.1), (2, true, 2, true));
        let mut none: Option<Count> = None;
        none.record(&Sample::default());
        assert!(none.finish().is_ok());
    }
}
