//! Column alignment with the semantics of Go's `text/tabwriter` as vegeta
//! configures it (minwidth 0, padding 2, pad with spaces, left-aligned), so
//! our reports line up exactly like vegeta's.
//!
//! Text is split into lines and tab-terminated cells; the text after a
//! line's last tab is not part of any column. A *column block* is a run of
//! consecutive lines that all have a cell in that column; its width is the
//! widest cell (in characters) plus the padding. Blocks nest column by
//! column, so a line without tabs ends every block.

const PADDING: usize = 2;

/// Aligns `text` (lines separated by `\n`, cells by `\t`).
pub fn align(text: &str) -> String {
    let body = text.strip_suffix('\n').unwrap_or(text);
    let lines: Vec<Vec<&str>> = body.split('\n').map(|l| l.split('\t').collect()).collect();
    let mut out = String::with_capacity(text.len() * 2);
    let mut widths = Vec::new();
    format(&lines, &mut widths, 0, lines.len(), &mut out);
    if !text.ends_with('\n') {
        out.pop();
    }
    out
}

fn width(s: &str) -> usize {
    s.chars().count()
}

fn format(
    lines: &[Vec<&str>],
    widths: &mut Vec<usize>,
    mut line0: usize,
    line1: usize,
    out: &mut String,
) {
    let column = widths.len();
    let mut this = line0;
    while this < line1 {
        if column >= lines[this].len() - 1 {
            this += 1;
            continue;
        }
        write_lines(lines, widths, line0, this, out);
        line0 = this;
        let mut w = 0;
        while this < line1 && column < lines[this].len() - 1 {
            w = w.max(width(lines[this][column]) + PADDING);
            this += 1;
        }
        widths.push(w);
        format(lines, widths, line0, this, out);
        widths.pop();
        line0 = this;
    }
    write_lines(lines, widths, line0, line1, out);
}

fn write_lines(lines: &[Vec<&str>], widths: &[usize], from: usize, to: usize, out: &mut String) {
    for line in &lines[from..to] {
        for (j, cell) in line.iter().enumerate() {
            out.push_str(cell);
            if let Some(&w) = widths.get(j) {
                for _ in width(cell)..w {
                    out.push(' ');
                }
            }
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::align;

    #[test]
    fn aligns_blocks_like_go() {
        let t = "a\tbb\tx\nccc\td\ty\nno tabs\ne\tf\n";
        assert_eq!(align(t), "a    bb  x\nccc  d   y\nno tabs\ne  f\n");
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(align("µs\t1\nab\t2\n"), "µs  1\nab  2\n");
    }

    #[test]
    fn pads_empty_cells() {
        assert_eq!(
            align("Bucket\t\t#\n[0s,\t1ms]\t3\n"),
            "Bucket        #\n[0s,    1ms]  3\n"
        );
    }
}
