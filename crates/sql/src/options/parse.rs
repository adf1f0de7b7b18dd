//! The command line, read once: each `--name[=value]` into [`Options`]
//! (sysbench 1.0's names and 0.4's), then the positional words, the
//! driver's connection settings and the checks no run can pass.

use std::path::PathBuf;

use super::*;

/// What the loop over the arguments noted beside [`Options`], for the
/// checks once they are all read.
#[derive(Default)]
struct Seen<'a> {
    /// Per-driver connection settings, applied once the driver is known.
    my: Vec<(String, String)>,
    pg: Vec<(String, String)>,
    positional: Vec<&'a str>,
    time_set: bool,
    events_set: bool,
    legacy_read_only: bool,
    legacy_mode: Option<OltpMode>,
    ignore_set: bool,
    driver_set: bool,
    forced_shutdown_set: bool,
    verbosity: Option<u32>,
    /// The test is a Lua script (its options and commands are its own).
    script: bool,
}

/// sysbench's defaults.
fn defaults() -> Options {
    Options {
        test: Test::OltpReadWrite,
        command: Command::Run,
        driver: Driver::Mysql,
        conn: Conninfo {
            host: "localhost".into(),
            port: 3306,
            user: "sbtest".into(),
            password: String::new(),
            db: "sbtest".into(),
        },
        tables: 1,
        table_size: 10_000,
        threads: 1,
        time: 10.0,
        events: 0,
        rate: 0.0,
        report_interval: 0.0,
        forced_shutdown: Some(2.0),
        percentile: 95,
        histogram: false,
        range_size: 100,
        skip_trx: false,
        ps_mode: PsMode::Auto,
        ignore_errors: IgnoreErrors::Codes(vec![1213, 1020, 1205]),
        auto_inc: true,
        point_selects: 10,
        simple_ranges: 1,
        sum_ranges: 1,
        order_ranges: 1,
        distinct_ranges: 1,
        index_updates: 1,
        non_index_updates: 1,
        delete_inserts: 1,
        range_selects: true,
        create_secondary: true,
        mysql_storage_engine: "innodb".into(),
        random_points: 10,
        number_of_ranges: 10,
        delta: 5,
        rand_type: RandType::Special,
        rand_spec_pct: 1.0,
        rand_spec_res: 75.0,
        rand_seed: 0,
        output: None,
        start_at_unix_ns: None,
        client_threads: 0,
        verbosity: LOG_NOTICE,
        legacy: None,
        script: None,
    }
}

/// Parses the arguments after `loadlab sysbench`.
pub fn parse(args: &[String]) -> Result<Parsed, OptionsError> {
    parse_with(args, None)
}

/// [`parse`], the test being `script` (a Lua script read by
/// `Script::detect` of the `lua` module): the options it declares are taken
/// (and checked against their defaults' types), the built-in tests' are
/// not.
pub fn parse_with(
    args: &[String],
    mut script: Option<super::script::Script>,
) -> Result<Parsed, OptionsError> {
    let mut o = defaults();
    let mut seen = Seen {
        script: script.is_some(),
        ..Seen::default()
    };
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "-o" {
            let Some(f) = args.get(i) else {
                return err("-o needs a file name (-o FILE)");
            };
            o.output = Some(PathBuf::from(f));
            i += 1;
            continue;
        }
        if a == "-h" {
            return Ok(Parsed::Help);
        }
        let Some(rest) = a.strip_prefix("--") else {
            if a.starts_with('-') && a.len() > 1 {
                return err(format!("unknown option '{a}'"));
            }
            seen.positional.push(a);
            continue;
        };
        let (raw_name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (rest, None),
        };
        let name = raw_name.replace('-', "_");
        let v = value;
        match name.as_str() {
            "help" => return Ok(Parsed::Help),
            "version" => return Ok(Parsed::Version),
            "output" => {
                let f = match v {
                    Some(f) => f.to_string(),
                    None => {
                        let Some(f) = args.get(i) else {
                            return err("--output needs a file name (--output=FILE)");
                        };
                        i += 1;
                        f.clone()
                    }
                };
                o.output = Some(PathBuf::from(f));
            }
            _ => {
                if run_option(&mut o, &mut seen, &name, raw_name, v)? {
                    continue;
                }
                if let Some(s) = script.as_mut() {
                    script_option(s, &mut o, &mut seen, &name, raw_name, v)?;
                    continue;
                }
                if !workload_option(&mut o, &mut seen, &name, raw_name, v)? {
                    if usage::UNSUPPORTED.contains(&name.as_str()) {
                        return err(format!(
                            "'--{raw_name}' is a sysbench option that loadlab does not support"
                        ));
                    }
                    let hint = nearest(&name)
                        .map(|k| format!(" (a similar option exists: '--{}')", k.replace('_', "-")))
                        .unwrap_or_default();
                    return err(format!("unknown option '--{raw_name}'{hint}"));
                }
            }
        }
    }
    if let Some(p) = command(&mut o, &mut seen)? {
        return Ok(p);
    }
    o.verbosity = seen.verbosity.unwrap_or(if o.legacy.is_some() {
        LOG_INFO
    } else {
        LOG_NOTICE
    });
    // sysbench's pgsql driver restarts a transaction after a deadlock
    // (40P01), a serialization failure (40001) and a unique violation
    // (23505, two threads deleting and inserting the same id): their
    // MySQL numbers 1213 and 1062, unless the list is given.
    if o.driver == Driver::Pgsql && !seen.ignore_set {
        o.ignore_errors = IgnoreErrors::Codes(vec![1213, 1062]);
    }
    connection(&mut o, seen.my, seen.pg)?;
    o.script = script.map(std::sync::Arc::new);
    check(&o)?;
    Ok(Parsed::Do(Box::new(o)))
}

