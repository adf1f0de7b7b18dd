//! The options of the network under the requests: `dns`, and the TLS
//! versions and cipher suites offered.

use std::time::Duration;

use serde_json::Value;

use super::values::bad;
use crate::ScriptError;
use loadlab_engine::dns_pick::{DnsPolicy, DnsSelect};

/// k6's TLS versions, by its names, as wire numbers (`""`: any).
pub(crate) fn tls_version(v: &Value, what: &str) -> Result<u16, ScriptError> {
    match v {
        Value::Null => Ok(0),
        Value::String(s) => match s.as_str() {
            "" => Ok(0),
            "tls1.0" => Ok(0x0301),
            "tls1.1" => Ok(0x0302),
            "tls1.2" => Ok(0x0303),
            "tls1.3" => Ok(0x0304),
            _ => Err(bad(format!("{what}: unknown TLS version '{s}'"))),
        },
        v => Err(bad(format!(
            "{what}: {v} is not a TLS version (\"tls1.2\")"
        ))),
    }
}

/// The cipher suites k6 knows by name (Go's), TLS 1.3's last.
pub(crate) const K6_CIPHER_SUITES: [&str; 25] = [
    "TLS_RSA_WITH_RC4_128_SHA",
    "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA",
    "TLS_RSA_WITH_AES_256_CBC_SHA",
    "TLS_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_RC4_128_SHA",
    "TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
    "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
    "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
    "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256",
    "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305",
    "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256",
    "TLS_AES_128_GCM_SHA256",
    "TLS_AES_256_GCM_SHA384",
    "TLS_CHACHA20_POLY1305_SHA256",
];

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
