//! The run's set-up: the script read, its options resolved, the shared
//! state, the outputs and the VUs made; then the schedule is driven.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Waker;
use std::time::Duration;

use loadlab_engine::client::Client;
use rquickjs::loader::BuiltinResolver;
use rquickjs::{Object, Runtime, Value};
use tokio::time::Instant;

use crate::ScriptError;
use crate::config::Options;
use crate::js::exec::{init_vu, vu_coroutine};
use crate::js::loader::{Builtins, K6Loader, LocalResolver, new_context};
use crate::js::runtime::RawRuntime;
use crate::js::vu::{self, Op, Resume};
use crate::log::Level;
use crate::modules::imports::check_members;
use crate::out::Outputs;
use crate::registry::Registry;
use crate::system_tags::SystemTags;

use crate::log::unix_now_ns;
use crate::run::config::*;
use crate::run::drive::*;
use crate::state::run_state::*;
use crate::state::run_state::{RunState, ScenarioMeta, VuMeta};
use crate::vus::sched::*;
use crate::vus::wake::*;

/// Runs a script: init, setup, scenarios, teardown, summary.
pub fn run(cfg: RunConfig, shutdown: impl Future<Output = ()>) -> Result<RunOutcome, ScriptError> {
    let name = cfg.script.display().to_string();
    let source = read_script(&cfg, &name)?;
    let script_dir = script_dir_of(&cfg.script);

    let rt = new_runtime(&script_dir, &cfg.stop)?;
    // Wakes the interrupt handler (see `vus::watchdog`) while the run lasts.
    let _ticker = cfg.stop.ticker();

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
    crate::modules::http::response::register_class(raw_rt).map_err(ScriptError::Runtime)?;

    let (start, start_unix_ns) = start_instants(&cfg);

    // Evaluate once to get the options (a throwaway RunState: metrics defined
    // here are defined again by each VU).
    let probe_shared = Rc::new(make_shared(
        &cfg,
        &script_dir,
        String::new(),
        &[],
        Tags::new(),
        0,
    )?);
    probe_shared.vus.borrow_mut().push(VuMeta::default());
    let options_json = probe_options(&ctx0, &probe_shared, &name, &source, &code)?;
    drop(ctx0);
    let opts_value: serde_json::Value =
        serde_json::from_str(&options_json).unwrap_or(serde_json::Value::Null);
    // The configuration file's options under the script's.
    let opts_value = crate::config::file::under(cfg.overrides.config.as_ref(), opts_value);
    let options = Options::resolve(&opts_value, &cfg.overrides)?;
    crate::thresholds::eval::check(&options, &probe_shared.reg.borrow())?;
    let maps = crate::js::source_map::take_warnings();
    for w in options.warnings.iter().chain(&maps) {
        probe_shared.log(Level::Warning, w, &[]);
    }
    if cfg.progress && !cfg.quiet {
        print_banner(&cfg, &options);
    }
    let (shared_v, console_file) = run_shared(
        &cfg,
        &options,
        &opts_value,
        &script_dir,
        (start, start_unix_ns),
    )?;
    let shared = Rc::new(shared_v);

    // The run's context, where every VU's code runs (made before entering
    // the runtime: making one locks it).
    let context = new_context(&rt).map_err(|e| ScriptError::Runtime(e.to_string()))?;
    let client = Rc::new(make_client(&options)?);
    let total: usize = options
        .scenarios
        .iter()
        .map(|s| s.executor.max_vus() as usize)
        .sum();

    let mut shutdown = Box::pin(gated(once_with(shutdown, cfg.stop.clone())));
    let result = context.with(|ctx| -> Result<RunOutcome, ScriptError> {
        let mut slots: Vec<Slot<'_>> = Vec::with_capacity(total + 1);
        {
            let mut vus = shared.vus.borrow_mut();
            vus.push(VuMeta::default());
        }
        let scenario_env: Vec<Vec<(String, String)>> =
            options.scenarios.iter().map(|sc| sc.env.clone()).collect();
        crate::modules::install(&ctx, &shared, &scenario_env)
            .map_err(|e| ScriptError::Runtime(format!("cannot set up the k6 API: {e}")))?;
        let holder = init_vu(&ctx, 0, &name, &source, &code)?;
        slots.push(new_slot(holder, 0, usize::MAX, "setup", None)?);
        // Init makes no garbage worth a collection, but QuickJS would run
        // one each time the heap grew by half: with thousands of VUs that
        // is many passes over an ever larger heap. Collect after init.
        raw_rt.set_gc_threshold(usize::MAX);
        init_scenario_vus(&ctx, &shared, &options, (&name, &source, &code), &mut slots)?;
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
            &cfg.stop,
            shutdown.as_mut(),
        ));
        end_coroutines(&mut slots);
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

/// The code of the script `name`, read (its file, or standard input for
/// `-`), prepared (TypeScript's types stripped, see `js::source`) and
/// checked for what loadlab k6 lacks.
fn read_script(cfg: &RunConfig, name: &str) -> Result<String, ScriptError> {
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
    let source = crate::js::source::prepare(source, name)?;
    check_members(&source, name).map_err(crate::js::source::remap_error)?;
    Ok(source)
}

/// The run's QuickJS runtime, its loader answering the k6 modules and the
/// script's local modules (relative to `script_dir`).
fn new_runtime(
    script_dir: &std::path::Path,
    stop: &crate::StopSwitch,
) -> Result<Runtime, ScriptError> {
    let rt = Runtime::new().map_err(|e| ScriptError::Runtime(e.to_string()))?;
    let mut resolver = BuiltinResolver::default();
    for (m, _) in crate::modules::MODULES {
        resolver.add_module(*m);
    }
    rt.set_loader(
        (
            resolver,
            LocalResolver {
                script_dir: script_dir.to_path_buf(),
                jslib: crate::modules::JSLIB,
            },
        ),
        K6Loader::new(Builtins {
            modules: crate::modules::MODULES,
            jslib: crate::modules::JSLIB,
        }),
    );
    rt.set_interrupt_handler(Some(stop.handler()));
    Ok(rt)
}

/// The script's `options` as JSON (`null` when it exports none), read in
/// the probe's context `ctx0` by evaluating the script once.
fn probe_options(
    ctx0: &rquickjs::Context,
    probe_shared: &Rc<RunState>,
    name: &str,
    source: &str,
    code: &RefCell<Option<Vec<u8>>>,
) -> Result<String, ScriptError> {
    ctx0.with(|ctx| -> Result<String, ScriptError> {
        crate::modules::install(&ctx, probe_shared, &[])
            .map_err(|e| ScriptError::Runtime(format!("cannot set up the k6 API: {e}")))?;
        let holder = init_vu(&ctx, 0, name, source, code)?;
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
    })
}

/// The run's `RunState`, its outputs open, and the `--console-output` file
/// (opened now: a bad path is refused before any VU starts).
fn run_shared(
    cfg: &RunConfig,
    options: &Options,
    opts_value: &serde_json::Value,
    script_dir: &std::path::Path,
    (start, start_unix_ns): (Instant, u64),
) -> Result<(RunState, Option<std::fs::File>), ScriptError> {
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
        worker_header(cfg, options),
        options.system_tags,
    )?;
    outputs.declare_thresholds(options);

    let scen_meta = scenario_meta(options);
    // What the script sees (`exec.test.options`): its options under the flags.
    let options_json = crate::config::layer::with_flags(opts_value, &cfg.overrides).to_string();
    let mut shared_v = make_shared(
        cfg,
        script_dir,
        options_json,
        &scen_meta,
        options.tags.clone().into(),
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
    let request_subs = keep_request_submetrics(&shared_v, options);
    shared_v
        .full_http_tags
        .set(shared_v.out.borrow().has_points() || cfg.prometheus_rw.is_some() || request_subs);
    shared_v.http_series_full.set(cfg.prometheus_rw.is_some());
    shared_v.http = crate::state::request::HttpDefaults {
        max_redirects: options.max_redirects,
        request: options.request.clone(),
        name_tag: options.system_tags.has(SystemTags::NAME),
        blocklist: std::sync::Arc::new(options.blocklist.clone()),
        hosts: options.hosts.clone(),
        tls: tls_options(options),
    };
    if cfg.start_at_unix_ns.is_some() {
        shared_v.start = start;
        shared_v.start_at = true;
    }
    Ok((shared_v, console_file))
}

pub(crate) fn make_shared(
    cfg: &RunConfig,
    script_dir: &std::path::Path,
    options_json: String,
    scenarios: &[ScenarioMeta],
    base_tags: Tags,
    start_unix_ns: u64,
) -> Result<RunState, ScriptError> {
    let reg = Registry::new();
    let id = |name: &str| reg.metric(name).expect("built-in metric");
    let ids = BuiltinIds {
        checks: id("checks"),
        group_duration: id("group_duration"),
        iteration_duration: id("iteration_duration"),
        iteration_duration_corrected: id("iteration_duration_corrected"),
        iterations: id("iterations"),
    };
    Ok(RunState {
        console_file: RefCell::new(None),
        logger: cfg.logger.clone().unwrap_or_default(),
        secrets: cfg.secret_sources.clone(),
        rw: RefCell::new(None),
        rps_next: Cell::new(None),
        http: crate::state::request::HttpDefaults::default(),
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
        live_out: cfg.live_out.clone(),
        live_last: RefCell::new(None),
        quiet: cfg.quiet,
        verbose: cfg.verbose,
        base_mode: cfg.base_mode,
        file_http: RefCell::new(HashMap::new()),
        distinct_urls: Cell::new(0),
        http_cache: RefCell::new(HashMap::new()),
        js_heap: Cell::new(0),
        fast: RefCell::new(HashMap::new()),
        fast_http: RefCell::new(HashMap::new()),
        full_http_tags: Cell::new(false),
        http_series_full: Cell::new(false),
        fast_file: RefCell::new(HashMap::new()),
        ids,
    })
}

pub(crate) fn new_slot<'js>(
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

/// The folder of the script (its relative imports and `open()`).
fn script_dir_of(script: &std::path::Path) -> PathBuf {
    script
        .parent()
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        })
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The TLS the options ask for.
fn tls_options(options: &Options) -> loadlab_engine::config::TlsOptions {
    loadlab_engine::config::TlsOptions {
        insecure: options.request.insecure_skip_tls_verify,
        versions: options.tls_versions,
        cipher_suites_12: options.tls_cipher_suites.clone(),
        client_pems: options.tls_auth.clone(),
        ..Default::default()
    }
}

