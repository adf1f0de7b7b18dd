//! Server state: the route table snapshot, per-route statistics, and the
//! admin-side operations that change them (ingest, restart, clear counts).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use arc_swap::ArcSwap;

use crate::OriginConfig;
use crate::payload::{self, FetchError};
use crate::recipe::{Recipe, RecipeError, parse_recipes};
use crate::stats::RouteStats;
use crate::table::{Limiter, Route, RouteTable};

/// The route served when no recipe is loaded (OriginSimulator v1.1's behaviour:
/// a gzip-compressed HTML page, 200 after 100 ms, cacheable for 30 s).
pub const DEFAULT_RECIPE: &str = r#"{
  "route": "/*",
  "body": "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>loadlab origin - default content</title></head><body><h1>loadlab origin - default content</h1><p>No recipe has been posted. POST one to /_admin/add_recipe.</p></body></html>",
  "headers": {"content-encoding": "gzip", "cache-control": "public, max-age=30", "content-type": "text/html; charset=utf-8"},
  "stages": [{"at": 0, "status": 200, "latency": "100ms"}]
}"#;

/// Why an ingestion failed. Nothing is changed when it does.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error(transparent)]
    Recipe(#[from] RecipeError),
    #[error("{field}: {source}{}", recipe.map_or(String::new(), |_| format!(" (route {route:?})")))]
    Fetch {
        field: String,
        /// The recipe's position, when it came in a list.
        recipe: Option<usize>,
        route: String,
        source: FetchError,
    },
}

pub struct State {
    pub table: ArcSwap<RouteTable>,
    /// Statistics by route key; only admin operations lock it.
    stats: Mutex<BTreeMap<String, Arc<RouteStats>>>,
    /// Requests no route matched (possible only without a `/*` route).
    pub unmatched: ArcSwap<RouteStats>,
    /// `current_count` is relative to these totals (set by `clear_current_count`).
    baseline: Mutex<HashMap<u16, u64>>,
    /// Serializes admin changes so that concurrent posts cannot lose each other's routes.
    pub admin_lock: tokio::sync::Mutex<()>,
    pub config: OriginConfig,
    pub started: Instant,
    pub stop: tokio::sync::watch::Receiver<bool>,
    /// Bumped when `accept` finds no file descriptor free: the HTTP/1.1
    /// connections idle between requests then close, so that the
    /// connections waiting in the accept queue can be served (as nginx
    /// reuses its idle keep-alive connections when it runs out).
    pub shed: tokio::sync::watch::Sender<u64>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// Builds the state with the configured recipes (fetching origins) or the default.
    pub async fn build(
        config: OriginConfig,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Arc<State>, IngestError> {
        let state = Arc::new(State {
            table: ArcSwap::from_pointee(RouteTable::default()),
            stats: Mutex::new(BTreeMap::new()),
            unmatched: ArcSwap::from_pointee(RouteStats::new("(unmatched)")),
            baseline: Mutex::new(HashMap::new()),
            admin_lock: tokio::sync::Mutex::new(()),
            config,
            started: Instant::now(),
            stop,
            shed: tokio::sync::watch::Sender::new(0),
        });
        let initial = if state.config.recipes.is_empty() {
            state.default_recipes()
        } else {
            state.config.recipes.clone()
        };
        state.ingest(initial).await?;
        Ok(state)
    }

    fn default_recipes(&self) -> Vec<Recipe> {
        if self.config.default_page {
            parse_recipes(DEFAULT_RECIPE).unwrap_or_default()
        } else {
            Vec::new()
        }
    }

    fn stats_for(&self, route: &str) -> Arc<RouteStats> {
        lock(&self.stats)
            .entry(route.to_string())
            .or_insert_with(|| Arc::new(RouteStats::new(route)))
            .clone()
    }

    /// Adds or replaces routes. All payloads are built first; the table changes
    /// only if every one succeeded, and then in one atomic swap.
    pub async fn ingest(&self, recipes: Vec<Recipe>) -> Result<(), IngestError> {
        let _guard = self.admin_lock.lock().await;
        let n = recipes.len();
        let mut built = Vec::with_capacity(n);
        for (i, recipe) in recipes.into_iter().enumerate() {
            let payload = payload::build(&recipe)
                .await
                .map_err(|source| IngestError::Fetch {
                    field: if n == 1 {
                        "origin".into()
                    } else {
                        format!("[{i}].origin")
                    },
                    recipe: (n > 1).then_some(i),
                    route: recipe.route.clone(),
                    source,
                })?;
            built.push((recipe, payload));
        }
        // Every stage offset counts from this one instant: the moment of acceptance.
        let accepted_at = Instant::now();
        let current = self.table.load_full();
        let mut routes: BTreeMap<String, Arc<Route>> = current
            .routes()
            .map(|r| (r.recipe.route.clone(), r.clone()))
            .collect();
        for (recipe, payload) in built {
            let stats = self.stats_for(&recipe.route);
            let limiter = recipe.capacity.as_ref().map(Limiter::new);
            let route = Route {
                recipe: Arc::new(recipe),
                payload,
                accepted_at,
                stats,
                limiter,
            };
            routes.insert(route.recipe.route.clone(), Arc::new(route));
        }
        self.table
            .store(Arc::new(RouteTable::from_routes(routes.into_values())));
        Ok(())
    }

    /// Like OriginSimulator's restart: forget every recipe and counter, then
    /// load the default again.
    pub async fn restart(&self) {
        {
            let _guard = self.admin_lock.lock().await;
            self.table.store(Arc::new(RouteTable::default()));
            lock(&self.stats).clear();
            lock(&self.baseline).clear();
            self.unmatched
                .store(Arc::new(RouteStats::new("(unmatched)")));
        }
        let _ = self.ingest(self.default_recipes()).await;
    }

    /// Every route's statistics, including routes since replaced.
    pub fn all_stats(&self) -> Vec<Arc<RouteStats>> {
        let mut v: Vec<_> = lock(&self.stats).values().cloned().collect();
        let un = self.unmatched.load_full();
        if un.statuses().iter().any(|(_, n)| *n > 0) {
            v.push(un);
        }
        v
    }

    fn totals(&self) -> HashMap<u16, u64> {
        let mut t = HashMap::new();
        for s in self.all_stats() {
            for (status, n) in s.statuses() {
                *t.entry(status).or_insert(0) += n;
            }
        }
        t
    }

    /// Responses by status since start or the last `clear_current_count`.
    pub fn current_count(&self) -> Vec<(u16, u64)> {
        let base = lock(&self.baseline).clone();
        let mut v: Vec<(u16, u64)> = self
            .totals()
            .into_iter()
            .map(|(s, n)| (s, n.saturating_sub(base.get(&s).copied().unwrap_or(0))))
            .filter(|(_, n)| *n > 0)
            .collect();
        v.sort();
        v
    }

    pub fn clear_current_count(&self) {
        let totals = self.totals();
        *lock(&self.baseline) = totals;
    }
}
