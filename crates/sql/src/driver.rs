//! The SQL transports: one connection to MariaDB/MySQL (loadlab's own lean
//! client, [`crate::mysql_wire`]) or
//! PostgreSQL (`tokio-postgres`), with the statements of a workload
//! prepared once (or sent as text with `--db-ps-mode=disable`), and every
//! failure classified into an [`ErrKind`] plus a MySQL-style error number,
//! which is what `--mysql-ignore-errors` matches. PostgreSQL's SQLSTATEs are
//! mapped to the MySQL number of the same failure (deadlock 40P01 → 1213,
//! too many connections 53300 → 1040, …) so one list works for both.

pub use crate::error::{ErrKind, SqlError, codes};
use crate::error::{io_error, kind_of_code};
use crate::options::{Conninfo, Driver, PsMode};
pub use crate::param::Param;

fn pg_error(e: tokio_postgres::Error, connecting: bool) -> SqlError {
    if let Some(db) = e.as_db_error() {
        let code = match db.code().code() {
            "28P01" | "28000" => codes::ACCESS_DENIED,
            "3D000" => codes::BAD_DB,
            "53300" => codes::TOO_MANY_CONNECTIONS,
            "42P01" => codes::NO_SUCH_TABLE,
            "42P07" => codes::TABLE_EXISTS,
            "40P01" => codes::DEADLOCK,
            "40001" => codes::DEADLOCK,
            "55P03" => codes::LOCK_WAIT_TIMEOUT,
            "23505" => codes::DUP_ENTRY,
            "57P01" | "57P02" | "57P03" => codes::SERVER_GONE,
            _ => 0,
        };
        return SqlError {
            kind: kind_of_code(code),
            code,
            message: format!("{} (SQLSTATE {})", db.message(), db.code().code()),
        };
    }
    let mut src: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(&e);
    while let Some(s) = src {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return io_error(io, connecting);
        }
        src = s.source();
    }
    if e.is_closed() || !connecting {
        return SqlError {
            kind: ErrKind::Lost,
            code: codes::SERVER_LOST,
            message: format!("lost connection to server: {e}"),
        };
    }
    SqlError {
        kind: ErrKind::Other,
        code: 0,
        message: e.to_string(),
    }
}

fn no_connection() -> SqlError {
    SqlError {
        kind: ErrKind::Lost,
        code: codes::SERVER_LOST,
        message: "no connection".into(),
    }
}

