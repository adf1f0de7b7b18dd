//! TypeScript, as k6 v1 runs it: a `.ts` file that is not plain
//! JavaScript has its types stripped before QuickJS compiles it, and
//! what TypeScript adds to JavaScript (enums, namespaces, parameter
//! properties) is compiled to JavaScript. k6 does this with esbuild;
//! loadlab with oxc's transformer. The source map of the result puts the
//! positions of exceptions back into the TypeScript (see `source_map`).

use std::path::Path;

use oxc_allocator::Allocator;
use oxc_codegen::{Codegen, CodegenOptions};
use oxc_diagnostics::{OxcDiagnostic, Severity};
use oxc_parser::Parser;
use oxc_semantic::SemanticBuilder;
use oxc_span::SourceType;
use oxc_transformer::{TransformOptions, Transformer};

use super::source_map::Mapping;
use crate::ScriptError;

/// JavaScript made from TypeScript, with where each part came from.
pub(crate) struct Stripped {
    pub(crate) code: String,
    pub(crate) map: Mapping,
}

/// Whether `source` is a module QuickJS can compile as it is (oxc's
/// parser says so; as k6, loadlab strips types only from a file that is
/// not JavaScript).
pub(crate) fn is_javascript(source: &str) -> bool {
    let a = Allocator::default();
    let ret = Parser::new(&a, source, SourceType::mjs()).parse();
    !ret.panicked && !has_error(&ret.diagnostics)
}

/// `source`, TypeScript of the file `name`, as JavaScript. A syntax error
/// is `ScriptError::Syntax("NAME:LINE:COL: SyntaxError: …")`, its
/// position in the TypeScript.
pub(crate) fn strip_types(source: &str, name: &str) -> Result<Stripped, ScriptError> {
    let a = Allocator::default();
    let parsed = Parser::new(&a, source, SourceType::ts()).parse();
    if let Some(e) = first_error(&parsed.diagnostics) {
        return Err(syntax(source, name, e));
    }
    if parsed.panicked {
        return Err(ScriptError::Syntax(format!(
            "{name}: SyntaxError: the TypeScript could not be parsed"
        )));
    }
    let mut program = parsed.program;
    let semantic = SemanticBuilder::new().with_enum_eval(true).build(&program);
    if let Some(e) = first_error(&semantic.diagnostics) {
        return Err(syntax(source, name, e));
    }
    let scoping = semantic.semantic.into_scoping();
    let options = TransformOptions::default();
    let done =
        Transformer::new(&a, Path::new(name), &options).build_with_scoping(scoping, &mut program);
    if let Some(e) = first_error(&done.diagnostics) {
        return Err(syntax(source, name, e));
    }
    let out = Codegen::new()
        .with_options(CodegenOptions {
            source_map_path: Some(name.into()),
            ..CodegenOptions::default()
        })
        .build(&program);
    let map = out.map.map(|m| Mapping::of(&m, |_| name.to_string()));
    Ok(Stripped {
        code: out.code,
        map: map.unwrap_or_default(),
    })
}

fn has_error<'a>(d: impl IntoIterator<Item = &'a OxcDiagnostic>) -> bool {
    first_error(d).is_some()
}

fn first_error<'a>(d: impl IntoIterator<Item = &'a OxcDiagnostic>) -> Option<&'a OxcDiagnostic> {
    d.into_iter().find(|e| e.severity == Severity::Error)
}

/// The error as loadlab prints a syntax error: `NAME:LINE:COL:
/// SyntaxError: message`, line and column counted from 1.
fn syntax(source: &str, name: &str, e: &OxcDiagnostic) -> ScriptError {
    let msg = e.message.trim_end_matches('.');
    match e.labels.first() {
        Some(l) => {
            let (line, col) = line_col(source, l.offset() as usize);
            ScriptError::Syntax(format!("{name}:{line}:{col}: SyntaxError: {msg}"))
        }
        None => ScriptError::Syntax(format!("{name}: SyntaxError: {msg}")),
    }
}

/// The line and column (from 1, in characters) of the byte `offset`.
pub(crate) fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let before = &source[..source.floor_char_boundary(offset.min(source.len()))];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn javascript_is_left_as_it_is() {
        assert!(is_javascript("export default function () { let x = 1; }"));
        assert!(!is_javascript("let x: number = 1;"));
    }

    #[test]
    fn types_go_and_enums_become_objects() {
        let s = strip_types(
            "enum C { A, B = 5 }\ninterface I { a: string }\n\
             class P { constructor(private n: number) {} }\n\
             export const v: number = C.B as number;\n",
            "t.ts",
        )
        .unwrap();
        assert!(!s.code.contains("interface"), "{}", s.code);
        assert!(!s.code.contains(": number"), "{}", s.code);
        assert!(s.code.contains("this.n = n"), "{}", s.code);
        assert!(s.code.contains("\"B\""), "{}", s.code);
    }

    #[test]
    fn a_syntax_error_names_its_place_in_the_typescript() {
        match strip_types("let a = 1;\nlet x: = 1;\n", "bad.ts") {
            Err(ScriptError::Syntax(m)) => {
                assert!(m.starts_with("bad.ts:2:8: SyntaxError: "), "{m}")
            }
            other => panic!("{:?}", other.map(|s| s.code)),
        }
    }
}
