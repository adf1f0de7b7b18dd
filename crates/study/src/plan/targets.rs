//! The plan's `targets:`: each checked and resolved, a concurrent group's
//! members made targets of their own (`group/member`, right after their
//! group), and where each is written in the plan.

use std::path::Path;

use super::{PlanError, TargetPlan, plan_err};
use crate::sources::{RawTarget, Written, resolve_target};

/// A script target stepping along an environment variable: where it is
/// written (`targets[1]`), the variable and its values.
pub(super) type EnvAxis = Option<(String, String, Vec<u64>)>;

/// What [`read_targets`] found.
pub(super) struct ReadTargets {
    pub targets: Vec<TargetPlan>,
    /// Where each target's requests are written.
    pub written: Vec<Vec<Written>>,
    /// Each target's key path in the plan: `targets[2]`,
    /// `targets[0].concurrent[1]`.
    pub keys: Vec<String>,
    /// The first script target whose environment has a list.
    pub env_axis: EnvAxis,
}

fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!(
            "target name {name:?} must be letters, digits, '-' or '_'"
        ));
    }
    Ok(())
}

/// The plan's targets, each checked and resolved.
pub(super) fn read_targets(
    raw: &[RawTarget],
    base: &Path,
    src: &str,
    file: &str,
) -> Result<ReadTargets, PlanError> {
    let err = plan_err(src, file);
    let mut out = ReadTargets {
        targets: Vec::new(),
        written: Vec::new(),
        keys: Vec::new(),
        env_axis: None,
    };
    for (i, t) in raw.iter().enumerate() {
        let key = format!("targets[{i}]");
        check_name(&t.name).map_err(|m| err(&format!("{key}.name"), m))?;
        if out.targets.iter().any(|x: &TargetPlan| x.name == t.name) {
            return Err(err(
                &format!("{key}.name"),
                format!("duplicate target name {:?}", t.name),
            ));
        }
        if t.level.is_some() {
            return Err(err(
                &format!("{key}.level"),
                "`level` is for a member of a `concurrent` group; a target steps along the plan's `load`".into(),
            ));
        }
        if t.concurrent.is_empty() {
            add(&mut out, t, &key, None, base, &err)?;
        } else {
            read_group(&mut out, t, &key, base, &err)?;
        }
    }
    Ok(out)
}

/// A `concurrent:` group: the group, then each member as `group/member`.
fn read_group(
    out: &mut ReadTargets,
    g: &RawTarget,
    key: &str,
    base: &Path,
    err: &dyn Fn(&str, String) -> PlanError,
) -> Result<(), PlanError> {
    let own = [
        ("url", g.url.is_some()),
        ("targets_file", g.targets_file.is_some()),
        ("script", g.script.is_some()),
        ("sysbench", g.sysbench.is_some()),
        ("method", g.method.is_some()),
        ("body", g.body.is_some()),
        ("headers", !g.headers.is_empty()),
        ("env", !g.env.is_empty()),
        ("weights", !g.weights.is_empty()),
        ("replay", g.replay.is_some()),
    ];
    if let Some((k, _)) = own.iter().find(|(_, set)| *set) {
        return Err(err(
            &format!("{key}.{k}"),
            format!(
                "a `concurrent` group has no `{k}` of its own: each of its members says what it runs"
            ),
        ));
    }
    let mut members = Vec::new();
    let group_at = out.targets.len();
    out.targets.push(TargetPlan {
        name: g.name.clone(),
        requests: Vec::new(),
        workload: None,
        members: Vec::new(),
        group: None,
        level: None,
        mix: Vec::new(),
        replay: None,
    });
    out.written.push(Vec::new());
    out.keys.push(key.to_string());
    for (j, m) in g.concurrent.iter().enumerate() {
        let mkey = format!("{key}.concurrent[{j}]");
        check_name(&m.name).map_err(|msg| err(&format!("{mkey}.name"), msg))?;
        if !m.concurrent.is_empty() {
            return Err(err(
                &format!("{mkey}.concurrent"),
                "a member of a `concurrent` group cannot be a group itself".into(),
            ));
        }
        let name = format!("{}/{}", g.name, m.name);
        if members.contains(&name) {
            return Err(err(
                &format!("{mkey}.name"),
                format!("duplicate member name {:?} in group {:?}", m.name, g.name),
            ));
        }
        if m.level == Some(0) {
            return Err(err(&format!("{mkey}.level"), "must be > 0".into()));
        }
        add(out, m, &mkey, Some((&g.name, &name)), base, err)?;
        members.push(name);
    }
    out.targets[group_at].members = members;
    Ok(())
}

/// Resolves one target (or a group's member, as `group/member`).
fn add(
    out: &mut ReadTargets,
    t: &RawTarget,
    key: &str,
    group: Option<(&String, &String)>,
    base: &Path,
    err: &dyn Fn(&str, String) -> PlanError,
) -> Result<(), PlanError> {
    let (mut target, w, env_axis) = resolve_target(t, base).map_err(|e| match e.key.as_str() {
        "" => err(key, e.message),
        k => err(&format!("{key}.{k}"), e.message),
    })?;
    if let Some((g, name)) = group {
        target.name = name.clone();
        target.group = Some(g.clone());
        target.level = t.level;
    }
    if let Some((name, values)) = env_axis {
        match &out.env_axis {
            Some((_, n, v)) if *n != name || *v != values => {
                return Err(err(
                    &format!("{key}.env.{name}"),
                    format!(
                        "every script target must step along the same variable and values ({n}: {v:?})"
                    ),
                ));
            }
            Some(_) => {}
            None => out.env_axis = Some((key.to_string(), name, values)),
        }
    }
    out.targets.push(target);
    out.written.push(w);
    out.keys.push(key.to_string());
    Ok(())
}
