//! k6's `--local-ips` / `K6_LOCAL_IPS`: the source addresses VUs dial
//! from. A comma-separated list of IPs, ranges (`10.0.0.1-10.0.0.9`) and
//! CIDRs (`10.0.0.0/29`; for IPv4 blocks of more than two addresses the
//! network and broadcast addresses are left out), given out in order: VU
//! `n` (1-based, as k6 numbers them) dials from address `n - 1`, modulo
//! the pool's size. Errors in k6's words.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// One block: its first address as a number, how many, which family.
#[derive(Debug, Clone, PartialEq)]
struct Block {
    first: u128,
    count: u128,
    v6: bool,
}

/// The pool, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct IpPool {
    blocks: Vec<Block>,
    total: u128,
}

fn num(ip: IpAddr) -> (u128, bool) {
    match ip {
        IpAddr::V4(a) => (u128::from(u32::from(a)), false),
        IpAddr::V6(a) => (u128::from(a), true),
    }
}

fn range(s: &str) -> Result<Block, String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let (Ok(a), Ok(b)) = (a.parse::<IpAddr>(), b.parse::<IpAddr>()) else {
        return Err(format!("wrong IP range format: {s}"));
    };
    let ((a, v6a), (b, v6b)) = (num(a), num(b));
    if v6a != v6b {
        return Err(format!("mixed IP range format: {s}"));
    }
    if b < a {
        return Err(format!("negative IP range: {s}"));
    }
    Ok(Block {
        first: a,
        count: b - a + 1,
        v6: v6a,
    })
}

fn cidr(s: &str) -> Result<Block, String> {
    let net: ipnet::IpNet = s
        .parse()
        .map_err(|e| format!("parseCIDR() failed parsing {s}: invalid CIDR address: {s} ({e})"))?;
    let (first, v6) = num(net.network());
    let (last, _) = num(net.broadcast());
    let mut b = Block {
        first,
        count: last - first + 1,
        v6,
    };
    if !v6 && b.count > 2 {
        b.count -= 2;
        b.first += 1;
    }
    Ok(b)
}

impl IpPool {
    pub fn parse(text: &str) -> Result<IpPool, String> {
        let mut blocks = Vec::new();
        let mut total: u128 = 0;
        for s in text.split(',') {
            let b = if s.contains('-') {
                range(s)?
            } else if s.contains('/') {
                cidr(s)?
            } else if s.parse::<IpAddr>().is_err() {
                return Err(format!("{s} is not a valid IP, IP range or CIDR"));
            } else {
                range(s)?
            };
            total = total.saturating_add(b.count);
            blocks.push(b);
        }
        Ok(IpPool { blocks, total })
    }

    /// The address of index `i` (modulo the pool's size).
    pub fn get(&self, i: u64) -> IpAddr {
        let mut i = u128::from(i) % self.total.max(1);
        for b in &self.blocks {
            if i < b.count {
                let n = b.first + i;
                return if b.v6 {
                    IpAddr::V6(Ipv6Addr::from(n))
                } else {
                    IpAddr::V4(Ipv4Addr::from(n as u32))
                };
            }
            i -= b.count;
        }
        IpAddr::V4(Ipv4Addr::UNSPECIFIED)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_in_order_as_k6_gives_them_out() {
        let p = IpPool::parse("10.0.0.1-10.0.0.2,192.168.0.0/30,::1,10.9.9.9").unwrap();
        let got: Vec<String> = (0..7).map(|i| p.get(i).to_string()).collect();
        // A /30 keeps its two hosts (network and broadcast left out).
        assert_eq!(
            got,
            [
                "10.0.0.1",
                "10.0.0.2",
                "192.168.0.1",
                "192.168.0.2",
                "::1",
                "10.9.9.9",
                "10.0.0.1"
            ]
        );
        let p = IpPool::parse("10.0.0.4/31").unwrap();
        assert_eq!(p.get(1).to_string(), "10.0.0.5");
        for (bad, want) in [
            ("x", "x is not a valid IP, IP range or CIDR"),
            ("10.0.0.2-10.0.0.1", "negative IP range: 10.0.0.2-10.0.0.1"),
            ("10.0.0.1-::1", "mixed IP range format: 10.0.0.1-::1"),
            ("10.0.0.1-x", "wrong IP range format: 10.0.0.1-x"),
        ] {
            assert_eq!(IpPool::parse(bad).unwrap_err(), want);
        }
        assert!(
            IpPool::parse("10.0.0.0/33")
                .unwrap_err()
                .starts_with("parseCIDR() failed")
        );
    }
}
