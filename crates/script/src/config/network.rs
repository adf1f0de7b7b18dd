//! The options of the network under the requests: `dns`, and the TLS
//! versions and cipher suites offered.

use std::time::Duration;

use serde_json::Value;

use super::flags::Overrides;
use super::values::{Layered, bad};
use crate::ScriptError;
use loadlab_engine::dns_pick::{DnsPolicy, DnsSelect};

/// k6's `dns` option: how long a lookup is kept, and which of a name's
/// addresses a new connection dials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DnsOptions {
    pub ttl: loadlab_engine::config::DnsCache,
    pub select: DnsSelect,
    pub policy: DnsPolicy,
}

impl Default for DnsOptions {
    /// k6's: `ttl=5m,select=random,policy=preferIPv4`.
    fn default() -> Self {
        DnsOptions {
            ttl: loadlab_engine::config::DnsCache::For(Duration::from_secs(300)),
            select: DnsSelect::Random,
            policy: DnsPolicy::PreferIpv4,
        }
    }
}

/// The fields of k6's `dns` text (`--dns`, `K6_DNS`):
/// `ttl=1m,select=first,policy=any`, each checked as k6 checks it.
pub fn dns_text_fields(text: &str) -> Result<serde_json::Map<String, Value>, String> {
    let mut m = serde_json::Map::new();
    for item in text.split(',') {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        if v.is_empty() {
            return Err(format!("no value for key {item}"));
        }
        if !DnsOptions::default().set(k, v)? {
            return Err(format!("unknown DNS configuration field: {k}"));
        }
        m.insert(k.to_string(), Value::String(v.to_string()));
    }
    Ok(m)
}

impl DnsOptions {
    /// Sets field `k` (`ttl`, `select` or `policy`) from its text as k6
    /// reads it; `Ok(false)` for a key that is none of them.
    pub(crate) fn set(&mut self, k: &str, v: &str) -> Result<bool, String> {
        match k {
            "ttl" => self.ttl = dns_ttl(v)?,
            "select" => {
                self.select = DnsSelect::parse(v).ok_or_else(|| {
                    format!("{v} does not belong to DNSSelect values (first, random, roundRobin)")
                })?
            }
            "policy" => {
                self.policy = DnsPolicy::parse(v).ok_or_else(|| {
                    format!(
                        "{v} does not belong to DNSPolicy values (preferIPv4, preferIPv6, \
                         onlyIPv4, onlyIPv6, any)"
                    )
                })?
            }
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// k6's DNS TTL: `inf` (kept for the whole test), `0` (never kept), a
/// duration (`1m`, `1d2h`), or a number of milliseconds.
fn dns_ttl(v: &str) -> Result<loadlab_engine::config::DnsCache, String> {
    use loadlab_engine::config::DnsCache;
    let bad = || format!("invalid DNS TTL: {v}");
    let d = match v {
        "inf" => return Ok(DnsCache::Forever),
        "0" => return Ok(DnsCache::Off),
        _ => {
            if let Ok(ms) = v.parse::<f64>() {
                if !(ms >= 0.0 && ms.is_finite()) {
                    return Err(bad());
                }
                Duration::from_secs_f64(ms / 1000.0)
            } else if let Some((days, rest)) = v.split_once('d') {
                let days: u64 = days.parse().map_err(|_| bad())?;
                let rest = if rest.is_empty() {
                    Duration::ZERO
                } else {
                    loadlab_core::duration::parse_go_duration(rest).map_err(|_| bad())?
                };
                Duration::from_secs(days * 86_400) + rest
            } else {
                loadlab_core::duration::parse_go_duration(v).map_err(|_| bad())?
            }
        }
    };
    Ok(if d.is_zero() {
        DnsCache::Off
    } else {
        DnsCache::For(d)
    })
}

/// `dns`: the flag's fields over the script's (and `K6_DNS`'s), each
/// over k6's default.
pub(crate) fn dns(opts: Layered, o: &Overrides) -> Result<DnsOptions, ScriptError> {
    Ok({
        let mut fields = match opts.get("dns") {
            None => serde_json::Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(v) => {
                return Err(bad(format!(
                    "options.dns: {v} is not an object (ttl, select, policy)"
                )));
            }
        };
        if let Some(t) = &o.dns {
            fields.extend(dns_text_fields(t).map_err(|e| bad(format!("--dns {t:?}: {e}")))?);
        }
        let mut d = DnsOptions::default();
        for (k, v) in &fields {
            let v = match v {
                Value::Null => continue,
                Value::String(s) => s.as_str(),
                v => {
                    return Err(bad(format!("options.dns.{k}: {v} is not a string")));
                }
            };
            // An empty ttl is k6's default; keys k6 does not know are
            // ignored, as k6 ignores them.
            if !(k == "ttl" && v.is_empty()) {
                d.set(k, v)
                    .map_err(|e| bad(format!("options.dns.{k}: {e}")))?;
            }
        }
        d
    })
}

/// `blockHostnames`, `blacklistIPs`: lists (a flag replaces the
/// script's), checked as k6 checks them.
pub(crate) fn blocklist(
    opts: Layered,
    o: &Overrides,
) -> Result<loadlab_engine::blocklist::Blocklist, ScriptError> {
    let list = |k: &str, flag: &Option<Vec<String>>| -> Result<Vec<String>, ScriptError> {
        if let Some(f) = flag {
            return Ok(f.clone());
        }
        match opts.get(k) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    v => Err(bad(format!("options.{k}: {v} is not a string"))),
                })
                .collect(),
            Some(v) => Err(bad(format!("options.{k}: {v} is not a list"))),
        }
    };
    loadlab_engine::blocklist::Blocklist::parse(
        &list("blockHostnames", &o.block_hostnames)?,
        &list("blacklistIPs", &o.blacklist_ips)?,
    )
    .map_err(bad)
}

