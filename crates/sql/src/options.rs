//! `loadlab sysbench`'s command line, parsed once into [`Options`]: sysbench
//! 1.0's syntax (`--name=value`, `--flag`, `--flag=on|off`; `-` and `_`
//! alike in names) and sysbench 0.4's (`--test=oltp --oltp-table-size=…
//! --num-threads=… --max-time=… --max-requests=…`), which 1.0 no longer
//! accepts.

use std::path::PathBuf;

use crate::test_name::Test;

/// Which server the test talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    Mysql,
    Pgsql,
}

impl Driver {
    pub fn name(self) -> &'static str {
        match self {
            Driver::Mysql => "mysql",
            Driver::Pgsql => "pgsql",
        }
    }
}

/// What to do with the test's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Prepare,
    Run,
    Cleanup,
}

/// `--db-ps-mode`: prepared statements (`auto`) or plain text queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsMode {
    Auto,
    Disable,
}

/// `--rand-type`: how row ids are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandType {
    Uniform,
    /// sysbench's default: `--rand-spec-pct` % of the ids get
    /// `--rand-spec-res` % of the draws.
    Special,
}

/// `--mysql-ignore-errors`: server error numbers after which the event is
/// rolled back and run again (counted as an ignored error), or `all`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IgnoreErrors {
    All,
    Codes(Vec<u32>),
}

impl IgnoreErrors {
    pub fn ignores(&self, code: u32) -> bool {
        match self {
            IgnoreErrors::All => true,
            IgnoreErrors::Codes(c) => c.contains(&code),
        }
    }
}

/// Where the server is and who logs in. The password is kept out of
/// `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct Conninfo {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: String,
    pub db: String,
}

impl std::fmt::Debug for Conninfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Conninfo")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password", &"<hidden>")
            .field("db", &self.db)
            .finish()
    }
}

/// Every setting of one `loadlab sysbench` invocation.
#[derive(Debug, Clone)]
pub struct Options {
    pub test: Test,
    pub command: Command,
    pub driver: Driver,
    pub conn: Conninfo,
    pub tables: u32,
    pub table_size: u32,
    pub threads: u32,
    /// Seconds; 0 is no limit.
    pub time: f64,
    /// Total events (transactions); 0 is no limit.
    pub events: u64,
    /// Transactions per second, all threads together; 0 is as fast as
    /// the threads go (closed model).
    pub rate: f64,
    /// Seconds between interval lines; 0 is none.
    pub report_interval: f64,
    /// `--forced-shutdown`: seconds after the `--time` limit that a thread
    /// may still wait for a reply before it is cut off; `None` (`off`,
    /// sysbench's default): waits for good. loadlab's default is 2 s.
    pub forced_shutdown: Option<f64>,
    /// 1–100; 0 leaves the percentile out.
    pub percentile: u32,
    pub histogram: bool,
    pub range_size: u32,
    pub skip_trx: bool,
    pub ps_mode: PsMode,
    pub ignore_errors: IgnoreErrors,
    pub auto_inc: bool,
    pub point_selects: u32,
    pub simple_ranges: u32,
    pub sum_ranges: u32,
    pub order_ranges: u32,
    pub distinct_ranges: u32,
    pub index_updates: u32,
    pub non_index_updates: u32,
    pub delete_inserts: u32,
    pub range_selects: bool,
    pub create_secondary: bool,
    pub mysql_storage_engine: String,
    pub random_points: u32,
    pub number_of_ranges: u32,
    pub delta: u32,
    pub rand_type: RandType,
    pub rand_spec_pct: f64,
    pub rand_spec_res: f64,
    /// 0: from the current time.
    pub rand_seed: u64,
    /// `--client-threads`: OS threads the connections are spread over
    /// (each a current-thread runtime); ≥ `threads`: a thread per
    /// connection (MySQL: a blocking socket each, no runtime); 0: one
    /// connection on a thread of its own, more on one thread per CPU the
    /// process may use (see `runner::blocking_threads`).
    pub client_threads: u32,
    /// `-o`/`--output`: the results file (format v2) of the run.
    pub output: Option<PathBuf>,
    /// The command line used sysbench 0.4's syntax (`--test=oltp`).
    pub legacy: bool,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    Help,
    Version,
    Do(Box<Options>),
}

