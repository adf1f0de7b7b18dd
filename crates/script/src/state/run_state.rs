//! What the VUs and the scheduler share: the metrics, the outputs, each
//! VU's facts and the test's counters (see the state rules in `state/mod.rs`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use loadlab_core::SeriesInfo;
use tokio::time::Instant;

use crate::config::Options;
use crate::log::{Level, Logger};
use crate::out::Outputs;
use crate::registry::{Kind, Registry};
use crate::system_tags::SystemTags;
pub use crate::tags::Tags;

use crate::http_result::ms;
use crate::log::unix_now_ns;

pub(crate) fn unix_now_ms() -> i64 {
    (unix_now_ns() / 1_000_000) as i64
}

/// Per-VU facts the native functions read.
#[derive(Debug, Default, Clone)]
pub struct VuMeta {
    pub id: u64,
    pub scenario: Option<usize>,
    pub group: String,
    /// The tags the script set on the VU (`exec.vu.tags`), sorted.
    pub own_tags: Tags,
    pub group_starts: Vec<Instant>,
    pub iter_in_instance: u64,
    pub iter_in_scenario: u64,
    /// Arrival-rate: the whole test's number of the arrival this VU's
    /// iteration is (k6's `scenario.iterationInTest`).
    pub arrival: Option<u64>,
    /// `http.setResponseCallback`: the statuses its requests expect.
    pub expect: crate::state::request::Expect,
}

pub struct ScenarioInfo {
    pub name: String,
    pub executor: String,
    pub start_unix_ms: f64,
    pub progress: f64,
    pub iteration: u64,
    /// `iterationInTest`: the arrival's number in the whole test for the
    /// arrival-rate executors (across `--execution-segment`s), else
    /// `iteration`.
    pub in_test: u64,
}

/// What the natives and the summary know of a scenario.
#[derive(Debug, Clone)]
pub struct ScenarioMeta {
    pub name: String,
    /// Its executor's name (`constant-vus`).
    pub executor: String,
    pub tags: Tags,
    /// `startTime`.
    pub start_time: Duration,
    /// How long it schedules iterations.
    pub duration: Duration,
}

/// The series of each of an HTTP request's metrics.
pub(crate) type HttpSeries = [usize; HTTP_METRICS.len()];

/// A series that is not in the results file.
pub(crate) const NO_FILE: u32 = u32::MAX;

/// `http_req_failed`'s place in [`HTTP_METRICS`].
pub(crate) const FAILED: usize = 8;

/// The metrics of one HTTP request, in the order `record_http` fills them.
pub(crate) const HTTP_METRICS: [&str; 11] = [
    "http_reqs",
    "http_req_duration",
    "http_req_blocked",
    "http_req_connecting",
    "http_req_tls_handshaking",
    "http_req_sending",
    "http_req_waiting",
    "http_req_receiving",
    "http_req_failed",
    "data_sent",
    "data_received",
];

/// After this many distinct URLs, requests to new ones share one series
/// in the results file (URLs with ids in them would make a series each).
pub(crate) const MAX_URL_SERIES: usize = 10_000;

