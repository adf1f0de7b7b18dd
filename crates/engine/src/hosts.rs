//! Host name overrides, as k6's `hosts` option gives them: a name (or
//! `name:port`, or a `*.suffix` pattern) dialled at a fixed IP address (and
//! port), while the request keeps its name (Host field, TLS server name).
//!
//! Lookup as k6 does it: `host:port` first, then `host`; an exact key
//! before a pattern, the longest pattern first. A value without a port
//! keeps the URL's port.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};

/// Where an overridden name is dialled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostTarget {
    pub ip: IpAddr,
    pub port: Option<u16>,
}

/// The overrides of a run.
#[derive(Debug, Clone, Default)]
pub struct HostOverrides {
    exact: HashMap<String, HostTarget>,
    /// `*suffix` patterns: the suffix (after the `*`), longest first.
    patterns: Vec<(String, HostTarget)>,
}

/// Whether `key` is a host pattern k6 takes: an optional leading `*` or
/// `*.`, labels of letters, digits and inner hyphens, an optional `:port`.
fn valid_pattern(key: &str) -> bool {
    let rest = key
        .strip_prefix("*.")
        .or_else(|| key.strip_prefix('*'))
        .unwrap_or(key);
    let (names, port) = match rest.rsplit_once(':') {
        Some((n, p)) => (n, Some(p)),
        None => (rest, None),
    };
    if let Some(p) = port
        && (p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return false;
    }
    valid_labels(names)
}

/// Empty, or dot-separated labels of letters, digits and inner hyphens
/// (the part of a k6 host pattern after its `*`).
pub(crate) fn valid_labels(names: &str) -> bool {
    names.is_empty()
        || names.split('.').all(|l| {
            !l.is_empty()
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

/// An override's value: `IP` or `IP:port` (`[v6]:port`).
fn parse_target(value: &str) -> Option<HostTarget> {
    if let Ok(ip) = value.parse::<IpAddr>() {
        return Some(HostTarget { ip, port: None });
    }
    let sa: SocketAddr = value.parse().ok()?;
    Some(HostTarget {
        ip: sa.ip(),
        port: Some(sa.port()),
    })
}

impl HostOverrides {
    /// Reads `(name or pattern, IP[:port])` pairs; the error names the
    /// entry, in k6's words.
    pub fn parse(entries: &[(String, String)]) -> Result<HostOverrides, String> {
        let mut h = HostOverrides::default();
        for (k, v) in entries {
            let key = k.to_ascii_lowercase();
            if !valid_pattern(&key) {
                return Err(format!("invalid host pattern '{k}'"));
            }
            let target = parse_target(v)
                .ok_or_else(|| format!("hosts[{k:?}]: {v:?} is not an IP address (or IP:port)"))?;
            match key.strip_prefix('*') {
                Some(suffix) => h.patterns.push((suffix.to_string(), target)),
                None => {
                    h.exact.insert(key, target);
                }
            }
        }
        h.patterns.sort_by_key(|p| std::cmp::Reverse(p.0.len()));
        Ok(h)
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.patterns.is_empty()
    }

    fn find(&self, s: &str) -> Option<HostTarget> {
        if let Some(t) = self.exact.get(s) {
            return Some(*t);
        }
        self.patterns
            .iter()
            .find(|(suffix, _)| s.ends_with(suffix.as_str()))
            .map(|(_, t)| *t)
    }

    /// The address to dial for `host` (lower case, no brackets) on `port`,
    /// when an override names it.
    pub fn lookup(&self, host: &str, port: u16) -> Option<SocketAddr> {
        if self.is_empty() {
            return None;
        }
        let host = host.to_ascii_lowercase();
        let with_port = if host.contains(':') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let t = self.find(&with_port).or_else(|| self.find(&host))?;
        Some(SocketAddr::new(t.ip, t.port.unwrap_or(port)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hosts(pairs: &[(&str, &str)]) -> Result<HostOverrides, String> {
        HostOverrides::parse(
            &pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn names_ports_and_patterns_resolve_as_in_k6() {
        let h = hosts(&[
            ("test.k6.io", "127.0.0.2"),
            ("test.k6.io:8443", "127.0.0.3:9000"),
            ("*.example.com", "127.0.0.4:81"),
            ("*.api.example.com", "127.0.0.5"),
            ("Upper.Case", "::1"),
        ])
        .unwrap();
        let at = |h: &HostOverrides, host: &str, port| h.lookup(host, port).map(|a| a.to_string());
        assert_eq!(at(&h, "test.k6.io", 443).as_deref(), Some("127.0.0.2:443"));
        assert_eq!(
            at(&h, "TEST.k6.io", 8443).as_deref(),
            Some("127.0.0.3:9000")
        );
        assert_eq!(at(&h, "a.example.com", 80).as_deref(), Some("127.0.0.4:81"));
        // The longest pattern wins.
        assert_eq!(
            at(&h, "v1.api.example.com", 80).as_deref(),
            Some("127.0.0.5:80")
        );
        assert_eq!(at(&h, "example.com", 80), None);
        assert_eq!(at(&h, "upper.case", 80).as_deref(), Some("[::1]:80"));
        assert_eq!(at(&h, "other.org", 80), None);
    }

    #[test]
    fn bad_entries_are_refused_naming_them() {
        assert_eq!(
            hosts(&[("bad host", "127.0.0.1")]).unwrap_err(),
            "invalid host pattern 'bad host'"
        );
        assert!(
            hosts(&[("a.b", "not-an-ip")])
                .unwrap_err()
                .contains("\"not-an-ip\" is not an IP address")
        );
        assert!(hosts(&[("a.b:99999x", "127.0.0.1")]).is_err());
        assert!(hosts(&[("-a.b", "127.0.0.1")]).is_err());
    }
}
