//! Lays a [`Figure`] out in pixels: panels stacked top to bottom, each with
//! an optional heading, its plot, tick and axis labels, and its legend below
//! the axis label — outside the plot, so it never hides data or the warm-up.
//!
//! Sizes are chosen for the HTML report, whose charts are shown at their
//! natural width ([`WIDTH`] px) on a wide screen: no text is smaller than
//! [`MIN_TEXT_PX`].

use plotters::style::RGBColor;

use super::scene::{Anchor, Item, Label, Scene, text_width};
use super::ticks::{range, ticks, tr};
use super::{Axis, DASHES, Figure, PALETTE, Panel, RULE_DASH};

pub const WIDTH: f64 = 960.0;
/// The smallest text in a chart, in px at natural size.
pub const MIN_TEXT_PX: f64 = 14.0;
const TICK_PX: f64 = MIN_TEXT_PX;
const LABEL_PX: f64 = 15.0;
const LEGEND_PX: f64 = MIN_TEXT_PX;
const PANEL_TITLE_PX: f64 = 16.0;
const FIGURE_TITLE_PX: f64 = 19.0;
const PLOT_H: f64 = 280.0;
const LEGEND_ROW: f64 = 24.0;
const SWATCH: f64 = 40.0;
const SERIES_W: f64 = 2.5;
const RULE_W: f64 = 1.5;

const INK: RGBColor = RGBColor(34, 34, 34);
const AXIS_INK: RGBColor = RGBColor(90, 90, 90);
const GRID: RGBColor = RGBColor(225, 225, 225);
const FRAME: RGBColor = RGBColor(190, 190, 190);
const SHADE: RGBColor = RGBColor(222, 222, 222);
/// How opaque an interval band's fill is: the lines stay readable on it.
const BAND_OPACITY: f64 = 0.22;
/// The colour of SLO failure marks.
pub const FAIL: RGBColor = RGBColor(204, 0, 0);

fn text(x: f64, y: f64, size: f64, anchor: Anchor, t: &str) -> Label {
    Label {
        x,
        y,
        size,
        anchor,
        bold: false,
        vertical: false,
        color: INK,
        text: t.to_string(),
        class: "",
    }
}

/// The figure laid out; with `title`, its title drawn above the panels (the
/// PNG needs it; in HTML the figure's caption says it).
pub fn figure(f: &Figure, title: bool) -> Scene {
    let mut items = Vec::new();
    let mut y = 10.0;
    if title {
        let mut l = text(16.0, y + 12.0, FIGURE_TITLE_PX, Anchor::Start, &f.title);
        l.bold = true;
        items.push(Item::Text(l));
        y += 40.0;
    }
    for p in &f.panels {
        let (g, bottom) = panel(&f.id, p, y);
        items.push(g);
        y = bottom + 34.0;
    }
    Scene {
        width: WIDTH,
        height: (y - 20.0).round(),
        items,
    }
}

/// A panel's plot area and the data ranges it shows.
struct Frame {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    xr: (f64, f64),
    yr: (f64, f64),
    xa: Axis,
    ya: Axis,
}

impl Frame {
    /// Drawing units (log10 already taken) to px.
    fn at(&self, x: f64, y: f64) -> (f64, f64) {
        let fx = (x - self.xr.0) / (self.xr.1 - self.xr.0);
        let fy = (y - self.yr.0) / (self.yr.1 - self.yr.0);
        (self.x + fx * self.w, self.y + self.h - fy * self.h)
    }

    /// Data units to px.
    fn data(&self, x: f64, y: f64) -> (f64, f64) {
        self.at(tr(self.xa, x), tr(self.ya, y))
    }

    fn bottom(&self) -> f64 {
        self.y + self.h
    }
}

type Ticks = Vec<(f64, String)>;

