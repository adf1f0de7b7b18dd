//! sysbench 1.0's OLTP workloads: the tests, their statements and what one
//! event (transaction) runs, as the Lua scripts of Debian's sysbench 1.0.20
//! define them (`/usr/share/sysbench/*.lua`); sysbench 0.4's `--test=oltp`
//! mix, which differs, in `legacy`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use crate::driver::{Conn, Param, SqlError};
use crate::options::{Driver, Options};
use crate::rand::{C_TEMPLATE, PAD_TEMPLATE, Rand};

pub use crate::test_name::Test;

mod legacy;

impl Test {
    /// Statement kinds a thread prepares for each table (BEGIN/COMMIT and
    /// oltp_insert's INSERT are sent as text).
    fn prepared(self, o: &Options) -> Vec<Stmt> {
        use Stmt::*;
        let ranges = [SimpleRange, SumRange, OrderRange, DistinctRange];
        let mut v = Vec::new();
        match self {
            Test::OltpReadOnly | Test::OltpReadWrite => {
                v.push(PointSelect);
                if o.range_selects {
                    v.extend(ranges);
                }
                if self == Test::OltpReadWrite {
                    v.extend([IndexUpdate, NonIndexUpdate, Delete, Insert]);
                }
            }
            Test::OltpWriteOnly => v.extend([IndexUpdate, NonIndexUpdate, Delete, Insert]),
            Test::OltpPointSelect => v.push(PointSelect),
            Test::OltpUpdateIndex => v.push(IndexUpdate),
            Test::OltpUpdateNonIndex => v.push(NonIndexUpdate),
            Test::OltpInsert => {}
            Test::OltpDelete => v.push(Delete),
            Test::SelectRandomPoints => v.push(RandomPoints),
            Test::SelectRandomRanges => v.push(RandomRanges),
        }
        v
    }

    /// The tests that wrap an event in BEGIN/COMMIT (unless `--skip-trx`).
    fn transactional(self) -> bool {
        matches!(
            self,
            Test::OltpReadOnly | Test::OltpReadWrite | Test::OltpWriteOnly
        )
    }
}

/// What sysbench counts a statement as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Read = 0,
    Write = 1,
    Other = 2,
}

/// The statement kinds (a series each in the results file, tag `statement`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stmt {
    PointSelect,
    SimpleRange,
    SumRange,
    OrderRange,
    DistinctRange,
    IndexUpdate,
    NonIndexUpdate,
    Delete,
    Insert,
    RandomPoints,
    RandomRanges,
    Begin,
    Commit,
    Rollback,
}

impl Stmt {
    pub const ALL: [Stmt; 14] = [
        Stmt::PointSelect,
        Stmt::SimpleRange,
        Stmt::SumRange,
        Stmt::OrderRange,
        Stmt::DistinctRange,
        Stmt::IndexUpdate,
        Stmt::NonIndexUpdate,
        Stmt::Delete,
        Stmt::Insert,
        Stmt::RandomPoints,
        Stmt::RandomRanges,
        Stmt::Begin,
        Stmt::Commit,
        Stmt::Rollback,
    ];

