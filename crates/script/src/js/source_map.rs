//! Source maps: where a position in the code QuickJS runs was in the
//! file the user wrote. TypeScript gets one when its types are stripped
//! (`typescript`); a JavaScript file that names its own, as bundlers
//! write them (`//# sourceMappingURL=` with a `data:` URL, or a file
//! beside it), has it read, as k6 reads it. The texts of exceptions and
//! syntax errors then name the original file, line and column.
//!
//! Shared state: one table for the process, by module name. A file's map
//! is put there when the file is prepared, before any of its code runs,
//! and replaced when a file of that name is prepared again; the table is
//! only read after that, to rewrite positions in error texts.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use oxc_sourcemap::SourceMap;

/// One map: the original files, and its mappings in the order of the
/// generated code (line, then column; all from 0).
#[derive(Default)]
pub(crate) struct Mapping {
    sources: Vec<String>,
    tokens: Vec<Tok>,
}

#[derive(Clone, Copy)]
struct Tok {
    dst: (u32, u32),
    src: (u32, u32),
    source: u32,
}

impl Mapping {
    /// `map`'s mappings; `name_of` names each of its sources as the texts
    /// are to show it.
    pub(crate) fn of(map: &SourceMap<'_>, name_of: impl Fn(&str) -> String) -> Mapping {
        let sources = map.get_sources().map(name_of).collect();
        let mut tokens: Vec<Tok> = map
            .get_tokens()
            .filter_map(|t| {
                Some(Tok {
                    dst: (t.get_dst_line(), t.get_dst_col()),
                    src: (t.get_src_line(), t.get_src_col()),
                    source: t.get_source_id()?,
                })
            })
            .collect();
        tokens.sort_by_key(|t| t.dst);
        Mapping { sources, tokens }
    }

    /// The original file, line and column (from 0) of the generated
    /// position: the mapping at or before it on its line, else the
    /// line's first one.
    fn lookup(&self, line: u32, col: u32) -> Option<(&str, u32, u32)> {
        let i = self.tokens.partition_point(|t| t.dst <= (line, col));
        let t = match i.checked_sub(1).map(|j| self.tokens[j]) {
            Some(t) if t.dst.0 == line => t,
            _ => *self.tokens.get(i).filter(|t| t.dst.0 == line)?,
        };
        let source = self.sources.get(t.source as usize)?;
        Some((source, t.src.0, t.src.1))
    }
}

type Table = Vec<(String, Arc<Mapping>)>;

static MAPS: Mutex<Table> = Mutex::new(Vec::new());
static WARNINGS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn maps() -> std::sync::MutexGuard<'static, Table> {
    MAPS.lock().unwrap_or_else(|p| p.into_inner())
}

/// `name`'s map from now on (`None`: it has none).
pub(crate) fn register(name: &str, map: Option<Mapping>) {
    let mut t = maps();
    t.retain(|(n, _)| n != name);
    if let Some(m) = map.filter(|m| !m.tokens.is_empty()) {
        t.push((name.to_string(), Arc::new(m)));
    }
}

/// A warning about a map that could not be read (the run logs it).
pub(crate) fn warn(w: String) {
    WARNINGS.lock().unwrap_or_else(|p| p.into_inner()).push(w);
}

/// The warnings since the last call.
pub(crate) fn take_warnings() -> Vec<String> {
    std::mem::take(&mut *WARNINGS.lock().unwrap_or_else(|p| p.into_inner()))
}

/// `text` with each `NAME:LINE:COL` of a file that has a map put back
/// where the map says it was written.
pub(crate) fn remap(text: &str) -> String {
    let table = maps();
    if table.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let (mut copied, mut from) = (0, 0);
    while let Some(p) = text[from..].find(':') {
        let colon = from + p;
        from = colon + 1;
        let Some((line, col, end)) = position(text, colon + 1) else {
            continue;
        };
        let found = table
            .iter()
            .filter(|(n, _)| {
                text[..colon].ends_with(n.as_str()) && starts_word(text, colon - n.len())
            })
            .max_by_key(|(n, _)| n.len());
        let Some((name, m)) = found else { continue };
        let Some((src, l, c)) = m.lookup(line.saturating_sub(1), col.saturating_sub(1)) else {
            continue;
        };
        out.push_str(&text[copied..colon - name.len()]);
        out.push_str(&format!("{src}:{}:{}", l + 1, c + 1));
        (copied, from) = (end, end);
    }
    out.push_str(&text[copied..]);
    out
}

