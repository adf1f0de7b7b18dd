//! `sysbench.sql`: `driver()`, `drv:connect()`, `drv:name()`,
//! `con:query`, `con:prepare` (`stmt:bind_create`, `stmt:bind_param`,
//! `param:set`, `param:set_rand_str`, `stmt:execute`, `stmt:close`),
//! `con:bulk_insert_init/next/done` and `con:disconnect`, over the
//! connections of [`crate::driver`]. Each statement counts as sysbench's
//! drivers count it: a read when it returns rows (a SELECT), else a write
//! when it changed a row, else "other".

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::Arc;

use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use crate::driver::{Conn, Param, SqlError};
use crate::options::Options;

/// A statement's place in the counts (read, write, other): the order of
/// the runner's classes.
#[derive(Clone, Copy)]
pub enum Class {
    Read = 0,
    Write = 1,
    Other = 2,
}

/// sysbench's bulk INSERT packet: rows are sent once the statement would
/// grow past it.
const BULK_PACKET: usize = 512 * 1024;

/// The types of `sysbench.sql.type` that `bind_create` takes.
const TYPES: [(&str, u32); 6] = [
    ("TINYINT", 1),
    ("SMALLINT", 2),
    ("INT", 3),
    ("BIGINT", 4),
    ("CHAR", 10),
    ("VARCHAR", 11),
];
/// Those sysbench has and loadlab does not.
const OTHER_TYPES: [(&str, u32); 6] = [
    ("FLOAT", 5),
    ("DOUBLE", 6),
    ("TIME", 7),
    ("DATE", 8),
    ("DATETIME", 9),
    ("TIMESTAMP", 12),
];

/// What the functions of one Lua state share: the run's options, how to
/// connect, the current event's counts and the connections made.
pub struct Ctx {
    pub opts: Arc<Options>,
    /// MySQL connections on blocking sockets (a thread of their own).
    pub blocking: bool,
    /// Statements of the current event: read, write, other.
    pub counts: Cell<[u64; 3]>,
    pub conns: RefCell<Vec<Weak<RefCell<ConnState>>>>,
    pub rand: super::rand::Shared,
    /// The script's name, for messages.
    pub name: String,
}

impl Ctx {
    fn count(&self, class: Class) {
        let mut c = self.counts.get();
        c[class as usize] += 1;
        self.counts.set(c);
    }

    /// The connections still open.
    pub fn open(&self) -> Vec<Rc<RefCell<ConnState>>> {
        self.conns
            .borrow()
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }
}

/// One connection of a script.
pub struct ConnState {
    pub conn: Option<Conn>,
    /// The statements prepared on it, to prepare again after a reconnect.
    stmts: Vec<Rc<RefCell<StmtState>>>,
    bulk: Option<String>,
    /// Length of the bulk INSERT's first part (before the rows).
    bulk_head: usize,
}

struct StmtState {
    sql: String,
    /// The prepared statement, or `None`: sent as text (the server would
    /// not prepare it, or `--db-ps-mode=disable`).
    id: Option<usize>,
    read: bool,
    params: Vec<Rc<RefCell<PVal>>>,
}

#[derive(Debug, Clone)]
enum PVal {
    Null,
    Int(i64),
    Str(String),
}

/// Whether `sql` returns rows (sysbench counts it a read).
fn returns_rows(sql: &str) -> bool {
    let w: String = sql
        .trim_start_matches(|c: char| c.is_whitespace() || c == '(')
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect::<String>()
        .to_ascii_uppercase();
    matches!(
        w.as_str(),
        "SELECT" | "SHOW" | "WITH" | "DESCRIBE" | "DESC" | "EXPLAIN" | "VALUES" | "TABLE"
    )
}

fn sql_err(e: SqlError) -> mlua::Error {
    mlua::Error::external(e)
}

fn closed(ctx: &Ctx) -> mlua::Error {
    mlua::Error::runtime(format!("{}: the connection was disconnected", ctx.name))
}

/// Counts a statement's outcome as sysbench does.
fn note(ctx: &Ctx, read: bool, r: &Result<u64, SqlError>) {
    match r {
        Err(_) => {}
        Ok(_) if read => ctx.count(Class::Read),
        Ok(0) => ctx.count(Class::Other),
        Ok(_) => ctx.count(Class::Write),
    }
}