/// A bad command line: what was wrong, one line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct OptionsError(pub String);

fn err<T>(msg: impl Into<String>) -> Result<T, OptionsError> {
    Err(OptionsError(msg.into()))
}

fn parse_bool(name: &str, v: Option<&str>) -> Result<bool, OptionsError> {
    match v {
        None => Ok(true),
        Some("on" | "true" | "yes" | "1") => Ok(true),
        Some("off" | "false" | "no" | "0") => Ok(false),
        Some(x) => err(format!("--{name}={x}: expected on or off")),
    }
}

fn parse_num<T: std::str::FromStr>(name: &str, v: Option<&str>) -> Result<T, OptionsError> {
    let Some(v) = v else {
        return err(format!("--{name} needs a value (--{name}=N)"));
    };
    v.parse()
        .or_else(|_| err(format!("--{name}={v}: not a valid number")))
}

fn parse_str(name: &str, v: Option<&str>) -> Result<String, OptionsError> {
    match v {
        Some(v) => Ok(v.to_string()),
        None => err(format!("--{name} needs a value (--{name}=VALUE)")),
    }
}

/// Every option name (with `_`), for the "did you mean" of a typo.
const KNOWN: &[&str] = &[
    "db_driver",
    "mysql_host",
    "mysql_port",
    "mysql_user",
    "mysql_password",
    "mysql_db",
    "pgsql_host",
    "pgsql_port",
    "pgsql_user",
    "pgsql_password",
    "pgsql_db",
    "tables",
    "table_size",
    "threads",
    "time",
    "events",
    "rate",
    "report_interval",
    "percentile",
    "histogram",
    "range_size",
    "skip_trx",
    "db_ps_mode",
    "mysql_ignore_errors",
    "auto_inc",
    "point_selects",
    "simple_ranges",
    "sum_ranges",
    "order_ranges",
    "distinct_ranges",
    "index_updates",
    "non_index_updates",
    "delete_inserts",
    "range_selects",
    "create_secondary",
    "mysql_storage_engine",
    "random_points",
    "number_of_ranges",
    "delta",
    "rand_type",
    "rand_spec_pct",
    "rand_spec_res",
    "rand_seed",
    "client_threads",
    "output",
    "test",
    "num_threads",
    "max_time",
    "max_requests",
    "tx_rate",
    "oltp_table_size",
    "oltp_tables_count",
    "oltp_read_only",
    "oltp_skip_trx",
    "oltp_nontrx_mode",
    "oltp_test_mode",
    "oltp_range_size",
    "oltp_point_selects",
    "oltp_simple_ranges",
    "oltp_sum_ranges",
    "oltp_order_ranges",
    "oltp_distinct_ranges",
    "oltp_index_updates",
    "oltp_non_index_updates",
    "oltp_dist_type",
    "oltp_auto_inc",
    "mysql_table_engine",
    "help",
    "version",
    "verbosity",
    "forced_shutdown",
    "db_debug",
    "mysql_socket",
];