/// What the VUs share (one thread, so `RefCell`s).
pub struct RunState {
    pub env: Vec<(String, String)>,
    /// `--console-output FILE` (or `consoleOutput`): the console's lines of
    /// setup(), the iterations and teardown() go there, in k6's logfmt
    /// form, instead of standard error (the init code's do not, as in k6).
    pub console_file: RefCell<Option<std::fs::File>>,
    /// Where k6's log lines go, and their layout.
    pub logger: Arc<Logger>,
    /// `--secret-source`: what `k6/secrets` reads.
    pub secrets: crate::secret_sources::Sources,
    /// `rps`: when the next request may go (all VUs share the limit).
    pub rps_next: Cell<Option<Instant>>,
    /// `--out experimental-prometheus-rw`, and its next push.
    pub(crate) rw: RefCell<Option<(crate::prom_rw::RwOutput, Instant)>>,
    /// The options every request starts from (`maxRedirects`,
    /// `discardResponseBodies`, `userAgent`, `throw`).
    pub http: crate::state::request::HttpDefaults,
    pub script_dir: PathBuf,
    pub options_json: String,
    pub reg: RefCell<Registry>,
    pub out: RefCell<Outputs>,
    pub vus: RefCell<Vec<VuMeta>>,
    pub scenarios: Vec<ScenarioMeta>,
    pub base_tags: Tags,
    /// `systemTags`: the system tags samples carry.
    pub sys: SystemTags,
    pub start: Instant,
    pub start_unix_ns: u64,
    /// `--start-at`: the scenarios start at `start` (not when setup ends).
    pub start_at: bool,
    pub(crate) seq: Cell<u64>,
    pub(crate) warned: RefCell<Vec<String>>,
    pub abort: RefCell<Option<String>>,
    pub completed: Cell<u64>,
    pub interrupted: Cell<u64>,
    pub active: Cell<u64>,
    pub scenario_iters: RefCell<Vec<u64>>,
    /// Each scenario as the progress lines last showed it (the summary's
    /// last lines show them as the test ended).
    pub views: RefCell<Vec<crate::progress::ScenView>>,
    /// The live progress lines, while they are printed.
    pub live: RefCell<Option<crate::progress::Live>>,
    /// [`RunConfig::progress`].
    pub(crate) progress: bool,
    /// [`crate::RunConfig::live_out`].
    pub(crate) live_out: Option<Arc<dyn crate::live_view::LiveOut>>,
    /// `http_req_duration` as the live display's last point saw it (its
    /// next point's percentiles are of the requests since).
    pub(crate) live_last: RefCell<Option<crate::registry::Agg>>,
    pub quiet: bool,
    pub verbose: bool,
    /// [`crate::RunConfig::base_mode`].
    pub(crate) base_mode: bool,
    pub(crate) file_http: RefCell<HashMap<Tags, u32>>,
    pub(crate) distinct_urls: Cell<usize>,
    pub(crate) http_cache: RefCell<HashMap<Tags, HttpSeries>>,
    /// QuickJS's heap after init ([`RunOutcome::js_heap_bytes`]).
    pub(crate) js_heap: Cell<u64>,
    /// Series by what determines their tags (`RunState::cached`).
    pub(crate) fast: RefCell<FastCache<usize>>,
    pub(crate) fast_http: RefCell<FastCache<HttpSeries>>,
    /// HTTP samples carry all of k6's request tags (`url`, `name`,
    /// `proto`, `error`, `error_code`): for `--out json` or `csv`, or when
    /// a threshold filters on one of them. The in-memory series leave
    /// them out all the same (a URL with ids in it would make a series
    /// each): the points carry them, and a threshold's sub-metric is
    /// kept on its own ([`crate::registry::SubMetric`]).
    pub full_http_tags: Cell<bool>,
    /// The in-memory series keep the request tags too: for the Prometheus
    /// remote-write output, whose time series are those.
    pub http_series_full: Cell<bool>,
    pub(crate) fast_file: RefCell<FastCache<u32>>,
    pub(crate) ids: BuiltinIds,
}

/// Tag `k` of a value: of `extra` (over the series'), else of `tags`.
fn tag_of<'a>(tags: &'a Tags, extra: &'a [(&'a str, &'a str)], k: &str) -> Option<&'a str> {
    match extra.iter().find(|(a, _)| *a == k) {
        Some((_, v)) => Some(v),
        None => tags.get(k),
    }
}

/// `tags` with `extra` over them, sorted.
fn with_extra(tags: &Tags, extra: &[(&str, &str)]) -> Tags {
    let mut t = tags.clone();
    for (k, v) in extra {
        t.retain(|(a, _)| a != k);
        t.push(((*k).to_string(), (*v).to_string()));
    }
    t.sort();
    t
}

/// The ids of the built-in metrics added per iteration.
pub(crate) struct BuiltinIds {
    pub(crate) checks: usize,
    pub(crate) group_duration: usize,
    pub(crate) iteration_duration: usize,
    pub(crate) iteration_duration_corrected: usize,
    pub(crate) iterations: usize,
}

/// What a cached series' tags were made from.
pub(crate) struct FastKey {
    pub(crate) metric: usize,
    pub(crate) scenario: Option<usize>,
    pub(crate) group: String,
    /// The VU's own tags (`exec.vu.tags`).
    pub(crate) own: Vec<(String, String)>,
    pub(crate) extra: Vec<(String, String)>,
}

pub(crate) type FastCache<V> = HashMap<u64, Vec<(FastKey, V)>>;

