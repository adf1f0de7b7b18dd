//! Reports split by target, by attack or by any series tag (`loadlab report
//! -by=target`, `-by=tag:endpoint`): one set of [`Metrics`] per group,
//! rendered one after the other in the order the groups first appear in the
//! results.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::Arc;

use crate::metrics::Metrics;
use crate::record::{MetricRecord, Record};
use crate::report::ReportType;

/// What a report is split by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupBy {
    /// Method and URL (`GET http://host/path`).
    Target,
    /// The attack's name (`-name`).
    Attack,
    /// The value of a series tag (`method`, `url`, `endpoint`, `worker`...;
    /// see [`loadlab_core::series::tag`]); `(none)` for records without it.
    Tag(String),
}

/// The group of records that lack the tag a report is split by.
pub const NO_TAG: &str = "(none)";

impl FromStr for GroupBy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "target" => return Ok(GroupBy::Target),
            "attack" => return Ok(GroupBy::Attack),
            _ => {}
        }
        if let Some(name) = s.strip_prefix("tag:") {
            if name.is_empty() {
                return Err(format!(
                    "bad grouping {s:?}: tag: needs a tag name, e.g. tag:endpoint"
                ));
            }
            return Ok(GroupBy::Tag(name.to_string()));
        }
        // The well-known tags by their bare name (`target` stays vegeta's
        // method and URL; the target-name tag is `tag:target`).
        if s != loadlab_core::series::tag::TARGET && loadlab_core::series::tag::ALL.contains(&s) {
            return Ok(GroupBy::Tag(s.to_string()));
        }
        let known: Vec<&str> = loadlab_core::series::tag::ALL
            .iter()
            .copied()
            .filter(|k| *k != loadlab_core::series::tag::TARGET)
            .collect();
        Err(format!(
            "unknown grouping {s:?}: use target, attack, {} or tag:NAME (any tag of the results' series)",
            known.join(", ")
        ))
    }
}

impl GroupBy {
    fn label(&self) -> String {
        match self {
            GroupBy::Target => "Target".to_string(),
            GroupBy::Attack => "Attack".to_string(),
            GroupBy::Tag(name) => {
                let mut c = name.chars();
                match c.next() {
                    Some(f) => f.to_uppercase().chain(c).collect(),
                    None => String::new(),
                }
            }
        }
    }

    fn metric_key(&self, m: &MetricRecord) -> String {
        let tag = |k: &str| m.series.tag(k).filter(|v| !v.is_empty());
        match self {
            GroupBy::Target => match (tag("method"), tag("url")) {
                (Some(method), Some(url)) => format!("{method} {url}"),
                _ => NO_TAG.to_string(),
            },
            GroupBy::Attack if m.attack.is_empty() => "(unnamed)".to_string(),
            GroupBy::Attack => m.attack.to_string(),
            GroupBy::Tag(name) => tag(name).unwrap_or(NO_TAG).to_string(),
        }
    }

    fn key(&self, r: &Record) -> String {
        match self {
            GroupBy::Target => format!("{} {}", r.method, r.url),
            GroupBy::Attack if r.attack.is_empty() => "(unnamed)".to_string(),
            GroupBy::Attack => r.attack.to_string(),
            GroupBy::Tag(name) => match r.tag(name) {
                Some(v) if !v.is_empty() => v.to_string(),
                _ => NO_TAG.to_string(),
            },
        }
    }
}

/// Metrics for the whole input, or one per group.
pub struct Grouped {
    by: Option<GroupBy>,
    kind: ReportType,
    groups: Vec<(String, Metrics)>,
    index: HashMap<String, usize>,
    /// By target: the attack names each group's records came from, so an
    /// attack's unsent count reaches its targets' blocks.
    attacks: Vec<Vec<Arc<str>>>,
    /// Bucket bounds every group counts (`report -buckets`).
    buckets: Option<Vec<u64>>,
    /// Worker records of a split report, rendered with every group.
    pending_workers: Vec<crate::distributed::WorkerSegment>,
}

impl Grouped {
    pub fn new(kind: &ReportType, by: Option<GroupBy>) -> Self {
        // Ungrouped: one set of metrics, present even with no records.
        let groups = match by {
            None => vec![(String::new(), kind.new_metrics())],
            Some(_) => Vec::new(),
        };
        Grouped {
            by,
            kind: kind.clone(),
            groups,
            index: HashMap::new(),
            attacks: Vec::new(),
            buckets: None,
            pending_workers: Vec::new(),
        }
    }

    /// Counts latencies into these buckets (lower bounds in ns, as
    /// [`ReportType::Hist`] holds them), for a JSON report's `buckets`
    /// (vegeta's `report -type=json -buckets=[...]`). Call before adding.
    pub fn with_buckets(mut self, bounds: Vec<u64>) -> Self {
        self.buckets = Some(bounds);
        for i in 0..self.groups.len() {
            self.groups[i].1 = self.new_metrics();
        }
        self
    }

