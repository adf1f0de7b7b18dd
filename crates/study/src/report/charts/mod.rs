//! Charts, drawn once from a backend-independent description: SVG (inline in
//! the HTML) and PNG (beside the Markdown) come from the same [`Figure`].
//!
//! Log axes are drawn as linear axes over log10 of the data with 10^x tick
//! labels: one chart type for both scales keeps the plotting code small.
//! Ticks are chosen here, not by plotters: linear axes step by 1, 2 or 5 ×
//! 10^k with the same number of decimals on every label, log axes tick at
//! decades, or 1-2-5 within decades when the range is narrow.
//! Text uses DejaVu Sans embedded in the binary, so PNGs render the same on
//! any machine (no system fonts needed).

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
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
    /// Reference lines across the whole panel (an SLO, a ceiling).
    pub rules: Vec<Rule>,
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

/// The 1, 2 or 5 × 10^k step that cuts `span` into at most `max` intervals.
fn nice_step(span: f64, max: usize) -> f64 {
    let raw = (span / max as f64).max(1e-12);
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag)
}

/// Ticks of a linear axis over `lo..=hi`: multiples of a 1-2-5 step, every
/// label with the decimals the step needs (`0.0, 0.5, 1.0`).
pub fn linear_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let step = nice_step(hi - lo, 8);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let (first, last) = (
        (lo / step - 1e-9).ceil() as i64,
        (hi / step + 1e-9).floor() as i64,
    );
    (first..=last)
        .map(|i| {
            let v = i as f64 * step;
            (v, format!("{:.*}", decimals, if i == 0 { 0.0 } else { v }))
        })
        .collect()
}

/// A tick value of a log axis as text: as many decimals as it needs.
fn log_label(v: f64) -> String {
    let decimals = (-v.log10().floor()).max(0.0) as usize;
    format!("{v:.decimals$}")
}

/// Ticks of a log axis whose data run over `10^lo..=10^hi`: positions in log10
/// units. Decades when there are at least three, else 1-2-5 (or 1…9) per
/// decade; within a narrow range, round linear steps.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return Vec::new();
    }
    let (a, b) = (10f64.powf(lo), 10f64.powf(hi));
    let inside = |v: &f64| *v >= a * (1.0 - 1e-9) && *v <= b * (1.0 + 1e-9);
    let mults: [&[f64]; 3] = [
        &[1.0],
        &[1.0, 2.0, 5.0],
        &[1., 2., 3., 4., 5., 6., 7., 8., 9.],
    ];
    for m in mults {
        let mut vals: Vec<f64> = (lo.floor() as i32..=hi.ceil() as i32)
            .flat_map(|k| m.iter().map(move |x| x * 10f64.powi(k)))
            .filter(inside)
            .collect();
        if vals.len() >= 3 {
            if vals.len() > 8 {
                // Many decades: every second (third …) one.
                let every = vals.len().div_ceil(8);
                vals = vals.into_iter().step_by(every).collect();
            }
            return vals
                .into_iter()
                .map(|v| (v.log10(), log_label(v)))
                .collect();
        }
    }
    linear_ticks(a, b)
        .into_iter()
        .filter(|(v, _)| *v > 0.0)
        .map(|(v, t)| (v.log10(), t))
        .collect()
}

/// The ticks of one axis of a panel, in the axis' drawing units.
fn ticks(axis: Axis, custom: Option<fn(f64) -> String>, lo: f64, hi: f64) -> Vec<(f64, String)> {
    match (axis, custom) {
        // Custom labels name whole decades (90%, 99%, 99.9% …) and the median.
        (_, Some(f)) => {
            let mut t: Vec<f64> = (lo.ceil() as i64..=hi.floor() as i64)
                .map(|k| k as f64)
                .collect();
            let median = 2f64.log10();
            if (lo..=hi).contains(&median) {
                t.insert(t.iter().filter(|k| **k < median).count(), median);
            }
            t.into_iter()
                .map(|k| (k, f(k)))
                .filter(|(_, l)| !l.is_empty())
                .collect()
        }
        (Axis::Log, None) => log_ticks(lo, hi),
        (Axis::Linear, None) => linear_ticks(lo, hi),
    }
}

/// A linear coordinate with our own tick positions.
struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ticked {
    fn new(lo: f64, hi: f64, ticks: &[(f64, String)]) -> Ticked {
        Ticked {
            lo,
            hi,
            ticks: ticks.iter().map(|t| t.0).collect(),
        }
    }
}

