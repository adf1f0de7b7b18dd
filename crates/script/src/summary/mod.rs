//! k6's end-of-test summary (its v1 "compact" layout: thresholds, total
//! results by section, checks) and `--summary-export`'s JSON. Renders the
//! figures of `registry.rs`; computes none of its own.
//!
//! `text.rs` writes the summary k6 prints, `export.rs` the data of
//! `--summary-export` and `handleSummary`, `handle.rs` calls the script's
//! `handleSummary`; `format.rs` has the number formats they share, `groups.rs` the
//! tree of groups and checks.

mod export;
mod format;
mod groups;
mod handle;
mod text;

pub use export::{export_json, summary_data};
pub use format::{fmt_ms, jnum};
pub use handle::{handle_summary, legacy_text};
pub use text::{last_block, render};
