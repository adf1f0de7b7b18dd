//! `params.auth: 'digest'` (RFC 7616), as k6 does it: the request goes
//! out as it is (with the URL's credentials as Basic, as Go's client
//! sends them); when the answer is a 401 with a `Digest` challenge, the
//! same request goes again with the `Authorization` the challenge asks
//! for. Both exchanges are measured, the 401 as an expected response.
//!
//! Algorithms `MD5`, `MD5-sess`, `SHA-256` and `SHA-256-sess`; `qop=auth`
//! (or none, RFC 2069). A challenge that offers only `qop=auth-int`, or
//! another algorithm, gets no second try: its 401 is the answer.

use loadlab_engine::client::{ClientRequest, ClientResponse};

/// The fields of a `Digest` challenge.
#[derive(Debug, Default, PartialEq)]
struct Challenge {
    realm: String,
    nonce: String,
    opaque: Option<String>,
    algorithm: String,
    /// `qop` offered includes `auth`; `None` when no `qop` was offered.
    qop_auth: Option<bool>,
}

/// The `Authorization` for a second try of `req`, if `resp` is a 401 that
/// offers `Digest` and `req`'s URL carries a user name.
pub(super) fn answer(req: &ClientRequest, resp: &ClientResponse) -> Option<String> {
    if resp.status != 401 {
        return None;
    }
    let ch = resp
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
        .find_map(|(_, v)| parse(v))?;
    let uri = super::userinfo::request_uri(req)?;
    let (user, pass) = super::userinfo::credentials_in(&uri)?;
    if user.is_empty() {
        return None;
    }
    let uri = uri.path_and_query().map_or("/", |p| p.as_str());
    let cnonce = format!("{:032x}", rand::random::<u128>());
    authorization(&ch, &user, &pass, req.method.as_str(), uri, &cnonce)
}

/// The challenge in a `WWW-Authenticate` value, if it is `Digest`.
fn parse(v: &str) -> Option<Challenge> {
    let v = v.trim_start();
    let (scheme, rest) = v.split_once(char::is_whitespace)?;
    if !scheme.eq_ignore_ascii_case("digest") {
        return None;
    }
    let mut ch = Challenge {
        algorithm: "MD5".into(),
        ..Challenge::default()
    };
    for (k, val) in params(rest) {
        match k.to_ascii_lowercase().as_str() {
            "realm" => ch.realm = val,
            "nonce" => ch.nonce = val,
            "opaque" => ch.opaque = Some(val),
            "algorithm" => ch.algorithm = val,
            "qop" => {
                ch.qop_auth = Some(
                    val.split(',')
                        .any(|q| q.trim().eq_ignore_ascii_case("auth")),
                );
            }
            _ => {}
        }
    }
    (!ch.nonce.is_empty()).then_some(ch)
}

/// `k=v, k="v, with commas"` pairs.
fn params(s: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else { break };
        let key = rest[..eq].trim().trim_start_matches(',').trim().to_string();
        rest = rest[eq + 1..].trim_start();
        let value;
        if let Some(r) = rest.strip_prefix('"') {
            let mut v = String::new();
            let mut chars = r.char_indices();
            let mut end = r.len();
            while let Some((i, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, n)) = chars.next() {
                            v.push(n);
                        }
                    }
                    '"' => {
                        end = i + 1;
                        break;
                    }
                    c => v.push(c),
                }
            }
            value = v;
            rest = r[end.min(r.len())..].trim_start();
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            value = rest[..end].trim().to_string();
            rest = &rest[end..];
        }
        rest = rest.trim_start_matches(',').trim_start();
        out.push((key, value));
    }
    out
}

/// The `Authorization` value answering `ch` (None: an algorithm or a
/// quality of protection it cannot answer).
fn authorization(
    ch: &Challenge,
    user: &str,
    pass: &str,
    method: &str,
    uri: &str,
    cnonce: &str,
) -> Option<String> {
    use md5::Digest as _;
    let alg = ch.algorithm.to_ascii_uppercase();
    let h: fn(&str) -> String = match alg.trim_end_matches("-SESS") {
        "MD5" => |s| hex(&md5::Md5::digest(s.as_bytes())),
        "SHA-256" => |s| hex(&sha2_11::Sha256::digest(s.as_bytes())),
        _ => return None,
    };
    let nc = "00000001";
    let mut ha1 = h(&format!("{user}:{}:{pass}", ch.realm));
    if alg.ends_with("-SESS") {
        ha1 = h(&format!("{ha1}:{}:{cnonce}", ch.nonce));
    }
    let ha2 = h(&format!("{method}:{uri}"));
    let response = match ch.qop_auth {
        Some(true) => h(&format!("{ha1}:{}:{nc}:{cnonce}:auth:{ha2}", ch.nonce)),
        Some(false) => return None,
        None => h(&format!("{ha1}:{}:{ha2}", ch.nonce)),
    };
    let q = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let mut v = format!(
        "Digest username=\"{}\", realm=\"{}\", nonce=\"{}\", uri=\"{}\", response=\"{response}\", algorithm={}",
        q(user),
        q(&ch.realm),
        q(&ch.nonce),
        q(uri),
        ch.algorithm
    );
    if ch.qop_auth == Some(true) {
        v.push_str(&format!(", qop=auth, nc={nc}, cnonce=\"{cnonce}\""));
    }
    if let Some(o) = &ch.opaque {
        v.push_str(&format!(", opaque=\"{}\"", q(o)));
    }
    Some(v)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_2617s_example_is_answered() {
        // RFC 2617, 3.5: Mufasa / "Circle Of Life".
        let ch = parse(
            r#"Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41""#,
        )
        .unwrap();
        assert_eq!(ch.qop_auth, Some(true));
        let v = authorization(
            &ch,
            "Mufasa",
            "Circle Of Life",
            "GET",
            "/dir/index.html",
            "0a4f113b",
        )
        .unwrap();
        assert!(
            v.contains("response=\"6629fae49393a05397450978507c4ef1\""),
            "{v}"
        );
        assert!(v.contains("opaque=\"5ccc069c403ebaf9f0171e9517f40e41\""));
        assert!(v.contains("qop=auth, nc=00000001, cnonce=\"0a4f113b\""));
    }

    #[test]
    fn other_schemes_and_unanswerable_challenges_get_nothing() {
        assert_eq!(parse("Basic realm=\"x\""), None);
        let ch = parse("Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"").unwrap();
        assert_eq!(authorization(&ch, "u", "p", "GET", "/", "c"), None);
        let ch = parse("Digest realm=\"r\", nonce=\"n\", algorithm=SHA-512-256").unwrap();
        assert_eq!(authorization(&ch, "u", "p", "GET", "/", "c"), None);
        // No qop: RFC 2069's response, no nc or cnonce.
        let ch = parse("digest realm=\"r\", nonce=\"n\"").unwrap();
        let v = authorization(&ch, "u", "p", "GET", "/", "c").unwrap();
        assert!(!v.contains("cnonce"), "{v}");
    }
}