/// A hash of a series' determinants, eight bytes at a step (each part's
/// length is mixed in, so parts cut differently hash differently). Only
/// picks the bucket: `RunState::cached` compares the parts themselves.
pub(crate) fn fast_hash(
    metric: usize,
    scenario: Option<usize>,
    group: &str,
    own: &[(String, String)],
    a: &[(&str, &str)],
    b: &[(String, String)],
) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    pub(crate) fn eat(h: &mut u64, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
            *h = (h.rotate_left(5) ^ w).wrapping_mul(K);
        }
        let mut last = (bytes.len() as u64) << 56;
        for (i, &b) in words.remainder().iter().enumerate() {
            last ^= u64::from(b) << (8 * i);
        }
        *h = (h.rotate_left(5) ^ last).wrapping_mul(K);
    }
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    eat(&mut h, &(metric as u64).to_le_bytes());
    eat(
        &mut h,
        &scenario.map_or(u64::MAX, |s| s as u64).to_le_bytes(),
    );
    eat(&mut h, group.as_bytes());
    for (k, v) in own
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .chain(a.iter().copied())
        .chain(b.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    {
        eat(&mut h, k.as_bytes());
        eat(&mut h, v.as_bytes());
    }
    h
}

impl RunState {
    pub(crate) fn now_ns(&self) -> u64 {
        self.start.elapsed().as_nanos() as u64
    }

    /// A log line in the run's layout (`--log-format`) to its output
    /// (`--log-output`); on a terminal showing the live progress lines,
    /// written above them (as k6 keeps its bars under its logs).
    /// `console.debug` and other debug lines only with `-v`, as in k6.
    pub fn log(&self, level: Level, msg: &str, fields: &[(&str, &str)]) {
        if level >= Level::Debug && !self.verbose {
            return;
        }
        let Some(line) = self.logger.line(level, msg, fields) else {
            return;
        };
        if self.logger.to_stderr()
            && let Some(live) = self.live.borrow().as_ref()
        {
            live.above(&line);
            return;
        }
        self.logger.write(&line);
    }

    /// A line of the script's `console` object (`method`: `log`, `warn`,
    /// …), with k6's `source=console`; to `--console-output`'s file when
    /// there is one, in the run's layout without that field (k6's own
    /// warnings, such as "Request Failed", stay on the log output).
    pub fn script_console(&self, method: &str, line: &str) {
        let level = Level::of_console(method);
        if let Some(file) = self.console_file.borrow_mut().as_mut() {
            if level >= Level::Debug && !self.verbose {
                return;
            }
            let mut text = self.logger.redacted(crate::log::format_line(
                self.logger.format(),
                false,
                0,
                unix_now_ns(),
                level,
                line,
                &[],
            ));
            text.push('\n');
            // One write per line (nothing is left in a buffer if the
            // process exits).
            let _ = std::io::Write::write_all(file, text.as_bytes());
            return;
        }
        self.log(level, line, &[("source", "console")]);
    }

    /// Live progress lines were wanted (`RunConfig::progress`).
    pub fn progress(&self) -> bool {
        self.progress
    }

    /// Pushes to the remote-write endpoint when its interval is up.
    pub fn rw_push_due(&self, now: Instant) {
        let mut rw = self.rw.borrow_mut();
        if let Some((out, next)) = rw.as_mut()
            && now >= *next
        {
            out.push(&self.reg.borrow(), unix_now_ms());
            *next = now + out.push_interval();
        }
    }

    /// When the remote-write output pushes next.
    pub fn rw_next(&self) -> Option<Instant> {
        self.rw.borrow().as_ref().map(|(_, t)| *t)
    }

    /// The remote-write output's last push (and staleness markers), waited for.
    pub fn rw_finish(&self) {
        if let Some((out, _)) = self.rw.borrow_mut().take() {
            out.finish(&self.reg.borrow(), unix_now_ms());
        }
    }

    pub fn warn_once(&self, msg: &str) {
        let mut w = self.warned.borrow_mut();
        if !w.iter().any(|m| m == msg) {
            w.push(msg.to_string());
            drop(w);
            self.log(Level::Warning, msg, &[]);
        }
    }

    pub fn request_abort(&self, msg: &str) {
        self.abort
            .borrow_mut()
            .get_or_insert_with(|| msg.to_string());
    }

    /// System tags of a VU's samples: the options' tags, the scenario's and
    /// the group.
    pub fn vu_tags(&self, vu: usize) -> Tags {
        let vus = self.vus.borrow();
        let m = &vus[vu];
        let mut tags = self.base_tags.clone();
        if let Some(s) = m.scenario {
            let ScenarioMeta { name, tags: st, .. } = &self.scenarios[s];
            tags.extend(st.iter().cloned());
            if self.sys.has(SystemTags::SCENARIO) {
                tags.push(("scenario".into(), name.clone()));
            }
        }
        if self.sys.has(SystemTags::GROUP) {
            tags.push(("group".into(), m.group.clone()));
        }
        // `exec.vu.tags`: the script's own, over the system's.
        for (k, v) in &m.own_tags {
            match tags.iter_mut().find(|(n, _)| n == k) {
                Some(t) => t.1 = v.clone(),
                None => tags.push((k.clone(), v.clone())),
            }
        }
        tags
    }

