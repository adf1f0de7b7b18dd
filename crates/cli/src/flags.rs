//! Typed values for Go-style flags, parsed once at the edge (clap value parsers).

use std::time::Duration;

use loadlab_core::{Rate, parse_go_duration, parse_size};

pub fn duration(s: &str) -> Result<Duration, String> {
    parse_go_duration(s).map_err(|e| e.to_string())
}

/// `-segment=i/n` (0-based i, as Kubernetes' `JOB_COMPLETION_INDEX`).
pub fn segment(s: &str) -> Result<loadlab_core::ScheduleSegment, String> {
    loadlab_core::ScheduleSegment::parse(s).map_err(|e| e.to_string())
}

/// `-start-at`: RFC 3339 or Unix seconds, as ns since the epoch (see
/// [`loadlab_metrics::timefmt::parse_start_at`]).
pub fn start_at(s: &str) -> Result<u64, String> {
    loadlab_metrics::timefmt::parse_start_at(s)
}

pub fn rate(s: &str) -> Result<Rate, String> {
    Rate::parse(s).map_err(|e| e.to_string())
}

/// `-max-body`: -1 (everything), or a size such as `0`, `512`, `10kb`.
pub fn max_body(s: &str) -> Result<i64, String> {
    if s.trim() == "-1" {
        return Ok(-1);
    }
    parse_size(s)
        .map_err(|e| e.to_string())
        .and_then(|n| i64::try_from(n).map_err(|_| format!("size {s:?} is too large")))
}

/// `-max-headers-size`: a size such as `1mb`, `64kb` or `65536`, at least 1kb.
pub fn max_headers_size(s: &str) -> Result<usize, String> {
    let n = parse_size(s).map_err(|e| e.to_string())?;
    if n < 1024 {
        return Err(format!(
            "-max-headers-size {s:?} is too small: a response head needs at least 1kb"
        ));
    }
    usize::try_from(n).map_err(|_| format!("size {s:?} is too large"))
}

/// `-dns-ttl`, as in vegeta: `0` = look each host up once, `-1` (or any
/// negative duration) = look up for every new connection, else a duration.
pub fn dns_ttl(s: &str) -> Result<loadlab_engine::DnsCache, String> {
    use loadlab_engine::DnsCache;
    let t = s.trim();
    if let Some(rest) = t.strip_prefix('-') {
        if rest == "1" || duration(rest).is_ok_and(|d| !d.is_zero()) {
            return Ok(DnsCache::Off);
        }
        return Err(format!(
            "invalid -dns-ttl {s:?}: expected 0 (forever), -1 (off) or a duration such as 5m"
        ));
    }
    match duration(t)? {
        d if d.is_zero() => Ok(DnsCache::Forever),
        d => Ok(DnsCache::For(d)),
    }
}

/// A request header in `Name: value` form.
pub fn header(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once(':')
        .ok_or_else(|| format!("invalid header {s:?}: expected \"Name: value\""))?;
    let k = k.trim();
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
        return Err(format!("invalid header {s:?}: bad header name {k:?}"));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

/// `-tag key=value`: a tag every series of the results carries.
pub fn tag(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("invalid -tag {s:?}: expected KEY=VALUE, e.g. worker=w1"))?;
    let k = k.trim();
    if k.is_empty()
        || !k
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
    {
        return Err(format!(
            "invalid -tag {s:?}: the key must be letters, digits, '_', '-' or '.'"
        ));
    }
    if matches!(k, "method" | "url") {
        return Err(format!("invalid -tag {s:?}: {k} is the target's own tag"));
    }
    Ok((k.to_string(), v.to_string()))
}

/// `-connect-to src:port:dst:port` (host:port pairs, IPv6 hosts in brackets).
pub fn connect_to(s: &str) -> Result<(String, String), String> {
    let parts = split_host_ports(s);
    match parts.as_slice() {
        [a, b, c, d] => Ok((format!("{a}:{b}"), format!("{c}:{d}"))),
        _ => Err(format!(
            "invalid -connect-to {s:?}: expected SRC_HOST:SRC_PORT:DST_HOST:DST_PORT"
        )),
    }
}

