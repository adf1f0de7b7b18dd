//! Each run's own dashboard page (`runs/<phase>-<rate>-<target>-<rep>.html`
//! in the report's folder, written by the command line as the run goes):
//! the report lists the ones there are.

use std::path::Path;

use super::doc::Block;
use crate::store::RunRow;

/// A run's page, relative to the report's folder.
pub fn page_name(phase: &str, rate: u64, target: &str, repetition: u32) -> String {
    let safe: String = target
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect();
    format!("runs/{phase}-{rate}-{safe}-{repetition}.html")
}

/// The "Run pages" section: a link per run whose page is in `out`; none
/// when no run has one (a study without `--out`, or runs of an earlier
/// invocation resumed).
pub fn section(runs: &[RunRow], out: &Path) -> Vec<Block> {
    let links: Vec<(String, String)> = runs
        .iter()
        .filter_map(|r| {
            let name = page_name(&r.phase, r.rate, &r.target, r.repetition);
            out.join(&name).is_file().then(|| {
                let text = format!(
                    "{} {}/s {} #{}: {} requests, p99 {:.2}ms",
                    r.phase,
                    r.rate,
                    r.target,
                    r.repetition,
                    r.summary.requests,
                    r.summary.p99_ns as f64 / 1e6
                );
                (text, name)
            })
        })
        .collect();
    if links.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Heading(2, "Run pages".into()),
        Block::Para(
            "Each run's second-by-second dashboard, one self-contained page per run (opens offline). Its totals leave the warm-up out, as every figure here; its charts show the warm-up too.".into(),
        ),
        Block::Links(links),
    ]
}
