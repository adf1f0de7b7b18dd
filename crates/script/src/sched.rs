//! The run: init of the VUs, setup, the executors' schedule, teardown, and
//! the state the native functions share (metrics, groups, outputs).

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Poll, Waker};
use std::time::Duration;

use loadlab_engine::client::{Client, with_owner};
use rquickjs::loader::BuiltinResolver;
use rquickjs::{Function, Object, Runtime, Value};
use tokio::time::Instant;

use crate::ScriptError;
use crate::config::{Executor, Options, Overrides, Scenario};
use crate::executor::schedule::arrival_at;
use crate::inflight::{Boxes, InFlight};
use crate::js::error::with_stack_end;
use crate::js::exec::{init_vu, vu_coroutine};
use crate::js::loader::{K6Loader, LocalResolver, new_context};
use crate::js::runtime::RawRuntime;
use crate::js::vu::{self, Op, Resume, VuCoroutine};
use crate::log::{Level, Logger};
use crate::metrics::Registry;
use crate::out::Outputs;
use crate::system_tags::SystemTags;

use crate::executor::schedule::{ramp_flat_until, ramp_vus, ramp_vus_allowed};
use crate::http_result::ms;
use crate::log::unix_now_ns;
use crate::run::shared::*;
use crate::run::shared::{ScenarioMeta, Shared, VuMeta};
use crate::run::wake::*;

/// What to run.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    pub script: PathBuf,
    /// `__ENV`: the process environment, then `-e` on top.
    pub env: Vec<(String, String)>,
    pub overrides: Overrides,
    pub quiet: bool,
    /// `-v/--verbose`: `console.debug` lines are printed (k6 drops them
    /// otherwise).
    pub verbose: bool,
    /// `--log-output`, `--log-format`, `--no-color` (`None`: k6's
    /// default, text on standard error).
    pub logger: Option<Arc<Logger>>,
    /// `--out json=FILE`.
    pub json_out: Option<PathBuf>,
    /// `--out csv=…`.
    pub csv_out: Option<crate::out::CsvOut>,
    /// `--out experimental-prometheus-rw[=…]`.
    pub prometheus_rw: Option<crate::prom_rw::RwConfig>,
    /// `--out loadlab=FILE`: our results file (v2).
    pub results_out: Option<PathBuf>,
    /// `--summary-export=FILE`.
    pub summary_export: Option<PathBuf>,
    /// `--start-at`: the instant (ns since the Unix epoch) every worker's
    /// scenarios start on, after init and `setup()`.
    pub start_at_unix_ns: Option<u64>,
    /// The process exits right after the run (the CLI): the JavaScript
    /// heap is left to the exit instead of being freed context by context.
    pub exit_after: bool,
    /// k6's live progress lines on standard output while the test runs
    /// (the CLI without `-q`): every second, or redrawn in place every
    /// 100 ms on a terminal.
    pub progress: bool,
}

/// Opens `--console-output`'s file (created, or appended to, as k6 does).
fn open_console_output(path: &str) -> Result<std::fs::File, ScriptError> {
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| ScriptError::Options(format!("consoleOutput {path:?}: cannot create it: {e}")))
}

/// A worker's record and plan for its results file: written when the run
/// is one part of a split test (`--execution-segment`) or starts on a
/// common instant (`--start-at`).
fn worker_header(
    cfg: &RunConfig,
    options: &Options,
) -> Option<(
    loadlab_core::WorkerInfo,
    loadlab_metrics::distributed::WorkerPlan,
)> {
    let t = &options.segment;
    if t.is_whole() && cfg.start_at_unix_ns.is_none() {
        return None;
    }
    Some((
        loadlab_core::WorkerInfo {
            index: t.index as u64,
            count: t.count() as u64,
            start_at_unix_ns: cfg.start_at_unix_ns.unwrap_or(0),
            began_unix_ns: 0,
            // Iterations start on tokio's timer: 1 ms.
            resolution_ns: 1_000_000,
            scheduled_total: None,
            clock_max_error_ns: loadlab_engine::host::clock_max_error_ns(),
            host: loadlab_engine::host::name(),
        },
        loadlab_metrics::distributed::WorkerPlan {
            unit: "iterations".into(),
            segment: t.to_string(),
            sequence: t.sequence_text(),
            scheduled: options.planned_iterations(),
        },
    ))
}

/// How it went.
#[derive(Debug)]
pub struct RunOutcome {
    /// k6's end-of-test summary.
    pub summary: String,
    pub thresholds_failed: bool,
    /// The metrics whose thresholds were crossed (sorted; their keys as
    /// the script wrote them).
    pub thresholds_crossed: Vec<String>,
    pub interrupted: bool,
    pub aborted_by_threshold: bool,
    /// `exec.test.abort(message)` was called.
    pub aborted: Option<String>,
    pub iterations: u64,
    pub script_errors: u64,
    pub http_reqs: u64,
    /// QuickJS's heap after every VU's init (and a collection), in bytes:
    /// what the VUs cost (`LOADLAB_K6_DEBUG_MEMORY=1` prints the detail).
    pub js_heap_bytes: u64,
    /// VUs initialised, VU 0 (setup/teardown) included.
    pub vus_initialised: u64,
}

/// One VU: its context and coroutine.
struct Slot<'js> {
    /// The VU's own values: `ns` (its instance of the script's module),
    /// `data` (its copy of setup()'s result), `result` and `phase` (VU 0);
    /// its `ctx()` is the run's context.
    holder: Object<'js>,
    co: Option<VuCoroutine>,
    /// Waiting on an op (HTTP or sleep) or running an iteration.
    busy: bool,
    scenario: usize,
    intended: Instant,
    started: Instant,
    /// When the iteration's function returned, if the VU then waited out
    /// `minIterationDuration` (the wait is not the iteration's, as in k6).
    exec_end: Rc<Cell<Option<Instant>>>,
    iters: u64,
    /// Counts ops, so a late answer to an aborted one is ignored.
    op_gen: u64,
}

use crate::modules::imports::check_members;
#[cfg(test)]
use crate::modules::imports::code_only;

/// Runs `f` (a poll of a VU's requests) as `owner` (see [`Sched::owner`]).
fn poll_as<R>(owner: Option<(u32, Option<std::net::IpAddr>)>, f: impl FnOnce() -> R) -> R {
    match owner {
        Some((o, ip)) => with_owner(o, ip, f),
        None => f(),
    }
}

/// The owner of VU `i`'s connections under `noVUConnectionReuse`.
fn owner_of(i: usize) -> u32 {
    u32::try_from(i + 1).unwrap_or(u32::MAX)
}

