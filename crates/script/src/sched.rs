//! The run's entry points, re-exported: the run itself is in `run/`
//! (`setup.rs`, `drive.rs`, `sched.rs`), the executors in `executor/`.

#[cfg(test)]
use crate::ScriptError;
pub use crate::run::config::{RunConfig, RunOutcome, TeardownFailure};
pub use crate::run::setup::run;

pub use crate::modules::imports::check_members;
#[cfg(test)]
use crate::modules::imports::code_only;

#[cfg(test)]
mod tests {
    use super::*;

    /// A member named in a string, a template literal's text or a comment
    /// is not a use; one in a template's `${…}` or in code is, with its
    /// line and column.
    #[test]
    fn members_are_looked_for_in_code_only() {
        let ok = "import html from 'k6/html';\n\
                  const s = \"[object html.Node]\" + 'html.nope\\'s';\n\
                  // html.bogus()\n\
                  /* html.gone() */\n\
                  const t = `a html.x ${html.parseHTML(`b html.y ${'html.z'}`)} c html.w`;\n";
        assert!(check_members(ok, "s.js").is_ok());
        let bad = "import http from 'k6/http';\nconst t = `a ${ {x: 1}.x } ${http.asyncGet('GET', 'u')}`;\n";
        match check_members(bad, "s.js") {
            Err(ScriptError::Unsupported(m)) => {
                assert!(m.starts_with("s.js:2:30: http.asyncGet"), "{m}")
            }
            other => panic!("{other:?}"),
        }
        // Positions are kept: the blanked text is as long as the source.
        let src = "const é = 'ü'; // ß\n";
        assert_eq!(code_only(src).len(), src.len());
    }
}
