//! Values one response hands to a later request (a session token, an id):
//! found in a recorded response (a JSON field, or an id-like token in any
//! text), and seen again in a later request's URL, headers or body, they
//! are read from the response at run time into a variable the later
//! requests use, so the script keeps working when the server hands out new
//! ones.
//!
//! A value qualifies when it is at least 8 characters long, has no spaces,
//! holds a digit (words and names do not) and was not sent by the client
//! before the response carried it.

use serde_json::Value;

use super::har::Entry;
use super::k6::{Extract, Find, Request, Text};

/// Names the script uses itself, which a variable must not take.
const TAKEN: [&str; 12] = [
    "res", "http", "check", "group", "sleep", "options", "let", "var", "const", "function",
    "default", "export",
];

/// A value in a response and how to find it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub value: String,
    pub find: Find,
    /// The variable name it suggests (a JSON key, or `value`).
    pub name: String,
}

/// Whether `v` looks like a token or an id rather than a word.
pub fn qualifies(v: &str) -> bool {
    v.len() >= 8
        && v.len() <= 4096
        && !v.chars().any(char::is_whitespace)
        && v.chars().any(|c| c.is_ascii_digit())
        && !v.contains("://")
}

/// The candidate values of a response body: JSON string (and long integer)
/// fields by path, or id-like tokens of a text body by a regular expression
/// anchored on the text before them.
pub fn candidates(body: &str) -> Vec<Candidate> {
    let mut out = Vec::new();
    match serde_json::from_str::<Value>(body) {
        Ok(v @ (Value::Object(_) | Value::Array(_))) => json(&v, &mut Vec::new(), &mut out),
        _ => text(body, &mut out),
    }
    out
}

fn json(v: &Value, path: &mut Vec<String>, out: &mut Vec<Candidate>) {
    let simple = |k: &str| {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                if simple(k) {
                    path.push(k.clone());
                    json(v, path, out);
                    path.pop();
                }
            }
        }
        Value::Array(a) => {
            for (i, v) in a.iter().enumerate() {
                path.push(i.to_string());
                json(v, path, out);
                path.pop();
            }
        }
        Value::String(s) if qualifies(s) => out.push(Candidate {
            value: s.clone(),
            find: Find::Json(path.join(".")),
            name: path
                .iter()
                .rev()
                .find(|k| !k.chars().all(|c| c.is_ascii_digit()))
                .cloned()
                .unwrap_or_else(|| "value".into()),
        }),
        Value::Number(n) if n.is_u64() && qualifies(&n.to_string()) => out.push(Candidate {
            value: n.to_string(),
            find: Find::Json(path.join(".")),
            name: path.last().cloned().unwrap_or_else(|| "value".into()),
        }),
        _ => {}
    }
}

fn token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '~' | '+' | '=')
}

fn text(body: &str, out: &mut Vec<Candidate>) {
    let mut start = None;
    for (i, c) in body.char_indices().chain([(body.len(), ' ')]) {
        match (token_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                start = None;
                let v = &body[s..i];
                let line = body[..s].rsplit('\n').next().unwrap_or("");
                let prefix: String = {
                    let cs: Vec<char> = line.chars().collect();
                    cs[cs.len().saturating_sub(16)..].iter().collect()
                };
                if qualifies(v) && prefix.trim().len() >= 3 {
                    out.push(Candidate {
                        value: v.to_string(),
                        find: Find::Regex(format!("{}([A-Za-z0-9_.~+=-]+)", regex_escape(&prefix))),
                        name: "value".into(),
                    });
                }
            }
            _ => {}
        }
    }
}

/// `s` matched literally by a JavaScript regular expression literal.
fn regex_escape(s: &str) -> String {
    let mut r = String::new();
    for c in s.chars() {
        if "\\^$.|?*+()[]{}/".contains(c) {
            r.push('\\');
        }
        r.push(c);
    }
    r
}