/// Runs a script: init, setup, scenarios, teardown, summary.
pub fn run(cfg: RunConfig, shutdown: impl Future<Output = ()>) -> Result<RunOutcome, ScriptError> {
    // `-`: the script from standard input, as `k6 run -` reads it (its
    // relative imports and `open()` from the working folder).
    let source = if cfg.script.as_os_str() == "-" {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map(|_| text)
    } else {
        std::fs::read_to_string(&cfg.script)
    }
    .map_err(|err| ScriptError::Read {
        path: cfg.script.clone(),
        err,
    })?;
    let name = cfg.script.display().to_string();
    check_members(&source, &name)?;
    let script_dir = cfg
        .script
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        })
        .unwrap_or_else(|| PathBuf::from("."));

    let rt = Runtime::new().map_err(|e| ScriptError::Runtime(e.to_string()))?;
    let mut resolver = BuiltinResolver::default();
    for (m, _) in crate::api::MODULES {
        resolver.add_module(*m);
    }
    rt.set_loader(
        (
            resolver,
            LocalResolver {
                script_dir: script_dir.clone(),
            },
        ),
        K6Loader::default(),
    );
    rt.set_interrupt_handler(Some(Box::new(|| vu::ABORTING.with(Cell::get))));

    let tokio_rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ScriptError::Runtime(e.to_string()))?;

    // The script's bytecode, once compiled (by the probe below).
    let code = RefCell::new(None);
    // The probe's context: the options are read there.
    let ctx0 = new_context(&rt).map_err(|e| ScriptError::Runtime(e.to_string()))?;
    let raw_rt = RawRuntime::of(&ctx0);
    raw_rt.attach().map_err(ScriptError::Runtime)?;

    let (now, now_unix) = (Instant::now(), unix_now_ns());
    // With --start-at, the test (and every offset in the results) counts
    // from that instant, on every worker.
    let (start, start_unix_ns) = match cfg.start_at_unix_ns {
        Some(at) if at >= now_unix => (now + Duration::from_nanos(at - now_unix), at),
        Some(at) => (
            now.checked_sub(Duration::from_nanos(now_unix - at))
                .unwrap_or(now),
            at,
        ),
        None => (now, now_unix),
    };

    // Evaluate once to get the options (a throwaway Shared: metrics defined
    // here are defined again by each VU).
    let probe_shared = Rc::new(make_shared(
        &cfg,
        &script_dir,
        String::new(),
        &[],
        Vec::new(),
        0,
    )?);
    probe_shared.vus.borrow_mut().push(VuMeta::default());
    let options_json: String = ctx0.with(|ctx| -> Result<String, ScriptError> {
        crate::api::install(&ctx, &probe_shared, &[])
            .map_err(|e| ScriptError::Runtime(format!("cannot set up the k6 API: {e}")))?;
        let holder = init_vu(&ctx, 0, &name, &source, &code)?;
        let ns: Object = holder
            .get("ns")
            .map_err(|e| ScriptError::Runtime(e.to_string()))?;
        let opts: Value = ns
            .get("options")
            .unwrap_or_else(|_| Value::new_undefined(ctx.clone()));
        if opts.is_undefined() {
            return Ok("null".into());
        }
        Ok(ctx
            .json_stringify(opts)
            .ok()
            .flatten()
            .and_then(|s| s.to_string().ok())
            .unwrap_or_else(|| "null".into()))
    })?;
    drop(ctx0);
    let opts_value: serde_json::Value =
        serde_json::from_str(&options_json).unwrap_or(serde_json::Value::Null);
    let options = Options::resolve(&opts_value, &cfg.overrides)?;
    crate::thresholds::eval::check(&options, &probe_shared.reg.borrow())?;
    for w in &options.warnings {
        probe_shared.log(Level::Warning, w, &[]);
    }
    if cfg.progress && !cfg.quiet {
        crate::progress::print_banner(&cfg, &options);
    }
    // `--summary-mode=disabled`: no export file, not even an empty one.
    let out_cfg = RunConfig {
        summary_export: cfg
            .summary_export
            .clone()
            .filter(|_| !options.summary_disabled),
        ..cfg.clone()
    };
    let mut outputs = Outputs::open(
        &out_cfg,
        start_unix_ns,
        worker_header(&cfg, &options),
        options.system_tags,
    )?;
    outputs.declare_thresholds(&options);

    let scen_meta: Vec<ScenarioMeta> = options
        .scenarios
        .iter()
        .map(|s| {
            (
                s.name.clone(),
                s.executor.name().to_string(),
                s.tags.clone(),
                s.start_time,
                s.executor.duration(),
            )
        })
        .collect();
    // What the script sees (`exec.test.options`): its options under the flags.
    let options_json = crate::test_options::with_flags(&opts_value, &cfg.overrides).to_string();
    let mut shared_v = make_shared(
        &cfg,
        &script_dir,
        options_json,
        &scen_meta,
        options.tags.clone(),
        start_unix_ns,
    )?;
    shared_v.out = RefCell::new(outputs);
    if let Some(rw) = &cfg.prometheus_rw {
        let out = crate::prom_rw::RwOutput::start(rw.clone(), shared_v.logger.clone())
            .map_err(ScriptError::Output)?;
        let first = Instant::now() + out.push_interval();
        *shared_v.rw.borrow_mut() = Some((out, first));
    }
    // Opened now (a bad path is refused before any VU starts), used from
    // setup() on.
    let console_file = match &options.console_output {
        Some(path) => Some(open_console_output(path)?),
        None => None,
    };
    shared_v.sys = options.system_tags;
    shared_v.full_http_tags.set(
        shared_v.out.borrow().has_points()
            || cfg.prometheus_rw.is_some()
            || options.thresholds.iter().any(|t| {
                t.filter.iter().any(|(k, _)| {
                    matches!(
                        k.as_str(),
                        "url"
                            | "name"
                            | "proto"
                            | "tls_version"
                            | "error"
                            | "error_code"
                            | "ip"
                            | "ocsp_status"
                    )
                })
            }),
    );
    shared_v.http = crate::api::HttpDefaults {
        max_redirects: options.max_redirects,
        request: options.request.clone(),
        name_tag: options.system_tags.has(SystemTags::NAME),
        blocklist: std::sync::Arc::new(options.blocklist.clone()),
    };
    if cfg.start_at_unix_ns.is_some() {
        shared_v.start = start;
        shared_v.start_at = true;
    }
    let shared = Rc::new(shared_v);

    // The run's context, where every VU's code runs (made before entering
    // the runtime: making one locks it).
    let context = new_context(&rt).map_err(|e| ScriptError::Runtime(e.to_string()))?;
    let client = Rc::new(
        Client::new(&loadlab_engine::AttackConfig {
            timeout: Duration::from_secs(60),
            // As k6: no `Accept-Encoding: gzip` of our own (bodies are
            // never decoded, so a script would read gzip bytes).
            compression: false,
            keepalive: !options.request.no_connection_reuse,
            hosts: options.hosts.clone(),
            dns_cache: options.dns.ttl,
            dns_pick: Some(std::sync::Arc::new(loadlab_engine::dns_pick::DnsPick::new(
                options.dns.select,
                options.dns.policy,
            ))),
            blocklist: Some(std::sync::Arc::new(options.blocklist.clone())),
            tls: loadlab_engine::config::TlsOptions {
                insecure: options.request.insecure_skip_tls_verify,
                versions: options.tls_versions,
                cipher_suites_12: options.tls_cipher_suites.clone(),
                client_pems: options.tls_auth.clone(),
                ..Default::default()
            },
            ..Default::default()
        })
        .map_err(|e| ScriptError::Runtime(e.to_string()))?,
    );
    let total: usize = options
        .scenarios
        .iter()
        .map(|s| s.executor.max_vus() as usize)
        .sum();

    // Polled again after it has fired (teardown still runs after Ctrl-C, as
    // in k6): from then on it stays pending, and teardown's own timeout
    // bounds it.
    // It is polled only when its own waker has fired (or on the first
    // poll): the loop waits on it at every turn, and a signal future's poll
    // cost ~1 % of a k6 script's CPU.
    let mut first = Some(Box::pin(shutdown));
    let gate = Arc::new(Gate::default());
    let gate_waker = Waker::from(gate.clone());
    let mut shutdown = Box::pin(std::future::poll_fn(move |cx| match first.as_mut() {
        Some(f) => {
            if !gate.open(cx.waker()) {
                return std::task::Poll::Pending;
            }
            let r = f
                .as_mut()
                .poll(&mut std::task::Context::from_waker(&gate_waker));
            if r.is_ready() {
                first = None;
            }
            r
        }
        None => std::task::Poll::Pending,
    }));
    let result = context.with(|ctx| -> Result<RunOutcome, ScriptError> {
        let mut slots: Vec<Slot<'_>> = Vec::with_capacity(total + 1);
        {
            let mut vus = shared.vus.borrow_mut();
            vus.push(VuMeta::default());
        }
        let scenario_env: Vec<Vec<(String, String)>> =
            options.scenarios.iter().map(|sc| sc.env.clone()).collect();
        crate::api::install(&ctx, &shared, &scenario_env)
            .map_err(|e| ScriptError::Runtime(format!("cannot set up the k6 API: {e}")))?;
        let holder = init_vu(&ctx, 0, &name, &source, &code)?;
        slots.push(new_slot(holder, 0, usize::MAX, "setup", None)?);
        // Init makes no garbage worth a collection, but QuickJS would run
        // one each time the heap grew by half: with thousands of VUs that
        // is many passes over an ever larger heap. Collect after init.
        raw_rt.set_gc_threshold(usize::MAX);
        // The VUs, each with its scenario.
        let mut vu_index = 1usize;
        for (si, sc) in options.scenarios.iter().enumerate() {
            for _ in 0..sc.executor.max_vus() {
                {
                    let mut vus = shared.vus.borrow_mut();
                    vus.push(VuMeta {
                        id: vu_index as u64,
                        scenario: Some(si),
                        ..Default::default()
                    });
                }
                let holder = init_vu(&ctx, vu_index, &name, &source, &code)?;
                slots.push(new_slot(
                    holder,
                    vu_index,
                    si,
                    &sc.exec,
                    options.request.min_iteration_duration,
                )?);
                vu_index += 1;
            }
        }
        // Then QuickJS's own rule (1.5x the live heap).
        let live = raw_rt.collect();
        shared.js_heap.set(live as u64);
        raw_rt.set_gc_threshold((live + live / 2).max(256 * 1024));
        if std::env::var_os("LOADLAB_K6_DEBUG_MEMORY").is_some() {
            eprintln!("{:#?}", raw_rt.memory_usage());
        }
        *shared.console_file.borrow_mut() = console_file;
        let outcome = tokio_rt.block_on(drive(
            &shared,
            &options,
            &mut slots,
            &client,
            shutdown.as_mut(),
        ));
        // End every coroutine (they borrow the context).
        for s in slots.iter_mut() {
            if let Some(mut co) = s.co.take() {
                if s.busy {
                    vu::ABORTING.with(|a| a.set(true));
                    let mut r = vu::resume(&mut co, Resume::Abort);
                    while let Some(op) = r {
                        r = match op {
                            Op::Done(_) => None,
                            _ => vu::resume(&mut co, Resume::Abort),
                        };
                    }
                    vu::ABORTING.with(|a| a.set(false));
                }
                let _ = vu::resume(&mut co, Resume::Quit);
            }
        }
        outcome
    });
    RawRuntime::detach();
    if cfg.exit_after {
        // Freeing the context is a garbage collection over the whole heap
        // (~5 % of a short run's CPU at 800 VUs); the process is about to
        // exit, which frees it all at once.
        std::mem::forget(context);
        std::mem::forget(rt);
    } else {
        drop(context);
    }
    result
}

