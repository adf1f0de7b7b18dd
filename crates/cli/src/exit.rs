//! Exit codes, one per kind of failure, documented in docs/exit-codes.md.

// The table lists every face's codes; a build without some faces (cargo
// features) uses fewer of them.
#![cfg_attr(not(feature = "full"), allow(dead_code))]

use std::fmt::Display;

pub const OK: i32 = 0;
/// An unexpected internal failure.
pub const INTERNAL: i32 = 1;
/// A bad flag or flag value (clap's own code for usage errors).
pub const USAGE: i32 = 2;
/// A malformed input file: targets, results, recipe, plan.
pub const BAD_INPUT: i32 = 3;
/// A file that cannot be read or written.
pub const IO: i32 = 4;
/// The network: cannot bind, cannot reach what must be reached.
pub const NETWORK: i32 = 5;
/// Kubernetes: no kubeconfig and not in a cluster, the API refused or
/// could not be reached, or the Job did not finish in time (`loadlab k8s run`).
pub const CLUSTER: i32 = 6;
/// `loadlab study`: every request of a run failed to connect (the target
/// is down); the run is stored and the study stops.
pub const TARGET_UNREACHABLE: i32 = 7;
/// A face this build was made without (the cargo features `k6`,
/// `sysbench`, `cluster`): `loadlab k6` in a default build, an `s3://` URL.
pub const NOT_BUILT: i32 = 8;
/// `loadlab runs check`: a change point for the worse, or a significant
/// regression beyond the margin, since the given study.
pub const REGRESSION: i32 = 9;
/// `k6 run`: a threshold was crossed (as k6).
pub const THRESHOLDS_FAILED: i32 = 99;
/// `loadlab sysbench`: the database server refused the user name or password.
pub const DB_LOGIN: i32 = 20;
/// `loadlab sysbench`: the database does not exist (or the user may not use it).
pub const DB_UNKNOWN_DATABASE: i32 = 21;
/// `loadlab sysbench run`: the test's tables are not there (not prepared).
pub const DB_TABLES_MISSING: i32 = 22;
/// `loadlab sysbench prepare`: the test's tables exist already.
pub const DB_TABLES_EXIST: i32 = 23;
/// `loadlab sysbench`: "Too many connections", not in --mysql-ignore-errors.
pub const DB_TOO_MANY_CONNECTIONS: i32 = 24;
/// `loadlab sysbench run`: the connection was lost mid-run (server killed).
pub const DB_CONNECTION_LOST: i32 = 25;
/// `loadlab sysbench`: any other SQL error not in --mysql-ignore-errors.
pub const DB_SQL_ERROR: i32 = 26;
/// `loadlab sysbench run --rate`: more transactions due and not started
/// than sysbench's event queue holds (the threads cannot keep up).
pub const DB_RATE_UNREACHABLE: i32 = 27;
/// `loadlab sysbench SCRIPT.lua`: the Lua script cannot run (cannot be
/// read, a syntax error, an error of its own, a command it lacks).
pub const LUA_SCRIPT: i32 = 28;
/// `loadlab sysbench SCRIPT.lua`: the script uses a part of sysbench's
/// Lua API that loadlab does not have (found before any load).
pub const LUA_UNSUPPORTED: i32 = 29;
/// A study stopped by Ctrl-C or SIGTERM before its last step (128 + SIGINT);
/// `loadlab study --resume` continues it.
pub const INTERRUPTED: i32 = 130;

/// An error that ends the process with a message and a distinct exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: i32,
    pub message: String,
}

impl CliError {
    pub fn new(code: i32, message: impl Display) -> Self {
        CliError {
            code,
            message: message.to_string(),
        }
    }
    pub fn usage(message: impl Display) -> Self {
        Self::new(USAGE, message)
    }
    pub fn bad_input(message: impl Display) -> Self {
        Self::new(BAD_INPUT, message)
    }
    pub fn io(message: impl Display) -> Self {
        Self::new(IO, message)
    }
    pub fn network(message: impl Display) -> Self {
        Self::new(NETWORK, message)
    }
    pub fn internal(message: impl Display) -> Self {
        Self::new(INTERNAL, message)
    }
}

/// The exit code of each failure (docs/exit-codes.md).
#[cfg(feature = "sysbench")]
pub fn sql_code(e: &loadlab_sql::Error) -> i32 {
    match e {
        loadlab_sql::Error::Refused { .. } => NETWORK,
        loadlab_sql::Error::Auth { .. } => DB_LOGIN,
        loadlab_sql::Error::UnknownDb { .. } => DB_UNKNOWN_DATABASE,
        loadlab_sql::Error::TablesMissing { .. } => DB_TABLES_MISSING,
        loadlab_sql::Error::TablesExist { .. } => DB_TABLES_EXIST,
        loadlab_sql::Error::TooManyConnections { .. } => DB_TOO_MANY_CONNECTIONS,
        loadlab_sql::Error::Lost { .. } => DB_CONNECTION_LOST,
        loadlab_sql::Error::Sql { .. } => DB_SQL_ERROR,
        loadlab_sql::Error::Output { .. } => IO,
        loadlab_sql::Error::Runtime(_) => INTERNAL,
        loadlab_sql::Error::Script(_) => LUA_SCRIPT,
    }
}
