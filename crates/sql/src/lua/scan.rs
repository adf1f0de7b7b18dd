//! What a script uses of sysbench's API that loadlab does not have,
//! found in its text (and in the modules it `require`s from its folder or
//! sysbench's) before anything runs: `sysbench.*` names outside the
//! supported set, methods of sysbench's objects that loadlab lacks, and
//! LuaJIT's `ffi` (sysbench's C functions are not there). Each is refused
//! as `my.lua:12:5: sysbench.sql.xyz is not supported by loadlab`. What
//! the text does not show (a name built at run time) is refused when it is
//! used, by the same words.

use std::path::Path;

use super::ScriptError;

/// The supported `sysbench.*` names; `opt` and `hooks` take any field
/// below them (the script's options; hooks it defines are checked
/// against [`HOOKS`]).
const SUPPORTED: &[&str] = &[
    "sysbench.version",
    "sysbench.version_string",
    "sysbench.tid",
    "sysbench.opt",
    "sysbench.hooks",
    "sysbench.error.RESTART_EVENT",
    "sysbench.cmdline.options",
    "sysbench.cmdline.commands",
    "sysbench.cmdline.command",
    "sysbench.cmdline.PARALLEL_COMMAND",
    "sysbench.cmdline.script_path",
    "sysbench.rand.default",
    "sysbench.rand.uniform",
    "sysbench.rand.gaussian",
    "sysbench.rand.special",
    "sysbench.rand.pareto",
    "sysbench.rand.zipfian",
    "sysbench.rand.string",
    "sysbench.rand.varstring",
    "sysbench.rand.unique",
    "sysbench.rand.uniform_uint64",
    "sysbench.rand.uniform_double",
    "sysbench.sql.driver",
    "sysbench.sql.error",
    "sysbench.sql.type.INT",
    "sysbench.sql.type.TINYINT",
    "sysbench.sql.type.SMALLINT",
    "sysbench.sql.type.BIGINT",
    "sysbench.sql.type.CHAR",
    "sysbench.sql.type.VARCHAR",
];

/// The hooks loadlab calls.
const HOOKS: &[&str] = &["before_restart_event"];

/// Methods of sysbench's connection, statement and result-set objects
/// that loadlab does not have (rows are read and dropped, never handed
/// to the script).
const METHODS: &[&str] = &[
    "fetch_row",
    "query_row",
    "free",
    "reconnect",
    "bind_result",
    "nrows",
    "nfields",
];

/// Checks `source` (the script `name` at `path`) and the modules it
/// requires.
pub fn check(name: &str, path: &Path, source: &str) -> Result<(), ScriptError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut seen = vec![path.to_path_buf()];
    let mut todo = vec![(name.to_string(), source.to_string())];
    while let Some((n, text)) = todo.pop() {
        let code = strip_comments(&text);
        check_text(&n, &code)?;
        for m in requires(&code) {
            for d in [dir, Path::new("."), Path::new(super::SYSBENCH_DIR)] {
                let p = d.join(format!("{m}.lua"));
                if p.is_file() && !seen.contains(&p) {
                    if let Ok(t) = std::fs::read_to_string(&p) {
                        seen.push(p.clone());
                        todo.push((p.display().to_string(), t));
                    }
                    break;
                }
            }
        }
    }
    Ok(())
}

/// `source` with its comments blanked (lines and columns kept).
fn strip_comments(source: &str) -> String {
    let b = source.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 2;
                continue;
            }
            if c == q || c == b'\n' {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            quote = Some(c);
            out.push(c);
            i += 1;
            continue;
        }
        if c == b'-' && b.get(i + 1) == Some(&b'-') {
            let long = b[i + 2..].starts_with(b"[[");
            let end = if long {
                find(b, i + 4, b"]]").map(|e| e + 2).unwrap_or(b.len())
            } else {
                find(b, i, b"\n").unwrap_or(b.len())
            };
            for &x in &b[i..end] {
                out.push(if x == b'\n' { b'\n' } else { b' ' });
            }
            i = end;
            continue;
        }
        out.push(c);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    (from..b.len().saturating_sub(pat.len() - 1)).find(|&i| b[i..].starts_with(pat))
}

