//! A failure of a connection or a statement: its [`ErrKind`] and the
//! MySQL-style error number `--mysql-ignore-errors` matches.

use std::fmt;

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
