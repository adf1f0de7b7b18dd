//! Which of a name's addresses a new connection dials, as k6's `dns`
//! option says: the addresses of one IP version (`policy`), then one of
//! them (`select`). Without it, the engine tries every address in the
//! order the resolver gave (as Go's dialer does).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Mutex;

/// k6's `dns.select`: which address of several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DnsSelect {
    First,
    Random,
    RoundRobin,
}

/// k6's `dns.policy`: which IP version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DnsPolicy {
    PreferIpv4,
    PreferIpv6,
    OnlyIpv4,
    OnlyIpv6,
    Any,
}

impl DnsSelect {
    /// k6's names: `first`, `random`, `roundRobin`.
    pub fn parse(s: &str) -> Option<DnsSelect> {
        Some(match s {
            "first" => DnsSelect::First,
            "random" => DnsSelect::Random,
            "roundRobin" => DnsSelect::RoundRobin,
            _ => return None,
        })
    }
}

impl DnsPolicy {
    /// k6's names: `preferIPv4`, `preferIPv6`, `onlyIPv4`, `onlyIPv6`, `any`.
    pub fn parse(s: &str) -> Option<DnsPolicy> {
        Some(match s {
            "preferIPv4" => DnsPolicy::PreferIpv4,
            "preferIPv6" => DnsPolicy::PreferIpv6,
            "onlyIPv4" => DnsPolicy::OnlyIpv4,
            "onlyIPv6" => DnsPolicy::OnlyIpv6,
            "any" => DnsPolicy::Any,
            _ => return None,
        })
    }
}

/// The choice, and the round-robin turns of each name.
#[derive(Debug)]
pub struct DnsPick {
    pub select: DnsSelect,
    pub policy: DnsPolicy,
    turns: Mutex<HashMap<String, usize>>,
}

impl Clone for DnsPick {
    fn clone(&self) -> Self {
        DnsPick::new(self.select, self.policy)
    }
}

impl DnsPick {
    pub fn new(select: DnsSelect, policy: DnsPolicy) -> DnsPick {
        DnsPick {
            select,
            policy,
            turns: Mutex::new(HashMap::new()),
        }
    }

    /// The address to dial among `addrs` (those of `name`), or `None` when
    /// the policy leaves none (k6: `lookup NAME: no such host`).
    pub fn pick(&self, name: &str, addrs: &[SocketAddr]) -> Option<SocketAddr> {
        let (v4, v6): (Vec<SocketAddr>, Vec<SocketAddr>) =
            addrs.iter().partition(|a| a.ip().to_canonical().is_ipv4());
        let kept = match self.policy {
            DnsPolicy::Any => addrs.to_vec(),
            DnsPolicy::PreferIpv4 if v4.is_empty() => v6,
            DnsPolicy::PreferIpv4 | DnsPolicy::OnlyIpv4 => v4,
            DnsPolicy::PreferIpv6 if v6.is_empty() => v4,
            DnsPolicy::PreferIpv6 | DnsPolicy::OnlyIpv6 => v6,
        };
        if kept.is_empty() {
            return None;
        }
        let i = match self.select {
            DnsSelect::First => 0,
            DnsSelect::Random => rand::random_range(0..kept.len()),
            DnsSelect::RoundRobin => {
                let mut turns = self.turns.lock().expect("dns turns lock");
                let t = turns.entry(name.to_string()).or_insert(0);
                let i = *t % kept.len();
                *t += 1;
                i
            }
        };
        Some(kept[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addrs() -> Vec<SocketAddr> {
        ["[::1]:80", "127.0.0.1:80", "[::2]:80", "127.0.0.2:80"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect()
    }

    #[test]
    fn policies_keep_one_version_as_k6() {
        let a = addrs();
        let first = |p| {
            DnsPick::new(DnsSelect::First, p)
                .pick("h", &a)
                .unwrap()
                .to_string()
        };
        assert_eq!(first(DnsPolicy::PreferIpv4), "127.0.0.1:80");
        assert_eq!(first(DnsPolicy::OnlyIpv4), "127.0.0.1:80");
        assert_eq!(first(DnsPolicy::PreferIpv6), "[::1]:80");
        assert_eq!(first(DnsPolicy::OnlyIpv6), "[::1]:80");
        assert_eq!(first(DnsPolicy::Any), "[::1]:80");
        let v4: Vec<SocketAddr> = vec!["127.0.0.1:80".parse().unwrap()];
        let only6 = DnsPick::new(DnsSelect::First, DnsPolicy::OnlyIpv6);
        assert_eq!(only6.pick("h", &v4), None);
        let prefer6 = DnsPick::new(DnsSelect::First, DnsPolicy::PreferIpv6);
        assert_eq!(prefer6.pick("h", &v4), Some(v4[0]));
    }

    #[test]
    fn round_robin_turns_per_name_and_random_stays_in_the_set() {
        let a = addrs();
        let rr = DnsPick::new(DnsSelect::RoundRobin, DnsPolicy::OnlyIpv4);
        let got: Vec<String> = (0..3)
            .map(|_| rr.pick("h", &a).unwrap().to_string())
            .collect();
        assert_eq!(got, ["127.0.0.1:80", "127.0.0.2:80", "127.0.0.1:80"]);
        assert_eq!(rr.pick("other", &a).unwrap().to_string(), "127.0.0.1:80");
        let r = DnsPick::new(DnsSelect::Random, DnsPolicy::OnlyIpv6);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            let p = r.pick("h", &a).unwrap();
            assert!(p.is_ipv6());
            seen.insert(p);
        }
        assert_eq!(seen.len(), 2);
    }

    #[test]
    fn names_are_k6s() {
        assert_eq!(DnsSelect::parse("roundRobin"), Some(DnsSelect::RoundRobin));
        assert_eq!(DnsSelect::parse("roundrobin"), None);
        assert_eq!(DnsPolicy::parse("onlyIPv6"), Some(DnsPolicy::OnlyIpv6));
        assert_eq!(DnsPolicy::parse("ipv6"), None);
    }
}
