//! loadlab's SQL side: `loadlab sysbench`.
//!
//! * [`options`]: sysbench 1.0's command line and sysbench 0.4's (seed
//!   002's lines run verbatim), parsed once into [`Options`];
//! * [`driver`]: one connection to MariaDB/MySQL ([`mysql_wire`], a lean
//!   client of our own that skips rows unread) or PostgreSQL (`tokio-postgres`), statements prepared once, failures
//!   classified;
//! * [`workload`]: the ten OLTP tests of sysbench 1.0 and what one event
//!   (transaction) runs;
//! * [`data`]: `prepare` and `cleanup` of `sbtest1..N`, the same tables
//!   and values as sysbench's;
//! * [`runner`]: the run: threads as tasks of current-thread runtimes, or
//!   (MySQL, one connection by default) OS threads with blocking sockets,
//!   closed model or `--rate` (open model, latency also from the intended
//!   start), interval lines, a results file (format v2) of transactions
//!   and statements;
//! * [`report`]: sysbench 1.0.20's text layout over the figures of
//!   [`loadlab_metrics::Distribution`].

pub mod data;
pub mod driver;
pub mod error;
pub mod mysql_wire;
pub mod options;
pub mod param;
pub mod rand;
pub mod report;
pub mod runner;
pub mod test_name;
pub mod workload;

use std::io::Write;
use std::sync::Arc;

pub use error::{ErrKind, SqlError};
pub use options::{Command, Driver, Options, Parsed, USAGE, parse};
pub use test_name::Test;

/// Why `loadlab sysbench` stopped: each one line, each its own exit code
/// (see `docs/exit-codes.md`). Never holds the password.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "cannot connect to {server} at {addr}: {msg} (is the server running? check --{driver}-host and --{driver}-port)"
    )]
    Refused {
        server: &'static str,
        driver: &'static str,
        addr: String,
        msg: String,
    },
    #[error(
        "{server} at {addr} refused the login of user '{user}': wrong user name or password (error {code}: {msg})"
    )]
    Auth {
        server: &'static str,
        addr: String,
        user: String,
        code: u32,
        msg: String,
    },
    #[error(
        "database '{db}' does not exist on {server} at {addr}, or user '{user}' may not use it (error {code}: {msg}); create it first: CREATE DATABASE {db}"
    )]
    UnknownDb {
        server: &'static str,
        addr: String,
        db: String,
        user: String,
        code: u32,
        msg: String,
    },
    #[error(
        "{server} at {addr} has no free connection for --threads={threads}: {msg} (error {code}); raise the server's max_connections, lower --threads, or count it with --mysql-ignore-errors={code}"
    )]
    TooManyConnections {
        server: &'static str,
        addr: String,
        threads: u32,
        code: u32,
        msg: String,
    },
    #[error(
        "table '{table}' does not exist in database '{db}': run 'loadlab sysbench {test} prepare' first, with the same --tables and --table-size"
    )]
    TablesMissing {
        table: String,
        db: String,
        test: &'static str,
    },
    #[error(
        "table '{table}' already exists in database '{db}' ({count} of the test's tables exist); nothing was changed: run 'cleanup' first to make them again"
    )]
    TablesExist {
        table: String,
        db: String,
        count: usize,
    },
    #[error(
        "lost the connection to {server} at {addr} during the run, after {transactions} transactions (error {code}: {msg}); was the server stopped? (add {code} to --mysql-ignore-errors to reconnect instead)"
    )]
    Lost {
        server: &'static str,
        addr: String,
        transactions: u64,
        code: u32,
        msg: String,
    },
    #[error("{server} error {code} during {during}: {msg}{hint}")]
    Sql {
        server: &'static str,
        during: &'static str,
        code: u32,
        msg: String,
        hint: String,
    },
    #[error("cannot write results file {path}: {err}")]
    Output { path: String, err: String },
    #[error("cannot start the runtime: {0}")]
    Runtime(String),
}

