//! `--http-debug[=full]`: each request and its response, as k6 logs them
//! (`Request:\n<the head>\n\n<the body>\n`, then `Response:\n…`), at level
//! info with `source=http-debug` and a `request_id` joining the two.
//!
//! Unlike k6, the values of credential fields of requests and responses
//! (`loadlab_core::credentials::CREDENTIAL_HEADERS`: `Authorization`,
//! `Proxy-Authorization`, `Cookie`, `Set-Cookie`, `X-Api-Key`,
//! `Api-Key`, `X-Auth-Token`, `X-Amz-Security-Token`) are not shown: a dump is a log
//! line, and log lines keep no secret (`Authorization: Bearer REDACTED`).

use http::Method;
use loadlab_core::credentials::{CREDENTIAL_HEADERS, REDACTED};
use loadlab_engine::client::{Client, ClientResponse};

use super::request::ReqMeta;

/// `httpDebug`'s value: `full` shows the bodies too; any other (k6's
/// `headers`) the heads only.
pub fn full(mode: &str) -> bool {
    mode == "full"
}

/// A field's line with a credential's value hidden (an `Authorization`
/// scheme is kept: `Bearer REDACTED`).
fn redact_line(line: &str) -> String {
    let Some((name, value)) = line.split_once(':') else {
        return line.to_string();
    };
    if !CREDENTIAL_HEADERS
        .iter()
        .any(|c| c.eq_ignore_ascii_case(name.trim()))
    {
        return line.to_string();
    }
    let v = value.trim();
    let scheme = v.split_once(' ').map(|(s, _)| s).filter(|s| {
        name.to_ascii_lowercase().contains("authorization")
            && s.chars().all(|c| c.is_ascii_alphabetic())
    });
    match scheme {
        Some(s) => format!("{name}: {s} {REDACTED}"),
        None => format!("{name}: {REDACTED}"),
    }
}

/// A head (`\r\n` after each line) as k6 shows it: `\n` after each line,
/// credentials hidden.
fn head_lines(head: &str) -> String {
    let mut out = String::with_capacity(head.len());
    for line in head.split("\r\n").filter(|l| !l.is_empty()) {
        out.push_str(&redact_line(line));
        out.push('\n');
    }
    out
}

/// The messages for one request made by the script: for each hop (the
/// redirects followed, then the last), the request's, then its
/// response's (none for a request that got no response, as in k6).
pub fn messages(
    meta: &ReqMeta,
    r: &ClientResponse,
    full: bool,
    keepalive: bool,
) -> Vec<Vec<String>> {
    let mut all = Vec::new();
    let first_method = Method::from_bytes(meta.method.as_bytes()).unwrap_or(Method::GET);
    for hop in r.redirects.iter().chain([r]) {
        let mut out = Vec::with_capacity(2);
        let url = hop.url.as_deref().unwrap_or(&meta.url);
        let method = hop.method.clone().unwrap_or_else(|| first_method.clone());
        // A redirect that turned the method into GET drops the body.
        let body = if method == first_method {
            r.request_body.clone()
        } else {
            Default::default()
        };
        if let Some(head) = Client::request_head(&method, url, &r.request_headers, &body, keepalive)
        {
            let mut m = String::from("Request:\n");
            m.push_str(&head_lines(&head));
            m.push('\n');
            if full {
                m.push_str(&String::from_utf8_lossy(&body));
            }
            m.push('\n');
            out.push(m);
        }
        if hop.status == 0 {
            all.push(out);
            continue;
        }
        let proto = if hop.http2 {
            "HTTP/2.0"
        } else if hop.http10 {
            "HTTP/1.0"
        } else {
            "HTTP/1.1"
        };
        let reason = hop.reason.clone().unwrap_or_else(|| {
            http::StatusCode::from_u16(hop.status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("")
                .to_string()
        });
        let mut m = format!("Response:\n{proto} {} {reason}\n", hop.status);
        // Go writes the fields' names canonical (`Content-Type`), sorted.
        let mut fields: Vec<(String, &str)> = hop
            .headers
            .iter()
            .map(|(k, v)| (crate::http_result::canonical(k), v))
            .collect();
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        for (k, v) in fields {
            m.push_str(&redact_line(&format!("{k}: {v}")));
            m.push('\n');
        }
        m.push('\n');
        if full {
            m.push_str(&String::from_utf8_lossy(&hop.body));
        }
        m.push('\n');
        out.push(m);
        all.push(out);
    }
    all
}

/// A random (version 4) UUID, the `request_id` k6 gives a dump.
pub fn request_id() -> String {
    let mut b = [0u8; 16];
    rand::RngCore::fill_bytes(&mut rand::rng(), &mut b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_hidden_and_a_scheme_kept() {
        assert_eq!(
            redact_line("Authorization: Bearer s3cr3t"),
            "Authorization: Bearer REDACTED"
        );
        assert_eq!(redact_line("cookie: a=1; b=2"), "cookie: REDACTED");
        assert_eq!(redact_line("X-Api-Key: k"), "X-Api-Key: REDACTED");
        assert_eq!(redact_line("Content-Type: a/b"), "Content-Type: a/b");
        assert_eq!(redact_line("GET / HTTP/1.1"), "GET / HTTP/1.1");
    }

    #[test]
    fn a_request_id_is_a_version_4_uuid() {
        let id = request_id();
        assert_eq!(id.len(), 36);
        assert_eq!(&id[14..15], "4");
        assert!("89ab".contains(&id[19..20]), "{id}");
        assert_ne!(id, request_id());
    }
}
