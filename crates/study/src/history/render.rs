//! A [`History`] as a text table and as a self-contained HTML page: the
//! metric per study with its interval band, change points marked.

use super::History;
use crate::report::charts::scene::xml_escape;
use crate::report::charts::{Band, Figure, Line, Panel, Rule};

fn pct(v: Option<f64>) -> String {
    v.map_or("?".into(), |v| format!("{:+.1}%", v * 100.0))
}

fn interval(h: &History, ci: (Option<f64>, Option<f64>)) -> String {
    if ci.0.is_none() && ci.1.is_none() {
        return "(too few runs)".into();
    }
    let f = |v: Option<f64>| v.map_or("?".to_string(), |v| h.metric.fmt_value(v));
    format!("[{}, {}]", f(ci.0), f(ci.1))
}

/// One line per change point: where, how much, how sure.
pub fn shift_lines(h: &History) -> Vec<String> {
    h.shifts
        .iter()
        .map(|s| {
            let rel = |v: Option<f64>| v.filter(|_| s.before != 0.0).map(|x| x / s.before.abs());
            format!(
                "change point at study {} ({}): {} {} (95 % interval {} to {}), p = {:.3}",
                s.study,
                s.label,
                h.metric.name(),
                pct(s.relative),
                pct(rel(s.ci.0)),
                pct(rel(s.ci.1)),
                s.p
            )
        })
        .collect()
}

/// The history as a table, then one line per change point.
pub fn text(h: &History) -> String {
    let name = h.metric.name();
    let mut o = format!(
        "history of plan {:?}, target {} at {}/s, {name}, {} studies\n",
        h.plan,
        h.target,
        h.rate,
        h.points.len()
    );
    o += &format!(
        "{:>5}  {:<16} {:>12}  {:<26} {:>4}  CHANGE\n",
        "STUDY", "LABEL", name, "90 % INTERVAL", "RUNS"
    );
    for (i, p) in h.points.iter().enumerate() {
        let mark = h
            .shifts
            .iter()
            .find(|s| s.index == i)
            .map_or(String::new(), |s| format!("<- {}", pct(s.relative)));
        o += &format!(
            "{:>5}  {:<16} {:>12}  {:<26} {:>4}  {mark}\n",
            p.study,
            p.label,
            h.metric.fmt_value(p.value),
            interval(h, p.ci),
            p.runs.len()
        );
    }
    if h.shifts.is_empty() {
        o += "no change point (E-divisive means, permutation test at p <= 0.02)\n";
    }
    for l in shift_lines(h) {
        o += &l;
        o.push('\n');
    }
    o
}

fn band(points: Vec<(f64, f64, f64)>) -> Band {
    Band {
        label: "90 % interval of the median".into(),
        color: 2,
        points,
    }
}

/// The chart: the median per study (by position), the interval as a
/// filled band, a vertical rule before each change point.
pub fn figure(h: &History) -> Figure {
    let scale = if h.metric.is_latency() { 1e-6 } else { 1.0 };
    let unit = if h.metric.is_latency() { " (ms)" } else { "" };
    let mut p = Panel::new(
        "history",
        "study (in order)",
        format!("{}{unit}", h.metric.name()),
    );
    p.y_zero = false;
    let at = |i: usize| (i + 1) as f64;
    let mut value = Line::new(
        format!("{} per study (median)", h.metric.name()),
        0,
        h.points
            .iter()
            .enumerate()
            .map(|(i, q)| (at(i), q.value * scale))
            .collect(),
    );
    value.markers = true;
    p.lines.push(value);
    // The interval as one filled band; a study without an interval (too
    // few runs) leaves a gap: the band is cut there and drawn in pieces.
    let mut piece = Vec::new();
    for (i, q) in h.points.iter().enumerate() {
        if let (Some(lo), Some(hi)) = q.ci {
            piece.push((at(i), lo * scale, hi * scale));
        } else if !piece.is_empty() {
            p.bands.push(band(std::mem::take(&mut piece)));
        }
    }
    if !piece.is_empty() {
        p.bands.push(band(piece));
    }
    for s in &h.shifts {
        p.rules.push(Rule {
            vertical: true,
            value: at(s.index) - 0.5,
            label: format!(
                "change at study {} ({}): {}",
                s.study,
                s.label,
                pct(s.relative)
            ),
            color: 1,
        });
    }
    Figure {
        id: "history".into(),
        title: format!(
            "{} of {} at {}/s across studies",
            h.metric.name(),
            h.target,
            h.rate
        ),
        panels: vec![p],
    }
}

/// A self-contained HTML page: the chart (inline SVG), the table and the
/// change points.
pub fn html(h: &History) -> Result<String, String> {
    let f = figure(h);
    let svg = f.svg()?;
    let mut rows = String::new();
    for (i, p) in h.points.iter().enumerate() {
        let change = h.shifts.iter().find(|s| s.index == i);
        rows += &format!(
            "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            if change.is_some() {
                " class=\"change\""
            } else {
                ""
            },
            p.study,
            xml_escape(&p.label),
            h.metric.fmt_value(p.value),
            xml_escape(&interval(h, p.ci)),
            p.runs.len(),
            change.map_or(String::new(), |s| pct(s.relative)),
        );
    }
    let lines: String = shift_lines(h)
        .iter()
        .map(|l| format!("<li>{}</li>", xml_escape(l)))
        .collect();
    let lines = if lines.is_empty() {
        "<li>no change point (E-divisive means, permutation test at p ≤ 0.02)</li>".into()
    } else {
        lines
    };
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n\
<style>body{{font-family:sans-serif;max-width:60em;margin:1em auto}}table{{border-collapse:collapse}}\
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:right}}tr.change{{background:#fde8dc}}</style>\n\
</head><body>\n<h1>{title}</h1>\n<p>Plan {plan}; one point per study (the median of its runs), \
the band is the 90 % interval of the median, a dashed line marks each change point.</p>\n\
<figure id=\"history\"><figcaption>{cap}</figcaption>\n{svg}\n</figure>\n<h2>Change points</h2>\n<ul>{lines}</ul>\n\
<table><tr><th>study</th><th>label</th><th>{m}</th><th>90 % interval</th><th>runs</th><th>change</th></tr>\n{rows}</table>\n</body></html>\n",
        title = xml_escape(&format!("History: {}", h.plan)),
        plan = xml_escape(&format!("{:?}", h.plan)),
        cap = xml_escape(&f.title),
        m = h.metric.name(),
    ))
}