fn make_shared(
    cfg: &RunConfig,
    script_dir: &std::path::Path,
    options_json: String,
    scenarios: &[ScenarioMeta],
    base_tags: Vec<(String, String)>,
    start_unix_ns: u64,
) -> Result<Shared, ScriptError> {
    let reg = Registry::new();
    let id = |name: &str| reg.metric(name).expect("built-in metric");
    let ids = BuiltinIds {
        checks: id("checks"),
        group_duration: id("group_duration"),
        iteration_duration: id("iteration_duration"),
        iteration_duration_corrected: id("iteration_duration_corrected"),
        iterations: id("iterations"),
    };
    Ok(Shared {
        console_file: RefCell::new(None),
        logger: cfg.logger.clone().unwrap_or_default(),
        rw: RefCell::new(None),
        rps_next: Cell::new(None),
        http: crate::api::HttpDefaults::default(),
        env: cfg.env.clone(),
        script_dir: script_dir.to_path_buf(),
        options_json,
        reg: RefCell::new(reg),
        out: RefCell::new(Outputs::none()),
        vus: RefCell::new(Vec::new()),
        scenarios: scenarios.to_vec(),
        base_tags,
        sys: SystemTags::default(),
        start: Instant::now(),
        start_unix_ns,
        start_at: false,
        seq: Cell::new(0),
        warned: RefCell::new(Vec::new()),
        abort: RefCell::new(None),
        completed: Cell::new(0),
        interrupted: Cell::new(0),
        active: Cell::new(0),
        scenario_iters: RefCell::new(vec![0; scenarios.len()]),
        views: RefCell::new(Vec::new()),
        live: RefCell::new(None),
        progress: cfg.progress && !cfg.quiet,
        quiet: cfg.quiet,
        verbose: cfg.verbose,
        file_http: RefCell::new(HashMap::new()),
        distinct_urls: Cell::new(0),
        http_cache: RefCell::new(HashMap::new()),
        js_heap: Cell::new(0),
        fast: RefCell::new(HashMap::new()),
        fast_http: RefCell::new(HashMap::new()),
        full_http_tags: Cell::new(false),
        fast_file: RefCell::new(HashMap::new()),
        ids,
    })
}

fn new_slot<'js>(
    holder: Object<'js>,
    vu_index: usize,
    scenario: usize,
    exec: &str,
    min_iteration: Option<Duration>,
) -> Result<Slot<'js>, ScriptError> {
    let exec_end = Rc::new(Cell::new(None));
    let co = vu_coroutine(
        holder.clone(),
        vu_index,
        exec,
        min_iteration,
        exec_end.clone(),
    )
    .map_err(|e| ScriptError::Runtime(format!("cannot make a VU stack: {e}")))?;
    Ok(Slot {
        holder,
        co: Some(co),
        busy: false,
        scenario,
        intended: Instant::now(),
        started: Instant::now(),
        exec_end,
        iters: 0,
        op_gen: 0,
    })
}

struct Sched<'a, 'js> {
    shared: &'a Rc<Shared>,
    slots: &'a mut Vec<Slot<'js>>,
    client: &'a Rc<Client>,
    /// Each VU's request in flight, polled by the scheduler when its
    /// waker (`wakers`) queues it in `ready`.
    http: Vec<InFlight>,
    /// The single requests' boxes, reused (see [`Boxes`]).
    boxes: Boxes,
    wakers: Vec<(Arc<VuWaker>, Waker)>,
    ready: Arc<Ready>,
    /// The VUs taken off `ready` for a pass (kept to reuse its memory).
    polling: Vec<usize>,
    script_errors: u64,
    /// Sleeping VUs: (wake-up, VU, op generation), the earliest on top.
    /// The scheduler's one timer wakes for the first, instead of a task
    /// and a timer per sleep (issue #11: CPU per request).
    sleepers: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    /// The deadlines of the requests in flight: (deadline, VU, op
    /// generation), the earliest on top. The requests have no timer of
    /// their own ([`Client::send_polled`]): at its deadline a request is
    /// polled once more, and times out.
    deadlines: BinaryHeap<Reverse<(Instant, usize, u64)>>,
    /// `noVUConnectionReuse` or `--local-ips`: VU `i`'s requests are
    /// polled as owner `i + 1` of their keep-alive connections (see
    /// [`Sched::poll_as`]).
    own_conns: bool,
    /// `noVUConnectionReuse`: a VU's connections are closed when its
    /// iteration ends.
    close_conns: bool,
    /// `--local-ips`: the addresses VUs dial from.
    local_ips: Option<std::sync::Arc<crate::local_ips::IpPool>>,
}

