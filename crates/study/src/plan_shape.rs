//! The shape a plan's text must have before the YAML reader sees it.
//!
//! The YAML library's scanner takes time quadratic in the nesting depth:
//! a 200 KB plan of 100,000 nested `[` took minutes of CPU before it was
//! refused. A plan is a few screens of YAML nested a few levels deep, so
//! its text is first checked against generous bounds, in one linear pass:
//! at most [`MAX_PLAN_BYTES`], flow collections (`[…]`, `{…}`) nested at
//! most [`MAX_FLOW_DEPTH`] deep, and block content starting no further
//! right than [`MAX_BLOCK_COLUMN`] (indentation and `- ` markers: the
//! block nesting). Any plan is accepted or refused in well under a second.

use crate::error::PlanError;

/// The largest plan file read: 10 MiB.
pub const MAX_PLAN_BYTES: usize = 10 << 20;
/// The deepest nesting of `[` and `{` in a plan.
pub const MAX_FLOW_DEPTH: usize = 64;
/// The furthest column block content may start at (1-based): deeper
/// block nesting than any plan needs.
pub const MAX_BLOCK_COLUMN: usize = 256;

/// Refuses a text outside the bounds, naming the place.
pub fn check(src: &str, file: &str) -> Result<(), PlanError> {
    let fail = |line: usize, column: usize, message: String| PlanError {
        file: file.to_string(),
        line,
        column,
        message,
    };
    if src.len() > MAX_PLAN_BYTES {
        return Err(fail(
            1,
            1,
            format!(
                "the plan is {} bytes; a plan may be at most {MAX_PLAN_BYTES} bytes",
                src.len()
            ),
        ));
    }
    let mut depth = 0usize;
    for (i, line) in src.lines().enumerate() {
        let lineno = i + 1;
        let blank = line.trim().is_empty() || line.trim_start().starts_with('#');
        if depth == 0 && !blank {
            let col = block_column(line);
            if col > MAX_BLOCK_COLUMN {
                return Err(fail(
                    lineno,
                    col,
                    format!(
                        "nested too deeply: block content starts at column {col}, \
                         past {MAX_BLOCK_COLUMN}"
                    ),
                ));
            }
        }
        depth = scan_flow(line, depth).map_err(|col| {
            fail(
                lineno,
                col,
                format!("nested too deeply: more than {MAX_FLOW_DEPTH} levels of '[' and '{{'"),
            )
        })?;
    }
    Ok(())
}

/// The 1-based column where a line's block content starts, past its
/// indentation and any `- ` / `? ` / `: ` indicators (each opens a level).
fn block_column(line: &str) -> usize {
    let b = line.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
        if i + 1 < b.len() && matches!(b[i], b'-' | b'?' | b':') && b[i + 1] == b' ' {
            i += 2;
            continue;
        }
        return i + 1;
    }
}

/// The flow depth after `line`, starting at `depth`; `Err(column)` where
/// it goes past [`MAX_FLOW_DEPTH`]. Quoted scalars and comments do not
/// count.
fn scan_flow(line: &str, mut depth: usize) -> Result<usize, usize> {
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some('"') => {
                if c == '\\' {
                    chars.next();
                } else if c == '"' {
                    quote = None;
                }
            }
            Some(_) => {
                if c == '\'' {
                    if chars.peek().is_some_and(|&(_, n)| n == '\'') {
                        chars.next();
                    } else {
                        quote = None;
                    }
                }
            }
            None => match c {
                '#' if prev == ' ' || prev == '\t' || i == 0 => break,
                '"' | '\'' if matches!(prev, ' ' | '\t' | '[' | '{' | ',' | ':') || i == 0 => {
                    quote = Some(c)
                }
                '[' | '{' => {
                    depth += 1;
                    if depth > MAX_FLOW_DEPTH {
                        return Err(line[..i].chars().count() + 1);
                    }
                }
                ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        prev = c;
    }
    Ok(depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_plans_pass() {
        for f in ["c5-vs-c6g.yaml", "saturation.yaml", "dsps-channels.yaml"] {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../examples")
                .join(f);
            let src = std::fs::read_to_string(&p).unwrap();
            check(&src, f).unwrap();
        }
        check("a: [1, [2, {b: \"[[[[\"}], '{{'] # [[[[\n", "x").unwrap();
        // Blank lines and comments are no nesting, however indented.
        check(
            &format!(
                "a: 1\n{}\n{}# note\nb: 2\n",
                " ".repeat(400),
                " ".repeat(300)
            ),
            "x",
        )
        .unwrap();
    }

    #[test]
    fn deep_flow_and_block_nesting_are_refused_where_they_start() {
        let deep = "[".repeat(100_000);
        let e = check(&format!("name: x\nload: {deep}"), "p.yaml").unwrap_err();
        assert_eq!(
            (e.line, e.column),
            (2, 6 + MAX_FLOW_DEPTH + 1),
            "{}",
            e.message
        );
        let deep = "{a: ".repeat(100);
        let e = check(&deep, "p.yaml").unwrap_err();
        assert_eq!(e.line, 1);
        let dashes = "- ".repeat(1000) + "x";
        let e = check(&dashes, "p.yaml").unwrap_err();
        assert!(e.message.contains("block content"), "{}", e.message);
        let big = "#".repeat(MAX_PLAN_BYTES + 1);
        assert!(
            check(&big, "p.yaml")
                .unwrap_err()
                .message
                .contains("at most")
        );
    }
}