fn frame(p: &Panel, top: f64) -> (Frame, Ticks, Ticks) {
    let rule = |vertical: bool| {
        p.rules
            .iter()
            .filter(move |r| r.vertical == vertical)
            .map(|r| r.value)
    };
    let points = || p.lines.iter().flat_map(|l| l.points.iter());
    let band = || p.bands.iter().flat_map(|b| b.points.iter());
    let xs = points()
        .map(|q| q.0)
        .chain(band().map(|q| q.0))
        .chain(rule(true));
    let ys = points()
        .map(|q| q.1)
        .chain(band().flat_map(|q| [q.1, q.2]))
        .chain(rule(false));
    let xr = range(xs.map(|x| tr(p.x_axis, x)), p.x_axis, true);
    let yr = range(ys.map(|y| tr(p.y_axis, y)), p.y_axis, p.y_zero);
    let xt = ticks(p.x_axis, p.x_ticks, xr.0, xr.1);
    let yt = ticks(p.y_axis, None, yr.0, yr.1);
    let widest = yt
        .iter()
        .map(|t| text_width(&t.1, TICK_PX))
        .fold(0.0, f64::max);
    let x = (12.0 + LABEL_PX + 12.0 + widest + 10.0).round();
    let y = top + if p.title.is_empty() { 10.0 } else { 40.0 };
    let f = Frame {
        x,
        y,
        w: WIDTH - 40.0 - x,
        h: PLOT_H,
        xr,
        yr,
        xa: p.x_axis,
        ya: p.y_axis,
    };
    (f, xt, yt)
}

/// One panel as a `g.panel`, and the y of its bottom edge.
fn panel(figure: &str, p: &Panel, top: f64) -> (Item, f64) {
    let (f, xt, yt) = frame(p, top);
    let mut items = Vec::new();
    if !p.title.is_empty() {
        let mut l = text(f.x, top + 12.0, PANEL_TITLE_PX, Anchor::Start, &p.title);
        l.bold = true;
        items.push(Item::Text(l));
    }
    axes(&mut items, &f, p, &xt, &yt);
    data(&mut items, &f, p);
    let legend_top = f.bottom() + 64.0;
    let bottom = match legend(p, &f, legend_top) {
        Some((g, h)) => {
            items.push(g);
            legend_top + h
        }
        None => f.bottom() + 54.0,
    };
    let g = Item::Group {
        class: "panel",
        id: Some(format!("{figure}-{}", p.id)),
        title: None,
        attrs: vec![("data-panel", p.id.clone())],
        items,
    };
    (g, bottom)
}

fn path(class: &'static str, points: Vec<(f64, f64)>, color: RGBColor, width: f64) -> Item {
    Item::Path {
        class,
        series: None,
        points,
        color,
        width,
        dash: &[],
    }
}

/// Background, warm-up band, grid, frame, ticks and axis labels.
fn axes(items: &mut Vec<Item>, f: &Frame, p: &Panel, xt: &Ticks, yt: &Ticks) {
    if let Some(s) = &p.shade {
        let a = tr(p.x_axis, s.from).clamp(f.xr.0, f.xr.1);
        let b = tr(p.x_axis, s.to).clamp(f.xr.0, f.xr.1);
        let (xa, xb) = (f.at(a, f.yr.0).0, f.at(b, f.yr.0).0);
        items.push(Item::Rect {
            class: "shade",
            x: xa,
            y: f.y,
            w: xb - xa,
            h: f.h,
            fill: Some(SHADE),
            stroke: None,
        });
    }
    let bottom = f.bottom();
    for (v, t) in xt {
        let x = f.at(*v, f.yr.0).0;
        items.push(path("grid", vec![(x, f.y), (x, bottom)], GRID, 1.0));
        items.push(path(
            "tick",
            vec![(x, bottom), (x, bottom + 5.0)],
            AXIS_INK,
            1.0,
        ));
        let mut l = text(x, bottom + 17.0, TICK_PX, Anchor::Middle, t);
        l.class = "tick-x";
        items.push(Item::Text(l));
    }
    for (v, t) in yt {
        let y = f.at(f.xr.0, *v).1;
        items.push(path("grid", vec![(f.x, y), (f.x + f.w, y)], GRID, 1.0));
        items.push(path("tick", vec![(f.x - 5.0, y), (f.x, y)], AXIS_INK, 1.0));
        let mut l = text(f.x - 9.0, y, TICK_PX, Anchor::End, t);
        l.class = "tick-y";
        items.push(Item::Text(l));
    }
    items.push(Item::Rect {
        class: "plot",
        x: f.x,
        y: f.y,
        w: f.w,
        h: f.h,
        fill: None,
        stroke: Some(FRAME),
    });
    let corner = vec![(f.x, f.y), (f.x, bottom), (f.x + f.w, bottom)];
    items.push(path("axis", corner, AXIS_INK, 1.2));
    let mut xl = text(
        f.x + f.w / 2.0,
        bottom + 42.0,
        LABEL_PX,
        Anchor::Middle,
        &p.x_label,
    );
    xl.class = "axis-label";
    let mut yl = text(
        12.0 + LABEL_PX / 2.0,
        f.y + f.h / 2.0,
        LABEL_PX,
        Anchor::Middle,
        &p.y_label,
    );
    yl.vertical = true;
    yl.class = "axis-label";
    items.push(Item::Text(xl));
    items.push(Item::Text(yl));
}

