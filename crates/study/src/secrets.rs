//! Secrets in plans: `${NAME}` references to the environment, and redaction
//! of credentials wherever a human-readable artefact is written (the report,
//! the store, `runs show`, progress lines, error messages).
//!
//! A plan keeps its request templates unexpanded (`Bearer ${API_TOKEN}`); the
//! values of the referenced variables are captured when the plan is loaded
//! ([`capture`]) and live only in memory ([`EnvValues`] is never serialized),
//! so only the engine ever sees the expanded request. What is shown or stored
//! goes through [`Plan::redacted`](crate::Plan::redacted) and
//! [`redact_plan_yaml`]: the values of credential headers (`Authorization`,
//! `Proxy-Authorization`, `Cookie`, `X-Api-Key` and any header named in the
//! plan's `redact:` list) become `REDACTED` unless they are only a reference
//! to the environment, and URL passwords become `xxxxx` (as Go's
//! `url.URL.Redacted` writes them).

use std::collections::BTreeMap;
use std::fmt;

use crate::error::PlanError;
use crate::sources::TargetPlan;

pub use loadlab_core::credentials::{CREDENTIAL_HEADERS, REDACTED};

/// What a redacted URL password is replaced with (Go's `url.URL.Redacted`).
pub const URL_PASSWORD: &str = "xxxxx";

/// Values of the environment variables a plan references, captured at load.
/// Never serialized; its `Debug` shows the names only.
#[derive(Clone, Default, PartialEq)]
pub struct EnvValues(BTreeMap<String, String>);

impl fmt::Debug for EnvValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl EnvValues {
    /// The captured values (for scrubbing text).
    pub(crate) fn values(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }
}

#[cfg(test)]
impl EnvValues {
    /// Values as if captured, for tests.
    pub(crate) fn of(pairs: &[(&str, &str)]) -> Self {
        EnvValues(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece<'a> {
    Lit(&'a str),
    Var(&'a str),
}

/// Splits a value into literal text and `${NAME}` references; `$${` is a
/// literal `${`. A `$` not followed by `{` is literal.
fn pieces(s: &str) -> Result<Vec<Piece<'_>>, String> {
    let mut out = Vec::new();
    let mut lit_start = 0;
    let mut i = 0;
    let b = s.as_bytes();
    while i < b.len() {
        if b[i] != b'$' {
            i += 1;
            continue;
        }
        if s[i..].starts_with("$${") {
            if lit_start < i {
                out.push(Piece::Lit(&s[lit_start..i]));
            }
            // The second `$` starts the next literal run: `${` stays literal.
            lit_start = i + 1;
            i += 3;
            continue;
        }
        if !s[i..].starts_with("${") {
            i += 1;
            continue;
        }
        let Some(len) = s[i + 2..].find('}') else {
            return Err(format!(
                "unterminated `${{` in {s:?} (write ${{NAME}}, or $${{ for a literal ${{)"
            ));
        };
        let name = &s[i + 2..i + 2 + len];
        let valid = name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!(
                "`${{{name}}}` is not a variable reference (names are letters, digits and _; write $${{ for a literal ${{)"
            ));
        }
        if lit_start < i {
            out.push(Piece::Lit(&s[lit_start..i]));
        }
        out.push(Piece::Var(name));
        i += 2 + len + 1;
        lit_start = i;
    }
    if lit_start < s.len() {
        out.push(Piece::Lit(&s[lit_start..]));
    }
    Ok(out)
}

/// The variables `s` references.
pub fn references(s: &str) -> Result<Vec<&str>, String> {
    Ok(pieces(s)?
        .into_iter()
        .filter_map(|p| match p {
            Piece::Var(n) => Some(n),
            Piece::Lit(_) => None,
        })
        .collect())
}

/// Expands `${NAME}` references with the captured values.
pub fn expand(s: &str, env: &EnvValues) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    for p in pieces(s)? {
        match p {
            Piece::Lit(l) => out.push_str(l),
            Piece::Var(n) => out.push_str(
                env.0
                    .get(n)
                    .ok_or_else(|| format!("environment variable {n} was not captured"))?,
            ),
        }
    }
    Ok(out)
}

