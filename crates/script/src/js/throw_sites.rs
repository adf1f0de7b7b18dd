//! Where a value that is not an `Error` was thrown. QuickJS keeps a stack
//! only in `Error` objects; k6 shows the place of the last `throw` of any
//! value (`boom\n\tat inner (a.js:3:3)`). So before QuickJS compiles a
//! file, each `throw X` whose `X` is not a `new …` expression becomes
//! `throw __k6.thrown(X, LINE, COL)`: the helper (globals' `thrown`)
//! keeps the stack of the throw with its place in the file (by object, or
//! the last primitive thrown) and gives `X` back unchanged.
//!
//! The inserted text moves the columns after it on its line:
//! [`unshift`] puts the positions in error texts back before the source
//! maps (`source_map`) take them to the file the user wrote.
//!
//! Shared state: one table for the process, by module name, filled when
//! a file is prepared (before any of its code runs) and only read after.

use std::sync::Mutex;

use oxc_allocator::Allocator;
use oxc_ast::ast::{Expression, ThrowStatement};
use oxc_ast_visit::Visit;
use oxc_parser::Parser;
use oxc_span::{GetSpan, SourceType};

/// A text inserted in a file: its line (from 1), its column in the code
/// QuickJS compiles (from 1), and its length.
type Insert = (u32, u32, u32);

static TABLE: Mutex<Vec<(String, Vec<Insert>)>> = Mutex::new(Vec::new());

fn table() -> std::sync::MutexGuard<'static, Vec<(String, Vec<Insert>)>> {
    TABLE.lock().unwrap_or_else(|p| p.into_inner())
}

/// The throws to mark: the byte offsets of their keyword and argument.
#[derive(Default)]
struct Throws {
    found: Vec<(u32, u32, u32)>,
}

impl<'a> Visit<'a> for Throws {
    fn visit_throw_statement(&mut self, it: &ThrowStatement<'a>) {
        if !matches!(it.argument, Expression::NewExpression(_)) {
            let arg = it.argument.span();
            self.found.push((it.span.start, arg.start, arg.end));
        }
        oxc_ast_visit::walk::walk_throw_statement(self, it);
    }
}

/// `code` (the file `name`, as QuickJS is to compile it) with its throws
/// marked; as it is when it has none, or does not parse (QuickJS then
/// says what is wrong with it).
pub(crate) fn mark(code: String, name: &str) -> String {
    let mut inserts = Vec::new();
    let out = if code.contains("throw") {
        marked(&code, &mut inserts).unwrap_or(code)
    } else {
        code
    };
    let mut t = table();
    t.retain(|(n, _)| n != name);
    if !inserts.is_empty() {
        t.push((name.to_string(), inserts));
    }
    out
}

fn marked(code: &str, inserts: &mut Vec<Insert>) -> Option<String> {
    let a = Allocator::default();
    let ret = Parser::new(&a, code, SourceType::mjs()).parse();
    let error = |d: &oxc_diagnostics::OxcDiagnostic| d.severity == oxc_diagnostics::Severity::Error;
    if ret.panicked || ret.diagnostics.iter().any(error) {
        return None;
    }
    let mut v = Throws::default();
    v.visit_program(&ret.program);
    if v.found.is_empty() {
        return None;
    }
    // The texts to insert, by byte offset: a throw's call before its
    // argument, its place after it (`Some(i)`: the i-th throw's).
    let mut at: Vec<(usize, Option<usize>)> = Vec::new();
    for (i, (_, start, end)) in v.found.iter().enumerate() {
        at.push((*start as usize, None));
        at.push((*end as usize, Some(i)));
    }
    at.sort_by_key(|(i, _)| *i);
    // Each throw's keyword in the code QuickJS compiles (as error texts
    // name places there, before `unshift`).
    let mut keyword: Vec<(u32, u32)> = vec![(0, 0); v.found.len()];
    let mut out = String::with_capacity(code.len() + at.len() * 16);
    let mut copied = 0;
    // The shift so far on the current line of the output.
    let (mut line, mut shift) = (1u32, 0u32);
    for (offset, which) in at {
        out.push_str(&code[copied..offset]);
        copied = offset;
        let (l, c) = line_col(code, offset);
        if l != line {
            (line, shift) = (l, 0);
        }
        let text = match which {
            None => {
                // The argument follows its keyword on the same line, with
                // nothing inserted between them.
                let i = v
                    .found
                    .iter()
                    .position(|f| f.1 as usize == offset)
                    .unwrap_or(0);
                let (kl, kc) = line_col(code, v.found[i].0 as usize);
                keyword[i] = (kl, kc + if kl == l { shift } else { 0 });
                "__k6.thrown(".to_string()
            }
            Some(i) => format!(", {}, {})", keyword[i].0, keyword[i].1),
        };
        inserts.push((l, c + shift, text.len() as u32));
        shift += text.len() as u32;
        out.push_str(&text);
    }
    out.push_str(&code[copied..]);
    Some(out)
}