impl<'js> Sched<'_, 'js> {
    /// Who VU `i`'s requests are polled as: `None` unless its connections
    /// are its own (`noVUConnectionReuse`, `--local-ips`); then owner
    /// `i + 1` and, with `--local-ips`, its address (VU n dials from the
    /// pool's address n - 1, as in k6).
    fn owner(&self, i: usize) -> Option<(u32, Option<std::net::IpAddr>)> {
        self.own_conns.then(|| {
            let ip = self
                .local_ips
                .as_ref()
                .map(|p| p.get(i.saturating_sub(1) as u64));
            (owner_of(i), ip)
        })
    }

    /// When the first sleeping VU wakes up, or a request's deadline passes.
    fn next_wake(&self) -> Option<Instant> {
        let s = self.sleepers.peek().map(|r| r.0.0);
        let d = self.deadlines.peek().map(|r| r.0.0);
        match (s, d) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// True while VU `i` still waits for the request of generation `g`.
    fn in_flight(&self, i: usize, g: u64) -> bool {
        self.slots[i].op_gen == g && self.http[i].is_busy()
    }

    /// Queues for a poll the requests whose deadline passed by `now` (the
    /// poll ends them with a timeout).
    fn expire_requests(&mut self, now: Instant) {
        while let Some(&Reverse((t, i, g))) = self.deadlines.peek() {
            if t > now {
                break;
            }
            self.deadlines.pop();
            if self.in_flight(i, g) {
                self.wakers[i].0.queue();
            }
        }
    }

    /// Keeps a request's deadline. Entries of requests that ended are
    /// dropped when they come up, or here once they outnumber the VUs (so
    /// the queue stays as small as the VUs, not as the requests of the
    /// last minute).
    fn add_deadline(&mut self, at: Instant, i: usize, g: u64) {
        if self.deadlines.len() >= 2 * self.slots.len() + 64 {
            let live: Vec<_> = std::mem::take(&mut self.deadlines)
                .into_iter()
                .filter(|&Reverse((_, i, g))| self.in_flight(i, g))
                .collect();
            self.deadlines = live.into();
        }
        self.deadlines.push(Reverse((at, i, g)));
    }

    /// Resumes the VUs whose sleep is over by `now`; the iterations that
    /// thereby ended go to `done`.
    fn wake_sleepers(&mut self, now: Instant, done: &mut Vec<(usize, Result<(), String>)>) {
        while let Some(&Reverse((t, i, g))) = self.sleepers.peek() {
            if t > now {
                break;
            }
            self.sleepers.pop();
            // A VU aborted meanwhile has a newer generation.
            if self.slots[i].op_gen == g
                && let Some(r) = self.resume(i, Resume::Slept)
            {
                done.push((i, r));
            }
        }
    }

    /// Handles what a VU yielded; returns the iteration's end if it ended.
    fn handle(&mut self, i: usize, op: Option<Op>) -> Option<Result<(), String>> {
        let slot = &mut self.slots[i];
        match op {
            None => {
                slot.co = None;
                slot.busy = false;
                Some(Err("the VU ended".into()))
            }
            Some(Op::Done(r)) => {
                slot.busy = false;
                Some(r)
            }
            Some(Op::Sleep(d)) => {
                slot.op_gen += 1;
                self.sleepers
                    .push(Reverse((Instant::now() + d, i, slot.op_gen)));
                None
            }
            Some(Op::Wait(make, at)) => {
                slot.op_gen += 1;
                let g = slot.op_gen;
                let fut = make(self.client.clone());
                let owner = self.owner(i);
                let inflight = &mut self.http[i];
                inflight.start_batch(
                    &mut self.boxes,
                    Box::pin(async move {
                        fut.await;
                        Vec::new()
                    }),
                );
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let boxes = &mut self.boxes;
                if poll_as(owner, || inflight.poll_started(&mut cx, boxes)) {
                    self.wakers[i].0.queue();
                }
                if let Some(at) = at {
                    self.add_deadline(at, i, g);
                }
                None
            }
            Some(Op::Http(mut reqs)) => {
                slot.op_gen += 1;
                let g = slot.op_gen;
                let client = self.client.clone();
                let owner = self.owner(i);
                let begin = Instant::now();
                // Each request is polled at its deadline (a batch's may differ).
                let first = reqs.first().map_or(Duration::ZERO, |r| r.timeout);
                let mut others: Vec<Duration> = reqs
                    .iter()
                    .skip(1)
                    .map(|r| r.timeout)
                    .filter(|&t| t != first)
                    .collect();
                let inflight = &mut self.http[i];
                if reqs.len() == 1 {
                    let r = reqs.pop().expect("one request");
                    inflight.start_one(&mut self.boxes, client, r, begin);
                } else {
                    // Unconstrained: see `inflight::one_request`.
                    inflight.start_batch(
                        &mut self.boxes,
                        Box::pin(tokio::task::unconstrained(send_all(
                            client,
                            reqs,
                            begin,
                            self.shared.http.request.batch_limits(),
                        ))),
                    );
                }
                // Polled at once: the request is written before any other
                // VU runs (and finds the URL the VU just checked parsed).
                // A request that ends here (a bad URL) is handed over by
                // the next pass, not by a resume from inside this one.
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let boxes = &mut self.boxes;
                if poll_as(owner, || inflight.poll_started(&mut cx, boxes)) {
                    self.wakers[i].0.queue();
                }
                self.add_deadline(begin + first, i, g);
                others.sort_unstable();
                others.dedup();
                for t in others {
                    self.add_deadline(begin + t, i, g);
                }
                None
            }
        }
    }

    /// Polls the requests whose wakers fired (and those just made);
    /// resumes the VUs whose responses are complete. Iterations that
    /// thereby ended go to `done`. Returns after a bounded number of
    /// passes so that the runtime's other tasks (HTTP/2 connections) run.
    fn poll_ready(&mut self, done: &mut Vec<(usize, Result<(), String>)>) {
        for _ in 0..16 {
            {
                let mut list = self.ready.list.lock().expect("ready lock");
                if list.is_empty() {
                    return;
                }
                std::mem::swap(&mut *list, &mut self.polling);
            }
            let mut batch = std::mem::take(&mut self.polling);
            for &i in &batch {
                self.wakers[i].0.queued.store(false, Ordering::Release);
                let mut cx = std::task::Context::from_waker(&self.wakers[i].1);
                let owner = self.owner(i);
                let (http, boxes) = (&mut self.http[i], &mut self.boxes);
                let polled = poll_as(owner, || http.poll(&mut cx, boxes));
                if let Poll::Ready(resps) = polled
                    && let Some(r) = self.resume(i, Resume::Http(resps))
                {
                    done.push((i, r));
                }
            }
            batch.clear();
            self.polling = batch;
        }
    }

    /// True when a VU's request made progress and awaits a poll.
    fn has_ready(&self) -> bool {
        !self.ready.list.lock().expect("ready lock").is_empty()
    }

    /// Waits until some VU's request made progress (see [`Ready`]).
    fn wait_ready(&self) -> impl Future<Output = ()> + use<> {
        let ready = self.ready.clone();
        std::future::poll_fn(move |cx| {
            // The waker first, then the check: a wake from another thread
            // (a DNS look-up's) in between still finds the waker.
            {
                let mut w = ready.waker.lock().expect("ready lock");
                match &*w {
                    Some(old) if old.will_wake(cx.waker()) => {}
                    _ => *w = Some(cx.waker().clone()),
                }
            }
            if ready.list.lock().expect("ready lock").is_empty() {
                Poll::Pending
            } else {
                Poll::Ready(())
            }
        })
    }

    fn resume(&mut self, i: usize, input: Resume) -> Option<Result<(), String>> {
        let op = match self.slots[i].co.as_mut() {
            Some(co) => vu::resume(co, input),
            None => None,
        };
        self.handle(i, op)
    }

    fn start_iteration(&mut self, i: usize, intended: Instant) -> Option<Result<(), String>> {
        let now = Instant::now();
        let slot = &mut self.slots[i];
        slot.busy = true;
        slot.intended = intended;
        slot.started = now;
        self.shared.active.set(self.shared.active.get() + 1);
        self.resume(i, Resume::Start)
    }

    /// Books a finished iteration.
    fn finished(&mut self, i: usize, r: Result<(), String>, arrival: bool) {
        let shared = self.shared;
        // As k6 closes a VU's idle connections after each iteration.
        if self.close_conns {
            self.client.close_idle_of(owner_of(i));
        }
        shared.active.set(shared.active.get().saturating_sub(1));
        let slot = &mut self.slots[i];
        slot.iters += 1;
        {
            let mut vus = shared.vus.borrow_mut();
            let m = &mut vus[i];
            m.group.clear();
            m.group_starts.clear();
        }
        // The exception of `exec.test.abort()` ends the test: its reason is
        // the run's error (as in k6), not an iteration's.
        if let Err(e) = &r
            && shared.abort.borrow().is_none()
        {
            self.script_errors += 1;
            if self.script_errors <= 20 {
                // k6's line: the stack, then the VU's executor and scenario.
                let vus = shared.vus.borrow();
                let (name, executor) = vus[i]
                    .scenario
                    .map(|s| {
                        (
                            shared.scenarios[s].0.as_str(),
                            shared.scenarios[s].1.as_str(),
                        )
                    })
                    .unwrap_or(("", ""));
                shared.log(
                    Level::Error,
                    &with_stack_end(e.clone()),
                    &[
                        ("executor", executor),
                        ("scenario", name),
                        ("source", "stacktrace"),
                    ],
                );
            } else if self.script_errors == 21 {
                shared.log(
                    Level::Error,
                    "more exceptions in iterations; only the count is shown from now on",
                    &[],
                );
            }
        }
        shared.completed.set(shared.completed.get() + 1);
        let now = slot.exec_end.take().unwrap_or_else(Instant::now);
        let d = ms(now.saturating_duration_since(slot.started));
        shared.add_vu(i, shared.ids.iteration_duration, d);
        if arrival {
            let c = ms(now.saturating_duration_since(slot.intended.min(slot.started)));
            shared.add_vu(i, shared.ids.iteration_duration_corrected, c);
        }
        shared.add_vu(i, shared.ids.iterations, 1.0);
        // Counted after its samples (their `iter` metadata is its number).
        let mut vus = shared.vus.borrow_mut();
        let m = &mut vus[i];
        m.iter_in_scenario += 1;
        m.iter_in_instance += 1;
    }

    /// Stops a busy VU now.
    fn abort(&mut self, i: usize) {
        // Dropping a request in flight closes its connection.
        self.http[i].clear(&mut self.boxes);
        if self.close_conns {
            self.client.close_idle_of(owner_of(i));
        }
        self.slots[i].op_gen += 1;
        vu::ABORTING.with(|a| a.set(true));
        let mut r = self.resume(i, Resume::Abort);
        let mut guard = 0;
        while r.is_none() && self.slots[i].busy && guard < 1000 {
            // It asked for more (a catch around the call): keep refusing.
            self.http[i].clear(&mut self.boxes);
            self.slots[i].op_gen += 1;
            r = self.resume(i, Resume::Abort);
            guard += 1;
        }
        vu::ABORTING.with(|a| a.set(false));
        self.slots[i].busy = false;
        self.shared
            .active
            .set(self.shared.active.get().saturating_sub(1));
        self.shared
            .interrupted
            .set(self.shared.interrupted.get() + 1);
    }
}