/// `s` as one double-quoted shell word that gives `s` back with its
/// `${NAME}` references expanded by the shell (as the study expands them):
/// `"`, `\`, `` ` `` and every other `$` are escaped (`$${` is a literal `${`).
pub(crate) fn shell_quoted(s: &str) -> String {
    let escape = |out: &mut String, lit: &str| {
        for c in lit.chars() {
            if matches!(c, '"' | '\\' | '`' | '$') {
                out.push('\\');
            }
            out.push(c);
        }
    };
    let mut out = String::from("\"");
    match pieces(s) {
        Ok(ps) => {
            for p in ps {
                match p {
                    Piece::Lit(l) => escape(&mut out, l),
                    Piece::Var(n) => out.push_str(&format!("${{{n}}}")),
                }
            }
        }
        // Not a valid template (refused at load): all literal.
        Err(_) => escape(&mut out, s),
    }
    out.push('"');
    out
}

/// Whether `s` is exactly one `${NAME}` reference.
pub(crate) fn is_reference(s: &str) -> bool {
    matches!(pieces(s).as_deref(), Ok([Piece::Var(_)]))
}

/// Whether a header (any case) carries a credential.
pub fn is_credential(name: &str, extra: &[String]) -> bool {
    let n = name.trim();
    CREDENTIAL_HEADERS.iter().any(|c| c.eq_ignore_ascii_case(n))
        || extra.iter().any(|c| c.trim().eq_ignore_ascii_case(n))
}

/// The value of a header as it may be shown: a credential's value is
/// replaced by `REDACTED`, keeping an `Authorization` scheme (`Bearer
/// REDACTED`) and a value that is only a reference to the environment
/// (`Bearer ${API_TOKEN}`: it holds no secret). Other headers are unchanged.
pub fn redact_header_value(name: &str, value: &str, extra: &[String]) -> String {
    if !is_credential(name, extra) || value.trim().is_empty() {
        return value.to_string();
    }
    let auth = ["authorization", "proxy-authorization"]
        .iter()
        .any(|a| a.eq_ignore_ascii_case(name.trim()));
    let v = value.trim();
    let (scheme, rest) = match v.split_once(char::is_whitespace) {
        Some((s, r)) if auth && !s.is_empty() && s.chars().all(|c| c.is_ascii_alphabetic()) => {
            (Some(s), r.trim())
        }
        _ => (None, v),
    };
    let rest = if is_reference(rest) { rest } else { REDACTED };
    match scheme {
        Some(s) => format!("{s} {rest}"),
        None => rest.to_string(),
    }
}

/// Replaces the password of every `scheme://user:password@host` in `text`
/// with `xxxxx`, unless it is only a reference to the environment.
pub fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        // The authority ends at a path, query or fragment, or where the text
        // around a URL would end it.
        let end = tail
            .find(|c: char| {
                matches!(c, '/' | '?' | '#' | '"' | '\'' | '`' | '<' | '>') || c.is_whitespace()
            })
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.split_once(':') {
                    Some((user, pass)) if !pass.is_empty() && !is_reference(pass) => {
                        out.push_str(user);
                        out.push(':');
                        out.push_str(URL_PASSWORD);
                        out.push_str(&authority[at..]);
                    }
                    _ => out.push_str(authority),
                }
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// Finds `needle` outside YAML comments (1-based line and column).
fn locate_outside_comments(src: &str, needle: &str) -> Option<(usize, usize)> {
    for (n, line) in src.lines().enumerate() {
        let mut from = 0;
        while let Some(off) = line[from..].find(needle) {
            let col = from + off;
            let before = &line[..col];
            let comment = before.trim_start().starts_with('#') || before.contains(" #");
            if !comment {
                return Some((n + 1, col + 1));
            }
            from = col + needle.len();
        }
    }
    None
}