    /// `exec.vu.tags[name] = value` (`None`: `delete`): a tag of every
    /// later sample of the VU, as in k6.
    pub fn set_vu_tag(&self, vu: usize, name: &str, value: Option<String>) {
        let mut vus = self.vus.borrow_mut();
        let own = &mut vus[vu].own_tags;
        own.retain(|(k, _)| k != name);
        if let Some(v) = value {
            own.push((name.to_string(), v));
            own.sort();
        }
    }

    pub(crate) fn file_series(&self, info: SeriesInfo) -> u32 {
        self.out.borrow_mut().register(info)
    }

    /// The series of `metric` with `tags`, made (and declared in the
    /// results file when `to_file`) on first use.
    pub fn series_for(&self, metric: usize, tags: Tags, to_file: bool) -> usize {
        let mut reg = self.reg.borrow_mut();
        let (si, new) = reg.series(metric, tags, || NO_FILE);
        if new && to_file {
            let def = &reg.metrics[metric];
            let info = SeriesInfo {
                kind: def.kind.series_kind(),
                name: def.name.clone(),
                time: def.time,
                tags: reg.series[si].tags.to_vec(),
            };
            reg.series[si].file_id = self.file_series(info);
        }
        si
    }

    /// Adds a value to series `si` at `t_ns` (from the start).
    pub fn add_at(&self, si: usize, value: f64, t_ns: u64) {
        self.add_all(&[si], &[value], t_ns, None);
    }

    /// The metadata of VU `vu`'s samples, when `systemTags` asks for `vu`
    /// or `iter`: its id and the iteration it runs (`__ITER`).
    pub(crate) fn sample_meta(&self, vu: usize) -> Option<(u64, u64)> {
        if !self.sys.has_metadata() {
            return None;
        }
        let vus = self.vus.borrow();
        vus.get(vu).map(|m| (m.id, m.iter_in_instance))
    }

    /// Adds `values[k]` to series `ids[k]`, all at `t_ns`: the registry
    /// and the outputs borrowed once (an HTTP request adds 11 values).
    /// `meta`: the VU's id and iteration, for the points' metadata.
    pub(crate) fn add_all(
        &self,
        ids: &[usize],
        values: &[f64],
        t_ns: u64,
        meta: Option<(u64, u64)>,
    ) {
        self.add_tagged(ids, values, t_ns, meta, &[]);
    }

    /// [`RunState::add_all`], the values carrying `extra` tags over their
    /// series' (a request's `url`, `name`, `proto`...: tags the series
    /// leave out). The points written and the tag-filtered metrics see
    /// them; every series of `ids` has the same tags.
    pub(crate) fn add_tagged(
        &self,
        ids: &[usize],
        values: &[f64],
        t_ns: u64,
        meta: Option<(u64, u64)>,
        extra: &[(&str, &str)],
    ) {
        let mut reg = self.reg.borrow_mut();
        let reg = &mut *reg;
        let mut out = self.out.borrow_mut();
        let json = out.has_points();
        let mut point_tags: Option<Tags> = None;
        for (&si, &value) in ids.iter().zip(values) {
            let s = &mut reg.series[si];
            s.agg.add(value);
            for sub in reg.subs.iter_mut().filter(|x| x.metric == s.metric) {
                if sub
                    .filter
                    .iter()
                    .all(|(k, v)| tag_of(&s.tags, extra, k) == Some(v.as_str()))
                {
                    sub.agg.add(value);
                }
            }
            if s.file_id == NO_FILE && !json {
                continue;
            }
            let def = &reg.metrics[s.metric];
            if s.file_id != NO_FILE {
                let v = if def.time { value * 1e6 } else { value };
                out.metric(s.file_id, t_ns, v);
            }
            if json {
                let tags = if extra.is_empty() {
                    &s.tags
                } else {
                    &*point_tags.get_or_insert_with(|| with_extra(&s.tags, extra))
                };
                out.point(def, self.start_unix_ns + t_ns, value, tags, meta);
            }
        }
    }