/// The HTTP client of the VUs, as the options make it.
fn make_client(options: &Options) -> Result<Client, ScriptError> {
    Client::new(&loadlab_engine::AttackConfig {
        timeout: Duration::from_secs(60),
        // As k6: no `Accept-Encoding: gzip` of our own (the engine
        // decodes only the gzip it asked for, so a script reads bodies as
        // they came).
        compression: false,
        keepalive: !options.request.no_connection_reuse,
        hosts: options.hosts.clone(),
        dns_cache: options.dns.ttl,
        dns_pick: Some(std::sync::Arc::new(loadlab_engine::dns_pick::DnsPick::new(
            options.dns.select,
            options.dns.policy,
        ))),
        blocklist: Some(std::sync::Arc::new(options.blocklist.clone())),
        tls: tls_options(options),
        ..Default::default()
    })
    .map_err(|e| ScriptError::Runtime(e.to_string()))
}

/// Ends every VU's coroutine (they borrow the context): a busy one is
/// aborted first.
fn end_coroutines(slots: &mut [Slot<'_>]) {
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
}

/// The scenarios' start, as an instant and in ns since the Unix epoch:
/// with --start-at, the test (and every offset in the results) counts
/// from that instant, on every worker.
fn start_instants(cfg: &RunConfig) -> (Instant, u64) {
    let (now, now_unix) = (Instant::now(), unix_now_ns());
    match cfg.start_at_unix_ns {
        Some(at) if at >= now_unix => (now + Duration::from_nanos(at - now_unix), at),
        Some(at) => (
            now.checked_sub(Duration::from_nanos(now_unix - at))
                .unwrap_or(now),
            at,
        ),
        None => (now, now_unix),
    }
}

/// Each scenario's facts, for the natives and the summary.
fn scenario_meta(options: &Options) -> Vec<ScenarioMeta> {
    options
        .scenarios
        .iter()
        .map(|s| ScenarioMeta {
            name: s.name.clone(),
            executor: s.executor.name().to_string(),
            tags: s.tags.clone().into(),
            start_time: s.start_time,
            duration: s.executor.duration(),
        })
        .collect()
}

/// A threshold filters on a tag only full HTTP series carry.
/// Keeps apart each sub-metric of an HTTP metric filtered on a request
/// tag (`{name:…}`, `{url:…}`: tags the series leave out); true if any.
fn keep_request_submetrics(shared: &RunState, options: &Options) -> bool {
    let mut any = false;
    let mut reg = shared.reg.borrow_mut();
    for (metric, filter) in &options.submetrics {
        let on_request_tag = filter.iter().any(|(k, _)| {
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
        });
        let http = HTTP_METRICS.contains(&metric.as_str());
        if let Some(m) = reg.metric(metric)
            && on_request_tag
            && http
        {
            reg.add_sub(m, filter.clone());
            any = true;
        }
    }
    any
}

/// `shutdown`, unless the run loop took the stop already from `stop` (the
/// caller's first Ctrl-C): then teardown and the summary run uninterrupted.
async fn once_with(shutdown: impl Future<Output = ()>, stop: crate::StopSwitch) {
    shutdown.await;
    if !stop.shutdown_is_new() {
        std::future::pending::<()>().await;
    }
}

/// `shutdown`, polled only when its own waker fired.
fn gated(shutdown: impl Future<Output = ()>) -> impl Future<Output = ()> {
    // Polled again after it has fired (teardown still runs after Ctrl-C, as
    // in k6): from then on it stays pending, and teardown's own timeout
    // bounds it.
    // It is polled only when its own waker has fired (or on the first
    // poll): the loop waits on it at every turn, and a signal future's poll
    // cost ~1 % of a k6 script's CPU.
    let mut first = Some(Box::pin(shutdown));
    let gate = Arc::new(Gate::default());
    let gate_waker = Waker::from(gate.clone());
    std::future::poll_fn(move |cx| match first.as_mut() {
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
    })
}

/// Makes the scenarios' VUs, each running the script's init code.
fn init_scenario_vus<'js>(
    ctx: &rquickjs::Ctx<'js>,
    shared: &RunState,
    options: &Options,
    (name, source, code): (&str, &str, &RefCell<Option<Vec<u8>>>),
    slots: &mut Vec<Slot<'js>>,
) -> Result<(), ScriptError> {
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
            let holder = init_vu(ctx, vu_index, name, source, code)?;
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
    Ok(())
}
