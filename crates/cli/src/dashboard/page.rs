//! The page: one HTML file with uPlot (vendored, MIT: assets/uPlot.LICENSE)
//! and the page's own script inlined. Live, it reads `/events`; exported,
//! it carries the whole run as JSON and needs no network.

use serde_json::Value;

const TEMPLATE: &str = include_str!("assets/page.html");
const UPLOT_JS: &str = include_str!("assets/uPlot.iife.min.js");
const UPLOT_CSS: &str = include_str!("assets/uPlot.min.css");

/// The page; with `embed` (the hub's snapshot) the offline export.
pub fn render(embed: Option<&Value>) -> String {
    // JSON inside a <script>: "</" would end it.
    let data = embed.map_or_else(
        || "null".to_string(),
        |v| v.to_string().replace("</", "<\\/"),
    );
    let mut out = String::with_capacity(TEMPLATE.len() + UPLOT_JS.len() + data.len() + 4096);
    let mut rest = TEMPLATE;
    for (mark, with) in [
        ("/*UPLOT_CSS*/", UPLOT_CSS),
        ("/*UPLOT_JS*/", UPLOT_JS),
        ("/*EMBED*/null", data.as_str()),
    ] {
        let (before, after) = rest.split_once(mark).unwrap_or((rest, ""));
        out.push_str(before);
        out.push_str(with);
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_is_self_contained() {
        let v = serde_json::json!({"meta": {"name": "</script><b>x"}, "points": [], "totals": {}});
        let html = render(Some(&v));
        assert!(html.contains("uPlot"));
        assert!(!html.contains("<script src") && !html.contains("<link"));
        assert!(html.contains("<\\/script><b>x"));
        assert!(!html.contains("/*EMBED*/"));
    }
}
