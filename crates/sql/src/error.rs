//! The crate's errors: [`Error`], why `loadlab sysbench` stopped, and
//! [`SqlError`], a failure of a connection or a statement: its [`ErrKind`]
//! and the MySQL-style error number `--mysql-ignore-errors` matches.

use std::fmt;

use crate::options::{Driver, Options};

/// What kind of failure, for the exit code and the one-line message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrKind {
    /// Nothing listens on the address (or it cannot be reached).
    Refused,
    /// The server refused the user name or password.
    Auth,
    /// The database does not exist (or the user may not use it).
    UnknownDb,
    /// The server has no connection slot left ("Too many connections").
    TooManyConnections,
    /// The connection broke (server killed, network gone).
    Lost,
    /// A table of the test does not exist.
    NoTable,
    /// A table to create exists already.
    TableExists,
    /// Any other server error (deadlock, lock wait timeout, duplicate key…).
    Other,
    /// A Lua script failed (an error of its own, not a statement's): never
    /// ignored, ends the run.
    Script,
}

/// One failure of a connection or a statement.
#[derive(Debug, Clone)]
pub struct SqlError {
    pub kind: ErrKind,
    /// MySQL error number (PostgreSQL's mapped to the MySQL equivalent).
    pub code: u32,
    /// The server's or the library's text (never holds the password).
    pub message: String,
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for SqlError {}

/// MySQL client error numbers used for failures without a server error.
pub mod codes {
    pub const CANT_CONNECT: u32 = 2002;
    pub const SERVER_GONE: u32 = 2006;
    pub const SERVER_LOST: u32 = 2013;
    pub const TOO_MANY_CONNECTIONS: u32 = 1040;
    pub const ACCESS_DENIED: u32 = 1045;
    pub const DB_ACCESS_DENIED: u32 = 1044;
    pub const BAD_DB: u32 = 1049;
    pub const TABLE_EXISTS: u32 = 1050;
    pub const NO_SUCH_TABLE: u32 = 1146;
    pub const DEADLOCK: u32 = 1213;
    pub const LOCK_WAIT_TIMEOUT: u32 = 1205;
    pub const DUP_ENTRY: u32 = 1062;
}

pub(crate) fn kind_of_code(code: u32) -> ErrKind {
    match code {
        codes::CANT_CONNECT => ErrKind::Refused,
        codes::ACCESS_DENIED => ErrKind::Auth,
        codes::BAD_DB | codes::DB_ACCESS_DENIED => ErrKind::UnknownDb,
        codes::TOO_MANY_CONNECTIONS => ErrKind::TooManyConnections,
        codes::SERVER_GONE | codes::SERVER_LOST | 2055 | 2011 => ErrKind::Lost,
        codes::NO_SUCH_TABLE => ErrKind::NoTable,
        codes::TABLE_EXISTS => ErrKind::TableExists,
        _ => ErrKind::Other,
    }
}

pub(crate) fn io_error(e: &std::io::Error, connecting: bool) -> SqlError {
    use std::io::ErrorKind as K;
    let refused = matches!(
        e.kind(),
        K::ConnectionRefused | K::AddrNotAvailable | K::NotFound | K::TimedOut
    ) || (connecting
        && matches!(e.kind(), K::HostUnreachable | K::NetworkUnreachable));
    if refused && connecting {
        SqlError {
            kind: ErrKind::Refused,
            code: codes::CANT_CONNECT,
            message: e.to_string(),
        }
    } else {
        SqlError {
            kind: ErrKind::Lost,
            code: codes::SERVER_LOST,
            message: format!("lost connection to server: {e}"),
        }
    }
}

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
    /// A Lua script failed: its own error, or a command it lacks.
    #[error("{0}")]
    Script(String),
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
            ErrKind::Script => Error::Script(e.message),
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
            ErrKind::Script => Error::Script(e.message),
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
pub(crate) fn table_in(msg: &str) -> Option<String> {
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