/// Per-scenario schedule state.
struct ScenState {
    start: Instant,
    end: Instant,
    hard_end: Instant,
    /// Shared-iterations: iterations left to hand out.
    left: u64,
    /// Arrival-rate: the next arrival's number.
    next_arrival: u64,
    /// Arrival-rate: k6's "Insufficient VUs" warning was printed.
    warned_vus: bool,
    done: bool,
    vus: std::ops::Range<usize>,
    /// Iterations running now.
    busy: usize,
    /// Closed executors: how many of the scenario's VUs are wanted (the
    /// first ones); VUs that finished an iteration since the last step.
    active_want: usize,
    freed: Vec<usize>,
    /// Per-VU iterations: VUs that did all theirs.
    vus_done: usize,
    /// Arrival-rate: free VUs (the lowest on top).
    idle: Vec<usize>,
    /// Ramping-vus: no VU from this many on (in the scenario) is busy.
    ramped_high: usize,
    /// Ramping-vus: when the VUs above the ramp's level are looked at next.
    ramp_check: Instant,
    /// Iterations that ended (for the progress lines).
    iters_done: u64,
    /// When it was over (all its iterations ended).
    finished_at: Option<Instant>,
}

impl ScenState {
    /// What the progress lines show of the scenario at `now`.
    fn view(&self, sc: &Scenario, now: Instant) -> crate::progress::ScenView {
        use crate::progress::{ScenView, Status};
        let mut v = ScenView {
            running: self.busy as u64,
            level: self.active_want as u64,
            iters_done: self.iters_done,
            ..ScenView::default()
        };
        if let Executor::RampingArrivalRate {
            start_rate,
            time_unit,
            stages,
            ..
        } = &sc.executor
        {
            // The rate the ramp is at now.
            let t = now.saturating_duration_since(self.start);
            let rate = crate::options::ramp_level(*start_rate, stages, t).0;
            v.rate_now = rate / time_unit.as_secs_f64().max(1e-9);
        }
        if now < self.start {
            v.status = Status::Waiting;
            v.wait_left = self.start - now;
        } else if let Some(at) = self.finished_at {
            v.status = Status::Done;
            v.spent = at - self.start;
        } else if now >= self.start + sc.executor.duration() {
            // Its duration is over, its last iterations finishing: its
            // figures are the ones just past its duration.
            v.status = Status::Stopping;
            v.spent = sc.executor.duration() + Duration::from_nanos(1);
        } else {
            v.spent = now - self.start;
        }
        v
    }
}

async fn drive<'js>(
    shared: &Rc<Shared>,
    options: &Options,
    slots: &mut Vec<Slot<'js>>,
    client: &Rc<Client>,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Result<RunOutcome, ScriptError> {
    drive_local(shared, options, slots, client, shutdown.as_mut()).await
}