fn nearest(name: &str) -> Option<&'static str> {
    // Edit distance ≤ 2 on the `_` spelling.
    fn dist(a: &str, b: &str) -> usize {
        let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let c = usize::from(a[i - 1] != b[j - 1]);
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + c);
            }
            prev = cur;
        }
        prev[b.len()]
    }
    KNOWN
        .iter()
        .map(|k| (dist(name, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min()
        .map(|(_, k)| k)
}

/// Parses the arguments after `loadlab sysbench`.
pub fn parse(args: &[String]) -> Result<Parsed, OptionsError> {
    let mut o = Options {
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
        client_threads: 0,
        legacy: false,
    };
    // Per-driver connection settings, applied once the driver is known.
    let mut my: Vec<(String, String)> = Vec::new();
    let mut pg: Vec<(String, String)> = Vec::new();
    let mut positional: Vec<&str> = Vec::new();
    let mut time_set = false;
    let mut events_set = false;
    let mut legacy_read_only = false;
    let mut legacy_mode = "complex".to_string();
    let mut point_selects_set = false;
    let mut ignore_set = false;
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
            positional.push(a);
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
            "db_driver" => {
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
                my.push((n[6..].to_string(), parse_str(raw_name, v)?));
            }
            n if n.starts_with("pgsql_")
                && matches!(&n[6..], "host" | "port" | "user" | "password" | "db") =>
            {
                pg.push((n[6..].to_string(), parse_str(raw_name, v)?));
            }
            "mysql_socket" => {
                return err("--mysql-socket is not supported: use --mysql-host and --mysql-port");
            }
            "tables" | "oltp_tables_count" => o.tables = parse_num(raw_name, v)?,
            "table_size" | "oltp_table_size" => o.table_size = parse_num(raw_name, v)?,
            "threads" | "num_threads" => o.threads = parse_num(raw_name, v)?,
            "time" | "max_time" => {
                o.time = parse_num(raw_name, v)?;
                time_set = true;
            }
            "events" | "max_requests" => {
                o.events = parse_num(raw_name, v)?;
                events_set = true;
            }
            "rate" | "tx_rate" => o.rate = parse_num(raw_name, v)?,
            "report_interval" => o.report_interval = parse_num(raw_name, v)?,
            "percentile" => o.percentile = parse_num(raw_name, v)?,
            "histogram" => o.histogram = parse_bool(raw_name, v)?,
            "range_size" | "oltp_range_size" => o.range_size = parse_num(raw_name, v)?,
            "skip_trx" | "oltp_skip_trx" => o.skip_trx = parse_bool(raw_name, v)?,
            "db_ps_mode" => {
                o.ps_mode = match v {
                    Some("auto") => PsMode::Auto,
                    Some("disable") => PsMode::Disable,
                    _ => return err(format!("--{raw_name}: expected auto or disable")),
                }
            }
            "mysql_ignore_errors" => {
                ignore_set = true;
                let s = parse_str(raw_name, v)?;
                o.ignore_errors = if s == "all" {
                    IgnoreErrors::All
                } else {
                    let mut codes = Vec::new();
                    for c in s.split(',').filter(|c| !c.is_empty()) {
                        codes.push(c.trim().parse().or_else(|_| {
                            err(format!(
                                "--{raw_name}={s}: '{c}' is not an error number (a list like 1040,1213 or all)"
                            ))
                        })?);
                    }
                    IgnoreErrors::Codes(codes)
                };
            }
            "auto_inc" | "oltp_auto_inc" => o.auto_inc = parse_bool(raw_name, v)?,
            "point_selects" | "oltp_point_selects" => {
                o.point_selects = parse_num(raw_name, v)?;
                point_selects_set = true;
            }
            "simple_ranges" | "oltp_simple_ranges" => o.simple_ranges = parse_num(raw_name, v)?,
            "sum_ranges" | "oltp_sum_ranges" => o.sum_ranges = parse_num(raw_name, v)?,
            "order_ranges" | "oltp_order_ranges" => o.order_ranges = parse_num(raw_name, v)?,
            "distinct_ranges" | "oltp_distinct_ranges" => {
                o.distinct_ranges = parse_num(raw_name, v)?
            }
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
            "rand_seed" => o.rand_seed = parse_num(raw_name, v)?,
            "client_threads" => o.client_threads = parse_num(raw_name, v)?,
            // sysbench 0.4.
            "test" => {
                let t = parse_str(raw_name, v)?;
                if t == "oltp" {
                    o.legacy = true;
                } else {
                    o.test = Test::from_name(&t).ok_or_else(|| unknown_test(&t))?;
                    positional.insert(0, "");
                }
            }
            "oltp_read_only" => legacy_read_only = parse_bool(raw_name, v)?,
            "oltp_test_mode" => {
                legacy_mode = parse_str(raw_name, v)?;
                if !matches!(legacy_mode.as_str(), "simple" | "complex" | "nontrx") {
                    return err(format!(
                        "--{raw_name}={legacy_mode}: expected simple, complex or nontrx"
                    ));
                }
            }
            "oltp_nontrx_mode" => {
                let m = parse_str(raw_name, v)?;
                if m != "select" {
                    return err(format!(
                        "--{raw_name}={m}: only 'select' is supported (sysbench 0.4's default)"
                    ));
                }
            }
            "forced_shutdown" => {
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
            // Accepted and without effect here.
            "verbosity" | "db_debug" => {}
            _ => {
                let hint = nearest(&name)
                    .map(|k| format!(" (a similar option exists: '--{}')", k.replace('_', "-")))
                    .unwrap_or_default();
                return err(format!("unknown option '--{raw_name}'{hint}"));
            }
        }
    }
    // Positional: [TESTNAME] COMMAND (TESTNAME may come from --test).
    let from_test_flag = positional.first() == Some(&"");
    if from_test_flag {
        positional.remove(0);
    }
    let command_word;
    if o.legacy || from_test_flag {
        match positional.as_slice() {
            [c] => command_word = *c,
            [] => return err("missing command: prepare, run or cleanup"),
            _ => return err(format!("unexpected arguments: {}", positional.join(" "))),
        }
        if o.legacy {
            o.test = match (legacy_mode.as_str(), legacy_read_only) {
                ("simple" | "nontrx", _) => Test::OltpPointSelect,
                (_, true) => Test::OltpReadOnly,
                (_, false) => Test::OltpReadWrite,
            };
            // sysbench 0.4's limits: 10000 requests, no time limit.
            if !time_set {
                o.time = 0.0;
            }
            if !events_set {
                o.events = 10_000;
            }
        }
    } else {
        match positional.as_slice() {
            [] => return Ok(Parsed::Help),
            [t] => {
                Test::from_name(t).ok_or_else(|| unknown_test(t))?;
                return err(format!(
                    "missing command after '{t}': prepare, run or cleanup"
                ));
            }
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
        "help" => return Ok(Parsed::Help),
        c => {
            return err(format!(
                "unknown command '{c}': expected prepare, run or cleanup"
            ));
        }
    };
    let _ = point_selects_set;
    // sysbench's pgsql driver restarts a transaction after a deadlock
    // (40P01), a serialization failure (40001) and a unique violation
    // (23505, two threads deleting and inserting the same id): their
    // MySQL numbers 1213 and 1062, unless the list is given.
    if o.driver == Driver::Pgsql && !ignore_set {
        o.ignore_errors = IgnoreErrors::Codes(vec![1213, 1062]);
    }
    // Connection settings of the chosen driver; the other driver's are
    // accepted and unused, as sysbench does.
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
    if o.threads == 0 {
        return err("--threads must be at least 1");
    }
    if o.tables == 0 {
        return err("--tables must be at least 1");
    }
    if o.percentile > 100 {
        return err(format!("--percentile={}: expected 0 to 100", o.percentile));
    }
    if !(o.rate >= 0.0 && o.rate.is_finite() && o.time >= 0.0 && o.time.is_finite()) {
        return err("--rate and --time must be numbers ≥ 0");
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
    Ok(Parsed::Do(Box::new(o)))
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

/// `loadlab sysbench --help`.
pub const USAGE: &str = "\
Usage:
  loadlab sysbench [options]... TESTNAME prepare|run|cleanup
  loadlab sysbench --test=oltp [sysbench 0.4 options]... prepare|run|cleanup

Tests (sysbench 1.0's OLTP workloads, same tables and statements):
  oltp_read_only oltp_read_write oltp_write_only oltp_point_select
  oltp_update_index oltp_update_non_index oltp_insert oltp_delete
  select_random_points select_random_ranges

General options:
  --threads=N              number of threads (connections) [1]
  --time=N                 limit for total execution time in seconds, 0: none [10]
  --events=N               limit for total number of transactions, 0: none [0]
  --rate=N                 transactions per second (open model), 0: unlimited [0]
  --report-interval=N      an interval line every N seconds, 0: none [0]
  --forced-shutdown=N|off  seconds after the --time limit before threads still waiting
                           for a reply are cut off, off: wait for good [2]
  --percentile=N           percentile in latency statistics (1-100), 0: none [95]
  --histogram[=on|off]     print the latency histogram [off]
  --rand-type=STRING       uniform or special [special]
  --rand-seed=N            random seed, 0: from the current time [0]
  -o, --output=FILE        write a results file (loadlab report/plot read it)
  --client-threads=N       OS threads the connections share; >= --threads: one per connection
                           (blocking sockets), 0: 1 connection its own thread, more one per usable CPU [0]

Database options:
  --db-driver=STRING       mysql or pgsql [mysql]
  --db-ps-mode=STRING      auto (prepared statements) or disable [auto]
  --mysql-host=STRING --mysql-port=N --mysql-user=STRING --mysql-password=STRING
  --mysql-db=STRING        [localhost, 3306, sbtest, '', sbtest]
  --mysql-ignore-errors=[LIST,...]  error numbers to ignore, or all [1213,1020,1205]
  --pgsql-host --pgsql-port --pgsql-user --pgsql-password --pgsql-db
                           [localhost, 5432, sbtest, '', sbtest]
  Without a password option, the password is read from MYSQL_PWD (mysql)
  or PGPASSWORD (pgsql), which keeps it off the command line.

Workload options:
  --tables=N --table-size=N --range-size=N --skip-trx[=on|off] --auto-inc[=on|off]
  --point-selects=N --simple-ranges=N --sum-ranges=N --order-ranges=N
  --distinct-ranges=N --index-updates=N --non-index-updates=N --delete-inserts=N
  --range-selects[=on|off] --create-secondary[=on|off] --mysql-storage-engine=STRING
  --random-points=N --number-of-ranges=N --delta=N

sysbench 0.4 options (seed 002's command lines run verbatim):
  --test=oltp --oltp-table-size --oltp-tables-count --oltp-read-only
  --oltp-skip-trx --oltp-test-mode=complex|simple|nontrx --oltp-nontrx-mode=select
  --oltp-range-size --oltp-dist-type --num-threads --max-time --max-requests
";

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Options, OptionsError> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        match parse(&args)? {
            Parsed::Do(o) => Ok(*o),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn sysbench_1_0_syntax() {
        let o = p(
            "--db-driver=pgsql --pgsql-port=5433 --pgsql-password=pw --mysql-port=1 \
                   --threads=4 --table_size=100 --time=0 --events=50 --skip-trx oltp_read_only run",
        )
        .unwrap();
        assert_eq!(o.test, Test::OltpReadOnly);
        assert_eq!(o.command, Command::Run);
        assert_eq!((o.conn.port, o.conn.password.as_str()), (5433, "pw"));
        assert_eq!((o.threads, o.table_size, o.events), (4, 100, 50));
        assert!(o.skip_trx);
        assert!(!format!("{o:?}").contains("pw\""), "no password in Debug");
    }

    #[test]
    fn seed_002_legacy_lines() {
        let o = p(
            "--test=oltp --db-driver=mysql --oltp-table-size=1000000 --mysql-db=sysbench \
                   --mysql-user=test --mysql-password=test --max-time=240 --max-requests=0 \
                   --oltp-read-only --oltp-skip-trx --oltp-nontrx-mode=select --num-threads=16 run",
        )
        .unwrap();
        assert_eq!(o.test, Test::OltpReadOnly);
        assert!(o.legacy && o.skip_trx);
        assert_eq!((o.time, o.events, o.threads), (240.0, 0, 16));
        assert_eq!((o.table_size, o.conn.db.as_str()), (1_000_000, "sysbench"));
        let o = p(
            "--test=oltp --db-driver=mysql --oltp-table-size=1000000 --mysql-db=sysbench \
                   --mysql-user=test --mysql-password=test prepare",
        )
        .unwrap();
        assert_eq!((o.test, o.command), (Test::OltpReadWrite, Command::Prepare));
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let e = |s: &str| p(s).unwrap_err().to_string();
        assert!(e("--treads=4 oltp_read_only run").contains("'--threads'"));
        assert!(e("oltp_raed_only run").contains("unknown test 'oltp_raed_only'"));
        assert!(e("oltp_read_only").contains("missing command"));
        assert!(e("--threads=x oltp_read_only run").contains("--threads=x"));
        assert!(e("--tables=2 select_random_points run").contains("--tables > 1"));
        assert!(e("--forced-shutdown=-1 oltp_read_only run").contains("--forced-shutdown=-1"));
        assert!(e("--forced-shutdown=soon oltp_read_only run").contains("not a valid number"));
    }

    #[test]
    fn forced_shutdown_is_seconds_or_off() {
        let f = |s: &str| {
            p(&format!("{s} oltp_read_only run"))
                .unwrap()
                .forced_shutdown
        };
        assert_eq!(f(""), Some(2.0));
        assert_eq!(f("--forced-shutdown=5"), Some(5.0));
        assert_eq!(f("--forced-shutdown=0.5"), Some(0.5));
        assert_eq!(f("--forced-shutdown=off"), None);
    }
}