    pub fn tag(self) -> &'static str {
        match self {
            Stmt::PointSelect => "point_select",
            Stmt::SimpleRange => "simple_range",
            Stmt::SumRange => "sum_range",
            Stmt::OrderRange => "order_range",
            Stmt::DistinctRange => "distinct_range",
            Stmt::IndexUpdate => "index_update",
            Stmt::NonIndexUpdate => "non_index_update",
            Stmt::Delete => "delete",
            Stmt::Insert => "insert",
            Stmt::RandomPoints => "random_points",
            Stmt::RandomRanges => "random_ranges",
            Stmt::Begin => "begin",
            Stmt::Commit => "commit",
            Stmt::Rollback => "rollback",
        }
    }

    pub fn class(self) -> Class {
        match self {
            Stmt::PointSelect
            | Stmt::SimpleRange
            | Stmt::SumRange
            | Stmt::OrderRange
            | Stmt::DistinctRange
            | Stmt::RandomPoints
            | Stmt::RandomRanges => Class::Read,
            Stmt::IndexUpdate | Stmt::NonIndexUpdate | Stmt::Delete | Stmt::Insert => Class::Write,
            Stmt::Begin | Stmt::Commit | Stmt::Rollback => Class::Other,
        }
    }

    fn sql(self, t: u32, o: &Options) -> String {
        match self {
            Stmt::PointSelect => format!("SELECT c FROM sbtest{t} WHERE id=?"),
            Stmt::SimpleRange => format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Stmt::SumRange => format!("SELECT SUM(k) FROM sbtest{t} WHERE id BETWEEN ? AND ?"),
            Stmt::OrderRange => {
                format!("SELECT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Stmt::DistinctRange => {
                format!("SELECT DISTINCT c FROM sbtest{t} WHERE id BETWEEN ? AND ? ORDER BY c")
            }
            Stmt::IndexUpdate => format!("UPDATE sbtest{t} SET k=k+1 WHERE id=?"),
            Stmt::NonIndexUpdate => format!("UPDATE sbtest{t} SET c=? WHERE id=?"),
            Stmt::Delete => format!("DELETE FROM sbtest{t} WHERE id=?"),
            Stmt::Insert => format!("INSERT INTO sbtest{t} (id, k, c, pad) VALUES (?, ?, ?, ?)"),
            Stmt::RandomPoints => {
                let pts = vec!["?"; o.random_points.max(1) as usize].join(", ");
                format!("SELECT id, k, c, pad FROM sbtest1 WHERE k IN ({pts})")
            }
            Stmt::RandomRanges => {
                let r = vec!["k BETWEEN ? AND ?"; o.number_of_ranges.max(1) as usize].join(" OR ");
                format!("SELECT count(k) FROM sbtest1 WHERE {r}")
            }
            Stmt::Begin => "BEGIN".into(),
            Stmt::Commit => "COMMIT".into(),
            Stmt::Rollback => "ROLLBACK".into(),
        }
    }
}

/// One statement as it ran, for the results file.
#[derive(Debug, Clone, Copy)]
pub struct StmtRun {
    pub stmt: Stmt,
    pub start_ns: u64,
    pub end_ns: u64,
    /// The failure's error number, 0 when it succeeded.
    pub error: u32,
    pub lost: bool,
}

/// One thread of a run: its connection, its statements, its random numbers.
pub struct Worker {
    pub conn: Conn,
    opts: Arc<Options>,
    /// `stmt_ids[table - 1][Stmt as usize]`: the prepared statement.
    stmt_ids: Vec<[Option<usize>; 14]>,
    pub rng: Rand,
    thread_id: u32,
    unique: Arc<AtomicU32>,
    /// Statements of the current event by class: read, write, other.
    pub counts: [u64; 3],
    /// The statements of the current event, when the results file wants them.
    pub log: Option<Vec<StmtRun>>,
    pub in_trx: bool,
    /// A blocking connection (a thread of its own), also after a reconnect.
    blocking: bool,
    /// The run's start: statement instants in the results file count from it.
    pub clock: Instant,
    c: String,
    pad: String,
    sql: String,
    /// A Lua script's thread, whose connections and events are the
    /// script's (`conn` is then none).
    lua: Option<crate::lua::LuaWorker>,
}

impl Worker {
    /// Connects and prepares the test's statements on every table.
    pub async fn connect(
        opts: Arc<Options>,
        thread_id: u32,
        seed: u64,
        unique: Arc<AtomicU32>,
        clock: Instant,
        log: bool,
        blocking: bool,
    ) -> Result<Worker, SqlError> {
        let lua = match &opts.script {
            Some(_) => Some(
                crate::lua::LuaWorker::start(
                    opts.clone(),
                    thread_id,
                    seed,
                    unique.clone(),
                    blocking,
                )
                .await?,
            ),
            None => None,
        };
        let conn = match lua {
            Some(_) => Conn::none(),
            None => Conn::connect_with(opts.driver, &opts.conn, opts.ps_mode, blocking).await?,
        };
        let rng = Rand::new(seed, opts.rand_type, opts.rand_spec_pct, opts.rand_spec_res);
        let mut w = Worker {
            conn,
            stmt_ids: Vec::new(),
            rng,
            thread_id,
            unique,
            counts: [0; 3],
            log: log.then(Vec::new),
            in_trx: false,
            blocking,
            clock,
            c: String::with_capacity(120),
            pad: String::with_capacity(60),
            sql: String::with_capacity(256),
            opts,
            lua,
        };
        if w.lua.is_none() {
            w.prepare_statements().await?;
        }
        Ok(w)
    }

