//! One Lua state: the `sysbench` table (`version`, `tid`, `opt`,
//! `cmdline`, `hooks`, `rand`, `sql`), `print` into the command's output,
//! `require` from the script's folder and sysbench's, and the script
//! loaded; plus the first run of a script on the command line, which
//! learns its options and commands.

use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;

use mlua::{Function, Lua, Table, Value};

use super::opts;
use super::sql::Ctx;
use super::{Declared, Printed, SYSBENCH_DIR, ScriptError};
use crate::options::Command;

/// The sysbench version a script sees (`sysbench.version`).
pub const VERSION: &str = "1.0.20";

/// A Lua error as one line: the script's own message (`my.lua:12: …`),
/// without the traceback.
pub fn message(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => message(cause),
        mlua::Error::WithContext { cause, .. } => message(cause),
        mlua::Error::SyntaxError { message, .. } => first_line(message),
        mlua::Error::RuntimeError(m) => first_line(m),
        mlua::Error::ExternalError(x) => first_line(&x.to_string()),
        other => first_line(&other.to_string()),
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}

/// The SQL failure behind a Lua error raised by a statement, if any.
pub fn sql_error(e: &mlua::Error) -> Option<crate::driver::SqlError> {
    match e {
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            sql_error(cause)
        }
        mlua::Error::ExternalError(x) => x.downcast_ref::<crate::driver::SqlError>().cloned(),
        _ => None,
    }
}

/// A table whose missing fields are refused by name
/// (`sysbench.sql.xyz is not supported by loadlab`).
fn refuse_missing(lua: &Lua, t: &Table, path: &str, script: &str) -> mlua::Result<()> {
    let mt = lua.create_table()?;
    let (path, script) = (path.to_string(), script.to_string());
    mt.set(
        "__index",
        lua.create_function(move |_, (_t, k): (Value, Value)| -> mlua::Result<Value> {
            let k = match k {
                Value::String(s) => s.to_string_lossy(),
                other => format!("{other:?}"),
            };
            Err(mlua::Error::runtime(format!(
                "{script}: {path}.{k} is not supported by loadlab"
            )))
        })?,
    )?;
    t.set_metatable(Some(mt));
    Ok(())
}

/// A fresh state for `script` at `path`: the `sysbench` table for thread
/// `tid`, with `ctx`'s connections, random numbers and options.
pub fn new_state(
    name: &str,
    path: &Path,
    ctx: &Rc<Ctx>,
    tid: u32,
    command: &str,
    printed: &Printed,
) -> mlua::Result<Lua> {
    let lua = Lua::new();
    let g = lua.globals();
    let sb = lua.create_table()?;
    sb.set("version", VERSION)?;
    sb.set("version_string", format!("sysbench {VERSION} (loadlab)"))?;
    sb.set("tid", tid)?;
    sb.set("opt", opts::table(&lua, &ctx.opts)?)?;
    let cmdline = lua.create_table()?;
    cmdline.set("command", command)?;
    cmdline.set("PARALLEL_COMMAND", true)?;
    cmdline.set("script_path", path.display().to_string())?;
    cmdline.set("options", lua.create_table()?)?;
    sb.set("cmdline", cmdline)?;
    sb.set("hooks", lua.create_table()?)?;
    let errors = lua.create_table()?;
    errors.set("RESTART_EVENT", 1)?;
    sb.set("error", errors)?;
    super::rand::install(&lua, &sb, &ctx.rand)?;
    super::sql::install(&lua, &sb, ctx)?;
    for sub in ["rand", "sql"] {
        refuse_missing(
            &lua,
            &sb.get::<Table>(sub)?,
            &format!("sysbench.{sub}"),
            name,
        )?;
    }
    refuse_missing(&lua, &sb, "sysbench", name)?;
    g.set("sysbench", sb)?;
    g.set("thread_id", tid)?;
    install_print(&lua, printed)?;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let package: Table = g.get("package")?;
    let old: String = package.get("path")?;
    package.set(
        "path",
        format!("{}/?.lua;./?.lua;{SYSBENCH_DIR}/?.lua;{old}", dir.display()),
    )?;
    Ok(lua)
}

