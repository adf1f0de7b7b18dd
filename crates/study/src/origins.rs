//! The plan's in-process origins as its targets name them: `{origin}` (the
//! plan's `origin:`) and `{origin.NAME}` (each of its `origins:`), written
//! in URLs, script variables and sysbench options, and the base URL each
//! stands for: at run time (the origins started for the study), in
//! the report (`http://ORIGIN`, `http://ORIGIN-NAME`) and in the checks at
//! load (an address nothing listens on).

use std::ops::Range;

use crate::error::StudyError;
use crate::sources::OriginPlan;

/// One `{origin…}` reference in a template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OriginRef<'a> {
    /// `{origin}`: the plan's `origin:`.
    Unnamed,
    /// `{origin.NAME}`: the origin `NAME` of the plan's `origins:`.
    Named(&'a str),
    /// `{origin.` followed by no name and `}`: the text as written, up to
    /// where it stops being a reference.
    Malformed(&'a str),
}

const OPEN: &str = "{origin";

/// Where the report shows the unnamed origin (a named one: `-NAME` added).
pub const SHOWN: &str = "http://ORIGIN";

/// What an origin stands for in the checks made before it starts.
pub const PLACEHOLDER: &str = "http://127.0.0.1:1";

/// A character of an origin's name: letters, digits, `-` and `_`.
pub fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// True when `name` may name an origin.
pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(is_name_char)
}

/// Every `{origin}` and `{origin.NAME}` in `s` (and every malformed
/// `{origin.…`), with the bytes it spans, in order. Other text, `{originx}`
/// included, is no reference.
pub fn references(s: &str) -> Vec<(Range<usize>, OriginRef<'_>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = s[from..].find(OPEN).map(|i| i + from) {
        let rest = &s[i + OPEN.len()..];
        if rest.starts_with('}') {
            let end = i + OPEN.len() + 1;
            out.push((i..end, OriginRef::Unnamed));
            from = end;
        } else if let Some(after) = rest.strip_prefix('.') {
            let n = after.find(|c| !is_name_char(c)).unwrap_or(after.len());
            let start = i + OPEN.len() + 1;
            if n > 0 && after[n..].starts_with('}') {
                let end = start + n + 1;
                out.push((i..end, OriginRef::Named(&s[start..start + n])));
                from = end;
            } else {
                // The text up to (and with) the first character that
                // cannot be there.
                let bad = after[n..].chars().next().map_or(0, char::len_utf8);
                let end = start + n + bad;
                out.push((i..end, OriginRef::Malformed(&s[i..end])));
                from = end;
            }
        } else {
            from = i + OPEN.len();
        }
    }
    out
}

/// What `{origin}` and each `{origin.NAME}` stand for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Origins {
    /// `{origin}`'s base URL, when the plan has an `origin:`.
    pub unnamed: Option<String>,
    /// Each `{origin.NAME}`'s base URL, in the plan's order.
    pub named: Vec<(String, String)>,
}

impl Origins {
    /// The unnamed `origin` and the `named` ones, each standing for
    /// `url(name)` (`None`: the unnamed one).
    pub fn of(
        origin: Option<&OriginPlan>,
        named: &[(String, OriginPlan)],
        url: impl Fn(Option<&str>) -> String,
    ) -> Origins {
        Origins {
            unnamed: origin.map(|_| url(None)),
            named: named
                .iter()
                .map(|(n, _)| (n.clone(), url(Some(n))))
                .collect(),
        }
    }

    /// As the report shows a plan's origins (its `origin` and `origins`):
    /// `http://ORIGIN`, `http://ORIGIN-NAME` (the reader puts each
    /// origin's address there).
    pub fn shown(origin: Option<&OriginPlan>, named: &[(String, OriginPlan)]) -> Origins {
        Origins::of(origin, named, |n| match n {
            None => SHOWN.into(),
            Some(n) => format!("{SHOWN}-{n}"),
        })
    }

    /// As the checks made before any origin starts see them: an address
    /// where nothing is sent.
    pub fn placeholder(origin: Option<&OriginPlan>, named: &[(String, OriginPlan)]) -> Origins {
        Origins::of(origin, named, |_| PLACEHOLDER.into())
    }

