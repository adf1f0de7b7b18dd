//! Consumers of the sample stream: results files, histograms, live progress, the store.

use crate::sample::Sample;
use crate::series::{MetricSample, SeriesInfo};

/// What a sink needs to know about a target to label its samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetInfo {
    pub method: String,
    pub url: String,
}

/// Facts about an attack that a sink needs before the first sample.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AttackInfo {
    /// The attack's name (`-name`), may be empty.
    pub name: String,
    /// Wall-clock time of the attack's start (offset 0 of every sample), in
    /// nanoseconds since the Unix epoch.
    pub start_unix_ns: u64,
    /// The request timeout (`-timeout`) in nanoseconds; 0 when unknown.
    /// Error texts of timeouts say it.
    pub timeout_ns: u64,
    /// `-connect-to` overrides, `host:port` → `host:port`, and the
    /// `-unix-socket` path: error texts of failed connections name the
    /// address that was actually dialled.
    pub connect_to: Vec<(String, String)>,
    pub unix_socket: Option<String>,
    /// `-max-headers-size` in bytes; 0 when unknown. Named by the error
    /// text of a response head over it.
    pub max_headers_size: u64,
    /// For one worker of a split run (`-segment`, `-start-at`): which share
    /// of the schedule it ran and when it started; `None` for a plain attack.
    pub worker: Option<WorkerInfo>,
}

/// What one worker of a distributed run records about itself in its results
/// header, so that a report over the workers' files can check the start and
/// say what is missing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkerInfo {
    /// `-segment=i/n`: this worker's share of the schedule (`0/1` for all of it).
    pub index: u64,
    pub count: u64,
    /// The `-start-at` instant (ns since the Unix epoch), 0 when the worker
    /// started as soon as it was launched.
    pub start_at_unix_ns: u64,
    /// The worker's wall clock when it actually began (after waiting for
    /// `start_at`): its clock reading, to compare across workers.
    pub began_unix_ns: u64,
    /// The send clock's resolution (`-resolution`) in ns.
    pub resolution_ns: u64,
    /// Requests of the *whole* schedule (all segments), when known in
    /// advance (`-duration`, `-max-requests` or a `-pace` plan); this
    /// segment's share follows from it (`ScheduleSegment::share`).
    pub scheduled_total: Option<u64>,
    /// The kernel's estimate of the clock's maximum error (NTP discipline,
    /// `adjtimex`), when the clock is synchronised.
    pub clock_max_error_ns: Option<u64>,
    /// The worker's host name (a pod's name on Kubernetes).
    pub host: String,
}

impl WorkerInfo {
    /// The segment this worker ran.
    pub fn segment(&self) -> Option<crate::ScheduleSegment> {
        crate::ScheduleSegment::new(self.index, self.count).ok()
    }

    /// Requests this worker's segment was scheduled to send, when known.
    pub fn scheduled(&self) -> Option<u64> {
        Some(self.segment()?.share(self.scheduled_total?))
    }
}

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
