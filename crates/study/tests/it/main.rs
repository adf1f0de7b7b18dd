//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod arbitrary_plans;
mod capacity_model;
mod concurrent;
mod examples;
mod fuzz_corpus;
mod fuzz_regressions;
mod history;
mod origins;
mod plan;
mod report_charts;
mod report_html;
mod store;
mod study_e2e;
mod svg;
mod verdicts;
mod workload_plans;