    /// (Re)prepares every statement (after a reconnect too).
    pub async fn prepare_statements(&mut self) -> Result<(), SqlError> {
        let o = self.opts.clone();
        self.stmt_ids.clear();
        for t in 1..=o.tables {
            let mut ids = [None; 14];
            for s in o.test.prepared(&o) {
                ids[s as usize] = Some(self.conn.prepare(&s.sql(t, &o)).await?);
            }
            self.stmt_ids.push(ids);
        }
        Ok(())
    }

    /// Replaces the connection (after it was lost) and prepares again.
    pub async fn reconnect(&mut self) -> Result<(), SqlError> {
        if let Some(l) = self.lua.as_mut() {
            self.in_trx = false;
            let lost = SqlError {
                kind: crate::driver::ErrKind::Lost,
                code: crate::driver::codes::SERVER_LOST,
                message: "Lost connection to server during query".into(),
            };
            return l.reconnect(&lost).await;
        }
        let o = &self.opts;
        let conn = Conn::connect_with(o.driver, &o.conn, o.ps_mode, self.blocking).await?;
        self.conn = conn;
        self.in_trx = false;
        self.prepare_statements().await
    }

    fn now_ns(&self) -> u64 {
        self.clock.elapsed().as_nanos() as u64
    }

    fn note(&mut self, stmt: Stmt, start_ns: u64, r: &Result<u64, SqlError>) {
        // As sysbench 1.0's drivers: a statement that returns no rows
        // counts as a write only when it changed a row (affected rows > 0),
        // so a DELETE of an id already gone, BEGIN and COMMIT are "other";
        // one that failed counts as an error only (the runner counts it).
        // sysbench 0.4 counts by the statement's kind, failed or not.
        let class = match (stmt.class(), r) {
            _ if self.count_by_kind() => Some(stmt.class()),
            (_, Err(_)) => None,
            (Class::Read, _) => Some(Class::Read),
            (_, Ok(0)) => Some(Class::Other),
            (_, Ok(_)) => Some(Class::Write),
        };
        if let Some(class) = class {
            self.counts[class as usize] += 1;
        }
        if self.log.is_some() {
            let end_ns = self.now_ns();
            let (error, lost) = match r {
                Ok(_) => (0, false),
                Err(e) => (e.code.max(1), e.kind == crate::driver::ErrKind::Lost),
            };
            if let Some(l) = self.log.as_mut() {
                l.push(StmtRun {
                    stmt,
                    start_ns,
                    end_ns,
                    error,
                    lost,
                });
            }
        }
    }