async fn drive_local<'js>(
    shared: &Rc<Shared>,
    options: &Options,
    slots: &mut Vec<Slot<'js>>,
    client: &Rc<Client>,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
) -> Result<RunOutcome, ScriptError> {
    let ready = Arc::new(Ready::default());
    let wakers = (0..slots.len())
        .map(|vu| {
            let w = Arc::new(VuWaker {
                vu,
                queued: AtomicBool::new(false),
                ready: ready.clone(),
            });
            (w.clone(), Waker::from(w))
        })
        .collect();
    let mut s = Sched {
        shared,
        http: (0..slots.len()).map(|_| InFlight::default()).collect(),
        boxes: Boxes::default(),
        slots,
        client,
        wakers,
        ready,
        polling: Vec::new(),
        script_errors: 0,
        sleepers: BinaryHeap::new(),
        deadlines: BinaryHeap::new(),
        own_conns: shared.http.request.no_vu_connection_reuse || options.local_ips.is_some(),
        close_conns: shared.http.request.no_vu_connection_reuse,
        local_ips: options.local_ips.clone(),
    };
    let mut interrupted = false;

    // setup()
    let has = |name: &str| -> bool {
        s.slots[0]
            .holder
            .get::<_, Object>("ns")
            .ok()
            .and_then(|ns| ns.get::<_, Function>(name).ok())
            .is_some()
    };
    let has_setup = has("setup") && !options.no_setup;
    let mut has_teardown = has("teardown") && !options.no_teardown;
    if has_setup {
        let r = run_special(&mut s, shutdown.as_mut(), options.setup_timeout, "setup").await;
        match r {
            Some(Ok(())) => {}
            Some(Err(e)) => return Err(ScriptError::Script(format!("setup() failed: {e}"))),
            None => {
                // No data for teardown: it does not run.
                interrupted = true;
                has_teardown = false;
            }
        }
    }
    // The data, as JSON, to every VU.
    let data_json = {
        let ctx = s.slots[0].holder.ctx();
        let v: Value = s.slots[0]
            .holder
            .get("result")
            .unwrap_or_else(|_| Value::new_undefined(ctx.clone()));
        if v.is_undefined() {
            None
        } else {
            ctx.json_stringify(v)
                .ok()
                .flatten()
                .and_then(|s| s.to_string().ok())
        }
    };
    for slot in s.slots.iter() {
        let data = match &data_json {
            Some(j) => slot.holder.ctx().json_parse(j.clone()).ok(),
            None => None,
        };
        if let Some(d) = data {
            slot.holder.set("data", d).ok();
        }
    }

    // --start-at: the scenarios start on the common instant (a precise
    // timer: tokio's is 1 ms coarse). Ctrl-C while waiting ends the run.
    let t0 = if shared.start_at {
        let at = shared.start;
        if !interrupted && at > Instant::now() {
            let mut sleeper = loadlab_engine::PreciseSleep::new();
            tokio::select! {
                _ = sleeper.until(at) => {}
                _ = shutdown.as_mut() => interrupted = true,
            }
        }
        let late = Instant::now().saturating_duration_since(at);
        if late > Duration::from_secs(1) && !interrupted {
            shared.log(
                Level::Warning,
                &format!(
                    "the scenarios start {} after --start-at (init and setup() took longer than the time left): iterations already due start at once or are dropped; give the workers more time",
                    loadlab_core::format_go_duration(Duration::from_millis(
                        late.as_millis() as u64
                    ))
                ),
                &[],
            );
        }
        at
    } else {
        Instant::now()
    };
    shared.out.borrow_mut().start(unix_now_ns());
    // `__ITER` exists while the scenarios run (api.rs, ITER_GLOBAL_JS).
    let ctx0 = s.slots[0].holder.ctx().clone();
    let iter_global = |on: bool| {
        let _ = crate::api::k6_helper(&ctx0, "iterGlobal").and_then(|f| f.call::<_, ()>((on,)));
    };
    iter_global(true);
    let mut states = Vec::new();
    let mut next_vu = 1usize;
    for sc in &options.scenarios {
        let n = sc.executor.max_vus() as usize;
        let start = t0 + sc.start_time;
        let end = start + sc.executor.duration();
        let left = match &sc.executor {
            Executor::SharedIterations { iterations, .. } => *iterations,
            _ => u64::MAX,
        };
        states.push(ScenState {
            start,
            end,
            hard_end: end + sc.graceful_stop,
            left,
            next_arrival: 0,
            warned_vus: false,
            done: false,
            vus: next_vu..next_vu + n,
            busy: 0,
            active_want: 0,
            freed: Vec::new(),
            vus_done: 0,
            idle: (next_vu..next_vu + n).rev().collect(),
            ramped_high: 0,
            ramp_check: start,
            iters_done: 0,
            finished_at: None,
        });
        next_vu += n;
    }
    let vus_max = (next_vu - 1) as f64;
    // k6 samples vus and vus_max each second from 1 s on (a test shorter
    // than a second has none).
    let mut next_gauge = t0 + Duration::from_secs(1);
    let mut next_threshold_check = t0 + Duration::from_secs(2);
    let mut aborted_by_threshold = false;
    let mut pending_done: Vec<(usize, Result<(), String>)> = Vec::new();
    if shared.progress {
        *shared.live.borrow_mut() = Some(crate::progress::Live::for_stdout());
    }
    // The live progress lines' next drawing.
    let mut next_progress = shared.live.borrow().as_ref().map(|l| t0 + l.every);
    // One timer for the loop, moved only when the next wake-up changes
    // (a timer made per loop turn cost more than the HTTP requests' own);
    // a timerfd, not tokio's timer (see `WakeTimer`).
    let mut timer = loadlab_engine::WakeTimer::new();
    // Wake-ups fall on a 1 ms grid from the test's start (as tokio's timer
    // wheel put them): sleeps that end within the same millisecond end in
    // one wake-up.
    let on_ms_grid = |t: Instant| {
        let ns = t.saturating_duration_since(t0).as_nanos();
        t0 + Duration::from_nanos((ns.div_ceil(1_000_000) * 1_000_000) as u64)
    };
    // Ramps are followed on a 20 ms grid.
    let grid = |now: Instant| {
        let step = Duration::from_millis(20);
        let n = now.saturating_duration_since(t0).as_nanos() / step.as_nanos() + 1;
        t0 + step * n as u32
    };

    if !interrupted {
        loop {
            s.expire_requests(Instant::now());
            s.poll_ready(&mut pending_done);
            let now = Instant::now();
            s.wake_sleepers(now, &mut pending_done);
            // Book iterations that ended.
            for (i, r) in pending_done.drain(..) {
                let sc = s.slots[i].scenario;
                let ex = &options.scenarios[sc].executor;
                let arrival = ex.is_arrival_rate();
                s.finished(i, r, arrival);
                let st = &mut states[sc];
                st.busy = st.busy.saturating_sub(1);
                st.iters_done += 1;
                if arrival {
                    st.idle.push(i);
                } else {
                    st.freed.push(i);
                    if let Executor::PerVuIterations { iterations, .. } = ex
                        && s.slots[i].iters == *iterations
                    {
                        st.vus_done += 1;
                    }
                }
            }
            if now >= next_gauge {
                let active = shared.active.get() as f64;
                shared.add_named("vus", active, shared.base_tags.clone(), true);
                shared.add_named("vus_max", vus_max, shared.base_tags.clone(), true);
                shared.out.borrow_mut().flush();
                next_gauge = now + Duration::from_secs(1);
            }
            shared.rw_push_due(now);
            if now >= next_threshold_check {
                next_threshold_check = now + Duration::from_secs(2);
                if crate::thresholds::eval::abort_failed(
                    &shared.reg.borrow(),
                    options,
                    shared.start.elapsed(),
                ) {
                    aborted_by_threshold = true;
                    break;
                }
            }
            if shared.abort.borrow().is_some() {
                break;
            }
            // Executors.
            let mut wake = next_gauge.min(next_threshold_check);
            let mut all_done = true;
            for (si, sc) in options.scenarios.iter().enumerate() {
                let st = &mut states[si];
                if st.done {
                    continue;
                }
                all_done = false;
                if now < st.start {
                    wake = wake.min(st.start);
                    continue;
                }
                let elapsed = now - st.start;
                let running_out = now >= st.end;
                match &sc.executor {
                    Executor::ConstantArrivalRate { .. } | Executor::RampingArrivalRate { .. } => {
                        loop {
                            // This instance's arrivals are its stripe of
                            // the whole test's (`--execution-segment`), at
                            // their whole-test times.
                            let global = match sc.segment.as_ref().and_then(|g| g.arrivals.as_ref())
                            {
                                Some(stripe) => stripe.nth(st.next_arrival),
                                None => Some(st.next_arrival),
                            };
                            let Some((k, at)) =
                                global.and_then(|k| Some((k, arrival_at(&sc.executor, k)?)))
                            else {
                                st.end = st.end.min(now);
                                break;
                            };
                            let due = st.start + at;
                            if due > now {
                                wake = wake.min(due);
                                break;
                            }
                            st.next_arrival += 1;
                            match st.idle.pop() {
                                Some(i) => {
                                    shared.vus.borrow_mut()[i].arrival = Some(k);
                                    st.busy += 1;
                                    if let Some(r) = s.start_iteration(i, due) {
                                        pending_done.push((i, r));
                                    }
                                }
                                None => {
                                    if !st.warned_vus {
                                        // k6's warning, once per scenario.
                                        st.warned_vus = true;
                                        shared.log(
                                            Level::Warning,
                                            &format!(
                                                "Insufficient VUs, reached {} active VUs and cannot \
                                                 initialize more",
                                                st.busy,
                                            ),
                                            &[
                                                ("executor", sc.executor.name()),
                                                ("scenario", &sc.name),
                                            ],
                                        );
                                    }
                                    let tags = {
                                        let mut t = shared.base_tags.clone();
                                        if shared.sys.has(SystemTags::SCENARIO) {
                                            t.push(("scenario".into(), sc.name.clone()));
                                        }
                                        t
                                    };
                                    shared.add_named("dropped_iterations", 1.0, tags, true);
                                }
                            }
                        }
                    }
                    ex => {
                        if !running_out {
                            let want = match ex {
                                Executor::ConstantVus { vus, .. } => *vus as usize,
                                Executor::RampingVus { .. } => ramp_vus(sc, elapsed) as usize,
                                Executor::SharedIterations { vus, .. }
                                | Executor::PerVuIterations { vus, .. } => *vus as usize,
                                _ => 0,
                            };
                            // A moving ramp is followed on the grid; a flat
                            // stage wakes the loop only where it ends.
                            if matches!(ex, Executor::RampingVus { .. }) {
                                wake = wake.min(match ramp_flat_until(sc, elapsed) {
                                    Some(end) => st.start.checked_add(end).unwrap_or(st.end),
                                    None => grid(now),
                                });
                            }
                            let want = want.min(st.vus.len());
                            // Only VUs that just finished, and those newly
                            // wanted by a ramp, may start now.
                            let mut cand = std::mem::take(&mut st.freed);
                            if want > st.active_want {
                                cand.extend(st.vus.start + st.active_want..st.vus.start + want);
                            }
                            st.active_want = want;
                            st.ramped_high = st.ramped_high.max(want);
                            for i in cand {
                                if i - st.vus.start >= want
                                    || s.slots[i].busy
                                    || s.slots[i].co.is_none()
                                {
                                    continue;
                                }
                                let may = match ex {
                                    Executor::SharedIterations { .. } => {
                                        if st.left == 0 {
                                            false
                                        } else {
                                            st.left -= 1;
                                            true
                                        }
                                    }
                                    Executor::PerVuIterations { iterations, .. } => {
                                        s.slots[i].iters < *iterations
                                    }
                                    _ => true,
                                };
                                if may {
                                    st.busy += 1;
                                    if let Some(r) = s.start_iteration(i, now) {
                                        pending_done.push((i, r));
                                    }
                                }
                            }
                            // Iteration-count executors end when all is done.
                            let finished = match ex {
                                Executor::SharedIterations { .. } => st.left == 0,
                                Executor::PerVuIterations { iterations, .. } => {
                                    st.vus_done >= st.vus.len() || *iterations == 0
                                }
                                _ => false,
                            };
                            if finished {
                                st.end = now;
                            }
                        }
                        // (Past the end, the graceful stop's deadline below
                        // is the one to wake for: a past instant would spin.)
                        if matches!(ex, Executor::RampingVus { .. }) {
                            let level = if running_out { 0 } else { st.active_want };
                            // gracefulRampDown: the VUs above the ramp's
                            // level that are still busy when it is over are
                            // interrupted (looked at on the 20 ms grid).
                            if st.ramped_high > level && now >= st.ramp_check {
                                let allowed =
                                    (ramp_vus_allowed(sc, elapsed) as usize).min(st.vus.len());
                                let mut high = level;
                                for k in level..st.ramped_high {
                                    let i = st.vus.start + k;
                                    if !s.slots[i].busy {
                                        continue;
                                    }
                                    if k >= allowed {
                                        s.abort(i);
                                        st.busy = st.busy.saturating_sub(1);
                                    } else {
                                        high = k + 1;
                                    }
                                }
                                st.ramped_high = high;
                                st.ramp_check = grid(now);
                            }
                            if st.ramped_high > level {
                                wake = wake.min(st.ramp_check);
                            }
                        }
                    }
                }
                if now >= st.end {
                    if st.busy == 0 {
                        st.done = true;
                        st.finished_at = Some(now);
                    } else if now >= st.hard_end {
                        let busy: Vec<usize> =
                            st.vus.clone().filter(|&i| s.slots[i].busy).collect();
                        for i in busy {
                            s.abort(i);
                        }
                        st.busy = 0;
                        st.done = true;
                        st.finished_at = Some(now);
                    } else {
                        wake = wake.min(st.hard_end);
                    }
                } else {
                    wake = wake.min(st.end);
                }
            }
            // A scenario may have ended in this very pass.
            all_done = all_done || states.iter().all(|st| st.done);
            if all_done && pending_done.is_empty() {
                break;
            }
            // The live progress lines (drawn under load too).
            if let Some(at) = next_progress {
                if now >= at {
                    let views: Vec<_> = options
                        .scenarios
                        .iter()
                        .zip(&states)
                        .map(|(sc, st)| st.view(sc, now))
                        .collect();
                    let (head, bars) = progress_block(shared, options, &views, now - t0);
                    if let Some(live) = shared.live.borrow_mut().as_mut() {
                        live.draw(&head, &bars);
                    }
                    *shared.views.borrow_mut() = views;
                }
                let every = shared
                    .live
                    .borrow()
                    .as_ref()
                    .map_or(Duration::from_secs(1), |l| l.every);
                // On the clock's grid from the test's start (1.0s, 2.0s, …).
                let n =
                    (now.saturating_duration_since(t0).as_nanos() / every.as_nanos()) as u32 + 1;
                next_progress = Some(t0 + every * n);
                wake = wake.min(t0 + every * n);
            }
            if !pending_done.is_empty() || s.has_ready() {
                continue;
            }
            wake = wake.min(next_gauge).min(next_threshold_check);
            if let Some(t) = shared.rw_next() {
                wake = wake.min(t);
            }
            if let Some(t) = s.next_wake() {
                wake = wake.min(t);
            }
            timer.set(on_ms_grid(wake));
            // Wait for an answer, the next schedule point, or Ctrl-C.
            tokio::select! {
                // Polled at the top of the loop.
                _ = s.wait_ready() => {}
                _ = timer.fired() => {}
                _ = shutdown.as_mut() => {
                    interrupted = true;
                    break;
                }
            }
        }
        for (i, r) in pending_done.drain(..) {
            let sc = s.slots[i].scenario;
            let arrival = options.scenarios[sc].executor.is_arrival_rate();
            s.finished(i, r, arrival);
        }
        // Whatever still runs (Ctrl-C, abort) is interrupted.
        for i in 1..s.slots.len() {
            if s.slots[i].busy {
                s.abort(i);
            }
        }
    }
    // The scenarios as the test ended, for the summary's last lines: one
    // cut short (Ctrl-C, an abort) shows where it was; one over without all
    // its work done (iterations left at its maxDuration) is interrupted too,
    // as in k6.
    {
        let now = Instant::now();
        let views = options
            .scenarios
            .iter()
            .zip(&states)
            .map(|(sc, st)| {
                use crate::progress::Status;
                let mut v = st.view(sc, now);
                // Every VU has returned (k6 counts none active now).
                v.level = 0;
                v.running = 0;
                let unfinished = match v.status {
                    Status::Done => crate::progress::bar(sc, &v).progress < 1.0,
                    Status::Waiting => false,
                    _ => true,
                };
                if unfinished {
                    v.status = Status::Interrupted;
                }
                v
            })
            .collect();
        *shared.views.borrow_mut() = views;
        if let Some(live) = shared.live.borrow_mut().as_mut() {
            live.finish();
        }
        *shared.live.borrow_mut() = None;
    }
    let test_elapsed = t0.elapsed();
    iter_global(false);
    // As in k6, teardown runs after Ctrl-C too (with the data setup gave).
    if has_teardown {
        match run_special(
            &mut s,
            shutdown.as_mut(),
            options.teardown_timeout,
            "teardown",
        )
        .await
        {
            // k6's line for an exception in teardown().
            Some(Err(e)) => shared.log(
                Level::Error,
                &with_stack_end(e),
                &[("hint", "script exception")],
            ),
            None => interrupted = true,
            _ => {}
        }
    }
    // k6's warning for a test in which no iteration ended (not after a
    // stop: Ctrl-C, a threshold's abortOnFail, exec.test.abort).
    if !interrupted
        && !aborted_by_threshold
        && shared.abort.borrow().is_none()
        && shared.completed.get() == 0
    {
        shared.log(
            Level::Warning,
            "No script iterations fully finished, consider making the test duration longer",
            &[],
        );
    }
    // The remote-write output's last push, after teardown (as k6 stops
    // its outputs).
    shared.rw_finish();
    let script_errors = s.script_errors;
    let mut summary = crate::summary::render(shared, options, test_elapsed);
    if options.summary_disabled {
        // `--summary-mode=disabled`: thresholds still judge the run; the
        // last progress lines still show (as in k6).
        summary.0 = crate::summary::last_block(shared, options, test_elapsed);
    } else if let Some(text) =
        crate::summary::handle_summary(s.slots[0].holder.ctx(), shared, options, test_elapsed)
    {
        // The script's handleSummary(data), when it has one, replaces the
        // default summary (as in k6), above the last progress lines.
        summary.0 = text + &crate::summary::last_block(shared, options, test_elapsed);
    }
    let thresholds_crossed = std::mem::take(&mut summary.1);
    let thresholds_failed = !thresholds_crossed.is_empty();
    let export = crate::summary::export_json(shared, options, test_elapsed);
    shared.out.borrow_mut().finish(export)?;
    let reg = shared.reg.borrow();
    let count = |name: &str| {
        reg.metric(name)
            .map(|m| match reg.merged(m, &[]) {
                crate::metrics::Agg::Counter { sum, .. } => sum as u64,
                _ => 0,
            })
            .unwrap_or(0)
    };
    Ok(RunOutcome {
        summary: summary.0,
        thresholds_failed,
        thresholds_crossed,
        interrupted,
        aborted_by_threshold,
        aborted: shared.abort.borrow().clone(),
        iterations: count("iterations"),
        script_errors,
        http_reqs: count("http_reqs"),
        js_heap_bytes: shared.js_heap.get(),
        vus_initialised: s.slots.len() as u64,
    })
}