/// Runs `f` on the connection, taken out of its state meanwhile (no
/// borrow is held across an await).
async fn with_conn<T>(
    ctx: &Ctx,
    st: &RefCell<ConnState>,
    f: impl AsyncFnOnce(&mut Conn) -> T,
) -> mlua::Result<T> {
    let mut conn = st.borrow_mut().conn.take().ok_or_else(|| closed(ctx))?;
    let r = f(&mut conn).await;
    st.borrow_mut().conn = Some(conn);
    Ok(r)
}

async fn run_text(ctx: &Ctx, st: &RefCell<ConnState>, sql: &str) -> mlua::Result<()> {
    let r = with_conn(ctx, st, async |c| c.query(sql).await).await?;
    note(ctx, returns_rows(sql), &r);
    r.map(|_| ()).map_err(sql_err)
}

/// A connection as Lua sees it. `SYNC`: a blocking connection (MySQL on a
/// thread of its own), whose methods are plain Lua functions that drive
/// the statement to its end at once, sparing the hot path the machinery
/// of an async call; else each method is an async one, awaited by the
/// runner's task.
pub struct LuaConn<const SYNC: bool> {
    st: Rc<RefCell<ConnState>>,
    ctx: Rc<Ctx>,
}

/// Adds method `name` running `f`'s future: at once (`sync`, a blocking
/// connection, with [`crate::mysql_wire::ready`]) or as an async method.
fn method<T, A, R, F, Fut, M>(m: &mut M, sync: bool, name: &str, f: F)
where
    T: UserData + 'static,
    M: UserDataMethods<T>,
    A: mlua::FromLuaMulti,
    R: mlua::IntoLuaMulti,
    F: Fn(&T, A) -> Fut + 'static,
    Fut: std::future::Future<Output = mlua::Result<R>> + 'static,
{
    if sync {
        m.add_method(name, move |_, this, a: A| {
            crate::mysql_wire::ready(f(this, a))
        });
    } else {
        m.add_async_method(name, move |_, this, a: A| f(&this, a));
    }
}

/// Opens a connection for `drv:connect()`.
pub async fn connect<const SYNC: bool>(ctx: &Rc<Ctx>) -> mlua::Result<LuaConn<SYNC>> {
    let o = &ctx.opts;
    let conn = Conn::connect_with(o.driver, &o.conn, o.ps_mode, ctx.blocking)
        .await
        .map_err(sql_err)?;
    let st = Rc::new(RefCell::new(ConnState {
        conn: Some(conn),
        stmts: Vec::new(),
        bulk: None,
        bulk_head: 0,
    }));
    ctx.conns.borrow_mut().push(Rc::downgrade(&st));
    Ok(LuaConn {
        st,
        ctx: ctx.clone(),
    })
}

/// Prepares `sql` on `conn`; a statement the server will not prepare is
/// sent as text.
async fn prepare_on(conn: &mut Conn, sql: &str) -> Result<Option<usize>, SqlError> {
    match conn.prepare(sql).await {
        Ok(id) => Ok(Some(id)),
        Err(e) if e.kind == crate::driver::ErrKind::Lost => Err(e),
        Err(_) => Ok(None),
    }
}

impl ConnState {
    /// Connects again and prepares its statements again (after a lost
    /// connection).
    pub async fn reconnect(st: &RefCell<ConnState>, ctx: &Ctx) -> Result<(), SqlError> {
        let o = &ctx.opts;
        let mut conn = Conn::connect_with(o.driver, &o.conn, o.ps_mode, ctx.blocking).await?;
        let stmts = st.borrow().stmts.clone();
        for s in stmts {
            let sql = s.borrow().sql.clone();
            let id = prepare_on(&mut conn, &sql).await?;
            s.borrow_mut().id = id;
        }
        st.borrow_mut().conn = Some(conn);
        Ok(())
    }
}

