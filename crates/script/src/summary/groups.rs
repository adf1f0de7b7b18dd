//! The tree of groups and their checks, as the summary shows them.

use serde_json::json;

use crate::registry::Agg;

/// k6's id of a group or check: the MD5 hex of its path.
pub(crate) fn path_id(path: &str) -> String {
    use md5::Digest;
    md5::Md5::digest(path.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// One group of the run: its checks (name, passes, fails) in first-seen
/// order, and its sub-groups.
#[derive(Default)]
pub(crate) struct GroupNode {
    pub(crate) name: String,
    pub(crate) path: String,
    pub(crate) checks: Vec<(String, u64, u64)>,
    pub(crate) groups: Vec<GroupNode>,
}

impl GroupNode {
    fn at(&mut self, path: &str) -> &mut GroupNode {
        let mut node = self;
        let mut cur = String::new();
        for part in path.split("::").skip(1) {
            cur.push_str("::");
            cur.push_str(part);
            let i = match node.groups.iter().position(|g| g.path == cur) {
                Some(i) => i,
                None => {
                    node.groups.push(GroupNode {
                        name: part.to_string(),
                        path: cur.clone(),
                        ..Default::default()
                    });
                    node.groups.len() - 1
                }
            };
            node = &mut node.groups[i];
        }
        node
    }

    /// `--summary-export`'s form (groups and checks by name) or
    /// handleSummary's (arrays).
    pub(crate) fn json(&self, arrays: bool) -> serde_json::Value {
        let checks: Vec<(String, serde_json::Value)> = self
            .checks
            .iter()
            .map(|(n, p, f)| {
                let path = format!("{}::{n}", self.path);
                (
                    n.clone(),
                    json!({"name": n, "path": path, "id": path_id(&path), "passes": p, "fails": f}),
                )
            })
            .collect();
        let groups: Vec<(String, serde_json::Value)> = self
            .groups
            .iter()
            .map(|g| (g.name.clone(), g.json(arrays)))
            .collect();
        let (checks, groups) = if arrays {
            (
                json!(checks.into_iter().map(|c| c.1).collect::<Vec<_>>()),
                json!(groups.into_iter().map(|g| g.1).collect::<Vec<_>>()),
            )
        } else {
            (
                serde_json::Value::Object(checks.into_iter().collect()),
                serde_json::Value::Object(groups.into_iter().collect()),
            )
        };
        json!({"name": self.name, "path": self.path, "id": path_id(&self.path), "groups": groups, "checks": checks})
    }
}

/// The run's groups (from `group_duration` and checks) and checks.
pub(crate) fn root_group(reg: &crate::registry::Registry) -> GroupNode {
    let mut root = GroupNode::default();
    let group_of = |tags: &[(String, String)]| {
        tags.iter()
            .find(|(k, _)| k == "group")
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    if let Some(gi) = reg.metric("group_duration") {
        for se in reg.series.iter().filter(|x| x.metric == gi) {
            root.at(&group_of(&se.tags));
        }
    }
    if let Some(ci) = reg.metric("checks") {
        for se in reg.series.iter().filter(|x| x.metric == ci) {
            let Some((_, n)) = se.tags.iter().find(|(k, _)| k == "check") else {
                continue;
            };
            if let Agg::Rate { hits, total } = &se.agg {
                let g = root.at(&group_of(&se.tags));
                match g.checks.iter_mut().find(|c| &c.0 == n) {
                    Some(c) => {
                        c.1 += hits;
                        c.2 += total - hits;
                    }
                    None => g.checks.push((n.clone(), *hits, total - hits)),
                }
            }
        }
    }
    root
}
