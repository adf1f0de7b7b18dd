//! Where in a plan's YAML source a key path (`targets[1].name`) is, for
//! errors at file:line:col: the source is read again by a probe that
//! walks down the path and fails on purpose at the node it names, so that
//! the YAML parser reports that node's line and column.

use super::PlanError;
use crate::suggest::suggest;

/// One step of a key path: a mapping key or a list index.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// `targets[1].name` → [Key("targets"), Index(1), Key("name")].
fn parse_path(path: &str) -> Vec<Seg<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = part.split_once('[').map_or((part, ""), |(k, r)| (k, r));
        if !key.is_empty() {
            out.push(Seg::Key(key));
        }
        while let Some((n, r)) = rest.split_once(']') {
            if let Ok(i) = n.parse() {
                out.push(Seg::Index(i));
            }
            rest = r.strip_prefix('[').unwrap_or(r);
        }
    }
    out
}

/// Markers carried by the errors [`Probe`] raises on purpose.
const AT_SCALAR: &str = "\u{1}loadlab-probe:scalar";
const AT_NODE: &str = "\u{1}loadlab-probe:node";
const AT_KEY: &str = "\u{1}loadlab-probe:key";

/// Walks the YAML document down a key path and fails on purpose at the node
/// it names, so that the YAML parser attaches that node's line and column to the
/// error. With `key`, it fails on the last key instead of its value.
struct Probe<'a> {
    path: &'a [Seg<'a>],
    key: bool,
}

impl<'de> serde::de::DeserializeSeed<'de> for Probe<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// Fails on purpose when the key it reads is the one it looks for.
struct KeyProbe<'a>(&'a str);

impl<'de> serde::de::DeserializeSeed<'de> for KeyProbe<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        // Failing inside the visitor (not after it) lets the YAML parser mark the key.
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeyProbe<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        if v == self.0 {
            Err(E::custom(AT_KEY))
        } else {
            Ok(())
        }
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while m
            .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
            .is_some()
        {}
        Ok(())
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
        Ok(())
    }
}

impl<'de> serde::de::Visitor<'de> for Probe<'_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        match self.path.split_first() {
            None => Err(serde::de::Error::custom(AT_NODE)),
            Some((Seg::Key(k), rest)) => {
                if rest.is_empty() && self.key {
                    while m.next_key_seed(KeyProbe(k))?.is_some() {
                        m.next_value::<serde::de::IgnoredAny>()?;
                    }
                    return Ok(());
                }
                while let Some(key) = m.next_key::<serde_norway::Value>()? {
                    if key.as_str() == Some(k) {
                        return m.next_value_seed(Probe {
                            path: rest,
                            key: self.key,
                        });
                    }
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
                Ok(())
            }
            Some((Seg::Index(_), _)) => Ok(()),
        }
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        match self.path.split_first() {
            None => Err(serde::de::Error::custom(AT_NODE)),
            Some((Seg::Index(i), rest)) => {
                for _ in 0..*i {
                    if s.next_element::<serde::de::IgnoredAny>()?.is_none() {
                        return Ok(());
                    }
                }
                s.next_element_seed(Probe {
                    path: rest,
                    key: self.key,
                })
                .map(|_| ())
            }
            Some((Seg::Key(_), _)) => Ok(()),
        }
    }
    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_i128<E: serde::de::Error>(self, _: i128) -> Result<(), E> {
        self.scalar()
    }
    fn visit_u128<E: serde::de::Error>(self, _: u128) -> Result<(), E> {
        self.scalar()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.scalar()
    }
    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.scalar()
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.scalar()
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        self.scalar()
    }
}

impl Probe<'_> {
    fn scalar<E: serde::de::Error>(&self) -> Result<(), E> {
        if self.path.is_empty() {
            Err(E::custom(AT_SCALAR))
        } else {
            Ok(())
        }
    }
}

/// Runs one probe: Some((line, column, the node is a scalar)) when found.
fn probe(src: &str, path: &[Seg<'_>], key: bool) -> Option<(usize, usize, bool)> {
    use serde::de::DeserializeSeed;
    let e = Probe { path, key }
        .deserialize(serde_norway::Deserializer::from_str(src))
        .err()?;
    let msg = e.to_string();
    let scalar = msg.contains(AT_SCALAR);
    if !(scalar || msg.contains(AT_NODE) || msg.contains(AT_KEY)) {
        return None;
    }
    let l = e.location()?;
    Some((l.line(), l.column(), scalar))
}

/// Where the value at `path` (`load.step`, `targets[1].name`) is written
/// (1-based line and column): a scalar value itself, or for a mapping or list
/// the key that introduces it. A path that is not in the file falls back to
/// its nearest ancestor that is, then to 1:1.
pub fn locate_path(src: &str, path: &str) -> (usize, usize) {
    let segs = parse_path(path);
    for n in (1..=segs.len()).rev() {
        let p = &segs[..n];
        if let Some((line, col, scalar)) = probe(src, p, false) {
            if !scalar
                && matches!(p.last(), Some(Seg::Key(_)))
                && let Some((line, col, _)) = probe(src, p, true)
            {
                return (line, col);
            }
            return (line, col);
        }
    }
    (1, 1)
}

/// Where the key `key` of the mapping at `parent` is written, whatever
/// characters it has (a bad name may hold `.` or `[`); falls back to
/// [`locate_path`] of `parent`.
pub(crate) fn locate_key_in(src: &str, parent: &str, key: &str) -> (usize, usize) {
    let mut segs = parse_path(parent);
    segs.push(Seg::Key(key));
    match probe(src, &segs, true) {
        Some((line, col, _)) => (line, col),
        None => locate_path(src, parent),
    }
}

/// Where the key of the value at `path` is written (an unknown key is shown
/// there); falls back to [`locate_path`].
pub fn locate_key(src: &str, path: &str) -> (usize, usize) {
    let segs = parse_path(path);
    if matches!(segs.last(), Some(Seg::Key(_)))
        && let Some((line, col, _)) = probe(src, &segs, true)
    {
        return (line, col);
    }
    locate_path(src, path)
}

/// Turns the YAML parser's message into ours: location prefix, and for an unknown
/// key, the nearest valid key.
pub(super) fn yaml_error(file: &str, e: serde_norway::Error) -> PlanError {
    let (line, column) = e.location().map_or((1, 1), |l| (l.line(), l.column()));
    let mut msg = e.to_string();
    if let Some(i) = msg.find(" at line ") {
        msg.truncate(i);
    }
    if let Some(at) = msg.find("unknown field `") {
        // serde_norway prefixes the path of the mapping (`load: `): keep it.
        let prefix = msg[..at].to_string();
        let rest = msg[at + "unknown field `".len()..].to_string();
        let rest = rest.as_str();
        let bad = rest.split('`').next().unwrap_or("");
        let valid: Vec<&str> = rest
            .split("expected ")
            .nth(1)
            .map(|s| s.split('`').skip(1).step_by(2).collect())
            .unwrap_or_default();
        msg = match suggest(bad, valid.iter().copied()) {
            Some(k) => format!("{prefix}unknown key `{bad}` (did you mean `{k}`?)"),
            None => format!(
                "{prefix}unknown key `{bad}` (valid keys: {})",
                valid.join(", ")
            ),
        };
    }
    if msg.contains("expected struct RawPlan") {
        // The whole document is not a mapping (a script, a targets file, a
        // word): no internal type names, say what a plan is.
        msg = "not a study plan: a plan is a YAML mapping with `targets:` and `load:` (see docs/study.md)".into();
    }
    PlanError {
        file: file.to_string(),
        line,
        column,
        message: msg,
    }
}
