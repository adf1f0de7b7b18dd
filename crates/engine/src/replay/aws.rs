//! AWS access logs: Application Load Balancer (space-separated, quoted
//! fields; the request line holds the whole URL) and CloudFront standard
//! logs (tab-separated, with a `#Fields:` header naming the columns).

use bytes::Bytes;

use super::Record;
use super::time::{parse_iso, parse_seconds};

/// The first token of an ALB line: the request's type.
pub const ALB_TYPES: [&str; 6] = ["http", "https", "h2", "grpcs", "ws", "wss"];

/// Splits on spaces, keeping `"quoted fields"` whole (unquoted; `\"` inside
/// stays a quote).
fn alb_fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = line.chars().peekable();
    loop {
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        let Some(&c) = chars.peek() else {
            return out;
        };
        let mut f = String::new();
        if c == '"' {
            chars.next();
            while let Some(c) = chars.next() {
                match c {
                    '\\' if chars.peek() == Some(&'"') => f.push(chars.next().unwrap_or('"')),
                    '"' => break,
                    c => f.push(c),
                }
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c == ' ' {
                    break;
                }
                f.push(c);
                chars.next();
            }
        }
        out.push(f);
    }
}

/// One ALB log line. The request is placed at `request_creation_time` when
/// the line has it (the `time` field is when the response was sent).
pub fn alb_record(line: &str) -> Result<Record, String> {
    let f = alb_fields(line);
    if f.len() < 14 || !ALB_TYPES.contains(&f[0].as_str()) {
        return Err("not an ALB log line (type time elb client … \"request\" …)".into());
    }
    let created = f.get(21).and_then(|t| parse_iso(t));
    let ts = created
        .or_else(|| parse_iso(&f[1]))
        .ok_or(format!("bad time {:?}", f[1]))?;
    let mut req = f[12].split(' ');
    let (method, url) = (req.next().unwrap_or(""), req.next().unwrap_or(""));
    let method = http::Method::from_bytes(method.as_bytes())
        .ok()
        .filter(|_| !method.is_empty() && method != "-")
        .ok_or(format!("bad request {:?}", f[12]))?;
    let mut headers = Vec::new();
    if !f[13].is_empty() && f[13] != "-" {
        headers.push(("User-Agent".to_string(), f[13].clone()));
    }
    Ok(Record {
        ts,
        resolution: 0,
        method,
        url: url.to_string(),
        headers,
        body: Bytes::new(),
    })
}

/// CloudFront's default columns, for a log without its `#Fields:` line.
pub const CLOUDFRONT_FIELDS: &str = "date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken";

/// CloudFront's columns, as its `#Fields:` line names them.
#[derive(Debug, Clone)]
pub struct CloudFront {
    fields: Vec<String>,
}

impl Default for CloudFront {
    fn default() -> Self {
        CloudFront {
            fields: CLOUDFRONT_FIELDS.split(' ').map(str::to_string).collect(),
        }
    }
}

/// CloudFront writes spaces and some other bytes in its fields as `%XX`
/// (twice in the user agent: `%2520`).
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && let Some(v) = b
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl CloudFront {
    /// A line of the log: `None` for a `#` line (a `#Fields:` line sets
    /// the columns), else the record or why it is not one.
    pub fn line(&mut self, line: &str) -> Option<Result<Record, String>> {
        if let Some(rest) = line.strip_prefix('#') {
            if let Some(f) = rest.strip_prefix("Fields:") {
                self.fields = f.split_whitespace().map(str::to_string).collect();
            }
            return None;
        }
        Some(self.record(line))
    }

    fn record(&self, line: &str) -> Result<Record, String> {
        let cols: Vec<&str> = line.split('\t').collect();
        let get = |name: &str| {
            self.fields
                .iter()
                .position(|f| f == name)
                .and_then(|i| cols.get(i).copied())
                .filter(|v| !v.is_empty() && *v != "-")
        };
        let (date, time) = (get("date").unwrap_or(""), get("time").unwrap_or(""));
        let ts = parse_iso(&format!("{date}T{time}Z"))
            .ok_or(format!("bad date and time {date:?} {time:?}"))?;
        // The time is when CloudFront finished responding.
        let took = get("time-taken").and_then(parse_seconds).unwrap_or(0);
        let method = get("cs-method").unwrap_or("");
        let method = super::method(method, "cs-method")?;
        let host = get("x-host-header")
            .or_else(|| get("cs(Host)"))
            .ok_or("no host (x-host-header, cs(Host))")?;
        let scheme = match get("cs-protocol") {
            Some("https") | Some("wss") => "https",
            _ => "http",
        };
        let stem = get("cs-uri-stem").unwrap_or("/");
        let mut url = format!("{scheme}://{host}{stem}");
        if let Some(q) = get("cs-uri-query") {
            url.push('?');
            url.push_str(q);
        }
        let mut headers = Vec::new();
        for (col, name) in [
            ("cs(User-Agent)", "User-Agent"),
            ("cs(Referer)", "Referer"),
            ("cs(Cookie)", "Cookie"),
        ] {
            if let Some(v) = get(col) {
                headers.push((name.to_string(), decode(&decode(v))));
            }
        }
        Ok(Record {
            ts: ts - took,
            resolution: 1_000_000_000,
            method,
            url,
            headers,
            body: Bytes::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alb_and_cloudfront_lines() {
        let alb = r#"https 2018-07-02T22:23:00.186641Z app/my-lb/50dc6c495c0c9188 192.168.131.39:2817 10.0.0.1:80 0.086 0.048 0.037 200 200 0 57 "GET https://www.example.com:443/a?b=1 HTTP/1.1" "curl/7.46.0" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "Root=1-58337281-1d84f3d73c47ec4e58577259" "www.example.com" "arn:aws:acm:us-east-2:123456789012:certificate/12345678-1234-1234-1234-123456789012" 1 2018-07-02T22:22:48.364000Z "authenticate,forward" "-" "-" "10.0.0.1:80" "200" "-" "-""#;
        let r = alb_record(alb).unwrap();
        assert_eq!(r.url, "https://www.example.com:443/a?b=1");
        assert_eq!(r.ts, parse_iso("2018-07-02T22:22:48.364Z").unwrap());
        assert_eq!(
            r.headers,
            [("User-Agent".to_string(), "curl/7.46.0".to_string())]
        );
        assert!(alb_record("http nonsense").is_err());

        let mut cf = CloudFront::default();
        assert!(cf.line("#Version: 1.0").is_none());
        let line = "2019-12-04\t21:02:31\tLAX1\t392\t192.0.2.100\tGET\td111111abcdef8.cloudfront.net\t/index.html\t200\t-\tMozilla/5.0%2520(X11)\tq=1\t-\tHit\tSOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==\tshop.example.com\thttps\t23\t0.001";
        let r = cf.line(line).unwrap().unwrap();
        assert_eq!(r.url, "https://shop.example.com/index.html?q=1");
        assert_eq!(
            r.headers,
            [("User-Agent".to_string(), "Mozilla/5.0 (X11)".to_string())]
        );
        assert_eq!(r.ts, parse_iso("2019-12-04T21:02:30.999Z").unwrap());
    }
}