/// `LINE:COL` at `at`: the two numbers and where they end.
pub(crate) fn position(text: &str, at: usize) -> Option<(u32, u32, usize)> {
    let digits = |from: usize| {
        let n = text[from..].len()
            - text[from..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        (n > 0).then_some(from + n)
    };
    let line_end = digits(at)?;
    if text.as_bytes().get(line_end) != Some(&b':') {
        return None;
    }
    let col_end = digits(line_end + 1)?;
    let line = text[at..line_end].parse().ok()?;
    let col = text[line_end + 1..col_end].parse().ok()?;
    Some((line, col, col_end))
}

/// Whether a file name starting at `i` starts there (not inside a longer one).
fn starts_word(text: &str, i: usize) -> bool {
    text[..i]
        .chars()
        .next_back()
        .is_none_or(|c| c.is_whitespace() || "([\"'@,".contains(c))
}

/// The map the file `name` names in its last `//# sourceMappingURL=`
/// line, read from its `data:` URL or from its file (relative to
/// `name`'s folder); `Ok(None)` when it names none. `Err` says why it
/// could not be read, in k6's words.
pub(crate) fn named_in(code: &str, name: &str) -> Result<Option<Mapping>, String> {
    let Some(url) = code.lines().rev().find_map(|l| {
        let l = l.trim();
        l.strip_prefix("//# sourceMappingURL=")
            .or_else(|| l.strip_prefix("//@ sourceMappingURL="))
    }) else {
        return Ok(None);
    };
    let url = url.trim();
    let dir = Path::new(name).parent().unwrap_or(Path::new(""));
    let fail = |e: String| format!("Couldn't load source map for {name}: {e}");
    let json = if let Some(data) = url.strip_prefix("data:") {
        let (_, b64) = data
            .split_once(";base64,")
            .ok_or_else(|| fail("only base64 data: URLs are read".into()))?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b64.trim())
            .map_err(|e| fail(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| fail(e.to_string()))?
    } else {
        let path = url.strip_prefix("file://").unwrap_or(url);
        let path = dir.join(path);
        std::fs::read_to_string(&path).map_err(|e| fail(format!("{}: {e}", path.display())))?
    };
    let map = SourceMap::from_json_string(&json).map_err(|e| fail(format!("{e:?}")))?;
    let root = map.get_source_root().unwrap_or("").to_string();
    Ok(Some(Mapping::of(&map, |s| source_name(dir, &root, s))))
}

/// A map's source as the texts name it: a URL as it is
/// (`webpack:///./src/test.ts`), a path relative to the generated file's
/// folder (and the map's `sourceRoot`).
fn source_name(dir: &Path, root: &str, s: &str) -> String {
    if s.contains("://") {
        return s.to_string();
    }
    if root.contains("://") {
        return format!("{}/{s}", root.trim_end_matches('/'));
    }
    let mut out = PathBuf::new();
    for c in dir.join(root).join(s).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(json: &str) -> Mapping {
        Mapping::of(&SourceMap::from_json_string(json).unwrap(), |s| {
            s.to_string()
        })
    }

    #[test]
    fn positions_of_a_mapped_file_go_back_to_its_source() {
        // Line 1 of the output comes from line 3 of a.ts, column 4.
        let m = map(r#"{"version":3,"sources":["a.ts"],"names":[],"mappings":";AAEI"}"#);
        assert_eq!(m.lookup(1, 0), Some(("a.ts", 2, 4)));
        assert_eq!(m.lookup(1, 7), Some(("a.ts", 2, 4)));
        assert_eq!(m.lookup(0, 0), None);
        register("/tmp/remap-test-x.js", Some(m));
        assert_eq!(
            remap("Error: x\n\tat f (/tmp/remap-test-x.js:2:9)\n\tat y.js:2:9"),
            "Error: x\n\tat f (a.ts:3:5)\n\tat y.js:2:9"
        );
        // Another file whose name ends the same is not this one.
        assert_eq!(
            remap("at (/tmp/remap-test-x.jsx:2:9)"),
            "at (/tmp/remap-test-x.jsx:2:9)"
        );
        register("/tmp/remap-test-x.js", None);
        assert_eq!(
            remap("(/tmp/remap-test-x.js:2:9)"),
            "(/tmp/remap-test-x.js:2:9)"
        );
    }

    #[test]
    fn an_inline_map_and_a_missing_one() {
        let json = r#"{"version":3,"sources":["../src/t.ts"],"names":[],"mappings":"AAAA"}"#;
        let b64 = base64::engine::general_purpose::STANDARD.encode(json);
        let code = format!("x();\n//# sourceMappingURL=data:application/json;base64,{b64}\n");
        let m = named_in(&code, "dist/b.js").unwrap().unwrap();
        assert_eq!(m.lookup(0, 0), Some(("src/t.ts", 0, 0)));
        assert!(named_in("x();", "b.js").unwrap().is_none());
        let e = named_in("//# sourceMappingURL=nowhere.map", "b.js")
            .err()
            .unwrap();
        assert!(
            e.starts_with("Couldn't load source map for b.js: nowhere.map: "),
            "{e}"
        );
    }
}
