//! A tiny document model rendered twice: Markdown (charts as PNG files) and
//! self-contained HTML (charts as inline SVG, styles inline, no scripts,
//! no external fonts or links needed to view it).

use std::fmt::Write;

use super::charts::Figure;

pub enum Block {
    Heading(u8, String),
    Para(String),
    /// Bulleted list.
    List(Vec<String>),
    /// Preformatted text (vegeta reports, plans, command lines).
    Code(String, String),
    Table {
        header: Vec<String>,
        rows: Vec<Vec<String>>,
    },
    Chart(Figure),
    /// A verdict line, styled by its verdict in HTML and led by its
    /// label (the verdict's word for readers: `equivalent`).
    Verdict {
        verdict: String,
        label: String,
        text: String,
    },
    /// Links, one per line: (text, relative address).
    Links(Vec<(String, String)>),
    /// Blocks folded away under a one-line summary (`<details>`: long
    /// run-by-run detail a reader opens when they want it).
    Details {
        summary: String,
        blocks: Vec<Block>,
    },
}

/// Text made safe in HTML: the charts' SVG escaping, which is the same.
pub use super::charts::scene::xml_escape as html_escape;

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Markdown with `![title](charts/<id>.png)` for charts.
pub fn markdown(blocks: &[Block]) -> String {
    let mut o = String::new();
    for b in blocks {
        md_block(&mut o, b);
    }
    o
}

fn md_block(o: &mut String, b: &Block) {
    {
        match b {
            Block::Heading(l, t) => {
                let _ = writeln!(o, "{} {t}\n", "#".repeat(*l as usize));
            }
            Block::Para(t) => {
                let _ = writeln!(o, "{t}\n");
            }
            Block::List(items) => {
                for i in items {
                    let _ = writeln!(o, "- {i}");
                }
                o.push('\n');
            }
            Block::Code(lang, t) => {
                let _ = writeln!(o, "```{lang}\n{}\n```\n", t.trim_end());
            }
            Block::Table { header, rows } => {
                let _ = writeln!(
                    o,
                    "| {} |",
                    header
                        .iter()
                        .map(|h| md_cell(h))
                        .collect::<Vec<_>>()
                        .join(" | ")
                );
                let _ = writeln!(o, "|{}", " --- |".repeat(header.len()));
                for r in rows {
                    let _ = writeln!(
                        o,
                        "| {} |",
                        r.iter().map(|c| md_cell(c)).collect::<Vec<_>>().join(" | ")
                    );
                }
                o.push('\n');
            }
            Block::Chart(f) => {
                // The caption above its chart, as in the HTML.
                let _ = writeln!(o, "*{}*\n\n![{}](charts/{}.png)\n", f.title, f.title, f.id);
            }
            Block::Verdict { label, text, .. } => {
                let _ = writeln!(o, "**{}** — {text}\n", label.to_uppercase());
            }
            Block::Links(links) => {
                for (t, href) in links {
                    let _ = writeln!(o, "- [{}]({href})", t.replace(['[', ']'], ""));
                }
                o.push('\n');
            }
            Block::Details { summary, blocks } => {
                let _ = writeln!(o, "<details><summary>{}</summary>\n", html_escape(summary));
                for b in blocks {
                    md_block(o, b);
                }
                o.push_str("</details>\n\n");
            }
        }
    }
}

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #333}h2{border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}
pre{background:#f6f8fa;padding:0.8em;white-space:pre-wrap;overflow-wrap:anywhere;font-size:0.85em}
figure{margin:2.5em 0 3em;padding-top:1em;border-top:1px solid #eee}h2+figure,h3+figure{margin-top:1em;padding-top:0;border-top:0}figure svg{display:block;max-width:100%;height:auto}figcaption{font-weight:600;font-size:1.05em;margin:0 0 0.6em}
details{margin:0.8em 0}summary{cursor:pointer;font-weight:600}
.verdict{padding:0.5em 0.8em;border-left:5px solid #999;background:#fafafa;margin:0.5em 0}
.supported{border-color:#1a7f37}.rejected{border-color:#cf222e}.inconclusive{border-color:#9a6700}";

/// A self-contained HTML page. Fails only if a chart cannot be drawn.
pub fn html(title: &str, blocks: &[Block]) -> Result<String, String> {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title><style>{CSS}</style></head><body>\n",
        html_escape(title)
    );
    for b in blocks {
        html_block(&mut o, b)?;
    }
    o.push_str("</body></html>\n");
    Ok(o)
}

fn html_block(o: &mut String, b: &Block) -> Result<(), String> {
    {
        match b {
            Block::Heading(l, t) => {
                let _ = writeln!(o, "<h{l}>{}</h{l}>", html_escape(t));
            }
            Block::Para(t) => {
                let _ = writeln!(o, "<p>{}</p>", inline(t));
            }
            Block::List(items) => {
                o.push_str("<ul>");
                for i in items {
                    let _ = write!(o, "<li>{}</li>", inline(i));
                }
                o.push_str("</ul>\n");
            }
            Block::Code(_, t) => {
                let _ = writeln!(o, "<pre>{}</pre>", html_escape(t.trim_end()));
            }
            Block::Table { header, rows } => {
                o.push_str("<table><thead><tr>");
                for h in header {
                    let _ = write!(o, "<th>{}</th>", html_escape(h));
                }
                o.push_str("</tr></thead><tbody>\n");
                for r in rows {
                    o.push_str("<tr>");
                    for c in r {
                        let _ = write!(o, "<td>{}</td>", html_escape(c));
                    }
                    o.push_str("</tr>\n");
                }
                o.push_str("</tbody></table>\n");
            }
            Block::Chart(f) => {
                let svg = f.svg()?;
                // Drop the XML prolog if any: inline SVG must start at <svg>.
                let svg = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]);
                let _ = writeln!(
                    o,
                    "<figure id=\"{}\"><figcaption>{}</figcaption>{svg}</figure>",
                    html_escape(&f.id),
                    html_escape(&f.title)
                );
            }
            Block::Verdict {
                verdict,
                label,
                text,
            } => {
                let _ = writeln!(
                    o,
                    "<div class=\"verdict {}\"><strong>{}</strong> — {}</div>",
                    html_escape(verdict),
                    html_escape(&label.to_uppercase()),
                    inline(text)
                );
            }
            Block::Links(links) => {
                o.push_str("<ul class=\"links\">");
                for (t, href) in links {
                    let _ = write!(
                        o,
                        "<li><a href=\"{}\">{}</a></li>",
                        html_escape(href),
                        html_escape(t)
                    );
                }
                o.push_str("</ul>\n");
            }
            Block::Details { summary, blocks } => {
                let _ = writeln!(o, "<details><summary>{}</summary>", html_escape(summary));
                for b in blocks {
                    html_block(o, b)?;
                }
                o.push_str("</details>\n");
            }
        }
    }
    Ok(())
}

/// Escapes text and renders `code` spans (the only inline markup we use).
fn inline(t: &str) -> String {
    let mut o = String::new();
    for (i, part) in t.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(o, "<code>{}</code>", html_escape(part));
        } else {
            o.push_str(&html_escape(part).replace("**", ""));
        }
    }
    o
}
