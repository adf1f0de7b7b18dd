//! What a test needs from the machine (a peer such as k6 or sysbench, a
//! browser, a database server, a tool) and what happens when it is missing.
//!
//! On a developer's machine a missing peer skips the test with a loud note
//! on stderr, so a partial install still runs the rest. Under `CI` (any
//! value of the environment variable) it fails the test: `.ci/run` installs
//! every peer, so a missing one there is a broken install, never a pass.

use crate::proc::BoundedOutput;

/// True when the test runs under CI, where every peer must be present.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some()
}

/// `test` cannot run because `what` is missing (`install` says how to get
/// it): panics under CI, else prints a loud note. Call it, then return.
pub fn missing(test: &str, what: &str, install: &str) {
    if in_ci() {
        panic!("{test}: {what} is required in CI ({install}; .ci/run installs it)");
    }
    // Straight to the process's stderr: the test harness captures
    // `eprintln!` and shows it only for a failing test, and this test
    // passes, so the note would be swallowed.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "\n!!!!!!!!!! SKIPPED {test}: no {what}; this test did NOT run ({install}) !!!!!!!!!!\n"
    );
}

/// True when `program --version` runs; else reports it [`missing`].
pub fn program(test: &str, program: &str, install: &str) -> bool {
    let ok = std::process::Command::new(program)
        .arg("--version")
        .output_bounded()
        .is_ok();
    if !ok {
        missing(test, program, install);
    }
    ok
}
