//! No crate's modules import one another in a cycle: inside every crate
//! under `crates/`, and inside every module folder of it at any depth, each
//! module may use only modules below it, so one can be read, tested or
//! replaced without the others.
//!
//! Checked from the sources. Each file is read with its comments, strings
//! and character literals blanked out; every path that starts with
//! `crate::`, `super::` or `self::` (`use` trees included, across lines) is
//! resolved to the module it names, inline `mod x { .. }` blocks (tests)
//! counted as the modules they are. A path from module `m::a::..` to
//! `m::b::..`, where `a` and `b` are two children of `m`, is an edge
//! `a -> b` in the graph of `m`'s children. The root file of a level
//! (`lib.rs`, `main.rs`, `mod.rs`, or `a.rs` beside `a/`) declares and
//! re-exports its children and is not one of them.
//!
//! `STILL_CYCLIC` names the crates known to have a cycle still: for them
//! the check runs the other way (a cycle must be there), so that whoever
//! removes the last one is told to take the crate off the list.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Crates whose module graph still has a cycle, being taken apart.
const STILL_CYCLIC: &[&str] = &[];

/// A module path from the crate root (`[]` is the root).
type ModPath = Vec<String>;

/// Where an edge was seen: file (from `crates/`) and line.
type Site = (String, usize);

/// One level: the children of a module and the edges among them (the first
/// site of each).
#[derive(Default, Debug)]
struct Level {
    children: BTreeSet<String>,
    /// Names the module's own file imports from a child (`pub use
    /// sink::Tee;` in lib.rs), so that `crate::Tee` is a path into `sink`.
    aliases: BTreeMap<String, String>,
    edges: BTreeMap<(String, String), Site>,
}

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

// ---- the reader ---------------------------------------------------------

/// `text` with comments, string and character literals replaced by spaces
/// (newlines kept, so lines still count).
fn blank(text: &str) -> Vec<char> {
    let c: Vec<char> = text.chars().collect();
    let mut out = c.clone();
    let wipe = |out: &mut Vec<char>, from: usize, to: usize| {
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
                wipe(&mut out, i, end);
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
                wipe(&mut out, i, j);
                i = j;
            }
            // Raw strings: r"..", r#".."#, br#".."#, cr"..".
            'r' if !prev_ident || raw_prefix(&c, i) => {
                let mut j = i + 1;
                while c.get(j) == Some(&'#') {
                    j += 1;
                }
                if c.get(j) != Some(&'"') {
                    i += 1;
                    continue;
                }
                let hashes = j - i - 1;
                let mut k = j + 1;
                while k < c.len() {
                    if c[k] == '"' && (0..hashes).all(|h| c.get(k + 1 + h) == Some(&'#')) {
                        k += 1 + hashes;
                        break;
                    }
                    k += 1;
                }
                wipe(&mut out, i, k);
                i = k;
            }
            '"' => {
                let mut j = i + 1;
                while j < c.len() && c[j] != '"' {
                    j += if c[j] == '\\' { 2 } else { 1 };
                }
                wipe(&mut out, i, j + 1);
                i = j + 1;
            }
            // A character literal ('x', '\n', '\u{..}'), not a lifetime.
            '\'' if c.get(i + 1) == Some(&'\\') => {
                let mut j = i + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                wipe(&mut out, i, j + 1);
                i = j + 1;
            }
            '\'' if c.get(i + 2) == Some(&'\'') => {
                wipe(&mut out, i, i + 3);
                i += 3;
            }
            _ => i += 1,
        }
    }
    out
}

/// True when the `r` at `i` follows a lone `b` or `c` (`br".."`).
fn raw_prefix(c: &[char], i: usize) -> bool {
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    i > 0 && matches!(c[i - 1], 'b' | 'c') && (i == 1 || !ident(c[i - 2]))
}

/// A token of blanked text: a word or one punctuation mark (`::` is one),
/// with its line.
fn tokens(text: &str) -> Vec<(String, usize)> {
    let c = blank(text);
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push((c[start..i].iter().collect(), line));
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(("::".into(), line));
            i += 2;
        } else {
            out.push((ch.to_string(), line));
            i += 1;
        }
    }
    out
}

/// What one file says: the paths it names and the inline modules it has.
#[derive(Default, Debug)]
struct Read {
    refs: Vec<Ref>,
    /// Inline `mod x { .. }` blocks, as full module paths.
    inline: Vec<ModPath>,
}

/// One path named in a file.
#[derive(Debug, PartialEq)]
struct Ref {
    /// The (inline) module the path sits in.
    from: ModPath,
    /// The module path it names, from the crate root.
    to: ModPath,
    line: usize,
    /// In a `use`: the name it brings into `from` (its last segment, or
    /// what follows `as`).
    alias: Option<String>,
}

