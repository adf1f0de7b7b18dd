//! The admin API under `/_admin/`: OriginSimulator's endpoints with the same
//! paths and response shapes, plus `stats` (JSON) and `metrics` (Prometheus text).
//!
//! Only loopback clients are answered unless a token is configured; with a
//! token every admin request must carry it (`Authorization: Bearer <token>` or
//! `X-Admin-Token: <token>`), wherever it comes from.

use std::fmt::Write as _;

use std::net::SocketAddr;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use serde_json::{Map, Value, json};

use crate::recipe::parse_recipes;
use crate::state::{IngestError, State};
use crate::stats::FAULT_NAMES;

/// An admin answer: status, content type, body.
pub(crate) struct Simple {
    pub status: StatusCode,
    pub content_type: HeaderValue,
    pub body: Bytes,
}

/// The admin request body as the transport read it (bounded by the limit).
pub(crate) enum AdminBody {
    Data(Bytes),
    TooLarge,
    Failed(String),
}

pub(crate) fn is_admin(path: &str) -> bool {
    path.strip_prefix("/_admin")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

pub(crate) async fn handle(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    body: AdminBody,
    state: &State,
    peer: SocketAddr,
) -> Simple {
    if let Some(resp) = check_access(headers, state, peer) {
        return resp;
    }
    let path = path
        .trim_start_matches("/_admin")
        .trim_start_matches('/')
        .trim_end_matches('/');
    let post_only = path == "add_recipe";
    if post_only && method != Method::POST {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "(method)",
            "add_recipe takes POST",
        );
    }
    if !post_only && !matches!(*method, Method::GET | Method::HEAD | Method::POST) {
        return error(
            StatusCode::METHOD_NOT_ALLOWED,
            "(method)",
            "admin endpoints take GET",
        );
    }
    match path {
        "status" => text(StatusCode::OK, "ok!".into()),
        "add_recipe" => add_recipe(body, state).await,
        "current_recipe" => json_resp(StatusCode::OK, &current_recipes(state)),
        "restart" => {
            state.restart().await;
            text(StatusCode::OK, "ok!".into())
        }
        "routes" => {
            let table = state.table.load();
            let keys: Vec<&str> = table.routes().map(|r| r.recipe.route.as_str()).collect();
            text(StatusCode::OK, keys.join("\n"))
        }
        "routes_status" => {
            let table = state.table.load();
            let lines: Vec<String> = table
                .routes()
                .map(|r| match r.current_stage() {
                    Some(s) => format!("{} {} {}", r.recipe.route, s.status, s.latency.describe()),
                    None => format!("{} 406 0", r.recipe.route),
                })
                .collect();
            text(StatusCode::OK, lines.join("\n"))
        }
        "current_count" => {
            let mut m = Map::new();
            let mut total = 0;
            for (status, n) in state.current_count() {
                total += n;
                m.insert(status.to_string(), json!(n));
            }
            m.insert("total_requests".into(), json!(total));
            json_resp(StatusCode::OK, &Value::Object(m))
        }
        "clear_current_count" => {
            state.clear_current_count();
            json_resp(StatusCode::OK, &json!({"cleared": "yes"}))
        }
        "stats" => json_resp(StatusCode::OK, &stats_json(state)),
        "metrics" => {
            let mut resp = text(StatusCode::OK, metrics_text(state));
            resp.content_type =
                HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8");
            resp
        }
        other => error(
            StatusCode::NOT_FOUND,
            "(path)",
            &format!("no admin endpoint {other:?}"),
        ),
    }
}