/// Runs setup() or teardown() on VU 0; `None` when interrupted.
async fn run_special<'js>(
    s: &mut Sched<'_, 'js>,
    mut shutdown: std::pin::Pin<&mut (impl Future<Output = ()> + ?Sized)>,
    timeout: Duration,
    phase: &str,
) -> Option<Result<(), String>> {
    s.slots[0].holder.set("phase", phase).ok();
    s.slots[0].busy = true;
    s.shared.active.set(s.shared.active.get() + 1);
    let deadline = Instant::now() + timeout;
    let mut r = s.resume(0, Resume::Start);
    loop {
        if r.is_none() {
            let mut ended = Vec::new();
            s.expire_requests(Instant::now());
            s.poll_ready(&mut ended);
            s.wake_sleepers(Instant::now(), &mut ended);
            r = ended.into_iter().find(|(i, _)| *i == 0).map(|(_, d)| d);
        }
        if let Some(done) = r {
            s.shared.active.set(s.shared.active.get().saturating_sub(1));
            // Make the next call (teardown) possible: swap the body.
            return Some(done);
        }
        if s.has_ready() {
            continue;
        }
        let next = s.next_wake().map_or(deadline, |t| t.min(deadline));
        tokio::select! {
            _ = s.wait_ready() => {
                r = None;
            }
            _ = tokio::time::sleep_until(next) => {
                r = None;
                if Instant::now() >= deadline {
                    s.abort(0);
                    return Some(Err(format!("timed out after {timeout:?}")));
                }
            }
            _ = shutdown.as_mut() => {
                s.abort(0);
                return None;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A member named in a string, a template literal's text or a comment
    /// is not a use; one in a template's `${…}` or in code is, with its
    /// line and column.
    #[test]
    fn members_are_looked_for_in_code_only() {
        let ok = "import html from 'k6/html';\n\
                  const s = \"[object html.Node]\" + 'html.nope\\'s';\n\
                  // html.bogus()\n\
                  /* html.gone() */\n\
                  const t = `a html.x ${html.parseHTML(`b html.y ${'html.z'}`)} c html.w`;\n";
        assert!(check_members(ok, "s.js").is_ok());
        let bad = "import http from 'k6/http';\nconst t = `a ${ {x: 1}.x } ${http.asyncGet('GET', 'u')}`;\n";
        match check_members(bad, "s.js") {
            Err(ScriptError::Unsupported(m)) => {
                assert!(m.starts_with("s.js:2:30: http.asyncGet"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        // Positions are kept: the blanked text is as long as the source.
        let src = "const é = 'ü'; // ß\n";
        assert_eq!(code_only(src).len(), src.len());
    }
}
