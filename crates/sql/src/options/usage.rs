//! `loadlab sysbench --help` and `loadlab sysbench TESTNAME help`, laid
//! out as Debian's sysbench 1.0.20 prints its own (`sysbench --help`,
//! `sysbench oltp_read_write help`): the same sections, descriptions and
//! `--name=TYPE` column, for the options loadlab supports; then loadlab's
//! own options, sysbench 0.4's, and those it does not support.

use crate::test_name::Test;

/// One option as sysbench lists it: `--name` + `fmt` (`=N`, `=STRING`,
/// `[=on|off]`, `=[LIST,...]`), its description and its default (`None`:
/// no `[…]`).
#[derive(Clone, Copy)]
struct Opt {
    name: &'static str,
    fmt: &'static str,
    desc: &'static str,
    default: Option<&'static str>,
}

const fn opt(
    name: &'static str,
    fmt: &'static str,
    desc: &'static str,
    default: Option<&'static str>,
) -> Opt {
    Opt {
        name,
        fmt,
        desc,
        default,
    }
}

const N: &str = "=N";
const S: &str = "=STRING";
const FLAG: &str = "[=on|off]";
const LIST: &str = "=[LIST,...]";

/// sysbench's option table: `--name=TYPE` padded to the longest in the
/// table plus one, the description, ` [default]`; a blank line after.
fn table(opts: &[Opt]) -> String {
    let width = opts
        .iter()
        .map(|o| o.name.len() + o.fmt.len())
        .max()
        .unwrap_or(0);
    let mut s = String::new();
    for o in opts {
        let pad = width - o.name.len() + 1;
        s.push_str(&format!("  --{}{:<pad$}{}", o.name, o.fmt, o.desc));
        if let Some(d) = o.default {
            s.push_str(&format!(" [{d}]"));
        }
        s.push('\n');
    }
    s.push('\n');
    s
}

const GENERAL: &[Opt] = &[
    opt("threads", N, "number of threads to use", Some("1")),
    opt("events", N, "limit for total number of events", Some("0")),
    opt(
        "time",
        N,
        "limit for total execution time in seconds",
        Some("10"),
    ),
    opt(
        "forced-shutdown",
        S,
        "number of seconds to wait after the --time limit before forcing shutdown, or 'off' to disable",
        Some("2"),
    ),
    opt(
        "rate",
        N,
        "average transactions rate. 0 for unlimited rate",
        Some("0"),
    ),
    opt(
        "report-interval",
        N,
        "periodically report intermediate statistics with a specified interval in seconds. 0 disables intermediate reports",
        Some("0"),
    ),
    opt("help", FLAG, "print help and exit", Some("off")),
    opt("version", FLAG, "print version and exit", Some("off")),
    opt("tx-rate", N, "deprecated alias for --rate", Some("0")),
    opt(
        "max-requests",
        N,
        "deprecated alias for --events",
        Some("0"),
    ),
    opt("max-time", N, "deprecated alias for --time", Some("0")),
    opt(
        "num-threads",
        N,
        "deprecated alias for --threads",
        Some("1"),
    ),
];

const RANDOM: &[Opt] = &[
    opt(
        "rand-type",
        S,
        "random numbers distribution {uniform,special}",
        Some("special"),
    ),
    opt(
        "rand-spec-pct",
        N,
        "percentage of values to be treated as 'special' (for special distribution)",
        Some("1"),
    ),
    opt(
        "rand-spec-res",
        N,
        "percentage of 'special' values to use (for special distribution)",
        Some("75"),
    ),
    opt(
        "rand-seed",
        N,
        "seed for random number generator. When 0, the current time is used as a RNG seed.",
        Some("0"),
    ),
];

const LOG: &[Opt] = &[opt(
    "verbosity",
    N,
    "verbosity level {5 - debug, 0 - only critical messages}",
    Some("3"),
)];

const LATENCY: &[Opt] = &[
    opt(
        "percentile",
        N,
        "percentile to calculate in latency statistics (1-100). Use the special value of 0 to disable percentile calculations",
        Some("95"),
    ),
    opt(
        "histogram",
        FLAG,
        "print latency histogram in report",
        Some("off"),
    ),
];

