//! Recipes: parsing and validating OriginSimulator's JSON (plus our extensions).
//!
//! Validation happens entirely here, before anything is loaded, so a bad recipe
//! is refused with the field and the reason and never disturbs what is served.
//! Unknown keys are refused too (OriginSimulator ignores them silently, which
//! hides typos such as `"stage"` for `"stages"`).

use std::time::Duration;

use serde_json::{Map, Value, json};

use crate::timing::{self, Latency, kind_of};

/// Upper bound of one generated payload; protects the server from `"<<900mb>>"`.
pub const MAX_PAYLOAD: u64 = 256 * 1024 * 1024;

/// A recipe rejected: where (`[1].stages[0].latency`) and why. In a list,
/// also which recipe (its position and route) and every other bad recipe of
/// the same list, so that one round trip names them all.
#[derive(Debug, Clone, PartialEq)]
pub struct RecipeError {
    pub field: String,
    pub reason: String,
    /// The recipe's position in a list (None for a single recipe).
    pub recipe: Option<usize>,
    /// The route of the recipe at fault (after the leading `/` is supplied),
    /// when it has a string one.
    pub route: Option<String>,
    /// The other bad recipes of the same list, in list order.
    pub more: Vec<RecipeError>,
}

impl RecipeError {
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        RecipeError {
            field: field.into(),
            reason: reason.into(),
            recipe: None,
            route: None,
            more: Vec::new(),
        }
    }

    fn one(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)?;
        if let (Some(_), Some(route)) = (self.recipe, &self.route) {
            write!(f, " (route {route:?})")?;
        }
        Ok(())
    }
}