/// `print`: its line into the command's output (through `printed`).
fn install_print(lua: &Lua, printed: &Printed) -> mlua::Result<()> {
    let g = lua.globals();
    let p = printed.clone();
    g.set(
        "print",
        lua.create_function(move |_, args: mlua::Variadic<Value>| {
            let mut line = String::new();
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    line.push('\t');
                }
                match a {
                    Value::String(s) => line.push_str(&s.to_string_lossy()),
                    Value::Nil => line.push_str("nil"),
                    Value::Boolean(b) => line.push_str(if *b { "true" } else { "false" }),
                    Value::Integer(i) => line.push_str(&i.to_string()),
                    Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => {
                        line.push_str(&format!("{n:.0}"))
                    }
                    Value::Number(n) => line.push_str(&n.to_string()),
                    other => line.push_str(other.type_name()),
                }
            }
            line.push('\n');
            p.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push_str(&line);
            Ok(())
        })?,
    )?;
    Ok(())
}

/// Runs the script's text in `lua` (its top level: definitions).
pub fn load(lua: &Lua, name: &str, source: &str) -> mlua::Result<()> {
    // A `#!` first line, as `lua` skips it, made a comment (the line
    // numbers stay).
    let text = if source.starts_with('#') {
        format!("--{source}")
    } else {
        source.to_string()
    };
    lua.load(text).set_name(format!("@{name}")).exec()
}

/// A context with placeholder options, for the first run of a script
/// (before its options are known).
fn placeholder_ctx(name: &str) -> Rc<Ctx> {
    let o = match crate::options::parse(&["oltp_read_only".into(), "run".into()]) {
        Ok(crate::Parsed::Do(o)) => *o,
        _ => unreachable!("the built-in test's defaults parse"),
    };
    let unique = Arc::new(AtomicU32::new(0));
    Rc::new(Ctx {
        rand: Rc::new(std::cell::RefCell::new(super::rand::Gen::new(
            &o, 1, unique,
        ))),
        opts: Arc::new(o),
        blocking: false,
        counts: Default::default(),
        conns: Default::default(),
        name: name.to_string(),
    })
}

/// The first run of a script, on the command line: its options
/// (`sysbench.cmdline.options`) and its commands.
pub fn declare(
    name: &str,
    path: &Path,
    source: &str,
    command: &str,
) -> Result<(Vec<Declared>, Vec<String>), ScriptError> {
    let bad = |e: mlua::Error| ScriptError::Bad(message(&e));
    let ctx = placeholder_ctx(name);
    let lua = new_state(name, path, &ctx, 0, command, &Printed::default()).map_err(bad)?;
    load(&lua, name, source).map_err(bad)?;
    let sb: Table = lua.globals().get("sysbench").map_err(bad)?;
    let declared =
        opts::declared(&sb).map_err(|e| ScriptError::Bad(format!("{name}: {}", message(&e))))?;
    let mut commands = Vec::new();
    let cmdline: Table = sb.get("cmdline").map_err(bad)?;
    if let Ok(Value::Table(c)) = cmdline.raw_get::<Value>("commands") {
        for pair in c.pairs::<String, Value>() {
            commands.push(pair.map_err(bad)?.0);
        }
    }
    let g = lua.globals();
    for (f, c) in [
        ("prepare", "prepare"),
        ("cleanup", "cleanup"),
        ("event", "run"),
    ] {
        if g.get::<Option<Function>>(f).map_err(bad)?.is_some() && !commands.iter().any(|x| x == c)
        {
            commands.push(c.to_string());
        }
    }
    Ok((declared, commands))
}

/// The command word a Lua state sees in `sysbench.cmdline.command`.
pub fn command_word(c: Command) -> &'static str {
    match c {
        Command::Prepare => "prepare",
        Command::Run => "run",
        Command::Cleanup => "cleanup",
    }
}