fn var_name(hint: &str, used: &mut Vec<String>) -> String {
    let mut name = String::new();
    let mut upper = false;
    for c in hint.chars() {
        if c.is_ascii_alphanumeric() {
            if name.is_empty() && c.is_ascii_digit() {
                name.push('v');
            }
            name.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else {
            upper = !name.is_empty();
        }
    }
    if name.is_empty() || TAKEN.contains(&name.as_str()) {
        name = format!("{name}Value");
    }
    let mut unique = name.clone();
    let mut n = 2;
    while used.contains(&unique) {
        unique = format!("{name}{n}");
        n += 1;
    }
    used.push(unique.clone());
    unique
}

/// Request headers left to k6: cookies are its cookie jar's, and it
/// negotiates its own content encoding.
const LEFT_TO_K6: [&str; 2] = ["cookie", "accept-encoding"];

/// The entries as k6 requests (cookies and content encoding left to k6),
/// with the correlated values read from responses into variables.
pub fn requests(entries: &[Entry]) -> Vec<Request> {
    let mut reqs: Vec<Request> = entries
        .iter()
        .map(|e| Request {
            comment: format!("entry {}: {} {}", e.index, e.method, e.url),
            method: e.method.clone(),
            url: Text::lit(&e.url),
            headers: e
                .headers
                .iter()
                .filter(|(k, _)| !LEFT_TO_K6.contains(&k.to_ascii_lowercase().as_str()))
                .map(|(k, v)| (k.clone(), Text::lit(v)))
                .collect(),
            body: e.body.as_deref().filter(|b| !b.is_empty()).map(Text::lit),
            status: e.status,
            ..Request::default()
        })
        .collect();
    let sent = |e: &Entry, v: &str| {
        e.url.contains(v)
            || e.body.as_deref().is_some_and(|b| b.contains(v))
            || e.headers.iter().any(|(_, h)| h.contains(v))
    };
    let mut claimed: Vec<String> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let Some(body) = &e.response else { continue };
        let mut cs = candidates(body);
        cs.sort_by_key(|c| std::cmp::Reverse(c.value.len()));
        for c in cs {
            if claimed.iter().any(|v| v.contains(&c.value))
                || entries[..=i].iter().any(|p| sent(p, &c.value))
                || !entries[i + 1..].iter().any(|l| sent(l, &c.value))
            {
                continue;
            }
            claimed.push(c.value.clone());
            let var = var_name(&c.name, &mut used);
            for r in &mut reqs[i + 1..] {
                r.url.substitute(&c.value, &var);
                for (_, h) in &mut r.headers {
                    h.substitute(&c.value, &var);
                }
                if let Some(b) = &mut r.body {
                    b.substitute(&c.value, &var);
                }
            }
            let field = match &c.find {
                Find::Json(p) => format!("JSON field {p}"),
                Find::Regex(_) => "its body's text".into(),
            };
            reqs[i].extract.push(Extract {
                var,
                find: c.find,
                comment: format!(
                    "from entry {} ({} {}), {field}: used by the requests below",
                    e.index, e.method, e.url
                ),
            });
        }
    }
    reqs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(index: usize, method: &str, url: &str, headers: &[(&str, &str)]) -> Entry {
        Entry {
            index,
            method: method.into(),
            url: url.into(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            status: 200,
            ..Entry::default()
        }
    }

    #[test]
    fn a_login_token_is_read_from_json_and_sent_in_a_later_header() {
        let mut login = entry(
            2,
            "POST",
            "http://h/login",
            &[("Content-Type", "application/json")],
        );
        login.body = Some(r#"{"user":"alice_2024","password":"pw"}"#.into());
        login.response = Some(r#"{"auth":{"token":"tk_9f8e7d6c5b4a"},"user":"alice_2024"}"#.into());
        let me = entry(
            3,
            "GET",
            "http://h/me",
            &[
                ("Authorization", "Bearer tk_9f8e7d6c5b4a"),
                ("Cookie", "s=1"),
                ("Accept-Encoding", "br"),
            ],
        );
        let r = requests(&[login, me]);
        assert_eq!(
            r[0].extract,
            vec![Extract {
                var: "token".into(),
                find: Find::Json("auth.token".into()),
                comment: "from entry 2 (POST http://h/login), JSON field auth.token: used by the requests below".into(),
            }],
            "the user name the client sent first is not a token"
        );
        assert_eq!(r[1].headers.len(), 1, "cookies and encoding are left to k6");
        assert_eq!(r[1].headers[0].1.js(), "`Bearer ${token}`");
        assert_eq!(r[1].url.js(), "\"http://h/me\"");
    }

    #[test]
    fn an_id_in_html_is_read_by_a_regex_and_used_in_a_later_url() {
        let mut page = entry(0, "GET", "http://h/form", &[]);
        page.response = Some("<form>\n<input name=\"csrf\" value=\"Ab3dEf7hIj\">".into());
        let post = entry(1, "GET", "http://h/go?csrf=Ab3dEf7hIj&x=1", &[]);
        let r = requests(&[page, post]);
        assert_eq!(r[0].extract.len(), 1);
        assert_eq!(
            r[0].extract[0].find,
            Find::Regex(r#"e="csrf" value="([A-Za-z0-9_.~+=-]+)"#.into())
        );
        assert_eq!(r[1].url.js(), "`http://h/go?csrf=${value}&x=1`");
    }

    #[test]
    fn words_and_values_never_sent_back_are_not_correlated() {
        assert!(!qualifies("password"));
        assert!(!qualifies("Dashboard"));
        assert!(!qualifies("short1"));
        assert!(!qualifies("http://example.com/a1b2c3d4"));
        assert!(!qualifies("two words 12345678"));
        assert!(qualifies("5f2b9c1e"));
        let mut a = entry(0, "GET", "http://h/a", &[]);
        a.response = Some(r#"{"id":"ord_12345678","title":"Dashboard"}"#.into());
        let b = entry(1, "GET", "http://h/b", &[("X-Title", "Dashboard")]);
        assert!(requests(&[a, b]).iter().all(|r| r.extract.is_empty()));
    }
}