impl std::fmt::Display for RecipeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.one(f)?;
        if !self.more.is_empty() {
            let n = self.more.len();
            write!(
                f,
                "; {n} more bad recipe{}: ",
                if n == 1 { "" } else { "s" }
            )?;
            for (i, e) in self.more.iter().enumerate() {
                if i > 0 {
                    f.write_str("; ")?;
                }
                e.one(f)?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for RecipeError {}

/// Where a route's payload comes from (OriginSimulator's precedence: origin > body > random_content).
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// Fetched once from this URL when the recipe is accepted.
    Origin(String),
    /// A literal body whose `<<size>>` placeholders become random characters.
    Body(String),
    /// This many random base64 characters.
    Random(u64),
}

/// One fault injected into a share of a stage's requests.
#[derive(Debug, Clone, PartialEq)]
pub enum FaultKind {
    /// Reset the connection (TCP RST) instead of answering.
    Reset,
    /// Close the connection without a response.
    Close,
    /// Never answer (until `for` elapses, the client gives up, or the server stops).
    Hang(Option<Duration>),
    /// Send the body at this many bytes per second.
    Slow(u64),
    /// Announce the whole body, send only this share of it, then close.
    Truncate(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub kind: FaultKind,
    pub rate: f64,
}

/// A share of requests answered with another status (`"errors": {"rate": "5%", "status": 503}`).
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorMix {
    pub rate: f64,
    pub status: u16,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Offset from the moment the recipe is accepted.
    pub at: Duration,
    pub status: u16,
    pub latency: Latency,
    pub errors: Option<ErrorMix>,
    pub faults: Vec<Fault>,
}

/// A route with limited capacity: `concurrency` requests are served at once,
/// up to `queue` wait (FIFO), the rest (or those waiting past `queue_timeout`)
/// are answered `reject_status`.
#[derive(Debug, Clone, PartialEq)]
pub struct Capacity {
    pub concurrency: usize,
    pub queue: usize,
    pub queue_timeout: Option<Duration>,
    pub reject_status: u16,
}

/// A validated recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Recipe {
    /// `/path`, or a prefix wildcard ending in `*`.
    pub route: String,
    pub source: Source,
    /// Sent on every response of the route (and on the origin fetch).
    pub headers: Vec<(String, String)>,
    /// Sorted by `at`; among equal offsets the later one in the recipe wins.
    pub stages: Vec<Stage>,
    /// Serve the payload with error statuses too (OriginSimulator sends `Error <status>`).
    pub body_on_error: bool,
    pub capacity: Option<Capacity>,
    /// The recipe as `current_recipe` echoes it: every standard field present.
    pub echo: Value,
}

impl Recipe {
    /// True when the recipe asks for `content-encoding: gzip`.
    pub fn wants_gzip(&self) -> bool {
        self.headers.iter().any(|(k, v)| {
            k.eq_ignore_ascii_case("content-encoding") && v.trim().eq_ignore_ascii_case("gzip")
        })
    }
}

const KNOWN: &[&str] = &[
    "origin",
    "body",
    "random_content",
    "headers",
    "stages",
    "route",
    "body_on_error",
    "capacity",
];

/// Parses a single recipe object or a list of them.
pub fn parse_recipes(json: &str) -> Result<Vec<Recipe>, RecipeError> {
    let value: Value = serde_json::from_str(json).map_err(|e| {
        RecipeError::new(
            "(json)",
            format!(
                "malformed JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            ),
        )
    })?;
    match value {
        Value::Array(items) => {
            if items.is_empty() {
                return Err(RecipeError::new("(list)", "an empty list holds no recipe"));
            }
            // Every recipe is checked, so that all the bad ones are named;
            // the list is still applied all or nothing.
            let mut recipes = Vec::with_capacity(items.len());
            let mut errors: Vec<RecipeError> = Vec::new();
            for (i, v) in items.iter().enumerate() {
                match parse_recipe(v, &format!("[{i}].")) {
                    Ok(r) => recipes.push(r),
                    Err(mut e) => {
                        e.recipe = Some(i);
                        e.route = route_of(v);
                        errors.push(e);
                    }
                }
            }
            if !errors.is_empty() {
                let mut first = errors.remove(0);
                first.more = errors;
                return Err(first);
            }
            for (i, r) in recipes.iter().enumerate() {
                if recipes[..i].iter().any(|p| p.route == r.route) {
                    let mut e = RecipeError::new(
                        format!("[{i}].route"),
                        format!("route {:?} appears twice in one list", r.route),
                    );
                    e.recipe = Some(i);
                    e.route = Some(r.route.clone());
                    return Err(e);
                }
            }
            Ok(recipes)
        }
        v => Ok(vec![parse_recipe(&v, "")?]),
    }
}

fn parse_recipe(v: &Value, at: &str) -> Result<Recipe, RecipeError> {
    let err = |f: &str, r: String| RecipeError::new(format!("{at}{f}"), r);
    let obj = v.as_object().ok_or_else(|| {
        err(
            "(recipe)",
            format!("expected an object, got {}", kind_of(v)),
        )
    })?;
    for k in obj.keys() {
        if !KNOWN.contains(&k.as_str()) {
            return Err(err(
                k,
                format!("unknown field (known: {})", KNOWN.join(", ")),
            ));
        }
    }
    let opt_str = |f: &str| -> Result<Option<String>, RecipeError> {
        match obj.get(f) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(o) => Err(err(f, format!("expected a string, got {}", kind_of(o)))),
        }
    };

    let route = opt_str("route")?.map_or_else(|| "/*".to_string(), |r| with_slash(&r));
    validate_route(&route).map_err(|r| err("route", r))?;

    let origin = opt_str("origin")?;
    let body = opt_str("body")?;
    let random = match obj.get("random_content") {
        None | Some(Value::Null) => None,
        Some(v) => {
            let n = timing::parse_size_value(v).map_err(|r| err("random_content", r))?;
            if n > MAX_PAYLOAD {
                return Err(err(
                    "random_content",
                    format!("{n} bytes is over the {MAX_PAYLOAD}-byte limit"),
                ));
            }
            Some(n)
        }
    };
    if let Some(b) = &body {
        placeholder_total(b).map_err(|r| err("body", r))?;
    }
    let source = if let Some(o) = origin.clone() {
        if !(o.starts_with("http://") || o.starts_with("https://")) {
            return Err(err(
                "origin",
                format!("{o:?} is not an http:// or https:// URL"),
            ));
        }
        o.parse::<http::Uri>()
            .map_err(|e| err("origin", format!("{o:?} is not a URL: {e}")))?;
        Source::Origin(o)
    } else if let Some(b) = body.clone() {
        Source::Body(b)
    } else if let Some(n) = random {
        Source::Random(n)
    } else {
        return Err(err(
            "(recipe)",
            "missing field: one of origin, body or random_content is required".into(),
        ));
    };

    let headers = match obj.get("headers") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => {
            let mut out = Vec::with_capacity(m.len());
            for (k, v) in m {
                let f = format!("headers.{k}");
                let val = v
                    .as_str()
                    .ok_or_else(|| err(&f, format!("expected a string, got {}", kind_of(v))))?;
                http::HeaderName::from_bytes(k.as_bytes())
                    .map_err(|_| err(&f, "invalid header name".into()))?;
                http::HeaderValue::from_str(val)
                    .map_err(|_| err(&f, "invalid header value".into()))?;
                out.push((k.to_ascii_lowercase(), val.to_string()));
            }
            out
        }
        Some(o) => {
            return Err(err(
                "headers",
                format!("expected an object, got {}", kind_of(o)),
            ));
        }
    };

    let stages = match obj.get("stages") {
        None | Some(Value::Null) => {
            return Err(err(
                "stages",
                "missing field: at least one stage is required".into(),
            ));
        }
        Some(Value::Array(a)) if a.is_empty() => {
            return Err(err("stages", "at least one stage is required".into()));
        }
        Some(Value::Array(a)) => {
            let mut st = a
                .iter()
                .enumerate()
                .map(|(i, s)| parse_stage(s, &format!("{at}stages[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            st.sort_by_key(|s| s.at); // stable: later entries win ties
            st
        }
        Some(o) => {
            return Err(err(
                "stages",
                format!("expected a list, got {}", kind_of(o)),
            ));
        }
    };

    let body_on_error = match obj.get("body_on_error") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(o) => {
            return Err(err(
                "body_on_error",
                format!("expected true or false, got {}", kind_of(o)),
            ));
        }
    };
    let capacity = match obj.get("capacity") {
        None | Some(Value::Null) => None,
        Some(c) => Some(parse_capacity(c, &format!("{at}capacity"))?),
    };

    // The echo keeps OriginSimulator's full struct shape, then our extensions if used.
    let mut echo = Map::new();
    echo.insert(
        "body".into(),
        obj.get("body").cloned().unwrap_or(Value::Null),
    );
    echo.insert(
        "headers".into(),
        obj.get("headers")
            .filter(|h| !h.is_null())
            .cloned()
            .unwrap_or(json!({})),
    );
    echo.insert(
        "origin".into(),
        obj.get("origin").cloned().unwrap_or(Value::Null),
    );
    echo.insert(
        "random_content".into(),
        obj.get("random_content").cloned().unwrap_or(Value::Null),
    );
    echo.insert("route".into(), Value::String(route.clone()));
    echo.insert(
        "stages".into(),
        obj.get("stages").cloned().unwrap_or(json!([])),
    );
    for k in ["body_on_error", "capacity"] {
        if let Some(v) = obj.get(k).filter(|v| !v.is_null()) {
            echo.insert(k.into(), v.clone());
        }
    }

    Ok(Recipe {
        route,
        source,
        headers,
        stages,
        body_on_error,
        capacity,
        echo: Value::Object(echo),
    })
}

/// `news/x` is `/news/x`: OriginSimulator's own test fixtures write routes
/// without the slash (it stores them as written, where no request path can
/// ever match them). An empty route stays empty, to be refused.
fn with_slash(route: &str) -> String {
    if route.is_empty() || route.starts_with('/') {
        route.to_string()
    } else {
        format!("/{route}")
    }
}

/// The route of a (possibly bad) recipe, as it would be loaded, for error messages.
fn route_of(v: &Value) -> Option<String> {
    match v.as_object()?.get("route") {
        None | Some(Value::Null) => Some("/*".into()),
        Some(Value::String(r)) => Some(with_slash(r)),
        Some(_) => None,
    }
}

fn validate_route(route: &str) -> Result<(), String> {
    if route.is_empty() {
        return Err("an empty route matches nothing (use \"/\" or \"/*\")".into());
    }
    if route.find('*').is_some_and(|i| i != route.len() - 1) {
        return Err(format!(
            "{route:?}: * is allowed only at the end (a prefix wildcard)"
        ));
    }
    if route == "/_admin" || route.starts_with("/_admin/") {
        return Err("routes under /_admin are reserved for the admin API".into());
    }
    Ok(())
}

fn status_of(v: Option<&Value>, field: &str) -> Result<u16, RecipeError> {
    match v {
        None | Some(Value::Null) => Err(RecipeError::new(field, "missing field")),
        Some(Value::Number(n)) => n
            .as_u64()
            .filter(|s| (100..=599).contains(s))
            .map(|s| s as u16)
            .ok_or_else(|| {
                RecipeError::new(field, format!("{n} is not an HTTP status (100..599)"))
            }),
        Some(o) => Err(RecipeError::new(
            field,
            format!("expected a status number, got {}", kind_of(o)),
        )),
    }
}

fn parse_stage(v: &Value, at: &str) -> Result<Stage, RecipeError> {
    let f = |name: &str| format!("{at}.{name}");
    let obj = v
        .as_object()
        .ok_or_else(|| RecipeError::new(at, format!("expected an object, got {}", kind_of(v))))?;
    for k in obj.keys() {
        if !["at", "status", "latency", "errors", "faults"].contains(&k.as_str()) {
            return Err(RecipeError::new(
                f(k),
                "unknown field (known: at, status, latency, errors, faults)",
            ));
        }
    }
    let at_v = obj
        .get("at")
        .ok_or_else(|| RecipeError::new(f("at"), "missing field"))?;
    let at_d = timing::parse_duration_value(at_v).map_err(|r| RecipeError::new(f("at"), r))?;
    let status = status_of(obj.get("status"), &f("status"))?;
    let latency = timing::parse_latency(obj.get("latency").unwrap_or(&Value::Null))
        .map_err(|r| RecipeError::new(f("latency"), r))?;
    let errors = match obj.get("errors") {
        None | Some(Value::Null) => None,
        Some(Value::Object(m)) => {
            for k in m.keys() {
                if k != "rate" && k != "status" {
                    return Err(RecipeError::new(
                        f(&format!("errors.{k}")),
                        "unknown field (known: rate, status)",
                    ));
                }
            }
            let rate = timing::parse_rate(m.get("rate").unwrap_or(&Value::Null))
                .map_err(|r| RecipeError::new(f("errors.rate"), r))?;
            let status = status_of(m.get("status"), &f("errors.status"))?;
            Some(ErrorMix { rate, status })
        }
        Some(o) => {
            return Err(RecipeError::new(
                f("errors"),
                format!("expected an object, got {}", kind_of(o)),
            ));
        }
    };
    let faults = match obj.get("faults") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, x)| parse_fault(x, &f(&format!("faults[{i}]"))))
            .collect::<Result<_, _>>()?,
        Some(o) => {
            return Err(RecipeError::new(
                f("faults"),
                format!("expected a list, got {}", kind_of(o)),
            ));
        }
    };
    let total: f64 = faults.iter().map(|x: &Fault| x.rate).sum();
    if total > 1.0 + 1e-9 {
        return Err(RecipeError::new(
            f("faults"),
            format!("fault rates add up to {:.1}%, over 100%", total * 100.0),
        ));
    }
    Ok(Stage {
        at: at_d,
        status,
        latency,
        errors,
        faults,
    })
}