    /// Adds a value to metric `metric` with `tags`.
    pub fn add(&self, metric: usize, value: f64, tags: Tags, to_file: bool) {
        let si = self.series_for(metric, tags, to_file);
        self.add_at(si, value, self.now_ns());
    }

    pub(crate) fn metric_id(&self, name: &str) -> usize {
        self.reg.borrow().metric(name).expect("built-in metric")
    }

    /// Adds `value` to the built-in metric `name` with `tags`, as a
    /// sample of VU `vu` (with its metadata).
    pub fn add_vu_named(&self, vu: usize, name: &str, value: f64, tags: Tags) {
        let si = self.series_for(self.metric_id(name), tags, true);
        let meta = self.sample_meta(vu);
        self.add_all(&[si], &[value], self.now_ns(), meta);
    }

    pub fn add_named(&self, name: &str, value: f64, tags: Tags, to_file: bool) {
        let id = self.metric_id(name);
        self.add(id, value, tags, to_file);
    }

    pub fn check(&self, vu: usize, name: &str, pass: bool, extra: Tags) {
        let metric = self.ids.checks;
        let si = self.cached(&self.fast, vu, metric, &[("check", name)], &extra, || {
            let mut tags = self.vu_tags(vu);
            if self.sys.has(SystemTags::CHECK) {
                tags.push(("check".into(), name.to_string()));
            }
            tags.extend(extra.iter().cloned());
            self.series_for(metric, tags, true)
        });
        let meta = self.sample_meta(vu);
        self.add_all(&[si], &[if pass { 1.0 } else { 0.0 }], self.now_ns(), meta);
    }

    /// The value `make` gives for `metric` with the tags of VU `vu` plus
    /// `a` and `b`, made once per distinct scenario, group, `a` and `b`:
    /// afterwards a look-up costs a hash and a comparison instead of a tag
    /// list built, sorted and hashed (CPU per request).
    pub(crate) fn cached<V: Copy>(
        &self,
        cache: &RefCell<FastCache<V>>,
        vu: usize,
        metric: usize,
        a: &[(&str, &str)],
        b: &[(String, String)],
        make: impl FnOnce() -> V,
    ) -> V {
        let (h, scenario) = {
            let vus = self.vus.borrow();
            let m = &vus[vu];
            let h = fast_hash(metric, m.scenario, &m.group, &m.own_tags, a, b);
            if let Some(list) = cache.borrow().get(&h) {
                for (k, v) in list {
                    if k.metric == metric
                        && k.scenario == m.scenario
                        && k.group == m.group
                        && k.own == *m.own_tags
                        && k.extra.len() == a.len() + b.len()
                        && k.extra
                            .iter()
                            .zip(
                                a.iter()
                                    .copied()
                                    .chain(b.iter().map(|(x, y)| (x.as_str(), y.as_str()))),
                            )
                            .all(|((x, y), (c, d))| x == c && y == d)
                    {
                        return *v;
                    }
                }
            }
            (h, m.scenario)
        };
        let v = make();
        let (group, own) = {
            let vus = self.vus.borrow();
            (vus[vu].group.clone(), vus[vu].own_tags.clone())
        };
        let extra = a
            .iter()
            .map(|(x, y)| (x.to_string(), y.to_string()))
            .chain(b.iter().cloned())
            .collect();
        cache.borrow_mut().entry(h).or_default().push((
            FastKey {
                metric,
                scenario,
                group,
                own: own.into_vec(),
                extra,
            },
            v,
        ));
        v
    }

    pub fn group_enter(&self, vu: usize, name: &str) -> usize {
        let mut vus = self.vus.borrow_mut();
        let m = &mut vus[vu];
        let token = m.group.len();
        m.group.push_str("::");
        m.group.push_str(name);
        m.group_starts.push(Instant::now());
        token
    }

    pub fn group_exit(&self, vu: usize, token: usize) {
        let started = {
            let mut vus = self.vus.borrow_mut();
            vus[vu].group_starts.pop()
        };
        if let Some(t0) = started {
            let d = ms(t0.elapsed());
            let metric = self.ids.group_duration;
            let si = self.cached(&self.fast, vu, metric, &[], &[], || {
                self.series_for(metric, self.vu_tags(vu), true)
            });
            self.add_all(&[si], &[d], self.now_ns(), self.sample_meta(vu));
        }
        let mut vus = self.vus.borrow_mut();
        vus[vu].group.truncate(token);
    }

