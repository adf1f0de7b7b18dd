//! The dashboard for `loadlab k6 run`, switched on as k6's web dashboard
//! is: `--out web-dashboard[=port=P&host=H&export=FILE]`, or
//! `K6_WEB_DASHBOARD=true` with `K6_WEB_DASHBOARD_PORT` (5665 by default;
//! -1: no server, only the export), `K6_WEB_DASHBOARD_HOST` (127.0.0.1 by
//! default here) and `K6_WEB_DASHBOARD_EXPORT`. The run's registry gives
//! the figures (see `loadlab_script::live_view`).

use std::sync::Arc;

use serde_json::Value;

use super::Options;
use super::hub::Hub;
use crate::exit::CliError;

/// k6's default port for its web dashboard.
const K6_PORT: i64 = 5665;

/// The dashboard's options from the `--out` list and k6's variables
/// (`env`); `None` when it is not asked for.
pub fn options(
    outs: &[String],
    env: impl Fn(&str) -> Option<String>,
) -> Result<Option<Options>, CliError> {
    let from_out = outs.iter().find_map(|o| {
        (o == "web-dashboard")
            .then_some("")
            .or_else(|| o.strip_prefix("web-dashboard="))
    });
    // Read as k6 reads it (Go's ParseBool).
    let on = from_out.is_some()
        || env("K6_WEB_DASHBOARD")
            .is_some_and(|v| matches!(v.as_str(), "1" | "t" | "T" | "TRUE" | "true" | "True"));
    if !on {
        return Ok(None);
    }
    let (mut port, mut host, mut export) = (
        env("K6_WEB_DASHBOARD_PORT"),
        env("K6_WEB_DASHBOARD_HOST"),
        env("K6_WEB_DASHBOARD_EXPORT"),
    );
    for kv in from_out.unwrap_or("").split('&').filter(|s| !s.is_empty()) {
        match kv.split_once('=') {
            Some(("port", v)) => port = Some(v.to_string()),
            Some(("host", v)) => host = Some(v.to_string()),
            Some(("export", v)) => export = Some(v.to_string()),
            // k6's other settings (period, open, tag, ...) change nothing here.
            Some(_) => {}
            None => {
                return Err(CliError::usage(format!(
                    "--out web-dashboard={kv:?}: expected NAME=VALUE (port, host, export)"
                )));
            }
        }
    }
    let port: i64 = match port.as_deref().filter(|p| !p.is_empty()) {
        None => K6_PORT,
        Some(p) => p.parse().ok().filter(|p| (-1..=65535).contains(p)).ok_or_else(|| {
            CliError::usage(format!(
                "web dashboard port {p:?}: expected a port number (0 for a free one, -1 for none)"
            ))
        })?,
    };
    let host = host
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "127.0.0.1".into());
    let host = if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]")
    } else {
        host
    };
    Ok(Some(Options {
        addr: (port >= 0).then(|| format!("{host}:{port}")),
        token: env("LOADLAB_DASHBOARD_TOKEN"),
        export: export.filter(|e| !e.is_empty()).map(Into::into),
    }))
}

/// The script run's live output: the hub.
pub struct HubOut(pub Arc<Hub>);

impl std::fmt::Debug for HubOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("HubOut")
    }
}

impl loadlab_script::live_view::LiveOut for HubOut {
    fn wanted(&self) -> bool {
        self.0.wanted()
    }
    fn publish(&self, point: Value, totals: Value) {
        self.0.publish(Some(point), totals);
    }
    fn finish(&self, totals: Value) {
        self.0.finish(totals);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn k6s_switches() {
        assert!(options(&[], env(&[])).unwrap().is_none());
        let o = options(&["web-dashboard".into()], env(&[]))
            .unwrap()
            .unwrap();
        assert_eq!(o.addr.as_deref(), Some("127.0.0.1:5665"));
        let o = options(
            &[],
            env(&[
                ("K6_WEB_DASHBOARD", "true"),
                ("K6_WEB_DASHBOARD_PORT", "-1"),
                ("K6_WEB_DASHBOARD_EXPORT", "r.html"),
            ]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.addr, None);
        assert_eq!(o.export.unwrap().to_str(), Some("r.html"));
        let o = options(
            &["web-dashboard=port=0&export=x.html".into()],
            env(&[("K6_WEB_DASHBOARD_PORT", "7000")]),
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.addr.as_deref(), Some("127.0.0.1:0"));
        assert!(options(&["web-dashboard=port=http".into()], env(&[])).is_err());
    }
}