/// The style of series `i` of a panel: its dash pattern.
pub fn dash_of(i: usize) -> &'static [f64] {
    DASHES[i % DASHES.len()]
}

/// Reference lines, series, their dots and the SLO failure marks (last, on top).
fn data(items: &mut Vec<Item>, f: &Frame, p: &Panel) {
    for b in &p.bands {
        let hi = b.points.iter().map(|q| f.data(q.0, q.2));
        let lo = b.points.iter().rev().map(|q| f.data(q.0, q.1));
        items.push(Item::Area {
            class: "band",
            series: Some(b.label.clone()),
            points: hi.chain(lo).collect(),
            fill: PALETTE[b.color % PALETTE.len()],
            opacity: BAND_OPACITY,
        });
    }
    for r in &p.rules {
        let ends = if r.vertical {
            let x = f.data(r.value, 1.0).0;
            vec![(x, f.y), (x, f.bottom())]
        } else {
            let y = f.data(1.0, r.value).1;
            vec![(f.x, y), (f.x + f.w, y)]
        };
        items.push(Item::Path {
            class: "rule",
            series: Some(r.label.clone()),
            points: ends,
            color: PALETTE[r.color % PALETTE.len()],
            width: RULE_W,
            dash: RULE_DASH,
        });
    }
    let mut marks = Vec::new();
    for (i, l) in p.lines.iter().enumerate() {
        let color = PALETTE[l.color % PALETTE.len()];
        let pts: Vec<(f64, f64)> = l.points.iter().map(|q| f.data(q.0, q.1)).collect();
        if l.markers {
            // A failed point shows its failure mark instead of a dot.
            let failed = |k: usize| l.fails.iter().any(|f| f.point == k);
            for (_, q) in pts.iter().enumerate().filter(|(k, _)| !failed(*k)) {
                marks.push(dot(*q, color));
            }
        }
        for fail in &l.fails {
            let Some(q) = pts.get(fail.point) else {
                continue;
            };
            let mut g = fail_mark("slo-fail", *q);
            if let Item::Group { title, attrs, .. } = &mut g {
                *title = Some(fail.title.clone());
                attrs.push(("data-criterion", fail.metric.clone()));
                attrs.push(("data-series", l.label.clone()));
            }
            marks.push(g);
        }
        items.push(Item::Path {
            class: "series",
            series: Some(l.label.clone()),
            points: pts,
            color,
            width: SERIES_W,
            dash: dash_of(i),
        });
    }
    // Dots before failure marks: a mark is never hidden under another
    // series' dot.
    marks.sort_by_key(|m| matches!(m, Item::Group { .. }));
    items.extend(marks);
}

fn dot(at: (f64, f64), color: RGBColor) -> Item {
    Item::Circle {
        x: at.0,
        y: at.1,
        r: 4.0,
        fill: Some(color),
        stroke: None,
    }
}

/// A red × in a hollow red ring: an SLO failure, told apart in greyscale by
/// its shape.
fn fail_mark(class: &'static str, at: (f64, f64)) -> Item {
    let (x, y, d) = (at.0, at.1, 5.0);
    Item::Group {
        class,
        id: None,
        title: None,
        attrs: Vec::new(),
        items: vec![
            Item::Circle {
                x,
                y,
                r: 9.0,
                fill: None,
                stroke: Some((FAIL, 2.0)),
            },
            path("mark", vec![(x - d, y - d), (x + d, y + d)], FAIL, 2.5),
            path("mark", vec![(x - d, y + d), (x + d, y - d)], FAIL, 2.5),
        ],
    }
}

/// What one legend entry shows beside its text.
enum Swatch {
    Line {
        series: String,
        color: RGBColor,
        width: f64,
        dash: &'static [f64],
        dot: bool,
    },
    Band,
    Fill(RGBColor),
    Fail,
}