/// An option on a script's line: one it declares (its value checked
/// against its default's type), or one of sysbench's general random
/// number options; any other is refused.
fn script_option(
    s: &mut super::script::Script,
    o: &mut Options,
    seen: &mut Seen,
    name: &str,
    raw_name: &str,
    v: Option<&str>,
) -> Result<(), OptionsError> {
    if let Some(d) = s.declared(name) {
        super::script::value(d, raw_name, v).map_err(OptionsError)?;
        s.given.push((name.to_string(), v.map(String::from)));
        return Ok(());
    }
    if name.starts_with("rand_") && workload_option(o, seen, name, raw_name, v)? {
        return Ok(());
    }
    let list = s
        .declared
        .iter()
        .map(|d| format!("--{}", d.name.replace('_', "-")))
        .collect::<Vec<_>>()
        .join(", ");
    err(format!(
        "unknown option '--{raw_name}': {} does not declare it in sysbench.cmdline.options (it declares: {})",
        s.name,
        if list.is_empty() { "none" } else { &list }
    ))
}

/// The connection, the run's limits and its reporting: true when `name`
/// is one of them.
fn run_option(
    o: &mut Options,
    seen: &mut Seen,
    name: &str,
    raw_name: &str,
    v: Option<&str>,
) -> Result<bool, OptionsError> {
    match name {
        "db_driver" => {
            seen.driver_set = true;
            o.driver = match v {
                Some("mysql") => Driver::Mysql,
                Some("pgsql") => Driver::Pgsql,
                Some(x) => return err(format!("--db-driver={x}: expected mysql or pgsql")),
                None => return err("--db-driver needs a value (mysql or pgsql)"),
            }
        }
        n if n.starts_with("mysql_")
            && matches!(&n[6..], "host" | "port" | "user" | "password" | "db") =>
        {
            seen.my.push((n[6..].to_string(), parse_str(raw_name, v)?));
        }
        n if n.starts_with("pgsql_")
            && matches!(&n[6..], "host" | "port" | "user" | "password" | "db") =>
        {
            seen.pg.push((n[6..].to_string(), parse_str(raw_name, v)?));
        }
        "mysql_socket" => {
            return err("--mysql-socket is not supported: use --mysql-host and --mysql-port");
        }
        "threads" | "num_threads" => o.threads = parse_num(raw_name, v)?,
        "time" | "max_time" => {
            o.time = parse_num(raw_name, v)?;
            seen.time_set = true;
        }
        "events" | "max_requests" => {
            o.events = parse_num(raw_name, v)?;
            seen.events_set = true;
        }
        "rate" | "tx_rate" => o.rate = parse_num(raw_name, v)?,
        "report_interval" => o.report_interval = parse_num(raw_name, v)?,
        "percentile" => o.percentile = parse_num(raw_name, v)?,
        "histogram" => o.histogram = parse_bool(raw_name, v)?,
        "db_ps_mode" => {
            o.ps_mode = match v {
                Some("auto") => PsMode::Auto,
                Some("disable") => PsMode::Disable,
                _ => return err(format!("--{raw_name}: expected auto or disable")),
            }
        }
        "mysql_ignore_errors" => {
            seen.ignore_set = true;
            o.ignore_errors = ignore_errors(raw_name, v)?;
        }
        "rand_seed" => o.rand_seed = parse_num(raw_name, v)?,
        "client_threads" => o.client_threads = parse_num(raw_name, v)?,
        "start_at" => {
            let v = parse_str(raw_name, v)?;
            let at = loadlab_metrics::timefmt::parse_start_at(&v)
                .map_err(|e| OptionsError(e.replace("-start-at", "--start-at")))?;
            o.start_at_unix_ns = Some(at);
        }
        "forced_shutdown" => {
            seen.forced_shutdown_set = true;
            o.forced_shutdown = match v {
                Some("off") => None,
                _ => {
                    let n: f64 = parse_num(raw_name, v)?;
                    if !(n >= 0.0 && n.is_finite()) {
                        return err(format!(
                            "--{raw_name}={n}: expected a number of seconds ≥ 0, or off"
                        ));
                    }
                    Some(n)
                }
            }
        }
        "verbosity" => {
            let n: u32 = parse_num(raw_name, v)?;
            if n > LOG_DEBUG {
                return err(format!(
                    "--{raw_name}={n}: expected 0 (errors only) to 5 (debug)"
                ));
            }
            seen.verbosity = Some(n);
        }
        // Accepted and without effect here.
        "db_debug" => {}
        _ => return Ok(false),
    }
    Ok(true)
}

