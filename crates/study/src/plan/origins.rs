//! The plan's `origin:` and `origins:`: the in-process origins it starts,
//! their recipes checked where they are written, and every `{origin}` /
//! `{origin.NAME}` of the targets checked against them.
//!
//! `origin:` starts one origin, written `{origin}`; `origins:` maps names
//! to origins, each written `{origin.NAME}`. A plan may have both: the
//! unnamed one has no name to collide with.

use std::path::Path;

use serde::Deserialize;

use super::{PlanError, TargetPlan, locate_key, locate_key_in, plan_err};
use crate::origins::{OriginRef, Origins, is_valid_name, references};
use crate::sources::{OriginPlan, RawOrigin, Written, resolve_origin};
use crate::workload::WorkloadPlan;

/// The plan's `origins:` mapping, in the order written.
#[derive(Debug, Default)]
pub(super) struct RawOrigins(Vec<(String, RawOrigin)>);

impl<'de> Deserialize<'de> for RawOrigins {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = RawOrigins;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping of names to origins (`NAME: {recipes: [...]}`)")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<RawOrigins, A::Error> {
                let mut out = Vec::new();
                while let Some(name) = m.next_key::<String>()? {
                    out.push((name, m.next_value::<RawOrigin>()?));
                }
                Ok(RawOrigins(out))
            }
        }
        d.deserialize_map(Entries)
    }
}

/// The origins a plan starts.
pub(super) type ReadOrigins = (Option<OriginPlan>, Vec<(String, OriginPlan)>);

/// Resolves `origin:` and each of `origins:`, its recipes parsed.
pub(super) fn read_origins(
    origin: Option<&RawOrigin>,
    origins: Option<&RawOrigins>,
    base: &Path,
    src: &str,
    file: &str,
) -> Result<ReadOrigins, PlanError> {
    let unnamed = origin
        .map(|o| resolve(o, "origin", base, src, file))
        .transpose()?;
    let mut named: Vec<(String, OriginPlan)> = Vec::new();
    let Some(RawOrigins(entries)) = origins else {
        return Ok((unnamed, named));
    };
    let at_name = |name: &str, message: String| {
        let (line, column) = locate_key_in(src, "origins", name);
        PlanError {
            file: file.to_string(),
            line,
            column,
            message: format!("origins: {message}"),
        }
    };
    if entries.is_empty() {
        return Err(plan_err(src, file)(
            "origins",
            "names no origin: map each name to its recipes (`origins: {master: {recipes: [...]}}`)"
                .into(),
        ));
    }
    for (name, o) in entries {
        if !is_valid_name(name) {
            return Err(at_name(
                name,
                format!("origin name {name:?} must be letters, digits, '-' or '_'"),
            ));
        }
        if named.iter().any(|(n, _)| n == name) {
            return Err(at_name(name, format!("duplicate origin name {name:?}")));
        }
        let plan = resolve(o, &format!("origins.{name}"), base, src, file)?;
        named.push((name.clone(), plan));
    }
    Ok((unnamed, named))
}

/// One origin at `at` (`origin`, `origins.multi`), its errors located.
fn resolve(
    o: &RawOrigin,
    at: &str,
    base: &Path,
    src: &str,
    file: &str,
) -> Result<OriginPlan, PlanError> {
    resolve_origin(o, base, at).map_err(|e| {
        let path = match e.key.as_str() {
            "" => at.to_string(),
            k => format!("{at}.{k}"),
        };
        let mut pe = plan_err(src, file)(&path, e.message);
        // A recipe's unknown key is shown at the key, not its value.
        if pe.message.starts_with(&format!("{path}: unknown field")) {
            (pe.line, pe.column) = locate_key(src, &path);
        }
        pe
    })
}

/// A request's key in the plan (`targets[0].url`) and its place in its
/// targets file (`routes.txt:3: `, or nothing for an inline request).
pub(super) fn request_at(key: &str, w: &Written, field: &str) -> (String, String) {
    match w {
        Written::Inline => (format!("{key}.{field}"), String::new()),
        Written::File { path, line } => (format!("{key}.targets_file"), format!("{path}:{line}: ")),
    }
}