fn check_access(h: &HeaderMap, state: &State, peer: SocketAddr) -> Option<Simple> {
    match &state.config.admin_token {
        None if peer.ip().is_loopback() => None,
        None => Some(error(
            StatusCode::FORBIDDEN,
            "(access)",
            "the admin API answers only loopback clients unless a token is configured",
        )),
        Some(token) => {
            let bearer = h
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                // The scheme is case-insensitive (RFC 9110 §11.1).
                .and_then(|v| {
                    let (scheme, rest) = v.split_once(' ')?;
                    scheme.eq_ignore_ascii_case("bearer").then_some(rest)
                })
                .map(str::trim);
            let direct = h
                .get("x-admin-token")
                .and_then(|v| v.to_str().ok())
                .map(str::trim);
            match bearer.or(direct) {
                None => Some(error(
                    StatusCode::UNAUTHORIZED,
                    "(access)",
                    "admin token required",
                )),
                Some(given) if constant_time_eq(given.as_bytes(), token.as_bytes()) => None,
                Some(_) => Some(error(
                    StatusCode::UNAUTHORIZED,
                    "(access)",
                    "wrong admin token",
                )),
            }
        }
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn add_recipe(body: AdminBody, state: &State) -> Simple {
    let body = match body {
        AdminBody::Data(b) => b,
        AdminBody::TooLarge => {
            let limit = state.config.admin_body_limit;
            return error(
                StatusCode::PAYLOAD_TOO_LARGE,
                "(body)",
                &format!("recipe is over the {limit}-byte admin body limit"),
            );
        }
        AdminBody::Failed(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "(body)",
                &format!("reading the request body: {e}"),
            );
        }
    };
    let Ok(text) = std::str::from_utf8(&body) else {
        return error(StatusCode::BAD_REQUEST, "(json)", "the body is not UTF-8");
    };
    let recipes = match parse_recipes(text) {
        Ok(r) => r,
        Err(e) => return recipe_error(StatusCode::BAD_REQUEST, &e),
    };
    match state.ingest(recipes).await {
        Ok(()) => json_resp(StatusCode::CREATED, &current_recipes(state)),
        Err(IngestError::Recipe(e)) => recipe_error(StatusCode::BAD_REQUEST, &e),
        Err(IngestError::Fetch {
            field,
            recipe,
            route,
            source,
        }) => {
            let mut e = crate::recipe::RecipeError::new(field, source.0);
            e.recipe = recipe;
            e.route = recipe.map(|_| route);
            recipe_error(StatusCode::BAD_GATEWAY, &e)
        }
    }
}

/// `{"error", "field", "reason"}`, plus for a recipe of a list its position
/// (`recipe`) and `route`, and `errors`: every bad recipe of the list.
fn recipe_error(status: StatusCode, e: &crate::recipe::RecipeError) -> Simple {
    let one = |e: &crate::recipe::RecipeError| {
        let mut m = Map::new();
        m.insert("field".into(), json!(e.field));
        m.insert("reason".into(), json!(e.reason));
        if let Some(i) = e.recipe {
            m.insert("recipe".into(), json!(i));
            m.insert("route".into(), json!(e.route));
        }
        m
    };
    let mut top = one(e);
    top.insert("error".into(), json!(e.to_string()));
    if e.recipe.is_some() {
        let all: Vec<Value> = std::iter::once(e)
            .chain(&e.more)
            .map(|x| Value::Object(one(x)))
            .collect();
        top.insert("errors".into(), Value::Array(all));
    }
    json_resp(status, &Value::Object(top))
}

fn current_recipes(state: &State) -> Value {
    Value::Array(
        state
            .table
            .load()
            .routes()
            .map(|r| r.recipe.echo.clone())
            .collect(),
    )
}

fn stats_json(state: &State) -> Value {
    let table = state.table.load();
    let routes: Vec<Value> = state
        .all_stats()
        .iter()
        .map(|s| {
            let by_status: Map<String, Value> =
                s.statuses().into_iter().map(|(k, n)| (k.to_string(), json!(n))).collect();
            let faults: Map<String, Value> =
                FAULT_NAMES.iter().zip(s.faults()).map(|(k, n)| (k.to_string(), json!(n))).collect();
            let h = &s.latency;
            let ms = |us: u64| us as f64 / 1000.0;
            let stage = table.get(&s.route).map(|r| match r.current_stage() {
                Some(st) => json!({"status": st.status, "latency": st.latency.describe(),
                                   "at_ms": st.at.as_millis() as u64}),
                None => json!({"status": 406, "latency": "0", "at_ms": null}),
            });
            json!({
                "route": s.route,
                "active": table.get(&s.route).is_some(),
                "stage": stage,
                "requests": by_status.values().filter_map(Value::as_u64).sum::<u64>(),
                "by_status": by_status,
                "faults": faults,
                "rejected": s.rejected.load(std::sync::atomic::Ordering::Relaxed),
                "in_flight": s.in_flight.load(std::sync::atomic::Ordering::Relaxed),
                "queued": s.queued.load(std::sync::atomic::Ordering::Relaxed),
                "latency_ms": {
                    "count": h.count(), "mean": h.mean_us() / 1000.0,
                    "p50": ms(h.quantile(0.5)), "p90": ms(h.quantile(0.9)), "p95": ms(h.quantile(0.95)),
                    "p99": ms(h.quantile(0.99)), "p999": ms(h.quantile(0.999)), "max": ms(h.max_us()),
                },
            })
        })
        .collect();
    json!({"uptime_s": state.started.elapsed().as_secs_f64(), "routes": routes})
}

fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn metrics_text(state: &State) -> String {
    use std::sync::atomic::Ordering::Relaxed;
    let all = state.all_stats();
    let mut out = String::new();
    out.push_str("# HELP loadlab_origin_requests_total Responses sent, by route and status.\n");
    out.push_str("# TYPE loadlab_origin_requests_total counter\n");
    for s in &all {
        for (status, n) in s.statuses() {
            let _ = writeln!(
                out,
                "loadlab_origin_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                label(&s.route)
            );
        }
    }
    out.push_str(
        "# HELP loadlab_origin_faults_total Requests answered with a simulated fault, by kind.\n",
    );
    out.push_str("# TYPE loadlab_origin_faults_total counter\n");
    for s in &all {
        for (kind, n) in FAULT_NAMES.iter().zip(s.faults()) {
            let _ = writeln!(
                out,
                "loadlab_origin_faults_total{{route=\"{}\",kind=\"{kind}\"}} {n}",
                label(&s.route)
            );
        }
    }
    out.push_str("# HELP loadlab_origin_rejected_total Requests refused by the capacity model.\n");
    out.push_str("# TYPE loadlab_origin_rejected_total counter\n");
    for s in &all {
        let _ = writeln!(
            out,
            "loadlab_origin_rejected_total{{route=\"{}\"}} {}",
            label(&s.route),
            s.rejected.load(Relaxed)
        );
    }
    out.push_str("# HELP loadlab_origin_in_flight Requests being served now.\n");
    out.push_str("# TYPE loadlab_origin_in_flight gauge\n");
    for s in &all {
        let _ = writeln!(
            out,
            "loadlab_origin_in_flight{{route=\"{}\"}} {}",
            label(&s.route),
            s.in_flight.load(Relaxed)
        );
    }
    out.push_str("# HELP loadlab_origin_queued Requests waiting for capacity now.\n");
    out.push_str("# TYPE loadlab_origin_queued gauge\n");
    for s in &all {
        let _ = writeln!(
            out,
            "loadlab_origin_queued{{route=\"{}\"}} {}",
            label(&s.route),
            s.queued.load(Relaxed)
        );
    }
    out.push_str("# HELP loadlab_origin_latency_seconds Time from request to response head.\n");
    out.push_str("# TYPE loadlab_origin_latency_seconds summary\n");
    for s in &all {
        let r = label(&s.route);
        for q in [0.5, 0.9, 0.99, 0.999] {
            let v = s.latency.quantile(q) as f64 / 1e6;
            let _ = writeln!(
                out,
                "loadlab_origin_latency_seconds{{route=\"{r}\",quantile=\"{q}\"}} {v}"
            );
        }
        let _ = writeln!(
            out,
            "loadlab_origin_latency_seconds_sum{{route=\"{r}\"}} {}",
            s.latency.sum_us() as f64 / 1e6
        );
        let _ = writeln!(
            out,
            "loadlab_origin_latency_seconds_count{{route=\"{r}\"}} {}",
            s.latency.count()
        );
    }
    out
}

fn text(status: StatusCode, body: String) -> Simple {
    Simple {
        status,
        content_type: HeaderValue::from_static("text/plain; charset=utf-8"),
        body: Bytes::from(body),
    }
}

fn json_resp(status: StatusCode, v: &Value) -> Simple {
    Simple {
        status,
        content_type: HeaderValue::from_static("application/json; charset=utf-8"),
        body: Bytes::from(v.to_string()),
    }
}

/// A JSON error naming the field and the reason.
pub(crate) fn error(status: StatusCode, field: &str, reason: &str) -> Simple {
    json_resp(
        status,
        &json!({"error": format!("{field}: {reason}"), "field": field, "reason": reason}),
    )
}