/// Checks every `${NAME}` in the targets' URLs and header values and captures
/// the variables' values from the environment. A missing variable is an error
/// at the place the plan references it.
pub fn capture(targets: &[TargetPlan], src: &str, file: &str) -> Result<EnvValues, PlanError> {
    let at = |needle: &str, target: &str, message: String| {
        let (line, column, message) = match locate_outside_comments(src, needle) {
            Some((l, c)) => (l, c, message),
            None => {
                let (l, c) = locate_outside_comments(src, &format!("name: {target}"))
                    .or_else(|| locate_outside_comments(src, target))
                    .unwrap_or((1, 1));
                (l, c, format!("{message} (in its targets file)"))
            }
        };
        PlanError {
            file: file.to_string(),
            line,
            column,
            message,
        }
    };
    let mut env = EnvValues::default();
    for t in targets {
        let mut values: Vec<(String, &str)> = Vec::new();
        for r in &t.requests {
            values.push(("url".to_string(), r.url.as_str()));
            values.extend(
                r.headers
                    .iter()
                    .map(|(k, v)| (format!("header {k}"), v.as_str())),
            );
        }
        if let Some(w) = &t.workload {
            values.extend(w.values());
        }
        if let Some(r) = &t.replay {
            values.extend(r.values());
        }
        {
            for (what, v) in values {
                let names = references(v)
                    .map_err(|m| at(v, &t.name, format!("target {:?}: {what}: {m}", t.name)))?;
                for n in names {
                    if env.0.contains_key(n) {
                        continue;
                    }
                    match std::env::var(n) {
                        Ok(val) => {
                            env.0.insert(n.to_string(), val);
                        }
                        Err(e) => {
                            let why = match e {
                                std::env::VarError::NotPresent => "is not set",
                                std::env::VarError::NotUnicode(_) => "is not valid UTF-8",
                            };
                            return Err(at(
                                &format!("${{{n}}}"),
                                &t.name,
                                format!(
                                    "environment variable {n} {why} (target {:?} uses ${{{n}}} in its {what}; export it or write $${{ for a literal ${{)",
                                    t.name
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(env)
}

/// `text` with every captured value (of 4 characters or more: a shorter one
/// would mangle ordinary text, and is no secret anyway) replaced by `REDACTED`.
pub(crate) fn scrub_values(env: &EnvValues, text: &str) -> String {
    let values: Vec<String> = env.values().map(str::to_string).collect();
    redact_values(text, &values)
}

/// `text` with each of `secrets` (of 4 characters or more: a shorter one
/// is no secret) replaced by `REDACTED` where it stands as a value: after
/// `=` (`--mysql-password=…`, a DSN's `password=…`, a query), `:` (a
/// header, URL userinfo), a quote, or an `Authorization` scheme after a
/// colon (`Authorization: Bearer …`), and ending where a word ends. The
/// same letters in prose are kept: with the password `wrong`, a server's
/// "wrong user name or password" is shown as the server wrote it.
pub fn redact_values(text: &str, secrets: &[String]) -> String {
    let mut secrets: Vec<&str> = secrets
        .iter()
        .map(|s| s.as_str())
        .filter(|s| s.len() >= 4 && !is_reference(s))
        .collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    let mut out = text.to_string();
    for s in secrets {
        let mut done = String::with_capacity(out.len());
        let mut rest = out.as_str();
        while let Some(i) = rest.find(s) {
            let (before, after) = (&rest[..i], &rest[i + s.len()..]);
            let ends = after
                .chars()
                .next()
                .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-'));
            done.push_str(before);
            if ends && stands_as_value(&done) {
                done.push_str(REDACTED);
            } else {
                done.push_str(s);
            }
            rest = after;
        }
        done.push_str(rest);
        out = done;
    }
    out
}

/// Whether text that ends with `before` is followed by a value: right
/// after `=`, `:` or a quote, or after `NAME: ` / `NAME: Scheme ` where
/// NAME is a credential's (a credential header, or a name with `pass`,
/// `secret`, `token`, `key`, `auth` or `cookie` in it) — not after any
/// colon, as in a server's `user 'bob': wrong user name or password`.
fn stands_as_value(before: &str) -> bool {
    let Some(last) = before.chars().next_back() else {
        return false;
    };
    if matches!(last, '=' | ':' | '"' | '\'' | '`') {
        return true;
    }
    if last != ' ' {
        return false;
    }
    let t = before.trim_end();
    // `Name: Scheme value`: step over the scheme.
    let t = match t.rsplit_once(char::is_whitespace) {
        Some((head, word))
            if !word.is_empty()
                && word.chars().all(|c| c.is_ascii_alphabetic())
                && head.trim_end().ends_with(':') =>
        {
            head.trim_end()
        }
        _ => t,
    };
    let Some(head) = t.strip_suffix(':') else {
        return false;
    };
    let name = head
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .next()
        .unwrap_or("");
    let lower = name.to_ascii_lowercase();
    !name.is_empty()
        && (is_credential(name, &[])
            || ["pass", "secret", "token", "key", "auth", "cookie"]
                .iter()
                .any(|k| lower.contains(k)))
}

/// Pairs (as written, as shown) for the credentials of a plan's YAML value.
fn yaml_replacements(v: &serde_norway::Value) -> Vec<(String, String)> {
    let extra: Vec<String> = v
        .get("redact")
        .and_then(|r| r.as_sequence())
        .map(|s| {
            s.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    let Some(targets) = v.get("targets").and_then(|t| t.as_sequence()) else {
        return out;
    };
    for t in targets {
        if let Some(url) = t.get("url").and_then(|u| u.as_str()) {
            let red = redact_urls(url);
            if red != url {
                out.push((url.to_string(), red));
            }
        }
        let set = t.get("rewrite").and_then(|r| r.get("set_headers"));
        for h in [t.get("headers"), set]
            .into_iter()
            .flatten()
            .filter_map(|h| h.as_mapping())
        {
            for (k, val) in h {
                let (Some(k), Some(val)) = (k.as_str(), val.as_str()) else {
                    continue;
                };
                let red = redact_header_value(k, val, &extra);
                if red != val {
                    out.push((val.to_string(), red));
                }
            }
        }
    }
    out
}

/// The plan's text as it may be stored and shown: credential header values
/// and URL passwords redacted in place (comments and layout kept). If a value
/// cannot be found verbatim (an escaped or multi-line string), the plan is
/// re-serialized from its parsed form instead, with a note saying so.
pub fn redact_plan_yaml(text: &str) -> String {
    let Ok(mut v) = serde_norway::from_str::<serde_norway::Value>(text) else {
        return text.to_string();
    };
    let mut reps = yaml_replacements(&v);
    if reps.is_empty() {
        return text.to_string();
    }
    reps.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    let mut out = text.to_string();
    for (from, to) in &reps {
        out = out.replace(from.as_str(), to);
    }
    let clean = serde_norway::from_str::<serde_norway::Value>(&out)
        .is_ok_and(|w| yaml_replacements(&w).is_empty());
    if clean {
        return out;
    }
    // Structural fallback.
    let extra: Vec<String> = v
        .get("redact")
        .and_then(|r| r.as_sequence())
        .map(|s| {
            s.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if let Some(targets) = v.get_mut("targets").and_then(|t| t.as_sequence_mut()) {
        for t in targets {
            if let Some(u) = t.get_mut("url")
                && let Some(s) = u.as_str()
            {
                *u = serde_norway::Value::String(redact_urls(s));
            }
            let redact = |h: Option<&mut serde_norway::Value>| {
                if let Some(h) = h.and_then(|h| h.as_mapping_mut()) {
                    for (k, val) in h.iter_mut() {
                        if let (Some(k), Some(s)) = (k.as_str(), val.as_str()) {
                            *val = serde_norway::Value::String(redact_header_value(k, s, &extra));
                        }
                    }
                }
            };
            redact(t.get_mut("headers"));
            redact(t.get_mut("rewrite").and_then(|r| r.get_mut("set_headers")));
        }
    }
    format!(
        "# loadlab re-serialized this plan to redact its credentials (comments and layout are not kept)\n{}",
        serde_norway::to_string(&v).unwrap_or_default()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_redacted_where_they_stand_as_values() {
        let pw = vec!["wrong".to_string()];
        // Prose keeps its words.
        assert_eq!(
            redact_values("FATAL: wrong user name or password", &pw),
            "FATAL: wrong user name or password"
        );
        assert_eq!(
            redact_values(
                "MariaDB at 127.0.0.1:3306 refused the login of user 'sbtest': wrong user name or password",
                &pw
            ),
            "MariaDB at 127.0.0.1:3306 refused the login of user 'sbtest': wrong user name or password"
        );
        assert_eq!(
            redact_values("password: wrong; X-Session-Token: wrong", &pw),
            "password: REDACTED; X-Session-Token: REDACTED"
        );
        assert_eq!(
            redact_values("sysbench --mysql-password=wrong --threads=1", &pw),
            "sysbench --mysql-password=REDACTED --threads=1"
        );
        assert_eq!(
            redact_values("host=h user=u password=wrong dbname=d", &pw),
            "host=h user=u password=REDACTED dbname=d"
        );
        assert_eq!(
            redact_values("http://me:wrong@h/ and Authorization: Bearer wrong.", &pw),
            "http://me:REDACTED@h/ and Authorization: Bearer REDACTED."
        );
        assert_eq!(
            redact_values("X-Api-Key: wrong, \"wrong\"", &pw),
            "X-Api-Key: REDACTED, \"REDACTED\""
        );
        // A longer word that starts with the value is another word.
        assert_eq!(redact_values("password=wrongly", &pw), "password=wrongly");
        // Too short to be a secret.
        assert_eq!(redact_values("a=abc", &["abc".into()]), "a=abc");
    }

    #[test]
    fn pieces_and_escapes() {
        assert_eq!(references("Bearer ${API_TOKEN}").unwrap(), ["API_TOKEN"]);
        assert_eq!(references("a$b ${X}${Y_2}").unwrap(), ["X", "Y_2"]);
        assert!(references("$${NOT}").unwrap().is_empty());
        let mut env = EnvValues::default();
        env.0.insert("X".into(), "v".into());
        assert_eq!(expand("$${X} ${X} $5", &env).unwrap(), "${X} v $5");
        assert!(references("${1X}").is_err());
        assert!(references("${X").is_err());
        assert_eq!(format!("{env:?}"), "{\"X\"}");
    }

    #[test]
    fn shell_words_keep_references_only() {
        assert_eq!(shell_quoted("Bearer ${TOKEN}"), "\"Bearer ${TOKEN}\"");
        assert_eq!(
            shell_quoted(r#"say "hi" `x` \ $5 $${NOT} ${A}${B_2}"#),
            r#""say \"hi\" \`x\` \\ \$5 \${NOT} ${A}${B_2}""#
        );
    }

    #[test]
    fn header_values() {
        let none: &[String] = &[];
        assert_eq!(
            redact_header_value("Authorization", "Bearer abc.def", none),
            "Bearer REDACTED"
        );
        assert_eq!(
            redact_header_value("authorization", "Bearer ${TOKEN}", none),
            "Bearer ${TOKEN}"
        );
        assert_eq!(
            redact_header_value("X-Api-Key", "sk-live 123", none),
            "REDACTED"
        );
        assert_eq!(redact_header_value("Cookie", "${C}", none), "${C}");
        assert_eq!(
            redact_header_value("Accept", "text/html", none),
            "text/html"
        );
        let extra = ["X-Session".to_string()];
        assert_eq!(
            redact_header_value("x-session", "s3cr3t", &extra),
            "REDACTED"
        );
        // Idempotent.
        assert_eq!(
            redact_header_value("Authorization", "Bearer REDACTED", none),
            "Bearer REDACTED"
        );
    }

    #[test]
    fn urls() {
        assert_eq!(
            redact_urls("GET http://user:pa:ss@127.0.0.1:8/x?y=1: connection refused"),
            "GET http://user:xxxxx@127.0.0.1:8/x?y=1: connection refused"
        );
        assert_eq!(redact_urls("http://u:${P}@h/"), "http://u:${P}@h/");
        assert_eq!(
            redact_urls("http://token@h/ and https://h/"),
            "http://token@h/ and https://h/"
        );
        assert_eq!(redact_urls("\"http://a:b@h\""), "\"http://a:xxxxx@h\"");
    }

    #[test]
    fn plan_yaml_in_place_and_fallback() {
        let y = "name: x # a comment\ntargets:\n  - name: a\n    url: http://me:hunter22@h/\n    headers: {Authorization: \"Bearer tok123\", Accept: x, X-S: zz99}\nredact: [X-S]\n";
        let r = redact_plan_yaml(y);
        assert!(r.contains("# a comment"), "{r}");
        assert!(
            r.contains("http://me:xxxxx@h/") && r.contains("Bearer REDACTED"),
            "{r}"
        );
        assert!(
            !r.contains("hunter22") && !r.contains("tok123") && !r.contains("zz99"),
            "{r}"
        );
        // An escaped value is not found verbatim: re-serialized.
        let y = "name: x\ntargets:\n  - name: a\n    url: http://h/\n    headers: {Cookie: \"s\\x3d123456\"}\n";
        let r = redact_plan_yaml(y);
        assert!(r.starts_with("# loadlab re-serialized"), "{r}");
        assert!(!r.contains("123456"), "{r}");
        assert_eq!(redact_plan_yaml(&r), r);
    }
}
