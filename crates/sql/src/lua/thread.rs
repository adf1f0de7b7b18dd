//! A script's threads, each with a Lua state of its own as sysbench's:
//! [`LuaWorker`] for `run` (`thread_init`, `event`, `thread_done`,
//! `sysbench.hooks.before_restart_event`) inside the runner's threads,
//! and [`command`] for `prepare` and `cleanup` (a command of
//! `sysbench.cmdline.commands`, in `--threads` threads when it is a
//! parallel one, or the script's global function).

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use mlua::{Function, Lua, Table, Value};

use super::rand::Gen;
use super::sql::{ConnState, Ctx};
use super::state::{self, message, new_state, sql_error};
use super::{Script, drain};
use crate::Error;
use crate::driver::{ErrKind, SqlError};
use crate::options::Options;

/// A Lua failure that is not a statement's, as the runner sees it.
fn script_failure(e: &mlua::Error) -> SqlError {
    sql_error(e).unwrap_or_else(|| SqlError {
        kind: ErrKind::Script,
        code: 0,
        message: message(e),
    })
}

fn script(o: &Options) -> &Arc<Script> {
    o.script
        .as_ref()
        .expect("a Lua thread runs only with a script")
}

/// A Lua state for thread `tid` with the script loaded.
fn thread_state(
    o: &Arc<Options>,
    tid: u32,
    seed: u64,
    unique: Arc<AtomicU32>,
    blocking: bool,
) -> mlua::Result<(Lua, Rc<Ctx>)> {
    let s = script(o);
    let ctx = Rc::new(Ctx {
        opts: o.clone(),
        blocking,
        counts: Default::default(),
        conns: Default::default(),
        rand: Rc::new(RefCell::new(Gen::new(o, seed, unique))),
        name: s.name.clone(),
    });
    let lua = new_state(
        &s.name,
        &s.path,
        &ctx,
        tid,
        state::command_word(o.command),
        &s.printed,
    )?;
    state::load(&lua, &s.name, &s.source)?;
    Ok((lua, ctx))
}

/// One thread of a script's `run`.
pub struct LuaWorker {
    _lua: Lua,
    ctx: Rc<Ctx>,
    event: Function,
    thread_done: Option<Function>,
    hooks: Table,
}

impl LuaWorker {
    /// Loads the script in a state of its own and runs its `thread_init`
    /// (which connects and prepares its statements).
    pub async fn start(
        o: Arc<Options>,
        tid: u32,
        seed: u64,
        unique: Arc<AtomicU32>,
        blocking: bool,
    ) -> Result<LuaWorker, SqlError> {
        let (lua, ctx) =
            thread_state(&o, tid, seed, unique, blocking).map_err(|e| script_failure(&e))?;
        let g = lua.globals();
        let get = |n: &str| g.get::<Option<Function>>(n).map_err(|e| script_failure(&e));
        let Some(event) = get("event")? else {
            return Err(SqlError {
                kind: ErrKind::Script,
                code: 0,
                message: format!("{}: the script has no event() function to run", ctx.name),
            });
        };
        if let Some(init) = get("thread_init")? {
            init.call_async::<()>(tid)
                .await
                .map_err(|e| script_failure(&e))?;
        }
        let thread_done = get("thread_done")?;
        let sb: Table = g.get("sysbench").map_err(|e| script_failure(&e))?;
        let hooks: Table = sb.get("hooks").map_err(|e| script_failure(&e))?;
        Ok(LuaWorker {
            _lua: lua,
            ctx,
            event,
            thread_done,
            hooks,
        })
    }

    /// One event; the statements it ran by class (read, write, other),
    /// also when it failed.
    pub async fn event(&mut self, counts: &mut [u64; 3]) -> Result<(), SqlError> {
        self.ctx.counts.set([0; 3]);
        // On a blocking connection every method runs to its end at once:
        // a plain call, no coroutine.
        let r = if self.ctx.blocking {
            self.event.call::<()>(())
        } else {
            self.event.call_async::<()>(()).await
        };
        *counts = self.ctx.counts.get();
        r.map_err(|e| script_failure(&e))
    }

    /// After a lost connection: connects again the script's connections
    /// that were lost, then runs `sysbench.hooks.before_restart_event`
    /// (sysbench's OLTP scripts prepare their statements again there).
    pub async fn reconnect(&mut self, e: &SqlError) -> Result<(), SqlError> {
        for st in self.ctx.open() {
            ConnState::reconnect(&st, &self.ctx).await?;
        }
        self.restart_hook(e).await
    }

    /// `sysbench.hooks.before_restart_event(err)`, if the script has it.
    pub async fn restart_hook(&mut self, e: &SqlError) -> Result<(), SqlError> {
        let hook = self
            .hooks
            .get::<Option<Function>>("before_restart_event")
            .map_err(|e| script_failure(&e))?;
        let Some(hook) = hook else { return Ok(()) };
        let err = self._lua.create_table().map_err(|e| script_failure(&e))?;
        let set = |k: &str, v: Value| err.set(k, v).map_err(|e| script_failure(&e));
        set("sql_errno", Value::Integer(i64::from(e.code)))?;
        set(
            "sql_errmsg",
            Value::String(
                self._lua
                    .create_string(&e.message)
                    .map_err(|e| script_failure(&e))?,
            ),
        )?;
        set("errcode", Value::Integer(1))?;
        hook.call_async::<()>(err)
            .await
            .map_err(|e| script_failure(&e))
    }

    /// ROLLBACK on each of the script's connections (PostgreSQL refuses
    /// every statement of a failed transaction until then); counted as
    /// "other".
    pub async fn rollback(&mut self, counts: &mut [u64; 3]) {
        for st in self.ctx.open() {
            let conn = st.borrow_mut().conn.take();
            if let Some(mut c) = conn {
                if c.query("ROLLBACK").await.is_ok() {
                    counts[super::sql::Class::Other as usize] += 1;
                }
                st.borrow_mut().conn = Some(c);
            }
        }
    }

