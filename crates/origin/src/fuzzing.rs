//! What the `recipe`, `origin_http1` and `origin_admin` fuzz targets check
//! (`fuzz/fuzz_targets/`), shared with the corpus replay test
//! (`tests/it/fuzz_corpus.rs`) so that a plain `cargo test` keeps the committed
//! corpora green. Not a public API.

use std::net::SocketAddr;

use bytes::Bytes;
use http::{HeaderMap, Method, StatusCode};

use crate::admin::{self, AdminBody};
use crate::http1::{MAX_HEAD, Parse, parse_head};
use crate::recipe::{FaultKind, MAX_PAYLOAD, Recipe, Source, parse_recipes, placeholder_total};
use crate::state::State;

/// Parses `data` as a recipe (or list of recipes) and checks:
/// * no panic; a refusal has a message;
/// * what is accepted is valid: routes start with `/` and are unique in a
///   list, stages are sorted, rates are shares in 0..=1 (fault rates add up
///   to at most 1), sizes are within [`MAX_PAYLOAD`], slow faults have a
///   positive speed;
/// * the recipe as `current_recipe` echoes it parses back to the same recipe.
pub fn check_recipes(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let recipes = match parse_recipes(text) {
        Ok(r) => r,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    assert!(!recipes.is_empty());
    for (i, r) in recipes.iter().enumerate() {
        assert!(
            recipes[..i].iter().all(|p| p.route != r.route),
            "route {:?} twice",
            r.route
        );
        check_recipe(r);
        let echo = r.echo.to_string();
        let again = parse_recipes(&echo).unwrap_or_else(|e| panic!("echo {echo} refused: {e}"));
        assert_eq!(again.len(), 1);
        assert_eq!(again[0], *r, "echo {echo}");
    }
}

fn share(x: f64) -> bool {
    (0.0..=1.0).contains(&x)
}

fn check_recipe(r: &Recipe) {
    assert!(r.route.starts_with('/'), "route {:?}", r.route);
    match &r.source {
        Source::Body(b) => {
            let n = placeholder_total(b).expect("an accepted body expands");
            assert!(n <= MAX_PAYLOAD);
        }
        Source::Random(n) => assert!(*n <= MAX_PAYLOAD),
        Source::Origin(o) => assert!(o.starts_with("http://") || o.starts_with("https://")),
    }
    assert!(!r.stages.is_empty());
    assert!(r.stages.windows(2).all(|w| w[0].at <= w[1].at));
    for s in &r.stages {
        let _ = s.latency.describe();
        if let Some(e) = &s.errors {
            assert!(share(e.rate), "error rate {}", e.rate);
        }
        let mut total = 0.0;
        for f in &s.faults {
            assert!(share(f.rate), "fault rate {}", f.rate);
            total += f.rate;
            match f.kind {
                FaultKind::Slow(bps) => assert!(bps > 0, "slow fault at 0 bytes/s"),
                FaultKind::Truncate(keep) => assert!(share(keep), "truncate keep {keep}"),
                _ => {}
            }
        }
        assert!(total <= 1.0 + 1e-9, "fault rates add up to {total}");
    }
    if let Some(c) = &r.capacity {
        assert!(c.concurrency > 0);
    }
}

/// Parses `data` as the origin's HTTP/1 connection loop does: a request
/// head, then (skipping a `Content-Length` body) the next pipelined head,
/// and so on. Checks:
/// * no panic, and the loop advances;
/// * a complete head lies within the bytes given and within the limit;
/// * a head that parses whole also parses whole, with the same length, when
///   more bytes follow it, and any prefix of it is partial or refused,
///   never complete;
/// * an error is a 4xx status.
pub fn check_http1(data: &[u8]) {
    let mut path = String::new();
    let mut rest = data;
    let mut heads = 0;
    loop {
        match parse_head(rest, &mut path) {
            Parse::Complete(h) => {
                heads += 1;
                assert!(heads <= data.len(), "the parser does not advance");
                assert!(h.len > 0 && h.len <= rest.len() && h.len <= MAX_HEAD);
                let _ = (
                    h.http11,
                    h.close,
                    h.keep_alive,
                    h.expect_continue,
                    &h.method,
                );
                assert_eq!(
                    h.admin_headers.is_some(),
                    admin::is_admin(&path),
                    "path {path:?}"
                );
                // The same head with more bytes after it.
                let mut more = rest[..h.len].to_vec();
                more.extend_from_slice(b"GET / HTTP/1.1\r\n");
                let mut p2 = String::new();
                match parse_head(&more, &mut p2) {
                    Parse::Complete(h2) => {
                        assert_eq!(h2.len, h.len);
                        assert_eq!(p2, path);
                    }
                    _ => panic!("a complete head is no longer complete with bytes after it"),
                }
                // A prefix of it.
                for cut in [h.len - 1, h.len / 2] {
                    if let Parse::Complete(_) = parse_head(&rest[..cut], &mut p2) {
                        panic!("{cut} bytes of a {}-byte head parse complete", h.len);
                    }
                }
                rest = &rest[h.len..];
                if !h.chunked {
                    let body = usize::try_from(h.content_length).unwrap_or(usize::MAX);
                    rest = &rest[body.min(rest.len())..];
                }
                if rest.is_empty() || h.chunked {
                    return;
                }
            }
            Parse::Partial => {
                assert!(rest.len() <= MAX_HEAD);
                return;
            }
            Parse::Error(status) => {
                assert!(status.is_client_error(), "{status}");
                return;
            }
        }
    }
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a current-thread runtime");
}

/// Bigger payloads would make each run slow (and go to memfd files).
const ADMIN_PAYLOAD_MAX: u64 = 8 * 1024;

/// Posts `data` to `/_admin/add_recipe` of a fresh origin state, as a
/// loopback client would, then reads every admin endpoint. Checks:
/// * no panic;
/// * the answer is 201 with the routes now served (every posted route is
///   in `current_recipe` and `routes`), or 400 with a JSON error naming a
///   field;
/// * every JSON answer is valid JSON.
///
/// Recipes that would fetch an origin are not posted (that would go to the
/// network), nor recipes whose payload is over 8 KiB (slow); their parse is
/// checked by [`check_recipes`].
pub fn check_admin(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(recipes) = parse_recipes(text)
        && recipes.iter().any(|r| match &r.source {
            Source::Origin(_) => true,
            Source::Random(n) => *n > ADMIN_PAYLOAD_MAX,
            Source::Body(b) => placeholder_total(b).map_or(true, |n| n > ADMIN_PAYLOAD_MAX),
        })
    {
        return;
    }
    RUNTIME.with(|rt| rt.block_on(admin_session(data)));
}

async fn admin_session(data: &[u8]) {
    let (_tx, stop) = tokio::sync::watch::channel(false);
    let state = State::build(crate::OriginConfig::default(), stop)
        .await
        .expect("the default recipe loads");
    let peer: SocketAddr = "127.0.0.1:1".parse().expect("an address");
    let headers = HeaderMap::new();
    let post = |path: &'static str, body: AdminBody| {
        let state = &state;
        let headers = &headers;
        async move { admin::handle(&Method::POST, path, headers, body, state, peer).await }
    };
    let get = |path: &'static str| {
        let state = &state;
        let headers = &headers;
        async move {
            admin::handle(
                &Method::GET,
                path,
                headers,
                AdminBody::Data(Bytes::new()),
                state,
                peer,
            )
            .await
        }
    };
    let json = |b: &Bytes| -> serde_json::Value {
        serde_json::from_slice(b).unwrap_or_else(|e| panic!("not JSON ({e}): {b:?}"))
    };

    let answer = post(
        "/_admin/add_recipe",
        AdminBody::Data(Bytes::copy_from_slice(data)),
    )
    .await;
    let v = json(&answer.body);
    match answer.status {
        StatusCode::CREATED => {
            let posted = parse_recipes(std::str::from_utf8(data).expect("accepted: UTF-8"))
                .expect("accepted: parses");
            let current = get("/_admin/current_recipe").await;
            assert_eq!(json(&current.body), v);
            let routes = get("/_admin/routes").await;
            let routes = std::str::from_utf8(&routes.body).expect("UTF-8 routes");
            for r in &posted {
                assert!(
                    routes.lines().any(|l| l == r.route),
                    "{} not in {routes:?}",
                    r.route
                );
            }
        }
        StatusCode::BAD_REQUEST => {
            assert!(v.get("field").is_some_and(|f| f.is_string()), "{v}");
            assert!(v.get("error").is_some_and(|f| f.is_string()), "{v}");
        }
        other => panic!("add_recipe answered {other}: {v}"),
    }
    for path in ["/_admin/routes_status", "/_admin/metrics", "/_admin/status"] {
        let a = get(path).await;
        assert_eq!(a.status, StatusCode::OK, "{path}");
        assert!(std::str::from_utf8(&a.body).is_ok(), "{path}");
    }
    for path in ["/_admin/current_count", "/_admin/stats"] {
        let a = get(path).await;
        assert_eq!(a.status, StatusCode::OK, "{path}");
        let _ = json(&a.body);
    }
    let cleared = get("/_admin/restart").await;
    assert_eq!(cleared.status, StatusCode::OK);
}