/// `hosts`: names dialled at fixed addresses.
pub(crate) fn hosts(opts: Layered) -> Result<loadlab_engine::hosts::HostOverrides, ScriptError> {
    Ok(match opts.get("hosts") {
        None => Default::default(),
        Some(Value::Object(m)) => {
            let mut pairs = Vec::with_capacity(m.len());
            for (k, v) in m {
                let Value::String(v) = v else {
                    return Err(bad(format!(
                        "options.hosts[{k:?}]: {v} is not a string (an IP address, or IP:port)"
                    )));
                };
                pairs.push((k.clone(), v.clone()));
            }
            loadlab_engine::hosts::HostOverrides::parse(&pairs)
                .map_err(|e| bad(format!("options.hosts: {e}")))?
        }
        Some(v) => {
            return Err(bad(format!(
                "options.hosts: {v} is not an object of names and addresses"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Overrides};
    use serde_json::json;

    /// `dns`: k6's default; the flag's fields over `K6_DNS`'s over the
    /// script's, each alone; k6's checks and words.
    #[test]
    fn dns_layers_and_checks_as_k6() {
        use loadlab_engine::config::DnsCache;
        let d = |raw: serde_json::Value, o: Overrides| Options::resolve(&raw, &o).map(|o| o.dns);
        assert_eq!(
            d(json!({}), Overrides::default()).unwrap(),
            DnsOptions {
                ttl: DnsCache::For(Duration::from_secs(300)),
                select: DnsSelect::Random,
                policy: DnsPolicy::PreferIpv4,
            }
        );
        let script = json!({"dns": {"ttl": "1d2h", "select": "first", "policy": null}});
        let got = d(script.clone(), Overrides::default()).unwrap();
        assert_eq!(got.ttl, DnsCache::For(Duration::from_secs(26 * 3600)));
        assert_eq!(
            (got.select, got.policy),
            (DnsSelect::First, DnsPolicy::PreferIpv4)
        );
        let env = Overrides {
            env: vec![("K6_DNS".into(), "policy=onlyIPv6,ttl=0".into())],
            ..Default::default()
        };
        let got = d(script.clone(), env.clone()).unwrap();
        assert_eq!(
            (got.ttl, got.select, got.policy),
            (DnsCache::Off, DnsSelect::First, DnsPolicy::OnlyIpv6)
        );
        let flag = Overrides {
            dns: Some("ttl=inf,select=roundRobin".into()),
            ..env
        };
        let got = d(script, flag).unwrap();
        assert_eq!(
            (got.ttl, got.select, got.policy),
            (
                DnsCache::Forever,
                DnsSelect::RoundRobin,
                DnsPolicy::OnlyIpv6
            )
        );
        assert_eq!(
            d(json!({"dns": {"ttl": "250"}}), Overrides::default())
                .unwrap()
                .ttl,
            DnsCache::For(Duration::from_millis(250))
        );
        for (raw, o, want) in [
            (
                json!({"dns": {"ttl": "-1s"}}),
                Overrides::default(),
                "invalid DNS TTL: -1s",
            ),
            (
                json!({"dns": {"select": "last"}}),
                Overrides::default(),
                "last does not belong to DNSSelect",
            ),
            (
                json!({"dns": {"ttl": 5}}),
                Overrides::default(),
                "options.dns.ttl: 5 is not a string",
            ),
            (
                json!({"dns": "ttl=1m"}),
                Overrides::default(),
                "options.dns: \"ttl=1m\" is not an object",
            ),
            (
                json!({}),
                Overrides {
                    dns: Some("ttl".into()),
                    ..Default::default()
                },
                "no value for key ttl",
            ),
            (
                json!({}),
                Overrides {
                    env: vec![("K6_DNS".into(), "selec=first".into())],
                    ..Default::default()
                },
                "unknown DNS configuration field: selec",
            ),
        ] {
            let e = d(raw, o).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }
}
