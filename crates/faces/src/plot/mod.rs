//! `loadlab plot`: vegeta's `plot` as a self-contained HTML page. One series
//! per input label (the attack name; the file name when a file's attack has
//! none) and per outcome (OK, error), latency over time, each downsampled with
//! [`lttb()`] to `threshold` points. The page draws itself with a small canvas
//! script of our own (no network, no library), and after drawing writes what
//! it drew into `body[data-drawn-series]`/`[data-drawn-points]` so a headless
//! browser can check it.

pub mod lttb;
mod page;

use std::collections::BTreeMap;
use std::io::Read;

use loadlab_metrics::{ReadError, open_results};

pub use lttb::lttb;

/// vegeta's default points per series.
pub const DEFAULT_THRESHOLD: usize = 4000;
/// The page title when `-title` is not given.
pub const DEFAULT_TITLE: &str = "loadlab Plot";

/// Why a plot could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("{0}")]
    Read(#[from] ReadError),
    #[error("-threshold must be at least 3 (got {0})")]
    Threshold(usize),
}

/// One input: a name for messages and labels, and its bytes.
pub struct Input {
    pub name: String,
    pub reader: Box<dyn Read + Send>,
}

/// One drawn series.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub label: String,
    pub ok: bool,
    /// Requests in the series before downsampling.
    pub total: u64,
    /// (seconds since the earliest request, latency in ms), sorted by time.
    pub points: Vec<(f64, f64)>,
}

/// Reads every input and returns the downsampled series, ordered by label
/// then OK before errors.
pub fn build_series(inputs: Vec<Input>, threshold: usize) -> Result<Vec<Series>, PlotError> {
    if threshold < 3 {
        return Err(PlotError::Threshold(threshold));
    }
    let many = inputs.len() > 1;
    // (label, is_error) → (absolute send ns, latency ns)
    let mut raw: BTreeMap<(String, bool), Vec<(u64, u64)>> = BTreeMap::new();
    let mut earliest = u64::MAX;
    for input in inputs {
        let results = open_results(input.reader, &input.name)?;
        let mut last_attack: Option<(std::sync::Arc<str>, String)> = None;
        for rec in results {
            let rec = rec?;
            // Labels change rarely: rebuild the string only when the attack does.
            let label = match &last_attack {
                Some((a, l)) if *a == rec.attack => l.clone(),
                _ => {
                    let l = match (rec.attack.is_empty(), many) {
                        (true, _) => input.name.clone(),
                        (false, true) => format!("{}: {}", input.name, rec.attack),
                        (false, false) => rec.attack.to_string(),
                    };
                    last_attack = Some((rec.attack.clone(), l.clone()));
                    l
                }
            };
            let t = rec.abs_intended_ns();
            earliest = earliest.min(t);
            let ok = rec.sample.error == loadlab_core::ErrorKind::None && rec.sample.is_success();
            raw.entry((label, !ok))
                .or_default()
                .push((t, rec.sample.latency_ns()));
        }
    }
    let mut out = Vec::with_capacity(raw.len());
    for ((label, is_err), mut pts) in raw {
        pts.sort_unstable_by_key(|p| p.0);
        let xy: Vec<(f64, f64)> = pts
            .iter()
            .map(|&(t, l)| ((t - earliest) as f64 / 1e9, l as f64 / 1e6))
            .collect();
        out.push(Series {
            label,
            ok: !is_err,
            total: pts.len() as u64,
            points: lttb(&xy, threshold),
        });
    }
    Ok(out)
}

/// The whole HTML page.
pub fn render_html(title: &str, series: &[Series]) -> String {
    let data = serde_json::json!({
        "title": title,
        "series": series.iter().map(|s| serde_json::json!({
            "name": s.label,
            "kind": if s.ok { "ok" } else { "error" },
            "total": s.total,
            // Rounded to µs / ns resolution: smaller pages, no visible loss.
            "points": s.points.iter().map(|&(x, y)| [round(x, 6), round(y, 3)]).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    });
    // `</` inside a script element would end it; `<\/` is the same JSON string.
    let json = data.to_string().replace("</", "<\\/");
    page::TEMPLATE
        .replace("{{TITLE}}", &html_escape(title))
        .replace("{{DATA}}", &json)
}

fn round(v: f64, digits: i32) -> f64 {
    let m = 10f64.powi(digits);
    (v * m).round() / m
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Reads, downsamples and renders in one call.
pub fn plot(inputs: Vec<Input>, title: &str, threshold: usize) -> Result<String, PlotError> {
    Ok(render_html(title, &build_series(inputs, threshold)?))
}
