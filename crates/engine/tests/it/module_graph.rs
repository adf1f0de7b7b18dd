//! The engine's modules import one another without cycles (issue 10 item 7):
//! each may use only modules below it, so one can be read, tested or
//! replaced without the others. Checked from the sources: every `crate::x`
//! (and, inside `runner/`, `super::x`) outside comments is an edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module names a `prefix` path names in `text` (`prefix::name`, or
/// every top-level name of `prefix::{a, b::c}`).
fn referenced(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find(prefix) {
            // `super::` inside `crate::x::super::` does not occur; a longer
            // word ending in the prefix (e.g. `my_crate::`) is not ours.
            let before = &rest[..i];
            rest = &rest[i + prefix.len()..];
            if before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(inner) = rest.strip_prefix('{') {
                let end = inner.find('}').unwrap_or(inner.len());
                for part in inner[..end].split(',') {
                    let name: String = part
                        .trim()
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    out.insert(name);
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.insert(name);
            }
        }
    }
    out
}

/// The graph of the modules in `dir` (files `x.rs` and folders `x/`), with
/// edges found by `prefix`.
fn graph(dir: &Path, prefix: &str, skip: &[&str]) -> Graph {
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
        if skip.contains(&stem.as_str()) {
            continue;
        }
        if p.is_dir() {
            let inner = std::fs::read_dir(&p)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.insert(stem, inner);
        } else if p.extension().is_some_and(|x| x == "rs") {
            files.entry(stem).or_default().push(p);
        }
    }
    let names: BTreeSet<String> = files.keys().cloned().collect();
    files
        .iter()
        .map(|(m, paths)| {
            let mut deps = BTreeSet::new();
            for p in paths {
                let text = std::fs::read_to_string(p).unwrap();
                deps.extend(
                    referenced(&text, prefix)
                        .into_iter()
                        .filter(|d| d != m && names.contains(d)),
                );
            }
            (m.clone(), deps)
        })
        .collect()
}

/// A cycle of the graph, if it has one.
fn cycle(g: &Graph) -> Option<Vec<String>> {
    fn visit(
        g: &Graph,
        m: &str,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == m) {
            let mut c = path[i..].to_vec();
            c.push(m.to_string());
            return Some(c);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(g, d, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    g.keys()
        .find_map(|m| visit(g, m, &mut Vec::new(), &mut done))
}

#[test]
fn the_engine_modules_import_each_other_without_cycles() {
    // lib.rs is the root: it declares and re-exports every module.
    let g = graph(&src(), "crate::", &["lib"]);
    assert!(g.contains_key("transport") && g.contains_key("h1"), "{g:?}");
    assert_eq!(cycle(&g), None, "module graph: {g:#?}");
}

#[test]
fn the_runner_modules_import_each_other_without_cycles() {
    let g = graph(&src().join("runner"), "super::", &["mod"]);
    assert!(
        g.contains_key("worker") && g.contains_key("shared"),
        "{g:?}"
    );
    assert_eq!(cycle(&g), None, "module graph: {g:#?}");
}

#[test]
fn the_reader_sees_edges_and_cycles() {
    let r = referenced(
        "use crate::a::X;\n// crate::b\nuse crate::{c::Y, d};\nlet x = crate::e::f();\nmy_crate::g",
        "crate::",
    );
    let want: BTreeSet<String> = ["a", "c", "d", "e"].iter().map(|s| s.to_string()).collect();
    assert_eq!(r, want);
    let mut g = Graph::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("c".into());
    assert_eq!(cycle(&g), None);
    g.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}