const DATABASE: &[Opt] = &[
    opt(
        "db-driver",
        S,
        "specifies database driver to use {mysql,pgsql}",
        Some("mysql"),
    ),
    opt(
        "db-ps-mode",
        S,
        "prepared statements usage mode {auto, disable}",
        Some("auto"),
    ),
];

const MYSQL: &[Opt] = &[
    opt("mysql-host", S, "MySQL server host", Some("localhost")),
    opt("mysql-port", N, "MySQL server port", Some("3306")),
    opt("mysql-user", S, "MySQL user", Some("sbtest")),
    opt(
        "mysql-password",
        S,
        "MySQL password (without it: $MYSQL_PWD)",
        Some(""),
    ),
    opt("mysql-db", S, "MySQL database name", Some("sbtest")),
    opt(
        "mysql-ignore-errors",
        LIST,
        "list of errors to ignore, or \"all\"",
        Some("1213,1020,1205"),
    ),
];

const PGSQL: &[Opt] = &[
    opt("pgsql-host", S, "PostgreSQL server host", Some("localhost")),
    opt("pgsql-port", N, "PostgreSQL server port", Some("5432")),
    opt("pgsql-user", S, "PostgreSQL user", Some("sbtest")),
    opt(
        "pgsql-password",
        S,
        "PostgreSQL password (without it: $PGPASSWORD)",
        Some(""),
    ),
    opt("pgsql-db", S, "PostgreSQL database name", Some("sbtest")),
];

const LOADLAB: &[Opt] = &[
    opt(
        "output",
        "=FILE",
        "(or -o FILE) write a results file of the run, for loadlab report and plot",
        None,
    ),
    opt(
        "client-threads",
        N,
        "OS threads the connections share; 0 or >= --threads: one per connection (blocking sockets, as sysbench: keeps its tps on a busy host); fewer: runtime threads (cheaper on a quiet host)",
        Some("0"),
    ),
    opt(
        "start-at",
        "=TIME",
        "start the events at TIME (RFC 3339 or Unix seconds) once every connection is made, as loadlab attack -start-at",
        None,
    ),
];

const OLTP04: &[Opt] = &[
    opt(
        "test",
        S,
        "test to run: oltp (sysbench 0.4.12's statement mix and report layout)",
        None,
    ),
    opt(
        "oltp-test-mode",
        S,
        "test type to use {simple,complex,nontrx}",
        Some("complex"),
    ),
    opt(
        "oltp-read-only",
        FLAG,
        "generate only 'read' queries (do not modify database)",
        Some("off"),
    ),
    opt(
        "oltp-skip-trx",
        FLAG,
        "skip BEGIN/COMMIT statements",
        Some("off"),
    ),
    opt(
        "oltp-range-size",
        N,
        "range size for range queries",
        Some("100"),
    ),
    opt(
        "oltp-point-selects",
        N,
        "number of point selects",
        Some("10"),
    ),
    opt(
        "oltp-simple-ranges",
        N,
        "number of simple ranges",
        Some("1"),
    ),
    opt("oltp-sum-ranges", N, "number of sum ranges", Some("1")),
    opt(
        "oltp-order-ranges",
        N,
        "number of ordered ranges",
        Some("1"),
    ),
    opt(
        "oltp-distinct-ranges",
        N,
        "number of distinct ranges",
        Some("1"),
    ),
    opt("oltp-index-updates", N, "number of index update", Some("1")),
    opt(
        "oltp-non-index-updates",
        N,
        "number of non-index updates",
        Some("1"),
    ),
    opt(
        "oltp-nontrx-mode",
        S,
        "mode for non-transactional test {select}",
        Some("select"),
    ),
    opt(
        "oltp-auto-inc",
        FLAG,
        "whether AUTO_INCREMENT (or equivalent) should be used on id column",
        Some("on"),
    ),
    opt(
        "oltp-table-size",
        N,
        "number of records in test table",
        Some("10000"),
    ),
    opt("oltp-tables-count", N, "number of test tables", Some("1")),
    opt(
        "oltp-dist-type",
        S,
        "random numbers distribution {uniform,special}",
        Some("special"),
    ),
    opt(
        "oltp-dist-pct",
        N,
        "percentage of values to be treated as 'special' (for special distribution)",
        Some("1"),
    ),
    opt(
        "oltp-dist-res",
        N,
        "percentage of 'special' values to use (for special distribution)",
        Some("75"),
    ),
    opt(
        "mysql-table-engine",
        S,
        "storage engine to use for the test table",
        Some("innodb"),
    ),
];

