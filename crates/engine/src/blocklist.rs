//! Addresses a test must not reach, as k6's `blockHostnames` and
//! `blacklistIPs` say: a host name matching a pattern is never looked up
//! nor dialled, and no connection is opened to an address inside a listed
//! range (whether it came from a lookup, from `hosts`, or from the URL).

use std::net::IpAddr;

use ipnet::IpNet;

/// The patterns and ranges of a run.
#[derive(Debug, Clone, Default)]
pub struct Blocklist {
    /// Exact names, lower-case.
    exact: Vec<String>,
    /// `*suffix` patterns: the pattern, and its suffix after the `*`.
    wildcards: Vec<(String, String)>,
    nets: Vec<IpNet>,
}

/// Whether `p` is a pattern k6 takes: an optional leading `*` or `*.`,
/// then dot-separated labels of letters, digits and inner hyphens.
fn valid_pattern(p: &str) -> bool {
    let rest = p
        .strip_prefix("*.")
        .or_else(|| p.strip_prefix('*'))
        .unwrap_or(p);
    crate::hosts::valid_labels(rest)
}

impl Blocklist {
    /// From k6's lists: host patterns (`example.com`, `*.example.com`,
    /// `*example.com`) and CIDR ranges (`10.0.0.0/8`, `fd00::/8`). An
    /// entry k6 would refuse is refused with k6's words.
    pub fn parse(hostnames: &[String], ranges: &[String]) -> Result<Blocklist, String> {
        let mut b = Blocklist::default();
        for h in hostnames {
            let p = h.to_lowercase();
            if !valid_pattern(&p) {
                return Err(format!("invalid hostname pattern '{h}'"));
            }
            match p.strip_prefix('*') {
                Some(suffix) => b.wildcards.push((p.clone(), suffix.to_string())),
                None => b.exact.push(p),
            }
        }
        for r in ranges {
            let net: IpNet = r
                .parse()
                .map_err(|_| format!("failed to parse CIDR '{r}': invalid CIDR address: {r}"))?;
            b.nets.push(net.trunc());
        }
        Ok(b)
    }

    pub fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.wildcards.is_empty() && self.nets.is_empty()
    }

    /// The pattern `host` (a name, not an IP) matches: an exact one, else
    /// the longest `*` one.
    pub fn host_match(&self, host: &str) -> Option<&str> {
        if self.exact.is_empty() && self.wildcards.is_empty() {
            return None;
        }
        let host = host.to_lowercase();
        if let Some(e) = self.exact.iter().find(|e| **e == host) {
            return Some(e);
        }
        self.wildcards
            .iter()
            .filter(|(_, suffix)| host.ends_with(suffix.as_str()))
            .max_by_key(|(_, suffix)| suffix.len())
            .map(|(p, _)| p.as_str())
    }

    /// The first listed range holding `ip`, as Go writes it (`10.0.0.0/8`).
    pub fn ip_match(&self, ip: IpAddr) -> Option<String> {
        let ip = ip.to_canonical();
        self.nets
            .iter()
            .find(|n| n.contains(&ip))
            .map(|n| n.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(h: &[&str], r: &[&str]) -> Blocklist {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        Blocklist::parse(&s(h), &s(r)).unwrap()
    }

    #[test]
    fn host_patterns_match_as_k6s() {
        let b = list(&["Example.com", "*.svc.test", "*api.test"], &[]);
        assert_eq!(b.host_match("EXAMPLE.com"), Some("example.com"));
        assert_eq!(b.host_match("a.example.com"), None);
        assert_eq!(b.host_match("x.svc.test"), Some("*.svc.test"));
        assert_eq!(b.host_match("svc.test"), None);
        assert_eq!(b.host_match("api.test"), Some("*api.test"));
        assert_eq!(b.host_match("myapi.test"), Some("*api.test"));
        assert_eq!(list(&["*"], &[]).host_match("anything"), Some("*"));
        let both = list(&["*.test", "*.svc.test"], &[]);
        assert_eq!(both.host_match("a.svc.test"), Some("*.svc.test"));
    }

    #[test]
    fn ranges_hold_addresses_and_bad_entries_are_refused() {
        let b = list(&[], &["10.0.0.0/8", "127.0.0.1/32", "fd00::/8"]);
        assert_eq!(
            b.ip_match("10.1.2.3".parse().unwrap()).as_deref(),
            Some("10.0.0.0/8")
        );
        assert_eq!(
            b.ip_match("127.0.0.1".parse().unwrap()).as_deref(),
            Some("127.0.0.1/32")
        );
        assert_eq!(
            b.ip_match("::ffff:10.0.0.1".parse().unwrap()).as_deref(),
            Some("10.0.0.0/8")
        );
        assert_eq!(
            b.ip_match("fd12::1".parse().unwrap()).as_deref(),
            Some("fd00::/8")
        );
        assert_eq!(b.ip_match("127.0.0.2".parse().unwrap()), None);
        assert_eq!(
            list(&[], &["10.1.2.3/8"])
                .ip_match("10.9.9.9".parse().unwrap())
                .as_deref(),
            Some("10.0.0.0/8")
        );
        let s = |v: &str| vec![v.to_string()];
        assert_eq!(
            Blocklist::parse(&s("bad host"), &[]).unwrap_err(),
            "invalid hostname pattern 'bad host'"
        );
        assert!(Blocklist::parse(&s("a.*.b"), &[]).is_err());
        assert!(
            Blocklist::parse(&[], &s("10.0.0.0"))
                .unwrap_err()
                .starts_with("failed to parse CIDR '10.0.0.0'")
        );
    }
}
