//! loadlab's SQL side: `loadlab sysbench`.
//!
//! * [`options`]: sysbench 1.0's command line and sysbench 0.4's (the
//!   MySQL thread sweep's lines run verbatim), parsed once into [`Options`];
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
//!   [`loadlab_metrics::Distribution`]; [`report04`]: sysbench 0.4.12's,
//!   for the 0.4 lines.

pub mod data;
pub mod driver;
pub mod error;
pub mod lua;
pub mod mysql_wire;
pub mod options;
pub mod param;
pub mod rand;
pub mod report;
pub mod report04;
pub mod runner;
pub mod test_name;
pub mod workload;

use std::io::Write;
use std::sync::Arc;

#[cfg(test)]
use error::table_in;
pub use error::{ErrKind, Error, SqlError};
pub use options::{Command, Driver, Options, Parsed, parse, parse_with, test_help, usage};
pub use runner::{Ended, QUEUE_LIMIT};
pub use test_name::Test;

/// The first lines of `prepare` and `cleanup`, printed once the server
/// has let us in (so that a failure leaves stdout empty): sysbench 1.0's
/// or, on a 0.4 line, 0.4's, at the verbosity asked for.
pub(crate) fn banner_line(o: &Options, out: &mut dyn Write) {
    match &o.legacy {
        Some(l) => {
            let _ = out.write_all(report04::start(o, l).as_bytes());
        }
        None if o.verbosity >= options::LOG_NOTICE => {
            let _ = writeln!(
                out,
                "loadlab {} sysbench (sysbench 1.0.20 compatible)\n",
                env!("CARGO_PKG_VERSION")
            );
        }
        None => {}
    }
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
    execute_until(o, out, std::future::pending()).map(|_| ())
}

/// [`execute`], with a future that interrupts a `run` when it resolves
/// (the command line's Ctrl-C): the run stops as at its time limit and
/// its statistics cover the time it ran. `prepare` and `cleanup` do not
/// poll it.
pub fn execute_until(
    o: Options,
    out: &mut dyn Write,
    interrupt: impl std::future::Future<Output = ()>,
) -> Result<Ended, Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Runtime(e.to_string()))?;
    let o = Arc::new(o);
    rt.block_on(async {
        match o.command {
            Command::Prepare | Command::Cleanup if o.script.is_some() => {
                lua::command(o.clone(), out)
                    .await
                    .map(|()| Ended::Completed)
            }
            Command::Prepare => data::prepare(&o, out).await.map(|()| Ended::Completed),
            Command::Cleanup => data::cleanup(&o, out).await.map(|()| Ended::Completed),
            Command::Run => runner::run(o.clone(), out, interrupt).await,
        }
    })
}

/// What `run` checks before any load, alone: one connection (server,
/// login, database) and, for `run`, the test's tables. Nothing is
/// written; the connection is closed.
pub fn check_connection(o: &Options) -> Result<(), Error> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Runtime(e.to_string()))?;
    rt.block_on(async {
        let mut conn = driver::Conn::connect(o.driver, &o.conn, o.ps_mode)
            .await
            .map_err(|e| Error::connect(o, e))?;
        let exist = data::existing_tables(&mut conn, o.tables)
            .await
            .map_err(|e| Error::connect(o, e))?;
        conn.close().await;
        if o.command == Command::Run
            && o.script.is_none()
            && let Some(t) = (1..=o.tables).find(|t| !exist.contains(t))
        {
            return Err(Error::TablesMissing {
                table: format!("sbtest{t}"),
                db: o.conn.db.clone(),
                test: o.test.name(),
            });
        }
        Ok(())
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
