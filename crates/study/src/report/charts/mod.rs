//! Charts, drawn once from a backend-independent description: a [`Figure`]
//! is laid out into a [`scene::Scene`] (shapes in pixels), written as SVG
//! (inline in the HTML) and drawn as PNG (beside the Markdown), so both show
//! the same picture.
//!
//! Log axes are drawn as linear axes over log10 of the data with 10^x tick
//! labels (see [`ticks`]). Every series of a panel has its own colour and dash
//! pattern, so a greyscale print still tells them apart; legends sit below
//! their plot, never over the data; points that broke the SLO carry a red ×
//! in a hollow ring on the panel that shows the broken bound. PNG text uses
//! DejaVu Sans embedded in the binary, so PNGs render the same on any
//! machine (no system fonts needed).

use std::path::Path;

use plotters::style::RGBColor;

pub mod layout;
mod png;
pub mod scene;
pub mod ticks;

pub use ticks::{linear_ticks, log_ticks};

/// Colour-blind-friendly palette (Okabe–Ito), one colour per target.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// Dash patterns (on, off … in px) of a panel's series, by their position
/// in the panel: solid first, then patterns that differ in greyscale.
pub const DASHES: [&[f64]; 7] = [
    &[],
    &[10.0, 4.0],
    &[2.0, 3.0],
    &[10.0, 3.0, 2.0, 3.0],
    &[16.0, 4.0, 4.0, 4.0],
    &[5.0, 2.0],
    &[10.0, 3.0, 2.0, 3.0, 2.0, 3.0],
];

/// The dash of reference lines (an SLO bound, a ceiling): thinner than the
/// series and not among [`DASHES`].
pub const RULE_DASH: &[f64] = &[6.0, 3.0];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    Linear,
    /// Data are positive; drawn as log10.
    Log,
}

#[derive(Debug, Clone)]
pub struct Line {
    pub label: String,
    pub color: usize,
    pub points: Vec<(f64, f64)>,
    /// A dot at every point.
    pub markers: bool,
    /// Points that broke the SLO.
    pub fails: Vec<Fail>,
}

impl Line {
    pub fn new(label: impl Into<String>, color: usize, points: Vec<(f64, f64)>) -> Line {
        Line {
            label: label.into(),
            color,
            points,
            markers: false,
            fails: Vec::new(),
        }
    }
}

/// A point of a [`Line`] that broke an SLO bound shown on its panel.
#[derive(Debug, Clone)]
pub struct Fail {
    /// Index into the line's points.
    pub point: usize,
    /// The measure the bound limits: `success`, `p99`, `max`.
    pub metric: String,
    /// The bound in words, for the legend: `p99 ≤ 80ms`.
    pub bound: String,
    /// The mark's tooltip: which run, what it measured, what it broke.
    pub title: String,
}

/// An x range shaded grey (the warm-up), named in the legend.
#[derive(Debug, Clone)]
pub struct Shade {
    pub from: f64,
    pub to: f64,
    pub label: String,
}

/// The area between a low and a high edge, filled in a light tint of a
/// palette colour and named in the legend.
#[derive(Debug, Clone)]
pub struct Band {
    pub label: String,
    pub color: usize,
    /// `(x, low, high)` in data units, in x order.
    pub points: Vec<(f64, f64, f64)>,
}

#[derive(Debug, Clone)]
pub struct Panel {
    /// Names the panel in the SVG (`<g id="FIGURE-ID">`).
    pub id: String,
    /// A heading above the plot; empty for none.
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_axis: Axis,
    pub y_axis: Axis,
    /// A linear y axis starts at zero.
    pub y_zero: bool,
    /// Custom tick text for log axes' positions (e.g. "99.9%").
    pub x_ticks: Option<fn(f64) -> String>,
    pub lines: Vec<Line>,
    pub shade: Option<Shade>,
    /// Filled intervals drawn under the lines (an interval band).
    pub bands: Vec<Band>,
    /// Reference lines across the whole panel (an SLO, a ceiling).
    pub rules: Vec<Rule>,
}

impl Panel {
    /// A panel with linear axes from zero and nothing drawn yet.
    pub fn new(id: &str, x_label: impl Into<String>, y_label: impl Into<String>) -> Panel {
        Panel {
            id: id.into(),
            title: String::new(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_axis: Axis::Linear,
            y_axis: Axis::Linear,
            y_zero: true,
            x_ticks: None,
            lines: Vec::new(),
            shade: None,
            bands: Vec::new(),
            rules: Vec::new(),
        }
    }
}

/// A dashed reference line across a panel, named in the legend.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Vertical at x = `value`, else horizontal at y = `value` (data units).
    pub vertical: bool,
    pub value: f64,
    pub label: String,
    pub color: usize,
}

#[derive(Debug, Clone)]
pub struct Figure {
    /// File stem and HTML id.
    pub id: String,
    pub title: String,
    pub panels: Vec<Panel>,
}

impl Figure {
    /// The figure as an SVG document, for inlining in HTML under a
    /// `<figcaption>` with the title (so the title is not drawn in it).
    pub fn svg(&self) -> Result<String, String> {
        Ok(layout::figure(self, false).svg())
    }

    /// Writes the figure as a PNG file, its title drawn above the panels.
    pub fn png(&self, path: &Path) -> Result<(), String> {
        png::write(&layout::figure(self, true), path)
            .map_err(|e| format!("chart {}: {e}", path.display()))
    }
}

/// Tick text for the percentile axis (x = log10(1/(1−q))).
pub fn percentile_tick(v: f64) -> String {
    // Only whole decades (90%, 99%, 99.9% ...) and the median: other
    // in-between ticks read badly.
    if (v - 2f64.log10()).abs() < 0.01 {
        return "50%".into();
    }
    if (v - v.round()).abs() > 0.01 {
        return String::new();
    }
    let v = v.round();
    let q = 1.0 - 10f64.powf(-v);
    let pct = q * 100.0;
    if pct < 99.0 {
        format!("{pct:.0}%")
    } else {
        format!("{}%", fmt_num_trim(pct))
    }
}

fn fmt_num_trim(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The percentile spectrum of a histogram, HdrHistogram-style: x = 1/(1−q)
/// (log), y = latency in ms. Stops where the histogram runs out of samples.
pub fn spectrum_points(h: &hdrhistogram::Histogram<u64>) -> Vec<(f64, f64)> {
    if h.is_empty() {
        return Vec::new();
    }
    let n = h.len() as f64;
    let mut out = Vec::new();
    for k in 0..=60 {
        let q = 1.0 - 10f64.powf(-(k as f64) / 10.0);
        // Beyond 1/n the tail is a single sample: stop there.
        if 1.0 - q < 1.0 / n && k > 0 {
            out.push((n, h.max() as f64 / 1e6));
            break;
        }
        out.push((1.0 / (1.0 - q), h.value_at_quantile(q) as f64 / 1e6));
    }
    out
}