/// sysbench 1.0.20's options that loadlab refuses (or, `--db-debug`,
/// accepts without effect), with what the help says of them.
pub(crate) const UNSUPPORTED: &[&str] = &[
    "thread_stack_size",
    "report_checkpoints",
    "debug",
    "validate",
    "config_file",
    "rand_spec_iter",
    "rand_pareto_h",
    "mysql_ssl",
    "mysql_ssl_cipher",
    "mysql_compression",
    "mysql_debug",
    "mysql_dry_run",
    "pgsql_variant",
    "secondary",
    "oltp_reconnect_mode",
    "oltp_sp_name",
    "oltp_connect_delay",
    "oltp_user_delay_min",
    "oltp_user_delay_max",
    "oltp_table_name",
    "oltp_dist_iter",
    "mysql_engine_trx",
    "myisam_max_rows",
    "mysql_create_options",
    "init_rng",
];

const NOT_SUPPORTED: &str = "\
Not supported by loadlab (refused with a message):
  --thread-stack-size --report-checkpoints --debug --validate --config-file
  --rand-spec-iter --rand-pareto-h --rand-type=gaussian|pareto
  --mysql-socket (TCP only) --mysql-ssl --mysql-ssl-cipher --mysql-compression
  --mysql-debug --mysql-dry-run; several --mysql-host/--mysql-port values
  tests fileio cpu memory threads mutex, the prewarm command; of Lua scripts,
  what docs/sysbench.md does not list (named before any load)
  sysbench 0.4: --oltp-test-mode=sp, --oltp-nontrx-mode other than select,
  --oltp-reconnect-mode --oltp-sp-name --oltp-connect-delay --oltp-user-delay-min
  --oltp-user-delay-max --oltp-table-name --oltp-dist-iter --mysql-engine-trx
  --myisam-max-rows --mysql-create-options --init-rng
  --db-debug is accepted and has no effect.

";

/// The tests, as sysbench lists its compiled-in ones.
const TESTS: &str = "\
Compiled-in tests (sysbench 1.0's OLTP scripts; a .lua suffix or path is accepted):
  oltp_read_only - 10 point selects and 4 range selects in a transaction
  oltp_read_write - the reads of oltp_read_only, 2 updates, a delete and an insert
  oltp_write_only - the writes of oltp_read_write in a transaction
  oltp_point_select - 1 point select
  oltp_update_index - 1 update of the indexed column k
  oltp_update_non_index - 1 update of the column c
  oltp_insert - 1 insert
  oltp_delete - 1 delete
  select_random_points - 1 select of random k values
  select_random_ranges - 1 select of random k ranges

";

/// `loadlab sysbench --help`.
pub fn usage() -> String {
    let mut s = String::from(
        "Usage:\n  loadlab sysbench [options]... [testname] [command]\n  \
         loadlab sysbench --test=oltp [sysbench 0.4 options]... [command]\n\n\
         Commands implemented by most tests: prepare run cleanup help\n\n",
    );
    s.push_str("General options:\n");
    s.push_str(&table(GENERAL));
    s.push_str("Pseudo-Random Numbers Generator options:\n");
    s.push_str(&table(RANDOM));
    s.push_str("Log options:\n");
    s.push_str(&table(LOG));
    s.push_str(&table(LATENCY));
    s.push_str("General database options:\n\n");
    s.push_str(&table(DATABASE));
    s.push_str(
        "\nCompiled-in database drivers:\n  mysql - MySQL driver\n  pgsql - PostgreSQL driver\n\n",
    );
    s.push_str("mysql options:\n");
    s.push_str(&table(MYSQL));
    s.push_str("pgsql options:\n");
    s.push_str(&table(PGSQL));
    s.push_str(TESTS);
    s.push_str("loadlab options:\n");
    s.push_str(&table(LOADLAB));
    s.push_str(
        "sysbench 0.4 options (with --test=oltp; 0.4's --num-threads, --max-requests,\n\
         --max-time and --tx-rate are the aliases above):\n",
    );
    s.push_str(&table(OLTP04));
    s.push_str(NOT_SUPPORTED);
    s.push_str("See 'loadlab sysbench <testname> help' for a list of options for each test.\n\n");
    s
}

