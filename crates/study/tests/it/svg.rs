//! Just enough SVG reading for the chart tests: the report's charts are
//! written by loadlab itself, one element per tag, attributes in double
//! quotes, panels as `<g class="panel">` one after another.

/// The opening tags `<tag …>` in `svg`, in order.
pub fn tags<'a>(svg: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find(&open) {
        let el = &rest[i..];
        let end = el.find('>').map_or(el.len(), |e| e + 1);
        out.push(&el[..end]);
        rest = &el[end..];
    }
    out
}

/// The opening tags `<tag class="class" …>`.
pub fn with_class<'a>(svg: &'a str, tag: &str, class: &str) -> Vec<&'a str> {
    tags(svg, tag)
        .into_iter()
        .filter(|t| attr(t, "class").as_deref() == Some(class))
        .collect()
}

/// The value of attribute `name` of an opening tag.
pub fn attr(tag: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let i = tag.find(&key)? + key.len();
    let v = &tag[i..];
    Some(v[..v.find('"')?].to_string())
}

pub fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no number {name} in {tag}"))
}

/// A rectangle `(x, y, w, h)` from a `<rect>`.
pub fn rect(tag: &str) -> (f64, f64, f64, f64) {
    (
        num(tag, "x"),
        num(tag, "y"),
        num(tag, "width"),
        num(tag, "height"),
    )
}

pub fn overlap(a: (f64, f64, f64, f64), b: (f64, f64, f64, f64)) -> bool {
    a.0 < b.0 + b.2 && b.0 < a.0 + a.2 && a.1 < b.1 + b.3 && b.1 < a.1 + a.3
}

/// Each panel's id and its markup (up to the next panel).
pub fn panels(svg: &str) -> Vec<(String, &str)> {
    let starts: Vec<usize> = svg
        .match_indices("<g class=\"panel\"")
        .map(|(i, _)| i)
        .collect();
    starts
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let end = starts.get(k + 1).copied().unwrap_or(svg.len());
            let body = &svg[i..end];
            let id = attr(tags(body, "g")[0], "data-panel").unwrap_or_default();
            (id, body)
        })
        .collect()
}

/// The text of every `<text>` element, with its opening tag.
pub fn texts(svg: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find("<text") {
        let el = &rest[i..];
        let open_end = el.find('>').expect("unclosed <text") + 1;
        let close = el.find("</text>").expect("no </text>");
        out.push((&el[..open_end], el[open_end..close].trim().to_string()));
        rest = &el[close..];
    }
    out
}

/// Each `g.slo-fail` mark: its opening tag and its `<title>`.
pub fn fail_marks(svg: &str) -> Vec<(&str, String)> {
    let mut out = Vec::new();
    for (i, _) in svg.match_indices("<g class=\"slo-fail\"") {
        let el = &svg[i..];
        let open = &el[..el.find('>').unwrap() + 1];
        let title = el
            .find("<title>")
            .filter(|t| *t == open.len())
            .map(|t| el[t + 7..el.find("</title>").unwrap()].to_string())
            .unwrap_or_default();
        out.push((open, title));
    }
    out
}