/// `--mysql-ignore-errors=1040,1213` or `all`.
fn ignore_errors(raw_name: &str, v: Option<&str>) -> Result<IgnoreErrors, OptionsError> {
    let s = parse_str(raw_name, v)?;
    if s == "all" {
        return Ok(IgnoreErrors::All);
    }
    let mut codes = Vec::new();
    for c in s.split(',').filter(|c| !c.is_empty()) {
        codes.push(c.trim().parse().or_else(|_| {
            err(format!(
                "--{raw_name}={s}: '{c}' is not an error number (a list like 1040,1213 or all)"
            ))
        })?);
    }
    Ok(IgnoreErrors::Codes(codes))
}

/// The test, its tables and its statement mix (sysbench 1.0's names and
/// 0.4's): true when `name` is one of them.
fn workload_option<'a>(
    o: &mut Options,
    seen: &mut Seen<'a>,
    name: &str,
    raw_name: &str,
    v: Option<&str>,
) -> Result<bool, OptionsError> {
    match name {
        "tables" | "oltp_tables_count" => o.tables = parse_num(raw_name, v)?,
        "table_size" | "oltp_table_size" => o.table_size = parse_num(raw_name, v)?,
        "range_size" | "oltp_range_size" => o.range_size = parse_num(raw_name, v)?,
        "skip_trx" | "oltp_skip_trx" => o.skip_trx = parse_bool(raw_name, v)?,
        "auto_inc" | "oltp_auto_inc" => o.auto_inc = parse_bool(raw_name, v)?,
        "point_selects" | "oltp_point_selects" => o.point_selects = parse_num(raw_name, v)?,
        "simple_ranges" | "oltp_simple_ranges" => o.simple_ranges = parse_num(raw_name, v)?,
        "sum_ranges" | "oltp_sum_ranges" => o.sum_ranges = parse_num(raw_name, v)?,
        "order_ranges" | "oltp_order_ranges" => o.order_ranges = parse_num(raw_name, v)?,
        "distinct_ranges" | "oltp_distinct_ranges" => o.distinct_ranges = parse_num(raw_name, v)?,
        "index_updates" | "oltp_index_updates" => o.index_updates = parse_num(raw_name, v)?,
        "non_index_updates" | "oltp_non_index_updates" => {
            o.non_index_updates = parse_num(raw_name, v)?
        }
        "delete_inserts" => o.delete_inserts = parse_num(raw_name, v)?,
        "range_selects" => o.range_selects = parse_bool(raw_name, v)?,
        "create_secondary" => o.create_secondary = parse_bool(raw_name, v)?,
        "mysql_storage_engine" | "mysql_table_engine" => {
            let e = parse_str(raw_name, v)?;
            if !e.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return err(format!("--{raw_name}={e}: not an engine name"));
            }
            o.mysql_storage_engine = e;
        }
        "random_points" => o.random_points = parse_num(raw_name, v)?,
        "number_of_ranges" => o.number_of_ranges = parse_num(raw_name, v)?,
        "delta" => o.delta = parse_num(raw_name, v)?,
        "rand_type" | "oltp_dist_type" => {
            o.rand_type = match v {
                Some("uniform") => RandType::Uniform,
                Some("special") => RandType::Special,
                _ => return err(format!("--{raw_name}: expected uniform or special")),
            }
        }
        "rand_spec_pct" | "oltp_dist_pct" => o.rand_spec_pct = parse_num(raw_name, v)?,
        "rand_spec_res" | "oltp_dist_res" => o.rand_spec_res = parse_num(raw_name, v)?,
        // sysbench 0.4.
        "test" => {
            let t = parse_str(raw_name, v)?;
            if t == "oltp" {
                o.legacy = Some(Legacy {
                    mode: OltpMode::Complex,
                    read_only: false,
                    driver_given: false,
                    forced_shutdown_given: false,
                });
            } else {
                o.test = Test::from_name(&t).ok_or_else(|| unknown_test(&t))?;
                seen.positional.insert(0, "");
            }
        }
        "oltp_read_only" => seen.legacy_read_only = parse_bool(raw_name, v)?,
        "oltp_test_mode" => {
            let m = parse_str(raw_name, v)?;
            seen.legacy_mode = Some(match m.as_str() {
                "simple" => OltpMode::Simple,
                "complex" => OltpMode::Complex,
                "nontrx" => OltpMode::Nontrx,
                _ => {
                    return err(format!(
                        "--{raw_name}={m}: expected simple, complex or nontrx"
                    ));
                }
            });
        }
        "oltp_nontrx_mode" => {
            let m = parse_str(raw_name, v)?;
            if m != "select" {
                return err(format!(
                    "--{raw_name}={m}: only 'select' is supported (sysbench 0.4's default)"
                ));
            }
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// The positional words: `[TESTNAME] COMMAND` (TESTNAME may come from
/// `--test`). `Some` when they ask for the help.
fn command(o: &mut Options, seen: &mut Seen) -> Result<Option<Parsed>, OptionsError> {
    let positional = &mut seen.positional;
    let from_test_flag = positional.first() == Some(&"");
    if from_test_flag {
        positional.remove(0);
    }
    let command_word;
    if o.legacy.is_some() || from_test_flag {
        match positional.as_slice() {
            [c] => command_word = *c,
            [] => return err("missing command: prepare, run or cleanup"),
            _ => return err(format!("unexpected arguments: {}", positional.join(" "))),
        }
        if let Some(l) = o.legacy.as_mut() {
            l.mode = seen.legacy_mode.unwrap_or(OltpMode::Complex);
            l.read_only = seen.legacy_read_only;
            l.driver_given = seen.driver_set;
            l.forced_shutdown_given = seen.forced_shutdown_set;
            o.test = match (l.mode, l.read_only) {
                (OltpMode::Simple | OltpMode::Nontrx, _) => Test::OltpPointSelect,
                (_, true) => Test::OltpReadOnly,
                (_, false) => Test::OltpReadWrite,
            };
            // sysbench 0.4's limits: 10000 requests, no time limit.
            if !seen.time_set {
                o.time = 0.0;
            }
            if !seen.events_set {
                o.events = 10_000;
            }
        }
    } else {
        match positional.as_slice() {
            [] => return Ok(Some(Parsed::Help)),
            [t] if seen.script => {
                return err(format!(
                    "missing command after '{t}': prepare, run or cleanup"
                ));
            }
            [t] => {
                Test::from_name(t).ok_or_else(|| unknown_test(t))?;
                return err(format!(
                    "missing command after '{t}': prepare, run or cleanup"
                ));
            }
            [_, c] if seen.script => command_word = c,
            [t, c] => {
                o.test = Test::from_name(t).ok_or_else(|| unknown_test(t))?;
                command_word = c;
            }
            _ => {
                return err(format!(
                    "unexpected arguments: {}",
                    positional[2..].join(" ")
                ));
            }
        }
    }
    o.command = match command_word {
        "prepare" => Command::Prepare,
        "run" => Command::Run,
        "cleanup" => Command::Cleanup,
        "help" if seen.script => return Ok(Some(Parsed::Help)),
        "help" if o.legacy.is_none() => return Ok(Some(Parsed::TestHelp(o.test))),
        "help" => return Ok(Some(Parsed::Help)),
        c => {
            return err(format!(
                "unknown command '{c}': expected prepare, run or cleanup"
            ));
        }
    };
    Ok(None)
}

/// Connection settings of the chosen driver; the other driver's are
/// accepted and unused, as sysbench does.
fn connection(
    o: &mut Options,
    my: Vec<(String, String)>,
    pg: Vec<(String, String)>,
) -> Result<(), OptionsError> {
    let (chosen, default_port) = match o.driver {
        Driver::Mysql => (my, 3306),
        Driver::Pgsql => (pg, 5432),
    };
    o.conn.port = default_port;
    // Without a password option, the one the usual client variable holds
    // (MySQL's MYSQL_PWD, PostgreSQL's PGPASSWORD): a password kept out of
    // the command line, where other users of the machine could read it.
    if !chosen.iter().any(|(k, _)| k == "password") {
        let var = match o.driver {
            Driver::Mysql => "MYSQL_PWD",
            Driver::Pgsql => "PGPASSWORD",
        };
        if let Ok(pw) = std::env::var(var) {
            o.conn.password = pw;
        }
    }
    for (k, v) in chosen {
        match k.as_str() {
            "host" => o.conn.host = v,
            "port" => {
                o.conn.port = v.parse().or_else(|_| {
                    err(format!("--{}-port={v}: not a port number", o.driver.name()))
                })?
            }
            "user" => o.conn.user = v,
            "password" => o.conn.password = v,
            "db" => o.conn.db = v,
            _ => {}
        }
    }
    Ok(())
}

/// The values no run can have.
fn check(o: &Options) -> Result<(), OptionsError> {
    if o.threads == 0 {
        return err("--threads must be at least 1");
    }
    if o.tables == 0 {
        return err("--tables must be at least 1");
    }
    if o.percentile > 100 {
        return err(format!("--percentile={}: expected 0 to 100", o.percentile));
    }
    if o.percentile == 0 && o.histogram {
        return err("--histogram cannot be used with --percentile=0");
    }
    if o.percentile == 0 && o.legacy.is_some() {
        // sysbench 0.4 refuses it too ("Invalid value for percentile option").
        return err("--percentile=0: a sysbench 0.4 line (--test=oltp) takes 1 to 100");
    }
    if !(o.rate >= 0.0 && o.rate.is_finite() && o.time >= 0.0 && o.time.is_finite()) {
        return err("--rate and --time must be numbers ≥ 0");
    }
    if let Some(at) = o.start_at_unix_ns {
        if o.command != Command::Run {
            return err("--start-at applies to the run command only");
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        loadlab_core::start_at::check_start_at(at, now)
            .map_err(|e| OptionsError(e.replace("-start-at", "--start-at")))?;
    }
    if !(o.report_interval >= 0.0 && o.report_interval.is_finite()) {
        return err("--report-interval must be a number of seconds ≥ 0");
    }
    if matches!(o.test, Test::SelectRandomPoints | Test::SelectRandomRanges) && o.tables != 1 {
        return err(format!("{} does not support --tables > 1", o.test.name()));
    }
    if o.command == Command::Run && o.time == 0.0 && o.events == 0 {
        return err("--time=0 and --events=0: the run would never end; set one of them");
    }
    Ok(())
}

fn unknown_test(t: &str) -> OptionsError {
    OptionsError(format!(
        "unknown test '{t}': expected one of {}",
        Test::ALL
            .iter()
            .map(|t| t.name())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}