    /// The base URL `r` stands for, if the plan has that origin.
    pub fn url(&self, r: OriginRef<'_>) -> Option<&str> {
        match r {
            OriginRef::Unnamed => self.unnamed.as_deref(),
            OriginRef::Named(n) => self
                .named
                .iter()
                .find(|(k, _)| k == n)
                .map(|(_, u)| u.as_str()),
            OriginRef::Malformed(_) => None,
        }
    }

    /// `s` with `{origin}` and every `{origin.NAME}` replaced by its base
    /// URL; a reference to an origin not known here is left as written.
    pub fn expand(&self, s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut last = 0;
        for (range, r) in references(s) {
            if let Some(url) = self.url(r) {
                out.push_str(&s[last..range.start]);
                out.push_str(url);
                last = range.end;
            }
        }
        out.push_str(&s[last..]);
        out
    }
}

/// The in-process origins of a running study: serving while this lives.
pub(crate) struct Running {
    _handles: Vec<loadlab_origin::OriginHandle>,
    pub origins: Origins,
}

/// Starts every origin of a plan (its `origin` and `origins`), each on
/// its own port of 127.0.0.1.
pub(crate) fn start(
    origin: Option<&OriginPlan>,
    named: &[(String, OriginPlan)],
) -> Result<Running, StudyError> {
    let mut handles = Vec::new();
    let mut origins = Origins::default();
    if let Some(o) = origin {
        let h = spawn(o, None)?;
        origins.unnamed = Some(h.url());
        handles.push(h);
    }
    for (name, o) in named {
        let h = spawn(o, Some(name))?;
        origins.named.push((name.clone(), h.url()));
        handles.push(h);
    }
    Ok(Running {
        _handles: handles,
        origins,
    })
}

/// Starts one origin; its `name` (`None`: the plan's `origin:`) is in its
/// errors (shown as `origin: …`, `origin: multi: …`).
fn spawn(o: &OriginPlan, name: Option<&str>) -> Result<loadlab_origin::OriginHandle, StudyError> {
    let fail = |e: String| {
        StudyError::Origin(match name {
            None => e,
            Some(n) => format!("{n}: {e}"),
        })
    };
    // Parsed when the plan was loaded; a plan built otherwise
    // (deserialized) has only the text.
    let recipes = if o.recipes.is_empty() {
        loadlab_origin::parse_recipes(&o.recipes_json).map_err(|e| fail(e.to_string()))?
    } else {
        o.recipes.clone()
    };
    let cfg = loadlab_origin::OriginConfig {
        recipes,
        workers: Some(1),
        ..Default::default()
    };
    let addr = "127.0.0.1:0".parse().expect("static address");
    loadlab_origin::spawn(addr, cfg).map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_found_in_order() {
        let s = "{origin}/a?b={origin.multi}&c={originx}&d={origin.}&e={origin.a b}";
        let refs: Vec<OriginRef<'_>> = references(s).into_iter().map(|(_, r)| r).collect();
        assert_eq!(
            refs,
            [
                OriginRef::Unnamed,
                OriginRef::Named("multi"),
                OriginRef::Malformed("{origin.}"),
                OriginRef::Malformed("{origin.a "),
            ]
        );
        assert_eq!(
            references("{origin.é}")[0].1,
            OriginRef::Malformed("{origin.é")
        );
        assert!(references("no origin here {origin").is_empty());
    }

    #[test]
    fn expand_replaces_known_origins_only() {
        let o = Origins {
            unnamed: Some("http://a:1".into()),
            named: vec![
                ("master".into(), "http://m:2".into()),
                ("multi".into(), "http://n:3".into()),
            ],
        };
        assert_eq!(
            o.expand("{origin}/x {origin.master}/ {origin.multi}/news {origin.other} {origin"),
            "http://a:1/x http://m:2/ http://n:3/news {origin.other} {origin"
        );
        let none = Origins::default();
        assert_eq!(none.expand("{origin}/{origin.m}"), "{origin}/{origin.m}");
    }
}
