//! The route table: an immutable snapshot swapped atomically on every change.
//!
//! Requests read the current snapshot through `ArcSwap` (no lock) and decide
//! the active stage from the route's acceptance instant and the time now, so
//! no timer ever fires: posting a route again simply replaces the entry, and
//! with it every stage that had not happened yet.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::Semaphore;

use crate::payload::Payload;
use crate::recipe::{Recipe, Stage};
use crate::stats::RouteStats;

/// One served route.
pub struct Route {
    pub recipe: Arc<Recipe>,
    pub payload: Payload,
    pub accepted_at: Instant,
    pub stats: Arc<RouteStats>,
    pub limiter: Option<Limiter>,
}

impl Route {
    /// The stage in force `elapsed` after acceptance (None before the first `at`).
    pub fn stage_at(&self, elapsed: Duration) -> Option<&Stage> {
        let stages = &self.recipe.stages;
        let n = stages.partition_point(|s| s.at <= elapsed);
        n.checked_sub(1).map(|i| &stages[i])
    }

    pub fn current_stage(&self) -> Option<&Stage> {
        self.stage_at(self.accepted_at.elapsed())
    }
}

/// A concurrency limit with a bounded FIFO queue.
pub struct Limiter {
    pub permits: Semaphore,
    pub queue: usize,
    pub queue_timeout: Option<Duration>,
    pub reject_status: u16,
}

/// The routes in force. Built off the request path, read by every request.
#[derive(Default)]
pub struct RouteTable {
    exact: HashMap<String, Arc<Route>>,
    /// Prefix wildcards, longest prefix first (then by name, for determinism).
    wild: Vec<(String, Arc<Route>)>,
    /// Every route by its key, in sorted order (for admin listings).
    all: BTreeMap<String, Arc<Route>>,
}

impl RouteTable {
    pub fn from_routes(routes: impl IntoIterator<Item = Arc<Route>>) -> Self {
        let mut t = RouteTable::default();
        for r in routes {
            t.all.insert(r.recipe.route.clone(), r);
        }
        for (key, r) in &t.all {
            match key.strip_suffix('*') {
                Some(prefix) => t.wild.push((prefix.to_string(), r.clone())),
                None => {
                    t.exact.insert(key.clone(), r.clone());
                }
            }
        }
        t.wild
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then_with(|| a.0.cmp(&b.0)));
        t
    }

    /// Exact path first, then the longest wildcard prefix that starts the path.
    pub fn lookup(&self, path: &str) -> Option<&Arc<Route>> {
        if let Some(r) = self.exact.get(path) {
            return Some(r);
        }
        self.wild
            .iter()
            .find(|(p, _)| path.starts_with(p.as_str()))
            .map(|(_, r)| r)
    }

    pub fn routes(&self) -> impl Iterator<Item = &Arc<Route>> {
        self.all.values()
    }

    pub fn get(&self, key: &str) -> Option<&Arc<Route>> {
        self.all.get(key)
    }

    pub fn len(&self) -> usize {
        self.all.len()
    }

    pub fn is_empty(&self) -> bool {
        self.all.is_empty()
    }
}

impl Limiter {
    pub fn new(c: &crate::recipe::Capacity) -> Self {
        Limiter {
            permits: Semaphore::new(c.concurrency),
            queue: c.queue,
            queue_timeout: c.queue_timeout,
            reject_status: c.reject_status,
        }
    }
}
