//! Pointing recorded requests elsewhere (`-rewrite-host=old=new`) and
//! changing their headers (`-drop-header`, `-set-header`).

/// The rewrites applied to every replayed request, in this order: the
/// host, the dropped headers, the set headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewrite {
    /// `old` → `new`: a URL whose `host:port` (or host alone) is `old` gets
    /// `new`; a `new` with a scheme (`https://h:8443`) changes the scheme too.
    pub hosts: Vec<(String, String)>,
    /// Header names removed (any case).
    pub drop_headers: Vec<String>,
    /// Headers set, replacing recorded ones of the same name.
    pub set_headers: Vec<(String, String)>,
}

impl Rewrite {
    /// True when it changes nothing.
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty() && self.drop_headers.is_empty() && self.set_headers.is_empty()
    }

    /// The URL with its host rewritten, if a rule matches.
    pub fn url(&self, url: &str) -> Option<String> {
        let (scheme, rest) = url.split_once("://")?;
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, path) = rest.split_at(end);
        // A password before the host stays as it was.
        let (userinfo, hostport) = match authority.rfind('@') {
            Some(i) => authority.split_at(i + 1),
            None => ("", authority),
        };
        let host = match hostport.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or(""),
            None => hostport.split(':').next().unwrap_or(""),
        };
        let (_, new) = self.hosts.iter().find(|(old, _)| {
            old.eq_ignore_ascii_case(hostport) || old.eq_ignore_ascii_case(host)
        })?;
        Some(match new.split_once("://") {
            Some((s, a)) => format!("{s}://{userinfo}{a}{path}"),
            None => format!("{scheme}://{userinfo}{new}{path}"),
        })
    }

    /// Drops and sets headers.
    pub fn headers(&self, headers: &mut Vec<(String, String)>) {
        headers.retain(|(k, _)| {
            !self.drop_headers.iter().any(|d| d.eq_ignore_ascii_case(k))
                && !self
                    .set_headers
                    .iter()
                    .any(|(s, _)| s.eq_ignore_ascii_case(k))
        });
        headers.extend(self.set_headers.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_headers() {
        let r = Rewrite {
            hosts: vec![
                ("shop.example.com".into(), "127.0.0.1:8080".into()),
                ("api.example.com:443".into(), "http://127.0.0.1:9090".into()),
            ],
            drop_headers: vec!["Cookie".into()],
            set_headers: vec![("Authorization".into(), "Bearer t".into())],
        };
        assert_eq!(
            r.url("https://shop.example.com/a?b").as_deref(),
            Some("https://127.0.0.1:8080/a?b")
        );
        assert_eq!(
            r.url("https://api.example.com:443/x").as_deref(),
            Some("http://127.0.0.1:9090/x")
        );
        assert_eq!(r.url("http://other.test/"), None);
        let mut h = vec![
            ("cookie".to_string(), "a=b".to_string()),
            ("authorization".to_string(), "old".to_string()),
            ("accept".to_string(), "*/*".to_string()),
        ];
        r.headers(&mut h);
        assert_eq!(
            h,
            vec![
                ("accept".to_string(), "*/*".to_string()),
                ("Authorization".to_string(), "Bearer t".to_string())
            ]
        );
    }
}