    /// A second handle on the first connection's blocking socket, for the
    /// controller to shut it down after the time limit's grace.
    pub fn blocking_socket(&self) -> Option<std::net::TcpStream> {
        let open = self.ctx.open();
        let st = open.first()?;
        let s = st.borrow();
        s.conn.as_ref().and_then(|c| c.blocking_socket())
    }

    /// `thread_done`, then closes the connections still open; the
    /// statements `thread_done` ran (bulk_insert.lua's last rows), which
    /// sysbench counts too.
    pub async fn close(self) -> [u64; 3] {
        self.ctx.counts.set([0; 3]);
        if let Some(f) = &self.thread_done {
            let _ = f.call_async::<()>(()).await;
        }
        let counts = self.ctx.counts.get();
        for st in self.ctx.open() {
            let conn = st.borrow_mut().conn.take();
            if let Some(c) = conn {
                c.close().await;
            }
        }
        counts
    }
}

/// Runs the script's global function `name` (`init` before a run, `done`
/// after it) in a state of its own, if it has one.
pub async fn main_function(o: &Arc<Options>, name: &str) -> Result<(), Error> {
    let s = script(o);
    let (lua, ctx) = thread_state(o, 0, 1, Arc::new(AtomicU32::new(0)), false)
        .map_err(|e| Error::Script(message(&e)))?;
    if let Some(f) = lua
        .globals()
        .get::<Option<Function>>(name)
        .map_err(|e| Error::Script(message(&e)))?
    {
        f.call_async::<()>(())
            .await
            .map_err(|e| Error::Script(message(&e)))?;
    }
    close_all(&ctx).await;
    drain(&s.printed, &mut std::io::sink());
    Ok(())
}

async fn close_all(ctx: &Ctx) {
    for st in ctx.open() {
        let conn = st.borrow_mut().conn.take();
        if let Some(c) = conn {
            c.close().await;
        }
    }
}

/// `prepare` or `cleanup` of a script: the command of
/// `sysbench.cmdline.commands` (in `--threads` threads, `sysbench.tid`
/// 0…N−1, when it is a parallel one) or the global function of that name.
pub async fn command(o: Arc<Options>, out: &mut dyn Write) -> Result<(), Error> {
    let s = script(&o).clone();
    let word = state::command_word(o.command);
    if !s.has_command(word) {
        return Err(Error::Script(format!(
            "{}: the script has no '{word}' command (neither sysbench.cmdline.commands.{word} nor a {word}() function)",
            s.name
        )));
    }
    crate::banner_line(&o, out);
    let (lua, ctx) = thread_state(&o, 0, crate::now_seed(), Arc::new(AtomicU32::new(0)), false)
        .map_err(|e| Error::Script(message(&e)))?;
    let (f, parallel) = find_command(&lua, word).map_err(|e| Error::Script(message(&e)))?;
    let r = if parallel && o.threads > 1 {
        close_all(&ctx).await;
        drop(lua);
        parallel_command(&o, word, out)
    } else {
        let r = f.call_async::<()>(()).await;
        close_all(&ctx).await;
        r.map_err(|e| command_error(&o, &e))
    };
    drain(&s.printed, out);
    r
}

/// The command's function and whether it runs in every thread.
fn find_command(lua: &Lua, word: &str) -> mlua::Result<(Function, bool)> {
    let sb: Table = lua.globals().get("sysbench")?;
    let cmdline: Table = sb.get("cmdline")?;
    if let Value::Table(c) = cmdline.raw_get::<Value>("commands")?
        && let Value::Table(spec) = c.get::<Value>(word)?
    {
        let f: Function = spec.get(1)?;
        let parallel = !matches!(spec.get::<Value>(2)?, Value::Nil | Value::Boolean(false));
        return Ok((f, parallel));
    }
    Ok((lua.globals().get(word)?, false))
}

fn command_error(o: &Options, e: &mlua::Error) -> Error {
    match sql_error(e) {
        Some(se)
            if matches!(
                se.kind,
                ErrKind::Refused | ErrKind::Auth | ErrKind::UnknownDb | ErrKind::TooManyConnections
            ) =>
        {
            Error::connect(o, se)
        }
        Some(se) => Error::sql(o, se),
        None => Error::Script(message(e)),
    }
}

/// A parallel command: `--threads` OS threads, each with a runtime and a
/// Lua state of its own.
fn parallel_command(o: &Arc<Options>, word: &str, out: &mut dyn Write) -> Result<(), Error> {
    let printed = script(o).printed.clone();
    let results: Vec<Result<(), Error>> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..o.threads)
            .map(|tid| {
                let o = o.clone();
                sc.spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .map_err(|e| Error::Runtime(e.to_string()))?;
                    rt.block_on(async {
                        let seed = crate::now_seed().wrapping_add(u64::from(tid));
                        let (lua, ctx) =
                            thread_state(&o, tid, seed, Arc::new(AtomicU32::new(0)), false)
                                .map_err(|e| Error::Script(message(&e)))?;
                        let (f, _) =
                            find_command(&lua, word).map_err(|e| Error::Script(message(&e)))?;
                        let r = f.call_async::<()>(()).await;
                        close_all(&ctx).await;
                        r.map_err(|e| command_error(&o, &e))
                    })
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| {
                let r = h
                    .join()
                    .unwrap_or_else(|_| Err(Error::Runtime("a command thread panicked".into())));
                drain(&printed, out);
                r
            })
            .collect()
    });
    results.into_iter().collect()
}