impl<const SYNC: bool> UserData for LuaConn<SYNC> {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        method(m, SYNC, "query", |this: &Self, sql: mlua::String| {
            let (st, ctx) = (this.st.clone(), this.ctx.clone());
            async move {
                run_text(&ctx, &st, &sql.to_str()?).await?;
                Ok(Value::Nil)
            }
        });
        method(m, SYNC, "prepare", |this: &Self, sql: String| {
            let (st, ctx) = (this.st.clone(), this.ctx.clone());
            async move {
                let id = with_conn(&ctx, &st, async |c| prepare_on(c, &sql).await)
                    .await?
                    .map_err(sql_err)?;
                let stmt = Rc::new(RefCell::new(StmtState {
                    read: returns_rows(&sql),
                    sql,
                    id,
                    params: Vec::new(),
                }));
                st.borrow_mut().stmts.push(stmt.clone());
                Ok(LuaStmt::<SYNC> {
                    stmt,
                    conn: st,
                    ctx,
                })
            }
        });
        m.add_method("bulk_insert_init", |_, this, head: String| {
            let mut s = this.st.borrow_mut();
            s.bulk_head = head.len();
            s.bulk = Some(head);
            Ok(())
        });
        method(
            m,
            SYNC,
            "bulk_insert_next",
            |this: &Self, row: mlua::String| {
                let (st, ctx) = (this.st.clone(), this.ctx.clone());
                async move {
                    let row = row.to_str()?;
                    let full = {
                        let s = st.borrow();
                        let b = s.bulk.as_ref().ok_or_else(|| {
                            mlua::Error::runtime("bulk_insert_next() before bulk_insert_init()")
                        })?;
                        b.len() > s.bulk_head && b.len() + row.len() + 1 > BULK_PACKET
                    };
                    if full {
                        flush_bulk(&ctx, &st).await?;
                    }
                    let mut s = st.borrow_mut();
                    let head = s.bulk_head;
                    if let Some(b) = s.bulk.as_mut() {
                        if b.len() > head {
                            b.push(',');
                        }
                        b.push_str(&row);
                    }
                    Ok(())
                }
            },
        );
        method(m, SYNC, "bulk_insert_done", |this: &Self, ()| {
            let (st, ctx) = (this.st.clone(), this.ctx.clone());
            async move {
                flush_bulk(&ctx, &st).await?;
                st.borrow_mut().bulk = None;
                Ok(())
            }
        });
        method(m, SYNC, "disconnect", |this: &Self, ()| {
            let st = this.st.clone();
            async move {
                let conn = st.borrow_mut().conn.take();
                if let Some(c) = conn {
                    c.close().await;
                }
                Ok(())
            }
        });
    }
}

/// Sends the rows of the bulk INSERT gathered so far.
async fn flush_bulk(ctx: &Ctx, st: &RefCell<ConnState>) -> mlua::Result<()> {
    let sql = {
        let mut s = st.borrow_mut();
        let head = s.bulk_head;
        match s.bulk.as_mut() {
            Some(b) if b.len() > head => {
                let sql = b.clone();
                b.truncate(head);
                sql
            }
            _ => return Ok(()),
        }
    };
    run_text(ctx, st, &sql).await
}

/// A prepared statement as Lua sees it (`SYNC` as its connection's).
pub struct LuaStmt<const SYNC: bool> {
    stmt: Rc<RefCell<StmtState>>,
    conn: Rc<RefCell<ConnState>>,
    ctx: Rc<Ctx>,
}

/// A bound parameter as Lua sees it.
pub struct LuaParam {
    v: Rc<RefCell<PVal>>,
    ctx: Rc<Ctx>,
}

impl<const SYNC: bool> UserData for LuaStmt<SYNC> {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("bind_create", |_, this, (ty, _len): (u32, Option<u32>)| {
            if let Some((name, _)) = OTHER_TYPES.iter().find(|(_, n)| *n == ty) {
                return Err(mlua::Error::runtime(format!(
                    "{}: sysbench.sql.type.{name} is not supported by loadlab",
                    this.ctx.name
                )));
            }
            if !TYPES.iter().any(|(_, n)| *n == ty) {
                return Err(mlua::Error::runtime(format!(
                    "{}: bind_create: unknown type {ty}",
                    this.ctx.name
                )));
            }
            Ok(LuaParam {
                v: Rc::new(RefCell::new(PVal::Null)),
                ctx: this.ctx.clone(),
            })
        });
        m.add_method(
            "bind_param",
            |_, this, ps: mlua::Variadic<mlua::UserDataRef<LuaParam>>| {
                this.stmt.borrow_mut().params = ps.iter().map(|p| p.v.clone()).collect();
                Ok(())
            },
        );
        method(m, SYNC, "execute", |this: &Self, ()| {
            let (stmt, conn, ctx) = (this.stmt.clone(), this.conn.clone(), this.ctx.clone());
            async move { execute(&ctx, &stmt, &conn).await }
        });
        m.add_method("close", |_, _, ()| Ok(()));
    }
}

