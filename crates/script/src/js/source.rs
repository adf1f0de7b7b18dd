//! The code QuickJS compiles for one of the script's files: TypeScript
//! with its types stripped, JavaScript as it is; either way the file's
//! source map, if it has one, is registered (see `source_map`), and its
//! throws of values that are not `Error`s are marked (`throw_sites`).

use super::{source_map, throw_sites, typescript};
use crate::ScriptError;

/// The code to compile for the file `name` (`-`: standard input) whose
/// text is `source`. As k6 v1, a `.ts` file, or a script on standard
/// input, that is not JavaScript is taken as TypeScript; a TypeScript
/// syntax error names its place in the file. A source map that cannot be
/// read is a warning (`source_map::take_warnings`), as in k6.
pub(crate) fn prepare(source: String, name: &str) -> Result<String, ScriptError> {
    let maybe_ts = name.ends_with(".ts") || name == "-";
    if maybe_ts && !typescript::is_javascript(&source) {
        match typescript::strip_types(&source, name) {
            Ok(s) => {
                source_map::register(name, Some(s.map));
                return Ok(throw_sites::mark(s.code, name));
            }
            Err(e) if name != "-" => return Err(e),
            // Standard input that is not TypeScript either: QuickJS says
            // what is wrong with it as JavaScript.
            Err(_) => {}
        }
    }
    let map = source_map::named_in(&source, name).unwrap_or_else(|w| {
        source_map::warn(w);
        None
    });
    source_map::register(name, map);
    Ok(throw_sites::mark(source, name))
}

/// `e` with the positions in its text put back where the user wrote them.
pub(crate) fn remap_error(e: ScriptError) -> ScriptError {
    match e {
        ScriptError::Syntax(m) => ScriptError::Syntax(back(&m)),
        ScriptError::Unsupported(m) => ScriptError::Unsupported(back(&m)),
        ScriptError::Script(m) => ScriptError::Script(back(&m)),
        other => other,
    }
}

fn back(text: &str) -> String {
    source_map::remap(&throw_sites::unshift(text))
}
