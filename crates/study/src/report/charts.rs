//! Charts, drawn once from a backend-independent description: SVG (inline in
//! the HTML) and PNG (beside the Markdown) come from the same [`Figure`].
//!
//! Log axes are drawn as linear axes over log10 of the data with 10^x tick
//! labels: one chart type for both scales keeps the plotting code small.
//! Text uses DejaVu Sans embedded in the binary, so PNGs render the same on
//! any machine (no system fonts needed).

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static FONT_ONCE: Once = Once::new();

fn ensure_font() {
    FONT_ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

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
    pub dashed: bool,
    pub markers: bool,
}

#[derive(Debug, Clone)]
pub struct Panel {
    pub x_label: String,
    pub y_label: String,
    pub x_axis: Axis,
    pub y_axis: Axis,
    /// Custom tick text for log axes' positions (e.g. "99.9%").
    pub x_ticks: Option<fn(f64) -> String>,
    pub lines: Vec<Line>,
    /// An x range shaded grey (the warm-up).
    pub shade: Option<(f64, f64)>,
}

#[derive(Debug, Clone)]
pub struct Figure {
    /// File stem and HTML id.
    pub id: String,
    pub title: String,
    pub panels: Vec<Panel>,
}

const W: u32 = 900;
const PANEL_H: u32 = 360;

fn tr(axis: Axis, v: f64) -> f64 {
    match axis {
        Axis::Linear => v,
        Axis::Log => v.max(1e-9).log10(),
    }
}

fn range(vals: impl Iterator<Item = f64>, axis: Axis) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if axis == Axis::Linear {
        lo = lo.min(0.0);
    }
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.05;
    (
        if axis == Axis::Linear && lo >= 0.0 {
            lo
        } else {
            lo - pad
        },
        hi + pad,
    )
}

fn fmt_num(v: f64) -> String {
    if v.abs() >= 100.0 || v == 0.0 {
        format!("{v:.0}")
    } else if v.abs() >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    caption: Option<&str>,
) -> DrawResult<DB> {
    let xs = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| tr(p.x_axis, q.0)));
    let ys = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| tr(p.y_axis, q.1)));
    let (x0, x1) = range(xs, p.x_axis);
    let (y0, y1) = range(ys, p.y_axis);
    let mut b = ChartBuilder::on(area);
    b.margin(12).x_label_area_size(40).y_label_area_size(70);
    if let Some(c) = caption {
        b.caption(c, ("sans-serif", 20));
    }
    let mut chart = b.build_cartesian_2d(x0..x1, y0..y1)?;
    let (xa, ya, xt) = (p.x_axis, p.y_axis, p.x_ticks);
    let xf = move |v: &f64| match (xa, xt) {
        (_, Some(f)) => f(*v),
        (Axis::Log, None) => fmt_num(10f64.powf(*v)),
        (Axis::Linear, None) => fmt_num(*v),
    };
    let yf = move |v: &f64| match ya {
        Axis::Log => fmt_num(10f64.powf(*v)),
        Axis::Linear => fmt_num(*v),
    };
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .label_style(("sans-serif", 13))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    if let Some((a, b)) = p.shade {
        let (a, b) = (tr(p.x_axis, a), tr(p.x_axis, b));
        chart.draw_series(std::iter::once(Rectangle::new(
            [(a, y0), (b, y1)],
            RGBColor(225, 225, 225).filled(),
        )))?;
    }
    for l in &p.lines {
        let color = PALETTE[l.color % PALETTE.len()];
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .map(|&(x, y)| (tr(p.x_axis, x), tr(p.y_axis, y)))
            .collect();
        let style = ShapeStyle::from(&color).stroke_width(if l.dashed { 1 } else { 2 });
        let series = if l.dashed {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 6, 4, style))?
        } else {
            chart.draw_series(LineSeries::new(pts.clone(), style))?
        };
        if !l.label.is_empty() {
            series.label(l.label.as_str()).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        }
        if l.markers {
            chart.draw_series(pts.iter().map(|&q| Circle::new(q, 3, color.filled())))?;
        }
    }
    if p.lines.iter().any(|l| !l.label.is_empty()) {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .label_font(("sans-serif", 13))
            .draw()?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, f: &Figure) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let areas = root.split_evenly((f.panels.len().max(1), 1));
    for (i, (area, p)) in areas.iter().zip(&f.panels).enumerate() {
        draw_panel(area, p, (i == 0).then_some(f.title.as_str()))?;
    }
    root.present()
}

impl Figure {
    fn size(&self) -> (u32, u32) {
        (W, PANEL_H * self.panels.len().max(1) as u32 + 30)
    }

    /// The figure as an SVG document (for inlining in HTML).
    pub fn svg(&self) -> Result<String, String> {
        ensure_font();
        let mut s = String::new();
        {
            let root = SVGBackend::with_string(&mut s, self.size()).into_drawing_area();
            draw(root, self).map_err(|e| format!("chart {}: {e}", self.id))?;
        }
        Ok(s)
    }

    /// Writes the figure as a PNG file.
    pub fn png(&self, path: &Path) -> Result<(), String> {
        ensure_font();
        let root = BitMapBackend::new(path, self.size()).into_drawing_area();
        draw(root, self).map_err(|e| format!("chart {}: {e}", path.display()))
    }
}

/// Tick text for the percentile axis (x = log10(1/(1−q))).
pub fn percentile_tick(v: f64) -> String {
    // Only whole decades (90%, 99%, 99.9% ...): in-between ticks read badly.
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
