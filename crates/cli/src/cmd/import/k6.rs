//! An editable k6 script from a list of requests: the `--to k6` writer of
//! `loadlab import`, shared by the converters that produce one.
//!
//! A converter builds [`Group`]s of [`Request`]s and calls [`script`]:
//!
//! * a [`Text`] is a string of the script: literal pieces and variables set
//!   by an earlier [`Extract`]; it is written as a JavaScript string literal,
//!   or as a template literal (`` `Bearer ${token}` ``) when it holds a
//!   variable;
//! * a [`Request`] is sent with `http.request(method, url, body, {headers})`,
//!   its status checked (the recorded one when 2xx, else below 400), after
//!   `sleep(think)` when `think > 0`; its [`Extract`]s then read values from
//!   the response into variables, each with a `check` that it was found;
//! * a [`Group`] with a name becomes a k6 `group(name, ...)`; without one,
//!   its requests stand in the default function.
//!
//! The script runs one virtual user once (`options` is a stub to edit) and
//! fails its threshold if any check fails.

use std::fmt::Write as _;

/// A piece of a [`Text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    Lit(String),
    /// A variable's name.
    Var(String),
}

/// A string of the script: literal text and variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text(pub Vec<Piece>);

impl Text {
    /// Text with no variables.
    pub fn lit(s: &str) -> Text {
        Text(vec![Piece::Lit(s.to_string())])
    }

    /// Replaces every occurrence of `value` in the literal pieces by `var`;
    /// whether any was replaced.
    pub fn substitute(&mut self, value: &str, var: &str) -> bool {
        let mut out = Vec::new();
        let mut hit = false;
        for p in self.0.drain(..) {
            match p {
                Piece::Lit(s) if s.contains(value) => {
                    hit = true;
                    let mut parts = s.split(value).peekable();
                    while let Some(part) = parts.next() {
                        if !part.is_empty() {
                            out.push(Piece::Lit(part.to_string()));
                        }
                        if parts.peek().is_some() {
                            out.push(Piece::Var(var.to_string()));
                        }
                    }
                }
                p => out.push(p),
            }
        }
        self.0 = out;
        hit
    }

    /// The text as a JavaScript expression.
    pub fn js(&self) -> String {
        match self.0.as_slice() {
            [] => "''".into(),
            [Piece::Var(v)] => v.clone(),
            ps if ps.iter().all(|p| matches!(p, Piece::Lit(_))) => {
                let s: String = ps
                    .iter()
                    .map(|p| match p {
                        Piece::Lit(s) | Piece::Var(s) => s.as_str(),
                    })
                    .collect();
                serde_json::to_string(&s).expect("a string serializes")
            }
            ps => {
                let mut t = String::from("`");
                for p in ps {
                    match p {
                        Piece::Var(v) => write!(t, "${{{v}}}").expect("to a string"),
                        Piece::Lit(s) => {
                            for c in s.chars() {
                                match c {
                                    '`' | '\\' | '$' => {
                                        t.push('\\');
                                        t.push(c)
                                    }
                                    '\n' => t.push_str("\\n"),
                                    '\r' => t.push_str("\\r"),
                                    c => t.push(c),
                                }
                            }
                        }
                    }
                }
                t.push('`');
                t
            }
        }
    }
}

/// How an [`Extract`] finds its value in a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Find {
    /// `res.json(path)`, a gjson path such as `data.token` or `items.0.id`.
    Json(String),
    /// The first capture group of a JavaScript regular expression (its
    /// source, without the slashes) matched against `res.body`.
    Regex(String),
}

/// A value read from a request's response into a variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extract {
    pub var: String,
    pub find: Find,
    /// Where the value came from, written as a comment above it.
    pub comment: String,
}

/// One request of the script.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// Written as a comment above it (e.g. the recording's entry index).
    pub comment: String,
    pub method: String,
    pub url: Text,
    pub headers: Vec<(String, Text)>,
    pub body: Option<Text>,
    /// The recorded status (0: unknown, checked as below 400).
    pub status: u16,
    /// Seconds to sleep before sending it (0: none).
    pub think: f64,
    pub extract: Vec<Extract>,
}