/// Every `{origin}` and `{origin.NAME}` of the targets (URLs, script
/// variables, sysbench options) names an origin of the plan.
pub(super) fn check_references(
    targets: &[TargetPlan],
    written: &[Vec<Written>],
    keys: &[String],
    origins: &Origins,
    err: &dyn Fn(&str, String) -> PlanError,
) -> Result<(), PlanError> {
    for ((t, w), key) in targets.iter().zip(written).zip(keys) {
        for (r, w) in t.requests.iter().zip(w) {
            if let Err(m) = check_template(&t.name, &r.url, origins) {
                let (at, place) = request_at(key, w, "url");
                return Err(err(&at, format!("{place}{m}")));
            }
        }
        let mut templates: Vec<(String, &String)> = match &t.workload {
            None => Vec::new(),
            Some(WorkloadPlan::Script { env, .. }) => env
                .iter()
                .map(|(k, v)| (format!("{key}.env.{k}"), v))
                .collect(),
            Some(WorkloadPlan::Sysbench { args }) => args
                .iter()
                .map(|a| (format!("{key}.sysbench"), a))
                .collect(),
        };
        if let Some(r) = &t.replay {
            templates.extend(r.base.iter().map(|b| (format!("{key}.base"), b)));
            templates.extend(
                r.hosts
                    .iter()
                    .map(|(k, v)| (format!("{key}.rewrite.hosts.{k}"), v)),
            );
        }
        for (at, v) in templates {
            check_template(&t.name, v, origins).map_err(|m| err(&at, m))?;
        }
    }
    Ok(())
}

/// The first reference in `text` to an origin `origins` does not have.
fn check_template(target: &str, text: &str, origins: &Origins) -> Result<(), String> {
    let names: Vec<&str> = origins.named.iter().map(|(n, _)| n.as_str()).collect();
    let listed = || {
        names
            .iter()
            .map(|n| format!("{{origin.{n}}}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let none = origins.unnamed.is_none() && names.is_empty();
    for (_, r) in references(text) {
        if origins.url(r).is_some() {
            continue;
        }
        return Err(match r {
            OriginRef::Malformed(m) => format!(
                "target {target:?}: {m:?} is not an origin reference; write {{origin}} or {{origin.NAME}}, NAME of letters, digits, '-' or '_'"
            ),
            OriginRef::Unnamed if none => {
                format!("target {target:?} uses {{origin}} but the plan starts no origin")
            }
            OriginRef::Unnamed => format!(
                "target {target:?} uses {{origin}} but the plan's origins are named (`origins:`): write {}",
                listed()
            ),
            OriginRef::Named(n) if none => {
                format!("target {target:?} uses {{origin.{n}}} but the plan starts no origin")
            }
            OriginRef::Named(n) if names.is_empty() => format!(
                "target {target:?} uses {{origin.{n}}} but the plan names no origin (`origins:`); its one `origin:` is {{origin}}"
            ),
            OriginRef::Named(n) => match crate::suggest::suggest(n, names.iter().copied()) {
                Some(s) => format!(
                    "target {target:?} uses {{origin.{n}}}, an origin the plan does not start (did you mean {{origin.{s}}}?)"
                ),
                None => format!(
                    "target {target:?} uses {{origin.{n}}}, an origin the plan does not start (its origins: {})",
                    listed()
                ),
            },
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn each_origin_starts_on_its_own_port_and_a_bad_one_is_named() {
        let yaml = "name: s
origin: {recipes: [{route: /a, body: ok, stages: [{at: 0, status: 200}]}]}
origins:
  master: {recipes: [{route: /, body: ok, stages: [{at: 0, status: 200}]}]}
  multi: {recipes: [{route: /news, body: ok, stages: [{at: 0, status: 200}]}]}
targets:
  - {name: a, url: \"{origin}/a\"}
load: {rates: [10], step: 1s}
";
        let mut plan = crate::Plan::from_yaml(yaml, "p.yaml", std::path::Path::new(".")).unwrap();
        let running = crate::origins::start(plan.origin.as_ref(), &plan.origins).unwrap();
        let o = &running.origins;
        let mut urls: Vec<&str> = o.named.iter().map(|(_, u)| u.as_str()).collect();
        urls.extend(o.unnamed.as_deref());
        urls.sort();
        urls.dedup();
        assert_eq!(urls.len(), 3, "{o:?}");
        assert!(urls.iter().all(|u| u.starts_with("http://127.0.0.1:")));
        drop(running);
        // A stored plan's recipes are parsed when it starts.
        plan.origins[1].1.recipes.clear();
        plan.origins[1].1.recipes_json = "{".into();
        let Err(e) = crate::origins::start(plan.origin.as_ref(), &plan.origins) else {
            panic!("a bad recipe started")
        };
        assert!(e.to_string().starts_with("origin: multi: "), "{e}");
    }
}
