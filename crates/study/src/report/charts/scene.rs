//! A laid-out chart: shapes in pixels, written out as SVG here and drawn
//! into a PNG by `png`. Layout happens once, in
//! [`super::layout`], so both files show the same picture.
//!
//! The SVG names its parts for readers and tests alike: each panel is a
//! `<g class="panel" id="…">` holding a `<rect class="plot">` (the data
//! area), `polyline.series` / `polyline.rule` with `data-series`, failure
//! marks `g.slo-fail` with `data-criterion` and a `<title>`, and a
//! `g.legend` whose `rect.legend` is its box and whose `line.swatch`es carry
//! the `data-series` and dash pattern of the line they stand for.

use std::fmt::Write;

use plotters::style::RGBColor;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// Text, positioned by the middle of its line height.
#[derive(Debug, Clone)]
pub struct Label {
    pub x: f64,
    pub y: f64,
    pub size: f64,
    pub anchor: Anchor,
    pub bold: bool,
    /// Read bottom to top (a y-axis label).
    pub vertical: bool,
    pub color: RGBColor,
    pub text: String,
    /// `class` in the SVG (`tick-x`, `tick-y`, …), if any.
    pub class: &'static str,
}

#[derive(Debug, Clone)]
pub enum Item {
    Group {
        class: &'static str,
        id: Option<String>,
        /// A tooltip: what the group marks, in words.
        title: Option<String>,
        attrs: Vec<(&'static str, String)>,
        items: Vec<Item>,
    },
    Path {
        class: &'static str,
        series: Option<String>,
        points: Vec<(f64, f64)>,
        color: RGBColor,
        width: f64,
        /// On/off lengths in px; empty for a solid line.
        dash: &'static [f64],
    },
    /// A closed filled polygon (an interval band), no outline.
    Area {
        class: &'static str,
        series: Option<String>,
        points: Vec<(f64, f64)>,
        fill: RGBColor,
        /// 0 (clear) to 1 (opaque).
        opacity: f64,
    },
    Rect {
        class: &'static str,
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        fill: Option<RGBColor>,
        stroke: Option<RGBColor>,
    },
    Circle {
        x: f64,
        y: f64,
        r: f64,
        fill: Option<RGBColor>,
        stroke: Option<(RGBColor, f64)>,
    },
    Text(Label),
}

pub struct Scene {
    pub width: f64,
    pub height: f64,
    pub items: Vec<Item>,
}

/// The width of `s` at `size` px in DejaVu Sans, rounded up a little: wide
/// enough for the PNG's font and for the browser's sans-serif.
pub fn text_width(s: &str, size: f64) -> f64 {
    let em: f64 = s
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '.' | ',' | ':' | ';' | '\'' | '|' | '!' => 0.32,
            ' ' | 'f' | 't' | 'r' | '(' | ')' | '[' | ']' | '-' | '/' => 0.42,
            'm' | 'w' | 'M' | 'W' | '%' | '—' => 0.98,
            c if c.is_ascii_uppercase() => 0.74,
            c if c.is_ascii() => 0.64,
            _ => 0.86,
        })
        .sum();
    em * size
}

pub fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(c),
        }
    }
    o
}