/// Reads `text`, the file of module `module`: every `crate::`, `super::`
/// and `self::` path, and every `use` path that starts with a name (`use
/// sink::Tee;`), `use` groups expanded, resolved from the (inline) module
/// it appears in.
fn read(text: &str, module: &[String]) -> Read {
    let t = tokens(text);
    let mut out = Read::default();
    let mut here: ModPath = module.to_vec();
    // Inline modules open here: the brace depth each one closes at.
    let mut open: Vec<usize> = Vec::new();
    let mut depth = 0;
    let mut in_use = false;
    let mut i = 0;
    while i < t.len() {
        let w = t[i].0.as_str();
        let next = |k: usize| t.get(i + k).map(|x| x.0.as_str());
        let (start, base) = match w {
            "crate" if next(1) == Some("::") => (i + 2, Vec::new()),
            "super" if next(1) == Some("::") => {
                (i + 2, here[..here.len().saturating_sub(1)].to_vec())
            }
            "self" if next(1) == Some("::") => (i + 2, here.clone()),
            "use"
                if next(1).is_some_and(|n| {
                    n.starts_with(|c: char| c.is_alphabetic() || c == '_')
                        && !matches!(n, "crate" | "super" | "self")
                }) =>
            {
                (i + 1, here.clone())
            }
            _ => (0, Vec::new()),
        };
        if start > 0 {
            in_use |= w == "use";
            let mut found = Vec::new();
            i = tree(&t, start, base, &mut found);
            for (to, line, alias) in found {
                let alias = alias.filter(|_| in_use);
                out.refs.push(Ref {
                    from: here.clone(),
                    to,
                    line,
                    alias,
                });
            }
            continue;
        }
        match w {
            "use" => in_use = true,
            ";" => in_use = false,
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if open.last() == Some(&depth) {
                    open.pop();
                    here.pop();
                }
            }
            "mod" if next(2) == Some("{") => {
                here.push(t[i + 1].0.clone());
                out.inline.push(here.clone());
                open.push(depth);
                depth += 1;
                i += 3;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Reads the rest of a path or `use` tree from token `i` on, each leaf
/// path pushed to `out` with its line and the name it would import;
/// returns the token after it.
fn tree(
    t: &[(String, usize)],
    mut i: usize,
    mut path: ModPath,
    out: &mut Vec<(ModPath, usize, Option<String>)>,
) -> usize {
    let mut line = t.get(i.saturating_sub(1)).map_or(0, |x| x.1);
    while let Some((w, l)) = t.get(i) {
        if w == "{" {
            i += 1;
            while i < t.len() && t[i].0 != "}" {
                if t[i].0 == "," {
                    i += 1;
                    continue;
                }
                let before = i;
                i = tree(t, i, path.clone(), out);
                // Not a path (a stray token): step over it.
                i = i.max(before + 1);
            }
            return i + 1;
        }
        if !w.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            break;
        }
        match w.as_str() {
            "super" => {
                path.pop();
            }
            "self" => {}
            _ => path.push(w.clone()),
        }
        line = *l;
        i += 1;
        if t.get(i).map(|x| x.0.as_str()) == Some("::") {
            i += 1;
        } else {
            break;
        }
    }
    let mut alias = path.last().cloned();
    if t.get(i).is_some_and(|x| x.0 == "*") {
        // A glob brings in names this reader does not know.
        alias = None;
        i += 1;
    } else if t.get(i).is_some_and(|x| x.0 == "as") {
        alias = t.get(i + 1).map(|x| x.0.clone());
        i += 2;
    }
    out.push((path, line, alias));
    i
}

// ---- the graph ----------------------------------------------------------

/// The module path of a source file under `src` (`lib.rs`, `main.rs` and
/// `mod.rs` are their folder's module).
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: ModPath = rel
        .iter()
        .map(|s| s.to_str().unwrap().to_string())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    let is_root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !is_root {
        parts.push(stem.to_string());
    }
    parts
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The levels of one crate: for every module with children, the children
/// (files, folders and inline modules) and the edges among them.
fn levels(krate: &Path) -> BTreeMap<ModPath, Level> {
    let src = krate.join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut levels: BTreeMap<ModPath, Level> = BTreeMap::new();
    let mut refs = Vec::new();
    for f in &files {
        let module = module_of(&src, f);
        for k in 0..module.len() {
            let level = levels.entry(module[..k].to_vec()).or_default();
            level.children.insert(module[k].clone());
        }
        let text = std::fs::read_to_string(f).unwrap();
        let shown = f
            .strip_prefix(krate.parent().unwrap())
            .unwrap()
            .display()
            .to_string();
        let r = read(&text, &module);
        // Inline modules are children too.
        for m in &r.inline {
            let (name, parent) = m.split_last().unwrap();
            let level = levels.entry(parent.to_vec()).or_default();
            level.children.insert(name.clone());
        }
        refs.push((shown, r.refs));
    }
    for r in refs.iter().flat_map(|(_, found)| found) {
        alias(&mut levels, r);
    }
    for (shown, found) in refs {
        for r in found {
            edge(&mut levels, &r.from, &r.to, (shown.clone(), r.line));
        }
    }
    levels
}

/// Records the name a `use` in a module's own file brings in from one of
/// its children.
fn alias(levels: &mut BTreeMap<ModPath, Level>, r: &Ref) {
    let (Some(name), Some(level)) = (&r.alias, levels.get_mut(&r.from)) else {
        return;
    };
    if r.to.len() > r.from.len() + 1 && r.to.starts_with(&r.from) {
        let child = &r.to[r.from.len()];
        if level.children.contains(child) && !level.children.contains(name) {
            level.aliases.insert(name.clone(), child.clone());
        }
    }
}

/// Records the edge that a reference from `from` to `to` makes: at the
/// level where the two paths part, if both sides are children there (a
/// name the level's file imports from a child counts as that child).
fn edge(levels: &mut BTreeMap<ModPath, Level>, from: &[String], to: &[String], site: Site) {
    let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    let (Some(a), Some(b)) = (from.get(k), to.get(k)) else {
        return;
    };
    let Some(level) = levels.get_mut(&from[..k].to_vec()) else {
        return;
    };
    let b = match level.aliases.get(b) {
        Some(child) if !level.children.contains(b) => child,
        _ => b,
    };
    if a != b && level.children.contains(a) && level.children.contains(b) {
        level.edges.entry((a.clone(), b.clone())).or_insert(site);
    }
}

/// One cycle: the group of modules that all reach one another, and one
/// shortest cycle through its first member, each step with its site.
type Cycle = (Vec<String>, Vec<(String, String, Site)>);

/// The cycles of a level: one for every strongly connected group of two or
/// more children.
fn cycles(level: &Level) -> Vec<Cycle> {
    let next = |m: &String| -> Vec<&String> {
        level
            .edges
            .keys()
            .filter(|(a, _)| a == m)
            .map(|(_, b)| b)
            .collect()
    };
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(m) = todo.pop() {
            for n in next(m) {
                if seen.insert(n.clone()) {
                    todo.push(n);
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        level.children.iter().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in &level.children {
        if done.contains(m) || !reached[m].contains(m) {
            continue;
        }
        let group: BTreeSet<&String> = level
            .children
            .iter()
            .filter(|n| reached[m].contains(*n) && reached[*n].contains(m))
            .collect();
        done.extend(group.iter().map(|s| s.to_string()));
        // Shortest way from m back to m, breadth first.
        let mut back: BTreeMap<&String, &String> = BTreeMap::new();
        let mut queue = VecDeque::from([m]);
        'search: while let Some(x) = queue.pop_front() {
            for n in next(x) {
                if n == m {
                    back.insert(m, x);
                    break 'search;
                }
                if !back.contains_key(n) {
                    back.insert(n, x);
                    queue.push_back(n);
                }
            }
        }
        let mut steps = Vec::new();
        let mut to = m;
        loop {
            let from = back[to];
            let site = level.edges[&(from.clone(), to.clone())].clone();
            steps.push((from.clone(), to.clone(), site));
            to = from;
            if to == m {
                break;
            }
        }
        steps.reverse();
        out.push((group.iter().map(|s| s.to_string()).collect(), steps));
    }
    out
}

/// Each cycle of each level of `krate`, written out one edge a line.
fn report(name: &str, krate: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (at, level) in levels(krate) {
        for (group, c) in cycles(&level) {
            let mut s = format!(
                "{name}: modules of `{}` import each other in a cycle ({} in it: {}):",
                if at.is_empty() {
                    "crate".into()
                } else {
                    format!("crate::{}", at.join("::"))
                },
                group.len(),
                group.join(", ")
            );
            for (a, b, (file, line)) in c {
                s += &format!("\n    {a} -> {b}   ({file}:{line})");
            }
            out.push(s);
        }
    }
    out
}

fn crates() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(crates_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .map(|p| (p.file_name().unwrap().to_str().unwrap().to_string(), p))
        .collect();
    out.sort();
    out
}

#[test]
fn no_crate_has_an_import_cycle_among_its_modules() {
    let all = crates();
    let names: Vec<&str> = all.iter().map(|(n, _)| n.as_str()).collect();
    for n in ["engine", "core", "study"] {
        assert!(names.contains(&n), "crates found: {names:?}");
    }
    let mut wrong = Vec::new();
    for (name, dir) in &all {
        let found = report(name, dir);
        if STILL_CYCLIC.contains(&name.as_str()) {
            if found.is_empty() {
                wrong.push(format!(
                    "{name}: no import cycle left: take it off STILL_CYCLIC in {}",
                    file!()
                ));
            }
        } else {
            wrong.extend(found);
        }
    }
    for n in STILL_CYCLIC {
        assert!(names.contains(n), "STILL_CYCLIC names {n}, not a crate");
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

#[test]
fn the_walk_sees_the_engine_levels() {
    let l = levels(&crates_dir().join("engine"));
    let root = &l[&Vec::new()];
    assert!(
        root.children.contains("transport") && root.children.contains("h1"),
        "{root:?}"
    );
    let runner = &l[&vec!["runner".to_string()]];
    assert!(
        runner.children.contains("worker") && runner.children.contains("shared"),
        "{runner:?}"
    );
    assert!(root.edges.keys().any(|(a, _)| a == "runner"), "{root:?}");
}

#[test]
fn the_reader_sees_edges_and_cycles() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<ModPath>();
    let text = r####"
use crate::a::X;
// crate::b
/* crate::b /* nested */ crate::b */
let s = "crate::b \" crate::b";
let r = r#"crate::b "# ;
let c = '"'; let l: &'static str = "";
use crate::{
    c::Y,
    d::{self, e::Z},
};
let x = super::super::f::g();
my_crate::h;
mod tests {
    use super::i;
}
self::j::k;
pub use o::{P as Q, r::*};
"####;
    let mn = s(&["m", "n"]);
    let r = read(text, &mn);
    let want = vec![
        (mn.clone(), s(&["a", "X"]), 2, Some("X")),
        (mn.clone(), s(&["c", "Y"]), 9, Some("Y")),
        (mn.clone(), s(&["d"]), 10, Some("d")),
        (mn.clone(), s(&["d", "e", "Z"]), 10, Some("Z")),
        (mn.clone(), s(&["f", "g"]), 12, None),
        (s(&["m", "n", "tests"]), s(&["m", "n", "i"]), 15, Some("i")),
        (mn.clone(), s(&["m", "n", "j", "k"]), 17, None),
        (mn.clone(), s(&["m", "n", "o", "P"]), 18, Some("Q")),
        (mn.clone(), s(&["m", "n", "o", "r"]), 18, None),
    ];
    let got: Vec<_> = r
        .refs
        .iter()
        .map(|r| (r.from.clone(), r.to.clone(), r.line, r.alias.as_deref()))
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.inline, vec![s(&["m", "n", "tests"])]);

    // Edges are made where two paths part, between children of that level.
    let mut levels: BTreeMap<ModPath, Level> = BTreeMap::new();
    let lv = levels.entry(Vec::new()).or_default();
    lv.children.extend(["a", "b", "c"].map(String::from));
    let at = |n: usize| ("x.rs".to_string(), n);
    edge(&mut levels, &s(&["a", "t"]), &s(&["b", "Item"]), at(1));
    edge(&mut levels, &s(&["b"]), &s(&["c"]), at(2));
    edge(&mut levels, &s(&["a"]), &s(&["a", "inner"]), at(3));
    edge(&mut levels, &s(&["a"]), &s(&["nope"]), at(4));
    // The root file's `use b::Thing;` makes `crate::Thing` a path into b.
    let import = |name: &str, to: &[&str]| Ref {
        from: Vec::new(),
        to: s(to),
        line: 1,
        alias: Some(name.into()),
    };
    alias(&mut levels, &import("Thing", &["b", "Thing"]));
    edge(&mut levels, &s(&["c"]), &s(&["Thing"]), at(4));
    edge(&mut levels, &s(&["b"]), &s(&["Thing"]), at(4));
    assert_eq!(levels[&Vec::new()].edges.len(), 3);
    levels
        .get_mut(&Vec::new())
        .unwrap()
        .edges
        .remove(&("c".into(), "b".into()));
    assert!(cycles(&levels[&Vec::new()]).is_empty());
    edge(&mut levels, &s(&["c"]), &s(&["a"]), at(5));
    let c = cycles(&levels[&Vec::new()]);
    let steps: Vec<(&str, &str, usize)> = c[0]
        .1
        .iter()
        .map(|(a, b, (_, l))| (a.as_str(), b.as_str(), *l))
        .collect();
    assert_eq!(steps, vec![("a", "b", 1), ("b", "c", 2), ("c", "a", 5)]);
    assert_eq!(c[0].0, s(&["a", "b", "c"]));
}