/// `?` placeholders filled with literal values, for text queries.
fn inline(sql: &str, params: &[Param<'_>], out: &mut String) {
    out.clear();
    let mut it = params.iter();
    for ch in sql.chars() {
        if ch == '?' {
            match it.next() {
                Some(Param::Int(i)) => {
                    use std::fmt::Write;
                    let _ = write!(out, "{i}");
                }
                Some(Param::Str(s)) => {
                    out.push('\'');
                    for c in s.chars() {
                        if c == '\'' || c == '\\' {
                            out.push(c);
                        }
                        out.push(c);
                    }
                    out.push('\'');
                }
                None => out.push('?'),
            }
        } else {
            out.push(ch);
        }
    }
}

/// `?` placeholders of `sql` filled with `params` as literals (a
/// statement the server would not prepare, sent as text).
pub(crate) fn inline_params(sql: &str, params: &[Param<'_>], out: &mut String) {
    inline(sql, params, out)
}

/// `?` → `$1`, `$2`… for PostgreSQL.
fn dollar(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut n = 0;
    for ch in sql.chars() {
        if ch == '?' {
            n += 1;
            out.push('$');
            out.push_str(&n.to_string());
        } else {
            out.push(ch);
        }
    }
    out
}

enum Inner {
    My {
        conn: crate::mysql_wire::Conn,
        stmts: Vec<crate::mysql_wire::Stmt>,
    },
    /// MySQL on a blocking socket: the connection has an OS thread of its
    /// own, which runs this `Conn`'s futures with [`crate::mysql_wire::ready`].
    MyBlocking {
        conn: crate::mysql_wire::Conn<crate::mysql_wire::Blocking>,
        stmts: Vec<crate::mysql_wire::Stmt>,
    },
    Pg {
        client: tokio_postgres::Client,
        stmts: Vec<tokio_postgres::Statement>,
        task: tokio::task::JoinHandle<()>,
    },
    /// No connection: the thread of a Lua script, whose connections are
    /// the script's own (`crate::lua`).
    None,
}

/// One connection with its statements.
pub struct Conn {
    inner: Inner,
    ps: PsMode,
    /// The statements' SQL with `?` placeholders, by index.
    sql: Vec<String>,
    text: String,
}

impl Conn {
    /// Connects (no statements yet).
    pub async fn connect(driver: Driver, ci: &Conninfo, ps: PsMode) -> Result<Conn, SqlError> {
        Self::connect_with(driver, ci, ps, false).await
    }

    /// [`Conn::connect`]; with `blocking`, a MySQL connection is made on a
    /// blocking socket, for a thread of its own that drives this `Conn`'s
    /// futures with [`crate::mysql_wire::ready`] (PostgreSQL's is always a
    /// tokio task).
    pub async fn connect_with(
        driver: Driver,
        ci: &Conninfo,
        ps: PsMode,
        blocking: bool,
    ) -> Result<Conn, SqlError> {
        let inner = match driver {
            Driver::Mysql if blocking => {
                let host = if ci.host == "localhost" {
                    "127.0.0.1"
                } else {
                    &ci.host
                };
                let conn = crate::mysql_wire::Conn::connect_blocking(
                    host,
                    ci.port,
                    &ci.user,
                    &ci.password,
                    &ci.db,
                )
                .await?;
                Inner::MyBlocking {
                    conn,
                    stmts: Vec::new(),
                }
            }
            Driver::Mysql => {
                let host = if ci.host == "localhost" {
                    "127.0.0.1".to_string()
                } else {
                    ci.host.clone()
                };
                let conn = crate::mysql_wire::Conn::connect(
                    &host,
                    ci.port,
                    &ci.user,
                    &ci.password,
                    &ci.db,
                )
                .await?;
                Inner::My {
                    conn,
                    stmts: Vec::new(),
                }
            }
            Driver::Pgsql => {
                let mut cfg = tokio_postgres::Config::new();
                cfg.host(if ci.host == "localhost" {
                    "127.0.0.1"
                } else {
                    &ci.host
                })
                .port(ci.port)
                .user(&ci.user)
                .password(&ci.password)
                .dbname(&ci.db)
                .application_name("loadlab-sysbench");
                let (client, connection) = cfg
                    .connect(tokio_postgres::NoTls)
                    .await
                    .map_err(|e| pg_error(e, true))?;
                let task = tokio::spawn(async move {
                    let _ = connection.await;
                });
                Inner::Pg {
                    client,
                    stmts: Vec::new(),
                    task,
                }
            }
        };
        Ok(Conn {
            inner,
            ps,
            sql: Vec::new(),
            text: String::new(),
        })
    }

    /// A `Conn` with no connection behind it: every statement fails as on
    /// a lost connection.
    pub fn none() -> Conn {
        Conn {
            inner: Inner::None,
            ps: PsMode::Disable,
            sql: Vec::new(),
            text: String::new(),
        }
    }

    /// Prepares `sql` (with `?` placeholders) as statement number
    /// `self.len()`.
    pub async fn prepare(&mut self, sql: &str) -> Result<usize, SqlError> {
        if self.ps == PsMode::Auto {
            match &mut self.inner {
                Inner::My { conn, stmts } => {
                    stmts.push(conn.prepare(sql).await?);
                }
                Inner::MyBlocking { conn, stmts } => {
                    stmts.push(conn.prepare(sql).await?);
                }
                Inner::Pg { client, stmts, .. } => {
                    let s = client
                        .prepare(&dollar(sql))
                        .await
                        .map_err(|e| pg_error(e, false))?;
                    stmts.push(s);
                }
                Inner::None => return Err(no_connection()),
            }
        }
        self.sql.push(sql.to_string());
        Ok(self.sql.len() - 1)
    }

    /// Runs prepared statement `i` with `params`, reading and dropping any
    /// rows; returns how many rows it returned or, without rows, changed
    /// (sysbench counts a write that changed none as "other").
    pub async fn exec(&mut self, i: usize, params: &[Param<'_>]) -> Result<u64, SqlError> {
        if self.ps == PsMode::Disable {
            let mut text = std::mem::take(&mut self.text);
            inline(&self.sql[i], params, &mut text);
            let r = self.query(&text).await;
            self.text = text;
            return r;
        }
        match &mut self.inner {
            Inner::My { conn, stmts } => conn.exec(stmts[i], params).await,
            Inner::MyBlocking { conn, stmts } => conn.exec(stmts[i], params).await,
            Inner::Pg { client, stmts, .. } => {
                // sysbench's columns are INTEGER: ids and k as i32.
                let mut ints: [i32; 32] = [0; 32];
                let mut refs: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
                    Vec::with_capacity(params.len());
                for (n, p) in params.iter().enumerate().take(32) {
                    if let Param::Int(v) = p {
                        ints[n] = *v as i32;
                    }
                }
                for (n, p) in params.iter().enumerate().take(32) {
                    match p {
                        Param::Int(_) => refs.push(&ints[n]),
                        Param::Str(s) => refs.push(s),
                    }
                }
                client
                    .execute(&stmts[i], &refs)
                    .await
                    .map_err(|e| pg_error(e, false))
            }
            Inner::None => Err(no_connection()),
        }
    }

    /// Runs one text statement, dropping any rows; returns how many rows
    /// it returned or changed, as [`Conn::exec`].
    pub async fn query(&mut self, sql: &str) -> Result<u64, SqlError> {
        match &mut self.inner {
            Inner::My { conn, .. } => conn.query(sql).await,
            Inner::MyBlocking { conn, .. } => conn.query(sql).await,
            Inner::Pg { client, .. } => client
                .simple_query(sql)
                .await
                .map(|msgs| {
                    msgs.iter()
                        .map(|m| match m {
                            tokio_postgres::SimpleQueryMessage::CommandComplete(n) => *n,
                            _ => 0,
                        })
                        .sum()
                })
                .map_err(|e| pg_error(e, false)),
            Inner::None => Err(no_connection()),
        }
    }

    /// The first column of the first row of `sql` as text (for checks).
    pub async fn query_one(&mut self, sql: &str) -> Result<Option<String>, SqlError> {
        match &mut self.inner {
            Inner::My { conn, .. } => conn.query_one(sql).await,
            Inner::MyBlocking { conn, .. } => conn.query_one(sql).await,
            Inner::Pg { client, .. } => {
                let msgs = client
                    .simple_query(sql)
                    .await
                    .map_err(|e| pg_error(e, false))?;
                for m in msgs {
                    if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
                        return Ok(r.get(0).map(str::to_string));
                    }
                }
                Ok(None)
            }
            Inner::None => Err(no_connection()),
        }
    }

    /// A second handle on the socket of a blocking connection, whose
    /// `shutdown` from another thread ends a `read` blocked in it (`None`
    /// for a connection that is a tokio task).
    pub fn blocking_socket(&self) -> Option<std::net::TcpStream> {
        match &self.inner {
            Inner::MyBlocking { conn, .. } => conn.socket().try_clone().ok(),
            _ => None,
        }
    }

    /// Closes the connection politely.
    pub async fn close(self) {
        match self.inner {
            Inner::My { conn, .. } => conn.close().await,
            Inner::MyBlocking { conn, .. } => conn.close().await,
            Inner::Pg { client, task, .. } => {
                drop(client);
                let _ = task.await;
            }
            Inner::None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_statements_quote_strings() {
        let mut s = String::new();
        inline(
            "UPDATE t SET c=? WHERE id=?",
            &[Param::Str("a'b\\"), Param::Int(-7)],
            &mut s,
        );
        assert_eq!(s, "UPDATE t SET c='a''b\\\\' WHERE id=-7");
        assert_eq!(dollar("id BETWEEN ? AND ?"), "id BETWEEN $1 AND $2");
    }
}