fn rgb(c: RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn dash_attr(dash: &[f64]) -> String {
    dash.iter()
        .map(|d| format!("{d}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Scene {
    /// The scene as a standalone SVG document (also valid inline in HTML).
    pub fn svg(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(
            o,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
             font-family=\"DejaVu Sans, Verdana, sans-serif\"><rect width=\"{w}\" height=\"{h}\" fill=\"#ffffff\"/>",
            w = self.width,
            h = self.height
        );
        for it in &self.items {
            write_item(&mut o, it);
        }
        o.push_str("</svg>\n");
        o
    }
}

fn write_item(o: &mut String, it: &Item) {
    match it {
        Item::Group {
            class,
            id,
            title,
            attrs,
            items,
        } => {
            let _ = write!(o, "<g class=\"{class}\"");
            if let Some(id) = id {
                let _ = write!(o, " id=\"{}\"", xml_escape(id));
            }
            for (k, v) in attrs {
                let _ = write!(o, " {k}=\"{}\"", xml_escape(v));
            }
            o.push('>');
            if let Some(t) = title {
                let _ = write!(o, "<title>{}</title>", xml_escape(t));
            }
            for i in items {
                write_item(o, i);
            }
            o.push_str("</g>\n");
        }
        Item::Path {
            class,
            series,
            points,
            color,
            width,
            dash,
        } => write_path(o, class, series.as_deref(), points, *color, *width, dash),
        Item::Area {
            class,
            series,
            points,
            fill,
            opacity,
        } => {
            let pts: Vec<String> = points
                .iter()
                .map(|(x, y)| format!("{x:.1},{y:.1}"))
                .collect();
            let _ = write!(o, "<polygon class=\"{class}\"");
            if let Some(s) = series {
                let _ = write!(o, " data-series=\"{}\"", xml_escape(s));
            }
            let _ = writeln!(
                o,
                " points=\"{}\" fill=\"{}\" fill-opacity=\"{opacity}\" stroke=\"none\"/>",
                pts.join(" "),
                rgb(*fill)
            );
        }
        Item::Rect {
            class,
            x,
            y,
            w,
            h,
            fill,
            stroke,
        } => {
            let _ = write!(
                o,
                "<rect class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" fill=\"{}\"",
                fill.map_or("none".into(), rgb)
            );
            if let Some(s) = stroke {
                let _ = write!(o, " stroke=\"{}\"", rgb(*s));
            }
            o.push_str("/>\n");
        }
        Item::Circle {
            x,
            y,
            r,
            fill,
            stroke,
        } => {
            let _ = write!(
                o,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{r}\" fill=\"{}\"",
                fill.map_or("none".into(), rgb)
            );
            if let Some((c, w)) = stroke {
                let _ = write!(o, " stroke=\"{}\" stroke-width=\"{w}\"", rgb(*c));
            }
            o.push_str("/>\n");
        }
        Item::Text(l) => write_text(o, l),
    }
}

fn write_path(
    o: &mut String,
    class: &str,
    series: Option<&str>,
    points: &[(f64, f64)],
    color: RGBColor,
    width: f64,
    dash: &[f64],
) {
    let pts: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    let _ = write!(o, "<polyline class=\"{class}\"");
    if let Some(s) = series {
        let _ = write!(o, " data-series=\"{}\"", xml_escape(s));
    }
    let _ = write!(
        o,
        " points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{width}\" stroke-linejoin=\"round\"",
        pts.join(" "),
        rgb(color)
    );
    if !dash.is_empty() {
        let _ = write!(o, " stroke-dasharray=\"{}\"", dash_attr(dash));
    }
    o.push_str("/>\n");
}

fn write_text(o: &mut String, l: &Label) {
    let anchor = match l.anchor {
        Anchor::Start => "start",
        Anchor::Middle => "middle",
        Anchor::End => "end",
    };
    let _ = write!(o, "<text");
    if !l.class.is_empty() {
        let _ = write!(o, " class=\"{}\"", l.class);
    }
    let _ = write!(
        o,
        " x=\"{x:.1}\" y=\"{y:.1}\" font-size=\"{}\" text-anchor=\"{anchor}\" dominant-baseline=\"central\" fill=\"{}\"",
        l.size,
        rgb(l.color),
        x = l.x,
        y = l.y
    );
    if l.bold {
        o.push_str(" font-weight=\"bold\"");
    }
    if l.vertical {
        let _ = write!(o, " transform=\"rotate(-90 {:.1} {:.1})\"", l.x, l.y);
    }
    let _ = writeln!(o, ">{}</text>", xml_escape(&l.text));
}