impl Ranged for Ticked {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = limit.1 - limit.0;
        let f = (v - self.lo) / (self.hi - self.lo);
        if span == 0 || !f.is_finite() {
            return limit.0;
        }
        limit.0 + (span as f64 * f).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold points only: no light grid between ticks.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// The label of the tick at `v`.
fn label_at(ticks: &[(f64, String)], v: f64) -> String {
    ticks
        .iter()
        .min_by(|a, b| (a.0 - v).abs().total_cmp(&(b.0 - v).abs()))
        .map(|t| t.1.clone())
        .unwrap_or_default()
}

type DrawResult<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Panel,
    caption: Option<&str>,
) -> DrawResult<DB> {
    let rule = |vertical: bool| {
        p.rules
            .iter()
            .filter(move |r| r.vertical == vertical)
            .map(|r| r.value)
    };
    let xs = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| q.0))
        .chain(rule(true))
        .map(|x| tr(p.x_axis, x));
    let ys = p
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|q| q.1))
        .chain(rule(false))
        .map(|y| tr(p.y_axis, y));
    let (x0, x1) = range(xs, p.x_axis);
    let (y0, y1) = range(ys, p.y_axis);
    let mut b = ChartBuilder::on(area);
    b.margin(12).x_label_area_size(40).y_label_area_size(70);
    if let Some(c) = caption {
        b.caption(c, ("sans-serif", 20));
    }
    let xt = ticks(p.x_axis, p.x_ticks, x0, x1);
    let yt = ticks(p.y_axis, None, y0, y1);
    let mut chart = b.build_cartesian_2d(Ticked::new(x0, x1, &xt), Ticked::new(y0, y1, &yt))?;
    let xf = |v: &f64| label_at(&xt, *v);
    let yf = |v: &f64| label_at(&yt, *v);
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
    for r in &p.rules {
        let color = PALETTE[r.color % PALETTE.len()];
        let pts = if r.vertical {
            let x = tr(p.x_axis, r.value);
            vec![(x, y0), (x, y1)]
        } else {
            let y = tr(p.y_axis, r.value);
            vec![(x0, y), (x1, y)]
        };
        let style = ShapeStyle::from(&color).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new(pts, 3, 3, style))?
            .label(r.label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(1))
            });
    }
    if p.lines.iter().any(|l| !l.label.is_empty()) || !p.rules.is_empty() {
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

/// Draws the figure; with `caption`, its title above the first panel (the
/// PNG needs it; in HTML the figure's caption says it once, below).
fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    f: &Figure,
    caption: bool,
) -> DrawResult<DB> {
    root.fill(&WHITE)?;
    let areas = root.split_evenly((f.panels.len().max(1), 1));
    for (i, (area, p)) in areas.iter().zip(&f.panels).enumerate() {
        draw_panel(area, p, (caption && i == 0).then_some(f.title.as_str()))?;
    }
    root.present()
}

impl Figure {
    fn size(&self) -> (u32, u32) {
        (W, PANEL_H * self.panels.len().max(1) as u32 + 30)
    }

    /// The figure as an SVG document, for inlining in HTML under a
    /// `<figcaption>` with the title (so the title is not drawn in it).
    pub fn svg(&self) -> Result<String, String> {
        ensure_font();
        let mut s = String::new();
        let (w, h) = self.size();
        {
            let root = SVGBackend::with_string(&mut s, (w, h - 30)).into_drawing_area();
            draw(root, self, false).map_err(|e| format!("chart {}: {e}", self.id))?;
        }
        Ok(s)
    }

    /// Writes the figure as a PNG file.
    pub fn png(&self, path: &Path) -> Result<(), String> {
        ensure_font();
        let root = BitMapBackend::new(path, self.size()).into_drawing_area();
        draw(root, self, true).map_err(|e| format!("chart {}: {e}", path.display()))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(t: &[(f64, String)]) -> Vec<&str> {
        t.iter().map(|x| x.1.as_str()).collect()
    }

    #[test]
    fn linear_ticks_share_their_decimals() {
        assert_eq!(
            labels(&linear_ticks(0.0, 1.05)),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            labels(&linear_ticks(0.0, 2.6)),
            ["0.0", "0.5", "1.0", "1.5", "2.0", "2.5"]
        );
        assert_eq!(
            labels(&linear_ticks(0.0, 1260.0)),
            ["0", "200", "400", "600", "800", "1000", "1200"]
        );
        assert_eq!(
            labels(&linear_ticks(-0.3, 0.3)),
            ["-0.3", "-0.2", "-0.1", "0.0", "0.1", "0.2", "0.3"]
        );
    }

    #[test]
    fn log_ticks_are_decades_or_1_2_5() {
        let l = |a: f64, b: f64| log_ticks(a.log10(), b.log10());
        assert_eq!(labels(&l(0.3, 2000.0)), ["1", "10", "100", "1000"]);
        assert_eq!(labels(&l(3.0, 80.0)), ["5", "10", "20", "50"]);
        assert_eq!(labels(&l(0.04, 0.6)), ["0.05", "0.1", "0.2", "0.5"]);
        // The range of the issue (39.8 … 50.1): round values, not 39.8, 44.7, 50.1.
        assert_eq!(labels(&l(39.8, 50.1)), ["40", "42", "44", "46", "48", "50"]);
        assert!(l(1e-3, 1e9).len() <= 8);
    }
}