    async fn exec(&mut self, stmt: Stmt, table: u32, params: &[Param<'_>]) -> Result<(), SqlError> {
        let start = if self.log.is_some() { self.now_ns() } else { 0 };
        let id = self.stmt_ids[(table - 1) as usize][stmt as usize].expect("prepared statement");
        let r = self.conn.exec(id, params).await;
        self.note(stmt, start, &r);
        r.map(|_| ())
    }

    async fn text(&mut self, stmt: Stmt, sql: &str) -> Result<(), SqlError> {
        let start = if self.log.is_some() { self.now_ns() } else { 0 };
        let r = self.conn.query(sql).await;
        self.note(stmt, start, &r);
        r.map(|_| ())
    }

    /// ROLLBACK after an ignored error inside a PostgreSQL transaction
    /// (counted as "other").
    pub async fn rollback(&mut self) -> Result<(), SqlError> {
        self.in_trx = false;
        if let Some(l) = self.lua.as_mut() {
            l.rollback(&mut self.counts).await;
            return Ok(());
        }
        self.text(Stmt::Rollback, "ROLLBACK").await
    }

    fn table(&mut self) -> u32 {
        self.rng.uniform(1, i64::from(self.opts.tables)) as u32
    }

    fn id(&mut self) -> i64 {
        self.rng.default_id(1, i64::from(self.opts.table_size))
    }

    /// A second handle on the blocking socket of the connection (a Lua
    /// script's first), for the controller to shut it down.
    pub fn blocking_socket(&self) -> Option<std::net::TcpStream> {
        match &self.lua {
            Some(l) => l.blocking_socket(),
            None => self.conn.blocking_socket(),
        }
    }

    /// Ends the thread: a Lua script's `thread_done`, and the connections
    /// closed; returns the statements `thread_done` ran, by class.
    pub async fn close(self) -> [u64; 3] {
        match self.lua {
            Some(l) => l.close().await,
            None => {
                self.conn.close().await;
                [0; 3]
            }
        }
    }

    /// One event (transaction) of the test.
    pub async fn event(&mut self) -> Result<(), SqlError> {
        if let Some(l) = self.lua.as_mut() {
            let r = l.event(&mut self.counts).await;
            // A failed event may leave a PostgreSQL transaction open.
            self.in_trx = r.is_err();
            return r;
        }
        let o = self.opts.clone();
        let trx = o.test.transactional() && !o.skip_trx;
        if trx {
            self.text(Stmt::Begin, "BEGIN").await?;
            self.in_trx = true;
        }
        match o.test {
            Test::OltpReadOnly | Test::OltpReadWrite if o.legacy.is_some() => {
                self.complex_04().await?
            }
            Test::OltpReadOnly | Test::OltpReadWrite | Test::OltpWriteOnly => {
                if o.test != Test::OltpWriteOnly {
                    self.point_selects(o.point_selects).await?;
                    if o.range_selects {
                        self.ranges(Stmt::SimpleRange, o.simple_ranges).await?;
                        self.ranges(Stmt::SumRange, o.sum_ranges).await?;
                        self.ranges(Stmt::OrderRange, o.order_ranges).await?;
                        self.ranges(Stmt::DistinctRange, o.distinct_ranges).await?;
                    }
                }
                if o.test != Test::OltpReadOnly {
                    self.index_updates(o.index_updates).await?;
                    self.non_index_updates(o.non_index_updates).await?;
                    self.delete_inserts(o.delete_inserts).await?;
                }
            }
            Test::OltpPointSelect => self.point_selects(1).await?,
            Test::OltpUpdateIndex => self.index_updates(o.index_updates).await?,
            Test::OltpUpdateNonIndex => self.non_index_updates(o.non_index_updates).await?,
            Test::OltpDelete => {
                let t = self.table();
                let id = self.id();
                self.exec(Stmt::Delete, t, &[Param::Int(id)]).await?;
            }
            Test::OltpInsert => self.insert_text().await?,
            Test::SelectRandomPoints => {
                let (lo, hi) = self.segment();
                let mut ps = Vec::with_capacity(o.random_points as usize);
                for _ in 0..o.random_points.max(1) {
                    ps.push(Param::Int(self.rng.default_id(lo, hi)));
                }
                self.exec(Stmt::RandomPoints, 1, &ps).await?;
            }
            Test::SelectRandomRanges => {
                let (lo, hi) = self.segment();
                let mut ps = Vec::with_capacity(2 * o.number_of_ranges as usize);
                for _ in 0..o.number_of_ranges.max(1) {
                    let v = self.rng.default_id(lo, hi);
                    ps.push(Param::Int(v));
                    ps.push(Param::Int(v + i64::from(o.delta)));
                }
                self.exec(Stmt::RandomRanges, 1, &ps).await?;
            }
        }
        if trx {
            self.text(Stmt::Commit, "COMMIT").await?;
            self.in_trx = false;
        }
        Ok(())
    }

    /// The thread's own slice of `k` values (select_random_*), so threads
    /// do not overlap.
    fn segment(&self) -> (i64, i64) {
        let rlen = i64::from(self.opts.table_size) / i64::from(self.opts.threads);
        let lo = rlen * i64::from(self.thread_id);
        (lo, lo + rlen)
    }

    async fn point_selects(&mut self, n: u32) -> Result<(), SqlError> {
        let t = self.table();
        for _ in 0..n {
            let id = self.id();
            self.exec(Stmt::PointSelect, t, &[Param::Int(id)]).await?;
        }
        Ok(())
    }

    async fn ranges(&mut self, s: Stmt, n: u32) -> Result<(), SqlError> {
        let t = self.table();
        let size = i64::from(self.opts.range_size);
        for _ in 0..n {
            let id = self.id();
            self.exec(s, t, &[Param::Int(id), Param::Int(id + size - 1)])
                .await?;
        }
        Ok(())
    }

    async fn index_updates(&mut self, n: u32) -> Result<(), SqlError> {
        let t = self.table();
        for _ in 0..n {
            let id = self.id();
            self.exec(Stmt::IndexUpdate, t, &[Param::Int(id)]).await?;
        }
        Ok(())
    }

    async fn non_index_updates(&mut self, n: u32) -> Result<(), SqlError> {
        let t = self.table();
        self.non_index_updates_in(t, n).await
    }

    async fn non_index_updates_in(&mut self, t: u32, n: u32) -> Result<(), SqlError> {
        for _ in 0..n {
            let mut c = std::mem::take(&mut self.c);
            self.rng.fill(C_TEMPLATE, &mut c);
            let id = self.id();
            let r = self
                .exec(Stmt::NonIndexUpdate, t, &[Param::Str(&c), Param::Int(id)])
                .await;
            self.c = c;
            r?;
        }
        Ok(())
    }

    async fn delete_inserts(&mut self, n: u32) -> Result<(), SqlError> {
        let t = self.table();
        for _ in 0..n {
            let id = self.id();
            let k = self.id();
            let (mut c, mut pad) = (std::mem::take(&mut self.c), std::mem::take(&mut self.pad));
            self.rng.fill(C_TEMPLATE, &mut c);
            self.rng.fill(PAD_TEMPLATE, &mut pad);
            let r = async {
                self.exec(Stmt::Delete, t, &[Param::Int(id)]).await?;
                self.exec(
                    Stmt::Insert,
                    t,
                    &[
                        Param::Int(id),
                        Param::Int(k),
                        Param::Str(&c),
                        Param::Str(&pad),
                    ],
                )
                .await
            }
            .await;
            self.c = c;
            self.pad = pad;
            r?;
        }
        Ok(())
    }

    /// oltp_insert: a text INSERT; id from AUTO_INCREMENT (0) or SERIAL
    /// (left out) with `--auto-inc`, else a unique 32-bit value.
    async fn insert_text(&mut self) -> Result<(), SqlError> {
        use std::fmt::Write;
        let t = self.table();
        let k = self.id();
        let (mut c, mut pad) = (std::mem::take(&mut self.c), std::mem::take(&mut self.pad));
        self.rng.fill(C_TEMPLATE, &mut c);
        self.rng.fill(PAD_TEMPLATE, &mut pad);
        let mut sql = std::mem::take(&mut self.sql);
        sql.clear();
        if self.opts.driver == Driver::Pgsql && self.opts.auto_inc {
            let _ = write!(
                sql,
                "INSERT INTO sbtest{t} (k, c, pad) VALUES ({k}, '{c}', '{pad}')"
            );
        } else {
            let id: i64 = if self.opts.auto_inc {
                0
            } else {
                i64::from(self.unique.fetch_add(1, Ordering::Relaxed)) - 2_147_483_648
            };
            let _ = write!(
                sql,
                "INSERT INTO sbtest{t} (id, k, c, pad) VALUES ({id}, {k}, '{c}', '{pad}')"
            );
        }
        let r = self.text(Stmt::Insert, &sql).await;
        self.sql = sql;
        self.c = c;
        self.pad = pad;
        r
    }
}