/// Requests sent one after another, in a k6 `group` when named.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Group {
    pub name: Option<String>,
    pub requests: Vec<Request>,
}

/// The script: `note` in its opening comment, then the groups in order.
pub fn script(note: &str, groups: &[Group]) -> String {
    let mut s = String::new();
    for l in note.lines() {
        writeln!(s, "// {l}").expect("to a string");
    }
    s += "// Written by loadlab import: edit freely.\n\
          import http from 'k6/http';\n\
          import { check, group, sleep } from 'k6';\n\n\
          export const options = {\n\
          \x20 vus: 1,\n\
          \x20 iterations: 1,\n\
          \x20 thresholds: { checks: ['rate==1'] },\n\
          };\n\n\
          export default function () {\n\
          \x20 let res;\n";
    let vars: Vec<&str> = groups
        .iter()
        .flat_map(|g| &g.requests)
        .flat_map(|r| &r.extract)
        .map(|x| x.var.as_str())
        .collect();
    if !vars.is_empty() {
        writeln!(s, "  let {};", vars.join(", ")).expect("to a string");
    }
    for g in groups {
        match &g.name {
            Some(name) => {
                let name = serde_json::to_string(name).expect("a string serializes");
                writeln!(s, "\n  group({name}, function () {{").expect("to a string");
                for r in &g.requests {
                    request(&mut s, r, "    ");
                }
                s += "  });\n";
            }
            None => g.requests.iter().for_each(|r| request(&mut s, r, "  ")),
        }
    }
    s += "}\n";
    s
}

fn request(s: &mut String, r: &Request, ind: &str) {
    s.push('\n');
    if r.think > 0.0 {
        writeln!(s, "{ind}sleep({});", r.think).expect("to a string");
    }
    for l in r.comment.lines() {
        writeln!(s, "{ind}// {l}").expect("to a string");
    }
    let body = r.body.as_ref().map_or("null".into(), Text::js);
    write!(
        s,
        "{ind}res = http.request({}, {}, {body}, {{\n{ind}  headers: {{",
        serde_json::to_string(&r.method).expect("a string serializes"),
        r.url.js()
    )
    .expect("to a string");
    for (k, v) in &r.headers {
        let k = serde_json::to_string(k).expect("a string serializes");
        write!(s, "\n{ind}    {k}: {},", v.js()).expect("to a string");
    }
    if !r.headers.is_empty() {
        write!(s, "\n{ind}  ").expect("to a string");
    }
    writeln!(s, "}},\n{ind}}});").expect("to a string");
    let check = if (200..300).contains(&r.status) {
        format!("'status is {0}': (r) => r.status === {0}", r.status)
    } else {
        "'status is below 400': (r) => r.status > 0 && r.status < 400".into()
    };
    writeln!(s, "{ind}check(res, {{ {check} }});").expect("to a string");
    for x in &r.extract {
        for l in x.comment.lines() {
            writeln!(s, "{ind}// {l}").expect("to a string");
        }
        let v = &x.var;
        match &x.find {
            Find::Json(path) => writeln!(
                s,
                "{ind}{v} = res.json({});",
                serde_json::to_string(path).expect("a string serializes")
            ),
            Find::Regex(re) => writeln!(s, "{ind}{v} = ((res.body || '').match(/{re}/) || [])[1];"),
        }
        .expect("to a string");
        writeln!(
            s,
            "{ind}check({v}, {{ '{v} found': (v) => v !== undefined && v !== null && String(v).length > 0 }});"
        )
        .expect("to a string");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_a_variable_is_a_template_literal() {
        let mut t = Text::lit("Bearer abc.def`$x");
        assert!(t.substitute("abc", "token"));
        assert_eq!(t.js(), "`Bearer ${token}.def\\`\\$x`");
        assert!(!t.substitute("zzz", "other"));
        assert_eq!(Text::lit("a\"b").js(), "\"a\\\"b\"");
        let mut whole = Text::lit("abc");
        whole.substitute("abc", "token");
        assert_eq!(whole.js(), "token");
    }
}