fn parse_fault(v: &Value, at: &str) -> Result<Fault, RecipeError> {
    let f = |name: &str| format!("{at}.{name}");
    let obj = v
        .as_object()
        .ok_or_else(|| RecipeError::new(at, format!("expected an object, got {}", kind_of(v))))?;
    let kind = obj.get("kind").and_then(Value::as_str).ok_or_else(|| {
        RecipeError::new(
            f("kind"),
            "missing field (reset, close, hang, slow or truncate)",
        )
    })?;
    let allowed: &[&str] = match kind {
        "reset" | "close" => &["kind", "rate"],
        "hang" => &["kind", "rate", "for"],
        "slow" => &["kind", "rate", "bytes_per_sec"],
        "truncate" => &["kind", "rate", "keep"],
        other => {
            return Err(RecipeError::new(
                f("kind"),
                format!("{other:?} is not a fault (reset, close, hang, slow, truncate)"),
            ));
        }
    };
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(RecipeError::new(
                f(k),
                format!(
                    "unknown field for a {kind} fault (known: {})",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let rate = match obj.get("rate") {
        None => 1.0,
        Some(r) => timing::parse_rate(r).map_err(|e| RecipeError::new(f("rate"), e))?,
    };
    let kind = match kind {
        "reset" => FaultKind::Reset,
        "close" => FaultKind::Close,
        "hang" => FaultKind::Hang(match obj.get("for") {
            None | Some(Value::Null) => None,
            Some(d) => {
                Some(timing::parse_duration_value(d).map_err(|e| RecipeError::new(f("for"), e))?)
            }
        }),
        "slow" => {
            let b = obj
                .get("bytes_per_sec")
                .and_then(Value::as_u64)
                .filter(|b| *b > 0)
                .ok_or_else(|| {
                    RecipeError::new(f("bytes_per_sec"), "missing or not a positive whole number")
                })?;
            FaultKind::Slow(b)
        }
        _ => {
            let keep = match obj.get("keep") {
                None => 0.5,
                Some(k) => timing::parse_rate(k).map_err(|e| RecipeError::new(f("keep"), e))?,
            };
            if keep >= 1.0 {
                return Err(RecipeError::new(
                    f("keep"),
                    "must keep less than 100% to truncate",
                ));
            }
            FaultKind::Truncate(keep)
        }
    };
    Ok(Fault { kind, rate })
}

fn parse_capacity(v: &Value, at: &str) -> Result<Capacity, RecipeError> {
    let f = |name: &str| format!("{at}.{name}");
    let obj = v
        .as_object()
        .ok_or_else(|| RecipeError::new(at, format!("expected an object, got {}", kind_of(v))))?;
    for k in obj.keys() {
        if !["concurrency", "queue", "queue_timeout", "reject_status"].contains(&k.as_str()) {
            return Err(RecipeError::new(
                f(k),
                "unknown field (known: concurrency, queue, queue_timeout, reject_status)",
            ));
        }
    }
    let concurrency = obj
        .get("concurrency")
        .and_then(Value::as_u64)
        .filter(|c| *c > 0 && *c <= 1_000_000)
        .ok_or_else(|| {
            RecipeError::new(
                f("concurrency"),
                "missing or not a whole number in 1..1000000",
            )
        })? as usize;
    let queue = match obj.get("queue") {
        None => 0,
        Some(q) => q
            .as_u64()
            .filter(|q| *q <= 10_000_000)
            .ok_or_else(|| RecipeError::new(f("queue"), "not a whole number in 0..10000000"))?
            as usize,
    };
    let queue_timeout = match obj.get("queue_timeout") {
        None | Some(Value::Null) => None,
        Some(d) => Some(
            timing::parse_duration_value(d).map_err(|e| RecipeError::new(f("queue_timeout"), e))?,
        ),
    };
    let reject_status = match obj.get("reject_status") {
        None => 503,
        s => status_of(s, &f("reject_status"))?,
    };
    Ok(Capacity {
        concurrency,
        queue,
        queue_timeout,
        reject_status,
    })
}

/// Checks every `<<size>>` placeholder of a body and returns the expanded length.
pub fn placeholder_total(body: &str) -> Result<u64, String> {
    let mut total = 0u64;
    for piece in split_placeholders(body) {
        // Saturating: sizes near u64::MAX must not wrap around under the limit.
        total = total.saturating_add(match piece {
            Piece::Text(t) => t.len() as u64,
            Piece::Random(spec) => {
                timing::parse_size_str(spec).map_err(|e| format!("placeholder <<{spec}>>: {e}"))?
            }
        });
    }
    if total > MAX_PAYLOAD {
        return Err(format!(
            "expands to {total} bytes, over the {MAX_PAYLOAD}-byte limit"
        ));
    }
    Ok(total)
}

pub(crate) enum Piece<'a> {
    Text(&'a str),
    Random(&'a str),
}

/// Splits a body at `<<...>>` (non-greedy, as OriginSimulator's `<<(.+?)>>`).
pub(crate) fn split_placeholders(body: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find("<<") {
        // `.+?` needs at least one character between the markers.
        match rest[open + 2..]
            .get(1..)
            .and_then(|s| s.find(">>"))
            .map(|i| open + 3 + i)
        {
            Some(close) => {
                if open > 0 {
                    out.push(Piece::Text(&rest[..open]));
                }
                out.push(Piece::Random(&rest[open + 2..close]));
                rest = &rest[close + 2..];
            }
            None => break,
        }
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}