impl Error {
    fn server(o: &Options) -> &'static str {
        match o.driver {
            Driver::Mysql => "MySQL server",
            Driver::Pgsql => "PostgreSQL server",
        }
    }

    fn addr(o: &Options) -> String {
        format!("{}:{}", o.conn.host, o.conn.port)
    }

    /// A failure while connecting (or checking the tables).
    pub fn connect(o: &Options, e: SqlError) -> Error {
        let (server, addr) = (Self::server(o), Self::addr(o));
        match e.kind {
            ErrKind::Refused => Error::Refused {
                server,
                driver: o.driver.name(),
                addr,
                msg: e.message,
            },
            ErrKind::Auth => Error::Auth {
                server,
                addr,
                user: o.conn.user.clone(),
                code: e.code,
                msg: e.message,
            },
            ErrKind::UnknownDb => Error::UnknownDb {
                server,
                addr,
                db: o.conn.db.clone(),
                user: o.conn.user.clone(),
                code: e.code,
                msg: e.message,
            },
            ErrKind::TooManyConnections => Error::TooManyConnections {
                server,
                addr,
                threads: o.threads,
                code: e.code,
                msg: e.message,
            },
            ErrKind::NoTable => Error::TablesMissing {
                table: table_in(&e.message).unwrap_or_else(|| "sbtest1".into()),
                db: o.conn.db.clone(),
                test: o.test.name(),
            },
            _ => Self::sql_during(o, e, "connect"),
        }
    }

    /// A failure of a statement outside the run (prepare, cleanup).
    pub fn sql(o: &Options, e: SqlError) -> Error {
        match e.kind {
            ErrKind::Lost => Error::Lost {
                server: Self::server(o),
                addr: Self::addr(o),
                transactions: 0,
                code: e.code,
                msg: e.message,
            },
            _ => Self::sql_during(o, e, "prepare/cleanup"),
        }
    }

    fn sql_during(o: &Options, e: SqlError, during: &'static str) -> Error {
        Error::Sql {
            server: Self::server(o),
            during,
            code: e.code,
            msg: e.message,
            hint: String::new(),
        }
    }

    /// A failure that ended a run.
    pub fn during_run(o: &Options, e: SqlError, transactions: u64) -> Error {
        match e.kind {
            ErrKind::Lost | ErrKind::Refused => Error::Lost {
                server: Self::server(o),
                addr: Self::addr(o),
                transactions,
                code: e.code,
                msg: e.message,
            },
            ErrKind::TooManyConnections | ErrKind::Auth | ErrKind::UnknownDb => Self::connect(o, e),
            _ => Error::Sql {
                server: Self::server(o),
                during: "the run",
                code: e.code,
                msg: e.message,
                hint: format!(
                    " (the run stopped after {transactions} transactions; add {} to --mysql-ignore-errors to roll back and retry instead)",
                    e.code
                ),
            },
        }
    }
}

/// `sbtest2` out of "Table 'sbtest.sbtest2' doesn't exist" or
/// `relation "sbtest2" does not exist`.
fn table_in(msg: &str) -> Option<String> {
    let i = msg.find("sbtest")?;
    let rest = &msg[i..];
    // Skip a database qualifier ("sbtest." of sbtest.sbtest2).
    let rest = match rest.find('.') {
        Some(d) if d < rest.find(['\'', '"']).unwrap_or(usize::MAX) => &rest[d + 1..],
        _ => rest,
    };
    let end = rest
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

/// The first line of `prepare` and `cleanup`, printed once the server
/// has let us in (so that a failure leaves stdout empty).
pub(crate) fn banner_line(out: &mut dyn Write) {
    let _ = writeln!(
        out,
        "loadlab {} sysbench (sysbench 1.0.20 compatible)\n",
        env!("CARGO_PKG_VERSION")
    );
}

pub(crate) fn now_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(1)
        | 1
}

/// Runs one command (prepare, run or cleanup), printing sysbench's layout
/// on `out`.
pub fn execute(o: Options, out: &mut dyn Write) -> Result<(), Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Runtime(e.to_string()))?;
    let o = Arc::new(o);
    rt.block_on(async {
        match o.command {
            Command::Prepare => data::prepare(&o, out).await,
            Command::Cleanup => data::cleanup(&o, out).await,
            Command::Run => runner::run(o.clone(), out).await,
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_names_from_server_messages() {
        assert_eq!(
            super::table_in("Table 'sbtest.sbtest2' doesn't exist").as_deref(),
            Some("sbtest2")
        );
        assert_eq!(
            super::table_in("relation \"sbtest3\" does not exist (SQLSTATE 42P01)").as_deref(),
            Some("sbtest3")
        );
    }
}
