//! Headless Chromium for the tests that check a page as a browser draws it.

use crate::proc::BoundedOutput;
use std::process::Command;

/// The flags every headless run takes: no sandbox, GPU, network chatter,
/// updates or first-run dialogs. Tests add their own (a window size, a
/// virtual time budget) and a `--user-data-dir` of their own.
pub const HEADLESS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// The first Chromium on `PATH` that runs (`--version` succeeds).
pub fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output_bounded()
                .is_ok_and(|o| o.status.success())
        })
}

/// [`chromium`], or `None` after a loud note that `test` was skipped. Under
/// `CI` a missing browser fails the test instead: there it must be installed.
pub fn chromium_or_skip(test: &str) -> Option<&'static str> {
    let found = chromium();
    if found.is_none() {
        crate::need::missing(test, "chromium on PATH", "apt-get install -y chromium");
    }
    found
}
