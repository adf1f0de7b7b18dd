//! A [`Scene`] drawn into a PNG with plotters' bitmap backend and the
//! embedded DejaVu Sans. Dashes are cut here (the backend draws solid lines
//! only) with the same on/off lengths the SVG's `stroke-dasharray` uses.

use std::path::Path;
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::scene::{Anchor, Item, Label, Scene};

const FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");
static FONT_ONCE: Once = Once::new();

fn ensure_font() {
    FONT_ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

pub fn write(scene: &Scene, path: &Path) -> Result<(), String> {
    ensure_font();
    let size = (scene.width.ceil() as u32, scene.height.ceil() as u32);
    let root = BitMapBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(|e| e.to_string())?;
    for it in &scene.items {
        draw(&root, it)?;
    }
    root.present().map_err(|e| e.to_string())
}

fn px(p: (f64, f64)) -> (i32, i32) {
    (p.0.round() as i32, p.1.round() as i32)
}

fn draw(area: &Area, it: &Item) -> Result<(), String> {
    let r = match it {
        Item::Group { items, .. } => {
            for i in items {
                draw(area, i)?;
            }
            Ok(())
        }
        Item::Path {
            points,
            color,
            width,
            dash,
            ..
        } => {
            let style = color.stroke_width(stroke(*width));
            for seg in dashes(points, dash) {
                let seg: Vec<(i32, i32)> = seg.into_iter().map(px).collect();
                area.draw(&PathElement::new(seg, style))
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        }
        Item::Area {
            points,
            fill,
            opacity,
            ..
        } => {
            let pts: Vec<(i32, i32)> = points.iter().copied().map(px).collect();
            area.draw(&Polygon::new(pts, fill.mix(*opacity).filled()))
        }
        Item::Rect {
            x,
            y,
            w,
            h,
            fill,
            stroke,
            ..
        } => {
            let corners = [px((*x, *y)), px((x + w, y + h))];
            if let Some(c) = fill {
                area.draw(&Rectangle::new(corners, c.filled()))
                    .map_err(|e| e.to_string())?;
            }
            match stroke {
                Some(c) => area.draw(&Rectangle::new(corners, c.stroke_width(1))),
                None => Ok(()),
            }
        }
        Item::Circle {
            x,
            y,
            r,
            fill,
            stroke: ring,
        } => {
            let at = px((*x, *y));
            let radius = r.round() as i32;
            if let Some(c) = fill {
                area.draw(&Circle::new(at, radius, c.filled()))
                    .map_err(|e| e.to_string())?;
            }
            match ring {
                Some((c, w)) => area.draw(&Circle::new(at, radius, c.stroke_width(stroke(*w)))),
                None => Ok(()),
            }
        }
        Item::Text(l) => return text(area, l),
    };
    r.map_err(|e| e.to_string())
}

/// plotters scales glyphs so that ascent to descent is the size asked for;
/// DejaVu Sans' em is this much smaller, and CSS sizes are ems.
const EM_PER_SIZE: f64 = 1.164;

/// Stroke widths are whole px in the bitmap: a little thinner than the
/// SVG's, so rules (1.5) stay hairlines and series (2.5) don't turn bold.
fn stroke(w: f64) -> u32 {
    (w * 0.8).round().max(1.0) as u32
}

fn text(area: &Area, l: &Label) -> Result<(), String> {
    let mut font = ("sans-serif", l.size * EM_PER_SIZE).into_font();
    if l.vertical {
        font = font.transform(FontTransform::Rotate270);
    }
    let h = match l.anchor {
        Anchor::Start => HPos::Left,
        Anchor::Middle => HPos::Center,
        Anchor::End => HPos::Right,
    };
    let style = TextStyle::from(font)
        .color(&l.color)
        .pos(Pos::new(h, VPos::Center));
    area.draw(&Text::new(l.text.clone(), px((l.x, l.y)), style))
        .map_err(|e| e.to_string())
}

/// The drawn pieces of a polyline under an on/off dash pattern (all of it
/// when the pattern is empty).
pub fn dashes(points: &[(f64, f64)], pattern: &[f64]) -> Vec<Vec<(f64, f64)>> {
    if pattern.is_empty() || points.len() < 2 || pattern.iter().sum::<f64>() <= 0.0 {
        return vec![points.to_vec()];
    }
    let mut out = Vec::new();
    let (mut k, mut left, mut on) = (0, pattern[0], true);
    let mut cur = vec![points[0]];
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        let mut t = 0.0;
        while len - t > left {
            t += left;
            let f = t / len;
            let p = (a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f);
            if on {
                cur.push(p);
                out.push(std::mem::take(&mut cur));
            } else {
                cur = vec![p];
            }
            on = !on;
            k = (k + 1) % pattern.len();
            left = pattern[k];
        }
        left -= len - t;
        if on {
            cur.push(b);
        }
    }
    if on && cur.len() > 1 {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_follow_the_pattern_across_corners() {
        // 10 on, 5 off along a line 30 long, turning at 12.
        let d: Vec<Vec<(i32, i32)>> =
            dashes(&[(0.0, 0.0), (12.0, 0.0), (12.0, 18.0)], &[10.0, 5.0])
                .into_iter()
                .map(|s| s.into_iter().map(px).collect())
                .collect();
        assert_eq!(d, [vec![(0, 0), (10, 0)], vec![(12, 3), (12, 13)]]);
        assert_eq!(dashes(&[(0.0, 0.0), (5.0, 0.0)], &[]).len(), 1);
    }
}