/// Line and column (from 1) of byte `at`.
fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map(|p| p + 1).unwrap_or(0) + 1;
    (line, col)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The dotted name starting at byte `at` (`sysbench.sql.type.INT`).
fn dotted(b: &[u8], at: usize) -> String {
    let mut end = at;
    while end < b.len()
        && (is_ident(b[end]) || (b[end] == b'.' && b.get(end + 1).is_some_and(|c| is_ident(*c))))
    {
        end += 1;
    }
    String::from_utf8_lossy(&b[at..end]).into_owned()
}

fn refuse(name: &str, code: &str, at: usize, what: &str) -> ScriptError {
    let (l, c) = line_col(code, at);
    ScriptError::Unsupported(format!(
        "{name}:{l}:{c}: {what} is not supported by loadlab"
    ))
}

fn check_text(name: &str, code: &str) -> Result<(), ScriptError> {
    let b = code.as_bytes();
    for (at, _) in code.match_indices("sysbench.") {
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b'.') {
            continue;
        }
        let full = dotted(b, at);
        let ok = SUPPORTED.iter().any(|s| {
            full == *s
                || full.starts_with(&format!("{s}."))
                    && !s.starts_with("sysbench.rand")
                    && !s.starts_with("sysbench.sql.type")
                || s.starts_with(&format!("{full}."))
        });
        let hook_ok = match full.strip_prefix("sysbench.hooks.") {
            Some(h) => HOOKS.contains(&h),
            None => true,
        };
        if !ok || !hook_ok {
            return Err(refuse(name, code, at, &full));
        }
    }
    for (at, _) in code.match_indices(':') {
        let rest = &code[at + 1..];
        let m: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = rest[m.len()..].trim_start();
        if METHODS.contains(&m.as_str()) && (after.starts_with('(') || after.starts_with('"')) {
            return Err(refuse(name, code, at, &format!("the method :{m}()")));
        }
    }
    for pat in [
        "require(\"ffi\")",
        "require('ffi')",
        "require \"ffi\"",
        "require 'ffi'",
        "ffi.C.",
    ] {
        if let Some(at) = code.find(pat) {
            return Err(refuse(
                name,
                code,
                at,
                "LuaJIT's ffi (sysbench's C functions)",
            ));
        }
    }
    Ok(())
}

/// The module names of `require("x")` / `require "x"`.
fn requires(code: &str) -> Vec<String> {
    let mut v = Vec::new();
    for (at, _) in code.match_indices("require") {
        let rest = code[at + 7..].trim_start_matches([' ', '(']);
        let Some(q) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        if let Some(end) = rest[1..].find(q) {
            v.push(rest[1..1 + end].to_string());
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(src: &str) -> Result<(), ScriptError> {
        check_text("my.lua", &strip_comments(src))
    }

    #[test]
    fn supported_names_pass_and_others_are_named() {
        assert!(c("local x = sysbench.rand.uniform(1, sysbench.opt.tables)\n").is_ok());
        assert!(
            c("sysbench.cmdline.options = {a = {\"x\", 1}}\nlocal t = sysbench.sql.type\nt.INT")
                .is_ok()
        );
        assert!(c("function sysbench.hooks.before_restart_event(e) end").is_ok());
        assert!(c("-- sysbench.sql.xyz in a comment\nprint(1)").is_ok());
        let e = c("local a = 1\n  sysbench.sql.xyz(1)")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "my.lua:2:3: sysbench.sql.xyz is not supported by loadlab"
        );
        let e = c("function sysbench.hooks.report_intermediate(s) end")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("sysbench.hooks.report_intermediate is not"),
            "{e}"
        );
        let e = c("local p = sysbench.sql.type.FLOAT")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sysbench.sql.type.FLOAT"), "{e}");
        let e = c("local rs = con:query('x')\nlocal r = rs:fetch_row()")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("my.lua:2:") && e.contains(":fetch_row()"),
            "{e}"
        );
        assert!(c("local ffi = require(\"ffi\")").is_err());
    }

    #[test]
    fn requires_are_found() {
        assert_eq!(
            requires("require(\"oltp_common\")\nrequire 'x'"),
            ["oltp_common", "x"]
        );
    }
}