    pub fn define_metric(&self, name: &str, kind: Kind, time: bool) -> Result<usize, String> {
        let mut reg = self.reg.borrow_mut();
        if let Some(i) = reg.metric(name)
            && reg.metrics[i].builtin
        {
            return Err(format!("{name:?} is a built-in metric name"));
        }
        reg.define(name, kind, time, false)
    }

    pub fn add_custom(&self, vu: usize, id: usize, value: f64, extra: Tags) {
        let si = self.cached(&self.fast, vu, id, &[], &extra, || {
            let mut tags = self.vu_tags(vu);
            for (k, v) in &extra {
                tags.retain(|(a, _)| a != k);
                tags.push((k.clone(), v.clone()));
            }
            self.series_for(id, tags, true)
        });
        self.add_all(&[si], &[value], self.now_ns(), self.sample_meta(vu));
    }

    /// Adds a value to a built-in metric with VU `vu`'s tags.
    pub fn add_vu(&self, vu: usize, metric: usize, value: f64) {
        let si = self.cached(&self.fast, vu, metric, &[], &[], || {
            self.series_for(metric, self.vu_tags(vu), true)
        });
        self.add_all(&[si], &[value], self.now_ns(), self.sample_meta(vu));
    }

    /// The scenario VU `vu` runs in (none for VU 0).
    pub fn vu_scenario(&self, vu: usize) -> Option<usize> {
        self.vus.borrow().get(vu).and_then(|v| v.scenario)
    }

    /// The statuses VU `vu`'s requests expect unless they say otherwise.
    pub fn vu_expect(&self, vu: usize) -> crate::state::request::Expect {
        self.vus
            .borrow()
            .get(vu)
            .map(|v| v.expect.clone())
            .unwrap_or_default()
    }

    pub fn set_vu_expect(&self, vu: usize, expect: crate::state::request::Expect) {
        if let Some(v) = self.vus.borrow_mut().get_mut(vu) {
            v.expect = expect;
        }
    }

    pub fn vu_numbers(&self, vu: usize) -> (u64, u64, u64) {
        let v = &self.vus.borrow()[vu];
        (v.id, v.iter_in_instance, v.iter_in_scenario)
    }

    pub fn scenario_info(&self, vu: usize) -> ScenarioInfo {
        let v = &self.vus.borrow()[vu];
        match v.scenario {
            Some(s) => {
                let ScenarioMeta {
                    name,
                    executor,
                    start_time,
                    duration,
                    ..
                } = &self.scenarios[s];
                // As k6: when the scenario started (the test's start plus
                // its `startTime`), and the share of its duration gone by.
                let elapsed = self.start.elapsed().saturating_sub(*start_time);
                let progress = if duration.is_zero() {
                    1.0
                } else {
                    (elapsed.as_secs_f64() / duration.as_secs_f64()).min(1.0)
                };
                ScenarioInfo {
                    name: name.clone(),
                    executor: executor.clone(),
                    start_unix_ms: ((self.start_unix_ns + start_time.as_nanos() as u64) / 1_000_000)
                        as f64,
                    progress,
                    iteration: v.iter_in_scenario,
                    in_test: v.arrival.unwrap_or(v.iter_in_scenario),
                }
            }
            None => ScenarioInfo {
                name: String::new(),
                executor: String::new(),
                start_unix_ms: 0.0,
                progress: 0.0,
                iteration: 0,
                in_test: 0,
            },
        }
    }

    pub fn instance_info(&self) -> (u64, u64, u64, u64, f64) {
        (
            self.completed.get(),
            self.interrupted.get(),
            self.active.get(),
            self.vus.borrow().len().saturating_sub(1) as u64,
            ms(self.start.elapsed()),
        )
    }
}

/// The progress lines' `running (…)` line and bars, the scenarios in
/// k6's order (by start time, then name).
pub(crate) fn progress_block(
    shared: &RunState,
    options: &Options,
    views: &[crate::progress::ScenView],
    elapsed: Duration,
) -> (String, Vec<crate::progress::Bar>) {
    let head = crate::progress::head(
        elapsed,
        options.max_test_duration(),
        shared.active.get(),
        shared.vus.borrow().len().saturating_sub(1) as u64,
        shared.completed.get(),
        shared.interrupted.get(),
    );
    let bars = options
        .start_order()
        .into_iter()
        .filter(|&i| i < views.len())
        .map(|i| crate::progress::bar(&options.scenarios[i], &views[i]))
        .collect();
    (head, bars)
}
