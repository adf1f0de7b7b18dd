//! sysbench 1.0 Lua scripts (`loadlab sysbench ./my_test.lua run`), run by
//! an embedded LuaJIT with the part of sysbench's Lua API that its own
//! bundled OLTP scripts use (`/usr/share/sysbench/*.lua`):
//!
//! * [`opts`]: `sysbench.cmdline.options` (the script's own options, read
//!   from the command line) and `sysbench.opt`;
//! * [`rand`]: `sysbench.rand.*` and the `sb_rand*` globals;
//! * [`sql`]: `sysbench.sql.driver():connect()`, `con:query`,
//!   `con:prepare` with bound parameters, `con:bulk_insert_*`;
//! * [`state`]: the `sysbench` table of one Lua state, `print`, `require`;
//! * [`thread`]: one Lua state per thread, as sysbench: `thread_init`,
//!   `event`, `thread_done`, `sysbench.hooks.before_restart_event`, and the
//!   `prepare`/`cleanup` commands;
//! * [`scan`]: what a script uses of sysbench's API that loadlab does not
//!   have, refused before any load.

use std::path::Path;

pub mod opts;
pub mod rand;
pub mod scan;
pub mod sql;
pub mod state;
pub mod thread;

pub use crate::options::script::{Declared, OptKind, Printed, Script};
pub use thread::{LuaWorker, command};

/// Where `require` looks after the script's own folder: where Debian's
/// sysbench installs its scripts (`oltp_common.lua`).
pub const SYSBENCH_DIR: &str = "/usr/share/sysbench";

/// Why a script cannot be run: each one line naming the file (and where
/// in it), each kind its own exit code.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ScriptError {
    /// The script uses a part of sysbench's API that loadlab does not
    /// have (found before any load).
    #[error("{0}")]
    Unsupported(String),
    /// The script cannot be read, or fails to load (a syntax error, an
    /// error at its top level).
    #[error("{0}")]
    Bad(String),
}

impl Script {
    /// The script a sysbench command line names, if it names a `.lua` file
    /// that exists (a built-in test's name such as `oltp_read_only.lua`,
    /// with no such file, stays the built-in test): read, scanned for what
    /// loadlab does not support, and run once to learn its options.
    pub fn detect(args: &[String]) -> Result<Option<Script>, ScriptError> {
        let positional = positional(args);
        let Some(word) = positional.first().copied() else {
            return Ok(None);
        };
        if !word.ends_with(".lua") {
            return Ok(None);
        }
        let path = Path::new(word);
        if !path.is_file() {
            if crate::Test::from_name(word).is_some() {
                return Ok(None);
            }
            return Err(ScriptError::Bad(format!("{word}: no such Lua script")));
        }
        let source = std::fs::read_to_string(path)
            .map_err(|e| ScriptError::Bad(format!("{word}: cannot read it: {e}")))?;
        scan::check(word, path, &source)?;
        let command = positional.get(1).copied().unwrap_or("");
        let (declared, commands) = state::declare(word, path, &source, command)?;
        Ok(Some(Script {
            path: path.to_path_buf(),
            name: word.to_string(),
            source,
            declared,
            given: Vec::new(),
            commands,
            printed: Printed::default(),
        }))
    }
}

/// The positional words of a sysbench command line (the value of `-o` and
/// of a separate `--output FILE` left out).
fn positional(args: &[String]) -> Vec<&str> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "-o" || a == "--output" {
            i += 1;
        } else if !a.starts_with('-') {
            v.push(a);
        }
    }
    v
}

/// Moves what the scripts printed to `out`.
pub fn drain(printed: &Printed, out: &mut dyn std::io::Write) {
    let text = {
        let mut p = printed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if p.is_empty() {
            return;
        }
        std::mem::take(&mut *p)
    };
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positional_words_skip_option_values() {
        let a: Vec<String> = "--threads=2 -o r.bin x.lua --output f run"
            .split_whitespace()
            .map(String::from)
            .collect();
        assert_eq!(positional(&a), ["x.lua", "run"]);
    }
}
