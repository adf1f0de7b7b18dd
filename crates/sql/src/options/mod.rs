//! `loadlab sysbench`'s command line, parsed once into [`Options`]: sysbench
//! 1.0's syntax (`--name=value`, `--flag`, `--flag=on|off`; `-` and `_`
//! alike in names) and sysbench 0.4's (`--test=oltp --oltp-table-size=…
//! --num-threads=… --max-time=… --max-requests=…`), which 1.0 no longer
//! accepts.

use std::path::PathBuf;

use crate::test_name::Test;

mod parse;
pub mod script;
mod usage;

pub use parse::{parse, parse_with};
pub use usage::{test_help, usage};

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
    /// (each a current-thread runtime); 0 (the default) or ≥ `threads`: a
    /// thread per connection (MySQL: a blocking socket each, no runtime;
    /// see `runner::blocking_threads`).
    pub client_threads: u32,
    /// `-o`/`--output`: the results file (format v2) of the run.
    pub output: Option<PathBuf>,
    /// `--start-at`: the instant (ns since the Unix epoch) the events
    /// start on, after every connection is made: as `loadlab attack
    /// -start-at`, for runs that must start together.
    pub start_at_unix_ns: Option<u64>,
    /// `--verbosity` (0–5, sysbench's log levels: 0 errors only, 3
    /// notices, 4 info, 5 debug); unless given, 3 on a 1.0 line and 4 (0.4's
    /// default) on a 0.4 line.
    pub verbosity: u32,
    /// The command line used sysbench 0.4's syntax (`--test=oltp`): run
    /// 0.4's statement mix and print 0.4's layout.
    pub legacy: Option<Legacy>,
    /// The test is a Lua script (`loadlab sysbench ./my_test.lua run`):
    /// its events, `prepare` and `cleanup` are the script's.
    pub script: Option<std::sync::Arc<script::Script>>,
}

/// What a sysbench 0.4 line (`--test=oltp`) says beyond the options both
/// share, for 0.4's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Legacy {
    /// `--oltp-test-mode`.
    pub mode: OltpMode,
    /// `--oltp-read-only`.
    pub read_only: bool,
    /// `--db-driver` was given (0.4 says which driver it took otherwise).
    pub driver_given: bool,
    /// `--forced-shutdown=N` was given (0.4 says when it will force it).
    pub forced_shutdown_given: bool,
}

/// `--oltp-test-mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OltpMode {
    Simple,
    Complex,
    Nontrx,
}

/// sysbench's log levels (`--verbosity`).
pub const LOG_WARNING: u32 = 2;
pub const LOG_NOTICE: u32 = 3;
pub const LOG_INFO: u32 = 4;
pub const LOG_DEBUG: u32 = 5;

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    Help,
    /// `TESTNAME help`: the test's options.
    TestHelp(Test),
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
    "start_at",
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
    fn mysql_thread_sweep_legacy_lines() {
        let o = p(
            "--test=oltp --db-driver=mysql --oltp-table-size=1000000 --mysql-db=sysbench \
                   --mysql-user=test --mysql-password=test --max-time=240 --max-requests=0 \
                   --oltp-read-only --oltp-skip-trx --oltp-nontrx-mode=select --num-threads=16 run",
        )
        .unwrap();
        assert_eq!(o.test, Test::OltpReadOnly);
        assert!(o.legacy.is_some() && o.skip_trx);
        assert_eq!(o.verbosity, 4, "0.4's default verbosity");
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
        assert!(e("--start-at=soon oltp_read_only run").starts_with("invalid --start-at \"soon\""));
        assert!(e("--start-at=1 oltp_read_only run").starts_with("--start-at passed "));
        assert!(e("--start-at=9999999999 oltp_read_only prepare").contains("run command only"));
        assert!(e("--forced-shutdown=soon oltp_read_only run").contains("not a valid number"));
    }

    #[test]
    fn verbosity_help_and_what_is_not_supported() {
        let v = |s: &str| p(&format!("{s} oltp_read_only run")).unwrap().verbosity;
        assert_eq!((v(""), v("--verbosity=0"), v("--verbosity=5")), (3, 0, 5));
        let legacy = |s: &str| p(&format!("--test=oltp {s} run")).unwrap().verbosity;
        assert_eq!((legacy(""), legacy("--verbosity=3")), (4, 3));
        let e = |s: &str| p(s).unwrap_err().to_string();
        assert!(e("--verbosity=6 oltp_read_only run").contains("--verbosity=6: expected 0"));
        assert_eq!(
            e("--thread-stack-size=64K oltp_read_only run"),
            "'--thread-stack-size' is a sysbench option that loadlab does not support"
        );
        assert_eq!(
            e("--histogram --percentile=0 oltp_read_only run"),
            "--histogram cannot be used with --percentile=0"
        );
        assert!(e("--test=oltp --percentile=0 run").contains("takes 1 to 100"));
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert!(matches!(
            parse(&args("select_random_points help")),
            Ok(Parsed::TestHelp(Test::SelectRandomPoints))
        ));
        assert!(matches!(parse(&args("--help")), Ok(Parsed::Help)));
        assert!(matches!(parse(&args("--test=oltp help")), Ok(Parsed::Help)));
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