fn entries(p: &Panel) -> Vec<(Swatch, String)> {
    let mut out = Vec::new();
    for (i, l) in p
        .lines
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.label.is_empty())
    {
        let sw = Swatch::Line {
            series: l.label.clone(),
            color: PALETTE[l.color % PALETTE.len()],
            width: SERIES_W,
            dash: dash_of(i),
            dot: l.markers,
        };
        out.push((sw, l.label.clone()));
    }
    for r in &p.rules {
        let sw = Swatch::Line {
            series: r.label.clone(),
            color: PALETTE[r.color % PALETTE.len()],
            width: RULE_W,
            dash: RULE_DASH,
            dot: false,
        };
        out.push((sw, r.label.clone()));
    }
    for (k, b) in p.bands.iter().enumerate() {
        // A band cut in pieces is one legend entry.
        if p.bands[..k].iter().any(|o| o.label == b.label) {
            continue;
        }
        let color = PALETTE[b.color % PALETTE.len()];
        out.push((Swatch::Fill(color), b.label.clone()));
    }
    if let Some(s) = &p.shade {
        out.push((Swatch::Band, s.label.clone()));
    }
    let mut bounds: Vec<&str> = Vec::new();
    for fail in p.lines.iter().flat_map(|l| &l.fails) {
        if !bounds.contains(&fail.bound.as_str()) {
            bounds.push(&fail.bound);
        }
    }
    for b in bounds {
        out.push((Swatch::Fail, format!("failed SLO {b}")));
    }
    out
}

/// The legend below the plot as a `g.legend`, and its height; entries flow
/// left to right in rows as wide as the plot.
fn legend(p: &Panel, f: &Frame, top: f64) -> Option<(Item, f64)> {
    let entries = entries(p);
    if entries.is_empty() {
        return None;
    }
    let (pad, gap) = (10.0, 24.0);
    let mut items = Vec::new();
    let (mut x, mut row, mut widest) = (f.x + pad, 0usize, 0.0f64);
    for (sw, label) in entries {
        let w = SWATCH + 8.0 + text_width(&label, LEGEND_PX);
        if x > f.x + pad && x + w > f.x + f.w - pad {
            x = f.x + pad;
            row += 1;
        }
        let cy = top + pad + LEGEND_ROW * (row as f64 + 0.5);
        items.extend(swatch(sw, x, cy));
        items.push(Item::Text(text(
            x + SWATCH + 8.0,
            cy,
            LEGEND_PX,
            Anchor::Start,
            &label,
        )));
        x += w + gap;
        widest = widest.max(x - gap - f.x);
    }
    let h = LEGEND_ROW * (row + 1) as f64 + 2.0 * pad;
    let mut all = vec![Item::Rect {
        class: "legend",
        x: f.x,
        y: top,
        w: (widest + pad).min(f.w),
        h,
        fill: Some(RGBColor(255, 255, 255)),
        stroke: Some(FRAME),
    }];
    all.extend(items);
    let g = Item::Group {
        class: "legend",
        id: None,
        title: None,
        attrs: Vec::new(),
        items: all,
    };
    Some((g, h))
}

fn swatch(sw: Swatch, x: f64, cy: f64) -> Vec<Item> {
    let mid = (x + SWATCH / 2.0, cy);
    match sw {
        Swatch::Line {
            series,
            color,
            width,
            dash,
            dot: with_dot,
        } => {
            let mut v = vec![Item::Path {
                class: "swatch",
                series: Some(series),
                points: vec![(x, cy), (x + SWATCH, cy)],
                color,
                width,
                dash,
            }];
            if with_dot {
                v.push(dot(mid, color));
            }
            v
        }
        Swatch::Band => vec![Item::Rect {
            class: "swatch-band",
            x,
            y: cy - 8.0,
            w: SWATCH,
            h: 16.0,
            fill: Some(SHADE),
            stroke: Some(FRAME),
        }],
        Swatch::Fill(fill) => vec![Item::Area {
            class: "swatch-band",
            series: None,
            points: vec![
                (x, cy - 6.0),
                (x + SWATCH, cy - 6.0),
                (x + SWATCH, cy + 6.0),
                (x, cy + 6.0),
            ],
            fill,
            opacity: BAND_OPACITY,
        }],
        Swatch::Fail => vec![fail_mark("swatch-fail", mid)],
    }
}