/// The options of sysbench 1.0.20's OLTP scripts (`oltp_common.lua`), in
/// the order its help prints them, the two loadlab lacks left out.
const TEST_OPTIONS: &[Opt] = &[
    opt(
        "auto_inc",
        FLAG,
        "Use AUTO_INCREMENT column as Primary Key (for MySQL), or its alternatives in other DBMS. When disabled, use client-generated IDs",
        Some("on"),
    ),
    opt(
        "create_secondary",
        FLAG,
        "Create a secondary index in addition to the PRIMARY KEY",
        Some("on"),
    ),
    opt(
        "delete_inserts",
        N,
        "Number of DELETE/INSERT combinations per transaction",
        Some("1"),
    ),
    opt("delta", N, "Size of BETWEEN ranges", Some("5")),
    opt(
        "distinct_ranges",
        N,
        "Number of SELECT DISTINCT queries per transaction",
        Some("1"),
    ),
    opt(
        "index_updates",
        N,
        "Number of UPDATE index queries per transaction",
        Some("1"),
    ),
    opt(
        "mysql_storage_engine",
        S,
        "Storage engine, if MySQL is used",
        Some("innodb"),
    ),
    opt(
        "non_index_updates",
        N,
        "Number of UPDATE non-index queries per transaction",
        Some("1"),
    ),
    opt(
        "number_of_ranges",
        N,
        "Number of random BETWEEN ranges per SELECT",
        Some("10"),
    ),
    opt(
        "order_ranges",
        N,
        "Number of SELECT ORDER BY queries per transaction",
        Some("1"),
    ),
    opt(
        "point_selects",
        N,
        "Number of point SELECT queries per transaction",
        Some("10"),
    ),
    opt(
        "random_points",
        N,
        "Number of random points in the IN() clause in generated SELECTs",
        Some("10"),
    ),
    opt(
        "range_selects",
        FLAG,
        "Enable/disable all range SELECT queries",
        Some("on"),
    ),
    opt(
        "range_size",
        N,
        "Range size for range SELECT queries",
        Some("100"),
    ),
    opt(
        "simple_ranges",
        N,
        "Number of simple range SELECT queries per transaction",
        Some("1"),
    ),
    opt(
        "skip_trx",
        FLAG,
        "Don't start explicit transactions and execute all queries in the AUTOCOMMIT mode",
        Some("off"),
    ),
    opt(
        "sum_ranges",
        N,
        "Number of SELECT SUM() queries per transaction",
        Some("1"),
    ),
    opt("table_size", N, "Number of rows per table", Some("10000")),
    opt("tables", N, "Number of tables", Some("1")),
];

/// `loadlab sysbench TESTNAME help`: the test's options as sysbench
/// 1.0.20 lists them (select_random_points adds --random_points,
/// select_random_ranges --delta and --number_of_ranges).
pub fn test_help(t: Test) -> String {
    let own: &[&str] = match t {
        Test::SelectRandomPoints => &["random_points"],
        Test::SelectRandomRanges => &["delta", "number_of_ranges"],
        _ => &[],
    };
    let opts: Vec<Opt> = TEST_OPTIONS
        .iter()
        .filter(|o| {
            !matches!(o.name, "random_points" | "delta" | "number_of_ranges")
                || own.contains(&o.name)
        })
        .copied()
        .collect();
    format!(
        "loadlab {} sysbench (sysbench 1.0.20 compatible)\n\n{} options:\n{}\
         Not supported by loadlab: --pgsql_variant, --secondary\n",
        env!("CARGO_PKG_VERSION"),
        t.name(),
        table(&opts)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_as_sysbench() {
        let t = table(&[
            opt("threads", N, "number of threads to use", Some("1")),
            opt(
                "histogram",
                FLAG,
                "print latency histogram in report",
                Some("off"),
            ),
            opt("output", "=FILE", "write a file", None),
        ]);
        assert_eq!(
            t,
            "  --threads=N          number of threads to use [1]\n  \
             --histogram[=on|off] print latency histogram in report [off]\n  \
             --output=FILE        write a file\n\n"
        );
    }

    #[test]
    fn every_unsupported_name_is_refused_not_taken() {
        for n in UNSUPPORTED {
            assert!(
                !super::super::KNOWN.contains(n),
                "{n} is both known and unsupported"
            );
        }
    }
}