async fn execute(
    ctx: &Ctx,
    stmt: &RefCell<StmtState>,
    conn: &RefCell<ConnState>,
) -> mlua::Result<()> {
    let (id, read, vals) = {
        let s = stmt.borrow();
        let vals: Vec<PVal> = s.params.iter().map(|p| p.borrow().clone()).collect();
        if vals.iter().any(|v| matches!(v, PVal::Null)) {
            return Err(mlua::Error::runtime(format!(
                "{}: a parameter of '{}' was not set (NULL is not supported by loadlab)",
                ctx.name, s.sql
            )));
        }
        (s.id, s.read, vals)
    };
    let params: Vec<Param<'_>> = vals
        .iter()
        .map(|v| match v {
            PVal::Int(i) => Param::Int(*i),
            PVal::Str(s) => Param::Str(s),
            PVal::Null => Param::Int(0),
        })
        .collect();
    let r = match id {
        Some(id) => with_conn(ctx, conn, async |c| c.exec(id, &params).await).await?,
        None => {
            let mut text = String::new();
            crate::driver::inline_params(&stmt.borrow().sql, &params, &mut text);
            with_conn(ctx, conn, async |c| c.query(&text).await).await?
        }
    };
    note(ctx, read, &r);
    r.map(|_| ()).map_err(sql_err)
}

impl UserData for LuaParam {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("set", |_, this, v: Value| {
            *this.v.borrow_mut() = match v {
                Value::Integer(i) => PVal::Int(i),
                Value::Number(n) => PVal::Int(n as i64),
                Value::String(s) => PVal::Str(s.to_str()?.to_string()),
                Value::Nil => PVal::Null,
                other => {
                    return Err(mlua::Error::runtime(format!(
                        "{}: param:set() of a {} is not supported by loadlab",
                        this.ctx.name,
                        other.type_name()
                    )));
                }
            };
            Ok(())
        });
        m.add_method("set_rand_str", |_, this, template: String| {
            let mut v = this.v.borrow_mut();
            let mut s = match std::mem::replace(&mut *v, PVal::Null) {
                PVal::Str(s) => s,
                _ => String::with_capacity(template.len()),
            };
            this.ctx.rand.borrow_mut().string(&template, &mut s);
            *v = PVal::Str(s);
            Ok(())
        });
    }
}

/// The driver object of `sysbench.sql.driver()` (`SYNC` as the
/// connections it makes).
pub struct LuaDriver<const SYNC: bool> {
    ctx: Rc<Ctx>,
}

impl<const SYNC: bool> UserData for LuaDriver<SYNC> {
    fn add_methods<M: UserDataMethods<Self>>(m: &mut M) {
        m.add_method("name", |_, this, ()| Ok(this.ctx.opts.driver.name()));
        method(m, SYNC, "connect", |this: &Self, ()| {
            let ctx = this.ctx.clone();
            async move { connect::<SYNC>(&ctx).await }
        });
    }
}

/// Adds `sysbench.sql` to `sysbench`.
pub fn install(lua: &Lua, sysbench: &Table, ctx: &Rc<Ctx>) -> mlua::Result<()> {
    let t = lua.create_table()?;
    let ctx2 = ctx.clone();
    t.set(
        "driver",
        lua.create_function(move |lua, _name: Option<String>| {
            let ctx = ctx2.clone();
            if ctx.blocking {
                lua.create_userdata(LuaDriver::<true> { ctx })
            } else {
                lua.create_userdata(LuaDriver::<false> { ctx })
            }
        })?,
    )?;
    let types = lua.create_table()?;
    types.set("NONE", 0)?;
    for (name, n) in TYPES.iter().chain(OTHER_TYPES.iter()) {
        types.set(*name, *n)?;
    }
    t.set("type", types)?;
    let errors = lua.create_table()?;
    for (name, n) in [("NONE", 0), ("IGNORABLE", 1), ("FATAL", 2)] {
        errors.set(name, n)?;
    }
    t.set("error", errors)?;
    sysbench.set("sql", t)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn selects_return_rows() {
        assert!(super::returns_rows("  select 1"));
        assert!(super::returns_rows(
            "(SELECT c FROM t) UNION (SELECT c FROM u)"
        ));
        assert!(!super::returns_rows("UPDATE sbtest1 SET k=k+1"));
        assert!(!super::returns_rows("BEGIN"));
    }
}
