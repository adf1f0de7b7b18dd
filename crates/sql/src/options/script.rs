//! A sysbench Lua script as the command line holds it: its text, the
//! options it declares (`sysbench.cmdline.options`) with the values given
//! for them, its commands. The `lua` module reads and runs it.

use std::path::PathBuf;
use std::sync::Arc;

/// One Lua script, read and declared once on the command line: its text,
/// its options and commands; each thread loads it again in a Lua state of
/// its own.
#[derive(Debug)]
pub struct Script {
    pub path: PathBuf,
    /// The name printed in messages (the path as given).
    pub name: String,
    pub source: String,
    /// `sysbench.cmdline.options`, in the script's order of names (sorted).
    pub declared: Vec<Declared>,
    /// Values given on the command line for declared options (`_` names).
    pub given: Vec<(String, Option<String>)>,
    /// The commands the script defines (`sysbench.cmdline.commands` and
    /// the global `prepare`/`cleanup`/`run` functions).
    pub commands: Vec<String>,
    /// What the script's threads printed, not yet written out.
    pub printed: Printed,
}

impl Script {
    /// The option `name` (`_` spelling) the script declares.
    pub fn declared(&self, name: &str) -> Option<&Declared> {
        self.declared.iter().find(|d| d.name == name)
    }

    /// `SCRIPT help`: the options the script declares, in sysbench's
    /// layout (`  --name=N  description [default]`).
    pub fn help(&self) -> String {
        let fmt = |k: &OptKind| match k {
            OptKind::Bool(_) => "[=on|off]",
            OptKind::Int(_) | OptKind::Float(_) => "=N",
            OptKind::Str(_) | OptKind::Unset => "=STRING",
            OptKind::List(_) => "=[LIST,...]",
        };
        let width = self
            .declared
            .iter()
            .map(|d| d.name.len() + fmt(&d.default).len())
            .max()
            .unwrap_or(0);
        let mut s = format!(
            "loadlab {} sysbench (sysbench 1.0.20 compatible)\n\n{} options:\n",
            env!("CARGO_PKG_VERSION"),
            self.name
        );
        for d in &self.declared {
            let pad = width - d.name.len() + 1;
            s.push_str(&format!(
                "  --{}{:<pad$}{}",
                d.name,
                fmt(&d.default),
                d.description
            ));
            let default = match &d.default {
                OptKind::Bool(b) => Some(if *b { "on".to_string() } else { "off".into() }),
                OptKind::Int(i) => Some(i.to_string()),
                OptKind::Float(f) => Some(f.to_string()),
                OptKind::Str(x) => Some(x.clone()),
                OptKind::List(l) => Some(l.join(",")),
                OptKind::Unset => None,
            };
            if let Some(v) = default {
                s.push_str(&format!(" [{v}]"));
            }
            s.push('\n');
        }
        s.push('\n');
        s
    }

    /// Whether the script defines command `c` (prepare, run, cleanup).
    pub fn has_command(&self, c: &str) -> bool {
        self.commands.iter().any(|x| x == c)
    }
}

/// A script's lines printed by its threads, handed to whoever writes the
/// command's output (the Lua states never write to stdout themselves).
pub type Printed = Arc<std::sync::Mutex<String>>;

/// What kind of value an option takes: its default's type.
#[derive(Debug, Clone, PartialEq)]
pub enum OptKind {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<String>),
    /// No default: a string, `nil` unless given.
    Unset,
}

/// One option of `sysbench.cmdline.options`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declared {
    /// With `_` (the command line takes `-` and `_` alike).
    pub name: String,
    pub description: String,
    pub default: OptKind,
}

/// The value of `--name[=v]` for a declared option, typed by its default;
/// `Err` names the option and what it expects.
pub fn value(d: &Declared, raw_name: &str, v: Option<&str>) -> Result<OptKind, String> {
    let need = |what: &str| format!("--{raw_name} needs a value ({what})");
    Ok(match &d.default {
        OptKind::Bool(_) => OptKind::Bool(match v {
            None | Some("on" | "true" | "yes" | "1") => true,
            Some("off" | "false" | "no" | "0") => false,
            Some(x) => return Err(format!("--{raw_name}={x}: expected on or off")),
        }),
        OptKind::Int(_) => {
            let s = v.ok_or_else(|| need("a number"))?;
            OptKind::Int(
                s.parse()
                    .map_err(|_| format!("--{raw_name}={s}: not a valid integer"))?,
            )
        }
        OptKind::Float(_) => {
            let s = v.ok_or_else(|| need("a number"))?;
            OptKind::Float(
                s.parse()
                    .map_err(|_| format!("--{raw_name}={s}: not a valid number"))?,
            )
        }
        OptKind::Str(_) | OptKind::Unset => OptKind::Str(v.ok_or_else(|| need("a string"))?.into()),
        OptKind::List(_) => OptKind::List(
            v.ok_or_else(|| need("a comma-separated list"))?
                .split(',')
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
        ),
    })
}