/// The line and column (from 1, in characters) of the byte `offset`.
fn line_col(code: &str, offset: usize) -> (u32, u32) {
    let (line, col) = super::typescript::line_col(code, offset);
    (line as u32, col as u32)
}

/// `text` with each `NAME:LINE:COL` of a file whose throws were marked
/// moved back past the texts inserted before it on its line.
pub(crate) fn unshift(text: &str) -> String {
    let t = table();
    if t.is_empty() {
        return text.to_string();
    }
    let mut out = text.to_string();
    for (name, inserts) in t.iter() {
        let pat = format!("{name}:");
        let mut from = 0;
        while let Some(p) = out[from..].find(&pat) {
            let at = from + p + pat.len();
            from = at;
            let Some((line, col, end)) = super::source_map::position(&out, at) else {
                continue;
            };
            let before: u32 = inserts
                .iter()
                .filter(|(l, c, _)| *l == line && *c < col)
                .map(|(_, _, n)| n)
                .sum();
            if before > 0 {
                let fixed = format!("{line}:{}", col.saturating_sub(before).max(1));
                out.replace_range(at..end, &fixed);
                from = at + fixed.len();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throws_of_values_are_marked_and_positions_put_back() {
        let code = "function f() {\n  if (a) throw 'x'; g();\n  throw new Error('e');\n}\n";
        let out = mark(code.to_string(), "/tmp/throw-sites-test.js");
        assert_eq!(
            out,
            "function f() {\n  if (a) throw __k6.thrown('x', 2, 10); g();\n  throw new Error('e');\n}\n"
        );
        // `g()` is at column 21 in the file, 41 in the code compiled; the
        // throw's own place (2:10) needs no moving back.
        assert_eq!(
            unshift("at f (/tmp/throw-sites-test.js:2:41)\nat h (/tmp/throw-sites-test.js:3:9)"),
            "at f (/tmp/throw-sites-test.js:2:21)\nat h (/tmp/throw-sites-test.js:3:9)"
        );
        assert_eq!(mark("x();".into(), "/tmp/throw-sites-test.js"), "x();");
        assert_eq!(
            unshift("(/tmp/throw-sites-test.js:2:40)"),
            "(/tmp/throw-sites-test.js:2:40)"
        );
    }

    #[test]
    fn a_second_throw_on_a_line_names_its_place_in_the_code_compiled() {
        let code = "try { throw 'a'; } catch (e) { throw e; }\n";
        let out = mark(code.to_string(), "/tmp/throw-sites-test-2.js");
        assert_eq!(
            out,
            "try { throw __k6.thrown('a', 1, 7); } catch (e) { throw __k6.thrown(e, 1, 51); }\n"
        );
        // 51 in the code compiled is the second throw's column, 32, in the file.
        assert_eq!(
            unshift("(/tmp/throw-sites-test-2.js:1:51)"),
            "(/tmp/throw-sites-test-2.js:1:32)"
        );
    }
}