    fn new_metrics(&self) -> Metrics {
        let m = self.kind.new_metrics();
        match &self.buckets {
            Some(b) => m.with_buckets(b.clone()),
            None => m,
        }
    }

    pub fn add(&mut self, r: &Record) {
        let Some(by) = &self.by else {
            self.groups[0].1.add(r);
            return;
        };
        let by_attack = *by == GroupBy::Attack;
        let key = by.key(r);
        let i = self.group(key);
        self.groups[i].1.add(r);
        if !by_attack {
            let seen = &mut self.attacks[i];
            if !seen
                .iter()
                .any(|a| Arc::ptr_eq(a, &r.attack) || **a == *r.attack)
            {
                seen.push(r.attack.clone());
            }
        }
    }

    /// Adds a metric record (counter, trend, rate or gauge value) to its
    /// group: by its series' tags (`method` and `url` for `-by=target`),
    /// `(none)` when the series lacks the tag.
    pub fn add_metric(&mut self, m: &MetricRecord) {
        let Some(by) = &self.by else {
            self.groups[0].1.add_metric(m);
            return;
        };
        let key = by.metric_key(m);
        let i = self.group(key);
        self.groups[i].1.add_metric(m);
    }

    fn group(&mut self, key: String) -> usize {
        match self.index.get(&key) {
            Some(i) => *i,
            None => {
                let m = self.new_metrics();
                self.groups.push((key.clone(), m));
                self.attacks.push(Vec::new());
                self.index.insert(key, self.groups.len() - 1);
                self.groups.len() - 1
            }
        }
    }

    /// Adds an attack's count of requests scheduled but never sent: to the
    /// report, to the attack's block (`-by=attack`), or to the block of every
    /// target (or tag value) the attack sent to (`-by=target`, `-by=tag:…`;
    /// marked as the whole attack's count there, since unsent requests
    /// belong to no target).
    pub fn add_unsent(&mut self, attack: &str, n: u64) {
        if n == 0 {
            return;
        }
        match &self.by {
            None => self.groups[0].1.add_unsent(n),
            Some(GroupBy::Attack) => {
                let key = if attack.is_empty() {
                    "(unnamed)".to_string()
                } else {
                    attack.to_string()
                };
                let i = self.group(key);
                self.groups[i].1.add_unsent(n);
            }
            Some(GroupBy::Target | GroupBy::Tag(_)) => {
                for (i, seen) in self.attacks.iter().enumerate() {
                    if seen.iter().any(|a| **a == *attack) {
                        self.groups[i].1.add_unsent(n);
                        self.groups[i].1.set_unsent_attack_wide();
                    }
                }
            }
        }
    }

    /// Adds a worker's record of a split run. Its checks (missing
    /// segments, start spread) are about the whole run: every group shows
    /// them.
    pub fn add_worker(&mut self, w: &crate::distributed::WorkerSegment) {
        match &self.by {
            None => self.groups[0].1.add_worker(w.clone()),
            Some(_) => {
                self.pending_workers.push(w.clone());
            }
        }
    }

    /// The groups in order of first appearance (one unnamed group when not split).
    pub fn groups(&self) -> &[(String, Metrics)] {
        &self.groups
    }

    /// A group's metrics with the split run's worker records (a report split
    /// by target or tag shows the whole run's checks in every block).
    fn with_workers<'a>(&self, m: &'a Metrics) -> std::borrow::Cow<'a, Metrics> {
        if self.pending_workers.is_empty() {
            return std::borrow::Cow::Borrowed(m);
        }
        let mut m = m.clone();
        for w in &self.pending_workers {
            m.add_worker(w.clone());
        }
        std::borrow::Cow::Owned(m)
    }

    /// Renders every group with `one`: text kinds as blocks under a
    /// `Target: …` (or `Attack: …`, or the tag's name: `Endpoint: …`) line,
    /// JSON as one object keyed by group.
    pub fn render(&self, one: impl Fn(&Metrics) -> String) -> String {
        let Some(by) = &self.by else {
            return one(&self.groups[0].1);
        };
        if self.kind == ReportType::Json {
            let body: Vec<String> = self
                .groups
                .iter()
                .map(|(k, m)| {
                    let key = serde_json::to_string(k).unwrap_or_else(|_| "\"?\"".into());
                    format!("{key}:{}", one(&self.with_workers(m)).trim_end())
                })
                .collect();
            return format!("{{{}}}\n", body.join(","));
        }
        // Every block ends with a blank line, so that reports printed one
        // after another (`-every`) stay apart too.
        let label = by.label();
        self.groups
            .iter()
            .map(|(k, m)| format!("{label}: {k}\n{}\n", one(&self.with_workers(m))))
            .collect()
    }
}
