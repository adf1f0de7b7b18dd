//! `sysbench.cmdline.options` and `sysbench.opt`: the options a script
//! declares (`name = {"description", default}`), their values from the
//! command line (typed by the default, as sysbench: a boolean takes
//! `on`/`off`, a number a number, a table a comma-separated list), and the
//! `sysbench.opt` table each Lua state gets, with sysbench's own options
//! (`threads`, `time`, …) beside the script's.

use mlua::{Lua, Table, Value};

use crate::options::script::{Declared, OptKind, value};
use crate::options::{Driver, Options, RandType};

/// Reads `sysbench.cmdline.options` of a state that ran the script.
pub fn declared(sysbench: &Table) -> mlua::Result<Vec<Declared>> {
    let cmdline: Table = sysbench.get("cmdline")?;
    let Value::Table(options) = cmdline.get::<Value>("options")? else {
        return Ok(Vec::new());
    };
    let mut v = Vec::new();
    for pair in options.pairs::<String, Value>() {
        let (name, spec) = pair?;
        let Value::Table(spec) = spec else {
            return Err(mlua::Error::runtime(format!(
                "sysbench.cmdline.options.{name}: expected {{\"description\", default}}"
            )));
        };
        let description: Option<String> = spec.get(1)?;
        let default = match spec.get::<Value>(2)? {
            Value::Nil => OptKind::Unset,
            Value::Boolean(b) => OptKind::Bool(b),
            Value::Integer(i) => OptKind::Int(i),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => OptKind::Int(n as i64),
            Value::Number(n) => OptKind::Float(n),
            Value::String(s) => OptKind::Str(s.to_str()?.to_string()),
            Value::Table(t) => OptKind::List(
                t.sequence_values::<String>()
                    .collect::<mlua::Result<Vec<_>>>()?,
            ),
            other => {
                return Err(mlua::Error::runtime(format!(
                    "sysbench.cmdline.options.{name}: a default of type {} is not supported by loadlab",
                    other.type_name()
                )));
            }
        };
        v.push(Declared {
            name: name.replace('-', "_"),
            description: description.unwrap_or_default(),
            default,
        });
    }
    v.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(v)
}

fn to_lua(lua: &Lua, k: &OptKind) -> mlua::Result<Value> {
    Ok(match k {
        OptKind::Bool(b) => Value::Boolean(*b),
        OptKind::Int(i) => Value::Number(*i as f64),
        OptKind::Float(f) => Value::Number(*f),
        OptKind::Str(s) => Value::String(lua.create_string(s)?),
        OptKind::List(l) => Value::Table(lua.create_sequence_from(l.iter().map(String::as_str))?),
        OptKind::Unset => Value::Nil,
    })
}

/// `sysbench.opt`: sysbench's own options, then the script's (default or
/// given), by their `_` names.
pub fn table(lua: &Lua, o: &Options) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.set("threads", o.threads)?;
    t.set("time", o.time)?;
    t.set("events", o.events as f64)?;
    t.set("rate", o.rate)?;
    t.set("report_interval", o.report_interval)?;
    t.set("percentile", o.percentile)?;
    t.set("histogram", o.histogram)?;
    t.set("verbosity", o.verbosity)?;
    t.set("db_driver", o.driver.name())?;
    let prefix = match o.driver {
        Driver::Mysql => "mysql",
        Driver::Pgsql => "pgsql",
    };
    t.set(format!("{prefix}_host"), o.conn.host.as_str())?;
    t.set(format!("{prefix}_port"), o.conn.port)?;
    t.set(format!("{prefix}_user"), o.conn.user.as_str())?;
    t.set(format!("{prefix}_db"), o.conn.db.as_str())?;
    t.set(
        "rand_type",
        match o.rand_type {
            RandType::Uniform => "uniform",
            RandType::Special => "special",
        },
    )?;
    t.set("rand_seed", o.rand_seed as f64)?;
    t.set("rand_spec_pct", o.rand_spec_pct)?;
    t.set("rand_spec_res", o.rand_spec_res)?;
    if let Some(s) = &o.script {
        for d in &s.declared {
            let given = s.given.iter().rev().find(|(n, _)| *n == d.name);
            let v = match given {
                Some((n, raw)) => value(d, n, raw.as_deref()).map_err(mlua::Error::runtime)?,
                None => d.default.clone(),
            };
            t.set(d.name.as_str(), to_lua(lua, &v)?)?;
        }
    }
    Ok(t)
}
