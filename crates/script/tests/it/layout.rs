//! How the crate's sources are laid out: `unsafe` only in `js/` (the
//! QuickJS glue), files and functions of a size one can read, names that
//! say what they are. Checked from the sources, with comments and string
//! literals blanked out.

use std::path::{Path, PathBuf};

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `src/`, with its path from `src/`.
fn sources() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&src_dir(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(src_dir())
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// `text` with comments, string and character literals replaced by spaces
/// (newlines kept).
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = c.clone();
    let mut wipe = |from: usize, to: usize| {
        for ch in &mut out[from..to.min(c.len())] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
    };
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        match c[i] {
            '/' if c.get(i + 1) == Some(&'/') => {
                let end = c[i..]
                    .iter()
                    .position(|&x| x == '\n')
                    .map_or(c.len(), |n| i + n);
                wipe(i, end);
                i = end;
            }
            '/' if c.get(i + 1) == Some(&'*') => {
                let (mut j, mut depth) = (i + 2, 1);
                while j < c.len() && depth > 0 {
                    if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                        depth += 1;
                        j += 2;
                    } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                wipe(i, j);
                i = j;
            }
            'r' if !prev_ident && matches!(c.get(i + 1), Some('"') | Some('#')) => {
                let mut j = i + 1;
                let mut hashes = 0;
                while c.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if c.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                j += 1;
                while j < c.len() {
                    if c[j] == '"' && (0..hashes).all(|k| c.get(j + 1 + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break;
                    }
                    j += 1;
                }
                wipe(i, j);
                i = j;
            }
            '"' => {
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                wipe(i, j + 1);
                i = j + 1;
            }
            '\'' => {
                // A character literal ('x', '\n', '\u{..}'), not a lifetime.
                let end = if c.get(i + 1) == Some(&'\\') {
                    c[i + 2..]
                        .iter()
                        .position(|&x| x == '\'')
                        .map(|n| i + 2 + n)
                } else if c.get(i + 2) == Some(&'\'') {
                    Some(i + 2)
                } else {
                    None
                };
                match end {
                    Some(e) => {
                        wipe(i, e + 1);
                        i = e + 1;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out.into_iter().collect()
}

/// Whether `text` has `word` as a whole word.
fn has_word(text: &str, word: &str) -> bool {
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    text.match_indices(word).any(|(i, _)| {
        !text[..i].chars().next_back().is_some_and(ident)
            && !text[i + word.len()..].chars().next().is_some_and(ident)
    })
}

#[test]
fn unsafe_code_is_only_in_the_quickjs_glue() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        let code = blank(&text);
        if !path.starts_with("js/") && has_word(&code, "unsafe") {
            wrong.push(format!("{path}: `unsafe` outside js/"));
        }
        for (n, line) in code.lines().enumerate() {
            if line.contains("allow(unsafe_code)") {
                let next = code.lines().nth(n + 1).unwrap_or("").trim();
                if !(path == "lib.rs" && next == "mod js;") {
                    wrong.push(format!("{path}:{}: allows unsafe code", n + 1));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each function's name, first line and length in lines (signature to
/// closing brace), outside `#[cfg(test)]` modules.
fn functions(code: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if t.starts_with("#[cfg(test)]") {
            // Skip a test module: to the brace that closes it.
            let mut depth = 0i64;
            let mut opened = false;
            let mut j = i + 1;
            while j < lines.len() {
                depth +=
                    lines[j].matches('{').count() as i64 - lines[j].matches('}').count() as i64;
                opened |= lines[j].contains('{');
                if (opened && depth <= 0) || (!opened && lines[j].trim_end().ends_with(';')) {
                    break;
                }
                j += 1;
            }
            i = j + 1;
            continue;
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "fn").filter(|&k| {
            words[..k].iter().all(|w| {
                w.starts_with("pub")
                    || matches!(*w, "async" | "unsafe" | "const" | "extern")
                    || w.starts_with('"')
            })
        });
        if let Some(k) = at {
            let name: String = words
                .get(k + 1)
                .unwrap_or(&"")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let mut depth = 0i64;
            let mut opened = false;
            let mut j = i;
            while j < lines.len() {
                if !opened && lines[j].contains(';') && !lines[j].contains('{') {
                    break;
                }
                depth +=
                    lines[j].matches('{').count() as i64 - lines[j].matches('}').count() as i64;
                opened |= lines[j].contains('{');
                if opened && depth <= 0 {
                    out.push((name.clone(), i + 1, j - i + 1));
                    break;
                }
                j += 1;
            }
        }
        i += 1;
    }
    out
}

#[test]
fn no_file_over_800_lines_and_no_function_over_120() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        let n = text.lines().count();
        if n > 800 {
            wrong.push(format!("{path}: {n} lines"));
        }
        for (name, line, len) in functions(&blank(&text)) {
            if len > 120 {
                wrong.push(format!("{path}:{line}: fn {name} is {len} lines"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn names_say_what_they_are() {
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        let code = blank(&text);
        if has_word(&code, "struct Shared") {
            wrong.push(format!(
                "{path}: a type named Shared (the run's state is RunState)"
            ));
        }
        for (n, line) in code.lines().enumerate() {
            let t = line.trim_start();
            // A public type that is a tuple: its parts have no names
            // (options parsing, under config/, keeps its own).
            if !path.starts_with("config/") && t.starts_with("pub type ") && t.contains("= (") {
                wrong.push(format!("{path}:{}: a tuple type: {t}", n + 1));
            }
            // Tags are `Tags` (options parsing keeps its own pairs).
            let tags_field = t
                .split(':')
                .next()
                .is_some_and(|f| f.trim_start_matches("pub ").trim().ends_with("tags"));
            if !path.starts_with("config/") && tags_field && t.contains("Vec<(String, String)>") {
                wrong.push(format!("{path}:{}: tags as pairs: {t}", n + 1));
            }
        }
    }
    let lib = std::fs::read_to_string(src_dir().join("lib.rs")).unwrap();
    if lib.lines().any(|l| l.trim() == "pub mod metrics;") {
        wrong.push("lib.rs: a module `metrics` beside modules::metrics and loadlab_metrics".into());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
