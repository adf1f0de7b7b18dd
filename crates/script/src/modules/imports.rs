//! The check of a script's imports: a member of a k6 module used through
//! its default (or namespace) import that loadlab k6 does not have is
//! named before any load.

use crate::ScriptError;

/// The export list of `module` when its imports are checked.
fn exports_of(module: &str) -> Option<&'static [&'static str]> {
    super::ALL
        .iter()
        .find(|m| m.name == module)
        .and_then(|m| m.exports)
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '$'
}

/// `src` with the text of its string and template literals (but not their
/// `${…}` parts) and of its comments replaced by spaces, byte for byte, so
/// positions (lines, columns) stay as they were. Regular expression
/// literals are left as code.
pub(crate) fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, i: usize| {
        if out[i] != b'\n' {
            out[i] = b' ';
        }
    };
    // The brace depth at which each open `${` of a template literal began.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    // Inside a template literal's text (from its start or a `}` closing
    // one of its `${`): blank up to its end or its next `${`.
    let template_text = |out: &mut Vec<u8>, mut i: usize| -> (usize, bool) {
        while i < b.len() {
            match b[i] {
                b'\\' => {
                    blank(out, i);
                    if i + 1 < b.len() {
                        blank(out, i + 1);
                    }
                    i += 2;
                }
                b'`' => return (i + 1, false),
                b'$' if b.get(i + 1) == Some(&b'{') => return (i + 2, true),
                _ => {
                    blank(out, i);
                    i += 1;
                }
            }
        }
        (i, false)
    };
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    blank(&mut out, i);
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                for j in i..end {
                    blank(&mut out, j);
                }
                i = end;
            }
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < b.len() && b[i] != q && b[i] != b'\n' {
                    let step = if b[i] == b'\\' { 2 } else { 1 };
                    for j in i..(i + step).min(b.len()) {
                        blank(&mut out, j);
                    }
                    i += step;
                }
                i += 1;
            }
            b'`' => {
                let (next, opened) = template_text(&mut out, i + 1);
                if opened {
                    templates.push(depth);
                    depth += 1;
                }
                i = next;
            }
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
                if templates.last() == Some(&depth) {
                    templates.pop();
                    let (next, opened) = template_text(&mut out, i);
                    if opened {
                        templates.push(depth);
                        depth += 1;
                    }
                    i = next;
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| src.to_string())
}

/// Names, before any load, a member of a k6 module the script uses through
/// its default (or namespace) import but loadlab k6 does not have, such as
/// `http.cookieJar()`. (Named imports are checked by the module linker.)
pub fn check_members(source: &str, file: &str) -> Result<(), ScriptError> {
    let mut bindings: Vec<(String, &str)> = Vec::new();
    let mut rest = source;
    while let Some(i) = rest.find("import ") {
        let stmt_end = rest[i..].find(['\n', ';']).map_or(rest.len(), |e| i + e);
        let stmt = &rest[i + 7..stmt_end];
        rest = &rest[stmt_end.min(rest.len())..];
        let Some((head, module)) = stmt.rsplit_once("from") else {
            continue;
        };
        let module = module.trim().trim_matches(|c| c == '\'' || c == '"');
        let Some(m) = super::ALL
            .iter()
            .find(|m| m.name == module && m.exports.is_some())
            .map(|m| m.name)
        else {
            continue;
        };
        let head = head.trim();
        let name = if let Some(ns) = head.strip_prefix("* as ") {
            ns.trim()
        } else {
            head.split([',', '{']).next().unwrap_or("").trim()
        };
        if !name.is_empty() && name.chars().all(is_ident) {
            bindings.push((name.to_string(), m));
        }
    }
    // Members are looked for in code only: text in strings, template
    // literals (not their `${…}`) and comments is blanked out.
    let code = code_only(source);
    let source = code.as_str();
    check_subtle(source, file)?;
    for (name, module) in bindings {
        let allowed = exports_of(module).unwrap_or(&[]);
        let pat = format!("{name}.");
        let mut from = 0;
        while let Some(pos) = source[from..].find(&pat) {
            let at = from + pos;
            from = at + pat.len();
            if source[..at]
                .chars()
                .next_back()
                .is_some_and(|c| is_ident(c) || c == '.')
            {
                continue;
            }
            let member: String = source[from..]
                .chars()
                .take_while(|&c| is_ident(c))
                .collect();
            if member.is_empty() || allowed.contains(&member.as_str()) {
                continue;
            }
            let line = source[..at].matches('\n').count() + 1;
            let col = at - source[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
            return Err(ScriptError::Unsupported(format!(
                "{file}:{line}:{col}: {name}.{member} ({module}) is not supported by loadlab k6 (see docs/k6.md)"
            )));
        }
    }
    Ok(())
}

/// `crypto.subtle.<method>` that loadlab lacks: refused before the test
/// starts, naming where (`code` has its strings and comments blanked).
fn check_subtle(code: &str, file: &str) -> Result<(), ScriptError> {
    const PAT: &str = "crypto.subtle.";
    let mut from = 0;
    while let Some(pos) = code[from..].find(PAT) {
        let at = from + pos;
        from = at + PAT.len();
        if code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| is_ident(c) || (c == '.' && !code[..at].ends_with("globalThis.")))
        {
            continue;
        }
        let member: String = code[from..].chars().take_while(|&c| is_ident(c)).collect();
        if member.is_empty() || super::crypto::SUBTLE_SUPPORTED.contains(&member.as_str()) {
            continue;
        }
        let line = code[..at].matches('\n').count() + 1;
        let col = at - code[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        return Err(ScriptError::Unsupported(format!(
            "{file}:{line}:{col}: crypto.subtle.{member} (WebCrypto) is not supported by loadlab k6 (see docs/k6.md)"
        )));
    }
    Ok(())
}