fn split_host_ports(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_brackets = false;
    for c in s.chars() {
        match c {
            '[' => {
                in_brackets = true;
                cur.push(c)
            }
            ']' => {
                in_brackets = false;
                cur.push(c)
            }
            ':' if !in_brackets => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// `-replay-window=START..END` (Go durations; either end may be left out).
pub fn replay_window(s: &str) -> Result<(Duration, Option<Duration>), String> {
    let bad = |why: String| {
        format!("invalid -replay-window {s:?}: {why} (expected START..END, e.g. 10m..20m)")
    };
    let (a, b) = s.split_once("..").ok_or_else(|| bad("no \"..\"".into()))?;
    let start = match a.trim() {
        "" => Duration::ZERO,
        t => parse_go_duration(t).map_err(|e| bad(e.to_string()))?,
    };
    let end = match b.trim() {
        "" => None,
        t => Some(parse_go_duration(t).map_err(|e| bad(e.to_string()))?),
    };
    if end.is_some_and(|e| e <= start) {
        return Err(bad("END is not after START".into()));
    }
    Ok((start, end))
}

/// `-rewrite-host=OLD=NEW`: OLD a host or host:port, NEW a host[:port] or
/// scheme://host[:port].
pub fn rewrite_host(s: &str) -> Result<(String, String), String> {
    let (old, new) = s.split_once('=').ok_or_else(|| {
        format!(
            "invalid -rewrite-host {s:?}: expected OLD=NEW, e.g. shop.example.com=127.0.0.1:8080"
        )
    })?;
    let (old, new) = (old.trim(), new.trim());
    let authority = new.split_once("://").map_or(new, |(scheme, a)| {
        if scheme == "http" || scheme == "https" {
            a
        } else {
            ""
        }
    });
    if old.is_empty() || authority.is_empty() || authority.contains(['/', '?', '#', ' ']) {
        return Err(format!(
            "invalid -rewrite-host {s:?}: expected OLD=NEW with NEW a host[:port] or http(s)://host[:port]"
        ));
    }
    Ok((old.to_string(), new.to_string()))
}

/// `-set-header "Name: value"`; an error never shows the value (it may be
/// a credential).
pub fn set_header(s: &str) -> Result<(String, String), String> {
    let (k, v) = s
        .split_once(':')
        .ok_or("invalid -set-header: expected \"Name: value\"")?;
    let k = k.trim();
    if k.is_empty() || !k.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
        return Err(format!("invalid -set-header: bad header name {k:?}"));
    }
    Ok((k.to_string(), v.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parses_flag_values() {
        assert_eq!(
            header("replayed-traffic: true").unwrap(),
            ("replayed-traffic".into(), "true".into())
        );
        assert!(header("nocolon").is_err());
        assert_eq!(max_body("-1").unwrap(), -1);
        assert_eq!(max_body("10kb").unwrap(), 10240);
        assert!(max_body("ten").is_err());
        assert_eq!(
            connect_to("example.com:80:127.0.0.1:8080").unwrap(),
            ("example.com:80".into(), "127.0.0.1:8080".into())
        );
        assert_eq!(
            connect_to("a:1:[::1]:2").unwrap(),
            ("a:1".into(), "[::1]:2".into())
        );
        assert!(connect_to("a:1").is_err());
    }

    #[test]
    fn dns_ttl_takes_vegetas_meanings() {
        assert_eq!(dns_ttl("0"), Ok(loadlab_engine::DnsCache::Forever));
        assert_eq!(dns_ttl("0s"), Ok(loadlab_engine::DnsCache::Forever));
        assert_eq!(dns_ttl("-1"), Ok(loadlab_engine::DnsCache::Off));
        assert_eq!(dns_ttl("-1s"), Ok(loadlab_engine::DnsCache::Off));
        assert_eq!(
            dns_ttl("5m"),
            Ok(loadlab_engine::DnsCache::For(Duration::from_secs(300)))
        );
        assert!(dns_ttl("soon").is_err());
        assert!(dns_ttl("-x").unwrap_err().contains("-dns-ttl"));
    }
}
